#include "views/fleet/fleet_decision_view.h"

#include <QMouseEvent>
#include <QPainter>
#include <algorithm>
#include <cmath>

#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

namespace {

// One matrix: rows home regions, columns serving regions; `scale` maps a value to the colour
// scale's end (diverging: ±scale).
void paintMatrix(QPainter& p, const QRectF& box, const fs::Allocation& a, bool diverging,
                 double scale, const QString& title, int selectedRegion) {
  const Theme& th = Theme::current();
  const QFontMetrics fm = p.fontMetrics();
  p.setPen(th.text);
  p.drawText(QRectF(box.left(), box.top(), box.width(), fm.height()), Qt::AlignLeft, title);
  const double side = std::min(box.width(), box.height() - fm.height() - 4);
  const QRectF cells(box.left(), box.top() + fm.height() + 4, side, side);
  if (a.regions == 0) {
    p.setPen(th.mutedText);
    p.drawText(cells, Qt::AlignCenter | Qt::TextWordWrap, QObject::tr("none"));
    return;
  }
  const double c = side / a.regions;
  p.setPen(Qt::NoPen);
  for (int i = 0; i < a.regions; ++i)
    for (int j = 0; j < a.regions; ++j) {
      const double v = a.at(i, j);
      p.setBrush(diverging ? divergingColor(scale > 0 ? v / scale : 0)
                           : sequentialColor(scale > 0 ? v / scale : 0));
      p.drawRect(QRectF(cells.left() + j * c, cells.top() + i * c, c + 0.5, c + 0.5));
    }
  p.setBrush(Qt::NoBrush);
  p.setPen(th.grid);
  p.drawRect(cells);
  if (selectedRegion >= 0 && selectedRegion < a.regions) {
    p.setPen(QPen(th.selection, 1.5));
    p.drawRect(QRectF(cells.left(), cells.top() + selectedRegion * c, side, c));
  }
}

}  // namespace

FleetDecisionView::FleetDecisionView(FleetRunModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("fleetDecision"));
  setMinimumSize(320, 260);
  connect(model_, &FleetRunModel::resultsChanged, this, qOverload<>(&QWidget::update));
  connect(model_, &FleetRunModel::selectionChanged, this, qOverload<>(&QWidget::update));
}

QString FleetDecisionView::summary() const {
  const std::string& m = model_->method();
  const int t = model_->slot();
  if (!model_->result(m)) return {};
  QString s = tr("%1, slot %2: ").arg(QString::fromStdString(m)).arg(t);
  if (const auto r = model_->regret(m, t))
    s += tr("regret %1%2 s against OT-only")
             .arg(*r >= 0 ? QStringLiteral("+") : QString())
             .arg(*r, 0, 'f', 4);
  else if (!model_->result(FleetRunModel::kReferenceMethod))
    s += tr("no OT-only run to measure regret against");
  else
    s += tr("no requests in this slot");
  s += model_->referenceIsOwn(m, t) ? tr(" · reference: the slot's OT plan")
                                    : tr(" · reference: OT-only's plan in this slot");
  const std::vector<int> fallbacks = model_->fallbackSlots(m);
  const QString reason = model_->fallbackReason(m, t);
  if (!reason.isEmpty() || std::binary_search(fallbacks.begin(), fallbacks.end(), t))
    s += tr(" · FELL BACK to the OT plan: %1").arg(reason.isEmpty() ? tr("(no reason)") : reason);
  s += tr(" · %1 fallback slots in the run").arg(fallbacks.size());
  return s;
}

LineChartSpec FleetDecisionView::regretSpec() const {
  LineChartSpec s;
  const std::string& m = model_->method();
  s.title = tr("regret against OT-only per slot");
  s.unit = QStringLiteral("s");
  s.slot = model_->slot();
  s.zeroLine = true;
  s.markers = model_->fallbackSlots(m);
  s.markerName = tr("fallback");
  if (model_->result(m) && model_->result(FleetRunModel::kReferenceMethod))
    s.series.push_back({QString::fromStdString(m), methodColor(m), model_->regretSeries(m), false});
  return s;
}

void FleetDecisionView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const Theme& th = Theme::current();
  p.fillRect(rect(), th.background);
  p.setRenderHint(QPainter::Antialiasing, false);
  const std::string& m = model_->method();
  const int t = model_->slot();
  const QFontMetrics fm = fontMetrics();
  p.setPen(th.text);
  p.setFont(titleFont(*this, 1.0));
  if (!model_->result(m)) {
    p.drawText(rect(), Qt::AlignCenter, tr("Decision trace: no run yet"));
    return;
  }
  p.drawText(QPointF(8, fm.height() + 2), tr("Decision trace · %1").arg(model_->slotLabel(t)));
  p.setFont(font());
  const fs::Allocation ref = model_->reference(m, t);
  const fs::Allocation alloc = model_->allocation(m, t);
  const fs::Allocation diff = model_->difference(m, t);
  double dmax = 0;
  for (double v : diff.share) dmax = std::max(dmax, std::abs(v));
  const double dscale = std::max(dmax, 0.05);
  const double top = fm.height() + 10;
  const double matrixH = std::min(height() * 0.55, (width() - 70) / 3.0 + fm.height() + 4);
  const double w = (width() - 70) / 3.0;
  paintMatrix(p, QRectF(8, top, w - 8, matrixH), ref, false, 1.0,
              model_->referenceIsOwn(m, t) ? tr("OT plan (reference)") : tr("OT-only's plan"),
              model_->region());
  paintMatrix(p, QRectF(8 + w, top, w - 8, matrixH), alloc, false, 1.0,
              tr("%1's allocation").arg(QString::fromStdString(m)), model_->region());
  paintMatrix(p, QRectF(8 + 2 * w, top, w - 8, matrixH), diff, true, dscale,
              tr("allocation − reference"), model_->region());
  const double side = std::min(w - 8, matrixH - fm.height() - 4);
  paintColorBar(p, QRectF(8 + 3 * w, top + fm.height() + 4, 10, side / 2 - 4), false,
                QStringLiteral("0"), QStringLiteral("1"), QString());
  paintColorBar(p, QRectF(8 + 3 * w, top + fm.height() + side / 2 + 4, 10, side / 2 - 4), true,
                QStringLiteral("-") + shortValue(dscale), QStringLiteral("+") + shortValue(dscale),
                QString());
  p.setPen(th.mutedText);
  const double textTop = top + fm.height() + 8 + side;
  p.drawText(
      QRectF(8, textTop, width() - 16, fm.height()), Qt::AlignLeft,
      tr("rows: home region · columns: serving region · largest |Δ| %1").arg(dmax, 0, 'f', 3));
  const QString line = summary();
  p.setPen(model_->fallbackReason(m, t).isEmpty() ? th.text : th.critical);
  const QRectF textBox(8, textTop + fm.height() + 2, width() - 16, 2 * fm.height() + 2);
  p.drawText(textBox, Qt::AlignLeft | Qt::TextWordWrap, line);
  const QRectF chart(0, textBox.bottom() + 4, width() - 2, height() - textBox.bottom() - 6);
  if (chart.height() > 50) regretPlot_ = paintLineChart(p, chart, regretSpec());
}

void FleetDecisionView::mousePressEvent(QMouseEvent* event) {
  if (regretPlot_.contains(event->position()))
    model_->setSlot(slotAtX(regretPlot_, model_->slots(), event->position().x()));
}

}  // namespace doppler::views
