#include "core/fleet/ot/transport_problem.h"

#include <algorithm>
#include <cmath>
#include <sstream>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "core/graph/json_access.h"

namespace doppler::fleet::ot {

namespace {

using nlohmann::json;

std::string index(const std::string& field, std::size_t i) {
  return field + "[" + std::to_string(i) + "]";
}

std::string number(double x) {
  std::ostringstream s;
  s.precision(10);
  s << x;
  return s.str();
}

void checkMasses(const std::vector<double>& masses, const std::string& field) {
  if (masses.empty()) throw InputError("", field, "must not be empty");
  for (std::size_t i = 0; i < masses.size(); ++i) {
    if (!std::isfinite(masses[i])) throw InputError("", index(field, i), "is not finite");
    if (masses[i] < 0)
      throw InputError("", index(field, i), "must not be negative (" + number(masses[i]) + ")");
  }
  // Finite entries can still overflow in their sum; the solvers scale by the total (a NaN scale
  // made the unbalanced method's rounding loop run for ever).
  if (!std::isfinite(total(masses)))
    throw InputError("", field, "total overflows (the sum of the entries is not finite)");
}

std::vector<double> readMasses(const json& root, const char* field) {
  const json& array = json_access::require(root, field, "");
  if (!array.is_array())
    throw InputError("", field,
                     "expected an array of numbers, found " + json_access::typeName(array));
  std::vector<double> masses;
  masses.reserve(array.size());
  for (std::size_t i = 0; i < array.size(); ++i)
    masses.push_back(json_access::nonNegative(array[i], index(field, i)));
  if (masses.empty()) throw InputError("", field, "must not be empty");
  return masses;
}

Matrix readCost(const json& root, std::size_t rows, std::size_t cols) {
  const json& matrix = json_access::require(root, "cost", "");
  if (!matrix.is_array())
    throw InputError("", "cost",
                     "expected an array of rows, found " + json_access::typeName(matrix));
  if (matrix.size() != rows)
    throw InputError("", "cost",
                     "expected " + std::to_string(rows) + " rows (one per entry of a), found " +
                         std::to_string(matrix.size()));
  Matrix cost(rows, cols);
  for (std::size_t i = 0; i < rows; ++i) {
    const json& row = matrix[i];
    const std::string where = index("cost", i);
    if (!row.is_array())
      throw InputError("", where,
                       "expected an array of numbers, found " + json_access::typeName(row));
    if (row.size() != cols)
      throw InputError("", where,
                       "expected " + std::to_string(cols) +
                           " entries (one per entry of b), found " + std::to_string(row.size()));
    for (std::size_t j = 0; j < cols; ++j)
      cost(i, j) = json_access::nonNegative(row[j], index(where, j));
  }
  return cost;
}

}  // namespace

void validate(const TransportProblem& problem) {
  checkMasses(problem.a, "a");
  checkMasses(problem.b, "b");
  const Matrix& cost = problem.cost;
  if (cost.values.size() != cost.rows * cost.cols)
    throw InputError("", "cost",
                     "holds " + std::to_string(cost.values.size()) + " values for a " +
                         std::to_string(cost.rows) + " x " + std::to_string(cost.cols) + " matrix");
  if (cost.rows != problem.a.size() || cost.cols != problem.b.size())
    throw InputError("", "cost",
                     "is " + std::to_string(cost.rows) + " x " + std::to_string(cost.cols) +
                         ", expected " + std::to_string(problem.a.size()) + " x " +
                         std::to_string(problem.b.size()) + " (entries of a x entries of b)");
  for (std::size_t i = 0; i < cost.rows; ++i)
    for (std::size_t j = 0; j < cost.cols; ++j) {
      const double c = cost(i, j);
      // The field's name is built only for an error: validate runs before every solve.
      if (!std::isfinite(c)) throw InputError("", index(index("cost", i), j), "is not finite");
      if (c < 0)
        throw InputError("", index(index("cost", i), j),
                         "must not be negative (" + number(c) + ")");
    }
}

TransportProblem parseTransportProblem(std::string_view text, const std::string& file) {
  try {
    const json root = json_access::parse(text);
    if (!root.is_object())
      throw InputError(
          "", "",
          "expected a JSON object {\"a\", \"b\", \"cost\"}, found " + json_access::typeName(root));
    TransportProblem problem;
    problem.a = readMasses(root, "a");
    problem.b = readMasses(root, "b");
    problem.cost = readCost(root, problem.a.size(), problem.b.size());
    validate(problem);  // the readers already check each field; this keeps the promise in one place
    return problem;
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
}

TransportProblem readTransportProblem(const std::string& path) {
  return parseTransportProblem(readTextFile(path, 16u << 20), path);
}

double total(const std::vector<double>& masses) {
  double sum = 0;
  for (double m : masses) sum += m;
  return sum;
}

std::vector<double> rowSums(const Matrix& plan) {
  std::vector<double> sums(plan.rows, 0.0);
  for (std::size_t i = 0; i < plan.rows; ++i)
    for (std::size_t j = 0; j < plan.cols; ++j) sums[i] += plan(i, j);
  return sums;
}

std::vector<double> columnSums(const Matrix& plan) {
  std::vector<double> sums(plan.cols, 0.0);
  for (std::size_t i = 0; i < plan.rows; ++i)
    for (std::size_t j = 0; j < plan.cols; ++j) sums[j] += plan(i, j);
  return sums;
}

double transportCost(const Matrix& plan, const Matrix& cost) {
  double sum = 0;
  for (std::size_t k = 0; k < plan.values.size(); ++k) sum += plan.values[k] * cost.values[k];
  return sum;
}

double marginalError(const Matrix& plan, const TransportProblem& problem, Columns columns) {
  double error = 0;
  const std::vector<double> rows = rowSums(plan), cols = columnSums(plan);
  for (std::size_t i = 0; i < rows.size(); ++i) error += std::abs(rows[i] - problem.a[i]);
  for (std::size_t j = 0; j < cols.size(); ++j)
    error += columns == Columns::Equal ? std::abs(cols[j] - problem.b[j])
                                       : std::max(0.0, cols[j] - problem.b[j]);
  return error;
}

bool isBalanced(const TransportProblem& problem) {
  const double sa = total(problem.a), sb = total(problem.b);
  return std::abs(sa - sb) <= kBalanceTolerance * std::max(sa, sb);
}

void requireBalanced(const TransportProblem& problem, const std::string& method) {
  if (isBalanced(problem)) return;
  throw InputError("", "b",
                   "total " + number(total(problem.b)) + " differs from the total of a, " +
                       number(total(problem.a)) + ": the " + method +
                       " method needs balanced masses (use --method unbalanced when b are "
                       "capacities)");
}

}  // namespace doppler::fleet::ot
