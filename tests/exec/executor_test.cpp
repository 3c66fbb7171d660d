// Real execution (core/exec): real threads, real copies, real arithmetic. What is asserted is
// what must hold whatever the machine's speed: dependencies respected, one node at a time per
// device, the discipline's order, equal outputs across placements, and errors that end the run.
#include "core/exec/executor.h"

#include <gtest/gtest.h>

#include <atomic>
#include <nlohmann/json.hpp>
#include <random>
#include <thread>

#include "core/common/input_error.h"
#include "core/common/numbered.h"
#include "core/exec/synthetic_backend.h"
#include "core/exec/torch_kernels.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/graphs.h"

namespace doppler {
namespace {

using exec::CpuSyntheticBackend;
using exec::ExecOptions;

// A layered random DAG with scoped ids, each node 20..200 us of work and edges of 4..64 KB.
DataflowGraph randomDag(uint64_t seed, int layers, int width) {
  std::mt19937_64 rng(seed);
  DataflowGraph g;
  std::vector<std::vector<int>> level(layers);
  for (int l = 0; l < layers; ++l)
    for (int i = 0; i < width; ++i) {
      level[l].push_back(g.addNode(Node{numbered("n", l) + numbered("_", i), "op", 0, 0, {}, 0}));
    }
  for (int l = 1; l < layers; ++l)
    for (int v : level[l]) {
      const int k = 1 + static_cast<int>(rng() % 2);
      for (int j = 0; j < k; ++j) {
        const int u = level[l - 1][rng() % width];
        bool dup = false;
        for (int e : g.inEdges(v)) dup = dup || g.edge(e).src == u;
        if (!dup) g.addEdge(Edge{u, v, 4096.0 * (1 + rng() % 16), std::nullopt});
      }
    }
  return g;
}

exec::SyntheticWork workFor(const DataflowGraph& g, uint64_t seed) {
  std::mt19937_64 rng(seed);
  exec::SyntheticWork w;
  for (int v = 0; v < g.nodeCount(); ++v) w.compute_us.push_back(20 + rng() % 180);
  for (const Edge& e : g.edges()) w.bytes.push_back(e.bytes);
  return w;
}

std::vector<int> topoOrder(const DataflowGraph& g) {
  return g.topologicalOrder();
}

// Every dependency respected and devices run one node at a time.
void expectValidTimeline(const DataflowGraph& g, const Assignment& a, const Schedule& s) {
  ASSERT_EQ(static_cast<int>(s.nodes.size()), g.nodeCount());
  std::vector<double> arrival(g.edgeCount(), -1);
  for (const TransferSpan& t : s.transfers) {
    const Edge& e = g.edge(t.edge);
    EXPECT_EQ(t.src_device, a[e.src]);
    EXPECT_EQ(t.dst_device, a[e.dst]);
    EXPECT_GE(t.start_us, s.nodes[e.src].finish_us) << "copy before its producer finished";
    arrival[t.edge] = t.finish_us;
  }
  for (int e = 0; e < g.edgeCount(); ++e) {
    const Edge& edge = g.edge(e);
    const double ready = a[edge.src] == a[edge.dst] ? s.nodes[edge.src].finish_us : arrival[e];
    ASSERT_GE(ready, 0) << "cross-device edge " << e << " has no transfer";
    EXPECT_GE(s.nodes[edge.dst].start_us, ready)
        << g.node(edge.dst).id << " started before its input from " << g.node(edge.src).id;
  }
  for (int v = 0; v < g.nodeCount(); ++v)
    for (int w = v + 1; w < g.nodeCount(); ++w)
      if (a[v] == a[w]) {
        EXPECT_TRUE(s.nodes[v].finish_us <= s.nodes[w].start_us ||
                    s.nodes[w].finish_us <= s.nodes[v].start_us)
            << g.node(v).id << " and " << g.node(w).id << " overlap on device " << a[v];
      }
}

TEST(Executor, EveryDisciplineRespectsDependenciesAndMatchesOneDevice) {
  for (uint64_t seed : {1, 2, 3}) {
    const DataflowGraph g = randomDag(seed, 6, 5);
    CpuSyntheticBackend one(g, workFor(g, seed));
    const auto reference = exec::execute(g, Assignment(g.nodeCount(), 0), 1, one);
    std::mt19937_64 rng(seed);
    Assignment a(g.nodeCount());
    for (int& d : a) d = static_cast<int>(rng() % 3);
    for (Discipline d : {Discipline::Fifo, Discipline::Priority, Discipline::Sequence}) {
      ExecOptions opts;
      opts.discipline = d;
      opts.order = topoOrder(g);
      std::reverse(opts.order.begin(), opts.order.end());  // not topological: fine for priority
      if (d == Discipline::Sequence) opts.order = topoOrder(g);
      opts.repeat = 2;
      CpuSyntheticBackend backend(g, workFor(g, seed));
      const auto r = exec::execute(g, a, 3, backend, opts);
      SCOPED_TRACE(std::string(toString(d)) + " seed " + std::to_string(seed));
      expectValidTimeline(g, a, r.schedule);
      EXPECT_EQ(r.makespans_us.size(), 2u);
      EXPECT_GT(r.measured_makespan_us, 0);
      EXPECT_EQ(exec::digestDifference(r.output_digest, reference.output_digest), 0);
    }
  }
}

TEST(Executor, SequenceRunsEachDevicesNodesInTheGivenOrder) {
  const DataflowGraph g = randomDag(7, 5, 4);
  Assignment a(g.nodeCount());
  for (int v = 0; v < g.nodeCount(); ++v) a[v] = v % 2;
  ExecOptions opts;
  opts.discipline = Discipline::Sequence;
  // A topological order other than the index order: by level, widest index first.
  opts.order = topoOrder(g);
  std::stable_sort(opts.order.begin(), opts.order.end(), [&](int x, int y) {
    return g.node(x).id.substr(0, 2) < g.node(y).id.substr(0, 2) ||
           (g.node(x).id.substr(0, 2) == g.node(y).id.substr(0, 2) && x > y);
  });
  CpuSyntheticBackend backend(g, workFor(g, 7));
  const auto r = exec::execute(g, a, 2, backend, opts);
  for (const auto& seq : deviceSequences(a, opts.order, 2))
    for (size_t i = 1; i < seq.size(); ++i)
      EXPECT_LE(r.schedule.nodes[seq[i - 1]].finish_us, r.schedule.nodes[seq[i]].start_us)
          << g.node(seq[i - 1]).id << " should run before " << g.node(seq[i]).id;
}

TEST(Executor, PriorityPicksByOrderWhereFifoPicksByReadiness) {
  // Three sources on one device, all ready at once: fifo runs them by index, priority by order.
  const DataflowGraph g = testing::fixedGraph({{"a", 50}, {"b", 50}, {"c", 50}}, {});
  const Assignment a = {0, 0, 0};
  auto startOrder = [&](Discipline d) {
    ExecOptions opts;
    opts.discipline = d;
    opts.order = {2, 0, 1};
    CpuSyntheticBackend backend(g, workFor(g, 1));
    const auto r = exec::execute(g, a, 1, backend, opts);
    std::vector<int> order = {0, 1, 2};
    std::sort(order.begin(), order.end(), [&](int x, int y) {
      return r.schedule.nodes[x].start_us < r.schedule.nodes[y].start_us;
    });
    return order;
  };
  EXPECT_EQ(startOrder(Discipline::Fifo), (std::vector<int>{0, 1, 2}));
  EXPECT_EQ(startOrder(Discipline::Priority), (std::vector<int>{2, 0, 1}));
}

// A backend at the edge of the test: fails, or stalls, on one node.
class FaultyBackend : public exec::Backend {
 public:
  FaultyBackend(int bad, bool stall) : bad_(bad), stall_(stall) {}
  std::string name() const override { return "faulty"; }
  void prepare(const Assignment&, int) override {}
  void run(int v, int) override {
    if (v != bad_) return;
    if (!stall_) throw std::runtime_error("out of device memory");
    std::this_thread::sleep_for(std::chrono::milliseconds(300));
  }
  void receive(int, int, int) override {}
  std::vector<double> outputDigest() const override { return {}; }

