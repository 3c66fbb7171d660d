// The executor's LibTorch CPU kernels (libdoppler_torch.so) through `doppler exec` and
// `doppler calibrate`, end to end. Asserted: which backend ran, that every placement computes the
// single-device outputs, the fields of the JSON and of the fitted device set (with --graph: a
// rate for every op of the graph), and that the fitted set is accepted by place and simulate;
// never speeds.
#include <gtest/gtest.h>
#include <signal.h>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"

namespace doppler {
namespace {

class TorchExecCli : public testing::CliFixture {
 protected:
  // The module this build made, whatever the binary's folder.
  std::string env() const {
    return std::string("DOPPLER_TORCH_MODULE=") + DOPPLER_TORCH_MODULE_PATH;
  }
};

TEST_F(TorchExecCli, TorchKernelsAreTheDefaultForGraphsWithOpsAndReproduceOneDevice) {
  ASSERT_EQ(run("graph generate llama-block -o " + path("g.json")).status, 0);
  ASSERT_EQ(run("place -g " + path("g.json") + " -d 2 --method heft --json --no-record -o " +
                path("p.json"))
                .status,
            0);
  const auto r = run("exec -g " + path("g.json") + " -d 2 -a " + path("p.json") +
                         " --repeat 1 --target-ms 20 --json --no-record",
                     env());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "cpu-torch");
  EXPECT_EQ(j["outputs_match"], true);
  EXPECT_GT(j["size_factor"].get<double>(), 0);
  EXPECT_LE(j["size_factor"].get<double>(), 1);
  EXPECT_GT(j["scaled_simulated_makespan_us"].get<double>(), 0);
  EXPECT_EQ(j["repeats_us"].size(), 1u);
}

TEST_F(TorchExecCli, EveryDisciplineMatchesOneDevice) {
  ASSERT_EQ(run("graph generate ffnn -o " + path("g.json")).status, 0);
  ASSERT_EQ(run("place -g " + path("g.json") +
                " -d 2 --method critical-path --json --no-record -o " + path("p.json"))
                .status,
            0);
  for (const std::string discipline : {"fifo", "priority", "sequence"}) {
    const auto r = run("exec -g " + path("g.json") + " -d 2 -a " + path("p.json") +
                           " --kernels torch --discipline " + discipline +
                           " --repeat 1 --size-factor 0.0005 --json --no-record",
                       env());
    ASSERT_EQ(r.status, 0) << discipline << ": " << r.err;
    const auto j = nlohmann::json::parse(r.out);
    EXPECT_EQ(j["outputs_match"], true) << discipline;
    EXPECT_DOUBLE_EQ(j["size_factor"].get<double>(), 0.0005);
  }
}

TEST_F(TorchExecCli, SyntheticKernelsStayAvailable) {
  ASSERT_EQ(run("graph generate chainmm -o " + path("g.json")).status, 0);
  ASSERT_EQ(run("place -g " + path("g.json") + " -d 2 --method heft --json --no-record -o " +
                path("p.json"))
                .status,
            0);
  const auto r = run("exec -g " + path("g.json") + " -d 2 -a " + path("p.json") +
                         " --kernels synthetic --repeat 1 --target-ms 20 --json --no-record",
                     env());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto j = nlohmann::json::parse(r.out);
  EXPECT_EQ(j["backend"], "cpu-synthetic");
  EXPECT_FALSE(j.contains("size_factor"));
  EXPECT_EQ(j["outputs_match"], true);
  expectBadInput("exec -g " + path("g.json") + " -d 2 -a " + path("p.json") +
                     " --kernels synthetic --size-factor 0.1 --no-record",
                 {"--size-factor"});
}

TEST_F(TorchExecCli, CalibrateWritesADeviceSetThatPlaceAndSimulateAccept) {
  const auto r = run("calibrate --devices 2 --repeat 1 --json --out " + path("fitted.json"), env());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  EXPECT_EQ(summary["backend"], "cpu-torch");
  EXPECT_EQ(summary["device_rates"].size(), 2u);
  std::ifstream in(path("fitted.json"));
  const auto set = nlohmann::json::parse(in);
  EXPECT_EQ(set["format"], "device-set/1");
  ASSERT_EQ(set["devices"].size(), 2u);
  for (const auto& device : set["devices"]) {
    EXPECT_GT(device["tflops"].get<double>(), 0);
    EXPECT_GT(device["memory_gbps"].get<double>(), 0);
  }
  EXPECT_GT(set["links"]["bandwidth_gbps"][0][1].get<double>(), 0);
  EXPECT_GE(set["links"]["latency_us"][0][1].get<double>(), 0);
  ASSERT_EQ(run("graph generate chainmm -o " + path("g.json")).status, 0);
  const auto placed = run("place -g " + path("g.json") + " -d " + path("fitted.json") +
                          " --method heft --json --no-record -o " + path("p.json"));
  ASSERT_EQ(placed.status, 0) << placed.err;
  const auto simulated = run("simulate -g " + path("g.json") + " -d " + path("fitted.json") +
                             " -a " + path("p.json") + " --json --no-record");
  ASSERT_EQ(simulated.status, 0) << simulated.err;
  expectBadInput("calibrate --devices many --out " + path("x.json"), {"--devices"});
}

// A partial calibration would fit some ops and guess the rest: Ctrl-C writes nothing, keeps the
// --out file as it was, says so, and exits 130.
TEST_F(TorchExecCli, CalibrateInterruptedWritesNothing) {
  const std::string out = write("fitted.json", "the previous file\n");
  const auto r =
      runThenSignalOnceHandled("calibrate --devices 2 --repeat 100000 --out " + out, SIGINT, env());
  ASSERT_EQ(r.status, 130) << "killed by the signal instead of handling it\n" << r.err;
  EXPECT_NE(r.err.find("interrupted by SIGINT"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("nothing was written"), std::string::npos) << r.err;
  EXPECT_EQ(slurp(out), "the previous file\n");
}

TEST_F(TorchExecCli, CalibrateWithAGraphFitsEveryOpItHas) {
  ASSERT_EQ(run("graph generate llama-block -o " + path("g.json")).status, 0);
  const auto r = run("calibrate --devices 2 --repeat 1 --target-ms 20 --json --graph " +
                         path("g.json") + " --out " + path("fitted.json"),
                     env());
  ASSERT_EQ(r.status, 0) << r.err;
  const auto summary = nlohmann::json::parse(r.out);
  ASSERT_EQ(summary["graphs"].size(), 1u);
  EXPECT_GT(summary["graphs"][0]["size_factor"].get<double>(), 0);
  const auto& rates = summary["device_rates"][0]["ops"];
  EXPECT_EQ(rates["rmsnorm"]["from_graphs"], true);
  EXPECT_EQ(rates["gelu"]["from_graphs"], false);  // llama-block has none: the sweep's alone
  // The link latency comes from the graph's copies under load, the idle chain's is kept beside it.
  EXPECT_GT(summary["links"]["loaded_copies"].get<int>(), 0);
  EXPECT_GE(summary["links"]["idle_latency_us"].get<double>(), 0);
  std::ifstream in(path("fitted.json"));
  const auto set = nlohmann::json::parse(in);
  ASSERT_EQ(set["devices"].size(), 2u);
  for (const auto& device : set["devices"]) {
    // Every op of the graph, and the names that share a kernel, with a full rate.
    for (const char* op : {"input", "matmul", "gemm", "rmsnorm", "rope", "softmax", "add"}) {
      ASSERT_TRUE(device["ops"].contains(op)) << op;
      EXPECT_GT(device["ops"][op]["tflops"].get<double>(), 0) << op;
      EXPECT_GE(device["ops"][op]["overhead_us"].get<double>(), 0) << op;
    }
    EXPECT_TRUE(device["ops"]["softmax"].contains("memory_gbps"));
  }
  const auto placed = run("place -g " + path("g.json") + " -d " + path("fitted.json") +
                          " --method heft --json --no-record -o " + path("p.json"));
  ASSERT_EQ(placed.status, 0) << placed.err;
  // A graph of costs only has no kernels to profile; a target of 0 ms sizes nothing.
  {
    std::ofstream out(path("costs.json"));
    out << R"({"format": "dataflow-graph/1", "nodes": [{"id": "a", "compute_us": 5}], "edges": []})";
  }
  expectBadInput("calibrate -d 2 --graph " + path("costs.json") + " --out " + path("x.json"),
                 {"--graph", "costs.json"});
  expectBadInput("calibrate -d 2 --target-ms 0 --out " + path("x.json"), {"--target-ms"});
}

}  // namespace
}  // namespace doppler
