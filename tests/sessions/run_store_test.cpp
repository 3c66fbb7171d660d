// Round trips of every table: what goes into the store comes back as it went in.
#include "sessions/run_store.h"

#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "sessions/content_hash.h"
#include "sessions/from_core.h"
#include "sessions/queries.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::diamond;
using testing::StoreTest;

class Store : public StoreTest {};

RunSpec spec(const std::string& kind, const std::string& method) {
  RunSpec s;
  s.kind = kind;
  s.method = method;
  return s;
}

TEST_F(Store, GraphsAndDeviceSetsAreStoredOnceByContent) {
  RunStore s(path("s.sqlite"));
  const DataflowGraph g = diamond();
  const int64_t a = s.putGraph(g), b = s.putGraph(g);
  EXPECT_EQ(a, b);
  EXPECT_NE(s.putGraph(diamond("other name")), a);
  const GraphInfo info = s.graphInfo(a);
  EXPECT_EQ(info.name, "diamond");
  EXPECT_EQ(info.nodes, 4);
  EXPECT_EQ(info.edges, 4);
  EXPECT_EQ(info.hash, sha256Hex(writeGraphJson(g, -1)));
  EXPECT_EQ(writeGraphJson(s.loadGraph(a)), writeGraphJson(g));

  const DeviceSet d = DeviceSet::uniform(3, Device{"gpu", 20, 40}, 50, 2, "3xfast");
  const int64_t da = s.putDeviceSet(d);
  EXPECT_EQ(s.putDeviceSet(d), da);
  EXPECT_EQ(s.deviceSetInfo(da).nodes, 3);
  EXPECT_EQ(writeDeviceSetJson(s.loadDeviceSet(da)), writeDeviceSetJson(d));
  EXPECT_THROW(s.loadGraph(999), InputError);
}

TEST_F(Store, RunsKeepTheirSpecStatusFiguresTagsAndNotes) {
  RunStore s(path("s.sqlite"));
  RunSpec sp = spec("train", "doppler-stage2");
  sp.params = {{"lr", 0.001}, {"episodes", 10000}, {"nested", {{"a", true}}}};
  sp.seed = 0xFFFFFFFFFFFFFFF0ull;  // above INT64_MAX: stored bit for bit
  sp.graph_id = s.putGraph(diamond());
  sp.device_set_id = s.putDeviceSet(DeviceSet::uniform(2));
  const int64_t parent = s.beginRun(spec("train", "imitation"));
  sp.parent_id = parent;
  const int64_t id = s.beginRun(sp);
  s.setFigures(id, {{"makespan_us", 123.5}, {"reward", -1.25}, {"diverged", std::nan("")}});
  s.setFigure(id, "reward", -1.0);  // replaces
  s.addTag(id, "stage2");
  s.addTag(id, "stage2");  // once
  s.addTag(id, "best");
  EXPECT_TRUE(s.removeTag(id, "best"));
  EXPECT_FALSE(s.removeTag(id, "best"));
  s.addNote(id, "shown at Monday's meeting");
  s.addNote(std::nullopt, "session about the llama layer");

  RunInfo r = getRun(s, id);
  EXPECT_EQ(r.kind, "train");
  EXPECT_EQ(r.method, "doppler-stage2");
  EXPECT_EQ(r.params, sp.params);
  EXPECT_EQ(r.seed, sp.seed);
  EXPECT_EQ(r.status, RunStatus::Running);
  EXPECT_EQ(r.parent_id, parent);
  EXPECT_EQ(r.graph_name, "diamond");
  EXPECT_EQ(r.node_count, 4);
  EXPECT_EQ(r.device_count, 2);
  EXPECT_FALSE(r.started_at.empty());
  EXPECT_TRUE(r.finished_at.empty());
  EXPECT_EQ(r.figures.at("makespan_us"), 123.5);
  EXPECT_EQ(r.figures.at("reward"), -1.0);
  EXPECT_TRUE(std::isnan(r.figures.at("diverged")));
  EXPECT_EQ(r.tags, std::vector<std::string>{"stage2"});
  ASSERT_EQ(listNotes(s, id).size(), 1u);
  EXPECT_EQ(listNotes(s, id)[0].text, "shown at Monday's meeting");
  ASSERT_EQ(listNotes(s, std::nullopt).size(), 1u);
  EXPECT_EQ(listNotes(s, std::nullopt)[0].text, "session about the llama layer");

  s.finishRun(id, RunStatus::Failed, "loss diverged");
  r = getRun(s, id);
  EXPECT_EQ(r.status, RunStatus::Failed);
  EXPECT_EQ(r.error, "loss diverged");
  EXPECT_FALSE(r.finished_at.empty());
  s.finishRun(parent, RunStatus::Cancelled);
  EXPECT_EQ(getRun(s, parent).status, RunStatus::Cancelled);
  EXPECT_THROW(s.finishRun(id, RunStatus::Running), std::invalid_argument);
  EXPECT_THROW(s.beginRun(spec("dance", "x")), InputError);
  EXPECT_THROW(s.addTag(999, "x"), InputError);
}

