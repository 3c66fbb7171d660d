#include "core/sim/chrome_trace.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/sim/simulator.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

TEST(ChromeTrace, ProcessesLanesSlicesAndFlows) {
  auto g = testing::fixedGraph({{"a", 10}, {"b", 20}, {"c", 30}},
                               {{"a", "b", 5}, {"b", "c", 5}, {"a", "c", 1}});
  auto d = DeviceSet::uniform(3);
  CostTable c(g, d);
  SimResult r = Simulator(c).run({0, 1, 1});
  auto j = nlohmann::json::parse(chromeTraceJson(g, d, r.schedule));
  int processes = 0, threads = 0, compute = 0, transfers = 0, flowStart = 0, flowEnd = 0;
  for (auto& e : j["traceEvents"]) {
    std::string ph = e["ph"];
    if (ph == "M" && e["name"] == "process_name") ++processes;
    if (ph == "M" && e["name"] == "thread_name") ++threads;
    if (ph == "X" && e["tid"] == 0) {
      ++compute;
      if (e["args"]["node"] == "b") {
        EXPECT_EQ(e["pid"], 1);
        EXPECT_DOUBLE_EQ(e["ts"].get<double>(), 15);
        EXPECT_DOUBLE_EQ(e["dur"].get<double>(), 20);
      }
    }
    if (ph == "X" && e["cat"] == "transfer") ++transfers;
    if (ph == "s") ++flowStart;
    if (ph == "f") ++flowEnd;
  }
  EXPECT_EQ(processes, 3);
  EXPECT_EQ(threads, 9);
  EXPECT_EQ(compute, 3);
  EXPECT_EQ(transfers, 4);  // two cross-device edges, each on a send and a receive lane
  EXPECT_EQ(flowStart, 2);
  EXPECT_EQ(flowEnd, 2);
  EXPECT_DOUBLE_EQ(j["otherData"]["makespan_us"].get<double>(), r.schedule.makespan_us);
}

}  // namespace
}  // namespace doppler
