#include "views/fleet/fleet_decision_view.h"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <algorithm>
#include <cmath>

#include "views/common/series_smoothing.h"
#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

namespace {

// One matrix: rows home regions, columns serving regions; `scale` maps a value to the colour
// scale's end (diverging: ±scale). `box` holds the title, a header row of column numbers and, on
// the left, a gutter `gutter` wide for the row labels: "3 vienna" where `names` is given, else the
// number alone (the matrices side by side share their rows, so the first one names them).
// Labels thin out to every k-th where the cells are smaller than the text. Returns the cells.
QRectF paintMatrix(QPainter& p, const QRectF& box, double gutter, const std::vector<QString>* names,
                   const fs::Allocation& a, bool diverging, double scale, const QString& title,
                   int selectedRegion) {
  const Theme& th = Theme::current();
  const QFontMetrics fm = p.fontMetrics();
  p.setPen(th.text);
  p.drawText(QRectF(box.left(), box.top(), box.width(), fm.height()), Qt::AlignLeft,
             fm.elidedText(title, Qt::ElideRight, static_cast<int>(box.width())));
  const double headerH = fm.height();
  const double side =
      std::max(0.0, std::min(box.width() - gutter, box.height() - fm.height() - headerH - 4));
  const QRectF cells(box.left() + gutter, box.top() + fm.height() + headerH + 4, side, side);
  if (a.regions == 0) {
    p.setPen(th.mutedText);
    p.drawText(cells, Qt::AlignCenter | Qt::TextWordWrap, QObject::tr("none"));
    return cells;
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
  // Region labels: numbers over the columns, numbers (and names) beside the rows.
  p.setPen(th.mutedText);
  const double numberW = fm.horizontalAdvance(QString::number(a.regions)) + 4;
  const int columnStep = std::max(1, static_cast<int>(std::ceil(numberW / std::max(c, 1e-9))));
  const int rowStep = std::max(1, static_cast<int>(std::ceil(fm.height() / std::max(c, 1e-9))));
  for (int j = 0; j < a.regions; j += columnStep)
    p.drawText(QRectF(cells.left() + (j + 0.5) * c - numberW, cells.top() - headerH - 2,
                      2 * numberW, headerH),
               Qt::AlignHCenter | Qt::AlignBottom, QString::number(j + 1));
  for (int i = 0; i < a.regions; i += rowStep) {
    QString label = QString::number(i + 1);
    if (names && i < static_cast<int>(names->size()))
      label = fm.elidedText(label + QLatin1Char(' ') + (*names)[i], Qt::ElideRight,
                            static_cast<int>(gutter - 4));
    p.drawText(QRectF(box.left(), cells.top() + (i + 0.5) * c - fm.height() / 2.0, gutter - 4,
                      fm.height()),
               Qt::AlignRight | Qt::AlignVCenter, label);
  }
  if (selectedRegion >= 0 && selectedRegion < a.regions) {
    p.setPen(QPen(th.selection, 1.5));
    p.drawRect(QRectF(cells.left(), cells.top() + selectedRegion * c, side, c));
  }
  return cells;
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

int FleetDecisionView::slotsPerHour() const {
  const double seconds = model_->info().slot_seconds;
  return std::max(1, static_cast<int>(std::lround(seconds > 0 ? 3600 / seconds : 1)));
}

LineChartSpec FleetDecisionView::regretSpec() const {
  LineChartSpec s;
  const std::string& m = model_->method();
  // A slot's regret swings with its bursts; what a reader judges is the trend, so the trailing
  // hour's mean is drawn bold over the per-slot values, which stay faint.
  s.title = tr("regret against OT-only, mean over the last hour (faint: per slot)");
  s.unit = QStringLiteral("s");
  s.slot = model_->slot();
  s.zeroLine = true;
  s.markers = model_->fallbackSlots(m);
  s.markerName = tr("fallback");
  if (model_->result(m) && model_->result(FleetRunModel::kReferenceMethod)) {
    const std::vector<double> perSlot = model_->regretSeries(m);
    QColor faint = methodColor(m);
    faint.setAlphaF(0.35);
    s.series.push_back(
        {tr("%1 per slot").arg(QString::fromStdString(m)), faint, perSlot, false, 1.0, false});
    s.series.push_back({tr("%1, hourly mean").arg(QString::fromStdString(m)), methodColor(m),
                        trailingMean(perSlot, slotsPerHour()), false, 2.2, true});
  }
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
  std::vector<QString> names;
  if (const fleet::World* w = model_->world())
    for (const auto& region : w->regions) names.push_back(QString::fromStdString(region.name));
  const double numberGutter = fm.horizontalAdvance(QString::number(names.size())) + 8;
  double nameGutter = numberGutter;
  for (const QString& name : names)
    nameGutter = std::max<double>(nameGutter, fm.horizontalAdvance(name) + numberGutter);
  nameGutter = std::min(nameGutter, width() * 0.18);
  const double top = fm.height() + 10;
  const double barsW = 62;  // the two colour bars and their labels
  const double w = (width() - 8 - barsW - nameGutter - 2 * numberGutter) / 3.0;
  const double matrixH = std::min(height() * 0.55, w + 2 * fm.height() + 4);
  const fs::Allocation* matrices[3] = {&ref, &alloc, &diff};
  matrixTitles_ = {model_->referenceIsOwn(m, t) ? tr("OT plan (reference)") : tr("OT-only's plan"),
                   tr("%1's allocation").arg(QString::fromStdString(m)),
                   tr("allocation − reference")};
  double x = 8;
  for (int k = 0; k < 3; ++k) {
    const double gutter = k == 0 ? nameGutter : numberGutter;
    cells_[k] = paintMatrix(p, QRectF(x, top, gutter + w - 8, matrixH), gutter,
                            k == 0 ? &names : nullptr, *matrices[k], k == 2, k == 2 ? dscale : 1.0,
                            matrixTitles_[k], model_->region());
    x += gutter + w;
  }
  const double side = cells_[0].height();
  paintColorBar(p, QRectF(x, cells_[0].top(), 10, side / 2 - 4), false, QStringLiteral("0"),
                QStringLiteral("1"), QString());
  paintColorBar(p, QRectF(x, cells_[0].top() + side / 2 + 4, 10, side / 2 - 4), true,
                QStringLiteral("-") + shortValue(dscale), QStringLiteral("+") + shortValue(dscale),
                QString());
  p.setPen(th.mutedText);
  const double textTop = cells_[0].bottom() + 4;
  p.drawText(QRectF(8, textTop, width() - 16, fm.height()), Qt::AlignLeft,
             tr("rows: home region · columns: serving region (numbered as the rows) · largest "
                "|Δ| %1")
                 .arg(dmax, 0, 'f', 3));
  const QString line = summary();
  p.setPen(model_->fallbackReason(m, t).isEmpty() ? th.text : th.critical);
  const QRectF textBox(8, textTop + fm.height() + 2, width() - 16, 2 * fm.height() + 2);
  p.drawText(textBox, Qt::AlignLeft | Qt::TextWordWrap, line);
  const QRectF chart(0, textBox.bottom() + 4, width() - 2, height() - textBox.bottom() - 6);
  if (chart.height() > 50) regretPlot_ = paintLineChart(p, chart, regretSpec());
}

QString FleetDecisionView::toolTipAt(const QPointF& pos) const {
  const fleet::World* w = model_->world();
  const std::string& m = model_->method();
  if (!w || !model_->result(m)) return {};
  const int t = model_->slot();
  for (int k = 0; k < 3; ++k) {
    const QRectF& cells = cells_[k];
    const int regions = model_->regions();
    if (!cells.contains(pos) || regions == 0 || cells.width() <= 0) continue;
    const int j = std::clamp(static_cast<int>((pos.x() - cells.left()) / cells.width() * regions),
                             0, regions - 1);
    const int i = std::clamp(static_cast<int>((pos.y() - cells.top()) / cells.height() * regions),
                             0, regions - 1);
    const fs::Allocation a = k == 0   ? model_->reference(m, t)
                             : k == 1 ? model_->allocation(m, t)
                                      : model_->difference(m, t);
    if (a.regions != regions) return {};
    return tr("%1\nhome %2 %3 → served in %4 %5\n%6 of the home region's requests")
        .arg(matrixTitles_[k])
        .arg(i + 1)
        .arg(QString::fromStdString(w->regions[i].name))
        .arg(j + 1)
        .arg(QString::fromStdString(w->regions[j].name))
        .arg(a.at(i, j), 0, 'f', 3);
  }
  return {};
}

bool FleetDecisionView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const QString text = toolTipAt(help->pos());
    if (text.isEmpty())
      QToolTip::hideText();
    else
      QToolTip::showText(help->globalPos(), text, this);
    return true;
  }
  return QWidget::event(event);
}

void FleetDecisionView::mousePressEvent(QMouseEvent* event) {
  if (regretPlot_.contains(event->position()))
    model_->setSlot(slotAtX(regretPlot_, model_->slots(), event->position().x()));
}

}  // namespace doppler::views
