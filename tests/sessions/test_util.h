#pragma once
// Shared helpers for the run store tests: a fresh directory per test, file bytes, small graphs.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"

namespace doppler::sessions::testing {

namespace fs = std::filesystem;

class StoreTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() / ("doppler_sessions_" + std::to_string(::getpid()) + "_" +
                                        info->test_suite_name() + "_" + info->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }

  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  static void spit(const std::string& p, const std::string& bytes) {
    std::ofstream(p, std::ios::binary | std::ios::trunc) << bytes;
  }

  fs::path dir_;
};

// a -> b -> d, a -> c -> d: four nodes, four edges.
inline DataflowGraph diamond(const std::string& name = "diamond") {
  DataflowGraph g;
  g.name = name;
  for (const char* id : {"a", "b", "c", "d"}) {
    Node n;
    n.id = id;
    n.op = "op";
    n.compute_us = {10.0};
    g.addNode(n);
  }
  g.addEdge("a", "b", 1e6);
  g.addEdge("a", "c", 1e6);
  g.addEdge("b", "d", 1e6);
  g.addEdge("c", "d", 1e6);
  return g;
}

}  // namespace doppler::sessions::testing
