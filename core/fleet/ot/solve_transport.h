#pragma once
// One entry point for the three transport methods, chosen by name: what the CLI, the benchmarks
// and the fleet's per-slot OT call.
#include <optional>
#include <string>
#include <string_view>

#include "core/fleet/ot/exact_transport.h"
#include "core/fleet/ot/sinkhorn.h"
#include "core/fleet/ot/transport_problem.h"

namespace doppler::fleet::ot {

enum class Method { Exact, Sinkhorn, Unbalanced };

std::optional<Method> parseMethod(std::string_view name);  // "exact", "sinkhorn", "unbalanced"
std::string toString(Method method);
std::string methodNames();  // "exact, sinkhorn, unbalanced", for messages

struct SolveOptions {
  Method method = Method::Exact;
  ExactOptions exact;        // exact and unbalanced
  SinkhornOptions sinkhorn;  // reg 0: defaultReg(problem)
};

// The chosen solver's result; its errors as the solver throws them (InputError without a file).
// A Sinkhorn run that did not converge returns with converged = false.
TransportResult solveTransport(const TransportProblem& problem, const SolveOptions& options);

}  // namespace doppler::fleet::ot
