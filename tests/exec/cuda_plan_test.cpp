// The CUDA backend's plan in plain C++ (core/exec/cuda_plan.h), tested on any machine: which
// kernel each node runs and its shape, the cuBLAS arguments of its matmuls (checked against a
// column-major reference multiply), what each edge carries, the memory each GPU needs, and how
// logical devices map onto GPUs.
#include "core/exec/cuda_plan.h"

#include <gtest/gtest.h>

#include <cmath>
#include <random>

#include "core/common/input_error.h"
#include "core/graph/generators.h"

namespace doppler {
namespace {

using exec::CudaOp;

Node node(const std::string& op, double flops, double output_bytes) {
  static int count = 0;
  Node n;
  n.id = op + std::to_string(++count);
  n.op = op;
  n.flops = flops;
  n.output_bytes = output_bytes;
  return n;
}

TEST(CudaPlan, EachOpRunsTheTorchKernelsChoiceRefinedToTheOp) {
  const std::vector<std::pair<std::string, CudaOp>> cases = {
      {"matmul", CudaOp::Matmul},
      {"gemm", CudaOp::Matmul},
      {"attention", CudaOp::Attention},
      {"softmax", CudaOp::Softmax},
      {"layer_norm", CudaOp::LayerNorm},
      {"rmsnorm", CudaOp::RmsNorm},
      {"add", CudaOp::Add},
      {"bias_add", CudaOp::Add},
      {"residual", CudaOp::Add},
      {"mul", CudaOp::Mul},
      {"rope", CudaOp::Mul},
      {"silu_mul", CudaOp::SiluMul},
      {"relu", CudaOp::Relu},
      {"gelu", CudaOp::Gelu},
      {"silu", CudaOp::Silu},
      {"sigmoid", CudaOp::Sigmoid},
      {"tanh", CudaOp::Tanh},
      {"input", CudaOp::Copy},
      {"concat", CudaOp::Copy},
      {"mystery", CudaOp::Matmul},
  };
  for (const auto& [op, expected] : cases)
    EXPECT_EQ(exec::cudaOp(node(op, 1e6, 4096)), expected) << op;
  // Without FLOPs an unknown op is a copy of its output.
  EXPECT_EQ(exec::cudaOp(node("mystery", 0, 4096)), CudaOp::Copy);
}

TEST(CudaPlan, AMatmulIsOneSgemmOfTheTorchShape) {
  DataflowGraph g;
  g.addNode(node("matmul", 2.0 * 64 * 64 * 96, 4.0 * 64 * 64));
  const exec::CudaPlan plan = exec::planCudaKernels(g, 1);
  const exec::CudaNodePlan& p = plan.nodes[0];
  const exec::KernelShape shape = exec::kernelShape(g.node(0), 1);
  EXPECT_EQ(p.op, CudaOp::Matmul);
  ASSERT_EQ(p.gemms.size(), 1u);
  EXPECT_EQ(p.gemms[0].m, shape.rows);
  EXPECT_EQ(p.gemms[0].n, shape.cols);
  EXPECT_EQ(p.gemms[0].k, shape.k);
  EXPECT_EQ(shape.rows, 64);
  EXPECT_EQ(shape.cols, 64);
  EXPECT_EQ(shape.k, 96);
  EXPECT_EQ(p.output_elements, 64 * 64);
  EXPECT_EQ(p.operand_elements, (std::vector<long>{64 * 96, 96 * 64}));
  EXPECT_FLOAT_EQ(p.operand_bounds[1], 1 / std::sqrt(96.0f));
  EXPECT_EQ(p.scratch_elements, 0);
}

// cublasSgemm(N, N, m, n, k, alpha, A, lda, B, ldb, 0, C, ldc) in column-major storage.
void columnMajorSgemm(const exec::SgemmArgs& s, float alpha, const std::vector<float>& a,
                      const std::vector<float>& b, std::vector<float>& c) {
  for (int col = 0; col < s.n; ++col)
    for (int row = 0; row < s.m; ++row) {
      double sum = 0;
      for (int i = 0; i < s.k; ++i) sum += a[row + i * s.lda] * b[i + col * s.ldb];
      c[row + col * s.ldc] = static_cast<float>(alpha * sum);
    }
}

TEST(CudaPlan, SgemmArgumentsComputeTheRowMajorProduct) {
  std::mt19937 rng(3);
  std::uniform_real_distribution<float> u(-1, 1);
  for (const exec::GemmCall call : {exec::GemmCall{3, 5, 4, 1.0f}, exec::GemmCall{7, 2, 6, 0.5f},
                                    exec::GemmCall{1, 9, 1, 1.0f}}) {
    std::vector<float> a(call.m * call.k), b(call.k * call.n), c(call.m * call.n);
    for (float& x : a) x = u(rng);
    for (float& x : b) x = u(rng);
    // The backend passes our B as cuBLAS's first matrix and our A as its second.
    columnMajorSgemm(exec::sgemmArgs(call), call.alpha, b, a, c);
    for (int i = 0; i < call.m; ++i)
      for (int j = 0; j < call.n; ++j) {
        double expected = 0;
        for (int l = 0; l < call.k; ++l) expected += a[i * call.k + l] * b[l * call.n + j];
        EXPECT_NEAR(c[i * call.n + j], call.alpha * expected, 1e-5)
            << call.m << "x" << call.k << " by " << call.k << "x" << call.n << " at " << i << ","
            << j;
      }
  }
}

TEST(CudaPlan, AttentionIsTwoSgemmsAroundARowSoftmax) {
  DataflowGraph g;
  g.addNode(node("attention", 1e9, 4.0 * 256 * 64));
  const exec::CudaPlan plan = exec::planCudaKernels(g, 1);
  const exec::CudaNodePlan& p = plan.nodes[0];
  ASSERT_EQ(p.op, CudaOp::Attention);
  const long rows = p.shape.rows, d = p.shape.k;
  EXPECT_EQ(d, 64);
  EXPECT_EQ(rows, 256);
  ASSERT_EQ(p.gemms.size(), 2u);
  // Scores [rows x rows] = q [rows x d] kᵀ [d x rows] / √d, then [rows x rows] · v [rows x d].
  EXPECT_EQ(p.gemms[0].m, rows);
  EXPECT_EQ(p.gemms[0].n, rows);
  EXPECT_EQ(p.gemms[0].k, d);
  EXPECT_FLOAT_EQ(p.gemms[0].alpha, 1 / 8.0f);
  EXPECT_EQ(p.gemms[1].m, rows);
  EXPECT_EQ(p.gemms[1].n, d);
  EXPECT_EQ(p.gemms[1].k, rows);
  EXPECT_EQ(p.operand_elements, (std::vector<long>{rows * d, d * rows, rows * d}));
  EXPECT_EQ(p.scratch_elements, rows * d + rows * rows);
  EXPECT_EQ(p.output_elements, rows * d);
}

TEST(CudaPlan, BinaryOpsHaveTwoOperandsAndTheRestOne) {
  DataflowGraph g;
  g.addNode(node("silu_mul", 1e5, 4096));
  g.addNode(node("softmax", 1e5, 4096));
  const exec::CudaPlan plan = exec::planCudaKernels(g, 1);
  EXPECT_EQ(plan.nodes[0].operand_elements, (std::vector<long>{1024, 1024}));
  EXPECT_EQ(plan.nodes[1].operand_elements, (std::vector<long>{1024}));
  EXPECT_EQ(plan.nodes[1].shape.rows * plan.nodes[1].shape.cols, 1024);
}

TEST(CudaPlan, EdgesCarryTheirBytesTimesTheFactorAtMostTheProducersOutput) {
  DataflowGraph g;
  const int a = g.addNode(node("relu", 1e5, 4.0 * 20000));  // 10,000 elements (100 x 100) at 0.5
  const int b = g.addNode(node("relu", 1e5, 4.0 * 20000));
  g.addEdge(Edge{a, b, 4.0 * 2000, std::nullopt});   // part of the output
  g.addEdge(Edge{a, b, 4.0 * 50000, std::nullopt});  // more than it: all of it
  g.addEdge(Edge{a, b, 0, std::nullopt});            // no bytes: all of it
  g.addEdge(Edge{a, b, 0.001, std::nullopt});        // at least one element
  const exec::CudaPlan half = exec::planCudaKernels(g, 0.5);
  EXPECT_EQ(half.nodes[a].output_elements, 10000);
  EXPECT_EQ(half.carried, (std::vector<long>{1000, 10000, 10000, 1}));
}

TEST(CudaPlan, DimensionsCuBlasCannotTakeAreRefusedNamingTheSizeFactor) {
  DataflowGraph g;
  g.addNode(node("big", 1e11, 4));  // one output element: K = 5e10, over 2^31
  try {
    exec::planCudaKernels(g, 1);
    FAIL() << "a matrix side over INT_MAX was accepted";
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "--size-factor");
    EXPECT_NE(std::string(e.what()).find("'big"), std::string::npos) << e.what();
  }
}

TEST(CudaPlan, LogicalDevicesRunOnGpuDModCount) {
  EXPECT_EQ(exec::physicalGpu(0, 2), 0);
  EXPECT_EQ(exec::physicalGpu(1, 2), 1);
  EXPECT_EQ(exec::physicalGpu(2, 2), 0);
  EXPECT_EQ(exec::physicalGpu(5, 2), 1);
  EXPECT_EQ(exec::physicalGpu(3, 1), 0);
  EXPECT_EQ(exec::physicalGpu(6, 8), 6);
  EXPECT_TRUE(exec::sharesGpus(3, 2));
  EXPECT_FALSE(exec::sharesGpus(2, 2));
  EXPECT_FALSE(exec::sharesGpus(1, 4));
  const std::string shared = exec::gpuMappingNote(4, 1);
  EXPECT_NE(shared.find("4 devices on 1 GPU"), std::string::npos) << shared;
  EXPECT_NE(shared.find("GPU d mod 1"), std::string::npos) << shared;
  EXPECT_NE(shared.find("share"), std::string::npos) << shared;
  const std::string own = exec::gpuMappingNote(2, 2);
  EXPECT_EQ(own, "2 devices on 2 GPUs");
}

TEST(CudaPlan, EachGpuHoldsItsNodesTheCopiesItReceivesAndItsDevicesScratch) {
  DataflowGraph g;
  const int mm = g.addNode(node("matmul", 2.0 * 32 * 32 * 16, 4.0 * 32 * 32));
  const int att = g.addNode(node("attention", 1e6, 4.0 * 64 * 64));
  const int add = g.addNode(node("add", 1e3, 4.0 * 1024));
  g.addEdge(Edge{mm, att, 4.0 * 100, std::nullopt});
  g.addEdge(Edge{att, add, 4.0 * 200, std::nullopt});
  const exec::CudaPlan plan = exec::planCudaKernels(g, 1);
  auto own = [&](int v) {
    return exec::nodeBytes(plan.nodes[v]) - 4.0 * plan.nodes[v].scratch_elements;
  };
  const double scratch = 4.0 * plan.nodes[att].scratch_elements;
  ASSERT_GT(scratch, 0);
  // Three devices on two GPUs: devices 0 and 2 share GPU 0.
  const auto bytes = exec::bytesPerGpu(g, plan, {0, 1, 2}, 3, 2);
  ASSERT_EQ(bytes.size(), 2u);
  EXPECT_DOUBLE_EQ(bytes[0], own(mm) + own(add) + 4.0 * 200);
  EXPECT_DOUBLE_EQ(bytes[1], own(att) + 4.0 * 100 + scratch);
  // All on one device: no copies, one scratch.
  const auto one = exec::bytesPerGpu(g, plan, {0, 0, 0}, 1, 1);
  EXPECT_DOUBLE_EQ(one[0], own(mm) + own(att) + own(add) + scratch);
}

TEST(CudaPlan, EveryNodeOfTheGeneratedWorkloadsIsPlanned) {
  for (const std::string kind : {"chainmm", "ffnn", "llama-block", "llama-layer"}) {
    const DataflowGraph g = generateGraph(kind);
    const double f = exec::cudaDefaultSizeFactor(g, 2, 100);
    EXPECT_GT(f, 0) << kind;
    EXPECT_LE(f, 1) << kind;
    // GPUs are faster than cores: the factor is at least the CPU one.
    EXPECT_GE(f, exec::defaultSizeFactor(g, 2, 100)) << kind;
    const exec::CudaPlan plan = exec::planCudaKernels(g, f);
    ASSERT_EQ(static_cast<int>(plan.nodes.size()), g.nodeCount()) << kind;
    ASSERT_EQ(static_cast<int>(plan.carried.size()), g.edgeCount()) << kind;
    for (int v = 0; v < g.nodeCount(); ++v) {
      const exec::CudaNodePlan& p = plan.nodes[v];
      EXPECT_GT(p.output_elements, 0) << kind << " " << g.node(v).id;
      EXPECT_EQ(p.operand_elements.size(), p.operand_bounds.size());
      EXPECT_EQ(p.gemms.size(), p.op == CudaOp::Matmul ? 1u : p.op == CudaOp::Attention ? 2u : 0u);
    }
    for (int e = 0; e < g.edgeCount(); ++e) {
      EXPECT_GE(plan.carried[e], 1);
      EXPECT_LE(plan.carried[e], plan.nodes[g.edge(e).src].output_elements);
    }
  }
}

}  // namespace
}  // namespace doppler
