#pragma once
// Two or more stored runs side by side: a metric series of theirs overlaid on one step axis (any
// series a run recorded, picked from a list, smoothed as TensorBoard does with the raw curve kept
// faint beneath, on a linear or log axis), their timelines stacked on one time axis (the nodes
// that moved against the first run drawn solid, the rest faint), a summary table (makespan and
// its difference to the reference, ratio to bound, utilization, moved nodes, training time) and
// the moved nodes as `doppler runs compare` names them. Exports as CSV and PNG.
//
// Plain data in (RunComparison): the studio reads the store (app/studio/runs_controller.h) and
// this view only draws.
#include <QStringList>
#include <QWidget>
#include <map>
#include <optional>
#include <vector>

#include "sessions/queries.h"
#include "sessions/records.h"

class QChartView;
class QCheckBox;
class QComboBox;
class QLabel;
class QSlider;
class QTableWidget;

namespace doppler::views {

struct RunComparison {
  std::vector<sessions::RunInfo> runs;   // the first is the reference
  std::string series_name;               // the overlaid series; "" when no run has one
  std::vector<sessions::Series> series;  // per run (empty where a run lacks it)
  // Every series some run recorded, by name, each per run: what the series picker offers. When
  // empty, the view offers series_name alone.
  std::map<std::string, std::vector<sessions::Series>> all_series;
  // Per run: its simulated timeline (else the first it has), or none.
  std::vector<std::optional<sessions::TimelineRecord>> timelines;
  // diffs[i]: the first run's placement against run i + 1's (sessions::placementDiff).
  std::vector<sessions::PlacementDiff> diffs;
};

// Every node that moved in any of the diffs, in first-seen order.
QStringList movedNodeIds(const RunComparison& c);
// Mean over devices of busy time / makespan, or NaN without a timeline.
double timelineUtilization(const sessions::TimelineRecord& t, int devices);
// The summary, moved nodes and series as CSV (blocks headed by "# ..." lines).
QString comparisonCsv(const RunComparison& c);
// The series names in the order the picker lists them: makespans first (a training and a search
// share that axis), then reward, loss, entropy, then the rest by name.
std::vector<std::string> orderedSeriesNames(const RunComparison& c);
// A series name as a reader says it: "best_makespan_us" reads "best makespan".
QString seriesTitle(const std::string& name);
// The colour a run is drawn with (chart lines, timeline headings, table headers): by its id, so
// a run keeps its colour in every comparison.
QColor runColor(const sessions::RunInfo& run);

class CompareTimelines;

class RunCompareView : public QWidget {
  Q_OBJECT
 public:
  explicit RunCompareView(QWidget* parent = nullptr);

  void setComparison(RunComparison comparison);
  const RunComparison& comparison() const { return c_; }
  QStringList movedNodes() const { return movedNodeIds(c_); }
  QTableWidget* summaryTable() const { return summary_; }
  QTableWidget* movedTable() const { return moved_; }
  QChartView* chartView() const { return chart_; }
  QComboBox* seriesPicker() const { return seriesPicker_; }
  QCheckBox* logAxisBox() const { return logAxis_; }

  // Shows the named series (one of all_series); false when no run has it.
  bool showSeries(const std::string& name);
  // The EMA weight in [0, 0.99]; 0 draws the raw curves only.
  void setSmoothing(double weight);
  double smoothing() const;

  bool saveCsv(const QString& path) const;
  bool savePng(const QString& path);

 Q_SIGNALS:
  // The nodes that moved (by id), for the graph view to mark.
  void movedNodesChanged(const QStringList& nodes);
  // The view was closed or hidden: whatever showed its comparison elsewhere ends it.
  void closed();

 protected:
  void hideEvent(QHideEvent* event) override;

 private:
  void rebuildChart();
  void rebuildSeriesPicker();
  void rebuildSummary();
  void rebuildMoved();
  void exportCsv();
  void exportPng();

  RunComparison c_;
  QLabel* title_;
  QChartView* chart_;
  QComboBox* seriesPicker_;
  QSlider* smoothing_;
  QLabel* smoothingValue_;
  QCheckBox* logAxis_;
  CompareTimelines* timelines_;
  QTableWidget* summary_;
  QLabel* movedLabel_;
  QTableWidget* moved_;
};

}  // namespace doppler::views
