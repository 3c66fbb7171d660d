// The dual policy's network, rollout and batched recompute (LibTorch), and its checkpoints.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <limits>
#include <optional>
#include <sstream>

#include "core/graph/input_error.h"
#include "core/heuristics/rng.h"
#include "core/policy/policy_impl.h"

namespace doppler::policy {

namespace {

constexpr const char* kFormat = "doppler-policy/1";
constexpr const char* kKind = "doppler-dual-policy";
// Bumped whenever the network's structure or its inputs change: older checkpoints are then
// refused as another architecture instead of loading into the wrong places.
// 2: program-order node features and PLC's sibling features (16 device features).
constexpr int kArchitectureVersion = 2;
constexpr float kSlope = 0.1f;  // LeakyReLU slope of the decoders

float leaky(float x) {
  return x > 0 ? x : kSlope * x;
}

std::vector<float> toVector(const torch::Tensor& t) {
  torch::Tensor c = t.detach().to(torch::kFloat32).contiguous();
  const float* p = c.data_ptr<float>();
  return std::vector<float>(p, p + c.numel());
}

torch::Tensor longTensor(const std::vector<int64_t>& v) {
  return torch::from_blob(const_cast<int64_t*>(v.data()), {static_cast<int64_t>(v.size())},
                          torch::kInt64)
      .clone();
}

torch::Tensor floatTensor(const std::vector<float>& v, std::vector<int64_t> shape) {
  return torch::from_blob(const_cast<float*>(v.data()), shape, torch::kFloat32).clone();
}

// Orthogonal initialisation (as the reference implementation), drawn from our own seeded
// generator and orthonormalised in plain C++ (modified Gram-Schmidt in double precision), so that
// a seeded policy's initial weights depend neither on LibTorch's global RNG nor on the BLAS or
// LAPACK build and thread count.
void orthogonal(torch::Tensor w, double gain, Rng& rng) {
  const int64_t rows = w.size(0), cols = w.numel() / rows;
  const int64_t big = std::max(rows, cols), small = std::min(rows, cols);
  // `small` orthonormal vectors of length `big`, row-major (vector j at q[j * big]).
  std::vector<double> q(static_cast<size_t>(big * small));
  for (auto& x : q) {
    const double u1 = 1.0 - rng.uniform(), u2 = rng.uniform();
    x = std::sqrt(-2.0 * std::log(u1)) * std::cos(2.0 * M_PI * u2);
  }
  for (int64_t j = 0; j < small; ++j) {
    double* vj = &q[static_cast<size_t>(j * big)];
    for (int64_t i = 0; i < j; ++i) {
      const double* vi = &q[static_cast<size_t>(i * big)];
      double dot = 0;
      for (int64_t k = 0; k < big; ++k) dot += vi[k] * vj[k];
      for (int64_t k = 0; k < big; ++k) vj[k] -= dot * vi[k];
    }
    double norm = 0;
    for (int64_t k = 0; k < big; ++k) norm += vj[k] * vj[k];
    norm = std::sqrt(norm);
    for (int64_t k = 0; k < big; ++k) vj[k] = norm > 0 ? vj[k] / norm : 0.0;
  }
  // rows >= cols: column c of W is vector c; otherwise row r of W is vector r.
  std::vector<float> out(static_cast<size_t>(rows * cols));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < cols; ++c)
      out[static_cast<size_t>(r * cols + c)] =
          static_cast<float>(gain * (rows >= cols ? q[static_cast<size_t>(c * big + r)]
                                                  : q[static_cast<size_t>(r * big + c)]));
  w.copy_(floatTensor(out, {rows, cols}).reshape(w.sizes()));
}

// Chooses among k options with probabilities prob (masked options have probability 0).
// The guide's device, or with probability `deviate` another allowed device drawn in proportion to
// PLC's probabilities (uniformly if they are all zero).
int guidedDevice(const float* prob, int k, const uint8_t* allowed, int guide, double deviate,
                 Rng& rng) {
  auto ok = [&](int j) { return (allowed == nullptr || allowed[j] != 0) && j != guide; };
  const bool guideOk = guide >= 0 && guide < k && (allowed == nullptr || allowed[guide] != 0);
  if (guideOk && !(deviate > 0 && rng.uniform() < deviate)) return guide;
  double z = 0;
  int count = 0;
  for (int j = 0; j < k; ++j)
    if (ok(j)) z += prob[j], ++count;
  if (count == 0) return guide;
  if (z > 0) {
    double u = rng.uniform() * z;
    int last = -1;
    for (int j = 0; j < k; ++j) {
      if (!ok(j)) continue;
      last = j;
      if ((u -= prob[j]) < 0) return j;
    }
    return last;
  }
  int pick = rng.below(count);
  for (int j = 0; j < k; ++j)
    if (ok(j) && pick-- == 0) return j;
  return guide;
}

int choose(const float* prob, int k, const uint8_t* allowed, DecisionMode mode, double eps,
           Rng& rng) {
  auto ok = [&](int j) { return allowed == nullptr || allowed[j] != 0; };
  if (eps > 0 && rng.uniform() < eps) {
    int count = 0;
    for (int j = 0; j < k; ++j) count += ok(j);
    int pick = rng.below(count);
    for (int j = 0; j < k; ++j)
      if (ok(j) && pick-- == 0) return j;
  }
  if (mode == DecisionMode::Sample) {
    double u = rng.uniform(), acc = 0;
    int last = -1;
    for (int j = 0; j < k; ++j) {
      if (!ok(j)) continue;
      last = j;
      acc += prob[j];
      if (u < acc) return j;
    }
    return last;  // rounding left u beyond the sum
  }
  int best = -1;
  for (int j = 0; j < k; ++j)
    if (ok(j) && (best < 0 || prob[j] > prob[best])) best = j;
  return best;
}

int argmax(const float* prob, int k) {
  int best = 0;
  for (int j = 1; j < k; ++j)
    if (prob[j] > prob[best]) best = j;
  return best;
}

}  // namespace

