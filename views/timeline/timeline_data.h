#pragma once
// A simulated schedule arranged for drawing: one lane per device (compute) and one per directed
// link that carried a transfer, each lane's events sorted by start so that painting and hit tests
// only touch the visible ones.
#include <QRgb>
#include <QString>
#include <string>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/graph/device_set.h"
#include "core/sim/schedule.h"
#include "views/common/theme.h"

namespace doppler::views {

struct TimelineEvent {
  double start = 0, finish = 0;
  int node = -1;  // compute: the node; transfer: the producer
  int edge = -1;  // transfer: the graph edge; compute: -1
};

struct TimelineLane {
  enum class Kind { Compute, Transfer };
  Kind kind = Kind::Compute;
  int device = -1;  // compute: the device; transfer: the sending device
  int dst = -1;     // transfer: the receiving device
  QString label;
  std::vector<TimelineEvent> events;  // by start
  double maxDuration = 0;             // for the first-visible-event search
};

struct OpKind {
  std::string op;
  QRgb color;
  int nodes = 0;
  double total_us = 0;
};

struct TimelineData {
  std::vector<TimelineLane> lanes;
  double makespan = 0;
  int devices = 0;
  int computeLanes = 0;
  size_t eventCount = 0;
  // Where each node's compute event is (lane, index), and each edge's transfer (or -1).
  std::vector<int> nodeLane, nodeIndex;
  std::vector<int> edgeLane, edgeIndex;
  // Per node. Nothing here depends on the theme (node colours are taken when painting), so that a
  // worker thread can build it.
  std::vector<QRgb> opColor;
  std::vector<int> opRank;          // per node: its op kind's index in ops
  std::vector<QString> nodeLabels;  // per node: its id (bars are coloured by op)
  // Op kinds by node count, most first, then by name: the graph's own order, so a kind keeps its
  // shade in every placement. Kinds from Theme::kOpShades on are drawn as "other".
  std::vector<OpKind> ops;
  bool otherOp(int node) const { return opRank[node] >= Theme::kOpShades; }
  std::vector<QRgb> deviceColor;
  // The graph's edges (src, dst) by edge index, for flow arrows.
  std::vector<std::pair<int, int>> edges;
  std::vector<std::vector<int>> inEdges, outEdges;  // by node

  static TimelineData build(const DataflowGraph& g, const DeviceSet& d, const Schedule& s);
  // Index of the first event in lane that may overlap [t, ...).
  size_t firstVisible(const TimelineLane& lane, double t) const;
};

}  // namespace doppler::views
