#include "policy_cli.h"

#include <sstream>

#include "core/graph/input_error.h"
#include "sessions/from_core.h"

namespace doppler::cli {

std::string fmt(double x) {
  std::ostringstream s;
  s.precision(6);
  s << x;
  return s.str();
}

policy::Component parseComponent(const std::string& s, const char* option) {
  if (s == "learned") return policy::Component::Learned;
  if (s == "heuristic") return policy::Component::Heuristic;
  throw InputError("", option, "unknown value '" + s + "' (known: learned, heuristic)");
}

sessions::PlacementRecord decisionsRecord(const DataflowGraph& g, const policy::EpisodeResult& e) {
  sessions::PlacementRecord rec = sessions::placementRecord(g, e.assignment, e.order);
  rec.decisions.clear();
  for (size_t t = 0; t < e.steps.size(); ++t) {
    const policy::EpisodeStep& s = e.steps[t];
    sessions::Decision d;
    d.step = static_cast<int>(t);
    d.node = s.node;
    d.device = s.device;
    for (size_t j = 0; j < s.candidates.size(); ++j) {
      d.sel_candidates.emplace_back(s.candidates[j], s.sel_probs[j]);
      if (s.candidates[j] == s.node) d.sel_prob = s.sel_probs[j];
    }
    d.plc_probs.assign(s.plc_probs.begin(), s.plc_probs.end());
    if (s.device >= 0 && s.device < static_cast<int>(s.plc_probs.size()))
      d.plc_prob = s.plc_probs[s.device];
    rec.decisions.push_back(std::move(d));
  }
  return rec;
}

}  // namespace doppler::cli
