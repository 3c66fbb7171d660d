// core/fleet/ot: the three transport solvers against hand-solved instances, against an
// independent min-cost flow written here, and against each other; the problem reader's errors.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <random>

#include "core/common/input_error.h"
#include "core/fleet/ot/exact_transport.h"
#include "core/fleet/ot/integer_masses.h"
#include "core/fleet/ot/sinkhorn.h"
#include "core/fleet/ot/solve_transport.h"
#include "core/fleet/ot/transport_problem.h"
#include "core/fleet/ot/unbalanced_transport.h"

namespace {

using namespace doppler::fleet::ot;
using doppler::InputError;

Matrix matrix(const std::vector<std::vector<double>>& rows) {
  Matrix m(rows.size(), rows.empty() ? 0 : rows[0].size());
  for (std::size_t i = 0; i < rows.size(); ++i)
    for (std::size_t j = 0; j < rows[i].size(); ++j) m(i, j) = rows[i][j];
  return m;
}

TransportProblem problem(std::vector<double> a, std::vector<double> b,
                         const std::vector<std::vector<double>>& cost) {
  return {std::move(a), std::move(b), matrix(cost)};
}

// A random problem: masses in [0, 1) (some exactly zero), costs in [0, 10); b rescaled to a's
// total when balanced.
TransportProblem randomProblem(std::mt19937& rng, std::size_t rows, std::size_t cols,
                               bool balanced = true) {
  std::uniform_real_distribution<double> unit(0, 1);
  TransportProblem p;
  for (std::size_t i = 0; i < rows; ++i) p.a.push_back(unit(rng) < 0.15 ? 0 : unit(rng));
  for (std::size_t j = 0; j < cols; ++j) p.b.push_back(unit(rng) < 0.15 ? 0 : unit(rng));
  if (total(p.a) == 0) p.a[0] = 0.5;
  if (total(p.b) == 0) p.b[0] = 0.5;
  if (balanced) {
    const double factor = total(p.a) / total(p.b);
    for (double& x : p.b) x *= factor;
  }
  p.cost = Matrix(rows, cols);
  for (double& c : p.cost.values) c = 10 * unit(rng);
  return p;
}

// An independent minimum-cost flow: successive shortest paths (Bellman-Ford on the residual
// graph, real-valued capacities) from a source through the rows and columns to a sink. Stops when
// all of a has shipped, so with column capacities b it solves both the balanced and the
// capacity-unbalanced problem. Returns the optimal cost.
double successiveShortestPaths(const TransportProblem& p) {
  const std::size_t m = p.a.size(), n = p.b.size(), nodes = m + n + 2;
  const std::size_t source = m + n, sink = m + n + 1;
  struct Arc {
    std::size_t to;
    double capacity, cost;
    std::size_t reverse;
  };
  std::vector<std::vector<Arc>> graph(nodes);
  auto addArc = [&](std::size_t u, std::size_t v, double capacity, double cost) {
    graph[u].push_back({v, capacity, cost, graph[v].size()});
    graph[v].push_back({u, 0, -cost, graph[u].size() - 1});
  };
  const double infinite = 1e18;
  for (std::size_t i = 0; i < m; ++i) addArc(source, i, p.a[i], 0);
  for (std::size_t i = 0; i < m; ++i)
    for (std::size_t j = 0; j < n; ++j) addArc(i, m + j, infinite, p.cost(i, j));
  for (std::size_t j = 0; j < n; ++j) addArc(m + j, sink, p.b[j], 0);

  double shipped = 0, cost = 0;
  const double need = total(p.a), tiny = 1e-12;
  while (shipped < need - tiny) {
    std::vector<double> dist(nodes, std::numeric_limits<double>::infinity());
    std::vector<std::pair<std::size_t, std::size_t>> via(nodes, {nodes, 0});
    dist[source] = 0;
    for (std::size_t round = 0; round < nodes; ++round)
      for (std::size_t u = 0; u < nodes; ++u)
        if (std::isfinite(dist[u]))
          for (std::size_t k = 0; k < graph[u].size(); ++k) {
            const Arc& arc = graph[u][k];
            if (arc.capacity > tiny && dist[u] + arc.cost < dist[arc.to] - 1e-12) {
              dist[arc.to] = dist[u] + arc.cost;
              via[arc.to] = {u, k};
            }
          }
    if (!std::isfinite(dist[sink])) break;
    double push = need - shipped;
    for (std::size_t v = sink; v != source; v = via[v].first)
      push = std::min(push, graph[via[v].first][via[v].second].capacity);
    for (std::size_t v = sink; v != source; v = via[v].first) {
      Arc& arc = graph[via[v].first][via[v].second];
      arc.capacity -= push;
      graph[arc.to][arc.reverse].capacity += push;
    }
    shipped += push;
    cost += push * dist[sink];
  }
  EXPECT_NEAR(shipped, need, 1e-9) << "the reference flow could not ship everything";
  return cost;
}

void expectPlan(const Matrix& plan, const std::vector<std::vector<double>>& expected,
                double tolerance) {
  ASSERT_EQ(plan.rows, expected.size());
  for (std::size_t i = 0; i < plan.rows; ++i) {
    ASSERT_EQ(plan.cols, expected[i].size());
    for (std::size_t j = 0; j < plan.cols; ++j)
      EXPECT_NEAR(plan(i, j), expected[i][j], tolerance) << "at (" << i << ", " << j << ")";
  }
}

void expectNonNegative(const Matrix& plan) {
  for (double x : plan.values) EXPECT_GE(x, 0);
}

// The error names the field and says what is wrong.
template <class F>
void expectInputError(F&& f, const std::string& where, const std::string& fragment) {
  try {
    f();
    ADD_FAILURE() << "no InputError; expected one on " << where;
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), where) << e.what();
    EXPECT_NE(std::string(e.what()).find(fragment), std::string::npos) << e.what();
  }
}

