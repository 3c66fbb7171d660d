#pragma once
// The decision trace of the shown method in the selected slot: the reference plan (the slot's OT
// plan from the method's own explanation, or else the OT plan the OT-only run chose in that
// slot), the method's allocation, and their difference (allocation − reference, diverging
// colours), as region x region matrices (rows: home region, columns: serving region); below,
// the regret against OT-only per slot (the method's slot mean response minus OT-only's on the
// same seed) with the safety layer's fallback slots marked, and the slot's fallback reason.
#include <QWidget>

#include "views/fleet/fleet_line_chart.h"
#include "views/fleet/fleet_run_model.h"

namespace doppler::views {

class FleetDecisionView : public QWidget {
  Q_OBJECT
 public:
  explicit FleetDecisionView(FleetRunModel* model, QWidget* parent = nullptr);

  // The slot's text line (regret, reference, fallback), as drawn.
  QString summary() const;
  LineChartSpec regretSpec() const;
  QSize sizeHint() const override { return {520, 420}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;

 private:
  FleetRunModel* model_;
  QRectF regretPlot_;
};

}  // namespace doppler::views