TEST_F(Store, PlacementsWithDecisionProbabilities) {
  RunStore s(path("s.sqlite"));
  const int64_t id = s.beginRun(spec("eval", "policy"));
  PlacementRecord p = placementRecord(diamond(), {0, 1, 0, 1}, {0, 2, 1, 3});
  ASSERT_EQ(p.decisions.size(), 4u);
  p.decisions[1].sel_prob = 0.75;
  p.decisions[1].plc_prob = 0.5;
  p.decisions[1].sel_candidates = {{2, 0.75}, {1, 0.25}};
  p.decisions[1].plc_probs = {0.5, 0.5};
  s.savePlacement(id, p);
  s.savePlacement(id, p);  // replaces, does not duplicate

  const PlacementRecord back = loadPlacement(s, id);
  ASSERT_EQ(back.nodes.size(), 4u);
  EXPECT_EQ(back.nodes[2].node_id, "c");
  EXPECT_EQ(back.nodes[2].device, 0);
  EXPECT_EQ(back.nodes[3].device, 1);
  ASSERT_EQ(back.decisions.size(), 4u);
  EXPECT_EQ(back.decisions[1].node, 2);
  EXPECT_EQ(back.decisions[1].device, 0);
  EXPECT_EQ(back.decisions[1].sel_prob, 0.75);
  EXPECT_EQ(back.decisions[1].plc_prob, 0.5);
  EXPECT_EQ(back.decisions[1].sel_candidates, p.decisions[1].sel_candidates);
  EXPECT_EQ(back.decisions[1].plc_probs, p.decisions[1].plc_probs);
  EXPECT_FALSE(back.decisions[0].sel_prob);
  EXPECT_TRUE(back.decisions[0].plc_probs.empty());
}

TEST_F(Store, TimelinesPerNodeAndPerTransfer) {
  RunStore s(path("s.sqlite"));
  const DataflowGraph g = diamond();
  const int64_t id = s.beginRun(spec("simulate", "assignment"));
  Schedule sched;
  sched.nodes = {{0, 0, 0, 10}, {1, 0, 10, 20}, {2, 1, 15, 25}, {3, 0, 30, 40}};
  sched.transfers = {{1, 0, 1, 10, 15}, {3, 1, 0, 25, 30}};
  sched.makespan_us = 40;
  s.saveTimeline(id, timelineRecord(g, sched, "simulated"));
  sched.makespan_us = 41;
  s.saveTimeline(id, timelineRecord(g, sched, "planned"));
  s.saveTimeline(id, timelineRecord(g, sched, "planned"));  // replaces the same label

  const auto tl = loadTimelines(s, id);
  ASSERT_EQ(tl.size(), 2u);
  EXPECT_EQ(tl[0].label, "simulated");
  EXPECT_EQ(tl[0].makespan_us, 40);
  ASSERT_EQ(tl[0].nodes.size(), 4u);
  EXPECT_EQ(tl[0].nodes[2].node_id, "c");  // ordered by start: a(0) b(10) c(15) d(30)
  EXPECT_EQ(tl[0].nodes[2].device, 1);
  EXPECT_EQ(tl[0].nodes[2].start_us, 15);
  ASSERT_EQ(tl[0].transfers.size(), 2u);
  EXPECT_EQ(tl[0].transfers[0].src_id, "a");
  EXPECT_EQ(tl[0].transfers[0].dst_id, "c");
  EXPECT_EQ(tl[0].transfers[1].src_id, "c");
  EXPECT_EQ(tl[0].transfers[1].dst_id, "d");
  EXPECT_EQ(tl[0].transfers[1].finish_us, 30);
  EXPECT_EQ(tl[1].label, "planned");
  EXPECT_EQ(tl[1].makespan_us, 41);
}

