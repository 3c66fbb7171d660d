// The CUDA backend (core/exec/cuda_backend.h) in process. On every machine: whether this build has
// it (against what CMake decided) and, without a GPU, that the reason is reported. With a GPU:
// every placement and discipline reproduces one device's sink digests, repeats are bitwise equal,
// the seed matters, logical devices sharing a GPU work, and CUDA events time every kernel. Without
// one those tests skip, naming the reason (the CUDA error).
#include "core/exec/cuda_backend.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/common/input_error.h"
#include "core/exec/cuda_plan.h"
#include "core/graph/generators.h"

namespace doppler {
namespace {

TEST(CudaBackend, TheBuildSaysWhetherItHasTheCudaBackend) {
  EXPECT_EQ(exec::cudaBackendBuiltIn(), static_cast<bool>(DOPPLER_EXPECT_CUDA));
}

TEST(CudaBackend, WithoutAGpuTheReasonIsReportedAndNoBackendIsMade) {
  std::string why;
  const int gpus = exec::cudaDeviceCount(&why);
  ASSERT_GE(gpus, 0);
  if (gpus > 0) GTEST_SKIP() << "a CUDA device is present: the no-GPU path does not apply";
  EXPECT_FALSE(why.empty());
  if (!exec::cudaBackendBuiltIn()) {
    EXPECT_NE(why.find("no CUDA backend"), std::string::npos) << why;
  }
  const DataflowGraph g = generateGraph("chainmm");
  try {
    exec::makeCudaBackend(g, {});
    FAIL() << "a backend was made without a GPU";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--kernels");
    EXPECT_NE(std::string(e.what()).find(why), std::string::npos) << e.what();
  }
}

// Tests that need a GPU: skipped, naming the reason, without one.
class CudaGpu : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string why;
    gpus_ = exec::cudaDeviceCount(&why);
    if (gpus_ == 0) GTEST_SKIP() << "no CUDA device: " << why;
  }

  // llama-block at a size that runs in milliseconds.
  static DataflowGraph graph() { return generateGraph("llama-block"); }
  static exec::CudaKernelSpec spec(uint64_t seed = 1) {
    exec::CudaKernelSpec s;
    s.size_factor = 0.02;
    s.seed = seed;
    return s;
  }

  int gpus_ = 0;
};

// Every dependency respected and one node at a time per logical device.
void expectValidTimeline(const DataflowGraph& g, const Assignment& a, const Schedule& s) {
  ASSERT_EQ(static_cast<int>(s.nodes.size()), g.nodeCount());
  std::vector<double> arrival(g.edgeCount(), -1);
  for (const TransferSpan& t : s.transfers) arrival[t.edge] = t.finish_us;
  for (int e = 0; e < g.edgeCount(); ++e) {
    const Edge& edge = g.edge(e);
    const double ready = a[edge.src] == a[edge.dst] ? s.nodes[edge.src].finish_us : arrival[e];
    ASSERT_GE(ready, 0) << "cross-device edge " << e << " has no transfer";
    EXPECT_GE(s.nodes[edge.dst].start_us, ready) << g.node(edge.dst).id;
  }
  for (int v = 0; v < g.nodeCount(); ++v)
    for (int w = v + 1; w < g.nodeCount(); ++w)
      if (a[v] == a[w]) {
        EXPECT_TRUE(s.nodes[v].finish_us <= s.nodes[w].start_us ||
                    s.nodes[w].finish_us <= s.nodes[v].start_us)
            << g.node(v).id << " and " << g.node(w).id << " overlap on device " << a[v];
      }
}

