#pragma once
// Starts for local search that another part of the program provides. Local search builds its own
// start from a list schedule (critical-path, heft) or at random; a start that needs more than the
// core links (the shipped general policy, whose network is in the LibTorch module) is registered
// here by the program that can build it (the CLI and the studio, at start-up), and then shows as
// one more choice of local search's "start" parameter, for `doppler methods`, the run store and
// the studio's tuner alike.
#include <functional>
#include <string>
#include <vector>

#include "core/heuristics/method.h"

namespace doppler {

// Builds the start for one search: an assignment of every node of ctx.costs (InputError when it
// cannot), with the order it means its nodes to run in (Placement::order or a planned schedule;
// the priority and sequence disciplines follow it for every assignment the search tries).
using SearchStartFn = std::function<Placement(const PlaceContext& ctx)>;

// Registers (or replaces) a start. Call it before methods are listed or run: the choices of
// local search's "start" parameter are read when its parameters are. Thread-safe.
void registerSearchStart(const std::string& name, const std::string& description, SearchStartFn fn);

struct SearchStart {
  std::string name, description;
  SearchStartFn build;
};
// The registered starts, by name; empty unless a program registered one.
std::vector<SearchStart> searchStarts();

}  // namespace doppler
