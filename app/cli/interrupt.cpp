#include "interrupt.h"

#include <atomic>
#include <csignal>

namespace doppler::cli {
namespace {

const CancelToken* gToken = nullptr;
std::atomic<int> gSignal{0};
using Handler = void (*)(int);
Handler gPreviousInt = SIG_DFL, gPreviousTerm = SIG_DFL;

extern "C" void onSignal(int sig) {
  gSignal.store(sig, std::memory_order_relaxed);
  if (gToken) gToken->cancel();
}

}  // namespace

InterruptGuard::InterruptGuard(const CancelToken& token) {
  gSignal.store(0, std::memory_order_relaxed);
  gToken = &token;
  gPreviousInt = std::signal(SIGINT, onSignal);
  gPreviousTerm = std::signal(SIGTERM, onSignal);
}

InterruptGuard::~InterruptGuard() {
  std::signal(SIGINT, gPreviousInt);
  std::signal(SIGTERM, gPreviousTerm);
  gToken = nullptr;
}

std::string InterruptGuard::received() {
  switch (gSignal.load(std::memory_order_relaxed)) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
    default:
      return {};
  }
}

}  // namespace doppler::cli
