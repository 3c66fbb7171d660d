#include "core/heuristics/decision_trace.h"

#include <algorithm>

#include "core/common/input_error.h"
#include "core/common/numbered.h"

namespace doppler {

namespace {

std::string field(const DecisionOverride& o) {
  std::string f = "--override " + std::to_string(o.step) + ":";
  if (o.node >= 0) return f + "node";
  if (o.device >= 0) return f + "device";
  return f.substr(0, f.size() - 1);
}

}  // namespace

DecisionDriver::DecisionDriver(const DecisionControl* control, int nodes, int devices)
    : control_(control), record_(control != nullptr && control->record) {
  if (control == nullptr || control->overrides.empty()) return;
  nodeAt_.assign(nodes, -1);
  deviceAt_.assign(nodes, -1);
  for (const DecisionOverride& o : control->overrides) {
    const std::string where = field(o);
    if (o.step < 0 || o.step >= nodes)
      throw InputError("", where,
                       "step " + std::to_string(o.step) + " is out of range: the graph has " +
                           std::to_string(nodes) + " nodes, so steps run from 0 to " +
                           std::to_string(nodes - 1));
    if ((o.node >= 0) == (o.device >= 0))
      throw InputError("", where, "an override changes either the node or the device");
    if (o.node >= nodes)
      throw InputError("", where, "no node with index " + std::to_string(o.node));
    if (o.device >= devices)
      throw InputError("", where,
                       "no device " + std::to_string(o.device) + ": the device set has " +
                           std::to_string(devices) + " (0 to " + std::to_string(devices - 1) + ")");
    int& slot = o.node >= 0 ? nodeAt_[o.step] : deviceAt_[o.step];
    const int value = o.node >= 0 ? o.node : o.device;
    if (slot >= 0 && slot != value)
      throw InputError("", where, "step " + std::to_string(o.step) + " is overridden twice");
    slot = value;
    byStep_.push_back(o.step);
  }
  std::sort(byStep_.begin(), byStep_.end());
  byStep_.erase(std::unique(byStep_.begin(), byStep_.end()), byStep_.end());
}

std::string DecisionDriver::nodeName(int v) const {
  if (control_ && control_->graph && v >= 0 && v < control_->graph->nodeCount())
    return "'" + control_->graph->node(v).id + "'";
  return numbered("#", v);
}

int DecisionDriver::forcedNodePosition(int step, const std::vector<int>& ready) const {
  if (nodeAt_.empty() || nodeAt_[step] < 0) return -1;
  const int v = nodeAt_[step];
  const auto it = std::find(ready.begin(), ready.end(), v);
  if (it != ready.end()) return static_cast<int>(it - ready.begin());
  std::string list;
  const size_t shown = std::min<size_t>(ready.size(), 8);
  std::vector<int> sorted(ready.begin(), ready.end());
  std::sort(sorted.begin(), sorted.end());
  for (size_t j = 0; j < shown; ++j) list += (j ? ", " : "") + nodeName(sorted[j]);
  if (ready.size() > shown) list += ", ... (" + std::to_string(ready.size()) + " in all)";
  throw InputError("", "--override " + std::to_string(step) + ":node",
                   "node " + nodeName(v) + " is not ready at step " + std::to_string(step) +
                       " (ready: " + list + ")");
}

int DecisionDriver::forcedDevice(int step) const {
  return deviceAt_.empty() ? -1 : deviceAt_[step];
}

}  // namespace doppler
