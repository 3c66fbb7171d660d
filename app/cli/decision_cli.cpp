#include "decision_cli.h"

#include <charconv>

#include "core/common/input_error.h"

namespace doppler::cli {

namespace {

bool parseIndex(const std::string& s, int& out) {
  const char* end = s.data() + s.size();
  const auto [p, ec] = std::from_chars(s.data(), end, out);
  return ec == std::errc() && p == end;
}

}  // namespace

std::vector<DecisionOverride> parseOverrides(const std::vector<std::string>& raw,
                                             const DataflowGraph& g, const DeviceSet& d) {
  std::vector<DecisionOverride> out;
  for (const std::string& text : raw) {
    const std::string where = "--override " + text;
    const size_t colon = text.find(':');
    const size_t eq = text.find('=', colon == std::string::npos ? 0 : colon);
    if (colon == std::string::npos || eq == std::string::npos)
      throw InputError("", where, "expected STEP:node=ID or STEP:device=D");
    DecisionOverride o;
    if (!parseIndex(text.substr(0, colon), o.step) || o.step < 0)
      throw InputError("", where, "the step must be a whole number from 0");
    const std::string what = text.substr(colon + 1, eq - colon - 1), value = text.substr(eq + 1);
    if (what == "node") {
      for (int v = 0; v < g.nodeCount() && o.node < 0; ++v)
        if (g.node(v).id == value) o.node = v;
      if (o.node < 0)
        throw InputError("", where, "graph " + g.name + " has no node '" + value + "'");
    } else if (what == "device") {
      if (!parseIndex(value, o.device)) {
        o.device = -1;
        for (int k = 0; k < d.size() && o.device < 0; ++k)
          if (d.devices[k].name == value) o.device = k;
        if (o.device < 0)
          throw InputError("", where, "device set " + d.name + " has no device '" + value + "'");
      } else if (o.device < 0 || o.device >= d.size()) {
        throw InputError("", where,
                         "no device " + value + ": the device set has " + std::to_string(d.size()) +
                             " (0 to " + std::to_string(d.size() - 1) + ")");
      }
    } else {
      throw InputError("", where, "'" + what + "' is neither node nor device");
    }
    out.push_back(o);
  }
  return out;
}

nlohmann::json decisionsJson(const DataflowGraph& g, const DecisionTrace& trace) {
  nlohmann::json out = nlohmann::json::array();
  for (size_t k = 0; k < trace.steps.size(); ++k) {
    const DecisionStep& s = trace.steps[k];
    nlohmann::json ready = nlohmann::json::array();
    for (const CandidateScore& c : s.ready)
      ready.push_back({{"node", g.node(c.node).id}, {"score", c.score}});
    nlohmann::json devices = nlohmann::json::array();
    for (const DeviceScore& x : s.devices) {
      nlohmann::json d = {{"device", x.device},
                          {"score", x.score},
                          {"est_start_us", x.est_start_us},
                          {"est_finish_us", x.est_finish_us}};
      if (x.join_us >= 0) d["join_us"] = x.join_us;
      devices.push_back(std::move(d));
    }
    nlohmann::json step = {{"step", k},
                           {"ready", std::move(ready)},
                           {"node", g.node(s.node).id},
                           {"devices", std::move(devices)},
                           {"device", s.device},
                           {"partial_makespan_us", s.partial_makespan_us}};
    if (s.node_overridden || s.device_overridden)
      step["overridden"] = s.node_overridden ? "node" : "device";
    if (s.node_overridden && s.device_overridden) step["overridden"] = "node and device";
    out.push_back(std::move(step));
  }
  return out;
}

nlohmann::json decisionScoresJson(const DecisionTrace& trace) {
  return {{"node", trace.node_score},
          {"node_higher_is_better", trace.node_higher_better},
          {"node_scored", trace.node_scored},
          {"node_ties", trace.node_tie_break},
          {"device", trace.device_score},
          {"device_higher_is_better", trace.device_higher_better},
          {"device_ties", trace.device_tie_break}};
}

}  // namespace doppler::cli
