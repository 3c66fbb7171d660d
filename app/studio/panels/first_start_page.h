#pragma once
// The first start: the demo session copied to the user's default session (first_start.h) is
// shown at once -- the demo graph placed with its timeline in the centre, the tuner beside them,
// the Runs dock listing the stored runs with the heuristics selected for a comparison the user
// starts, and the training dashboard filled with the stored training run's curves (one menu
// entry away). Nothing is compared unasked: the graph shows one placement.

namespace doppler::studio {

class MainWindow;

// Arranges the window over its open session; false when no session is open.
bool showFirstStart(MainWindow& window);

}  // namespace doppler::studio
