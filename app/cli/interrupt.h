#pragma once
// Ctrl-C (SIGINT) and SIGTERM during a long command: while an InterruptGuard lives, either signal
// sets the command's cancel token (one lock-free store, safe in a handler), so the work stops at
// its next check and the command prints what it has, marked partial, then throws Interrupted,
// which main() turns into exit status 130. A second signal is handled the same way.
#include <stdexcept>
#include <string>

#include "core/common/cancel_token.h"

namespace doppler::cli {

class InterruptGuard {
 public:
  explicit InterruptGuard(const CancelToken& token);
  ~InterruptGuard();  // the previous handlers back
  InterruptGuard(const InterruptGuard&) = delete;
  InterruptGuard& operator=(const InterruptGuard&) = delete;

  // The signal received while guarded ("SIGINT", "SIGTERM"), empty if none.
  static std::string received();
};

// Thrown after a partial result was printed: main() prints the message and exits 130.
class Interrupted : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

inline constexpr int kExitInterrupted = 130;

}  // namespace doppler::cli
