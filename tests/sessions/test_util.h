#pragma once
// Shared helpers for the run store tests: a fresh directory per test, file bytes, small graphs
// (all from tests/support).
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "tests/support/graphs.h"
#include "tests/support/temp_dir.h"

namespace doppler::sessions::testing {

namespace fs = std::filesystem;

using StoreTest = ::doppler::testing::TempDirTest;
using ::doppler::testing::diamond;

}  // namespace doppler::sessions::testing
