#pragma once
// The decision trace of the shown method in the selected slot: the reference plan (the slot's OT
// plan from the method's own explanation, or else the OT plan the OT-only run chose in that
// slot), the method's allocation, and their difference (allocation − reference, diverging
// colours), as region x region matrices (rows: home region, numbered and named; columns: serving
// region, numbered alike; a cell's tooltip names both); below, the regret against OT-only, its
// trailing hour's mean over the faint per-slot values (the method's slot mean response minus
// OT-only's on the same seed) with the safety layer's fallback slots marked, and the slot's
// fallback reason.
#include <QWidget>
#include <array>

#include "views/fleet/fleet_line_chart.h"
#include "views/fleet/fleet_run_model.h"

namespace doppler::views {

class FleetDecisionView : public QWidget {
  Q_OBJECT
 public:
  explicit FleetDecisionView(FleetRunModel* model, QWidget* parent = nullptr);

  // The slot's text line (regret, reference, fallback), as drawn.
  QString summary() const;
  // Regret per slot (faint) and its mean over the trailing hour.
  LineChartSpec regretSpec() const;
  // What a matrix cell under `pos` holds, with both regions named; "" off the matrices.
  QString toolTipAt(const QPointF& pos) const;
  // The matrices' cells as last painted: reference, allocation, difference.
  QRectF matrixCells(int which) const { return cells_[which]; }
  QSize sizeHint() const override { return {520, 420}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

 private:
  int slotsPerHour() const;

  FleetRunModel* model_;
  QRectF regretPlot_;
  QRectF cells_[3];
  std::array<QString, 3> matrixTitles_;
};

}  // namespace doppler::views