TEST_F(Store, CheckpointsAsFilePlusHashOrAsBlob) {
  RunStore s(path("s.sqlite"));
  const int64_t id = s.beginRun(spec("train", "policy"));
  spit(path("ckpt.pt"), std::string("weights\0\x01\x02", 10));
  const int64_t file = s.addCheckpointFile(id, path("ckpt.pt"), 500, "epoch 5");
  const std::string blob(100000, '\x7f');
  const int64_t inside = s.addCheckpointBlob(id, blob, 1000);
  const auto cps = listCheckpoints(s, id);
  ASSERT_EQ(cps.size(), 2u);
  EXPECT_EQ(cps[0].id, file);
  EXPECT_EQ(cps[0].path, path("ckpt.pt"));
  EXPECT_EQ(cps[0].bytes, 10);
  EXPECT_EQ(cps[0].sha256, sha256Hex(std::string("weights\0\x01\x02", 10)));
  EXPECT_EQ(cps[0].step, 500);
  EXPECT_EQ(cps[0].label, "epoch 5");
  EXPECT_FALSE(cps[0].has_blob);
  EXPECT_TRUE(cps[1].has_blob);
  EXPECT_EQ(cps[1].bytes, 100000);
  EXPECT_EQ(s.checkpointBlob(inside), blob);
  EXPECT_THROW(s.checkpointBlob(file), InputError);
  EXPECT_THROW(s.addCheckpointFile(id, path("missing.pt")), InputError);
  // A known vector: sha256("abc").
  EXPECT_EQ(sha256Hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST_F(Store, SettingsRoundTrip) {
  RunStore s(path("s.sqlite"));
  EXPECT_FALSE(s.setting("layout"));
  s.setSetting("layout", "{\"docks\":[1,2]}");
  s.setSetting("layout", "{\"docks\":[3]}");
  EXPECT_EQ(s.setting("layout"), "{\"docks\":[3]}");
}

TEST_F(Store, DeletingARunRemovesEverythingUnderItAndUnusedInputs) {
  RunStore s(path("s.sqlite"));
  const DataflowGraph g = diamond();
  RunSpec sp = spec("place", "heft");
  sp.graph_id = s.putGraph(g);
  sp.device_set_id = s.putDeviceSet(DeviceSet::uniform(2));
  const int64_t keep = s.beginRun(sp);
  const int64_t gone = s.beginRun(sp);
  RunSpec other = spec("place", "etf");
  other.graph_id = s.putGraph(diamond("only used by the deleted run"));
  const int64_t gone2 = s.beginRun(other);
  for (int64_t id : {keep, gone, gone2}) {
    s.setFigure(id, "makespan_us", 1);
    s.savePlacement(id, placementRecord(g, {0, 0, 1, 1}, {0, 1, 2, 3}));
    Schedule sched;
    sched.nodes = {{0, 0, 0, 1}};
    s.saveTimeline(id, timelineRecord(g, sched, "simulated"));
    s.addTag(id, "t");
    s.addNote(id, "n");
    s.addCheckpointBlob(id, "x");
    auto l = s.lock();
    s.db().exec("INSERT INTO series (run_id, name) VALUES (" + std::to_string(id) +
                ", 'loss');"
                "INSERT INTO metrics SELECT id, 0, 1.0 FROM series WHERE run_id = " +
                std::to_string(id));
  }
  s.deleteRun(gone);
  s.deleteRun(gone2);
  EXPECT_FALSE(s.hasRun(gone));
  EXPECT_THROW(s.deleteRun(gone), InputError);
  auto l = s.lock();
  for (const char* q :
       {"SELECT count(*) FROM run_figures", "SELECT count(*) FROM placements WHERE node = 0",
        "SELECT count(*) FROM timelines", "SELECT count(*) FROM node_spans",
        "SELECT count(*) FROM tags", "SELECT count(*) FROM notes",
        "SELECT count(*) FROM checkpoints", "SELECT count(*) FROM series",
        "SELECT count(*) FROM metrics", "SELECT count(*) FROM graphs",
        "SELECT count(*) FROM device_sets", "SELECT count(*) FROM decisions WHERE step = 0"})
    EXPECT_EQ(s.db().queryInt(q), 1) << q;
  EXPECT_EQ(s.db().queryInt("PRAGMA foreign_key_check"), 0);
  // Ids are never reused: "run 3" keeps meaning the deleted run.
  l.unlock();
  EXPECT_GT(s.beginRun(sp), gone2);
}

}  // namespace
}  // namespace doppler::sessions
