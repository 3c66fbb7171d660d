#include "views/fleet/fleet_charts_view.h"

#include <QMouseEvent>
#include <QPainter>

#include "views/common/theme.h"
#include "views/fleet/fleet_colors.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

FleetChartsView::FleetChartsView(FleetRunModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("fleetCharts"));
  setMinimumSize(300, 240);
  connect(model_, &FleetRunModel::resultsChanged, this, qOverload<>(&QWidget::update));
  connect(model_, &FleetRunModel::selectionChanged, this, qOverload<>(&QWidget::update));
}

LineChartSpec FleetChartsView::spec(Metric metric) const {
  LineChartSpec s;
  switch (metric) {
    case Metric::Response:
      s.title = tr("mean response per slot");
      s.unit = QStringLiteral("s");
      s.logY = true;
      break;
    case Metric::Queued:
      s.title = tr("requests queued, whole fleet");
      break;
    case Metric::Power:
      s.title = tr("electricity per slot");
      s.unit = QStringLiteral("$");
      break;
  }
  s.slot = model_->slot();
  for (const std::string& m : model_->methods()) {
    const fs::SimResult* r = model_->result(m);
    ChartSeries c;
    c.name = QString::fromStdString(m);
    c.color = methodColor(m);
    c.values = metric == Metric::Response ? r->series.mean_response_s
               : metric == Metric::Queued ? r->series.queued
                                          : r->series.power_usd;
    // A slot nothing arrived in has no response to show.
    if (metric == Metric::Response)
      for (size_t t = 0; t < c.values.size() && t < r->series.arrivals.size(); ++t)
        if (r->series.arrivals[t] <= 0) c.values[t] = NAN;
    s.series.push_back(std::move(c));
  }
  return s;
}

void FleetChartsView::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.fillRect(rect(), Theme::current().background);
  plots_.clear();
  if (model_->methods().empty()) {
    p.setPen(Theme::current().text);
    p.drawText(rect(), Qt::AlignCenter, tr("Charts per method: no run yet"));
    return;
  }
  const double h = height() / 3.0;
  int k = 0;
  for (Metric m : {Metric::Response, Metric::Queued, Metric::Power}) {
    plots_.push_back(paintLineChart(p, QRectF(0, k * h + 2, width() - 2, h - 6), spec(m)));
    ++k;
  }
}

void FleetChartsView::mousePressEvent(QMouseEvent* event) {
  for (const QRectF& plot : plots_)
    if (plot.contains(event->position())) {
      model_->setSlot(slotAtX(plot, model_->slots(), event->position().x()));
      return;
    }
}

}  // namespace doppler::views
