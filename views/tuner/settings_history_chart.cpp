#include "views/tuner/settings_history_chart.h"

#include <QtCharts/QChart>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>

#include "views/common/nice_ticks.h"
#include "views/common/theme.h"

namespace doppler::views {

SettingsHistoryChart::SettingsHistoryChart(QWidget* parent) : QChartView(parent) {
  setObjectName(QStringLiteral("historyChart"));
  auto* chart = new QChart;
  chart->setTitle(tr("Makespan of each setting"));
  chart->legend()->setAlignment(Qt::AlignTop);
  chart->setMargins(QMargins(4, 4, 8, 4));
  history_ = new QLineSeries;
  history_->setName(tr("makespan"));
  history_->setPointsVisible(true);
  bound_ = new QLineSeries;
  bound_->setName(tr("lower bound"));
  chart->addSeries(history_);
  chart->addSeries(bound_);
  axisX_ = new QValueAxis;
  axisX_->setLabelFormat(QStringLiteral("%d"));
  axisX_->setTitleText(tr("setting"));
  axisY_ = new QValueAxis;
  axisY_->setLabelFormat(QStringLiteral("%.2f"));
  axisY_->setTitleText(tr("makespan (ms)"));
  chart->addAxis(axisX_, Qt::AlignBottom);
  chart->addAxis(axisY_, Qt::AlignLeft);
  for (QLineSeries* s : {history_, bound_}) {
    s->attachAxis(axisX_);
    s->attachAxis(axisY_);
  }
  // setChart releases the chart QChartView's constructor made without deleting it (ASan found
  // the leak): deleted here.
  QChart* const made = this->chart();
  setChart(chart);
  delete made;
  setRenderHint(QPainter::Antialiasing);
  // Room for two axis titles, their labels and a plot: below this, Qt Charts elides labels.
  setMinimumSize(320, 220);
  applyTheme();
}

int SettingsHistoryChart::pointCount() const {
  return static_cast<int>(history_->count());
}

void SettingsHistoryChart::addSnapshot(const PlacementSnapshot& s) {
  if (graph_ != s.graph.get() || devices_ != s.devices->size() || !s.previous_makespan_us) {
    history_->clear();
    graph_ = s.graph.get();
    devices_ = s.devices->size();
    count_ = 0;
  }
  ++count_;
  history_->append(count_, s.makespan() / 1000);
  while (history_->count() > kMaxPoints) history_->remove(0);
  const double first = history_->at(0).x();
  const double last = std::max<double>(count_, first + 1);
  bound_->clear();
  bound_->append(first, s.lower_bound_us / 1000);
  bound_->append(last, s.lower_bound_us / 1000);
  double lo = s.lower_bound_us / 1000, hi = lo;
  for (const QPointF& p : history_->points()) {
    lo = std::min(lo, p.y());
    hi = std::max(hi, p.y());
  }
  const double pad = std::max((hi - lo) * 0.1, hi * 0.02 + 1e-9);
  setNiceAxis(axisY_, std::max(0.0, lo - pad), hi + pad, 4);
  // Settings are counted: whole numbers, a step of at least 1.
  setNiceAxis(axisX_, first, last, std::clamp(static_cast<int>(last - first), 1, 6));
}

void SettingsHistoryChart::applyTheme() {
  const Theme& t = Theme::current();
  chart()->setTheme(t.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart()->setBackgroundBrush(t.background);
  chart()->setTitleBrush(t.text);
  bound_->setPen(QPen(t.mutedText, 1.5, Qt::DashLine));
  history_->setPen(QPen(QColor(0x4e, 0x79, 0xa7), 2));
}

}  // namespace doppler::views
