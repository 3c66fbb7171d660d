// The place-and-simulate pipeline: the same numbers as running a method and the simulator by
// hand, cancellation keeps the best assignment found, bad settings are InputErrors naming the
// field.
#include "core/pipeline/place_and_simulate.h"

#include <gtest/gtest.h>

#include "core/common/input_error.h"
#include "core/graph/device_presets.h"
#include "core/graph/generators.h"
#include "core/sim/lower_bound.h"

namespace doppler {
namespace {

void expectSameSchedule(const Schedule& a, const Schedule& b) {
  EXPECT_EQ(a.makespan_us, b.makespan_us);
  ASSERT_EQ(a.nodes.size(), b.nodes.size());
  for (size_t v = 0; v < a.nodes.size(); ++v) {
    EXPECT_EQ(a.nodes[v].device, b.nodes[v].device) << "node " << v;
    EXPECT_EQ(a.nodes[v].start_us, b.nodes[v].start_us) << "node " << v;
    EXPECT_EQ(a.nodes[v].finish_us, b.nodes[v].finish_us) << "node " << v;
  }
  EXPECT_EQ(a.transfers.size(), b.transfers.size());
}

PlaceRequest requestFor(const DataflowGraph& graph, const DeviceSet& devices) {
  PlaceRequest request;
  request.graph = &graph;
  request.devices = &devices;
  return request;
}

// The settings of every case below, each a different method and simulator setting.
std::vector<PlaceSettings> someSettings() {
  std::vector<PlaceSettings> out;
  PlaceSettings cp;
  out.push_back(cp);
  PlaceSettings heft;
  heft.method = "heft";
  heft.cost_model = CostModel::Links;
  out.push_back(heft);
  PlaceSettings random;
  random.method = "random";
  random.seed = 7;
  random.noise = 0.1;
  out.push_back(random);
  PlaceSettings search;
  search.method = "local-search";
  search.params = {{"start", "heft"}, {"restarts", "2"}};
  search.budget = 300;
  search.seed = 3;
  out.push_back(search);
  return out;
}

TEST(PlaceAndSimulate, GivesWhatTheMethodAndTheSimulatorGiveByHand) {
  const DataflowGraph graph = generateGraph("llama-block");
  const DeviceSet devices = devicePreset("4xP100-PCIe");
  const CostTable costs(graph, devices);
  for (const PlaceSettings& settings : someSettings()) {
    SCOPED_TRACE(settings.method);
    const Method& method = findMethod(settings.method);
    const Params params(method.params(), settings.params);
    SimOptions sim;
    sim.model = settings.cost_model;
    sim.noise = settings.noise;
    sim.seed = settings.seed;
    const PlaceContext context{costs, sim, settings.seed, settings.budget, {}, {}};
    const Placement byHand = method.place(context, params);
    const SimResult simulated = Simulator(costs, sim).run(byHand.assignment);

    PlaceRequest request = requestFor(graph, devices);
    request.settings = settings;
    const PlaceOutcome outcome = placeAndSimulate(request);
    EXPECT_EQ(outcome.placement.assignment, byHand.assignment);
    EXPECT_EQ(outcome.placement.order, byHand.order);
    EXPECT_EQ(outcome.placement.evaluations, byHand.evaluations);
    EXPECT_FALSE(outcome.placement.cancelled);
    ASSERT_EQ(outcome.placement.planned.has_value(), byHand.planned.has_value());
    if (byHand.planned) expectSameSchedule(*outcome.placement.planned, *byHand.planned);
    expectSameSchedule(outcome.sim.schedule, simulated.schedule);
    EXPECT_EQ(outcome.sim.utilization, simulated.utilization);
    EXPECT_EQ(outcome.makespan(), simulated.schedule.makespan_us);
    EXPECT_EQ(outcome.lower_bound_us, lowerBound(costs).value());
    EXPECT_EQ(outcome.resolved_params, params.values());
    EXPECT_GE(outcome.compute_ms, 0);

    // A cost table built once by the caller changes nothing.
    request.costs = &costs;
    const PlaceOutcome prebuilt = placeAndSimulate(request);
    EXPECT_EQ(prebuilt.placement.assignment, outcome.placement.assignment);
    EXPECT_EQ(prebuilt.makespan(), outcome.makespan());
  }
}

TEST(PlaceAndSimulate, SimulatesAGivenAssignmentAsIs) {
  const DataflowGraph graph = generateGraph("chainmm");
  const DeviceSet devices = DeviceSet::uniform(3);
  const CostTable costs(graph, devices);
  Assignment given(graph.nodeCount());
  for (int v = 0; v < graph.nodeCount(); ++v) given[v] = v % 3;
  PlaceRequest request = requestFor(graph, devices);
  request.settings.method = "no such method";  // not used with a given assignment
  request.settings.cost_model = CostModel::Links;
  request.given = given;
  const PlaceOutcome outcome = placeAndSimulate(request);
  EXPECT_EQ(outcome.placement.assignment, given);
  EXPECT_EQ(outcome.placement.evaluations, 0);
  EXPECT_FALSE(outcome.placement.planned);
  SimOptions links;
  links.model = CostModel::Links;
  EXPECT_EQ(outcome.makespan(), Simulator(costs, links).makespan(given));

  given[0] = 3;  // no such device
  request.given = given;
  EXPECT_THROW(placeAndSimulate(request), InputError);
}

TEST(PlaceAndSimulate, CancelledSearchReturnsItsBestSoFarMarkedCancelled) {
  const DataflowGraph graph = generateGraph("llama-layer");
  const DeviceSet devices = DeviceSet::uniform(4);
  PlaceRequest request = requestFor(graph, devices);
  request.settings.method = "local-search";
  request.settings.budget = 10'000'000;
  long reports = 0;
  double lastBest = 0;
  request.progress = [&](const Progress& progress) {
    lastBest = progress.best_makespan_us;
    if (++reports == 3) request.cancel.cancel();
  };
  const PlaceOutcome outcome = placeAndSimulate(request);
  EXPECT_TRUE(outcome.placement.cancelled);
  EXPECT_GT(outcome.placement.evaluations, 1);
  EXPECT_LT(outcome.placement.evaluations, request.settings.budget);
  // The best assignment seen, simulated: no worse than the start (the critical-path schedule).
  EXPECT_EQ(outcome.makespan(), lastBest);
  PlaceRequest start = request;
  start.settings = PlaceSettings{};
  start.progress = {};
  start.cancel = CancelToken{};
  EXPECT_LE(outcome.makespan(), placeAndSimulate(start).makespan());

  // Cancelled before it starts: the start comes back, simulated, marked cancelled.
  request.progress = {};
  const PlaceOutcome early = placeAndSimulate(request);
  EXPECT_TRUE(early.placement.cancelled);
  EXPECT_EQ(early.placement.evaluations, 0);
  EXPECT_EQ(early.placement.assignment, placeAndSimulate(start).placement.assignment);
  EXPECT_GT(early.makespan(), 0);
}

// Runs the pipeline with `change` applied to valid settings; returns the InputError's place.
std::string errorPlace(const std::function<void(PlaceSettings&)>& change) {
  const DataflowGraph graph = generateGraph("chainmm");
  const DeviceSet devices = DeviceSet::uniform(2);
  PlaceRequest request = requestFor(graph, devices);
  request.settings.method = "local-search";
  change(request.settings);
  try {
    placeAndSimulate(request);
  } catch (const InputError& e) {
    EXPECT_THROW(checkSettings(request.settings), InputError);
    return e.where();
  }
  return "(no error)";
}

TEST(PlaceAndSimulate, BadSettingsAreInputErrorsNamingTheField) {
  EXPECT_EQ(errorPlace([](PlaceSettings& s) { s.budget = 0; }), "--budget");
  EXPECT_EQ(errorPlace([](PlaceSettings& s) { s.budget = -5; }), "--budget");
  EXPECT_EQ(errorPlace([](PlaceSettings& s) { s.params = {{"zz", "1"}}; }), "--param zz");
  EXPECT_EQ(errorPlace([](PlaceSettings& s) {
              s.params = {{"restarts", "many"}};
            }),
            "--param restarts");
  EXPECT_EQ(errorPlace([](PlaceSettings& s) { s.method = "nope"; }), "--method");
  EXPECT_EQ(errorPlace([](PlaceSettings&) {}), "(no error)");
}

TEST(PlaceAndSimulate, RefusesAGraphThatDoesNotFitTheDevices) {
  DataflowGraph graph;
  Node node;
  node.id = "a";
  node.compute_us = {1, 2};  // one compute time per device: two devices
  graph.addNode(node);
  const DeviceSet three = DeviceSet::uniform(3);
  PlaceRequest request = requestFor(graph, three);
  EXPECT_THROW(placeAndSimulate(request), InputError);
}

TEST(PlaceSettings, CompareByValue) {
  PlaceSettings a, b;
  EXPECT_EQ(a, b);
  b.params["t0"] = "0.1";
  EXPECT_NE(a, b);
  b = a;
  b.cost_model = CostModel::Links;
  EXPECT_NE(a, b);
}

}  // namespace
}  // namespace doppler
