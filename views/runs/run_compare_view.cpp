#include "run_compare_view.h"

#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHideEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QSlider>
#include <QTableWidget>
#include <QTextStream>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLegendMarker>
#include <QtCharts/QLineSeries>
#include <QtCharts/QLogValueAxis>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "views/common/nice_ticks.h"
#include "views/common/series_smoothing.h"
#include "views/common/theme.h"
#include "views/runs/runs_table_model.h"
#include "views/training/minmax_decimator.h"

namespace doppler::views {

namespace {

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QString runHeading(const sessions::RunInfo& run) {
  const QString name = runName(run);
  return name.isEmpty() ? QStringLiteral("run %1").arg(run.id)
                        : QStringLiteral("run %1 “%2”").arg(run.id).arg(name);
}

std::optional<double> figure(const sessions::RunInfo& run, const char* name) {
  const auto it = run.figures.find(name);
  if (it == run.figures.end() || std::isnan(it->second)) return std::nullopt;
  return it->second;
}

// Seconds a training took: its own "seconds" figure, else the run's wall time. Other kinds: none.
double trainingSeconds(const sessions::RunInfo& run) {
  if (run.kind != "train") return -1;
  if (const auto s = figure(run, "seconds")) return *s;
  return runSeconds(run);
}

int deviceCount(const sessions::RunInfo& run, const std::optional<sessions::TimelineRecord>& t) {
  int devices = run.device_count;
  if (t)
    for (const sessions::NodeSpanRecord& span : t->nodes)
      devices = std::max(devices, span.device + 1);
  return devices;
}

QString csvField(QString s) {
  if (s.contains(QLatin1Char(',')) || s.contains(QLatin1Char('"')) || s.contains(QLatin1Char('\n')))
    return QLatin1Char('"') + s.replace(QLatin1Char('"'), QStringLiteral("\"\"")) +
           QLatin1Char('"');
  return s;
}

QString csvNumber(std::optional<double> v) {
  return v && !std::isnan(*v) ? QString::number(*v, 'g', 10) : QString();
}

// The moved nodes of run i (0: the reference, moved against any other run).
std::set<std::string> movedIn(const RunComparison& c, size_t run) {
  std::set<std::string> moved;
  for (size_t d = 0; d < c.diffs.size(); ++d)
    if (run == 0 || d + 1 == run)
      for (const sessions::MovedNode& m : c.diffs[d].moved) moved.insert(m.node_id);
  return moved;
}

// The makespan's difference to the reference run's, signed, in time and percent.
std::optional<std::pair<double, double>> makespanDelta(const RunComparison& c, size_t run) {
  if (run == 0 || c.runs.empty()) return std::nullopt;
  const auto ref = figure(c.runs[0], "makespan_us"), mine = figure(c.runs[run], "makespan_us");
  if (!ref || !mine || *ref <= 0) return std::nullopt;
  return std::make_pair(*mine - *ref, (*mine - *ref) / *ref * 100);
}

QString deltaText(const std::pair<double, double>& d) {
  const QString sign = d.first > 0 ? QStringLiteral("+") : d.first < 0 ? QStringLiteral("−") : "";
  return QStringLiteral("%1%2 (%1%3 %)")
      .arg(sign, formatDuration(std::abs(d.first)))
      .arg(std::abs(d.second), 0, 'f', 1);
}

bool isTimeSeries(const std::string& name) {
  return name.size() > 3 && name.compare(name.size() - 3, 3, "_us") == 0;
}

}  // namespace

std::vector<std::string> orderedSeriesNames(const RunComparison& c) {
  std::vector<std::string> names;
  for (const auto& [name, perRun] : c.all_series)
    if (std::any_of(perRun.begin(), perRun.end(),
                    [](const sessions::Series& s) { return !s.steps.empty(); }))
      names.push_back(name);
  if (names.empty() && !c.series_name.empty()) names.push_back(c.series_name);
  auto rank = [](const std::string& name) {
    static const std::vector<std::string> first = {
        "best_makespan_us", "makespan_us", "greedy_makespan_us", "reward", "loss", "entropy"};
    const auto it = std::find(first.begin(), first.end(), name);
    if (it != first.end()) return static_cast<int>(it - first.begin());
    return name.find("makespan") != std::string::npos ? 2 : static_cast<int>(first.size());
  };
  std::stable_sort(names.begin(), names.end(), [&](const std::string& a, const std::string& b) {
    return rank(a) != rank(b) ? rank(a) < rank(b) : a < b;
  });
  return names;
}

QString seriesTitle(const std::string& name) {
  QString title = q(name);
  if (title.endsWith(QStringLiteral("_us"))) title.chop(3);
  title.replace(QLatin1Char('_'), QLatin1Char(' '));
  return title;
}

void RunCompareView::hideEvent(QHideEvent* event) {
  QWidget::hideEvent(event);
  if (!event->spontaneous()) Q_EMIT closed();
}

QColor runColor(const sessions::RunInfo& run) {
  return Theme::seriesColor(run.id);
}

QStringList movedNodeIds(const RunComparison& c) {
  QStringList ids;
  for (const sessions::PlacementDiff& d : c.diffs)
    for (const sessions::MovedNode& m : d.moved)
      if (!ids.contains(q(m.node_id))) ids << q(m.node_id);
  return ids;
}

double timelineUtilization(const sessions::TimelineRecord& t, int devices) {
  if (t.makespan_us <= 0 || devices <= 0) return std::numeric_limits<double>::quiet_NaN();
  double busy = 0;
  for (const sessions::NodeSpanRecord& span : t.nodes) busy += span.finish_us - span.start_us;
  return busy / (t.makespan_us * devices);
}

// --- the stacked timelines ----------------------------------------------------------------------

class CompareTimelines : public QWidget {
 public:
  explicit CompareTimelines(QWidget* parent = nullptr) : QWidget(parent) {
    setObjectName(QStringLiteral("compareTimelines"));
    setMinimumHeight(160);
  }
  void setComparison(const RunComparison* c) {
    c_ = c;
    update();
  }