// ---------------------------------------------------------------------------------------------
// Configuration

nlohmann::json PolicyConfig::toJson() const {
  return {{"kind", kKind},
          {"version", kArchitectureVersion},
          {"node_features", kNodeFeatures},
          {"edge_features", kEdgeFeatures},
          {"device_features", kDeviceFeatures},
          {"hidden", hidden},
          {"mp_steps", mp_steps},
          {"edge_hidden", edge_hidden},
          {"head_hidden", head_hidden},
          {"device_hidden", device_hidden}};
}

PolicyConfig PolicyConfig::fromJson(const nlohmann::json& j) {
  auto num = [&](const char* key) -> int {
    if (!j.contains(key) || !j[key].is_number_integer())
      throw InputError("", std::string("architecture.") + key, "missing or not an integer");
    return j[key].get<int>();
  };
  if (!j.is_object() || j.value("kind", "") != kKind)
    throw InputError("", "architecture.kind", std::string("not a ") + kKind);
  const int version = num("version");
  if (version != kArchitectureVersion || num("node_features") != kNodeFeatures ||
      num("edge_features") != kEdgeFeatures || num("device_features") != kDeviceFeatures)
    throw InputError(
        "", "architecture",
        "another architecture: version " + std::to_string(version) + " with " +
            std::to_string(num("node_features")) + "/" + std::to_string(num("edge_features")) +
            "/" + std::to_string(num("device_features")) +
            " node/edge/device features; this build reads version " +
            std::to_string(kArchitectureVersion) + " with " + std::to_string(kNodeFeatures) + "/" +
            std::to_string(kEdgeFeatures) + "/" + std::to_string(kDeviceFeatures));
  PolicyConfig c;
  c.hidden = num("hidden");
  c.mp_steps = num("mp_steps");
  c.edge_hidden = num("edge_hidden");
  c.head_hidden = num("head_hidden");
  c.device_hidden = num("device_hidden");
  c.validate();
  return c;
}