// ---- exact ----

TEST(ExactTransport, SolvesAHandSolvedTwoByTwo) {
  // x = P00 leaves cost 2.6 - 3x, so x is as large as the marginals allow: 0.5.
  TransportResult r = solveExact(problem({0.6, 0.4}, {0.5, 0.5}, {{1, 2}, {3, 1}}));
  EXPECT_EQ(r.method, "exact");
  expectPlan(r.plan, {{0.5, 0.1}, {0, 0.4}}, 1e-9);
  EXPECT_NEAR(r.cost, 1.1, 1e-9);
  EXPECT_LT(r.marginal_error, 1e-8);
}

TEST(ExactTransport, MatchesTheOneDimensionalClosedForm) {
  // Costs |i - j| on a line: the optimum is sum_k |A_k - B_k| over the cumulative masses,
  // |0.2 - 0.3| + |0.7 - 0.6| = 0.2. Also masses whose double sum is not exactly
  // their total, which LEMON's double supplies report as infeasible.
  TransportResult r =
      solveExact(problem({0.2, 0.5, 0.3}, {0.3, 0.3, 0.4}, {{0, 1, 2}, {1, 0, 1}, {2, 1, 0}}));
  EXPECT_NEAR(r.cost, 0.2, 1e-9);
  EXPECT_LT(r.marginal_error, 1e-8);
  expectNonNegative(r.plan);
}

TEST(ExactTransport, AgreesWithAnIndependentMinCostFlowOnRandomProblems) {
  std::mt19937 rng(13);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t rows = 1 + rng() % 6, cols = 1 + rng() % 6;
    TransportProblem p = randomProblem(rng, rows, cols);
    TransportResult r = solveExact(p);
    const double reference = successiveShortestPaths(p);
    // Integer scaling: masses to 1e-9 of the total, costs to 1e-9 of the largest.
    EXPECT_NEAR(r.cost, reference, 1e-7 * (1 + reference)) << "trial " << trial;
    EXPECT_LT(r.marginal_error, 1e-8 * (rows + cols)) << "trial " << trial;
    expectNonNegative(r.plan);
  }
}

