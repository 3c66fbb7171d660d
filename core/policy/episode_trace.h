#pragma once
// DecisionStep traces of the dual policy (decision_trace.h), for `doppler eval --decisions` and the
// studio's decision stepper: a greedy episode that records every step (SEL's probability of each
// ready node, PLC's probability and the earliest start and finish of each device) and takes any
// overridden choice instead of its own, then goes on greedily from the state that choice left.
#include <vector>

#include "core/heuristics/decision_trace.h"
#include "core/policy/episode.h"
#include "core/policy/features.h"
#include "core/policy/policy_config.h"
#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"

namespace doppler::policy {

struct TracedEpisode {
  Assignment assignment;
  std::vector<int> order;
  double planned_makespan_us = 0;  // reference cost model, no insertion
  Schedule plan;                   // the episode's plan (what the stepper's timeline draws)
  DecisionTrace trace;             // filled when control->record
};

// The greedy episode of the network's `scores` (null when both components are heuristic: the
// critical-path teacher). Same choices as runEpisode's greedy mode where nothing is overridden.
TracedEpisode traceEpisode(const PolicyScores* scores, const CostTable& costs,
                           const GraphFeatures& features, const DecisionControl* control,
                           Component sel = Component::Learned, Component plc = Component::Learned);

// A recorded decision sequence (a stored run's order and assignment) replayed step by step. Up to
// the first override it follows the record; from there on it decides as the critical-path teacher
// (the record has no rule to go on with). Node scores are 1 for the recorded pick; device scores
// are the earliest starts. InputError (field "order") when the record is not a valid sequence.
TracedEpisode traceRecorded(const CostTable& costs, const GraphFeatures& features,
                            const std::vector<int>& order, const Assignment& assignment,
                            const DecisionControl* control);

}  // namespace doppler::policy
