#include "core/fleet/ot/solve_transport.h"

#include "core/fleet/ot/unbalanced_transport.h"

namespace doppler::fleet::ot {

std::optional<Method> parseMethod(std::string_view name) {
  if (name == "exact") return Method::Exact;
  if (name == "sinkhorn") return Method::Sinkhorn;
  if (name == "unbalanced") return Method::Unbalanced;
  return std::nullopt;
}

std::string toString(Method method) {
  switch (method) {
    case Method::Exact:
      return "exact";
    case Method::Sinkhorn:
      return "sinkhorn";
    case Method::Unbalanced:
      return "unbalanced";
  }
  return "?";
}

std::string methodNames() {
  return "exact, sinkhorn, unbalanced";
}

TransportResult solveTransport(const TransportProblem& problem, const SolveOptions& options) {
  switch (options.method) {
    case Method::Exact:
      return solveExact(problem, options.exact);
    case Method::Unbalanced:
      return solveUnbalanced(problem, options.exact);
    case Method::Sinkhorn: {
      validate(problem);  // before defaultReg reads the costs
      SinkhornOptions sinkhorn = options.sinkhorn;
      if (sinkhorn.reg == 0) sinkhorn.reg = defaultReg(problem);
      return solveSinkhorn(problem, sinkhorn);
    }
  }
  return {};
}

}  // namespace doppler::fleet::ot