TEST(ExactTransport, ResolvesCostDifferencesFarBelowTheLargestCost) {
  // Costs are rounded to 1e-9 of the largest: a difference of 1e-6 must still decide the plan,
  // whichever way round it points.
  for (double d : {1e-6, -1e-6}) {
    TransportResult r =
        solveExact(problem({0.5, 0.5}, {0.5, 0.5}, {{100, 100 + d}, {100 + d, 100}}));
    const double diagonal = d > 0 ? 0.5 : 0;
    expectPlan(r.plan, {{diagonal, 0.5 - diagonal}, {0.5 - diagonal, diagonal}}, 1e-9);
  }
}

TEST(ExactTransport, KeepsMassesThatAreNotProbabilities) {
  // Requests per slot, not shares: the plan is in the problem's own units.
  TransportResult r = solveExact(problem({600, 400}, {500, 500}, {{1, 2}, {3, 1}}));
  expectPlan(r.plan, {{500, 100}, {0, 400}}, 1e-6);
  EXPECT_NEAR(r.cost, 1100, 1e-6);
}

TEST(ExactTransport, LeavesZeroMassRowsAndColumnsEmpty) {
  TransportResult r = solveExact(problem({0, 1}, {1, 0}, {{0, 0}, {5, 0}}));
  expectPlan(r.plan, {{0, 0}, {1, 0}}, 1e-12);
  EXPECT_NEAR(r.cost, 5, 1e-9);
  TransportResult none = solveExact(problem({0, 0}, {0}, {{1}, {2}}));
  expectPlan(none.plan, {{0}, {0}}, 0);
}

TEST(ExactTransport, AcceptsTotalsThatAgreeWithinTheTolerance) {
  TransportResult r = solveExact(problem({0.5, 0.5}, {0.5, 0.5 + 1e-9}, {{0, 1}, {1, 0}}));
  expectPlan(r.plan, {{0.5, 0}, {0, 0.5}}, 1e-8);
}

TEST(ExactTransport, RefusesUnbalancedMassesNamingBothTotals) {
  expectInputError(
      [] {
        solveExact(problem({1, 1}, {1, 2}, {{0, 1}, {1, 0}}));
      },
      "b", "differs from the total of a, 2");
}

// ---- TORTA's power term (docs/fleet_ot.md) ----

TEST(ExactTransport, ACostThatDependsOnTheColumnAloneCannotMoveTheBalancedPlan) {
  std::mt19937 rng(7);
  TransportProblem p = randomProblem(rng, 4, 5);
  const std::vector<double> power = {0, 30, 5, 0, 12};
  TransportProblem powered = p;
  double shift = 0;
  for (std::size_t j = 0; j < 5; ++j) {
    for (std::size_t i = 0; i < 4; ++i) powered.cost(i, j) += power[j];
    shift += power[j] * p.b[j];
  }
  TransportResult plain = solveExact(p), withPower = solveExact(powered);
  // Same optimum up to the constant sum_j power_j b_j (the plan itself may be one of several
  // optimal ones, so compare costs on both cost matrices).
  EXPECT_NEAR(withPower.cost, plain.cost + shift, 1e-6);
  EXPECT_NEAR(transportCost(withPower.plan, p.cost), plain.cost, 1e-6);
}

// ---- unbalanced ----

