#pragma once
// The training dashboard's live charts, fed one TrainProgress report at a time:
//   - makespan: every episode's makespan (a faded scatter), its moving mean, the best so far (a
//     step line), the greedy evaluations (markers), and reference lines for the lower bound and
//     the critical-path and local-search makespans;
//   - four small charts: SEL and PLC losses, entropy, learning rate, episodes per second;
//   - after the episodes, the distillation of the best episode into the policy on an axis of its
//     own (distillation updates, not episodes): the greedy policy's makespan by update against
//     the best episode it is distilling. Its reports stay out of the episode charts, whose
//     losses, entropy and speed it does not have.
// The makespan chart's legend flows over rows (LegendBar) rather than cutting entries short.
// Appending stores the report's numbers (amortised O(1)); drawing happens at most 20 times a
// second, from series reduced to two points per pixel column (minmax_decimator.h), so a run of
// 50,000 episodes redraws as fast as one of 500.
#include <QWidget>
#include <cmath>
#include <vector>

#include "core/train/train_progress.h"

class QChart;
class QGraphicsSimpleTextItem;
class QChartView;
class QLineSeries;
class QScatterSeries;
class QTimer;
class QValueAxis;
class QXYSeries;

namespace doppler::views {

class LegendBar;

// Makespans the training is measured against, in microseconds; NaN = not known (no line).
struct TrainingReferences {
  double lower_bound_us = NAN, critical_path_us = NAN, local_search_us = NAN;
};

class TrainingCharts : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kRedrawIntervalMs = 50;  // at most 20 redraws a second

  explicit TrainingCharts(QWidget* parent = nullptr);
  ~TrainingCharts() override;

  // Clears every series for a new run of `plannedEpisodes` episodes (0: not known), which sets
  // the x-axis and the moving mean's window.
  void reset(long plannedEpisodes);
  void setReferences(const TrainingReferences& refs);
  void addProgress(const train::TrainProgress& p);

  // Rebuilds the drawn series from the stored ones for the current axes and plot widths now,
  // rather than at the next tick of the redraw timer (tests, benchmarks, grabs).
  void redrawNow();
  bool redrawPending() const;
  // Re-applies the theme's colours (light / dark).
  void applyTheme();

  long reportCount() const { return static_cast<long>(episode_.size()); }
  int movingMeanWindow() const { return window_; }
  // The drawn series by object name: "makespan", "movingMean", "bestSoFar", "evaluations",
  // "lowerBound", "criticalPath", "localSearch", "selLoss", "plcLoss", "entropy",
  // "learningRate", "episodesPerSecond"; nullptr for another name.
  QXYSeries* series(const QString& name) const;
  QChartView* makespanView() const { return makespanView_; }
  // The chart views of the small charts, in order (losses, entropy, learning rate, speed).
  // The distillation chart (shown once a distillation report arrived) and its series by name:
  // "distillGreedy" (the greedy makespan by update), "distillTarget" (the best episode).
  QChartView* distillView() const { return distillView_; }
  long distillReportCount() const { return static_cast<long>(distillX_.size()); }
  // The makespan chart's legend, as drawn.
  const LegendBar* legend() const { return legend_; }
  // The width in pixels the makespan chart's series were last decimated for.
  int makespanPlotWidth() const { return lastPlotWidth_; }

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  struct SmallChart {
    QChartView* view = nullptr;
    QString title;
    QValueAxis* x = nullptr;
    QValueAxis* y = nullptr;
    std::vector<QLineSeries*> lines;
    std::vector<const std::vector<double>*> data;  // one per line
  };
  void scheduleRedraw();
  void updateReferenceLines();
  void placeReferenceLabels();
  double unitScale() const;  // microseconds per axis unit
  QString unitName() const;
  void redrawSmall(SmallChart& c, double x0, double x1);
  void redrawDistillation();
  void updateLegend();

  QTimer* timer_;
  QChartView* makespanView_;
  QChart* makespanChart_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  QScatterSeries* scatter_;
  QLineSeries* mean_;
  QLineSeries* best_;
  QScatterSeries* evals_;
  QLineSeries* lowerBound_;
  QLineSeries* criticalPath_;
  QLineSeries* localSearch_;
  // Names written on the reference lines at the plot's right end, so that a screenshot explains
  // them without the legend.
  QGraphicsSimpleTextItem* refLabels_[3];
  std::vector<SmallChart> small_;
  std::vector<QChartView*> smallViews_;
  LegendBar* legend_;
  QChartView* distillView_;
  QValueAxis* distillAxisX_;
  QValueAxis* distillAxisY_;
  QLineSeries* distillGreedy_;
  QLineSeries* distillTarget_;

  TrainingReferences refs_;
  long planned_ = 0;
  int window_ = 100;
  int lastPlotWidth_ = 0;
  double unitUs_ = 0;  // fixed by the first value seen after a reset (0: none yet)

  // One entry per report (x = episode): the dense series.
  std::vector<double> episode_, makespan_, meanY_, selLoss_, plcLoss_, entropy_, lr_, speed_;
  // The moving mean over the last window_ finite makespans: their indices and running sum.
  std::vector<size_t> finite_;
  double sum_ = 0;
  long sinceExactSum_ = 0;
  // Sparse series: the best so far as a step line (its corners), the greedy evaluations.
  std::vector<double> bestX_, bestY_, evalX_, evalY_;
  double bestSoFar_ = NAN;
  // Distillation: per report its update, the greedy makespan (NaN where not measured) and the
  // best episode's makespan it distils.
  std::vector<double> distillX_, distillGreedyUs_;
  double distillTargetUs_ = NAN;
};

}  // namespace doppler::views
