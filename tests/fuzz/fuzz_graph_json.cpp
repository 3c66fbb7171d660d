#include "core/graph/graph_io.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size,
                 [](std::string_view text) { simulateOnTwoDevices(doppler::parseGraph(text)); });
}
