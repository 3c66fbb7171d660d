#pragma once
// Device labels of an episode on interchangeable devices (plain C++): relabelling them in order of
// first use changes no makespan and gives the labelling a greedy policy produces when it breaks
// ties between still-identical devices by the lowest index, so the trainer's best episode becomes
// a sequence of decisions the greedy policy can actually reproduce.
#include <vector>

#include "core/sim/cost_table.h"
#include "core/sim/schedule.h"

namespace doppler::train {

// Whether relabelling devices changes no cost: identical compute on every device and one transfer
// cost per edge between any two different devices.
bool devicesInterchangeable(const CostTable& costs);
// Relabels the devices of an episode in the order of their first use along `order` (unused
// devices last, in index order).
void canonicalDevices(const std::vector<int>& order, int devices, Assignment& assignment);

}  // namespace doppler::train
