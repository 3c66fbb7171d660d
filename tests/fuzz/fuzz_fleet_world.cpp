// The fleet world's two parsers, topology (SNDlib native or TopoHub JSON) and Azure trace CSV,
// in one target: the first byte picks the parser, so one corpus exercises both.
#include "core/fleet/world/topology.h"
#include "core/fleet/world/trace_reader.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const bool trace = data[0] & 1;
  return fuzzOne(data + 1, size - 1, [trace](std::string_view text) {
    if (trace) {
      const doppler::fleet::Trace t = doppler::fleet::parseTrace(text);
      // A parsed trace is non-empty and in time order from 0.
      if (t.requests.empty() || t.requests.front().arrival_s != 0) __builtin_trap();
    } else {
      const doppler::fleet::Topology topo = doppler::fleet::parseTopology(text);
      // A parsed topology is non-empty, its links name real nodes.
      for (const auto& link : topo.links)
        if (link.a < 0 || link.b < 0 || link.a >= topo.nodeCount() || link.b >= topo.nodeCount())
          __builtin_trap();
    }
  });
}
