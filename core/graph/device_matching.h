#pragma once
// Which devices of a set are interchangeable, and the relabelling of one placement's devices that
// keeps most nodes where another placement has them. Two placements that differ only by which of
// four identical GPUs is called gpu0 are the same placement: counting their nodes as "moved"
// would report renamed devices as changes (critical-path against HEFT on 4 x P100 "moved" 121 of
// 136 nodes; after matching, 62 move).
#include <span>
#include <vector>

#include "core/graph/device_set.h"

namespace doppler {

// A class id per device: two devices share a class when they have the same specification (all
// but the name) and swapping them leaves both link matrices unchanged, and every member of a
// class is so with every other (so any permutation inside a class maps the set onto itself).
// Classes are numbered by their first device.
std::vector<int> interchangeableClasses(const DeviceSet& devices);

// True when `a` and `b` are the same devices and links in the same order, names aside.
bool sameDevices(const DeviceSet& a, const DeviceSet& b);

// For two placements of the same nodes on `devices` (a device index per node, -1 for a node
// absent from one of them): map[d] is the device of placement `a` that placement `b`'s device d
// is matched with. Devices are matched only inside their class, by an optimal assignment that
// maximises the number of nodes both placements then put on the same device (LEMON's network
// simplex); ties keep a device's own index. Without interchangeable devices the map is the
// identity.
std::vector<int> matchDevices(const DeviceSet& devices, std::span<const int> a,
                              std::span<const int> b);

}  // namespace doppler
