#include "app/studio/panels/stepper_session.h"

#include <QUndoCommand>
#include <QUndoStack>
#include <algorithm>

#include "core/common/input_error.h"
#include "core/pipeline/place_and_simulate.h"
#include "core/policy/episode_trace.h"
#include "core/sim/lower_bound.h"
#include "core/sim/simulator.h"
#include "sessions/from_core.h"
#include "sessions/run_store.h"

namespace doppler::studio {

// One undoable change of the stepper: a new branch (redo appends it, undo removes it), or a
// switch between existing branches. Either way undo returns to the branch and step shown before.
class BranchCommand : public QUndoCommand {
 public:
  BranchCommand(StepperSession* s, std::optional<StepperSession::Branch> added, int toBranch,
                int toStep, const QString& text)
      : QUndoCommand(text),
        s_(s),
        added_(std::move(added)),
        fromBranch_(s->current_),
        fromStep_(s->step_),
        toBranch_(toBranch),
        toStep_(toStep) {}

  void redo() override {
    if (added_) s_->appendBranch(*added_);
    s_->setCurrent(toBranch_, toStep_);
  }
  void undo() override {
    if (added_) s_->popBranch();
    s_->setCurrent(fromBranch_, fromStep_);
  }

 private:
  StepperSession* s_;
  std::optional<StepperSession::Branch> added_;
  int fromBranch_, fromStep_, toBranch_, toStep_;
};

namespace {

QString nodeName(const DataflowGraph& g, int v) {
  return QString::fromStdString(g.node(v).id);
}

QString deviceName(const DeviceSet& d, int k) {
  return QStringLiteral("%1 %2").arg(QString::fromStdString(d.devices[k].name)).arg(k);
}

}  // namespace

StepperSession::StepperSession(QObject* parent) : QObject(parent), undo_(new QUndoStack(this)) {}

StepperSession::~StepperSession() {
  // The stack's commands point back at this session: drop them before the members go.
  undo_->clear();
}

bool StepperSession::start(PlacementInputs inputs, Source source, QString* error) {
  const PlacementInputs oldInputs = inputs_;
  const Source oldSource = source_;
  const policy::GraphFeatures oldFeatures = features_;
  inputs_ = std::move(inputs);
  source_ = std::move(source);
  try {
    if (!inputs_.graph || !inputs_.devices || !inputs_.costs)
      throw InputError("", "stepper", "no graph is open");
    if (source_.kind == SourceKind::Heuristic)
      checkDecisionsSupported(findMethod(source_.settings.method), true, false);
    if (source_.kind == SourceKind::Policy && !source_.scores)
      throw InputError("", "stepper", "the policy's scores are missing");
    features_ = source_.kind == SourceKind::Heuristic ? policy::GraphFeatures{}
                                                      : policy::graphFeatures(*inputs_.costs);
    const double bound = lowerBound(*inputs_.costs).value();  // the same for every branch
    Branch original = compute({});
    original.label = tr("original");
    original.run_id = source_.run_id;
    undo_->clear();
    branches_.assign(1, std::move(original));
    lowerBound_ = bound;
    current_ = 0;
    step_ = 0;
  } catch (const std::exception& e) {
    inputs_ = oldInputs;
    source_ = oldSource;
    features_ = oldFeatures;
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  Q_EMIT changed();
  return true;
}

void StepperSession::clear() {
  undo_->clear();
  branches_.clear();
  current_ = step_ = 0;
  Q_EMIT changed();
}

int StepperSession::steps() const {
  return active() ? static_cast<int>(branch().trace->steps.size()) : 0;
}

void StepperSession::setStep(int step) {
  step = std::clamp(step, 0, steps());
  if (step == step_) return;
  step_ = step;
  Q_EMIT changed();
}

StepperSession::Branch StepperSession::compute(std::vector<DecisionOverride> overrides) const {
  const CostTable& costs = *inputs_.costs;
  const DataflowGraph& g = *inputs_.graph;
  Branch b;
  b.overrides = overrides;
  auto trace = std::make_shared<DecisionTrace>();
  if (source_.kind == SourceKind::Heuristic) {
    PlaceRequest r;
    r.graph = inputs_.graph.get();
    r.devices = inputs_.devices.get();
    r.costs = inputs_.costs.get();
    r.settings = source_.settings;
    r.record_decisions = true;
    r.overrides = std::move(overrides);
    PlaceOutcome o = placeAndSimulate(r);
    *trace = std::move(o.placement.decisions);
    b.assignment = std::move(o.placement.assignment);
    b.order = std::move(o.placement.order);
    if (o.placement.planned) b.plan = std::move(*o.placement.planned);
    b.makespan_us = o.makespan();
  } else {
    DecisionControl control{true, std::move(overrides), &g};
    policy::TracedEpisode t =
        source_.kind == SourceKind::Policy
            ? policy::traceEpisode(source_.scores.get(), costs, features_, &control, source_.sel,
                                   source_.plc)
            : policy::traceRecorded(costs, features_, source_.order, source_.assignment, &control);
    *trace = std::move(t.trace);
    b.assignment = std::move(t.assignment);
    b.order = std::move(t.order);
    b.plan = std::move(t.plan);
    b.makespan_us =
        Simulator(costs, source_.settings.simOptions()).run(b.assignment).schedule.makespan_us;
  }
  b.trace = std::move(trace);
  return b;
}

bool StepperSession::overrideNode(int node, QString* error) {
  return addOverride({step_, node, -1}, error);
}

bool StepperSession::overrideDevice(int device, QString* error) {
  return addOverride({step_, -1, device}, error);
}

bool StepperSession::addOverride(DecisionOverride o, QString* error) {
  if (!active() || step_ >= steps()) {
    if (error) *error = tr("The episode is complete: step back to change a decision.");
    return false;
  }
  const DecisionStep& now = branch().trace->steps[step_];
  if ((o.node >= 0 && o.node == now.node) || (o.device >= 0 && o.device == now.device))
    return true;  // the choice already made: nothing changes
  // The current branch's overrides before this step still hold; those at or after it were made
  // in a state this change replaces (a device override at this very step stays with a new node
  // only if it is the device being set, so it is dropped too).
  std::vector<DecisionOverride> overrides;
  for (const DecisionOverride& x : branch().overrides)
    if (x.step < o.step) overrides.push_back(x);
  if (o.device >= 0)  // keep a node chosen at this step by an earlier override
    for (const DecisionOverride& x : branch().overrides)
      if (x.step == o.step && x.node >= 0) overrides.push_back(x);
  overrides.push_back(o);
  auto sameAs = [&](const Branch& b) { return b.overrides == overrides; };
  const auto existing = std::find_if(branches_.begin(), branches_.end(), sameAs);
  const QString what =
      o.node >= 0 ? tr("step %1: node %2").arg(o.step).arg(nodeName(*inputs_.graph, o.node))
                  : tr("step %1: %2").arg(o.step).arg(deviceName(*inputs_.devices, o.device));
  if (existing != branches_.end()) {
    undo_->push(new BranchCommand(this, std::nullopt, int(existing - branches_.begin()), o.step,
                                  tr("Switch to %1").arg(existing->label)));
    return true;
  }
  Branch b;
  try {
    b = compute(std::move(overrides));
  } catch (const std::exception& e) {
    if (error) *error = QString::fromUtf8(e.what());
    return false;
  }
  b.label = branch().overrides.empty() ? what : branch().label + QStringLiteral(", ") + what;
  const int index = static_cast<int>(branches_.size());
  undo_->push(new BranchCommand(this, std::move(b), index, o.step, tr("Override %1").arg(what)));
  return true;
}

void StepperSession::switchBranch(int index) {
  if (index < 0 || index >= static_cast<int>(branches_.size()) || index == current_) return;
  undo_->push(new BranchCommand(this, std::nullopt, index, std::min(step_, steps()),
                                tr("Switch to %1").arg(branches_[index].label)));
}

void StepperSession::setCurrent(int branch, int step) {
  current_ = std::clamp(branch, 0, static_cast<int>(branches_.size()) - 1);
  step_ = std::clamp(step, 0, steps());
  Q_EMIT changed();
}

void StepperSession::appendBranch(Branch b) {
  branches_.push_back(std::move(b));
}

void StepperSession::popBranch() {
  branches_.pop_back();
  current_ = std::min(current_, static_cast<int>(branches_.size()) - 1);
}

views::StepperContent StepperSession::content() const {
  views::StepperContent c;
  if (!active()) return c;
  c.graph = inputs_.graph;
  c.devices = inputs_.devices;
  c.trace = branch().trace;
  c.source = source_.label;
  c.step = step_;
  c.final_makespan_us = branch().makespan_us;
  if (current_ != 0) c.original_makespan_us = branches_.front().makespan_us;
  for (const Branch& b : branches_) c.branches.push_back({b.label, b.makespan_us});
  c.current_branch = current_;
  return c;
}

views::StepOverlayPtr StepperSession::overlay() const {
  if (!active()) return nullptr;
  auto o = std::make_shared<views::StepOverlay>();
  const Branch& b = branch();
  o->source = source_.label.toStdString();
  o->step = step_;
  o->steps = steps();
  o->node_score = b.trace->node_score;
  o->node_higher_better = b.trace->node_higher_better;
  o->node_scored = b.trace->node_scored;
  if (step_ < steps()) {
    const DecisionStep& s = b.trace->steps[step_];
    o->ready = s.ready;
    o->chosen = s.node;
  }
  o->plan = b.plan;
  o->placed.assign(inputs_.graph->nodeCount(), 0);
  for (int k = 0; k < step_; ++k) o->placed[b.order[k]] = 1;
  o->partial_makespan_us = step_ > 0 ? b.trace->steps[step_ - 1].partial_makespan_us : 0;
  return o;
}

int64_t StepperSession::storeBranch(sessions::RunStore& store, const Branch& b,
                                    std::optional<int64_t> parent) {
  const DataflowGraph& g = *inputs_.graph;
  sessions::RunSpec spec;
  spec.kind = "place";
  spec.method = source_.kind == SourceKind::Heuristic ? source_.settings.method
                : source_.kind == SourceKind::Policy  ? std::string("doppler")
                                                      : std::string("recorded");
  spec.params = {{"source", source_.label.toStdString()},
                 {"cost_model", toString(source_.settings.cost_model)},
                 {"discipline", toString(source_.settings.discipline)},
                 {"noise", source_.settings.noise},
                 {"devices", inputs_.devicesSpec}};
  if (source_.kind == SourceKind::Heuristic) spec.params["params"] = source_.settings.params;
  if (source_.kind == SourceKind::Policy) spec.params["policy"] = source_.policy_path.toStdString();
  nlohmann::json overrides = nlohmann::json::array();
  for (const DecisionOverride& o : b.overrides) {
    const std::string change =
        o.node >= 0 ? "node=" + g.node(o.node).id : "device=" + std::to_string(o.device);
    overrides.push_back(std::to_string(o.step) + ":" + change);
  }
  if (!overrides.empty()) spec.params["overrides"] = overrides;
  spec.seed = source_.settings.seed;
  spec.graph_id = store.putGraph(g);
  spec.device_set_id = store.putDeviceSet(*inputs_.devices);
  spec.parent_id = parent;
  const int64_t run = store.beginRun(spec);
  sessions::PlacementRecord placement = sessions::placementRecord(g, b.assignment, b.order);
  store.savePlacement(run, placement);
  const SimResult sim = Simulator(*inputs_.costs, source_.settings.simOptions()).run(b.assignment);
  store.saveTimeline(run, sessions::timelineRecord(g, sim.schedule, "simulated"));
  store.saveTimeline(run, sessions::timelineRecord(g, b.plan, "planned"));
  store.setFigures(run, {{"makespan_us", b.makespan_us},
                         {"planned_makespan_us", b.plan.makespan_us},
                         {"lower_bound_us", lowerBound_}});
  if (!b.overrides.empty()) store.addTag(run, "branch");
  store.finishRun(run, sessions::RunStatus::Finished);
  return run;
}

int64_t StepperSession::saveBranch(sessions::RunStore& store) {
  if (!active()) throw InputError("", "stepper", "nothing to save");
  Branch& original = branches_.front();
  if (!original.run_id) original.run_id = storeBranch(store, original, std::nullopt);
  Branch& b = branches_[current_];
  if (!b.run_id) b.run_id = storeBranch(store, b, original.run_id);
  Q_EMIT changed();
  return *b.run_id;
}

}  // namespace doppler::studio
