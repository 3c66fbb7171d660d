#pragma once
// The one cancellation type of Doppler Studio. Copies share one flag: the job runner keeps a copy,
// the work it runs (local search, training, layout, later execution and fleet runs) polls another,
// and `cancel()` on any copy is seen by all. A default-constructed token is a fresh flag that
// nobody else holds, so code that is never cancelled passes `{}`.
#include <atomic>
#include <memory>

namespace doppler {

class CancelToken {
 public:
  CancelToken() : flag_(std::make_shared<std::atomic<bool>>(false)) {}

  void cancel() const { flag_->store(true, std::memory_order_relaxed); }
  bool cancelled() const { return flag_->load(std::memory_order_relaxed); }
  // Two tokens are the same when they share their flag (the runner uses this to tell jobs apart).
  bool sameAs(const CancelToken& other) const { return flag_ == other.flag_; }

 private:
  std::shared_ptr<std::atomic<bool>> flag_;
};

}  // namespace doppler
