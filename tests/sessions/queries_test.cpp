// The comparison queries: filtering runs, aligned series, placement differences, summary tables.
#include "sessions/queries.h"

#include <gtest/gtest.h>

#include <cmath>

#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::diamond;
using testing::StoreTest;

class Queries : public StoreTest {};

int64_t run(RunStore& s, const std::string& kind, const std::string& method) {
  RunSpec sp;
  sp.kind = kind;
  sp.method = method;
  return s.beginRun(sp);
}

TEST_F(Queries, ListAndFilterRuns) {
  RunStore s(path("s.sqlite"));
  const int64_t a = run(s, "place", "heft");
  const int64_t b = run(s, "place", "etf");
  const int64_t c = run(s, "train", "stage2");
  const int64_t d = run(s, "train", "stage3");
  s.finishRun(a, RunStatus::Finished);
  s.finishRun(c, RunStatus::Failed, "nan");
  s.addTag(b, "baseline");
  s.addTag(d, "baseline");

  auto ids = [](const std::vector<RunInfo>& runs) {
    std::vector<int64_t> out;
    for (const RunInfo& r : runs) out.push_back(r.id);
    return out;
  };
  EXPECT_EQ(ids(listRuns(s)), (std::vector<int64_t>{a, b, c, d}));
  RunFilter f;
  f.kind = "train";
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{c, d}));
  f = {};
  f.method = "etf";
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{b}));
  f = {};
  f.tag = "baseline";
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{b, d}));
  f = {};
  f.status = "running";
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{b, d}));
  f = {};
  f.limit = 2;
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{c, d}));  // the newest two, oldest first
  f = {};
  f.ids = {d, a};
  EXPECT_EQ(ids(listRuns(s, f)), (std::vector<int64_t>{a, d}));
  EXPECT_EQ(getRun(s, c).error, "nan");
}

TEST_F(Queries, AlignedSeriesOverSeveralRuns) {
  RunStore s(path("s.sqlite"));
  const int64_t a = run(s, "train", "x"), b = run(s, "train", "y"), c = run(s, "train", "z");
  {
    MetricWriter w(s, a);
    for (int step : {0, 2, 4}) w.append("loss", step, step * 1.0);
    w.append("reward", 0, 5);
  }
  {
    MetricWriter w(s, b);
    for (int step : {1, 2, 3}) w.append("loss", step, -step * 1.0);
    w.append("loss", 3, std::nan(""));  // a diverged point: NaN round-trips
  }
  const int64_t runs[] = {a, b, c};
  const AlignedSeries al = alignSeries(s, runs, "loss");
  EXPECT_EQ(al.steps, (std::vector<int64_t>{0, 1, 2, 3, 4}));
  ASSERT_EQ(al.values.size(), 3u);
  EXPECT_EQ(al.values[0][0], 0);
  EXPECT_TRUE(std::isnan(al.values[0][1]));
  EXPECT_EQ(al.values[0][2], 2);
  EXPECT_EQ(al.values[0][4], 4);
  EXPECT_TRUE(std::isnan(al.values[1][0]));
  EXPECT_EQ(al.values[1][2], -2);
  EXPECT_TRUE(std::isnan(al.values[1][3]));
  for (double v : al.values[2]) EXPECT_TRUE(std::isnan(v));  // run c has no loss at all

  const auto series = listSeries(s, a);
  ASSERT_EQ(series.size(), 2u);
  EXPECT_EQ(series[0].name, "loss");
  EXPECT_EQ(series[0].points, 3);
  EXPECT_EQ(series[0].first_step, 0);
  EXPECT_EQ(series[0].last_step, 4);
  EXPECT_EQ(series[0].last_value, 4);
}

TEST_F(Queries, PlacementDifferenceNamesTheMovedNodes) {
  RunStore s(path("s.sqlite"));
  const DataflowGraph g = diamond();
  RunSpec sp;
  sp.kind = "place";
  sp.graph_id = s.putGraph(g);
  const int64_t a = s.beginRun(sp), b = s.beginRun(sp);
  s.savePlacement(a, placementRecord(g, {0, 0, 1, 1}));
  s.savePlacement(b, placementRecord(g, {0, 1, 1, 0}));
  PlacementDiff d = placementDiff(s, a, b);
  EXPECT_TRUE(d.same_graph);
  EXPECT_EQ(d.compared, 4);
  ASSERT_EQ(d.moved.size(), 2u);
  EXPECT_EQ(d.moved[0].node_id, "b");
  EXPECT_EQ(d.moved[0].from, 0);
  EXPECT_EQ(d.moved[0].to, 1);
  EXPECT_EQ(d.moved[1].node_id, "d");
  EXPECT_EQ(d.moved[1].from, 1);
  EXPECT_EQ(d.moved[1].to, 0);

  // A different graph: nodes are matched by id, the rest listed.
  DataflowGraph h;
  h.name = "other";
  for (const char* id : {"a", "b", "z"}) {
    Node n;
    n.id = id;
    h.addNode(n);
  }
  RunSpec sh;
  sh.kind = "place";
  sh.graph_id = s.putGraph(h);
  const int64_t c = s.beginRun(sh);
  s.savePlacement(c, placementRecord(h, {0, 0, 0}));
  d = placementDiff(s, a, c);
  EXPECT_FALSE(d.same_graph);
  EXPECT_EQ(d.compared, 2);
  EXPECT_TRUE(d.moved.empty());
  EXPECT_EQ(d.only_in_a, (std::vector<std::string>{"c", "d"}));
  EXPECT_EQ(d.only_in_b, (std::vector<std::string>{"z"}));
}

