// The per-slot MILP baseline, solved by CBC (COIN-OR branch and cut; Debian coinor-libcbc-dev).
//
//   min  sum_ij x_ij * 2 L_ij  +  w_switch * sum_ij d_ij  +  w_over * sum_j o_j
//   s.t. sum_j x_ij = a_i                          (every request routed; x_ij integer >= 0)
//        sum_i x_ij - o_j <= u * cap_j * T - q_j   (TORTA's MILP caps each region's load at 80%)
//        d_ij >= |x_ij - A_prev,ij * a_i|          (requests moved from last slot's routing)
//
// x are integer request counts, as TORTA's MILP assigns whole tasks (digest §1), aggregated per
// region pair instead of per task and server so one slot stays a few thousand variables. Power is
// left out of the objective: with every region loaded to its target it is nearly fixed, and
// pricing it against seconds would need a weight the paper does not give.
#include <algorithm>
#include <cmath>
#include <coin/CbcModel.hpp>
#include <coin/CoinPackedMatrix.hpp>
#include <coin/CoinPackedVector.hpp>
#include <coin/OsiClpSolverInterface.hpp>
#include <numeric>
#include <vector>

#include "core/fleet/sim/baselines.h"

namespace doppler::fleet::sim {
namespace {

class MilpPolicy : public SchedulingPolicy {
 public:
  explicit MilpPolicy(const MilpOptions& options) : options_(options) {}
  std::string name() const override { return "milp"; }
  Allocation allocate(const SlotState& s) override;

 private:
  MilpOptions options_;
};

// Last slot's routing applied to this slot's arrivals, in whole requests: each row rounded by
// the largest-remainder method so it still sums to the row's arrivals.
std::vector<double> previousCounts(const SlotState& s) {
  const int n = s.regions();
  std::vector<double> out(static_cast<size_t>(n) * n, 0.0);
  for (int i = 0; i < n; ++i) {
    const double a = std::round(s.arrivals[i]);
    std::vector<std::pair<double, int>> remainders;
    double assigned = 0;
    for (int j = 0; j < n; ++j) {
      const double exact = s.previous.at(i, j) * a;
      out[static_cast<size_t>(i) * n + j] = std::floor(exact);
      assigned += std::floor(exact);
      remainders.push_back({exact - std::floor(exact), j});
    }
    std::stable_sort(remainders.begin(), remainders.end(),
                     [](const auto& x, const auto& y) { return x.first > y.first; });
    for (int k = 0; assigned < a && k < n; ++k, assigned += 1)
      out[static_cast<size_t>(i) * n + remainders[k].second] += 1;
  }
  return out;
}

Allocation MilpPolicy::allocate(const SlotState& s) {
  const int n = s.regions();
  const double total = std::accumulate(s.arrivals.begin(), s.arrivals.end(), 0.0);
  if (total <= 0) return Allocation::identity(n);
  // Columns: x_ij (n*n), d_ij (n*n), o_j (n).
  const int nx = n * n, cols = 2 * nx + n;
  auto X = [&](int i, int j) { return i * n + j; };
  auto D = [&](int i, int j) { return nx + i * n + j; };
  auto O = [&](int j) { return 2 * nx + j; };
  std::vector<double> colLo(cols, 0.0), colUp(cols, COIN_DBL_MAX), obj(cols, 0.0);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double a = std::round(s.arrivals[i]);
      colUp[X(i, j)] = a;
      if (s.fleet->regionServers(j).empty()) colUp[X(i, j)] = 0;  // nothing to serve it there
      obj[X(i, j)] = 2.0 * s.latency(i, j);
      obj[D(i, j)] = options_.switch_weight;
    }
  for (int j = 0; j < n; ++j) obj[O(j)] = options_.overload_weight;

  CoinPackedMatrix matrix(false, 0, 0);
  matrix.setDimensions(0, cols);
  std::vector<double> rowLo, rowUp;
  auto addRow = [&](const CoinPackedVector& row, double lo, double up) {
    matrix.appendRow(row);
    rowLo.push_back(lo);
    rowUp.push_back(up);
  };
  const double u = s.fleet->options().target_utilization;
  for (int i = 0; i < n; ++i) {
    CoinPackedVector row;
    for (int j = 0; j < n; ++j) row.insert(X(i, j), 1.0);
    const double a = std::round(s.arrivals[i]);
    addRow(row, a, a);
  }
  for (int j = 0; j < n; ++j) {
    CoinPackedVector row;
    for (int i = 0; i < n; ++i) row.insert(X(i, j), 1.0);
    row.insert(O(j), -1.0);
    // Integer right-hand sides (whole requests) keep the relaxation's vertices integral more often.
    addRow(row, -COIN_DBL_MAX, std::floor(u * s.poolRate(j) * s.slot_seconds - s.queued[j]));
  }
  const std::vector<double> previous = previousCounts(s);
  for (int i = 0; i < n; ++i)
    for (int j = 0; j < n; ++j) {
      const double prev = previous[static_cast<size_t>(i) * n + j];
      CoinPackedVector up, down;
      up.insert(D(i, j), 1.0);  // d - x >= -prev
      up.insert(X(i, j), -1.0);
      addRow(up, -prev, COIN_DBL_MAX);
      down.insert(D(i, j), 1.0);  // d + x >= prev
      down.insert(X(i, j), 1.0);
      addRow(down, prev, COIN_DBL_MAX);
    }

  OsiClpSolverInterface solver;
  solver.messageHandler()->setLogLevel(0);
  solver.loadProblem(matrix, colLo.data(), colUp.data(), obj.data(), rowLo.data(), rowUp.data());
  // The relaxation first: the routing part is a transportation problem, whose LP optimum is
  // usually integral already; branch and bound only when it is not.
  solver.initialSolve();
  const double* lp = solver.getColSolution();
  bool integral = options_.lp_first && solver.isProvenOptimal() && lp != nullptr;
  for (int k = 0; integral && k < nx; ++k) integral = std::abs(lp[k] - std::round(lp[k])) < 1e-6;
  std::vector<double> x;
  if (integral) {
    x.assign(lp, lp + cols);
  } else {
    for (int k = 0; k < nx; ++k) solver.setInteger(k);
    CbcModel model(solver);
    model.setLogLevel(0);
    model.messageHandler()->setLogLevel(0);
    model.setMaximumSeconds(options_.time_limit_s);
    model.branchAndBound();
    // The best integer solution found within the time limit, else the relaxation's (rows are
    // normalised below, so fractional counts still give a valid allocation).
    const double* best = model.bestSolution();
    if (best)
      x.assign(best, best + cols);
    else if (lp)
      x.assign(lp, lp + cols);
  }
  Allocation a(n);
  if (!x.empty())
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < n; ++j) a.at(i, j) = x[X(i, j)];
  normalizeRows(a);
  return a;
}

}  // namespace

std::unique_ptr<SchedulingPolicy> makeMilpPolicy(const MilpOptions& options) {
  return std::make_unique<MilpPolicy>(options);
}

}  // namespace doppler::fleet::sim
