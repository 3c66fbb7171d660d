#pragma once
// Graph layout as a job for the runner's layout slot: results are cached by layout hash (the
// graph's structure, its label sizes and the direction), so reopening a graph or flipping
// between two costs no second Graphviz run. Only ever called on the layout slot's thread.
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>

#include "views/graph/graph_layout.h"

namespace doppler::studio {

struct LayoutOutcome {
  views::LayoutResultPtr result;  // null when the job was abandoned between phases
  bool cached = false;
};

class LayoutCache {
 public:
  static constexpr size_t kCapacity = 16;
  views::LayoutResultPtr find(uint64_t hash);
  void insert(views::LayoutResultPtr result);

 private:
  std::mutex mutex_;
  std::map<uint64_t, views::LayoutResultPtr> entries_;
  std::deque<uint64_t> order_;  // least recently used first
};

LayoutOutcome runLayout(LayoutCache& cache, const views::LayoutInput& input,
                        const CancelToken& cancel);

}  // namespace doppler::studio
