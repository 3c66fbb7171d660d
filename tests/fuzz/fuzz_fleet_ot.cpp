// The transport problem reader (core/fleet/ot/transport_problem.h), and the exact and unbalanced
// solvers on what it accepts: each may throw only InputError (an unbalanced problem, say), and must
// return (masses whose total overflowed once made the unbalanced rounding loop for ever).
#include "core/fleet/ot/exact_transport.h"
#include "core/fleet/ot/transport_problem.h"
#include "core/fleet/ot/unbalanced_transport.h"
#include "fuzz_common.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  return fuzzOne(data, size, [](std::string_view text) {
    const doppler::fleet::ot::TransportProblem problem =
        doppler::fleet::ot::parseTransportProblem(text);
    // Solve only small problems, so that each input stays fast and the fuzzer explores the
    // reader rather than LEMON.
    if (problem.a.size() * problem.b.size() > 64) return;
    try {
      doppler::fleet::ot::solveExact(problem);
    } catch (const doppler::InputError&) {  // unbalanced masses: the unbalanced solver may take it
    }
    doppler::fleet::ot::solveUnbalanced(problem);
  });
}