TEST(UnbalancedTransport, ShipsAllDemandAndLeavesSpareCapacity) {
  TransportResult r = solveUnbalanced(problem({0.3, 0.3}, {1, 1}, {{1, 2}, {2, 1}}));
  EXPECT_EQ(r.method, "unbalanced");
  expectPlan(r.plan, {{0.3, 0}, {0, 0.3}}, 1e-9);
  EXPECT_NEAR(r.cost, 0.6, 1e-9);
  ASSERT_EQ(r.unused_capacity.size(), 2u);
  EXPECT_NEAR(r.unused_capacity[0], 0.7, 1e-9);
  EXPECT_NEAR(r.unused_capacity[1], 0.7, 1e-9);
}

TEST(UnbalancedTransport, SpillsToTheNextCheapestColumnWhenACapacityBinds) {
  // Row 0 prefers column 0 (cost 1) but it holds only 0.5: the other 0.1 goes to column 1.
  TransportResult r = solveUnbalanced(problem({0.6, 0.2}, {0.5, 0.5}, {{1, 2}, {3, 1}}));
  expectPlan(r.plan, {{0.5, 0.1}, {0, 0.2}}, 1e-9);
  EXPECT_NEAR(r.cost, 0.9, 1e-9);
  EXPECT_NEAR(r.unused_capacity[1], 0.2, 1e-9);
}

TEST(UnbalancedTransport, AgreesWithAnIndependentMinCostFlowOnRandomProblems) {
  std::mt19937 rng(21);
  for (int trial = 0; trial < 60; ++trial) {
    const std::size_t rows = 1 + rng() % 6, cols = 1 + rng() % 6;
    TransportProblem p = randomProblem(rng, rows, cols, /*balanced=*/false);
    // Capacity 1.0 to 1.5 times the demand.
    const double factor = (1 + 0.5 * (rng() % 100) / 100.0) * total(p.a) / total(p.b);
    for (double& x : p.b) x *= factor;
    TransportResult r = solveUnbalanced(p);
    const double reference = successiveShortestPaths(p);
    EXPECT_NEAR(r.cost, reference, 1e-7 * (1 + reference)) << "trial " << trial;
    EXPECT_LT(r.marginal_error, 1e-8 * (rows + cols)) << "trial " << trial;
    const std::vector<double> used = columnSums(r.plan);
    for (std::size_t j = 0; j < cols; ++j) {
      EXPECT_LE(used[j], p.b[j] + 1e-8) << "trial " << trial << " column " << j;
      EXPECT_NEAR(r.unused_capacity[j], std::max(0.0, p.b[j] - used[j]), 1e-12);
    }
  }
}

TEST(UnbalancedTransport, EqualsTheExactPlanWhenCapacityMatchesDemand) {
  std::mt19937 rng(3);
  for (int trial = 0; trial < 10; ++trial) {
    TransportProblem p = randomProblem(rng, 5, 4);
    EXPECT_NEAR(solveUnbalanced(p).cost, solveExact(p).cost, 1e-7) << "trial " << trial;
  }
}

TEST(UnbalancedTransport, LetsAPowerTermMoveLoadToCheaperColumns) {
  // Equal latency everywhere, column 1 expensive to power: with capacities (not targets) the plan
  // avoids it entirely, where the balanced plan must send it its b_1.
  std::vector<std::vector<double>> cost = {{1 + 0, 1 + 10, 1 + 0}, {1 + 0, 1 + 10, 1 + 0}};
  TransportResult r = solveUnbalanced(problem({0.5, 0.5}, {0.6, 0.6, 0.6}, cost));
  EXPECT_NEAR(columnSums(r.plan)[1], 0, 1e-12);
  EXPECT_NEAR(r.cost, 1, 1e-9);
  TransportResult balanced = solveExact(problem({0.5, 0.5}, {0.4, 0.2, 0.4}, cost));
  EXPECT_NEAR(columnSums(balanced.plan)[1], 0.2, 1e-9);
}

TEST(UnbalancedTransport, RefusesTooLittleCapacityNamingTheShortfall) {
  expectInputError(
      [] {
        solveUnbalanced(problem({1, 2}, {1, 1.5}, {{0, 1}, {1, 0}}));
      },
      "b", "short by 0.5");
}

