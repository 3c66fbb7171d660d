#pragma once
// The makespan of each setting the user tried on the open graph and device set, with the lower
// bound: a chart of its own (a dock) so that its axes have room to be read. It starts over when
// the graph or the device count changes.
#include <QtCharts/QChartView>

#include "views/common/snapshot.h"

class QLineSeries;
class QValueAxis;

namespace doppler::views {

class SettingsHistoryChart : public QChartView {
  Q_OBJECT
 public:
  static constexpr int kMaxPoints = 40;
  explicit SettingsHistoryChart(QWidget* parent = nullptr);

  void addSnapshot(const PlacementSnapshot& s);
  int pointCount() const;
  // Re-applies the theme's colours (light / dark).
  void applyTheme();

 private:
  QLineSeries* history_;
  QLineSeries* bound_;
  QValueAxis* axisX_;
  QValueAxis* axisY_;
  const void* graph_ = nullptr;
  int devices_ = 0;
  int count_ = 0;
};

}  // namespace doppler::views
