#pragma once
// Paints a timeline into any QPainter (the widget, a QImage for export and benchmarks, an SVG).
// Level of detail: bars at least 3 px wide are drawn as rectangles (labelled when wide enough);
// narrower ones are accumulated per pixel column and blitted as one scan line per lane, so a
// frame costs O(visible events + width) and 100,000 events stay smooth.
#include <QFont>
#include <QSize>
#include <memory>
#include <optional>
#include <vector>

#include "views/common/legend.h"
#include "views/models/device_summary_model.h"
#include "views/timeline/timeline_data.h"

class QPainter;

namespace doppler::views {

// What a bar's colour stands for. Graphs without op kinds (the Doppler text format) get Device.
enum class TimelineColorMode { OpKind, Device, Node };

struct TimelineState {
  double t0 = 0;       // time at the left edge of the plot, microseconds
  double usPerPx = 1;  // zoom
  int scrollY = 0;     // lanes scrolled up by this many pixels
  // Device first: a bar's colour then means what a node's fill means in the graph view.
  TimelineColorMode colorMode = TimelineColorMode::Device;
  int hovered = -1, selected = -1;  // nodes
  std::optional<std::pair<double, double>> range;
  std::vector<DeviceRangeStats> rangeStats;
  ViewHeader header;
  // The decision stepper's step: per node, whether it is placed (drawn solid) or not yet (drawn
  // faint, where the plan will put it); empty when not stepping.
  std::vector<char> placed;
  double stepMarkerUs = -1;  // the makespan so far, drawn as a line; negative: none
  // The other members of the group the graph view draws the selected node in (large graphs):
  // outlined lightly, so the group's extent in time shows.
  std::vector<int> groupNodes;
  // The nodes the timeline's search matched, outlined boldly.
  std::vector<int> marked;
  // A measured run is shown: the simulated schedule of the same placement, drawn over the
  // measured bars as faint outlined ghosts (compute lanes only), with its makespan.
  std::shared_ptr<const TimelineData> ghost;
  // The link lanes drawn as one row ("▸ 56 links"): 8 devices have 56 directed links, which
  // would push the compute lanes out of sight. Clicking the row's label toggles it.
  bool linksCollapsed = false;
  // The critical path of the shown schedule (core/sim/critical_path.h), outlined on its bars and
  // transfers as the graph outlines its nodes; empty: not drawn.
  std::vector<char> criticalNodes, criticalEdges;
};

struct TimelineGeometry {
  int headerH = 0, rulerH = 0, labelW = 0, plotLeft = 0, plotRight = 0, lanesTop = 0;
  std::vector<int> laneY, laneH;  // relative to lanesTop, before scrolling
  int contentH = 0;               // height of all lanes
  bool linksCollapsed = false;    // every link lane shares the first one's row
  int plotWidth() const { return plotRight - plotLeft; }
};

class TimelinePainter {
 public:
  // Above this many devices the link lanes start collapsed into one row.
  static constexpr int kLinksExpandedUpTo = 4;
  static TimelineGeometry geometry(const TimelineData& data, const ViewHeader& header,
                                   const QFont& font, const QSize& size,
                                   bool linksCollapsed = false);
  static void paint(QPainter& p, const QSize& size, const TimelineData& data,
                    const TimelineState& state, const QFont& font, const TimelineGeometry& geo);
  // Lane under a widget y, or -1.
  static int laneAt(const TimelineGeometry& geo, const TimelineState& state, int y);
  // Event in a lane nearest to time t within `slack` microseconds, or -1.
  static int eventAt(const TimelineData& data, int lane, double t, double slack);
  // eventAt over the row a lane is drawn in: with the links collapsed, every link lane's events
  // are in that row, and `lane` is set to the one holding the nearest event.
  static int eventInRow(const TimelineData& data, const TimelineGeometry& geo, int& lane, double t,
                        double slack);
  static QString opLegendName(const std::string& op);
  // The colour a bar is painted in under a colouring (a transfer without a producer is grey).
  static QRgb barColor(const TimelineData& data, TimelineColorMode mode, const TimelineLane& lane,
                       const TimelineEvent& e);
  // Whether an event is drawn faint: a node not placed yet at the stepper's step, or a transfer
  // into one.
  static bool faint(const TimelineData& data, const TimelineState& state, const TimelineEvent& e);
};

}  // namespace doppler::views
