#pragma once
// Each metric per method over slots, one chart each: mean response per slot, requests queued
// (whole fleet) and electricity cost per slot. One line per method of the run (a comparison's
// shown seed); the selected slot is a vertical line, a click selects a slot.
#include <QWidget>
#include <vector>

#include "views/fleet/fleet_line_chart.h"
#include "views/fleet/fleet_run_model.h"

namespace doppler::views {

class FleetChartsView : public QWidget {
  Q_OBJECT
 public:
  enum class Metric { Response, Queued, Power };
  explicit FleetChartsView(FleetRunModel* model, QWidget* parent = nullptr);

  // What a chart draws (tests read the series the views paint).
  LineChartSpec spec(Metric metric) const;
  QSize sizeHint() const override { return {560, 420}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  FleetRunModel* model_;
  std::vector<QRectF> plots_;
};

}  // namespace doppler::views
