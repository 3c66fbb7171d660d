#pragma once
// A policy checkpoint shared by every placement that uses it in a process: loaded on first use,
// kept for the process. Placements may run on any thread (the studio's placement worker, a
// benchmark's threads), so loading and the network's forward pass are serialised; the decisions
// and any search on them run unlocked.
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/train/loaded_policy.h"

namespace doppler::train {

class SharedPolicy {
 public:
  explicit SharedPolicy(std::string checkpoint) : checkpoint_(std::move(checkpoint)) {}

  const std::string& checkpoint() const { return checkpoint_; }
  // Reads the checkpoint unless it was read already (InputError when it cannot be): a placement
  // that keeps time calls this first, so the one-time load is not counted as its time.
  void load() {
    std::lock_guard lock(mutex_);
    loadLocked();
  }
  // The network's outputs for one graph (InputError when the checkpoint cannot be read).
  policy::PolicyScores scores(const policy::GraphFeatures& features) {
    std::lock_guard lock(mutex_);
    loadLocked();
    return policy_->scores(features);
  }

 private:
  void loadLocked() {
    if (!policy_) policy_ = openPolicy(checkpoint_);
  }

  const std::string checkpoint_;
  std::mutex mutex_;
  std::unique_ptr<LoadedPolicy> policy_;
};

}  // namespace doppler::train