TEST(UnbalancedTransport, NeedsNoCapacityForNoDemand) {
  TransportResult r = solveUnbalanced(problem({0}, {0, 0}, {{1, 1}}));
  expectPlan(r.plan, {{0, 0}}, 0);
}

// ---- Sinkhorn ----

TEST(Sinkhorn, MatchesTheClosedFormTwoByTwo) {
  // a = b = (1/2, 1/2), C = [[0,1],[1,0]]: the Gibbs form P = diag(u) exp(-C/eps) diag(v) with
  // symmetric marginals gives P00 / P01 = exp(1/eps), so P00 = sigmoid(1/eps) / 2.
  for (double eps : {2.0, 1.0, 0.25}) {
    SinkhornOptions options;
    options.reg = eps;
    TransportResult r = solveSinkhorn(problem({0.5, 0.5}, {0.5, 0.5}, {{0, 1}, {1, 0}}), options);
    ASSERT_TRUE(r.converged);
    const double p = 0.5 / (1 + std::exp(-1 / eps));
    expectPlan(r.plan, {{p, 0.5 - p}, {0.5 - p, p}}, 1e-9);
    EXPECT_NEAR(r.cost, 1 - 2 * p, 1e-9);
    const double entropyTerm = 2 * p * std::log(p) + 2 * (0.5 - p) * std::log(0.5 - p);
    EXPECT_NEAR(r.objective, r.cost + eps * entropyTerm, 1e-9);
    EXPECT_EQ(r.reg, eps);
  }
}

TEST(Sinkhorn, HasTheGibbsFormThatMakesItPotsPlan) {
  // The entropic optimum is the one plan with these marginals of the form u_i exp(-C_ij/eps) v_j,
  // i.e. log P_ij + C_ij/eps = x_i + y_j. Check both: then it is POT's ot.sinkhorn plan.
  std::mt19937 rng(5);
  TransportProblem p = randomProblem(rng, 5, 6);
  for (double& x : p.a) x += 0.1;  // every entry positive, so every log is finite
  for (double& x : p.b) x += 0.1;
  const double factor = total(p.a) / total(p.b);
  for (double& x : p.b) x *= factor;
  SinkhornOptions options;
  options.reg = 0.7;
  TransportResult r = solveSinkhorn(p, options);
  ASSERT_TRUE(r.converged);
  EXPECT_LT(r.marginal_error, 1e-8);
  auto g = [&](std::size_t i, std::size_t j) {
    return std::log(r.plan(i, j)) + p.cost(i, j) / options.reg;
  };
  for (std::size_t i = 1; i < 5; ++i)
    for (std::size_t j = 1; j < 6; ++j)
      EXPECT_NEAR(g(i, j) - g(i, 0) - g(0, j) + g(0, 0), 0, 1e-9) << i << ", " << j;
}

TEST(Sinkhorn, ApproachesTheExactCostAsEpsShrinks) {
  std::mt19937 rng(11);
  TransportProblem p = randomProblem(rng, 8, 7);
  const double mass = total(p.a);
  for (double& x : p.a) x /= mass;  // probabilities, so the entropy bound below is log(mn)
  for (double& x : p.b) x /= mass;
  const double exact = solveExact(p).cost;
  double previousGap = std::numeric_limits<double>::infinity();
  for (double eps : {1.0, 0.3, 0.1, 0.03, 0.01}) {
    SinkhornOptions options;
    options.reg = eps;
    options.max_iterations = 200000;
    TransportResult r = solveSinkhorn(p, options);
    ASSERT_TRUE(r.converged) << "eps " << eps;
    const double gap = r.cost - exact;
    // <P_eps, C> - eps H(P_eps) <= <P*, C> - eps H(P*) and 0 <= H <= log(mn).
    EXPECT_GE(gap, -1e-7) << "eps " << eps;
    EXPECT_LE(gap, eps * std::log(8.0 * 7.0) + 1e-7) << "eps " << eps;
    EXPECT_LE(gap, previousGap + 1e-9) << "eps " << eps;
    previousGap = gap;
  }
  EXPECT_LT(previousGap, 0.02 * exact);
}