 protected:
  void paintEvent(QPaintEvent*) override;

 private:
  const RunComparison* c_ = nullptr;
};

void CompareTimelines::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const Theme& theme = Theme::current();
  p.fillRect(rect(), theme.background);
  p.setRenderHint(QPainter::Antialiasing, false);
  const QFontMetrics fm(font());
  if (!c_ || c_->runs.empty()) return;
  const size_t runs = c_->runs.size();

  double span = 0;
  int lanes = 0;
  for (size_t r = 0; r < runs; ++r) {
    if (c_->timelines[r]) span = std::max(span, c_->timelines[r]->makespan_us);
    lanes += std::max(1, deviceCount(c_->runs[r], c_->timelines[r]));
  }
  if (span <= 0) span = 1;
  const int rulerH = fm.height() + 8, headH = fm.height() + 6, gap = 6;
  const int labelW = fm.horizontalAdvance(QStringLiteral("GPU 00")) + 12;
  const int plotL = labelW, plotR = width() - 12;
  const int avail = height() - rulerH - static_cast<int>(runs) * (headH + gap) - 4;
  const int laneH = std::clamp(lanes > 0 ? avail / lanes : 12, 5, 22);
  auto x = [&](double us) { return plotL + us / span * (plotR - plotL); };

  // Ruler: ticks at a round step, one shared time axis for every run.
  p.setPen(theme.mutedText);
  const double raw = span / std::max(2, (plotR - plotL) / 90);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  for (double t = 0; t <= span * 1.0001; t += step) {
    const int px = static_cast<int>(std::lround(x(t)));
    p.setPen(theme.grid);
    p.drawLine(px, rulerH - 4, px, height());
    p.setPen(theme.mutedText);
    const QString label = t == 0 ? QStringLiteral("0") : formatDuration(t);
    p.drawText(QRect(px - 60, 0, 120, rulerH - 4), Qt::AlignHCenter | Qt::AlignVCenter, label);
  }

