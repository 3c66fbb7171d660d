// LibTorch is a module opened on first use (core/train/torch_module.h): `doppler place` (the
// shipped general policy's exported weights included) and `doppler --version` never load it,
// `doppler train` does, and a missing module is one clear line.
// The dynamic loader's own log (LD_DEBUG=libs, on stderr) says which libraries a process loaded.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>

#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

using doppler::testing::CliResult;

const std::string kChain = doppler::testing::testData("chain_mm_40nodes.txt");

class TorchModule : public doppler::testing::CliFixture {
 protected:
  // Runs `args` under LD_DEBUG=libs; expects success and returns the loader's log.
  std::string loaderLog(const std::string& args) const {
    const CliResult r = run(args, "LD_DEBUG=libs");
    EXPECT_EQ(r.status, 0) << args << "\n" << r.err.substr(0, 2000);
    EXPECT_NE(r.err.find("libc.so"), std::string::npos) << "no loader log: " << r.err;
    return r.err;
  }
};

TEST_F(TorchModule, PlaceAndVersionDoNotLoadLibTorch) {
  for (const std::string& args :
       {std::string("--version"),
        "place --graph " + kChain + " --devices 4 --method critical-path --no-record --json",
        "place --graph " + kChain + " --devices 4 --method doppler --no-record --json",
        "place --graph " + kChain +
            " --devices 4 --method local-search -p start=doppler --budget 200 --no-record --json",
        "eval --graph " + kChain + " --devices 4 --no-record --json"}) {
    const std::string log = loaderLog(args);
    EXPECT_EQ(log.find("libtorch"), std::string::npos) << args << " loaded LibTorch";
    EXPECT_EQ(log.find("libdoppler_torch"), std::string::npos) << args << " opened the module";
  }
}

TEST_F(TorchModule, TrainOpensTheModuleAndLibTorch) {
  const std::string log =
      loaderLog("train --graph " + kChain + " --devices 2 --episodes 1 --out " + path("p.pt") +
                " --hidden 8 --mp-steps 1 --edge-hidden 4 --head-hidden 8 --device-hidden 4" +
                " --no-record --json");
  EXPECT_NE(log.find("libdoppler_torch.so"), std::string::npos);
  EXPECT_NE(log.find("libtorch_cpu"), std::string::npos);
}

TEST_F(TorchModule, AMissingModuleIsOneClearLine) {
  const std::string missing = path("nowhere/libdoppler_torch.so");
  for (const std::string& args :
       {"eval --policy " + path("p.pt") + " --graph " + kChain + " --devices 2 --no-record",
        "train --graph " + kChain + " --devices 2 --out " + path("p.pt") + " --no-record"}) {
    const CliResult r = run(args, "DOPPLER_TORCH_MODULE=" + missing);
    EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
    EXPECT_NE(r.err.find(missing), std::string::npos) << r.err;
    EXPECT_NE(r.err.find("LibTorch module"), std::string::npos) << r.err;
  }
}

}  // namespace
