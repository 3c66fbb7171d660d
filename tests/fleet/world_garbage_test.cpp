// Truncated and corrupted inputs: the topology and trace parsers return a result or throw
// InputError, never anything else (the fuzz target tests/fuzz/fuzz_fleet_world.cpp explores
// further with libFuzzer).
#include <gtest/gtest.h>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/fleet/world/topology.h"
#include "core/fleet/world/trace_reader.h"
#include "tests/fleet/world_test_files.h"

namespace {

using doppler::InputError;
using namespace doppler::fleet;
using doppler::testing::shippedTopologyFile;
using doppler::testing::shippedTraceFile;
using doppler::testing::slurp;

template <class Parse>
void expectResultOrInputError(const std::string& text, Parse&& parse) {
  try {
    parse(text);
  } catch (const InputError&) {
  } catch (const std::exception& e) {
    ADD_FAILURE() << "not an InputError: " << e.what() << " on input of " << text.size()
                  << " bytes";
  }
}

// Every prefix (a step apart), and copies with random bytes overwritten.
template <class Parse>
void torture(const std::string& text, size_t step, Parse&& parse) {
  for (size_t n = 0; n <= text.size(); n += step)
    expectResultOrInputError(text.substr(0, n), parse);
  doppler::SplitMix64 rng(42);
  const std::string alphabet = "()\r\n #,.-:0123456789eE+ABCnan{}[]\"\x01\xff";
  for (int round = 0; round < 300; ++round) {
    std::string corrupted = text;
    for (int k = 0; k < 4; ++k)
      corrupted[rng.next() % corrupted.size()] = alphabet[rng.next() % alphabet.size()];
    expectResultOrInputError(corrupted, parse);
  }
}

TEST(FleetWorldGarbage, TopologyParserSurvivesTruncationAndCorruption) {
  auto parse = [](const std::string& t) { parseTopology(t, "garbage.txt"); };
  torture(slurp(shippedTopologyFile("abilene.txt")), 13, parse);
  torture(slurp(shippedTopologyFile("polska.txt")), 29, parse);
  torture(slurp(shippedTopologyFile("gabriel25_0.json")), 97, parse);
}

TEST(FleetWorldGarbage, TraceParserSurvivesTruncationAndCorruption) {
  const std::string head = slurp(shippedTraceFile("conv")).substr(0, 4000);
  torture(head, 7, [](const std::string& t) { parseTrace(t, "garbage.csv"); });
}

TEST(FleetWorldGarbage, TruncatedTopologiesAreRefusedNotHalfRead) {
  // Cut inside the NODES section: no LINKS, so an error, never a smaller graph.
  const std::string text = slurp(shippedTopologyFile("cost266.txt"));
  EXPECT_THROW(parseTopology(text.substr(0, text.find("LINKS (") - 10), "cut.txt"), InputError);
}

}  // namespace
