// Simple baselines: round-robin, random, load-balance, single-device. None builds a planned
// schedule; each assigns nodes in topological order (Placement::order).
#include <limits>

#include "core/common/input_error.h"
#include "core/common/random.h"
#include "core/heuristics/builtin_methods.h"

namespace doppler {

namespace {

class RoundRobin : public Method {
 public:
  std::string name() const override { return "round-robin"; }
  std::string description() const override {
    return "Nodes in topological order, the i-th on device i mod D";
  }
  Placement place(const PlaceContext& ctx, const Params&) const override {
    const auto& topo = ctx.costs.topoOrder();
    Placement p;
    p.assignment.assign(ctx.costs.nodes(), 0);
    for (size_t i = 0; i < topo.size(); ++i)
      p.assignment[topo[i]] = static_cast<int>(i % ctx.costs.devices());
    p.order = topo;
    return p;
  }
};

class RandomMethod : public Method {
 public:
  std::string name() const override { return "random"; }
  std::string description() const override {
    return "Every node on a uniformly random device (seeded)";
  }
  Placement place(const PlaceContext& ctx, const Params&) const override {
    Rng rng(ctx.seed);
    Placement p;
    p.assignment.assign(ctx.costs.nodes(), 0);
    for (const int v : ctx.costs.topoOrder()) p.assignment[v] = rng.below(ctx.costs.devices());
    p.order = ctx.costs.topoOrder();
    return p;
  }
};

class LoadBalance : public Method {
 public:
  std::string name() const override { return "load-balance"; }
  std::string description() const override {
    return "Nodes in topological order, each on the device whose load (total compute, or node "
           "count) would be smallest with it";
  }
  std::vector<ParamSpec> params() const override {
    return {{"weight",
             ParamSpec::Type::Choice,
             "compute",
             0,
             0,
             {"compute", "count"},
             "What load means: the compute time assigned so far, or the number of nodes"}};
  }
  Placement place(const PlaceContext& ctx, const Params& params) const override {
    const bool byCount = params.choice("weight") == "count";
    const CostTable& c = ctx.costs;
    std::vector<double> load(c.devices(), 0.0);
    Placement p;
    p.assignment.assign(c.nodes(), 0);
    for (const int v : c.topoOrder()) {
      int best = 0;
      double bestLoad = std::numeric_limits<double>::infinity();
      for (int d = 0; d < c.devices(); ++d) {
        // The load after adding v: on identical devices the same as the least loaded device;
        // on mixed devices it prefers the device that runs v faster.
        const double l = load[d] + (byCount ? 1.0 : c.compute(v, d));
        if (l < bestLoad) {
          bestLoad = l;
          best = d;
        }
      }
      load[best] = bestLoad;
      p.assignment[v] = best;
    }
    p.order = c.topoOrder();
    return p;
  }
};

class SingleDevice : public Method {
 public:
  std::string name() const override { return "single-device"; }
  std::string description() const override {
    return "Every node on one device (no transfers at all)";
  }
  std::vector<ParamSpec> params() const override {
    return {{"device", ParamSpec::Type::Integer, "0", 0, 4095, {}, "The device index"}};
  }
  Placement place(const PlaceContext& ctx, const Params& params) const override {
    const long dev = params.integer("device");
    if (dev >= ctx.costs.devices())
      throw InputError("", "--param device",
                       "device " + std::to_string(dev) + " does not exist: the device set has " +
                           std::to_string(ctx.costs.devices()) + " devices (0.." +
                           std::to_string(ctx.costs.devices() - 1) + ")");
    Placement p;
    p.assignment.assign(ctx.costs.nodes(), static_cast<int>(dev));
    p.order = ctx.costs.topoOrder();
    return p;
  }
};

}  // namespace

namespace builtin {
std::unique_ptr<Method> roundRobin() {
  return std::make_unique<RoundRobin>();
}
std::unique_ptr<Method> random() {
  return std::make_unique<RandomMethod>();
}
std::unique_ptr<Method> loadBalance() {
  return std::make_unique<LoadBalance>();
}
std::unique_ptr<Method> singleDevice() {
  return std::make_unique<SingleDevice>();
}
}  // namespace builtin

}  // namespace doppler
