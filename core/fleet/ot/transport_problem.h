#pragma once
// One optimal-transport problem and its answer, as plain data: supplies a (m rows), demands or
// capacities b (n columns), a cost matrix C (m x n), and a plan P (m x n). The JSON form
// `{"a": [...], "b": [...], "cost": [[...]]}` is what `doppler fleet ot --problem` reads
// (docs/fleet_ot.md).
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace doppler::fleet::ot {

// A dense row-major matrix of doubles.
struct Matrix {
  std::size_t rows = 0, cols = 0;
  std::vector<double> values;  // rows * cols, row after row

  Matrix() = default;
  Matrix(std::size_t r, std::size_t c, double fill = 0) : rows(r), cols(c), values(r * c, fill) {}
  double& operator()(std::size_t i, std::size_t j) { return values[i * cols + j]; }
  double operator()(std::size_t i, std::size_t j) const { return values[i * cols + j]; }
};

struct TransportProblem {
  std::vector<double> a;  // row masses: supplies (or, unbalanced, demand that must all ship)
  std::vector<double> b;  // column masses: demands (or, unbalanced, capacities)
  Matrix cost;            // a.size() x b.size()
};

// Throws InputError (no file; `where` names the field, e.g. "a[2]" or "cost[1][0]") unless a and
// b are non-empty, every mass and cost is finite and non-negative, and cost is a.size() x
// b.size(). Every solver calls it first.
void validate(const TransportProblem& problem);

// Reads the JSON form; every problem becomes an InputError naming `file`, the field and what is
// wrong. The result has passed validate(). Unknown fields are ignored (room for a "name").
TransportProblem parseTransportProblem(std::string_view text, const std::string& file = {});
// The same from a file (missing, empty, binary or over 16 MiB: InputError).
TransportProblem readTransportProblem(const std::string& path);

double total(const std::vector<double>& masses);
std::vector<double> rowSums(const Matrix& plan);
std::vector<double> columnSums(const Matrix& plan);
// <P, C>: the transport cost of a plan, without any entropic term.
double transportCost(const Matrix& plan, const Matrix& cost);

// The L1 distance of the plan's marginals from their targets: sum_i |row_i - a_i| plus, for
// equality columns, sum_j |col_j - b_j|, or, for capacity columns, sum_j max(0, col_j - b_j).
enum class Columns { Equal, AtMost };
double marginalError(const Matrix& plan, const TransportProblem& problem, Columns columns);

// Whether sum a and sum b agree to the relative tolerance the balanced solvers accept: 1e-6, as
// POT's emd checks (to 6 decimals), so masses printed with a few digits still read as balanced.
constexpr double kBalanceTolerance = 1e-6;
bool isBalanced(const TransportProblem& problem);
// InputError on "b" naming both totals unless isBalanced(problem).
void requireBalanced(const TransportProblem& problem, const std::string& method);

// A solver's answer. Fields a method does not use keep their defaults.
struct TransportResult {
  std::string method;  // "exact", "sinkhorn" or "unbalanced"
  Matrix plan;
  double cost = 0;            // <P, C>
  double marginal_error = 0;  // marginalError() against the problem
  int iterations = 0;         // Sinkhorn iterations (one row and one column update each)
  bool converged = true;      // Sinkhorn: marginal error within tolerance before max_iterations
  double reg = 0;             // Sinkhorn: the entropic weight eps used
  double objective = 0;       // Sinkhorn: <P, C> + eps * sum P log P (POT's objective)
  std::vector<double> unused_capacity;  // unbalanced: b_j - col_j, per column
};

}  // namespace doppler::fleet::ot
