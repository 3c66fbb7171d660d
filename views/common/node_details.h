#pragma once
// Text about one node of a placement, for tooltips and the details panel.
#include <QString>

#include "views/common/snapshot.h"

namespace doppler::views {

// Op, FLOPs, bytes, compute time on every device, device, start and finish.
QString nodeTooltipHtml(const PlacementSnapshot& s, int node);
// The tooltip's content plus inputs and outputs with their transfers.
QString nodeDetailsHtml(const PlacementSnapshot& s, int node);
// What the details pane says while no node is selected.
QString noNodeSelectedHtml();
QString deviceName(const PlacementSnapshot& s, int device);
QString nodeLabel(const DataflowGraph& g, int node);  // op, or id when the op is empty

}  // namespace doppler::views
