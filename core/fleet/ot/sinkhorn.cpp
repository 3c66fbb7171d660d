#include "core/fleet/ot/sinkhorn.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>

#include "core/common/input_error.h"

namespace doppler::fleet::ot {

namespace {

// log sum_k exp(x[k] + y[k]), shifted by the largest term so nothing overflows.
double logSumExp(const double* x, const std::vector<double>& y) {
  double largest = -std::numeric_limits<double>::infinity();
  for (std::size_t k = 0; k < y.size(); ++k) largest = std::max(largest, x[k] + y[k]);
  if (!std::isfinite(largest)) return largest;
  double sum = 0;
  for (std::size_t k = 0; k < y.size(); ++k) sum += std::exp(x[k] + y[k] - largest);
  return largest + std::log(sum);
}

std::vector<std::size_t> positiveEntries(const std::vector<double>& masses) {
  std::vector<std::size_t> entries;
  for (std::size_t i = 0; i < masses.size(); ++i)
    if (masses[i] > 0) entries.push_back(i);
  return entries;
}

double largestCost(const Matrix& cost) {
  double largest = 0;
  for (double c : cost.values) largest = std::max(largest, c);
  return largest;
}

void checkOptions(const TransportProblem& problem, const SinkhornOptions& options) {
  if (!(options.reg > 0) || !std::isfinite(options.reg))
    throw InputError("", "reg", "must be a positive finite number");
  const double largest = largestCost(problem.cost);
  // -C/eps is the log kernel; once it overflows the iterations have nothing to work on.
  if (!std::isfinite(largest / options.reg) || largest / options.reg > 1e300) {
    std::ostringstream s;
    s << "is too small for costs up to " << largest;
    throw InputError("", "reg", s.str());
  }
  if (options.max_iterations < 1) throw InputError("", "max_iterations", "must be at least 1");
  if (!(options.tolerance >= 0)) throw InputError("", "tolerance", "must not be negative");
}

}  // namespace

double defaultReg(const TransportProblem& problem) {
  const double largest = largestCost(problem.cost);
  return largest > 0 ? 0.01 * largest : 1.0;
}

TransportResult solveSinkhorn(const TransportProblem& problem, const SinkhornOptions& options) {
  validate(problem);
  requireBalanced(problem, "sinkhorn");
  checkOptions(problem, options);
  const double eps = options.reg;
  TransportResult result;
  result.method = "sinkhorn";
  result.reg = eps;
  result.plan = Matrix(problem.a.size(), problem.b.size());
  const double totalA = total(problem.a), totalB = total(problem.b);
  if (totalA <= 0) return result;  // nothing to move: the zero plan is the only one

  // Rows and columns with zero mass carry nothing (their potential is -inf); leave them out.
  const std::vector<std::size_t> rows = positiveEntries(problem.a),
                                 cols = positiveEntries(problem.b);
  const std::size_t m = rows.size(), n = cols.size();
  // The log kernel -C/eps, row-major and (for the column updates) column-major.
  std::vector<double> kernel(m * n), kernelT(m * n);
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const double k = -problem.cost(rows[r], cols[c]) / eps;
      kernel[r * n + c] = k;
      kernelT[c * m + r] = k;
    }
  std::vector<double> logA(m), logB(n);
  for (std::size_t r = 0; r < m; ++r) logA[r] = std::log(problem.a[rows[r]]);
  // b rescaled to a's total (they agree within kBalanceTolerance), so the iterations have an
  // exact fixed point to converge to.
  for (std::size_t c = 0; c < n; ++c) logB[c] = std::log(problem.b[cols[c]] * totalA / totalB);

