#include "views/fleet/fleet_heatmap_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

FleetHeatmapView::FleetHeatmapView(FleetRunModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("fleetHeatmap"));
  setMinimumSize(320, 160);
  setMouseTracking(true);
  connect(model_, &FleetRunModel::resultsChanged, this, [this] {
    rebuild();
    update();
  });
  connect(model_, &FleetRunModel::selectionChanged, this, [this] {
    if (builtFor_ != model_->method()) rebuild();
    update();
  });
}

void FleetHeatmapView::setMetric(HeatMetric metric) {
  if (metric == metric_) return;
  metric_ = metric;
  rebuild();
  update();
}

double FleetHeatmapView::cellValue(int slot, int region) const {
  return model_->heat(metric_, model_->method(), slot, region);
}

void FleetHeatmapView::rebuild() {
  const std::string& method = model_->method();
  builtFor_ = method;
  const int slots = model_->slots(), regions = model_->regions();
  if (!model_->result(method) || slots <= 0 || regions <= 0) {
    cells_ = QImage();
    return;
  }
  max_ = model_->heatScaleMax(metric_, method);
  cells_ = QImage(slots, regions, QImage::Format_RGB32);
  for (int i = 0; i < regions; ++i)
    for (int t = 0; t < slots; ++t)
      cells_.setPixel(t, i, sequentialColor(max_ > 0 ? cellValue(t, i) / max_ : 0.0).rgb());
}

QRect FleetHeatmapView::cellsRect() const {
  const QFontMetrics fm = fontMetrics();
  const int left = std::min(150, fm.horizontalAdvance(QStringLiteral("Washington DC")) + 14);
  return QRect(left, fm.height() + 12, std::max(10, width() - left - 70),
               std::max(10, height() - 2 * fm.height() - 22));
}

QPointF FleetHeatmapView::cellCenter(int slot, int region) const {
  const QRect r = cellsRect();
  const int slots = std::max(1, model_->slots()), regions = std::max(1, model_->regions());
  return {r.left() + (slot + 0.5) * r.width() / slots,
          r.top() + (region + 0.5) * r.height() / regions};
}

bool FleetHeatmapView::cellAt(const QPointF& pos, int* slot, int* region) const {
  const QRect r = cellsRect();
  if (!r.contains(pos.toPoint()) || model_->slots() <= 0 || model_->regions() <= 0) return false;
  *slot = std::clamp(static_cast<int>((pos.x() - r.left()) * model_->slots() / r.width()), 0,
                     model_->slots() - 1);
  *region = std::clamp(static_cast<int>((pos.y() - r.top()) * model_->regions() / r.height()), 0,
                       model_->regions() - 1);
  return true;
}

void FleetHeatmapView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const Theme& th = Theme::current();
  p.fillRect(rect(), th.background);
  const QFontMetrics fm = fontMetrics();
  const fleet::World* w = model_->world();
  p.setPen(th.text);
  p.setFont(titleFont(*this, 1.0));
  if (cells_.isNull() || !w) {
    p.drawText(rect(), Qt::AlignCenter, tr("Regions × slots heatmap: no run yet"));
    return;
  }
  p.drawText(QPointF(8, fm.height() + 2),
             tr("%1 per region and slot · %2")
                 .arg(heatMetricName(metric_), QString::fromStdString(model_->method())));
  p.setFont(font());
  const QRect r = cellsRect();
  p.setRenderHint(QPainter::SmoothPixmapTransform, false);
  p.drawImage(r, cells_);
  // Region names, as many as fit.
  const int regions = model_->regions(), slots = model_->slots();
  const double rowH = static_cast<double>(r.height()) / regions;
  const int every = std::max(1, static_cast<int>(std::ceil(fm.height() / std::max(1.0, rowH))));
  p.setPen(th.mutedText);
  for (int i = 0; i < regions; i += every)
    p.drawText(
        QRectF(0, r.top() + i * rowH + rowH / 2 - fm.height() / 2.0, r.left() - 6, fm.height()),
        Qt::AlignRight | Qt::AlignVCenter,
        fm.elidedText(QString::fromStdString(w->regions[i].name), Qt::ElideRight, r.left() - 8));
  // Slot axis: a tick every hour of the horizon.
  const double perHour = 3600.0 / std::max(1.0, model_->info().slot_seconds);
  const int hours = static_cast<int>(slots / perHour);
  const int step = std::max(1, hours / 8);
  for (int h = 0; h <= hours; h += step) {
    const double x = r.left() + h * perHour * r.width() / slots;
    p.setPen(th.grid);
    p.drawLine(QPointF(x, r.bottom() + 1), QPointF(x, r.bottom() + 5));
    p.setPen(th.mutedText);
    p.drawText(QRectF(x - 30, r.bottom() + 5, 60, fm.height()), Qt::AlignHCenter,
               tr("+%1 h").arg(h));
  }
  // The selection.
  const int t = model_->slot();
  const double x = r.left() + (t + 0.5) * r.width() / slots;
  p.setPen(QPen(th.hover, 2));
  p.drawLine(QPointF(x, r.top() - 4), QPointF(x, r.bottom() + 1));
  if (model_->region() >= 0) {
    p.setPen(QPen(th.selection, 1.5));
    p.setBrush(Qt::NoBrush);
    p.drawRect(QRectF(r.left(), r.top() + model_->region() * rowH, r.width(), rowH));
  }
  paintColorBar(p, QRectF(r.right() + 22, r.top(), 12, r.height()), false, QStringLiteral("0"),
                shortValue(max_), QString());
}

void FleetHeatmapView::mousePressEvent(QMouseEvent* event) {
  int slot = 0, region = 0;
  if (event->button() != Qt::LeftButton || !cellAt(event->position(), &slot, &region)) return;
  model_->setSlot(slot);
  model_->setRegion(region);
}

void FleetHeatmapView::mouseMoveEvent(QMouseEvent* event) {
  int slot = 0, region = 0;
  if (!cellAt(event->position(), &slot, &region) || !model_->world()) {
    setToolTip({});
    return;
  }
  setToolTip(tr("%1 · %2\n%3 %4")
                 .arg(QString::fromStdString(model_->world()->regions[region].name),
                      model_->slotLabel(slot), heatMetricName(metric_),
                      shortValue(cellValue(slot, region))));
}

}  // namespace doppler::views
