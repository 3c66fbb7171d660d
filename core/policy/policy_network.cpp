// The dual policy's network (LibTorch): its layers and seeded initialisation, the per-episode
// outputs the plain C++ decisions run on (prepare), the batched recompute of an episode's
// log-probabilities that training differentiates, the compute threads, and the allocator
// settings of a process that places.
#include <dlfcn.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <limits>
#include <mutex>
#include <optional>

#include "core/common/random.h"
#include "core/policy/policy_impl.h"

namespace doppler::policy {

namespace {

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

}  // namespace

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
  plc_y = register_module("plc_y", Linear(c.device_features, c.device_hidden));
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

namespace {

// Each node's sum of h over its path's members (the (node, member) pairs). Gathering every
// member's row at once makes a block of members x hidden, megabytes on LLAMA-LAYER: most of the
// memory a placement touches beyond what loading the policy left free. In a fresh process each
// page touched for the first time costs a fault, about 15 us on the development VM, so without
// gradients the rows are gathered a chunk at a time, each chunk reusing the last one's memory
// (graphs with fewer members than a chunk keep the one gather). index_add adds the members in
// order either way, so the sums are bit for bit the same.
torch::Tensor pathSums(const torch::Tensor& h, const torch::Tensor& node,
                       const torch::Tensor& member, int64_t n) {
  constexpr int64_t kChunk = 1024;
  const int64_t m = member.size(0);
  torch::Tensor sums = torch::zeros({n, h.size(1)});
  if (torch::GradMode::is_enabled() || m <= kChunk)
    return sums.index_add(0, node, h.index_select(0, member));
  for (int64_t a = 0; a < m; a += kChunk) {
    const int64_t len = std::min(kChunk, m - a);
    sums.index_add_(0, node.narrow(0, a, len), h.index_select(0, member.narrow(0, a, len)));
  }
  return sums;
}

}  // namespace

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

  const torch::Tensor sb = pathSums(h, g.bnode, g.bmem, g.n) * g.path_norm;
  const torch::Tensor st = pathSums(h, g.tnode, g.tmem, g.n) * g.path_norm;
  const torch::Tensor selIn = torch::cat({m.sel_z(g.x), h, sb, st}, 1);
  p.sel_logits = m.sel2(torch::leaky_relu(m.sel1(selIn), kLeakySlope)).squeeze(1);

  const torch::Tensor w = m.plc1->weight;
  const torch::Tensor wz = w.narrow(1, dh, H), wh = w.narrow(1, dh + H, H),
                      ws = w.narrow(1, dh + 2 * H, H);
  p.plc_node = m.plc_z(g.x).matmul(wz.t()) + h.matmul(wh.t()) + m.plc1->bias;
  p.plc_member = h.matmul(ws.t()) * g.member_norm;

  p.sel = toVector(p.sel_logits);
  p.node = toVector(p.plc_node);
  p.member = toVector(p.plc_member);
  p.wy1 = toVector(m.plc_y->weight);
  p.df = m.cfg.device_features;
  p.by1 = toVector(m.plc_y->bias);
  p.wy = toVector(w.narrow(1, 0, dh));
  p.w2 = toVector(m.plc2->weight);
  return p;
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
    const torch::Tensor y =
        floatTensor(r.dev_x, {T, D, kDeviceFeatures}).narrow(2, 0, m.cfg.device_features);
    const torch::Tensor y1 = torch::leaky_relu(m.plc_y(y), kLeakySlope);
    const torch::Tensor hy = y1.matmul(m.plc1->weight.narrow(1, 0, dh).t());
    const torch::Tensor nodeTerm = p.plc_node.index_select(0, order).unsqueeze(1);
    const torch::Tensor rows = torch::arange(T, torch::kInt64) * D + devs;
    const torch::Tensor contrib = torch::zeros({T * D, hh})
                                      .index_add(0, rows, p.plc_member.index_select(0, order))
                                      .view({T, D, hh});
    const torch::Tensor before = contrib.cumsum(0) - contrib;
    torch::Tensor logits =
        m.plc2(torch::leaky_relu(hy + nodeTerm + before, kLeakySlope)).squeeze(-1);
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
  return widened(impl_->config.device_features);
}

Policy Policy::widened(int device_features) const {
  PolicyConfig c = impl_->config;
  if (device_features < c.device_features)
    throw std::invalid_argument("Policy::widened: cannot drop device features");
  c.device_features = device_features;
  Policy wide(c, 1);
  torch::NoGradGuard g;
  auto dst = wide.impl_->net->named_parameters();
  const auto src = impl_->net->named_parameters();
  for (auto& p : dst) {
    const torch::Tensor from = src[p.key()];
    if (p.value().sizes() == from.sizes()) {
      p.value().copy_(from);
    } else {  // plc_y's weight: the added columns are zero
      p.value().zero_();
      p.value().narrow(1, 0, from.size(1)).copy_(from);
    }
  }
  return wide;
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
  return runEpisode(scores(f), costs, f, options);
}

PolicyScores Policy::scores(const GraphFeatures& f) const {
  if (f.nodes == 0) return {};
  return prepare(impl_->net, toTensors(f), false);
}

std::vector<std::pair<std::string, std::vector<float>>> Policy::parameters() const {
  std::vector<std::pair<std::string, std::vector<float>>> out;
  for (const auto& np : impl_->net->named_parameters())
    out.emplace_back(np.key(), toVector(np.value()));
  return out;
}

// ---------------------------------------------------------------------------------------------
// Threads, BLAS and memory

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