  // Log-domain stabilised Sinkhorn (Schmitzer's absorption; POT's sinkhorn_stabilized): dual
  // potentials alpha, beta (scaled by 1/eps) stay in the log domain and hold the stabilised kernel
  // gibbs_rc = exp(kernel_rc + alpha_r + beta_c); between absorptions plain scalings u, v
  // iterate on it, P_rc = u_r gibbs_rc v_c, at the price of a multiply-add per entry instead of an
  // exp. When a scaling leaves [1/kRange, kRange] or a sum underflows, the scalings are absorbed
  // and one exact log-sum-exp step is taken, which is safe for any eps; so is the first step.
  constexpr double kRange = 1e50;
  std::vector<double> alpha(m, 0.0), beta(n, 0.0), u(m, 1.0), v(n, 1.0), gibbs(m * n);
  std::vector<double> rowSum(m), colSum(n), rowA(m), colB(n);
  for (std::size_t r = 0; r < m; ++r) rowA[r] = std::exp(logA[r]);
  for (std::size_t c = 0; c < n; ++c) colB[c] = std::exp(logB[c]);
  auto logStep = [&] {
    // v holds only finite positive values (out-of-range ones are never stored), so beta can
    // absorb it; alpha is recomputed from beta, so u need not be absorbed.
    for (std::size_t c = 0; c < n; ++c) beta[c] += std::log(v[c]);
    for (std::size_t r = 0; r < m; ++r) alpha[r] = logA[r] - logSumExp(&kernel[r * n], beta);
    for (std::size_t c = 0; c < n; ++c) beta[c] = logB[c] - logSumExp(&kernelT[c * m], alpha);
    for (std::size_t r = 0; r < m; ++r)
      for (std::size_t c = 0; c < n; ++c)
        gibbs[r * n + c] = std::exp(kernel[r * n + c] + alpha[r] + beta[c]);
    std::fill(u.begin(), u.end(), 1.0);
    std::fill(v.begin(), v.end(), 1.0);
  };
  // Stores target / sum into scaling unless that leaves the stable range; false if it did.
  auto scale = [](std::vector<double>& scaling, const std::vector<double>& target,
                  const std::vector<double>& sum) {
    for (std::size_t k = 0; k < scaling.size(); ++k) {
      const double next = target[k] / sum[k];
      if (!(next >= 1 / kRange && next <= kRange)) return false;  // also catches 0/0 and x/0
      scaling[k] = next;
    }
    return true;
  };

  const double tolerance = options.tolerance * totalA;
  double error = std::numeric_limits<double>::infinity();
  logStep();
  int iterations = 1;
  bool converged = false;
  for (;;) {
    for (std::size_t r = 0; r < m; ++r) {
      double sum = 0;
      for (std::size_t c = 0; c < n; ++c) sum += gibbs[r * n + c] * v[c];
      rowSum[r] = sum;
    }
    // Columns are exact after each column update, so the rows carry all the error; the row sums
    // come from the same products the next row update needs.
    error = 0;
    for (std::size_t r = 0; r < m; ++r) error += std::abs(u[r] * rowSum[r] - rowA[r]);
    if (!std::isfinite(error)) break;
    if (error <= tolerance) {
      converged = true;
      break;
    }
    if (iterations >= options.max_iterations) break;
    bool stable = scale(u, rowA, rowSum);
    if (stable) {
      std::fill(colSum.begin(), colSum.end(), 0.0);
      for (std::size_t r = 0; r < m; ++r)
        for (std::size_t c = 0; c < n; ++c) colSum[c] += gibbs[r * n + c] * u[r];
      stable = scale(v, colB, colSum);
    }
    if (!stable) logStep();
    ++iterations;
  }
  for (std::size_t r = 0; r < m; ++r) alpha[r] += std::log(u[r]);
  for (std::size_t c = 0; c < n; ++c) beta[c] += std::log(v[c]);

  double entropy = 0;  // sum P log P
  for (std::size_t r = 0; r < m; ++r)
    for (std::size_t c = 0; c < n; ++c) {
      const double logP = kernel[r * n + c] + alpha[r] + beta[c];
      const double p = std::exp(logP);
      result.plan(rows[r], cols[c]) = p;
      if (p > 0) entropy += p * logP;
    }
  result.iterations = iterations;
  result.converged = converged;
  result.cost = transportCost(result.plan, problem.cost);
  result.objective = result.cost + eps * entropy;
  result.marginal_error = marginalError(result.plan, problem, Columns::Equal);
  return result;
}

}  // namespace doppler::fleet::ot
