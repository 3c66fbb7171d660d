#include "core/fleet/world/gpu_catalog.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "core/common/input_error.h"

namespace doppler::fleet {

namespace {

// Power draw by phase as fractions of the board limit: stated assumptions, anchored on published
// measurements. Idle with a model loaded (CUDA context up) is about 10-15% of TDP: an H200 idles
// at 80 W of 700 W under vLLM, and a CUDA context adds 26-66 W over bare idle on H100, A100 and
// L40S (arXiv 2605.23918). Prefill is compute-bound and runs near the limit (H100 SXM draws up to
// 680 W of 700 W at large batch in vLLM runs). Decode is memory-bound and draws far less: 137-300
// W of 700 W on H200 at small batch (arXiv 2605.11999, "The Illusion of Power Capping in LLM
// Decode"), more as batches grow; 0.55 stands for a served batch between those ends.
constexpr double kIdleShare = 0.15, kPrefillShare = 0.90, kDecodeShare = 0.55;

GpuSpec spec(GpuType type, std::string name, std::string model, double tflops, double memory_gb,
             double bandwidth_gbs, double tdp_w, double usd_per_hour) {
  return {type,
          std::move(name),
          std::move(model),
          tflops,
          memory_gb,
          bandwidth_gbs,
          tdp_w,
          kIdleShare * tdp_w,
          kPrefillShare * tdp_w,
          kDecodeShare * tdp_w,
          usd_per_hour};
}

std::string lower(std::string s) {
  std::transform(s.begin(), s.end(), s.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

}  // namespace

const std::vector<GpuSpec>& gpuCatalog() {
  // Prices are on-demand rental of one GPU, US dollars per hour; they move monthly and between
  // providers by 2x, so each says where and when it was read.
  static const std::vector<GpuSpec> catalog{
      // NVIDIA A100 Tensor Core GPU datasheet (nvidia-a100-datasheet-us-nvidia-1758950-r4-web.pdf):
      // A100 80GB SXM: FP16 Tensor Core 312 TFLOPS (624 with sparsity), 80GB HBM2e, 2,039 GB/s,
      // max TDP 400 W. Price: $1.29/h, the middle of the "specialty cloud" on-demand range
      // $1.10-1.50 for A100 80GB (mercatus-ai.com/blog/cloud-gpu-pricing, May 2026).
      spec(GpuType::A100, "A100", "A100 80GB SXM4", 312.0, 80, 2039, 400, 1.29),
      // NVIDIA H100 Tensor Core GPU datasheet (resources.nvidia.com, H100 SXM): FP16 Tensor Core
      // 1,979 TFLOPS with sparsity, i.e. 989.4 dense; 80GB HBM3, 3.35 TB/s; up to 700 W.
      // Price: $2.99/h (H100 on-demand as quoted by gputracker.dev, "Cost Per Token", March
      // 2026; inside mercatus-ai's specialty range $2.50-3.50, May 2026).
      spec(GpuType::H100, "H100", "H100 80GB SXM5", 989.4, 80, 3350, 700, 2.99),
      // NVIDIA L40S datasheet (resources.nvidia.com/en-us-l40s/l40s-datasheet): FP16 Tensor
      // 733 TFLOPS with sparsity, i.e. 362.05 dense; 48GB GDDR6, 864 GB/s; max power 350 W.
      // Price: $0.86/h, RunPod's on-demand L40S (secure cloud) list price in 2025 (recalled, not
      // re-read here: an assumption to check).
      spec(GpuType::L40S, "L40S", "L40S 48GB", 362.05, 48, 864, 350, 0.86),
      // NVIDIA Ada Lovelace GPU architecture whitepaper (v2.1), GeForce RTX 4090: peak FP16
      // tensor TFLOPS with FP32 accumulate 165.2 dense (330.3 with FP16 accumulate, which
      // inference frameworks do not use for fp16 GEMMs); 24GB GDDR6X, 1,008 GB/s; 450 W TGP.
      // Price: $0.34/h (RTX 4090 as quoted by gputracker.dev, March 2026).
      spec(GpuType::RTX4090, "RTX4090", "GeForce RTX 4090 24GB", 165.2, 24, 1008, 450, 0.34),
      // NVIDIA T4 Tensor Core GPU datasheet (t4-tensor-core-datasheet-951643.pdf): mixed-
      // precision FP16/FP32 65 TFLOPS, 16GB GDDR6, 320+ GB/s, 70 W. Price: $0.35/h, Google
      // Cloud's on-demand T4 GPU price (us-central1, GPU only; recalled, an assumption to check).
      spec(GpuType::T4, "T4", "T4 16GB", 65.0, 16, 320, 70, 0.35),
  };
  return catalog;
}

const GpuSpec& gpuSpec(GpuType type) {
  return gpuCatalog()[static_cast<size_t>(type)];
}

GpuType gpuTypeFromName(const std::string& name) {
  const std::string key = lower(name);
  for (const GpuSpec& gpu : gpuCatalog())
    if (lower(gpu.name) == key) return gpu.type;
  if (key == "4090" || key == "rtx-4090" || key == "rtx 4090") return GpuType::RTX4090;
  throw InputError("", "GPU type " + name,
                   "unknown GPU type \"" + name + "\" (A100, H100, L40S, RTX4090, T4)");
}

const std::vector<ModelSpec>& modelTable() {
  // Touvron et al., "Llama 2: Open Foundation and Fine-Tuned Chat Models" (arXiv 2307.09288),
  // Table 1 and the released config.json files: 7B has 32 layers, hidden 4096, 32 heads; 13B 40
  // layers, hidden 5120, 40 heads; 70B 80 layers, hidden 8192, 64 heads with 8 key/value heads
  // (grouped-query attention). Head dimension 128 in all three. Parameter counts as released.
  static const std::vector<ModelSpec> models{
      {"llama-2-7b", 6.74e9, 32, 32, 128, 2},
      {"llama-2-13b", 13.02e9, 40, 40, 128, 2},
      {"llama-2-70b", 68.98e9, 80, 8, 128, 2},
  };
  return models;
}

const ModelSpec& defaultModel() {
  return modelTable().front();
}

const ModelSpec& findModel(const std::string& name) {
  std::string known;
  for (const ModelSpec& model : modelTable()) {
    if (model.name == lower(name)) return model;
    known += (known.empty() ? "" : ", ") + model.name;
  }
  throw InputError("", "--model " + name, "unknown model \"" + name + "\" (" + known + ")");
}

// The efficiency factors (RooflineFactors) are assumptions: MFU 0.5 in prefill, since whole-model
// prefill mixes large GEMMs (60-70% of peak on A100/H100) with attention and memory-bound
// element-wise kernels; MBU 0.7 in decode, in the range that Databricks' "LLM Inference
// Performance Engineering: Best Practices" (2023) reports for 7B-class models at small batch
// (about 60-70% of peak bandwidth).

double prefillSeconds(const GpuSpec& gpu, const ModelSpec& model, double prompt_tokens,
                      const RooflineFactors& f) {
  const double compute = 2.0 * model.params * prompt_tokens / (gpu.fp16_tflops * 1e12 * f.mfu);
  const double memory = model.weightBytes() / (gpu.bandwidth_gbs * 1e9 * f.mbu);
  return std::max(compute, memory);
}

namespace {

struct DecodeParts {
  double memory = 0, compute = 0;
};

DecodeParts decodeParts(const GpuSpec& gpu, const ModelSpec& model, int batch,
                        double context_tokens, const RooflineFactors& f) {
  const double bytes = model.weightBytes() + batch * context_tokens * model.kvBytesPerToken();
  return {bytes / (gpu.bandwidth_gbs * 1e9 * f.mbu),
          2.0 * model.params * batch / (gpu.fp16_tflops * 1e12 * f.mfu)};
}

}  // namespace

double decodeStepSeconds(const GpuSpec& gpu, const ModelSpec& model, int batch,
                         double context_tokens, const RooflineFactors& f) {
  const DecodeParts parts = decodeParts(gpu, model, batch, context_tokens, f);
  return std::max(parts.memory, parts.compute);
}

bool decodeIsMemoryBound(const GpuSpec& gpu, const ModelSpec& model, int batch,
                         double context_tokens, const RooflineFactors& f) {
  const DecodeParts parts = decodeParts(gpu, model, batch, context_tokens, f);
  return parts.memory >= parts.compute;
}

double kvCapacityTokens(const GpuSpec& gpu, const ModelSpec& model, const RooflineFactors& f) {
  const double usable = gpu.memory_gb * 1073741824.0 * f.usable_memory;
  return std::max(0.0, (usable - model.weightBytes()) / model.kvBytesPerToken());
}

bool modelFits(const GpuSpec& gpu, const ModelSpec& model, const RooflineFactors& f) {
  return kvCapacityTokens(gpu, model, f) >= 1.0;
}

double servingRequestsPerSecond(const GpuSpec& gpu, const ModelSpec& model, double context_tokens,
                                double generated_tokens, const RooflineFactors& f, int max_batch) {
  const double perRequest = std::max(1.0, context_tokens + generated_tokens);
  const double kv = kvCapacityTokens(gpu, model, f);
  if (kv < perRequest) return 0.0;  // one request alone overflows the KV cache
  const int batch = std::clamp(static_cast<int>(kv / perRequest), 1, max_batch);
  const double cycle =
      batch * prefillSeconds(gpu, model, context_tokens, f) +
      generated_tokens *
          decodeStepSeconds(gpu, model, batch, context_tokens + generated_tokens / 2, f);
  return batch / cycle;
}

}  // namespace doppler::fleet
