#pragma once
// A test fixture that runs the real `doppler` binary: a temporary folder per test, the child's
// data directory inside it, stdout/stderr captured, and a time limit so a hang fails the test.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace doppler::testing {

struct CliResult {
  int status = -1;
  std::string out, err;
};

class CliFixture : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("doppler_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // The child's data directory is the test's own (XDG_DATA_HOME and HOME): runs recorded without
  // --db land there, never in the real user's data directory.
  CliResult run(const std::string& args) const {
    const std::string out = path("stdout"), err = path("stderr");
    const std::string cmd = "env XDG_DATA_HOME=" + path("xdg-data") + " HOME=" + path("home") +
                            " timeout 300 " + std::string(DOPPLER_CLI) + " " + args + " >" + out +
                            " 2>" + err + " </dev/null";
    const int raw = std::system(cmd.c_str());
    CliResult r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  // Expects exit status 2 and exactly one line on stderr containing every fragment.
  CliResult expectBadInput(const std::string& args,
                           const std::vector<std::string>& fragments) const {
    CliResult r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
    for (const auto& f : fragments)
      EXPECT_NE(r.err.find(f), std::string::npos) << "missing '" << f << "' in: " << r.err;
    return r;
  }

  std::filesystem::path dir_;
};

}  // namespace doppler::testing
