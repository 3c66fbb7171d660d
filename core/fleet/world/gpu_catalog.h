#pragma once
// The GPU types a region's pool mixes, the models they serve, and a roofline estimate of prefill
// and decode time where no measured profile exists (docs/fleet.md, "GPU catalogue").
#include <array>
#include <string>
#include <vector>

namespace doppler::fleet {

enum class GpuType { A100, H100, L40S, RTX4090, T4 };
inline constexpr int kGpuTypes = 5;
inline constexpr std::array<GpuType, kGpuTypes> kAllGpuTypes{
    GpuType::A100, GpuType::H100, GpuType::L40S, GpuType::RTX4090, GpuType::T4};

struct GpuSpec {
  GpuType type;
  std::string name;          // "A100", "H100", ... (also the key in JSON)
  std::string model;         // the exact part: "A100 80GB SXM4"
  double fp16_tflops = 0;    // peak dense FP16 tensor throughput, no sparsity
  double memory_gb = 0;      // on-board memory, GiB (2^30 bytes, as NVIDIA's "80GB" means)
  double bandwidth_gbs = 0;  // memory bandwidth, GB/s (10^9 bytes/s)
  double tdp_w = 0;          // board power limit (TDP/TGP)
  double idle_w = 0, prefill_w = 0, decode_w = 0;  // draw while idle, in prefill, in decode
  double usd_per_hour = 0;                         // rental price of one GPU
};

// The five types, in kAllGpuTypes order; each number's source is beside it in gpu_catalog.cpp.
const std::vector<GpuSpec>& gpuCatalog();
const GpuSpec& gpuSpec(GpuType type);
// By name ("A100", "h100", "RTX4090"/"4090", ...); InputError if unknown.
GpuType gpuTypeFromName(const std::string& name);

// A decoder-only transformer served in fp16.
struct ModelSpec {
  std::string name;   // "llama-2-7b"
  double params = 0;  // parameter count
  int layers = 0;
  int kv_heads = 0;  // key/value heads (fewer than attention heads with grouped-query attention)
  int head_dim = 0;
  double bytes_per_param = 2;  // fp16

  double weightBytes() const { return params * bytes_per_param; }
  // K and V of one token in every layer.
  double kvBytesPerToken() const { return 2.0 * layers * kv_heads * head_dim * bytes_per_param; }
};

// Llama-2 7B, 13B and 70B (the digest's motivation uses LLaMA-2-7B: the default).
const std::vector<ModelSpec>& modelTable();
const ModelSpec& defaultModel();
// By name; InputError listing the known ones if unknown.
const ModelSpec& findModel(const std::string& name);

// How far below peak real kernels run: stated assumptions (gpu_catalog.cpp says why).
struct RooflineFactors {
  double mfu = 0.5;            // model FLOPs utilisation in prefill (and compute-bound decode)
  double mbu = 0.7;            // model bandwidth utilisation in decode
  double usable_memory = 0.9;  // share of memory for weights + KV (the rest: activations, runtime)
};

// Prefill of `prompt_tokens`: max(2 * params * tokens / (peak * mfu), weights / (bandwidth *
// mbu)), seconds: compute-bound for real prompts, and never faster than reading the weights once.
double prefillSeconds(const GpuSpec& gpu, const ModelSpec& model, double prompt_tokens,
                      const RooflineFactors& f = {});
// One decode step for `batch` sequences holding `context_tokens` each: max(memory, compute) with
// memory = (weights + batch * context * KV bytes per token) / (bandwidth * mbu) and compute =
// 2 * params * batch / (peak * mfu). Every sequence in the batch gets one token per step.
double decodeStepSeconds(const GpuSpec& gpu, const ModelSpec& model, int batch,
                         double context_tokens, const RooflineFactors& f = {});
// True when the step above is limited by memory traffic rather than arithmetic.
bool decodeIsMemoryBound(const GpuSpec& gpu, const ModelSpec& model, int batch,
                         double context_tokens, const RooflineFactors& f = {});
// Tokens of KV cache that fit beside the weights (0 when the weights alone do not fit).
double kvCapacityTokens(const GpuSpec& gpu, const ModelSpec& model, const RooflineFactors& f = {});
bool modelFits(const GpuSpec& gpu, const ModelSpec& model, const RooflineFactors& f = {});

// Requests per second one GPU sustains for requests of the given mean sizes: as many run
// together as the KV cache holds (at most max_batch), each is prefilled once, then they decode
// together at a mean context of context + generated / 2. A capacity estimate for sizing a fleet,
// not a simulation; 0 when the model does not fit.
double servingRequestsPerSecond(const GpuSpec& gpu, const ModelSpec& model, double context_tokens,
                                double generated_tokens, const RooflineFactors& f = {},
                                int max_batch = 256);

}  // namespace doppler::fleet
