// `doppler exec --kernels cuda` and `--devices cuda` end to end. Without a GPU (or without CUDA in
// this build) both are one clear error line, exit 2, naming the reason; with a GPU the run says
// which backend ran, where each logical device ran, and that the outputs match one device.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/exec/cuda_backend.h"
#include "tests/support/cli_fixture.h"

namespace doppler {
namespace {

class CudaExecCli : public testing::CliFixture {
 protected:
  void SetUp() override {
    CliFixture::SetUp();
    gpus_ = exec::cudaDeviceCount(&why_);
    ASSERT_EQ(run("graph generate llama-block -o " + path("g.json")).status, 0);
    ASSERT_EQ(run("place -g " + path("g.json") +
                  " -d 2 --method critical-path --json --no-record -o " + path("p.json"))
                  .status,
              0);
  }
  std::string exec(const std::string& devices, const std::string& rest) const {
    return "exec -g " + path("g.json") + " -d " + devices + " -a " + path("p.json") + " " + rest;
  }
  // What the error must say when there is no GPU: the build has no backend, or the CUDA error.
  std::string reason() const {
    return exec::cudaBackendBuiltIn() ? "no CUDA device: " + why_ : "no CUDA backend";
  }

  int gpus_ = 0;
  std::string why_;
};

TEST_F(CudaExecCli, WithoutAGpuCudaKernelsAreAClearError) {
  if (gpus_ > 0) GTEST_SKIP() << "a CUDA device is present: the error does not apply";
  expectBadInput(exec("2", "--kernels cuda --repeat 1 --no-record"), {"--kernels", reason()});
}

TEST_F(CudaExecCli, WithoutAGpuCudaDevicesAreAClearError) {
  if (gpus_ > 0) GTEST_SKIP() << "a CUDA device is present: the error does not apply";
  expectBadInput(exec("cuda", "--repeat 1 --no-record"), {"--devices", reason()});
}

TEST_F(CudaExecCli, CudaKernelsMatchOneDeviceAndSayWhereEachDeviceRan) {
  if (gpus_ == 0) GTEST_SKIP() << "no CUDA device: " << why_;
  const auto r = run(exec("2", "--kernels cuda --repeat 2 --size-factor 0.05 --json --no-record"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "cuda");
  EXPECT_EQ(j["outputs_match"], true);
  EXPECT_DOUBLE_EQ(j["size_factor"].get<double>(), 0.05);
  EXPECT_EQ(j["repeats_us"].size(), 2u);
  EXPECT_EQ(j["gpus"].size(), static_cast<size_t>(gpus_));
  EXPECT_EQ(j["device_gpus"], nlohmann::json({0, 1 % gpus_}));
  EXPECT_EQ(j["shared_gpus"], gpus_ < 2);
  ASSERT_EQ(j["gpu_kernel_us"].size(), 2u);
  EXPECT_GT(j["gpu_kernel_us"][0].get<double>() + j["gpu_kernel_us"][1].get<double>(), 0);
  EXPECT_NE(j["note"].get<std::string>().find("GPU"), std::string::npos);
  if (gpus_ < 2) {
    EXPECT_NE(r.err.find("share"), std::string::npos) << r.err;
  }
}

TEST_F(CudaExecCli, CudaDevicesMakeOneDevicePerGpuAndRefuseCpuKernels) {
  if (gpus_ == 0) GTEST_SKIP() << "no CUDA device: " << why_;
  // A placement for as many devices as GPUs.
  ASSERT_EQ(run("place -g " + path("g.json") + " -d " + std::to_string(gpus_) +
                " --method critical-path --json --no-record -o " + path("p.json"))
                .status,
            0);
  const auto r = run(exec("cuda", "--repeat 1 --size-factor 0.05 --json --no-record"));
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "cuda");
  EXPECT_EQ(j["devices"], gpus_);
  EXPECT_EQ(j["shared_gpus"], false);
  EXPECT_EQ(j["outputs_match"], true);
  expectBadInput(exec("cuda", "--kernels synthetic --no-record"), {"--kernels", "--devices cuda"});
}

}  // namespace
}  // namespace doppler