TEST(Sinkhorn, StaysFiniteWhereExpOfMinusCostOverEpsUnderflows) {
  // exp(-1/0.001) = exp(-1000) is 0 in double: the plain scaling form loses the kernel; the log
  // domain still finds the (here all but exact) plan.
  SinkhornOptions options;
  options.reg = 0.001;
  TransportResult r = solveSinkhorn(problem({0.5, 0.5}, {0.5, 0.5}, {{0, 1}, {1, 0}}), options);
  ASSERT_TRUE(r.converged);
  expectPlan(r.plan, {{0.5, 0}, {0, 0.5}}, 1e-12);
}

TEST(Sinkhorn, ReportsRunningOutOfIterationsInsteadOfHanging) {
  std::mt19937 rng(2);
  TransportProblem p = randomProblem(rng, 6, 6);
  SinkhornOptions options;
  options.reg = 0.01;
  options.max_iterations = 3;
  TransportResult r = solveSinkhorn(p, options);
  EXPECT_FALSE(r.converged);
  EXPECT_EQ(r.iterations, 3);
  EXPECT_GT(r.marginal_error, options.tolerance * total(p.a));
}

TEST(Sinkhorn, LeavesZeroMassRowsAndColumnsEmpty) {
  SinkhornOptions options;
  options.reg = 0.5;
  TransportResult r = solveSinkhorn(
      problem({0, 0.5, 0.5}, {0.5, 0, 0.5}, {{0, 0, 0}, {1, 1, 2}, {2, 0, 1}}), options);
  ASSERT_TRUE(r.converged);
  for (std::size_t j = 0; j < 3; ++j) EXPECT_EQ(r.plan(0, j), 0);
  for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(r.plan(i, 1), 0);
  EXPECT_LT(r.marginal_error, 1e-8);
}

TEST(Sinkhorn, RefusesAnEpsThatIsNotPositiveOrTooSmallForTheCosts) {
  TransportProblem p = problem({1}, {1}, {{1}});
  for (double eps : {0.0, -1.0, std::nan("")}) {
    SinkhornOptions options;
    options.reg = eps;
    expectInputError([&] { solveSinkhorn(p, options); }, "reg", "positive");
  }
  SinkhornOptions tiny;
  tiny.reg = 1e-310;
  expectInputError([&] { solveSinkhorn(problem({1}, {1}, {{1e10}}), tiny); }, "reg", "too small");
}

TEST(SolveTransport, PicksTheMethodByNameAndDefaultsEps) {
  TransportProblem p = problem({0.5, 0.5}, {0.5, 0.5}, {{0, 4}, {4, 0}});
  for (const std::string name : {"exact", "sinkhorn", "unbalanced"}) {
    SolveOptions options;
    options.method = *parseMethod(name);
    EXPECT_EQ(solveTransport(p, options).method, name);
  }
  EXPECT_FALSE(parseMethod("emd").has_value());
  SolveOptions sinkhorn;
  sinkhorn.method = Method::Sinkhorn;
  EXPECT_DOUBLE_EQ(solveTransport(p, sinkhorn).reg, defaultReg(p));
  EXPECT_DOUBLE_EQ(defaultReg(p), 0.04);  // 1% of the largest cost
}

// ---- integer masses ----