  int y = rulerH;
  for (size_t r = 0; r < runs; ++r) {
    const sessions::RunInfo& run = c_->runs[r];
    const auto& timeline = c_->timelines[r];
    const int devices = std::max(1, deviceCount(run, timeline));
    // Heading: the run's colour, name, method and makespan.
    p.fillRect(QRect(4, y + 3, 10, headH - 6), runColor(c_->runs[r]));
    p.setPen(theme.text);
    QString heading = runHeading(run) + QStringLiteral(" · ") + q(run.method);
    if (timeline)
      heading += QStringLiteral(" · ") + formatDuration(timeline->makespan_us);
    else
      heading += tr(" · no timeline recorded");
    if (r == 0 && runs > 1) heading += tr("  (reference)");
    p.drawText(QRect(20, y, width() - 24, headH), Qt::AlignLeft | Qt::AlignVCenter, heading);
    y += headH;
    const std::set<std::string> moved = movedIn(*c_, r);
    for (int device = 0; device < devices; ++device) {
      const QRect lane(plotL, y + device * laneH, plotR - plotL, laneH);
      if (device % 2) p.fillRect(lane, theme.laneAlt);
      if (laneH >= fm.height() - 2 || device == 0) {
        p.setPen(theme.mutedText);
        p.drawText(QRect(0, lane.top(), labelW - 6, laneH), Qt::AlignRight | Qt::AlignVCenter,
                   QStringLiteral("GPU %1").arg(device));
      }
    }
    if (timeline) {
      // Moved nodes solid with an outline, the rest faint: the difference is what the eye finds.
      for (const bool pass : {false, true})
        for (const sessions::NodeSpanRecord& node : timeline->nodes) {
          const bool isMoved = moved.count(node.node_id) > 0;
          if (isMoved != pass || node.device < 0) continue;
          const double x0 = x(node.start_us), x1 = x(node.finish_us);
          const QRectF bar(x0, y + node.device * laneH + 1, std::max(1.0, x1 - x0),
                           std::max(1, laneH - 2));
          QColor fill = Theme::deviceColor(node.device);
          if (!moved.empty() && !isMoved) fill.setAlphaF(0.28);
          p.fillRect(bar, fill);
          if (isMoved && bar.width() >= 3) {
            p.setPen(QPen(theme.text, 1));
            p.drawRect(bar.adjusted(0, 0, -1, -1));
          }
        }
      p.setPen(QPen(runColor(c_->runs[r]), 2, Qt::DashLine));
      const int end = static_cast<int>(std::lround(x(timeline->makespan_us)));
      p.drawLine(end, y, end, y + devices * laneH);
    }
    y += devices * laneH + gap;
  }
}

// --- the view -----------------------------------------------------------------------------------