 private:
  int bad_;
  bool stall_;
};

TEST(Executor, AFailingKernelEndsTheRunNamingIt) {
  const DataflowGraph g = testing::diamond();
  FaultyBackend backend(*g.find("b"), false);
  try {
    exec::execute(g, {0, 1, 0, 1}, 2, backend);
    FAIL() << "expected an ExecError";
  } catch (const exec::ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("kernel of node 'b' on device 1 failed: out of device "
                                         "memory"),
              std::string::npos)
        << e.what();
  }
}

TEST(Executor, ATimeoutEndsTheRunInsteadOfHanging) {
  const DataflowGraph g = testing::diamond();
  FaultyBackend backend(*g.find("a"), true);  // a stalls 300 ms; the run may take 50
  ExecOptions opts;
  opts.timeout = std::chrono::milliseconds(50);
  try {
    exec::execute(g, {0, 0, 1, 1}, 2, backend, opts);
    FAIL() << "expected an ExecError";
  } catch (const exec::ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("timed out"), std::string::npos) << e.what();
  }
}

TEST(Executor, ACancelledRunStops) {
  const DataflowGraph g = testing::diamond();
  CpuSyntheticBackend backend(g, workFor(g, 1));
  CancelToken cancel;
  cancel.cancel();
  EXPECT_THROW(exec::execute(g, {0, 0, 1, 1}, 2, backend, {}, cancel), exec::ExecError);
}

