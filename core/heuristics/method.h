#pragma once
// A placement method (heuristic or search): its parameters are data, so the CLI, the run store
// and the studio's heuristic tuner can list, show and change them without knowing the method.
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/common/cancel_token.h"
#include "core/heuristics/decision_trace.h"
#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"
#include "core/sim/simulator.h"

namespace doppler {

struct ParamSpec {
  enum class Type { Number, Integer, Choice, Bool };
  std::string name;
  Type type = Type::Number;
  std::string default_value;         // as text: "1.0", "3", "earliest-start", "true"
  double min = 0, max = 0;           // Number and Integer
  std::vector<std::string> choices;  // Choice
  std::string description;
};

// Values as text keyed by parameter name; unknown names and bad values are InputErrors.
using ParamValues = std::map<std::string, std::string>;

// Resolved view of ParamValues against a method's specs (defaults filled in, values checked).
class Params {
 public:
  Params(const std::vector<ParamSpec>& specs, const ParamValues& values);  // throws InputError
  double number(const std::string& name) const;
  long integer(const std::string& name) const;
  const std::string& choice(const std::string& name) const;
  bool flag(const std::string& name) const;
  const std::map<std::string, std::string>& values() const { return values_; }

 private:
  std::map<std::string, std::string> values_;
};

struct Progress {
  long done = 0, total = 0;  // evaluations
  double best_makespan_us = 0;
};
using ProgressFn = std::function<void(const Progress&)>;

struct PlaceContext {
  const CostTable& costs;
  SimOptions sim;       // cost model and noise the simulated judge uses
  uint64_t seed = 1;    // for randomised methods and tie-breaking
  long budget = 5000;   // evaluations, for search methods
  ProgressFn progress;  // may be empty; called at most ~20 times a second
  CancelToken cancel;   // polled by long methods
  // Sequential methods only: record the decisions, override some (decision_trace.h). Others
  // ignore it; placeAndSimulate refuses it for them.
  const DecisionControl* decisions = nullptr;
};

struct Placement {
  Assignment assignment;
  std::optional<Schedule> planned;  // the method's own schedule, if it builds one
  // The order nodes were assigned in (sequential methods), or the order the method means its
  // nodes to run in (local search: its start's executionOrder); may be empty.
  std::vector<int> order;
  long evaluations = 0;  // simulator calls (search methods)
  // Search methods: the simulated makespan of the assignment the search started from (unset when
  // it evaluated nothing), so a result can say how far the search moved.
  std::optional<double> start_makespan_us;
  bool cancelled = false;
  // Search methods that stopped before their budget because it could not be spent usefully
  // (without noise): every placement tried (the space was no larger than the budget), or the
  // best reached the lower bound, which no placement beats.
  bool exhaustive = false;
  bool reached_lower_bound = false;
  bool out_of_time = false;  // stopped by its own time limit (a time_ms parameter) first
  DecisionTrace decisions;   // when PlaceContext::decisions asked for them
};

class Method {
 public:
  virtual ~Method() = default;
  virtual std::string name() const = 0;
  virtual std::string description() const = 0;
  virtual std::vector<ParamSpec> params() const { return {}; }
  virtual bool isSearch() const { return false; }  // uses the budget and reports progress
  // Places node by node (a ready node, then its device), so it can record and replay its
  // decisions (PlaceContext::decisions).
  virtual bool sequential() const { return false; }
  virtual Placement place(const PlaceContext& ctx, const Params& params) const = 0;
};

// The order the priority and sequence disciplines follow for this placement (discipline.h): for
// a method that planned a schedule, its nodes by planned start (then planned finish, then
// position in `order`), so each device runs its nodes as planned, insertions included; without
// a plan, `order` as it is. Empty when the placement has neither.
std::vector<int> executionOrder(const Placement& p);

// Every registered method, in the order the CLI lists them.
const std::vector<std::unique_ptr<Method>>& methods();
// Adds a method that another part of the program provides (the general policy, whose network
// the core does not link), or replaces the one of the same name. Call it at start-up, before any
// thread lists or runs methods: the list is not guarded once running.
void registerMethod(std::unique_ptr<Method> method);
// Throws InputError naming the known methods if `name` is unknown.
const Method& findMethod(const std::string& name);

}  // namespace doppler
