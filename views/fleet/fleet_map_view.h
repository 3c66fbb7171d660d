#pragma once
// The fleet map: the regions at their projected coordinates (map_projection.h: equirectangular,
// wrapped at a seam for worlds around the globe; planar topologies as given), the topology's
// links drawn thin,
// each region a disc whose area shows its pool's request rate and whose colour shows its
// utilization in the selected slot, its queue as a bar beside it, and the selected slot's
// cross-region flows as curved arrows of width proportional to the requests allocated (routed
// share x arrivals). Only flows above a small threshold are drawn, so a 37-region topology stays
// readable. Names show for the largest pools, the selected region and on hover.
#include <QWidget>
#include <string>
#include <vector>

#include "views/fleet/fleet_run_model.h"
#include "views/fleet/map_projection.h"

namespace doppler::views {

class FleetMapView : public QWidget {
  Q_OBJECT
 public:
  // Flows under this share of the slot's arrivals are left out, and at most kMaxFlows drawn.
  static constexpr double kFlowThreshold = 0.005;
  static constexpr int kMaxFlows = 60;

  explicit FleetMapView(FleetRunModel* model, QWidget* parent = nullptr);

  // Where a region's disc is centred, in widget coordinates (for tests and tooltips).
  QPointF regionPoint(int region) const;
  int regionAt(const QPointF& pos) const;  // -1: none
  // The flows drawn for the selected slot and method: the model's flows above the threshold.
  std::vector<FleetFlow> shownFlows() const;
  void paintMap(QPainter& p, const QRectF& area);
  // What the discs' colour shows (the heatmap's metric, on the same scale).
  void setMetric(HeatMetric metric);
  HeatMetric metric() const { return metric_; }

  QSize sizeHint() const override { return {720, 460}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

 private:
  void project();
  QPointF toWidget(int region, const QRectF& area) const;
  QPointF toWidget(const QPointF& projected, const QRectF& area) const;
  double discRadius(int region, const QRectF& area) const;
  QRectF plotArea(const QRectF& area) const;

  FleetRunModel* model_;
  MapProjection projection_;
  int hovered_ = -1;
  double maxPool_ = 0, maxQueue_ = 0, maxFlow_ = 0;
  HeatMetric metric_ = HeatMetric::LoadShare;
  double colorMax_ = 1;    // the top of the disc colour scale
  std::string scaledFor_;  // the method the scales are of
};

}  // namespace doppler::views
