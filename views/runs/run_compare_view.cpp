#include "run_compare_view.h"

#include <QFile>
#include <QFileDialog>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QHideEvent>
#include <QLabel>
#include <QPainter>
#include <QPushButton>
#include <QTableWidget>
#include <QTextStream>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "views/common/nice_ticks.h"
#include "views/common/theme.h"
#include "views/runs/runs_table_model.h"

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

}  // namespace

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
  grid->addWidget(chart_, 0, 0);
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
  rebuildChart();
  timelines_->setComparison(&c_);
  rebuildSummary();
  rebuildMoved();
  Q_EMIT movedNodesChanged(movedNodes());
}

void RunCompareView::rebuildChart() {
  QChart* chart = chart_->chart();
  chart->removeAllSeries();
  for (QAbstractAxis* axis : chart->axes()) chart->removeAxis(axis);
  const Theme& theme = Theme::current();
  chart->setTheme(theme.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setBackgroundBrush(theme.background);
  chart->setTitleBrush(theme.text);
  chart->legend()->setLabelColor(theme.text);

  // Makespan-like series are shown in ms, others as they are.
  const bool isTime = c_.series_name.find("_us") != std::string::npos;
  const double scale = isTime ? 1e-3 : 1.0;
  double x0 = std::numeric_limits<double>::infinity(), x1 = -x0, y0 = x0, y1 = -x0;
  for (const sessions::Series& s : c_.series)
    for (size_t i = 0; i < s.steps.size(); ++i) {
      if (std::isnan(s.values[i])) continue;
      x0 = std::min(x0, static_cast<double>(s.steps[i]));
      x1 = std::max(x1, static_cast<double>(s.steps[i]));
      y0 = std::min(y0, s.values[i] * scale);
      y1 = std::max(y1, s.values[i] * scale);
    }
  if (!std::isfinite(x0)) {
    chart->setTitle(c_.series_name.empty() ? tr("No metric series recorded for these runs")
                                           : tr("No points in %1").arg(q(c_.series_name)));
    return;
  }
  // "best_makespan_us" reads as "best makespan".
  QString title = q(c_.series_name);
  if (title.endsWith(QStringLiteral("_us"))) title.chop(3);
  title.replace(QLatin1Char('_'), QLatin1Char(' '));
  chart->setTitle(tr("%1 by step").arg(title));
  x0 = std::min(x0, 0.0);  // steps count from the start: a late first point shows as late
  // Runs without the series but with a makespan (a one-shot heuristic) get a flat line at it,
  // so a search's progress is seen against them.
  const bool makespanSeries = c_.series_name.find("makespan") != std::string::npos;
  if (x1 <= x0) x1 = x0 + 1;
  auto* axisX = new QValueAxis;
  axisX->setTitleText(tr("step"));
  auto* axisY = new QValueAxis;
  axisY->setTitleText(isTime ? title + tr(" (ms)") : title);
  chart->addAxis(axisX, Qt::AlignBottom);
  chart->addAxis(axisY, Qt::AlignLeft);
  for (size_t r = 0; r < c_.runs.size(); ++r) {
    const sessions::Series& s = c_.series[r];
    auto* line = new QLineSeries;
    line->setName(runHeading(c_.runs[r]) + QStringLiteral(" ") + q(c_.runs[r].method));
    const QColor color = runColor(c_.runs[r]);
    if (!s.steps.empty()) {
      // At most ~2 points per pixel column of a wide chart: each bucket's min and max.
      const size_t n = s.steps.size(), buckets = 1500;
      const size_t per = std::max<size_t>(1, n / buckets);
      QList<QPointF> points;
      for (size_t i = 0; i < n; i += per) {
        size_t lo = i, hi = i;
        for (size_t k = i; k < std::min(n, i + per); ++k) {
          if (std::isnan(s.values[k])) continue;
          if (std::isnan(s.values[lo]) || s.values[k] < s.values[lo]) lo = k;
          if (std::isnan(s.values[hi]) || s.values[k] > s.values[hi]) hi = k;
        }
        for (size_t k : {std::min(lo, hi), std::max(lo, hi)})
          if (!std::isnan(s.values[k]))
            points.append(QPointF(static_cast<double>(s.steps[k]), s.values[k] * scale));
      }
      line->append(points);
      line->setPen(QPen(color, 2));
      // A sparse series (a short search reports a few times) shows its points, or a lone point
      // would not be seen at all.
      line->setPointsVisible(points.size() < 60);
    } else if (const auto makespan = figure(c_.runs[r], "makespan_us");
               makespanSeries && makespan) {
      line->append(x0, *makespan * scale);
      line->append(x1, *makespan * scale);
      y0 = std::min(y0, *makespan * scale);
      y1 = std::max(y1, *makespan * scale);
      line->setPen(QPen(color, 2, Qt::DashLine));
    } else {
      delete line;
      continue;
    }
    chart->addSeries(line);
    line->attachAxis(axisX);
    line->attachAxis(axisY);
  }
  const double pad = (y1 - y0) * 0.06 + (y1 == y0 ? std::abs(y1) * 0.05 + 1e-9 : 0);
  setNiceAxis(axisX, x0, x1, 6);
  setNiceAxis(axisY, y0 - pad, y1 + pad, 5);
  for (QValueAxis* axis : {axisX, axisY}) {
    axis->setLabelsColor(theme.mutedText);
    axis->setTitleBrush(theme.text);
    axis->setGridLineColor(theme.grid);
  }
}

void RunCompareView::rebuildSummary() {
  const size_t runs = c_.runs.size();
  summary_->clear();
  summary_->setColumnCount(static_cast<int>(runs));
  const QStringList rows = {tr("method"),      tr("makespan"),    tr("ratio to bound"),
                            tr("utilization"), tr("moved nodes"), tr("training time"),
                            tr("status")};
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
    const QStringList cells = {
        q(run.method),
        makespan ? formatDuration(*makespan) : QStringLiteral("–"),
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