TEST(Executor, BadInputIsRefusedBeforeAnyThreadStarts) {
  const DataflowGraph g = testing::diamond();
  CpuSyntheticBackend backend(g, workFor(g, 1));
  EXPECT_THROW(exec::execute(g, {0, 0, 2, 1}, 2, backend), InputError);  // device 2 of 2
  EXPECT_THROW(exec::execute(g, {0, 0, 1}, 2, backend), InputError);     // too short
  ExecOptions opts;
  opts.discipline = Discipline::Sequence;
  opts.order = {3, 1, 2, 0};  // d before its inputs: a device would wait forever
  try {
    exec::execute(g, {0, 0, 0, 0}, 1, backend, opts);
    FAIL() << "expected an InputError";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("would wait forever for 'd'"), std::string::npos)
        << e.what();
  }
  opts.order = {0, 1};  // not a permutation
  EXPECT_THROW(exec::execute(g, {0, 0, 0, 0}, 1, backend, opts), InputError);
}

TEST(Executor, PacedCopiesTakeAtLeastTheirLinkTime) {
  const DataflowGraph g = testing::diamond();
  exec::SyntheticWork w = workFor(g, 1);
  w.pace_us = [](int, int, int) { return 2000.0; };
  CpuSyntheticBackend backend(g, w);
  const auto r = exec::execute(g, {0, 1, 0, 1}, 2, backend);
  ASSERT_FALSE(r.schedule.transfers.empty());
  for (const TransferSpan& t : r.schedule.transfers) EXPECT_GE(t.finish_us - t.start_us, 2000);
}

