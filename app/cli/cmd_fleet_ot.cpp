// `doppler fleet ot`: solve one optimal-transport problem (core/fleet/ot, docs/fleet_ot.md) and
// print the plan and its cost, so the solvers can be checked against other tools such as POT.
#include <chrono>
#include <sstream>

#include "core/common/input_error.h"
#include "core/fleet/ot/solve_transport.h"
#include "fleet_cli.h"
#include "output.h"
#include "text_table.h"

namespace doppler::cli {
namespace {

namespace ot = doppler::fleet::ot;

struct FleetOtArgs {
  std::string problem;
  std::string method = "exact";
  double reg = 0;  // 0 when not given (Sinkhorn's default, ot::defaultReg); given, above 0
  int maxIterations = ot::SinkhornOptions{}.max_iterations;
  double tolerance = ot::SinkhornOptions{}.tolerance;
  OutputArgs output;
};

// Plans larger than this print as a size only in the text form; --json always has every entry.
constexpr std::size_t kMaxTableRows = 40, kMaxTableCols = 12;

nlohmann::json matrixJson(const ot::Matrix& m) {
  nlohmann::json rows = nlohmann::json::array();
  for (std::size_t i = 0; i < m.rows; ++i) {
    nlohmann::json row = nlohmann::json::array();
    for (std::size_t j = 0; j < m.cols; ++j) row.push_back(m(i, j));
    rows.push_back(std::move(row));
  }
  return rows;
}

nlohmann::json otJson(const ot::TransportResult& r, double solveMs) {
  nlohmann::json out = {{"method", r.method},
                        {"plan", matrixJson(r.plan)},
                        {"cost", r.cost},
                        {"marginal_error", r.marginal_error},
                        {"solve_ms", solveMs}};
  if (r.method == "sinkhorn") {
    out["reg"] = r.reg;
    out["iterations"] = r.iterations;
    out["objective"] = r.objective;  // <P,C> + reg * sum P log P, POT's entropic objective
  }
  if (r.method == "unbalanced") out["unused_capacity"] = r.unused_capacity;
  return out;
}

std::string planTable(const ot::Matrix& plan) {
  std::vector<std::vector<std::string>> rows;
  std::vector<std::string> header = {""};
  for (std::size_t j = 0; j < plan.cols; ++j) header.push_back("b" + std::to_string(j));
  rows.push_back(header);
  for (std::size_t i = 0; i < plan.rows; ++i) {
    std::vector<std::string> row = {"a" + std::to_string(i)};
    for (std::size_t j = 0; j < plan.cols; ++j)
      row.push_back(plan(i, j) == 0 ? "0" : shortNumber(plan(i, j)));
    rows.push_back(row);
  }
  return textTable(rows, std::vector<Align>(plan.cols + 1, Align::Right));
}

std::string otText(const FleetOtArgs& args, const ot::TransportResult& r, double solveMs) {
  std::ostringstream s;
  s << "method          " << r.method << "\n"
    << "problem         " << args.problem << " (" << r.plan.rows << " x " << r.plan.cols << ")\n"
    << "cost            " << shortNumber(r.cost) << "  (<P, C>)\n";
  if (r.method == "sinkhorn")
    s << "reg             " << shortNumber(r.reg) << "\n"
      << "objective       " << shortNumber(r.objective) << "  (<P, C> + reg * sum P log P)\n"
      << "iterations      " << r.iterations << "\n";
  s << "marginal error  " << shortNumber(r.marginal_error) << "\n"
    << "solve time      " << fixedNumber(solveMs, 3) << " ms\n";
  if (r.method == "unbalanced") {
    s << "unused capacity";
    for (double c : r.unused_capacity) s << " " << shortNumber(c);
    s << "\n";
  }
  if (r.plan.rows <= kMaxTableRows && r.plan.cols <= kMaxTableCols)
    s << "\nplan (rows a, columns b):\n" << planTable(r.plan);
  else
    s << "\nplan: " << r.plan.rows << " x " << r.plan.cols << " (--json prints every entry)\n";
  return s.str();
}

void runFleetOt(const FleetOtArgs& args) {
  ot::SolveOptions options;
  options.method = *ot::parseMethod(args.method);  // CLI11 checked the name
  if (args.reg != 0 && options.method != ot::Method::Sinkhorn)
    throw InputError("", "--reg", "applies to --method sinkhorn only");
  options.sinkhorn.reg = args.reg;
  options.sinkhorn.max_iterations = args.maxIterations;
  options.sinkhorn.tolerance = args.tolerance;
  const ot::TransportProblem problem = ot::readTransportProblem(args.problem);
  ot::TransportResult result;
  const auto start = std::chrono::steady_clock::now();
  try {
    result = ot::solveTransport(problem, options);
  } catch (const InputError& e) {
    // The solver names the field ("b", "reg"); the message names the file. Option values
    // ("reg", "max_iterations", "tolerance") are the command line's: name them as options.
    if (e.where() == "reg" || e.where() == "max_iterations" || e.where() == "tolerance") {
      const std::string option = e.where() == "reg"              ? "--reg"
                                 : e.where() == "max_iterations" ? "--max-iter"
                                                                 : "--tolerance";
      throw InputError(args.problem, option, e.problem());
    }
    throw e.inFile(args.problem);
  }
  const double solveMs =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  if (!result.converged) {
    std::ostringstream s;
    s << "Sinkhorn did not converge in " << result.iterations << " iterations (marginal error "
      << result.marginal_error << ", tolerance " << args.tolerance << " of the total mass): raise "
      << "--reg or --max-iter";
    throw InputError(args.problem, "--reg", s.str());
  }
  writeResult(
      args.output, [&] { return otJson(result, solveMs); },
      [&] { return otText(args, result, solveMs); });
}

}  // namespace

void addFleetOtCommand(CLI::App& fleet) {
  auto args = std::make_shared<FleetOtArgs>();
  CLI::App* cmd = fleet.add_subcommand(
      "ot", "Solve one optimal-transport problem {\"a\", \"b\", \"cost\"} and print the plan");
  cmd->add_option("--problem", args->problem,
                  "Problem JSON: {\"a\": [supplies], \"b\": [demands or capacities], "
                  "\"cost\": [[...]]}")
      ->required();
  cmd->add_option("--method,-m", args->method,
                  "exact (LEMON network simplex), sinkhorn (entropic, log domain) or unbalanced "
                  "(b are capacities: all of a ships, columns take at most b)")
      ->check(CLI::IsMember({"exact", "sinkhorn", "unbalanced"}))
      ->capture_default_str();
  cmd->add_option("--reg", args->reg,
                  "Sinkhorn's entropic weight eps, in cost units, as POT's reg: minimises "
                  "<P,C> + eps * sum P log P (default: 1% of the largest cost)")
      // Given, it must be above 0: a 0 read as "not given" became the default silently.
      ->check(positiveNumber());
  cmd->add_option("--max-iter", args->maxIterations, "Sinkhorn's iteration limit")
      ->capture_default_str();
  cmd->add_option("--tolerance", args->tolerance,
                  "Sinkhorn stops when the L1 marginal error is at most this times the total mass")
      ->capture_default_str();
  addOutputOptions(*cmd, args->output);
  cmd->callback([args] { runFleetOt(*args); });
}

}  // namespace doppler::cli