TEST(IntegerMasses, SumToExactlyTheUnitsAndStayWithinOneOfTheScaledMass) {
  std::mt19937 rng(17);
  std::uniform_real_distribution<double> unit(0, 1);
  for (int trial = 0; trial < 200; ++trial) {
    std::vector<double> masses(1 + rng() % 40);
    for (double& x : masses) x = unit(rng) < 0.2 ? 0 : unit(rng);
    masses[0] += 0.01;
    const double sum = total(masses);
    const int64_t units = 1000000000;
    const std::vector<int64_t> scaled = integerMasses(masses, units / sum, units);
    EXPECT_EQ(std::accumulate(scaled.begin(), scaled.end(), int64_t{0}), units);
    for (std::size_t i = 0; i < masses.size(); ++i) {
      EXPECT_LT(std::abs(static_cast<double>(scaled[i]) - masses[i] * units / sum), 1.0 + 1e-6);
      if (masses[i] == 0) {
        EXPECT_EQ(scaled[i], 0);
      }
    }
  }
  // Masses whose double sum misses the total: 0.2 + 0.5 + 0.3 as doubles is not exactly 1.
  EXPECT_EQ(integerMasses({0.2, 0.5, 0.3}, 1e9, 1000000000),
            (std::vector<int64_t>{200000000, 500000000, 300000000}));
  // More units asked for than the masses hold: spread over the positive entries only.
  EXPECT_EQ(integerMasses({1, 0, 1}, 1, 5), (std::vector<int64_t>{3, 0, 2}));
  EXPECT_EQ(integerMasses({3, 0, 3}, 1, 1), (std::vector<int64_t>{1, 0, 0}));
}

// ---- the problem and its reader ----

TEST(TransportProblemReader, ReadsTheJsonForm) {
  TransportProblem p = parseTransportProblem(
      "{\"a\": [0.25, 0.75], \"b\": [1], \"cost\": [[2], [3.5]], \"name\": \"ignored\"}\r\n");
  EXPECT_EQ(p.a, (std::vector<double>{0.25, 0.75}));
  EXPECT_EQ(p.b, (std::vector<double>{1}));
  ASSERT_EQ(p.cost.rows, 2u);
  ASSERT_EQ(p.cost.cols, 1u);
  EXPECT_EQ(p.cost(1, 0), 3.5);
}

TEST(TransportProblemReader, NamesTheFileTheFieldAndTheProblem) {
  struct Case {
    std::string text, where, fragment;
  };
  const std::vector<Case> cases = {
      {"[1, 2]", "", "expected a JSON object"},
      {"{\"b\": [1], \"cost\": [[1]]}", "a", "missing required field"},
      {"{\"a\": 1, \"b\": [1], \"cost\": [[1]]}", "a", "expected an array"},
      {"{\"a\": [], \"b\": [1], \"cost\": []}", "a", "must not be empty"},
      {"{\"a\": [1, -0.5], \"b\": [0.5], \"cost\": [[1], [1]]}", "a[1]", "must not be negative"},
      {"{\"a\": [1], \"b\": [\"x\"], \"cost\": [[1]]}", "b[0]", "expected a number"},
      {"{\"a\": [1, 1], \"b\": [2], \"cost\": [[1]]}", "cost", "expected 2 rows"},
      {"{\"a\": [1, 1], \"b\": [1, 1], \"cost\": [[1, 2], [3]]}", "cost[1]",
       "expected 2 entries (one per entry of b), found 1"},
      {"{\"a\": [1], \"b\": [1], \"cost\": [3]}", "cost[0]", "expected an array"},
      {"{\"a\": [1], \"b\": [1], \"cost\": [[-2]]}", "cost[0][0]", "must not be negative"},
      {"{\"a\": [1], \"b\": [1], \"cost\": [[1e999]]}", "", "not finite"},
      {"{\"a\": [1], \"b\": [1], \"cost\": [[NaN]]}", "line 1, column 32", "malformed JSON"},
      {"{\"a\": [1], \"b\": [1],\n \"cost\": [[1]", "line 2, column 14", "malformed JSON"},
  };
  for (const Case& c : cases) {
    SCOPED_TRACE(c.text);
    try {
      parseTransportProblem(c.text, "p.json");
      ADD_FAILURE() << "accepted";
    } catch (const InputError& e) {
      EXPECT_EQ(e.file(), "p.json");
      EXPECT_EQ(e.where(), c.where) << e.what();
      EXPECT_NE(e.problem().find(c.fragment), std::string::npos) << e.what();
    }
  }
}

