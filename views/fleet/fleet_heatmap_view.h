#pragma once
// The regions x slots heatmap of the shown method's run: one row per region (in the topology's
// order), one column per slot, coloured by the chosen metric (utilization of the pool or of its
// On servers, queue, or demand ÷ capacity) on one scale for the whole run. The selected slot is a
// vertical line, the selected region an outlined row; a click selects both.
#include <QImage>
#include <QWidget>

#include "views/fleet/fleet_run_model.h"

namespace doppler::views {

class FleetHeatmapView : public QWidget {
  Q_OBJECT
 public:
  explicit FleetHeatmapView(FleetRunModel* model, QWidget* parent = nullptr);

  void setMetric(HeatMetric metric);
  HeatMetric metric() const { return metric_; }
  // The value a cell shows (the model's), and the cell under a widget point.
  double cellValue(int slot, int region) const;
  QRect cellsRect() const;  // where the cells are drawn
  QPointF cellCenter(int slot, int region) const;
  bool cellAt(const QPointF& pos, int* slot, int* region) const;

  QSize sizeHint() const override { return {640, 300}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

 private:
  void rebuild();

  FleetRunModel* model_;
  HeatMetric metric_ = HeatMetric::LoadShare;
  QImage cells_;  // slots x regions, one pixel per cell, scaled when drawn
  double max_ = 0;
  std::string builtFor_;
};

}  // namespace doppler::views
