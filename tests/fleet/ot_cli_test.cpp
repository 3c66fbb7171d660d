// `doppler fleet ot` as scripts use it: a real process, a problem file, JSON out, exit codes.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace {

using nlohmann::json;
using Result = doppler::testing::CliResult;

class FleetOtCli : public doppler::testing::CliFixture {
 protected:
  // The 1-D problem with costs |i - j|: its optimum is 0.2 (ot_test.cpp).
  std::string lineProblem() const {
    return write("line.json",
                 "{\"a\": [0.2, 0.5, 0.3], \"b\": [0.3, 0.3, 0.4],\r\n"
                 " \"cost\": [[0, 1, 2], [1, 0, 1], [2, 1, 0]]}");
  }
};

TEST_F(FleetOtCli, PrintsTheExactPlanAndItsCostAsJson) {
  Result r = run("fleet ot --problem " + lineProblem() + " --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["method"], "exact");
  EXPECT_NEAR(j["cost"].get<double>(), 0.2, 1e-9);
  ASSERT_EQ(j["plan"].size(), 3u);
  const std::vector<double> a = {0.2, 0.5, 0.3}, b = {0.3, 0.3, 0.4};
  std::vector<double> cols(3, 0.0);
  double cost = 0;
  for (std::size_t i = 0; i < 3; ++i) {
    ASSERT_EQ(j["plan"][i].size(), 3u);
    double row = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const double p = j["plan"][i][k].get<double>();
      row += p;
      cols[k] += p;
      cost += p * std::abs(static_cast<double>(i) - static_cast<double>(k));
    }
    EXPECT_NEAR(row, a[i], 1e-9);
  }
  for (std::size_t k = 0; k < 3; ++k) EXPECT_NEAR(cols[k], b[k], 1e-9);
  EXPECT_NEAR(cost, j["cost"].get<double>(), 1e-12);  // "cost" is <P, C> of the printed plan
  EXPECT_TRUE(j["solve_ms"].is_number());
  EXPECT_LT(j["marginal_error"].get<double>(), 1e-8);
}

TEST_F(FleetOtCli, SinkhornReportsItsEpsIterationsAndObjective) {
  Result r = run("fleet ot --problem " + lineProblem() + " --method sinkhorn --reg 0.05 --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["method"], "sinkhorn");
  EXPECT_EQ(j["reg"].get<double>(), 0.05);
  EXPECT_GT(j["iterations"].get<int>(), 0);
  EXPECT_GT(j["cost"].get<double>(), 0.2 - 1e-9);  // never below the exact optimum
  EXPECT_LT(j["cost"].get<double>(), 0.2 + 0.05 * std::log(9.0));
  EXPECT_LT(j["objective"].get<double>(), j["cost"].get<double>());  // entropy term is negative
}

TEST_F(FleetOtCli, UnbalancedTreatsBAsCapacities) {
  const std::string p = write("cap.json",
                              "{\"a\": [0.6, 0.2], \"b\": [0.5, 0.5], "
                              "\"cost\": [[1, 2], [3, 1]]}");
  Result r = run("fleet ot --problem " + p + " --method unbalanced --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_NEAR(j["cost"].get<double>(), 0.9, 1e-9);
  EXPECT_NEAR(j["unused_capacity"][1].get<double>(), 0.2, 1e-9);
}

TEST_F(FleetOtCli, TextFormShowsThePlanAsATableAndOutWritesAFile) {
  Result r = run("fleet ot --problem " + lineProblem());
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_NE(r.out.find("method          exact"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("b2"), std::string::npos) << r.out;  // the table's header
  Result f = run("fleet ot --problem " + lineProblem() + " --json --out " + path("plan.json"));
  ASSERT_EQ(f.status, 0) << f.err;
  EXPECT_TRUE(f.out.empty());
  EXPECT_NEAR(json::parse(slurp(path("plan.json")))["cost"].get<double>(), 0.2, 1e-9);
}

TEST_F(FleetOtCli, BadInputNamesTheFileAndTheField) {
  const std::string ragged =
      write("ragged.json", "{\"a\": [1, 1], \"b\": [1, 1], \"cost\": [[1, 2], [3]]}");
  expectBadInput("fleet ot --problem " + ragged + " --json",
                 {"doppler: " + ragged + ": cost[1]: expected 2 entries"});
  const std::string negative =
      write("negative.json", "{\"a\": [1, -1], \"b\": [0], \"cost\": [[1], [1]]}");
  expectBadInput("fleet ot --problem " + negative, {negative + ": a[1]: must not be negative"});
  const std::string unbalanced =
      write("unbalanced.json", "{\"a\": [1], \"b\": [2], \"cost\": [[1]]}");
  expectBadInput("fleet ot --problem " + unbalanced, {unbalanced + ": b: total 2 differs"});
  const std::string shortfall = write("short.json", "{\"a\": [2], \"b\": [1.5], \"cost\": [[1]]}");
  expectBadInput("fleet ot --problem " + shortfall + " --method unbalanced --json",
                 {shortfall + ": b: total capacity 1.5", "short by 0.5"});
  expectBadInput("fleet ot --problem " + path("missing.json"), {"missing.json", "no such file"});
  expectBadInput("fleet ot --problem " + lineProblem() + " --reg 0.1", {"--reg", "sinkhorn only"});
  expectBadInput("fleet ot --problem " + lineProblem() + " --method emd", {"--method"});
  expectBadInput("fleet ot --problem " + lineProblem() + " --method sinkhorn --reg -1",
                 {"--reg", "positive"});
}

TEST_F(FleetOtCli, MassesWhoseTotalOverflowsExitTwoForEveryMethod) {
  const std::string file = write(
      "huge.json", "{\"a\": [1e308, 1e308], \"b\": [1e308, 1e308], \"cost\": [[1, 2], [2, 1]]}");
  for (const char* method : {"exact", "sinkhorn", "unbalanced"})
    expectBadInput("fleet ot --problem " + file + " --method " + method,
                   {file, "a: total overflows"});
}

TEST_F(FleetOtCli, SinkhornThatRunsOutOfIterationsFailsWithAClearLine) {
  Result r = expectBadInput(
      "fleet ot --problem " + lineProblem() + " --method sinkhorn --reg 0.001 --max-iter 5",
      {"did not converge in 5 iterations", "--reg"});
  EXPECT_TRUE(r.out.empty());
}

}  // namespace