TEST(TransportProblem, ValidationCatchesWhatCodeCanBuildButJsonCannot) {
  // NaN and infinity cannot be written in JSON but can reach the solvers from code.
  expectInputError(
      [] {
        solveExact(problem({std::nan(""), 1}, {1, 1}, {{1, 1}, {1, 1}}));
      },
      "a[0]", "not finite");
  expectInputError([] { solveExact(problem({1}, {1}, {{std::nan("")}})); }, "cost[0][0]",
                   "not finite");
  expectInputError([] { solveUnbalanced(problem({1}, {1}, {{INFINITY}})); }, "cost[0][0]",
                   "not finite");
  // Sizes that do not match: a cost matrix with the wrong shape, or a ragged value vector.
  expectInputError([] { solveExact(problem({1, 1}, {2}, {{1, 1}})); }, "cost", "expected 2 x 1");
  TransportProblem ragged = problem({1}, {1}, {{1}});
  ragged.cost.values.push_back(2);
  expectInputError([&] { solveSinkhorn(ragged, {1.0, 10, 1e-9}); }, "cost", "holds 2 values");
  expectInputError([] { solveExact(problem({1}, {}, {{}})); }, "b", "must not be empty");
}

// Entries that are each finite can sum to infinity. The unbalanced method scales by the total,
// so an infinite one gave NaN masses and its rounding loop never ended.
TEST(TransportProblem, RefusesMassesWhoseTotalOverflows) {
  const TransportProblem huge = problem({1e308, 1e308}, {1e308, 1e308}, {{1, 2}, {2, 1}});
  expectInputError([&] { solveUnbalanced(huge); }, "a", "total overflows");
  expectInputError([&] { solveExact(huge); }, "a", "total overflows");
  expectInputError([&] { solveSinkhorn(huge, {1.0, 10, 1e-9}); }, "a", "total overflows");
  expectInputError(
      [] {
        solveUnbalanced(problem({1, 1}, {1e308, 1e308}, {{1, 2}, {2, 1}}));
      },
      "b", "total overflows");
}

// Every prefix of a valid problem, and random bytes, either parse or fail with InputError: no
// other exception, no crash (the same contract the fuzz target checks, for builds without clang).
TEST(TransportProblemReader, SurvivesTruncatedAndGarbageInput) {
  const std::string valid =
      "{\"a\": [0.2, 0.5, 0.3], \"b\": [0.3, 0.3, 0.4],\n"
      " \"cost\": [[0, 1, 2], [1, 0, 1], [2, 1, 0]]}";
  int parsed = 0;
  auto attempt = [&](const std::string& text) {
    try {
      TransportProblem p = parseTransportProblem(text, "f.json");
      validate(p);
      solveExact(p);  // a parsed problem must be solvable or refused with InputError too
      ++parsed;
    } catch (const InputError&) {
    }
  };
  for (std::size_t n = 0; n <= valid.size(); ++n) attempt(valid.substr(0, n));
  EXPECT_EQ(parsed, 1);  // only the whole text is a problem
  std::mt19937 rng(99);
  const std::string alphabet = "{}[],:\"abcost0123456789.-eE \n\x01\xff";
  for (int trial = 0; trial < 2000; ++trial) {
    std::string text = valid;
    for (int edit = 0; edit < 1 + static_cast<int>(rng() % 4); ++edit)
      text[rng() % text.size()] = alphabet[rng() % alphabet.size()];
    attempt(text);
    std::string garbage(rng() % 64, ' ');
    for (char& c : garbage) c = static_cast<char>(rng() % 256);
    attempt(garbage);
  }
}

}  // namespace