TEST_F(CudaGpu, EveryPlacementAndDisciplineReproducesOneDevice) {
  const DataflowGraph g = graph();
  auto backend = exec::makeCudaBackend(g, spec());
  const auto reference = exec::execute(g, Assignment(g.nodeCount(), 0), 1, *backend);
  ASSERT_FALSE(reference.output_digest.empty());
  for (double d : reference.output_digest) EXPECT_TRUE(std::isfinite(d));
  // Two devices per GPU and one more: some share a GPU (device-to-device copies), and with
  // several GPUs others copy between GPUs (peer or staged).
  const int devices = 2 * gpus_ + 1;
  std::mt19937_64 rng(5);
  for (Discipline discipline : {Discipline::Fifo, Discipline::Priority, Discipline::Sequence}) {
    Assignment a(g.nodeCount());
    for (int& d : a) d = static_cast<int>(rng() % devices);
    exec::ExecOptions opts;
    opts.discipline = discipline;
    opts.order = g.topologicalOrder();
    opts.repeat = 2;
    const auto r = exec::execute(g, a, devices, *backend, opts);
    SCOPED_TRACE(toString(discipline));
    expectValidTimeline(g, a, r.schedule);
    EXPECT_FALSE(r.schedule.transfers.empty());
    EXPECT_LE(exec::digestDifference(r.output_digest, reference.output_digest), 1e-6);
  }
}

// Bitwise, also with two logical devices' streams running at once: each stream has its own cuBLAS
// handle, which cuBLAS documents as reproducible under concurrent streams.
TEST_F(CudaGpu, RepeatsAreBitwiseEqualAndTheSeedMatters) {
  const DataflowGraph g = graph();
  Assignment a(g.nodeCount());
  for (int v = 0; v < g.nodeCount(); ++v) a[v] = v % 2;
  auto backend = exec::makeCudaBackend(g, spec(1));
  const auto one = exec::execute(g, Assignment(g.nodeCount(), 0), 1, *backend);
  EXPECT_EQ(one.output_digest,
            exec::execute(g, Assignment(g.nodeCount(), 0), 1, *backend).output_digest);
  const auto first = exec::execute(g, a, 2, *backend);
  const auto second = exec::execute(g, a, 2, *backend);
  EXPECT_EQ(first.output_digest, second.output_digest);
  EXPECT_EQ(first.output_digest, one.output_digest);
  auto other = exec::makeCudaBackend(g, spec(2));
  const auto reseeded = exec::execute(g, a, 2, *other);
  EXPECT_GT(exec::digestDifference(first.output_digest, reseeded.output_digest), 1e-6);
}

TEST_F(CudaGpu, EveryKernelIsTimedByCudaEvents) {
  const DataflowGraph g = graph();
  auto backend = exec::makeCudaBackend(g, spec());
  EXPECT_EQ(backend->name(), "cuda");
  EXPECT_EQ(backend->gpuCount(), gpus_);
  ASSERT_EQ(static_cast<int>(backend->gpuNames().size()), gpus_);
  EXPECT_FALSE(backend->gpuNames()[0].empty());
  const std::string path = backend->copyPath();
  EXPECT_TRUE(path == "peer" || path == "staged" || path == "mixed" || path == "none") << path;
  EXPECT_EQ(path == "none", gpus_ == 1);
  exec::execute(g, Assignment(g.nodeCount(), 0), 1, *backend);
  const std::vector<double> times = backend->kernelTimesUs();
  ASSERT_EQ(static_cast<int>(times.size()), g.nodeCount());
  for (int v = 0; v < g.nodeCount(); ++v) EXPECT_GT(times[v], 0) << g.node(v).id;
}

TEST_F(CudaGpu, AKernelThatCannotFitIsAnErrorNamingTheNode) {
  DataflowGraph g;
  Node huge;
  huge.id = "huge";
  huge.op = "relu";
  huge.output_bytes = 4e15;  // 4 PB
  g.addNode(huge);
  exec::CudaKernelSpec s;
  s.size_factor = 1;
  auto backend = exec::makeCudaBackend(g, s);
  try {
    exec::execute(g, Assignment{0}, 1, *backend);
    FAIL() << "4 PB were allocated";
  } catch (const exec::ExecError& e) {
    EXPECT_NE(std::string(e.what()).find("'huge'"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("--size-factor"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace doppler
