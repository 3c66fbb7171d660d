#include "app/studio/layout_worker.h"

#include <algorithm>

namespace doppler::studio {

void LayoutWorker::layout(std::shared_ptr<const views::LayoutInput> input) {
  if (!input) return;
  auto it = cache_.find(input->hash);
  if (it != cache_.end()) {
    order_.erase(std::find(order_.begin(), order_.end(), input->hash));
    order_.push_back(input->hash);
    Q_EMIT layoutReady(it->second, true);
    return;
  }
  auto result = std::make_shared<const views::LayoutResult>(views::computeLayout(*input));
  cache_[input->hash] = result;
  order_.push_back(input->hash);
  while (order_.size() > kCacheSize) {
    cache_.erase(order_.front());
    order_.pop_front();
  }
  Q_EMIT layoutReady(result, false);
}

}  // namespace doppler::studio