RunCompareView::RunCompareView(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("runCompare"));
  title_ = new QLabel;
  title_->setFont(titleFont(*this));
  auto* csv = new QPushButton(tr("Export CSV…"));
  csv->setObjectName(QStringLiteral("compareCsv"));
  auto* png = new QPushButton(tr("Export PNG…"));
  png->setObjectName(QStringLiteral("comparePng"));
  connect(csv, &QPushButton::clicked, this, &RunCompareView::exportCsv);
  connect(png, &QPushButton::clicked, this, &RunCompareView::exportPng);

  auto* chart = new QChart;
  chart->legend()->setAlignment(Qt::AlignTop);
  chart->setMargins(QMargins(4, 4, 8, 4));
  chart_ = new QChartView(chart);
  chart_->setRenderHint(QPainter::Antialiasing);
  chart_->setMinimumSize(360, 220);

  seriesPicker_ = new QComboBox;
  seriesPicker_->setObjectName(QStringLiteral("compareSeries"));
  seriesPicker_->setToolTip(tr("The recorded series overlaid in the chart"));
  seriesPicker_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  connect(seriesPicker_, &QComboBox::activated, this, [this](int index) {
    showSeries(seriesPicker_->itemData(index).toString().toStdString());
  });
  smoothing_ = new QSlider(Qt::Horizontal);
  smoothing_->setObjectName(QStringLiteral("compareSmoothing"));
  smoothing_->setRange(0, 99);
  smoothing_->setMaximumWidth(160);
  smoothing_->setToolTip(
      tr("Exponential moving average weight, debiased as in TensorBoard; the raw curve stays "
         "faint beneath"));
  smoothingValue_ = new QLabel;
  smoothingValue_->setMinimumWidth(smoothingValue_->fontMetrics().horizontalAdvance("0.00") + 4);
  connect(smoothing_, &QSlider::valueChanged, this, [this](int value) {
    smoothingValue_->setText(QString::number(value / 100.0, 'f', 2));
    rebuildChart();
  });
  smoothingValue_->setText(QStringLiteral("0.00"));
  logAxis_ = new QCheckBox(tr("Log axis"));
  logAxis_->setObjectName(QStringLiteral("compareLogAxis"));
  connect(logAxis_, &QCheckBox::toggled, this, [this] { rebuildChart(); });
  auto* chartControls = new QHBoxLayout;
  chartControls->addWidget(new QLabel(tr("Series")));
  chartControls->addWidget(seriesPicker_);
  chartControls->addSpacing(12);
  chartControls->addWidget(new QLabel(tr("Smoothing")));
  chartControls->addWidget(smoothing_);
  chartControls->addWidget(smoothingValue_);
  chartControls->addSpacing(12);
  chartControls->addWidget(logAxis_);
  chartControls->addStretch(1);
  auto* chartColumn = new QVBoxLayout;
  chartColumn->addLayout(chartControls);
  chartColumn->addWidget(chart_, 1);

  timelines_ = new CompareTimelines;

  auto table = [](const char* name) {
    auto* t = new QTableWidget;
    t->setObjectName(QString::fromLatin1(name));
    t->setEditTriggers(QAbstractItemView::NoEditTriggers);
    t->setSelectionMode(QAbstractItemView::NoSelection);
    t->setAlternatingRowColors(true);
    t->verticalHeader()->setDefaultSectionSize(t->fontMetrics().height() + 6);
    t->setWordWrap(false);
    return t;
  };
  summary_ = table("compareSummary");
  summary_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  moved_ = table("compareMoved");
  moved_->verticalHeader()->hide();
  moved_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  movedLabel_ = new QLabel;
  movedLabel_->setWordWrap(true);

  auto* top = new QHBoxLayout;
  top->addWidget(title_, 1);
  top->addWidget(csv);
  top->addWidget(png);
  auto* right = new QVBoxLayout;
  right->addWidget(summary_);
  right->addSpacing(6);
  right->addWidget(movedLabel_);
  right->addWidget(moved_, 1);
  auto* grid = new QGridLayout;
  grid->addLayout(chartColumn, 0, 0);
  grid->addWidget(timelines_, 1, 0);
  grid->addLayout(right, 0, 1, 2, 1);
  grid->setColumnStretch(0, 3);
  grid->setColumnStretch(1, 2);
  grid->setRowStretch(0, 1);
  grid->setRowStretch(1, 1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(top);
  layout->addLayout(grid, 1);
  title_->setText(tr("Select two or more runs in the Runs dock and press Compare."));
}

void RunCompareView::setComparison(RunComparison comparison) {
  c_ = std::move(comparison);
  c_.series.resize(c_.runs.size());
  c_.timelines.resize(c_.runs.size());
  QStringList names;
  for (const sessions::RunInfo& run : c_.runs) names << runHeading(run);
  title_->setText(tr("Comparing %1").arg(names.join(QStringLiteral(", "))));
  if (c_.all_series.empty() && !c_.series_name.empty()) c_.all_series[c_.series_name] = c_.series;
  for (auto& [name, perRun] : c_.all_series) perRun.resize(c_.runs.size());
  rebuildSeriesPicker();
  rebuildChart();
  timelines_->setComparison(&c_);
  rebuildSummary();
  rebuildMoved();
  Q_EMIT movedNodesChanged(movedNodes());
}

