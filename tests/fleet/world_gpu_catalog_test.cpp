// The GPU catalogue and the roofline: datasheet numbers in place, hand-computed times, and the
// orderings any roofline must show.
#include <gtest/gtest.h>

#include <stdexcept>

#include "core/common/input_error.h"
#include "core/fleet/world/gpu_catalog.h"

namespace {

using namespace doppler::fleet;

TEST(FleetGpuCatalog, HoldsTheFiveTypesInOrderWithDatasheetNumbers) {
  const auto& catalog = gpuCatalog();
  ASSERT_EQ(catalog.size(), 5u);
  for (size_t i = 0; i < catalog.size(); ++i) EXPECT_EQ(catalog[i].type, kAllGpuTypes[i]);
  // Spot checks against the datasheets cited in gpu_catalog.cpp.
  EXPECT_DOUBLE_EQ(gpuSpec(GpuType::H100).fp16_tflops, 989.4);
  EXPECT_DOUBLE_EQ(gpuSpec(GpuType::H100).bandwidth_gbs, 3350);
  EXPECT_DOUBLE_EQ(gpuSpec(GpuType::A100).bandwidth_gbs, 2039);
  EXPECT_DOUBLE_EQ(gpuSpec(GpuType::T4).tdp_w, 70);
  EXPECT_DOUBLE_EQ(gpuSpec(GpuType::L40S).memory_gb, 48);
  for (const GpuSpec& gpu : catalog) {
    SCOPED_TRACE(gpu.name);
    EXPECT_GT(gpu.usd_per_hour, 0);
    // Idle below decode below prefill below the board limit.
    EXPECT_LT(gpu.idle_w, gpu.decode_w);
    EXPECT_LT(gpu.decode_w, gpu.prefill_w);
    EXPECT_LE(gpu.prefill_w, gpu.tdp_w);
    EXPECT_EQ(gpuTypeFromName(gpu.name), gpu.type);
  }
  EXPECT_EQ(gpuTypeFromName("4090"), GpuType::RTX4090);
  EXPECT_THROW(gpuTypeFromName("V100"), doppler::InputError);
}

TEST(FleetGpuCatalog, ModelTableSizes) {
  const ModelSpec& m7 = findModel("llama-2-7b");
  EXPECT_EQ(&m7, &defaultModel());
  EXPECT_DOUBLE_EQ(m7.weightBytes(), 13.48e9);
  // 2 (K, V) * 32 layers * 32 heads * 128 * 2 bytes = 524,288 bytes per token.
  EXPECT_DOUBLE_EQ(m7.kvBytesPerToken(), 524288.0);
  // 70B's grouped-query attention: 2 * 80 * 8 * 128 * 2.
  EXPECT_DOUBLE_EQ(findModel("llama-2-70b").kvBytesPerToken(), 327680.0);
  EXPECT_THROW(findModel("gpt-5"), doppler::InputError);
}

TEST(FleetGpuCatalog, RooflineMatchesAHandComputation) {
  const ModelSpec& m = findModel("llama-2-7b");
  const GpuSpec& h100 = gpuSpec(GpuType::H100);
  // Prefill of 1,000 tokens: 2 * 6.74e9 * 1000 / (989.4e12 * 0.5) = 0.0272488 s.
  EXPECT_NEAR(prefillSeconds(h100, m, 1000), 2 * 6.74e9 * 1000 / (989.4e12 * 0.5), 1e-12);
  EXPECT_NEAR(prefillSeconds(h100, m, 1000), 0.0272488, 1e-7);
  // A one-token prefill is bounded by reading the weights: 13.48e9 / (3350e9 * 0.7).
  EXPECT_NEAR(prefillSeconds(h100, m, 1), 13.48e9 / (3350e9 * 0.7), 1e-12);
  // Decode, batch 1, 1,000 tokens of context: (13.48e9 + 1000 * 524288) / (3350e9 * 0.7)
  // = 5.97198 ms on H100; on T4 with 320 GB/s, 62.5192 ms.
  EXPECT_NEAR(decodeStepSeconds(h100, m, 1, 1000), 5.97198e-3, 1e-8);
  EXPECT_NEAR(decodeStepSeconds(gpuSpec(GpuType::T4), m, 1, 1000), 62.5192e-3, 1e-7);
}

TEST(FleetGpuCatalog, H100IsFasterThanT4InBothPhases) {
  const ModelSpec& m = defaultModel();
  const GpuSpec &h100 = gpuSpec(GpuType::H100), &t4 = gpuSpec(GpuType::T4);
  EXPECT_LT(prefillSeconds(h100, m, 1000), prefillSeconds(t4, m, 1000));
  EXPECT_LT(decodeStepSeconds(h100, m, 1, 500), decodeStepSeconds(t4, m, 1, 500));
  EXPECT_GT(servingRequestsPerSecond(h100, m, 1000, 200),
            servingRequestsPerSecond(t4, m, 1000, 200));
}

TEST(FleetGpuCatalog, DecodeIsMemoryBoundAtBatchOneAndComputeBoundWhenHuge) {
  const ModelSpec& m = defaultModel();
  for (const GpuSpec& gpu : gpuCatalog()) {
    SCOPED_TRACE(gpu.name);
    EXPECT_TRUE(decodeIsMemoryBound(gpu, m, 1, 1000));
    // With no KV traffic and a batch of 100,000, the arithmetic must dominate.
    EXPECT_FALSE(decodeIsMemoryBound(gpu, m, 100000, 0));
  }
}

TEST(FleetGpuCatalog, MemoryDecidesWhatFits) {
  const ModelSpec &m7 = findModel("llama-2-7b"), &m70 = findModel("llama-2-70b");
  for (const GpuSpec& gpu : gpuCatalog()) {
    EXPECT_TRUE(modelFits(gpu, m7)) << gpu.name;
    EXPECT_FALSE(modelFits(gpu, m70)) << gpu.name;  // 138 GB of weights fit no single GPU
    EXPECT_EQ(servingRequestsPerSecond(gpu, m70, 1000, 200), 0.0);
  }
  // T4: 16 GiB * 0.9 - 13.48e9 bytes leaves (15.4618e9 - 13.48e9) / 524288 = 3,780 tokens.
  EXPECT_NEAR(kvCapacityTokens(gpuSpec(GpuType::T4), m7),
              (16 * 1073741824.0 * 0.9 - 13.48e9) / 524288, 1e-6);
  EXPECT_GT(kvCapacityTokens(gpuSpec(GpuType::H100), m7),
            kvCapacityTokens(gpuSpec(GpuType::RTX4090), m7));
}

}  // namespace