TEST(TorchKernels, ShapesFollowTheOpFlopsAndOutputBytes) {
  Node mm{"mm", "matmul", 2.0 * 1000 * 1000 * 500, 4.0 * 1000 * 1000, {}, 0};
  const exec::KernelShape s = exec::kernelShape(mm, 1);
  EXPECT_EQ(s.kind, exec::KernelKind::Matmul);
  EXPECT_EQ(s.rows * s.cols, 1000 * 1000);
  EXPECT_EQ(s.k, 500);
  EXPECT_DOUBLE_EQ(s.flops, mm.flops);
  // The size factor scales the output and keeps the inner dimension.
  const exec::KernelShape small = exec::kernelShape(mm, 0.01);
  EXPECT_NEAR(static_cast<double>(small.rows * small.cols), 10000, 200);
  EXPECT_EQ(small.k, 500);
  EXPECT_EQ(exec::kernelKind(Node{"s", "softmax", 10, 400, {}, 0}), exec::KernelKind::Softmax);
  EXPECT_EQ(exec::kernelKind(Node{"n", "LayerNormalization", 10, 400, {}, 0}),
            exec::KernelKind::Norm);
  EXPECT_EQ(exec::kernelKind(Node{"a", "add", 10, 400, {}, 0}), exec::KernelKind::Binary);
  EXPECT_EQ(exec::kernelKind(Node{"r", "relu", 10, 400, {}, 0}), exec::KernelKind::Elementwise);
  // Unknown ops with FLOPs, and FLOPs without output bytes, are matmuls of those FLOPs.
  const exec::KernelShape cube = exec::kernelShape(Node{"x", "foo", 2e6, 0, {}, 0}, 1);
  EXPECT_EQ(cube.kind, exec::KernelKind::Matmul);
  EXPECT_NEAR(cube.flops, 2e6, 2e5);
}

TEST(TorchKernels, TheKernelGraphCarriesScaledBytesAndMemoryTraffic) {
  DataflowGraph g;
  g.addNode(Node{"a", "matmul", 2e9, 4e6, {}, 0});
  g.addNode(Node{"b", "relu", 1e6, 4e6, {}, 0});
  g.addEdge(Edge{0, 1, 4e6, std::nullopt});
  const DataflowGraph k = exec::kernelGraph(g, 0.5);
  ASSERT_EQ(k.nodeCount(), 2);
  EXPECT_NEAR(k.node(0).output_bytes, 2e6, 1e4);
  EXPECT_NEAR(k.edge(0).bytes, 2e6, 1e4);
  // relu reads its operand and its input and writes its output.
  EXPECT_NEAR(k.node(1).memory_bytes, 3 * 2e6, 3e4);
  EXPECT_TRUE(exec::hasTorchOps(g));
}

class ExecCli : public testing::CliFixture {};

TEST_F(ExecCli, ExecutesAPlacementAndChecksItsOutputs) {
  ASSERT_EQ(run("graph generate llama-block -o " + path("g.json")).status, 0);
  ASSERT_EQ(run("place -g " + path("g.json") + " -d 2 --method heft --json --no-record -o " +
                path("p.json"))
                .status,
            0);
  const auto r =
      run("exec -g " + path("g.json") + " -d 2 -a " + path("p.json") +
          " --kernels synthetic --discipline sequence --repeat 2 --target-ms 20 --json --db " +
          path("runs.sqlite"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["outputs_match"], true);
  EXPECT_EQ(j["repeats_us"].size(), 2u);
  EXPECT_EQ(j["discipline"], "sequence");
  EXPECT_EQ(j["backend"], "cpu-synthetic");
  EXPECT_GT(j["measured_makespan_us"].get<double>(), 0);
  EXPECT_DOUBLE_EQ(j["scaled_simulated_makespan_us"].get<double>(), 20000);
  EXPECT_NE(j["note"].get<std::string>().find("stand in for GPUs"), std::string::npos);
  // The run store has the measured timeline beside the simulated one.
  const auto runs = run("runs show " + j["run_id"].dump() + " --json --db " + path("runs.sqlite"));
  ASSERT_EQ(runs.status, 0) << runs.err;
  EXPECT_NE(runs.out.find("measured"), std::string::npos);
}

TEST_F(ExecCli, BadInputIsOneLine) {
  ASSERT_EQ(run("graph generate chainmm -o " + path("g.json")).status, 0);
  write("a.json", "[0, 5]");
  expectBadInput("exec -g " + path("g.json") + " -d 2 -a " + path("a.json") + " --no-record",
                 {"a.json"});
  write("b.json", "{\"a\": 0}");
  expectBadInput("exec -g " + path("g.json") + " -d 2 -a " + path("b.json") +
                     " --discipline sequence --no-record",
                 {"b.json"});
}

}  // namespace
}  // namespace doppler
