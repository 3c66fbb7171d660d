#include "app/studio/jobs/layout_job.h"

#include <algorithm>

namespace doppler::studio {

views::LayoutResultPtr LayoutCache::find(uint64_t hash) {
  std::lock_guard lock(mutex_);
  auto it = entries_.find(hash);
  if (it == entries_.end()) return nullptr;
  order_.erase(std::find(order_.begin(), order_.end(), hash));
  order_.push_back(hash);
  return it->second;
}

void LayoutCache::insert(views::LayoutResultPtr result) {
  std::lock_guard lock(mutex_);
  if (entries_.emplace(result->hash, result).second) order_.push_back(result->hash);
  while (order_.size() > kCapacity) {
    entries_.erase(order_.front());
    order_.pop_front();
  }
}

LayoutOutcome runLayout(LayoutCache& cache, const views::LayoutInput& input,
                        const CancelToken& cancel) {
  if (auto hit = cache.find(input.hash)) return {hit, true};
  auto result = std::make_shared<views::LayoutResult>(views::computeLayout(input, cancel));
  if (result->cancelled) return {};
  cache.insert(result);
  return {result, false};
}

}  // namespace doppler::studio