void PolicyConfig::validate() const {
  auto check = [](int v, int lo, int hi, const char* name) {
    if (v < lo || v > hi)
      throw InputError("", name,
                       "must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                           ", got " + std::to_string(v));
  };
  check(hidden, 1, 4096, "hidden");
  check(mp_steps, 0, 64, "mp_steps");
  check(edge_hidden, 1, 4096, "edge_hidden");
  check(head_hidden, 1, 4096, "head_hidden");
  check(device_hidden, 1, 4096, "device_hidden");
}

std::string PolicyConfig::describe() const {
  return "hidden=" + std::to_string(hidden) + " mp_steps=" + std::to_string(mp_steps) +
         " edge_hidden=" + std::to_string(edge_hidden) +
         " head_hidden=" + std::to_string(head_hidden) +
         " device_hidden=" + std::to_string(device_hidden);
}

DecisionMode parseDecisionMode(const std::string& s) {
  if (s == "greedy") return DecisionMode::Greedy;
  if (s == "sample") return DecisionMode::Sample;
  if (s == "epsilon-greedy") return DecisionMode::EpsilonGreedy;
  throw InputError("", "decision mode",
                   "unknown mode '" + s + "' (known: greedy, sample, epsilon-greedy)");
}

const char* toString(DecisionMode m) {
  switch (m) {
    case DecisionMode::Greedy:
      return "greedy";
    case DecisionMode::Sample:
      return "sample";
    case DecisionMode::EpsilonGreedy:
      return "epsilon-greedy";
  }
  return "?";
}

// ---------------------------------------------------------------------------------------------
// Network

NetImpl::NetImpl(const PolicyConfig& c) : cfg(c) {
  using torch::nn::Linear;
  using torch::nn::LinearOptions;
  const int H = c.hidden;
  in_proj = register_module("in_proj", Linear(kNodeFeatures, H));
  edge1 = register_module("edge1", Linear(kEdgeFeatures, c.edge_hidden));
  edge2 = register_module("edge2", Linear(c.edge_hidden, 2 * H));
  msg = register_module("msg", Linear(LinearOptions(H, 2 * H).bias(false)));
  gru = register_module("gru", torch::nn::GRUCell(torch::nn::GRUCellOptions(H, H)));
  sel_z = register_module("sel_z", Linear(kNodeFeatures, H));
  sel1 = register_module("sel1", Linear(4 * H, c.head_hidden));
  // No bias on the output layers: a softmax is blind to a shift shared by every option.
  sel2 = register_module("sel2", Linear(LinearOptions(c.head_hidden, 1).bias(false)));
  plc_y = register_module("plc_y", Linear(kDeviceFeatures, c.device_hidden));
  plc_z = register_module("plc_z", Linear(kNodeFeatures, H));
  plc1 = register_module("plc1", Linear(c.device_hidden + 3 * H, c.head_hidden));
  plc2 = register_module("plc2", Linear(LinearOptions(c.head_hidden, 1).bias(false)));
}

GraphTensors toTensors(const GraphFeatures& f) {
  GraphTensors g;
  g.n = f.nodes;
  g.devices = f.devices;
  g.x = floatTensor(f.x, {f.nodes, kNodeFeatures});
  std::vector<int64_t> index(f.msg_src.size());
  for (size_t k = 0; k < index.size(); ++k) index[k] = f.msg_src[k] * 2 + f.msg_dir[k];
  g.msg_index = longTensor(index);
  g.msg_dst = longTensor(f.msg_dst);
  g.msg_x = floatTensor(f.msg_x, {static_cast<int64_t>(f.msg_src.size()), kEdgeFeatures});
  g.in_norm = floatTensor(f.in_norm, {f.nodes, 1});
  g.bnode = longTensor(f.bpath_node);
  g.bmem = longTensor(f.bpath_member);
  g.tnode = longTensor(f.tpath_node);
  g.tmem = longTensor(f.tpath_member);
  g.path_norm = f.path_norm;
  g.member_norm = f.member_norm;
  return g;
}

Prepared prepare(Net& net, const GraphTensors& g, bool grad) {
  std::optional<torch::NoGradGuard> noGrad;
  if (!grad) noGrad.emplace();
  NetImpl& m = *net;
  const int64_t H = m.cfg.hidden, dh = m.cfg.device_hidden;
  Prepared p;
  p.hh = m.cfg.head_hidden;
  p.dh = m.cfg.device_hidden;

  torch::Tensor h = torch::relu(m.in_proj(g.x));
  const torch::Tensor eg = m.edge2(torch::relu(m.edge1(g.msg_x)));
  const torch::Tensor gate = 1 + torch::tanh(eg.narrow(1, 0, H)), bias = eg.narrow(1, H, H);
  for (int k = 0; k < m.cfg.mp_steps; ++k) {
    const torch::Tensor proj = m.msg(h).reshape({g.n * 2, H});
    const torch::Tensor msgs = proj.index_select(0, g.msg_index) * gate + bias;
    const torch::Tensor agg = torch::zeros({g.n, H}).index_add(0, g.msg_dst, msgs) * g.in_norm;
    h = m.gru(torch::relu(agg), h);
  }

  const torch::Tensor sb =
      torch::zeros({g.n, H}).index_add(0, g.bnode, h.index_select(0, g.bmem)) * g.path_norm;
  const torch::Tensor st =
      torch::zeros({g.n, H}).index_add(0, g.tnode, h.index_select(0, g.tmem)) * g.path_norm;
  const torch::Tensor selIn = torch::cat({m.sel_z(g.x), h, sb, st}, 1);
  p.sel_logits = m.sel2(torch::leaky_relu(m.sel1(selIn), kSlope)).squeeze(1);

  const torch::Tensor w = m.plc1->weight;
  const torch::Tensor wz = w.narrow(1, dh, H), wh = w.narrow(1, dh + H, H),
                      ws = w.narrow(1, dh + 2 * H, H);
  p.plc_node = m.plc_z(g.x).matmul(wz.t()) + h.matmul(wh.t()) + m.plc1->bias;
  p.plc_member = h.matmul(ws.t()) * g.member_norm;

  p.sel = toVector(p.sel_logits);
  p.node = toVector(p.plc_node);
  p.member = toVector(p.plc_member);
  p.wy1 = toVector(m.plc_y->weight);
  p.by1 = toVector(m.plc_y->bias);
  p.wy = toVector(w.narrow(1, 0, dh));
  p.w2 = toVector(m.plc2->weight);
  return p;
}

// ---------------------------------------------------------------------------------------------
// Rollout: decisions in plain C++ from the prepared outputs

Rollout rollout(const Prepared& p, const CostTable& c, const GraphFeatures& f,
                const RolloutOptions& o) {
  const EpisodeOptions& eo = o.episode;
  const int n = c.nodes(), D = c.devices(), hh = p.hh, dh = p.dh;
  const bool masked = !eo.allowed.empty();
  if (masked && eo.allowed.size() != static_cast<size_t>(n) * D)
    throw InputError("", "allowed devices",
                     "mask has " + std::to_string(eo.allowed.size()) + " entries, expected " +
                         std::to_string(n) + " nodes x " + std::to_string(D) + " devices");
  const bool selLearned = eo.sel == Component::Learned;
  const bool plcLearned = eo.plc == Component::Learned;
  Rng rng(eo.seed);
  EpisodeState st(c, f);
  Rollout r;
  r.result.assignment.assign(n, -1);
  r.result.order.reserve(n);
  if (eo.record_probs) r.result.steps.reserve(n);
  if (o.keep_batch) {
    r.nodes.reserve(n);
    r.devices.reserve(n);
    r.dev_x.reserve(static_cast<size_t>(n) * D * kDeviceFeatures);
    if (masked) r.allowed.reserve(static_cast<size_t>(n) * D);
  }
  if (o.teacher_targets) r.tie_dev.reserve(static_cast<size_t>(n) * D);

  std::vector<double> est(D);
  std::vector<float> feat(static_cast<size_t>(D) * kDeviceFeatures),
      sums(static_cast<size_t>(D) * hh, 0.0f);
  std::vector<float> selp, plcp(D), y1(dh);
  std::vector<int> ties, devTies;
  const float inf = std::numeric_limits<float>::infinity();

  for (int t = 0; t < n; ++t) {
    const std::vector<int>& ready = st.ready();
    const int R = static_cast<int>(ready.size());
    const bool followTeacher = o.teacher_mix > 0 && rng.uniform() < o.teacher_mix;

    // SEL: softmax of the static logits over the ready set.
    selp.assign(R, 0.0f);
    int pos;
    if (selLearned) {
      float mx = -inf;
      for (int j = 0; j < R; ++j) mx = std::max(mx, p.sel[ready[j]]);
      double z = 0;
      for (int j = 0; j < R; ++j) z += selp[j] = std::exp(p.sel[ready[j]] - mx);
      for (int j = 0; j < R; ++j) selp[j] = static_cast<float>(selp[j] / z);
      pos = choose(selp.data(), R, nullptr, eo.mode, eo.epsilon, rng);
      if (o.keep_batch)
        for (int j = 0; j < R; ++j) r.cand.push_back(ready[j]), r.cand_step.push_back(t);
    } else {
      pos = st.teacherNodePosition();
      selp[pos] = 1.0f;
    }
    bool selOk = true;
    if (o.teacher_targets) {
      st.teacherNodes(ties);
      for (int j : ties) r.tie_cand.push_back(ready[j]), r.tie_step.push_back(t);
      const int g = selLearned ? argmax(selp.data(), R) : pos;
      selOk = std::find(ties.begin(), ties.end(), g) != ties.end();
    }
    if (followTeacher) pos = st.teacherNodePosition();
    const int v = ready[pos];
    if (eo.record_probs) {
      EpisodeStep step;
      step.node = v;
      step.candidates = ready;
      step.sel_probs = selp;
      r.result.steps.push_back(std::move(step));
    }

    // PLC: per-device features, scored by the device MLP on top of the node and member terms.
    st.earliestStarts(v, est.data());
    const uint8_t* allow = masked ? &eo.allowed[static_cast<size_t>(v) * D] : nullptr;
    if (allow && std::none_of(allow, allow + D, [](uint8_t a) { return a != 0; }))
      throw InputError("", "allowed devices",
                       "node " + std::to_string(v) + " has no allowed device");
    int dev;
    if (plcLearned) {
      st.deviceFeatures(v, est.data(), feat.data());
      float mx = -inf;
      for (int d = 0; d < D; ++d) {
        if (allow && !allow[d]) {
          plcp[d] = -inf;
          continue;
        }
        const float* fd = feat.data() + static_cast<size_t>(d) * kDeviceFeatures;
        for (int i = 0; i < dh; ++i) {
          float a = p.by1[i];
          const float* wrow = p.wy1.data() + static_cast<size_t>(i) * kDeviceFeatures;
          for (int k = 0; k < kDeviceFeatures; ++k) a += wrow[k] * fd[k];
          y1[i] = leaky(a);
        }
        float logit = 0;
        const float* nodeRow = p.node.data() + static_cast<size_t>(v) * hh;
        const float* sumRow = sums.data() + static_cast<size_t>(d) * hh;
        for (int j = 0; j < hh; ++j) {
          float a = nodeRow[j] + sumRow[j];
          const float* wrow = p.wy.data() + static_cast<size_t>(j) * dh;
          for (int i = 0; i < dh; ++i) a += wrow[i] * y1[i];
          logit += p.w2[j] * leaky(a);
        }
        plcp[d] = logit;
        mx = std::max(mx, logit);
      }
      double z = 0;
      for (int d = 0; d < D; ++d) {
        plcp[d] = (allow && !allow[d]) ? 0.0f : std::exp(plcp[d] - mx);
        z += plcp[d];
      }
      for (int d = 0; d < D; ++d) plcp[d] = static_cast<float>(plcp[d] / z);
      dev = o.guide ? guidedDevice(plcp.data(), D, allow, (*o.guide)[v], o.guide_deviate, rng)
                    : choose(plcp.data(), D, allow, eo.mode, eo.epsilon, rng);
    } else {
      dev = st.teacherDevice(v, est.data(), allow);
      std::fill(plcp.begin(), plcp.end(), 0.0f);
      plcp[dev] = 1.0f;
    }
    if (o.teacher_targets) {
      st.teacherDevices(est.data(), allow, devTies);
      for (int d = 0; d < D; ++d) r.tie_dev.push_back(0);
      for (int d : devTies) r.tie_dev[static_cast<size_t>(t) * D + d] = 1;
      int g = dev;
      if (plcLearned) {
        g = -1;
        for (int d = 0; d < D; ++d)
          if ((!allow || allow[d]) && (g < 0 || plcp[d] > plcp[g])) g = d;
      }
      const bool plcOk = std::find(devTies.begin(), devTies.end(), g) != devTies.end();
      r.sel_agree += selOk;
      r.plc_agree += plcOk;
      r.both_agree += selOk && plcOk;
    }
    if (followTeacher) dev = st.teacherDevice(v, est.data(), allow);
    if (eo.record_probs) {
      r.result.steps.back().device = dev;
      r.result.steps.back().plc_probs = plcp;
    }
    if (o.keep_batch) {
      r.nodes.push_back(v);
      r.devices.push_back(dev);
      if (plcLearned) {
        r.dev_x.insert(r.dev_x.end(), feat.begin(), feat.end());
        if (masked) r.allowed.insert(r.allowed.end(), allow, allow + D);
      }
    }
    st.place(pos, dev, est[dev]);
    r.result.assignment[v] = dev;
    r.result.order.push_back(v);
    if (plcLearned) {
      const float* mem = p.member.data() + static_cast<size_t>(v) * hh;
      float* s = sums.data() + static_cast<size_t>(dev) * hh;
      for (int j = 0; j < hh; ++j) s[j] += mem[j];
    }
  }
  r.result.planned_makespan_us = st.plan().schedule().makespan_us;
  return r;
}

Rollout replay(const CostTable& c, const GraphFeatures& f, const std::vector<int>& order,
               const Assignment& assignment, const EpisodeOptions& eo) {
  const int n = c.nodes(), D = c.devices();
  if (static_cast<int>(order.size()) != n || static_cast<int>(assignment.size()) != n)
    throw std::invalid_argument("replay: the order or the assignment does not cover the graph");
  const bool masked = !eo.allowed.empty();
  EpisodeState st(c, f);
  Rollout r;
  r.result.assignment.assign(n, -1);
  std::vector<double> est(D);
  std::vector<float> feat(static_cast<size_t>(D) * kDeviceFeatures);
  for (int t = 0; t < n; ++t) {
    const int v = order[t], dev = assignment[v];
    const std::vector<int>& ready = st.ready();
    const auto it = std::find(ready.begin(), ready.end(), v);
    if (it == ready.end() || dev < 0 || dev >= D)
      throw std::invalid_argument("replay: step " + std::to_string(t) + " is not a valid decision");
    if (eo.sel == Component::Learned)
      for (int u : ready) r.cand.push_back(u), r.cand_step.push_back(t);
    st.earliestStarts(v, est.data());
    if (eo.plc == Component::Learned) {
      st.deviceFeatures(v, est.data(), feat.data());
      r.dev_x.insert(r.dev_x.end(), feat.begin(), feat.end());
      if (masked) {
        const uint8_t* allow = &eo.allowed[static_cast<size_t>(v) * D];
        r.allowed.insert(r.allowed.end(), allow, allow + D);
      }
    }
    r.nodes.push_back(v);
    r.devices.push_back(dev);
    st.place(static_cast<int>(it - ready.begin()), dev, est[dev]);
    r.result.assignment[v] = dev;
    r.result.order.push_back(v);
  }
  r.result.planned_makespan_us = st.plan().schedule().makespan_us;
  return r;
}

// ---------------------------------------------------------------------------------------------
// Batched recompute of an episode's log-probabilities and entropies

StepTerms recompute(Net& net, const Prepared& p, const Rollout& r, int D, bool targets) {
  NetImpl& m = *net;
  const int64_t T = static_cast<int64_t>(r.nodes.size());
  StepTerms s;
  const torch::Tensor zeros = torch::zeros({T});
  const torch::Tensor order = longTensor(r.nodes), devs = longTensor(r.devices);
  // Per step, the largest candidate logit (a constant shift that keeps exp() in range).
  std::vector<float> shiftv(static_cast<size_t>(T), 0.0f);
  std::vector<char> seen(static_cast<size_t>(T), 0);
  for (size_t k = 0; k < r.cand.size(); ++k) {
    const int64_t t = r.cand_step[k];
    const float l = p.sel[r.cand[k]];
    if (!seen[t] || l > shiftv[t]) shiftv[t] = l, seen[t] = 1;
  }
  const torch::Tensor shift = floatTensor(shiftv, {T});

  // SEL over the ragged ready sets: per-step log-sum-exp through index_add.
  if (!r.cand.empty()) {
    const torch::Tensor cand = longTensor(r.cand), step = longTensor(r.cand_step);
    const torch::Tensor lc = p.sel_logits.index_select(0, cand);
    const torch::Tensor ex = (lc - shift.index_select(0, step)).exp();
    const torch::Tensor z = zeros.index_add(0, step, ex);
    const torch::Tensor lse = z.log() + shift;
    s.sel_logp = p.sel_logits.index_select(0, order) - lse;
    s.sel_entropy = lse - zeros.index_add(0, step, ex / z.index_select(0, step) * lc);
    if (targets && !r.tie_cand.empty()) {
      const torch::Tensor tc = longTensor(r.tie_cand), ts = longTensor(r.tie_step);
      const torch::Tensor et = (p.sel_logits.index_select(0, tc) - shift.index_select(0, ts)).exp();
      s.sel_target = zeros.index_add(0, ts, et).log() + shift - lse;
    }
  } else {
    s.sel_logp = s.sel_entropy = zeros;
    if (targets) s.sel_target = zeros;
  }

  // PLC: device embeddings, node terms, and each device's summed member terms before the step
  // (an exclusive cumulative sum over the steps).
  if (!r.dev_x.empty()) {
    const int64_t hh = p.hh, dh = p.dh;
    const torch::Tensor y = floatTensor(r.dev_x, {T, D, kDeviceFeatures});
    const torch::Tensor y1 = torch::leaky_relu(m.plc_y(y), kSlope);
    const torch::Tensor hy = y1.matmul(m.plc1->weight.narrow(1, 0, dh).t());
    const torch::Tensor nodeTerm = p.plc_node.index_select(0, order).unsqueeze(1);
    const torch::Tensor rows = torch::arange(T, torch::kInt64) * D + devs;
    const torch::Tensor contrib = torch::zeros({T * D, hh})
                                      .index_add(0, rows, p.plc_member.index_select(0, order))
                                      .view({T, D, hh});
    const torch::Tensor before = contrib.cumsum(0) - contrib;
    torch::Tensor logits = m.plc2(torch::leaky_relu(hy + nodeTerm + before, kSlope)).squeeze(-1);
    torch::Tensor mask;
    if (!r.allowed.empty()) {
      mask = torch::from_blob(const_cast<uint8_t*>(r.allowed.data()), {T, D}, torch::kUInt8)
                 .to(torch::kBool);
      logits = logits.masked_fill(mask.logical_not(), -std::numeric_limits<float>::infinity());
    }
    const torch::Tensor logp = torch::log_softmax(logits, 1);
    s.plc_log_probs = logp;
    s.plc_logp = logp.gather(1, devs.unsqueeze(1)).squeeze(1);
    const torch::Tensor safe = mask.defined() ? logp.masked_fill(mask.logical_not(), 0) : logp;
    s.plc_entropy = -(safe.exp() * safe).sum(1);
    if (targets) {
      const torch::Tensor tie =
          torch::from_blob(const_cast<uint8_t*>(r.tie_dev.data()), {T, D}, torch::kUInt8)
              .to(torch::kBool);
      s.plc_target = torch::logsumexp(
          logp.masked_fill(tie.logical_not(), -std::numeric_limits<float>::infinity()), 1);
    }
  } else {
    s.plc_logp = s.plc_entropy = zeros;
    if (targets) s.plc_target = zeros;
  }
  return s;
}

// ---------------------------------------------------------------------------------------------
// Policy

namespace {

void initialise(NetImpl& m, uint64_t seed) {
  torch::NoGradGuard g;
  Rng rng(seed ^ 0x5eed5eed5eedULL);
  for (auto& np : m.named_parameters()) {
    torch::Tensor t = np.value();
    const std::string& name = np.key();
    if (t.dim() < 2) {
      t.zero_();
      continue;
    }
    // Near-uniform initial decisions: the output layers start small.
    const double gain = (name.rfind("sel2.", 0) == 0 || name.rfind("plc2.", 0) == 0) ? 0.01 : 1.0;
    orthogonal(t, gain, rng);
  }
}

}  // namespace

Policy::Policy(const PolicyConfig& config, uint64_t seed) : impl_(std::make_unique<Impl>()) {
  config.validate();
  impl_->config = config;
  impl_->net = Net(config);
  initialise(*impl_->net, seed);
}

Policy::Policy(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
Policy::~Policy() = default;
Policy::Policy(Policy&&) noexcept = default;
Policy& Policy::operator=(Policy&&) noexcept = default;

Policy Policy::clone() const {
  Policy copy(impl_->config, 1);
  torch::NoGradGuard g;
  auto dst = copy.impl_->net->parameters();
  auto src = impl_->net->parameters();
  for (size_t i = 0; i < dst.size(); ++i) dst[i].copy_(src[i]);
  return copy;
}

const PolicyConfig& Policy::config() const {
  return impl_->config;
}

int64_t Policy::parameterCount() const {
  int64_t n = 0;
  for (const auto& t : impl_->net->parameters()) n += t.numel();
  return n;
}

EpisodeResult Policy::run(const CostTable& costs, const EpisodeOptions& options) const {
  const GraphFeatures f = graphFeatures(costs);
  return run(costs, f, options);
}

EpisodeResult Policy::run(const CostTable& costs, const GraphFeatures& f,
                          const EpisodeOptions& options) const {
  if (costs.nodes() == 0) return {};
  const GraphTensors g = toTensors(f);
  const Prepared p = prepare(impl_->net, g, false);
  RolloutOptions o;
  o.episode = options;
  return rollout(p, costs, f, o).result;
}

std::vector<std::pair<std::string, std::vector<float>>> Policy::parameters() const {
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (const auto& np : impl_->net->named_parameters())
    out.emplace_back(np.key(), toVector(np.value()));
  return out;
}

void Policy::save(const std::string& path, const nlohmann::json& meta) const {
  writeCheckpoint(path, *impl_, meta, nullptr);
}

Policy Policy::load(const std::string& path, nlohmann::json* meta) {
  PolicyConfig cfg;
  readCheckpoint(path, &cfg, nullptr, nullptr);
  Policy p(cfg, 1);
  nlohmann::json m = readCheckpoint(path, nullptr, p.impl_.get(), nullptr);
  if (meta) *meta = std::move(m);
  return p;
}

void Policy::loadWeights(const std::string& path, nlohmann::json* meta) {
  nlohmann::json m = readCheckpoint(path, nullptr, impl_.get(), nullptr);
  if (meta) *meta = std::move(m);
}

nlohmann::json Policy::readMeta(const std::string& path, PolicyConfig* config) {
  return readCheckpoint(path, config, nullptr, nullptr);
}

// ---------------------------------------------------------------------------------------------
// Checkpoints

namespace {
// "t0", "t1", ... (built without operator+, which trips GCC 12's -Wrestrict false positive).
std::string extraKey(size_t i) {
  std::string key = std::to_string(i);
  key.insert(key.begin(), 't');
  return key;
}
}  // namespace

void writeCheckpoint(const std::string& path, const Policy::Impl& impl, const nlohmann::json& meta,
                     torch::optim::Optimizer* optimizer, const std::vector<torch::Tensor>* extra) {
  torch::serialize::OutputArchive archive;
  archive.write("doppler_format", c10::IValue(std::string(kFormat)));
  archive.write("architecture", c10::IValue(impl.config.toJson().dump()));
  archive.write("meta", c10::IValue(meta.dump()));
  torch::serialize::OutputArchive model;
  impl.net->save(model);
  archive.write("model", model);
  if (optimizer) {
    torch::serialize::OutputArchive opt;
    optimizer->save(opt);
    archive.write("optimizer", opt);
  }
  if (extra && !extra->empty()) {
    torch::serialize::OutputArchive more;
    for (size_t i = 0; i < extra->size(); ++i) more.write(extraKey(i), (*extra)[i]);
    archive.write("extra", more);
  }
  const std::string tmp = path + ".tmp";
  try {
    archive.save_to(tmp);
  } catch (const c10::Error& e) {
    throw InputError(path, "",
                     "cannot write the checkpoint: " + std::string(e.what_without_backtrace()));
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) throw InputError(path, "", "cannot write the checkpoint: " + ec.message());
}

nlohmann::json readCheckpoint(const std::string& path, PolicyConfig* config, Policy::Impl* impl,
                              torch::optim::Optimizer* optimizer, bool* had_optimizer,
                              std::vector<torch::Tensor>* extra) {
  if (!std::filesystem::is_regular_file(path))
    throw InputError(path, "", "no such checkpoint file");
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(path);
  } catch (const c10::Error&) {
    throw InputError(path, "", "not a Doppler policy checkpoint (not a LibTorch archive)");
  }
  c10::IValue v;
  if (!archive.try_read("doppler_format", v) || !v.isString())
    throw InputError(path, "", "not a Doppler policy checkpoint (no doppler_format entry)");
  if (v.toStringRef() != kFormat)
    throw InputError(
        path, "doppler_format",
        "unsupported checkpoint format '" + v.toStringRef() + "' (expected " + kFormat + ")");
  PolicyConfig stored;
  nlohmann::json meta;
  try {
    archive.read("architecture", v);
    stored = PolicyConfig::fromJson(nlohmann::json::parse(v.toStringRef()));
    archive.read("meta", v);
    meta = nlohmann::json::parse(v.toStringRef());
  } catch (const InputError& e) {
    throw e.inFile(path);
  } catch (const std::exception& e) {
    throw InputError(path, "architecture", std::string("damaged checkpoint: ") + e.what());
  }
  if (config) *config = stored;
  if (impl) {
    if (!(impl->config == stored))
      throw InputError(path, "architecture",
                       "checkpoint holds a policy of another architecture (" + stored.describe() +
                           "); this policy is " + impl->config.describe());
    std::vector<std::vector<int64_t>> shapes;
    for (const auto& t : impl->net->parameters()) shapes.push_back(t.sizes().vec());
    try {
      torch::serialize::InputArchive model;
      archive.read("model", model);
      impl->net->load(model);
    } catch (const c10::Error& e) {
      throw InputError(path, "model",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
    auto params = impl->net->parameters();
    for (size_t i = 0; i < params.size(); ++i)
      if (params[i].sizes().vec() != shapes[i])
        throw InputError(path, "model", "parameter shapes do not match the stored architecture");
  }
  if (had_optimizer) *had_optimizer = false;
  if (optimizer) {
    torch::serialize::InputArchive opt;
    bool has = false;
    try {
      has = archive.try_read("optimizer", opt);
      if (has) optimizer->load(opt);
    } catch (const c10::Error& e) {
      throw InputError(path, "optimizer",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
    if (had_optimizer) *had_optimizer = has;
  }
  if (extra) {
    extra->clear();
    torch::serialize::InputArchive more;
    try {
      if (archive.try_read("extra", more)) {
        torch::Tensor t;
        for (size_t i = 0; more.try_read(extraKey(i), t); ++i) {
          extra->push_back(t.clone());
          t = torch::Tensor();
        }
      }
    } catch (const c10::Error& e) {
      throw InputError(path, "extra",
                       "damaged checkpoint: " + std::string(e.what_without_backtrace()));
    }
  }
  return meta;
}

// ---------------------------------------------------------------------------------------------
// Threads and BLAS

void setComputeThreads(int threads) {
  if (threads <= 0) return;
  at::set_num_threads(threads);
  using SetThreads = void (*)(int);
  if (auto fn = reinterpret_cast<SetThreads>(dlsym(RTLD_DEFAULT, "openblas_set_num_threads")))
    fn(threads);
}

std::string loadedBlasLibrary() {
  {
    torch::NoGradGuard g;
    const torch::Tensor a = torch::ones({64, 64});
    volatile float sink = a.matmul(a).sum().item<float>();
    (void)sink;
  }
  std::ifstream maps("/proc/self/maps");
  std::string line, any;
  while (std::getline(maps, line)) {
    const auto slash = line.find('/');
    if (slash == std::string::npos) continue;
    const std::string file = line.substr(slash);
    const std::string base = file.substr(file.rfind('/') + 1);
    if (base.find("blas") == std::string::npos) continue;
    if (file.find("openblas") != std::string::npos) return file;
    if (any.empty()) any = file;
  }
  return any;
}

}  // namespace doppler::policy