void RunCompareView::rebuildSeriesPicker() {
  seriesPicker_->clear();
  for (const std::string& name : orderedSeriesNames(c_)) {
    const QString unit = isTimeSeries(name) ? tr(" (ms)") : QString();
    seriesPicker_->addItem(seriesTitle(name) + unit, q(name));
  }
  seriesPicker_->setCurrentIndex(seriesPicker_->findData(q(c_.series_name)));
  seriesPicker_->setEnabled(seriesPicker_->count() > 1);
  if (seriesPicker_->count() == 0) seriesPicker_->setToolTip(tr("These runs recorded no series"));
}

bool RunCompareView::showSeries(const std::string& name) {
  const auto it = c_.all_series.find(name);
  if (it == c_.all_series.end()) return false;
  c_.series_name = name;
  c_.series = it->second;
  seriesPicker_->setCurrentIndex(seriesPicker_->findData(q(name)));
  rebuildChart();
  return true;
}

void RunCompareView::setSmoothing(double weight) {
  smoothing_->setValue(static_cast<int>(std::lround(std::clamp(weight, 0.0, 0.99) * 100)));
}

double RunCompareView::smoothing() const {
  return smoothing_->value() / 100.0;
}

void RunCompareView::rebuildChart() {
  QChart* chart = chart_->chart();
  chart->removeAllSeries();
  // A removed axis belongs to the caller; left alive, its labels stay drawn over the new ones.
  for (QAbstractAxis* axis : chart->axes()) {
    chart->removeAxis(axis);
    delete axis;
  }
  const Theme& theme = Theme::current();
  chart->setTheme(theme.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setBackgroundBrush(theme.background);
  chart->setTitleBrush(theme.text);
  chart->legend()->setLabelColor(theme.text);

  // Makespan-like series are shown in ms, others as they are.
  const bool isTime = isTimeSeries(c_.series_name);
  const double scale = isTime ? 1e-3 : 1.0;
  const double weight = smoothing();
  struct Curve {
    std::vector<double> xs, raw, smooth;
  };
  std::vector<Curve> curves(c_.runs.size());
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (size_t r = 0; r < c_.series.size() && r < curves.size(); ++r) {
    const sessions::Series& s = c_.series[r];
    Curve& curve = curves[r];
    for (size_t i = 0; i < s.steps.size(); ++i) {
      curve.xs.push_back(static_cast<double>(s.steps[i]));
      curve.raw.push_back(s.values[i] * scale);
    }
    curve.smooth = emaSmoothed(curve.raw, weight);
    for (size_t i = 0; i < curve.xs.size(); ++i) {
      if (std::isnan(curve.raw[i])) continue;
      x0 = std::min(x0, curve.xs[i]);
      x1 = std::max(x1, curve.xs[i]);
      y0 = std::min(y0, curve.raw[i]);
      y1 = std::max(y1, curve.raw[i]);
    }
  }
  if (!std::isfinite(x0)) {
    chart->setTitle(c_.series_name.empty() ? tr("No metric series recorded for these runs")
                                           : tr("No points in %1").arg(q(c_.series_name)));
    logAxis_->setEnabled(false);
    return;
  }
  const QString title = seriesTitle(c_.series_name);
  chart->setTitle(weight > 0 ? tr("%1 by step, smoothed %2").arg(title).arg(weight, 0, 'f', 2)
                             : tr("%1 by step").arg(title));
  x0 = std::min(x0, 0.0);  // steps count from the start: a late first point shows as late
  if (x1 <= x0) x1 = x0 + 1;
  // Runs without the series but with a makespan (a one-shot heuristic) get a flat line at it,
  // so a search's progress is seen against them.
  const bool makespanSeries = c_.series_name.find("makespan") != std::string::npos;
  for (size_t r = 0; r < c_.runs.size(); ++r)
    if (curves[r].xs.empty() && makespanSeries)
      if (const auto makespan = figure(c_.runs[r], "makespan_us")) {
        y0 = std::min(y0, *makespan * scale);
        y1 = std::max(y1, *makespan * scale);
      }

  // A log axis only shows positive values: offered when every point is one.
  const bool logPossible = y0 > 0;
  logAxis_->setEnabled(logPossible);
  logAxis_->setToolTip(logPossible ? tr("Logarithmic y axis")
                                   : tr("The series has values at or below zero, which a log "
                                        "axis cannot show"));
  const bool useLog = logPossible && logAxis_->isChecked();
  const QString yTitle = isTime ? title + tr(" (ms)") : title;
  auto* axisX = new QValueAxis;
  axisX->setTitleText(tr("step"));
  chart->addAxis(axisX, Qt::AlignBottom);
  QAbstractAxis* axisY = nullptr;
  if (useLog) {
    auto* log = new QLogValueAxis;
    log->setBase(10);
    log->setMinorTickCount(8);  // 2..9 between the decades
    log->setLabelFormat(QStringLiteral("%g"));
    log->setRange(std::pow(10.0, std::floor(std::log10(y0))),
                  std::pow(10.0, std::ceil(std::log10(y1) + 1e-12)));
    log->setLabelsColor(theme.mutedText);
    log->setGridLineColor(theme.grid);
    log->setMinorGridLineColor(theme.grid.lighter(110));
    axisY = log;
  } else {
    axisY = new QValueAxis;
  }
  axisY->setTitleText(yTitle);
  chart->addAxis(axisY, Qt::AlignLeft);

  const int width = std::max(200, chart_->width());
  auto addLine = [&](QLineSeries* line) {
    chart->addSeries(line);
    line->attachAxis(axisX);
    line->attachAxis(axisY);
  };
  auto toPoints = [&](const std::vector<double>& xs, const std::vector<double>& ys) {
    QList<QPointF> points;
    for (const XY& p : decimateMinMax(xs, ys, x0, x1, width)) points.append(QPointF(p.x, p.y));
    return points;
  };
  for (size_t r = 0; r < c_.runs.size(); ++r) {
    const Curve& curve = curves[r];
    const QColor color = runColor(c_.runs[r]);
    const QString name = runHeading(c_.runs[r]) + QStringLiteral(" ") + q(c_.runs[r].method);
    if (!curve.xs.empty()) {
      if (weight > 0) {
        // The raw curve faint beneath the smoothed one, out of the legend.
        auto* raw = new QLineSeries;
        QColor faint = color;
        faint.setAlphaF(0.3);
        raw->setPen(QPen(faint, 1));
        raw->append(toPoints(curve.xs, curve.raw));
        addLine(raw);
        for (QLegendMarker* marker : chart->legend()->markers(raw)) marker->setVisible(false);
      }
      auto* line = new QLineSeries;
      line->setName(name);
      const QList<QPointF> points = toPoints(curve.xs, weight > 0 ? curve.smooth : curve.raw);
      line->append(points);
      line->setPen(QPen(color, 2));
      // A sparse series (a short search reports a few times) shows its points, or a lone point
      // would not be seen at all.
      line->setPointsVisible(points.size() < 60);
      addLine(line);
    } else if (const auto makespan = figure(c_.runs[r], "makespan_us");
               makespanSeries && makespan) {
      auto* line = new QLineSeries;
      line->setName(name);
      line->append(x0, *makespan * scale);
      line->append(x1, *makespan * scale);
      line->setPen(QPen(color, 2, Qt::DashLine));
      addLine(line);
    }
  }
  setNiceAxis(axisX, x0, x1, 6);
  if (!useLog) {
    const double pad = (y1 - y0) * 0.06 + (y1 == y0 ? std::abs(y1) * 0.05 + 1e-9 : 0);
    setNiceAxis(static_cast<QValueAxis*>(axisY), y0 - pad, y1 + pad, 5);
  }
  for (QAbstractAxis* axis : {static_cast<QAbstractAxis*>(axisX), axisY}) {
    axis->setLabelsColor(theme.mutedText);
    axis->setTitleBrush(theme.text);
    axis->setGridLineColor(theme.grid);
  }
}

void RunCompareView::rebuildSummary() {
  const size_t runs = c_.runs.size();
  summary_->clear();
  summary_->setColumnCount(static_cast<int>(runs));
  const QStringList rows = {tr("method"),         tr("makespan"),    tr("Δ vs reference"),
                            tr("ratio to bound"), tr("utilization"), tr("moved nodes"),
                            tr("training time"),  tr("status")};
  summary_->setRowCount(static_cast<int>(rows.size()));
  summary_->setVerticalHeaderLabels(rows);
  for (size_t r = 0; r < runs; ++r) {
    const sessions::RunInfo& run = c_.runs[r];
    auto* header = new QTableWidgetItem(runHeading(run));
    header->setForeground(runColor(c_.runs[r]));
    summary_->setHorizontalHeaderItem(static_cast<int>(r), header);
    const auto makespan = figure(run, "makespan_us");
    const double ratio = ratioToBound(run);
    const double util =
        c_.timelines[r] ? timelineUtilization(*c_.timelines[r], deviceCount(run, c_.timelines[r]))
                        : std::numeric_limits<double>::quiet_NaN();
    QString moved = QStringLiteral("–");
    if (r == 0 && runs > 1)
      moved = tr("reference");
    else if (r > 0 && r - 1 < c_.diffs.size())
      moved = tr("%1 of %2").arg(c_.diffs[r - 1].moved.size()).arg(c_.diffs[r - 1].compared);
    const auto delta = makespanDelta(c_, r);
    const QStringList cells = {
        q(run.method),
        makespan ? formatDuration(*makespan) : QStringLiteral("–"),
        r == 0  ? tr("reference")
        : delta ? deltaText(*delta)
                : QStringLiteral("–"),
        std::isnan(ratio) ? QStringLiteral("–") : QStringLiteral("%1×").arg(ratio, 0, 'f', 3),
        std::isnan(util) ? QStringLiteral("–") : QStringLiteral("%1 %").arg(util * 100, 0, 'f', 1),
        moved,
        formatSeconds(trainingSeconds(run)),
        QString::fromLatin1(sessions::toString(run.status))};
    for (int row = 0; row < cells.size(); ++row) {
      auto* item = new QTableWidgetItem(cells[row]);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      summary_->setItem(row, static_cast<int>(r), item);
    }
  }
  // Whole rows visible: the table is short and a scroll bar would hide the point of it.
  const int height =
      summary_->horizontalHeader()->sizeHint().height() +
      summary_->verticalHeader()->defaultSectionSize() * static_cast<int>(rows.size()) +
      2 * summary_->frameWidth();
  summary_->setFixedHeight(height);
}

void RunCompareView::rebuildMoved() {
  moved_->clear();
  moved_->setColumnCount(3);
  moved_->setHorizontalHeaderLabels({tr("node"), tr("device: from → to"), tr("runs")});
  int count = 0;
  for (const sessions::PlacementDiff& d : c_.diffs) count += static_cast<int>(d.moved.size());
  moved_->setRowCount(count);
  int row = 0;
  QStringList summary;
  for (const sessions::PlacementDiff& d : c_.diffs) {
    summary << tr("run %1 → run %2: %3 of %4 nodes moved%5")
                   .arg(d.a)
                   .arg(d.b)
                   .arg(d.moved.size())
                   .arg(d.compared)
                   .arg(d.same_graph ? QString() : tr(" (different graphs: matched by id)"));
    for (const sessions::MovedNode& m : d.moved) {
      const QStringList cells = {q(m.node_id),
                                 QStringLiteral("GPU %1 → GPU %2").arg(m.from).arg(m.to),
                                 QStringLiteral("run %1 → run %2").arg(d.a).arg(d.b)};
      for (int column = 0; column < cells.size(); ++column) {
        auto* item = new QTableWidgetItem(cells[column]);
        if (column == 1) item->setForeground(Theme::deviceColor(m.to).darker(115));
        moved_->setItem(row, column, item);
      }
      ++row;
    }
  }
  movedLabel_->setText(summary.isEmpty() ? tr("No placements to compare")
                                         : summary.join(QLatin1Char('\n')));
}

QString comparisonCsv(const RunComparison& c) {
  QString out;
  QTextStream s(&out);
  s << "# summary\nfigure";
  for (const sessions::RunInfo& run : c.runs) s << ",run " << run.id;
  s << "\n";
  auto row = [&](const QString& name, auto value) {
    s << csvField(name);
    for (size_t r = 0; r < c.runs.size(); ++r) s << "," << value(r);
    s << "\n";
  };
  row(QStringLiteral("name"), [&](size_t r) { return csvField(runName(c.runs[r])); });
  row(QStringLiteral("kind"), [&](size_t r) { return csvField(q(c.runs[r].kind)); });
  row(QStringLiteral("method"), [&](size_t r) { return csvField(q(c.runs[r].method)); });
  row(QStringLiteral("makespan_us"),
      [&](size_t r) { return csvNumber(figure(c.runs[r], "makespan_us")); });
  row(QStringLiteral("delta_makespan_us"), [&](size_t r) {
    const auto d = makespanDelta(c, r);
    return d ? csvNumber(d->first) : QString();
  });
  row(QStringLiteral("delta_makespan_percent"), [&](size_t r) {
    const auto d = makespanDelta(c, r);
    return d ? csvNumber(d->second) : QString();
  });
  row(QStringLiteral("lower_bound_us"),
      [&](size_t r) { return csvNumber(figure(c.runs[r], "lower_bound_us")); });
  row(QStringLiteral("ratio_to_bound"),
      [&](size_t r) { return csvNumber(ratioToBound(c.runs[r])); });
  row(QStringLiteral("utilization"), [&](size_t r) {
    if (r >= c.timelines.size() || !c.timelines[r]) return QString();
    return csvNumber(timelineUtilization(*c.timelines[r], deviceCount(c.runs[r], c.timelines[r])));
  });
  row(QStringLiteral("moved_nodes"), [&](size_t r) {
    return r > 0 && r - 1 < c.diffs.size() ? QString::number(c.diffs[r - 1].moved.size())
                                           : QString();
  });
  row(QStringLiteral("training_seconds"), [&](size_t r) {
    const double t = trainingSeconds(c.runs[r]);
    return t < 0 ? QString() : csvNumber(t);
  });
  s << "\n# moved nodes\nrun_a,run_b,node,from,to\n";
  for (const sessions::PlacementDiff& d : c.diffs)
    for (const sessions::MovedNode& m : d.moved)
      s << d.a << "," << d.b << "," << csvField(q(m.node_id)) << "," << m.from << "," << m.to
        << "\n";
  if (!c.series_name.empty()) {
    // The series aligned on the union of their steps, empty where a run has no point.
    std::map<int64_t, std::vector<std::optional<double>>> steps;
    for (size_t r = 0; r < c.series.size(); ++r)
      for (size_t i = 0; i < c.series[r].steps.size(); ++i) {
        auto& values = steps[c.series[r].steps[i]];
        values.resize(c.runs.size());
        values[r] = c.series[r].values[i];
      }
    s << "\n# series " << q(c.series_name) << "\nstep";
    for (const sessions::RunInfo& run : c.runs) s << ",run " << run.id;
    s << "\n";
    for (const auto& [step, values] : steps) {
      s << step;
      for (const auto& v : values) s << "," << csvNumber(v);
      s << "\n";
    }
  }
  return out;
}

bool RunCompareView::saveCsv(const QString& path) const {
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly | QIODevice::Truncate)) return false;
  return f.write(comparisonCsv(c_).toUtf8()) >= 0;
}

bool RunCompareView::savePng(const QString& path) {
  return grab().toImage().convertToFormat(QImage::Format_RGB888).save(path, "PNG");
}

void RunCompareView::exportCsv() {
  const QString path = QFileDialog::getSaveFileName(
      this, tr("Export comparison as CSV"), QStringLiteral("runs-compare.csv"), tr("CSV (*.csv)"));
  if (!path.isEmpty() && !saveCsv(path)) title_->setText(tr("%1: cannot write the file").arg(path));
}

void RunCompareView::exportPng() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export comparison as PNG"),
                                   QStringLiteral("runs-compare.png"), tr("PNG image (*.png)"));
  if (!path.isEmpty() && !savePng(path))
    title_->setText(tr("%1: cannot write the image").arg(path));
}

}  // namespace doppler::views