// On the same device set, identical devices renamed are not moves; on different sets nothing is
// matched.
TEST_F(Queries, PlacementDifferenceMatchesIdenticalDevices) {
  RunStore s(path("s.sqlite"));
  const DataflowGraph g = diamond();
  RunSpec sp;
  sp.kind = "place";
  sp.graph_id = s.putGraph(g);
  sp.device_set_id = s.putDeviceSet(DeviceSet::uniform(2));
  const int64_t a = s.beginRun(sp), b = s.beginRun(sp), c = s.beginRun(sp);
  s.savePlacement(a, placementRecord(g, {0, 0, 1, 1}));
  s.savePlacement(b, placementRecord(g, {1, 1, 0, 0}));  // gpu0 and gpu1 swapped
  s.savePlacement(c, placementRecord(g, {1, 1, 0, 1}));  // swapped, and d moved
  PlacementDiff d = placementDiff(s, a, b);
  EXPECT_TRUE(d.devices_matched);
  EXPECT_EQ(d.device_map, (std::vector<int>{1, 0}));
  EXPECT_EQ(d.moved_before_matching, 4);
  EXPECT_TRUE(d.moved.empty());
  d = placementDiff(s, a, c);
  EXPECT_EQ(d.moved_before_matching, 3);
  ASSERT_EQ(d.moved.size(), 1u);
  EXPECT_EQ(d.moved[0].node_id, "d");
  EXPECT_EQ(d.moved[0].from, 1);
  EXPECT_EQ(d.moved[0].to, 1);  // as run c recorded it: its gpu1 is run a's gpu0

  // A faster second GPU is not interchangeable with the first: no matching.
  DeviceSet mixed = DeviceSet::uniform(2);
  mixed.devices[1].tflops *= 2;
  RunSpec sm = sp;
  sm.device_set_id = s.putDeviceSet(mixed);
  const int64_t e = s.beginRun(sm), f = s.beginRun(sm);
  s.savePlacement(e, placementRecord(g, {0, 0, 1, 1}));
  s.savePlacement(f, placementRecord(g, {1, 1, 0, 0}));
  d = placementDiff(s, e, f);
  EXPECT_FALSE(d.devices_matched);
  EXPECT_EQ(d.moved.size(), 4u);
  // Runs on different device sets: the indices are compared as they are.
  d = placementDiff(s, a, f);
  EXPECT_FALSE(d.devices_matched);
  EXPECT_TRUE(d.device_map.empty());
  EXPECT_EQ(d.moved.size(), 4u);
}

TEST_F(Queries, SummaryTableSideBySide) {
  RunStore s(path("s.sqlite"));
  const int64_t a = run(s, "place", "heft"), b = run(s, "place", "etf");
  s.setFigures(a, {{"makespan_us", 100}, {"lower_bound_us", 80}});
  s.setFigures(b, {{"makespan_us", 90}, {"evaluations", 5000}});
  {
    MetricWriter w(s, b);
    w.append("best_makespan_us", 0, 120);
    w.append("best_makespan_us", 10, 90);
  }
  const int64_t runs[] = {a, b};
  const SummaryTable t = summaryTable(s, runs);
  EXPECT_EQ(t.rows, (std::vector<std::string>{"evaluations", "lower_bound_us", "makespan_us",
                                              "best_makespan_us (last)"}));
  EXPECT_FALSE(t.values[0][0]);
  EXPECT_EQ(t.values[0][1], 5000);
  EXPECT_EQ(t.values[1][0], 80);
  EXPECT_FALSE(t.values[1][1]);
  EXPECT_EQ(t.values[2][0], 100);
  EXPECT_EQ(t.values[2][1], 90);
  EXPECT_FALSE(t.values[3][0]);
  EXPECT_EQ(t.values[3][1], 90);
}

}  // namespace
}  // namespace doppler::sessions
