#pragma once
// Every parser must either return a valid object or throw InputError: any other exception, a
// crash, a sanitizer report or a hang is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/common/input_error.h"
#include "core/sim/cost_table.h"
#include "core/sim/simulator.h"

template <class F>
int fuzzOne(const uint8_t* data, size_t size, F&& parse) {
  std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    parse(text);
  } catch (const doppler::InputError&) {
  }
  return 0;
}

// A graph that parses must also simulate: its costs are exercised on two devices, nodes
// alternating between them.
inline void simulateOnTwoDevices(const doppler::DataflowGraph& g) {
  doppler::DeviceSet d = doppler::DeviceSet::uniform(2);
  doppler::CostTable c(g, d);
  doppler::Simulator sim(c);
  doppler::Assignment a(c.nodes());
  for (int v = 0; v < c.nodes(); ++v) a[v] = v % 2;
  sim.makespan(a);
}
