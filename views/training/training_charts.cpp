#include "views/training/training_charts.h"

#include <QGraphicsSimpleTextItem>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QPainter>
#include <QTimer>
#include <QVBoxLayout>
#include <QtCharts/QChart>
#include <QtCharts/QChartView>
#include <QtCharts/QLegend>
#include <QtCharts/QLineSeries>
#include <QtCharts/QScatterSeries>
#include <QtCharts/QValueAxis>
#include <algorithm>
#include <limits>

#include "views/common/legend_bar.h"
#include "views/common/nice_ticks.h"
#include "views/common/theme.h"
#include "views/training/minmax_decimator.h"

namespace doppler::views {
namespace {

// Tableau 10, as the device colours: blue episodes, green best, orange evaluations.
const QColor kEpisodeColor(0x4e, 0x79, 0xa7);
const QColor kBestColor(0x59, 0xa1, 0x4f);
const QColor kEvalColor(0xf2, 0x8e, 0x2b);
const QColor kCriticalPathColor(0xb0, 0x7a, 0xa1);
const QColor kLocalSearchColor(0xe1, 0x57, 0x59);
const QColor kSelColor(0x4e, 0x79, 0xa7);
const QColor kPlcColor(0xf2, 0x8e, 0x2b);
const QColor kEntropyColor(0x76, 0xb7, 0xb2);
const QColor kLrColor(0xb0, 0x7a, 0xa1);
const QColor kSpeedColor(0x9c, 0x75, 0x5f);

QChart* newChart(const QString& title) {
  auto* chart = new QChart;
  chart->setTitle(title);
  chart->setMargins(QMargins(2, 2, 6, 2));
  // Series are replaced wholesale at every redraw: animating them would only cost frames.
  chart->setAnimationOptions(QChart::NoAnimation);
  return chart;
}

QChartView* newView(QChart* chart, const QString& name) {
  auto* view = new QChartView(chart);
  view->setObjectName(name);
  view->setRenderHint(QPainter::Antialiasing);
  // Raster, redrawn in full: the whole plot changes when the axes rescale anyway.
  view->setViewportUpdateMode(QGraphicsView::FullViewportUpdate);
  view->setFrameShape(QFrame::NoFrame);
  return view;
}

void attach(QChart* chart, QAbstractSeries* s, QValueAxis* x, QValueAxis* y) {
  chart->addSeries(s);
  s->attachAxis(x);
  s->attachAxis(y);
}

// A y-range a little wider than [lo, hi] with ticks at round numbers (nice_ticks.h).
void setNiceRange(QValueAxis* axis, double lo, double hi) {
  if (!std::isfinite(lo) || !std::isfinite(hi)) {
    axis->setTickType(QValueAxis::TicksFixed);
    axis->setRange(0, 1);
    return;
  }
  setNiceAxis(axis, lo, hi, 4, true);
}

// A marker drawn once into an image: Qt Charts then blits it per point ("light markers") instead
// of rasterising an antialiased shape per point, several times faster for the 2,600 points a
// decimated 50,000-episode cloud keeps.
QImage markerImage(double size, const QColor& fill, const QColor& border, bool diamond) {
  const int px = static_cast<int>(std::ceil(size * 2));  // drawn at 2x, scaled down by Qt
  QImage image(px, px, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  painter.setRenderHint(QPainter::Antialiasing);
  painter.setPen(border.alpha() > 0 ? QPen(border, 1.5) : QPen(Qt::NoPen));
  painter.setBrush(fill);
  const QRectF r(1, 1, px - 2, px - 2);
  if (diamond)
    painter.drawPolygon(QPolygonF{{r.center().x(), r.top()},
                                  {r.right(), r.center().y()},
                                  {r.center().x(), r.bottom()},
                                  {r.left(), r.center().y()}});
  else
    painter.drawEllipse(r);
  return image;
}

// "⁻⁴" for -4: an exponent in a plain-text title.
QString superscript(int n) {
  static const char16_t digits[] = u"⁰¹²³⁴⁵⁶⁷⁸⁹";
  QString out = n < 0 ? QString(QChar(u'⁻')) : QString();
  for (QChar ch : QString::number(std::abs(n))) out += QChar(digits[ch.digitValue()]);
  return out;
}

struct Extent {
  double lo = std::numeric_limits<double>::infinity();
  double hi = -std::numeric_limits<double>::infinity();
  void add(double y) {
    if (std::isnan(y)) return;
    lo = std::min(lo, y);
    hi = std::max(hi, y);
  }
  bool empty() const { return lo > hi; }
};

// Converts decimated points into the series' points (scaled to the axis unit) in one replace():
// a single change notification instead of one per point.
void replacePoints(QXYSeries* s, const std::vector<XY>& points, double scale, Extent* extent,
                   double x0 = -std::numeric_limits<double>::infinity(),
                   double x1 = std::numeric_limits<double>::infinity()) {
  QList<QPointF> out;
  out.reserve(static_cast<qsizetype>(points.size()));
  for (const XY& p : points) {
    out.append(QPointF(p.x, p.y / scale));
    // The neighbours outside the range only lead lines in: they do not set the y-range.
    if (extent && p.x >= x0 && p.x <= x1) extent->add(p.y / scale);
  }
  s->replace(out);
}

}  // namespace

TrainingCharts::TrainingCharts(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("trainingCharts"));
  timer_ = new QTimer(this);
  timer_->setSingleShot(true);
  timer_->setInterval(kRedrawIntervalMs);
  connect(timer_, &QTimer::timeout, this, &TrainingCharts::redrawNow);

  makespanChart_ = newChart(tr("Makespan per episode"));
  // The legend is a LegendBar above the chart: Qt's cuts its entries short in a narrow chart.
  makespanChart_->legend()->hide();
  axisX_ = new QValueAxis;
  axisX_->setTitleText(tr("episode"));
  axisY_ = new QValueAxis;
  makespanChart_->addAxis(axisX_, Qt::AlignBottom);
  makespanChart_->addAxis(axisY_, Qt::AlignLeft);

  scatter_ = new QScatterSeries;
  scatter_->setObjectName(QStringLiteral("makespan"));
  scatter_->setName(tr("episode"));
  scatter_->setMarkerSize(4);
  mean_ = new QLineSeries;
  mean_->setObjectName(QStringLiteral("movingMean"));
  best_ = new QLineSeries;
  best_->setObjectName(QStringLiteral("bestSoFar"));
  best_->setName(tr("best so far"));
  evals_ = new QScatterSeries;
  evals_->setObjectName(QStringLiteral("evaluations"));
  evals_->setName(tr("greedy evaluation"));
  evals_->setMarkerShape(QScatterSeries::MarkerShapeRotatedRectangle);
  evals_->setMarkerSize(6.5);
  lowerBound_ = new QLineSeries;
  lowerBound_->setObjectName(QStringLiteral("lowerBound"));
  criticalPath_ = new QLineSeries;
  criticalPath_->setObjectName(QStringLiteral("criticalPath"));
  localSearch_ = new QLineSeries;
  localSearch_->setObjectName(QStringLiteral("localSearch"));
  // Drawn in this order, which is also the legend's: the cloud at the back, the run's lines over
  // it, the references last (thin dashes stay readable over a line).
  for (QXYSeries* s : std::initializer_list<QXYSeries*>{scatter_, mean_, best_, evals_, lowerBound_,
                                                        criticalPath_, localSearch_})
    attach(makespanChart_, s, axisX_, axisY_);
  for (int i = 0; i < 3; ++i) {
    refLabels_[i] = new QGraphicsSimpleTextItem(makespanChart_);
    refLabels_[i]->setZValue(20);
  }
  refLabels_[0]->setText(tr("lower bound"));
  refLabels_[1]->setText(tr("critical path"));
  refLabels_[2]->setText(tr("local search"));
  connect(makespanChart_, &QChart::plotAreaChanged, this, [this] { placeReferenceLabels(); });
  makespanView_ = newView(makespanChart_, QStringLiteral("makespanChart"));
  makespanView_->setMinimumSize(360, 200);
  legend_ = new LegendBar;
  legend_->setObjectName(QStringLiteral("makespanLegend"));
  // The title goes above the legend, as in every other chart: the chart's own would sit below.
  legend_->setTitle(makespanChart_->title());
  makespanChart_->setTitle(QString());

  // Distillation, on its own axis of updates.
  QChart* distill = newChart(tr("Distillation of the best episode"));
  distill->legend()->hide();  // the title and the y-axis say what the two lines are
  distillAxisX_ = new QValueAxis;
  distillAxisX_->setTitleText(tr("distillation update"));
  distillAxisY_ = new QValueAxis;
  distillAxisX_->setTruncateLabels(false);
  distillAxisY_->setTruncateLabels(false);
  distill->addAxis(distillAxisX_, Qt::AlignBottom);
  distill->addAxis(distillAxisY_, Qt::AlignLeft);
  distillGreedy_ = new QLineSeries;
  distillGreedy_->setObjectName(QStringLiteral("distillGreedy"));
  distillGreedy_->setName(tr("greedy policy"));
  distillTarget_ = new QLineSeries;
  distillTarget_->setObjectName(QStringLiteral("distillTarget"));
  distillTarget_->setName(tr("best episode"));
  attach(distill, distillTarget_, distillAxisX_, distillAxisY_);
  attach(distill, distillGreedy_, distillAxisX_, distillAxisY_);
  distillView_ = newView(distill, QStringLiteral("distillChart"));
  distillView_->setMinimumSize(200, 200);
  distillView_->setToolTip(
      tr("After the episodes, the best episode is distilled into the policy: the greedy "
         "policy's makespan (solid) by update, against the best episode's (dashed)"));
  distillView_->hide();

  auto addSmall = [this](const QString& name, const QString& title,
                         std::vector<std::pair<QString, const std::vector<double>*>> lines,
                         const char* format) {
    SmallChart c;
    c.title = title;
    QChart* chart = newChart(title);
    c.x = new QValueAxis;
    c.y = new QValueAxis;
    c.y->setLabelFormat(QString::fromLatin1(format));
    c.y->setTickCount(4);
    // Qt Charts elides a label to "..." when its width was measured under the previous format;
    // these are short numbers, always shown whole.
    c.x->setTruncateLabels(false);
    c.y->setTruncateLabels(false);
    chart->addAxis(c.x, Qt::AlignBottom);
    chart->addAxis(c.y, Qt::AlignLeft);
    for (auto& [lineName, data] : lines) {
      auto* s = new QLineSeries;
      s->setObjectName(lineName);
      attach(chart, s, c.x, c.y);
      c.lines.push_back(s);
      c.data.push_back(data);
    }
    chart->legend()->setVisible(lines.size() > 1);
    chart->legend()->setAlignment(Qt::AlignTop);
    c.view = newView(chart, name);
    c.view->setMinimumSize(160, 150);
    small_.push_back(c);
    smallViews_.push_back(c.view);
  };
  addSmall(QStringLiteral("lossChart"), tr("Loss"),
           {{QStringLiteral("selLoss"), &selLoss_}, {QStringLiteral("plcLoss"), &plcLoss_}},
           "%.2g");
  small_.back().lines[0]->setName(tr("SEL"));
  small_.back().lines[1]->setName(tr("PLC"));
  addSmall(QStringLiteral("entropyChart"), tr("Entropy"), {{QStringLiteral("entropy"), &entropy_}},
           "%.2g");
  addSmall(QStringLiteral("lrChart"), tr("Learning rate"), {{QStringLiteral("learningRate"), &lr_}},
           "%.1e");
  addSmall(QStringLiteral("speedChart"), tr("Episodes per second"),
           {{QStringLiteral("episodesPerSecond"), &speed_}}, "%.4g");

  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(2);
  auto* top = new QHBoxLayout;
  top->setSpacing(2);
  auto* makespanColumn = new QVBoxLayout;
  makespanColumn->setSpacing(0);
  makespanColumn->addWidget(legend_);
  makespanColumn->addWidget(makespanView_, 1);
  top->addLayout(makespanColumn, 3);
  top->addWidget(distillView_, 1);
  layout->addLayout(top, 3);
  auto* row = new QHBoxLayout;
  row->setSpacing(2);
  for (QChartView* v : smallViews_) row->addWidget(v, 1);
  layout->addLayout(row, 1);

  reset(0);
  applyTheme();
}

TrainingCharts::~TrainingCharts() = default;

void TrainingCharts::reset(long plannedEpisodes) {
  planned_ = std::max(0L, plannedEpisodes);
  // 2% of the run, so that the mean follows the trend of a short run and smooths a long one's
  // noise; at least 10 episodes, at most 1,000.
  window_ = planned_ > 0 ? static_cast<int>(std::clamp(planned_ / 50, 10L, 1000L)) : 100;
  mean_->setName(tr("mean of %1").arg(window_));
  for (auto* v : {&episode_, &makespan_, &meanY_, &selLoss_, &plcLoss_, &entropy_, &lr_, &speed_,
                  &bestX_, &bestY_, &evalX_, &evalY_, &distillX_, &distillGreedyUs_})
    v->clear();
  distillTargetUs_ = NAN;
  distillView_->hide();
  finite_.clear();
  sum_ = 0;
  sinceExactSum_ = 0;
  bestSoFar_ = NAN;
  unitUs_ = 0;
  updateReferenceLines();
  redrawNow();
}

void TrainingCharts::setReferences(const TrainingReferences& refs) {
  refs_ = refs;
  updateReferenceLines();
  scheduleRedraw();
}

double TrainingCharts::unitScale() const {
  return unitUs_ > 0 ? unitUs_ : 1000.0;
}

QString TrainingCharts::unitName() const {
  const double u = unitScale();
  return u >= 1e6 ? QStringLiteral("s") : u >= 1e3 ? QStringLiteral("ms") : QStringLiteral("µs");
}

void TrainingCharts::updateReferenceLines() {
  // The first known makespan fixes the unit: 1.2e6 µs reads as 1.2 s, 850 µs as 850 µs.
  if (unitUs_ == 0)
    for (double v : {refs_.lower_bound_us, refs_.critical_path_us, refs_.local_search_us})
      if (std::isfinite(v) && v > 0) {
        unitUs_ = v >= 1e6 ? 1e6 : v >= 1e3 ? 1e3 : 1.0;
        break;
      }
  axisY_->setTitleText(tr("makespan (%1)").arg(unitName()));
  const std::pair<QLineSeries*, std::pair<double, QString>> lines[] = {
      {lowerBound_, {refs_.lower_bound_us, tr("lower bound")}},
      {criticalPath_, {refs_.critical_path_us, tr("critical path")}},
      {localSearch_, {refs_.local_search_us, tr("local search")}}};
  for (const auto& [series, ref] : lines) {
    const bool present = std::isfinite(ref.first);
    series->setName(present ? tr("%1 %2").arg(ref.second, formatDuration(ref.first)) : ref.second);
    series->setVisible(present);
    if (!present) series->clear();
    // A hidden series keeps its legend entry unless told otherwise.
  }
  updateLegend();
}

void TrainingCharts::updateLegend() {
  using K = LegendEntry::Kind;
  // From the series' own pens and colours: the legend shows what is drawn.
  QColor cloud = scatter_->color();
  cloud.setAlpha(200);
  std::vector<LegendEntry> entries = {
      {K::Dot, cloud, scatter_->name()},
      {K::Line, mean_->pen().color(), mean_->name(), mean_->pen().widthF()},
      {K::Line, best_->pen().color(), best_->name(), best_->pen().widthF()},
      {K::Diamond, evals_->color(), evals_->name()}};
  for (QLineSeries* line : {lowerBound_, criticalPath_, localSearch_})
    if (line->isVisible())
      entries.push_back(
          {K::Line, line->pen().color(), line->name(), line->pen().widthF(), line->pen().style()});
  legend_->setEntries(std::move(entries));
}

void TrainingCharts::addProgress(const train::TrainProgress& p) {
  if (p.distill_update > 0) {
    // Distillation steps are updates, not episodes: they have their own chart and axis, and no
    // losses per half, entropy or speed to add to the episodes' (they would read as drops).
    distillX_.push_back(static_cast<double>(p.distill_update));
    distillGreedyUs_.push_back(p.evaluated ? p.greedy_makespan_us : NAN);
    if (std::isfinite(p.best_makespan_us)) distillTargetUs_ = p.best_makespan_us;
    if (unitUs_ == 0 && std::isfinite(distillTargetUs_) && distillTargetUs_ > 0) {
      unitUs_ = distillTargetUs_ >= 1e6 ? 1e6 : distillTargetUs_ >= 1e3 ? 1e3 : 1.0;
      updateReferenceLines();
    }
    distillView_->show();
    scheduleRedraw();
    return;
  }
  // The x-axis must not run backwards (the decimator relies on sorted x): a repeated episode
  // number stays where the previous report was.
  const double x = episode_.empty() ? static_cast<double>(p.episode)
                                    : std::max<double>(p.episode, episode_.back());
  if (unitUs_ == 0 && std::isfinite(p.makespan_us) && p.makespan_us > 0) {
    unitUs_ = p.makespan_us >= 1e6 ? 1e6 : p.makespan_us >= 1e3 ? 1e3 : 1.0;
    updateReferenceLines();
  }
  const size_t index = episode_.size();
  episode_.push_back(x);
  makespan_.push_back(p.makespan_us);
  selLoss_.push_back(p.sel_loss);
  plcLoss_.push_back(p.plc_loss);
  entropy_.push_back(p.entropy);
  lr_.push_back(p.lr);
  speed_.push_back(p.episodes_per_s > 0 ? p.episodes_per_s : NAN);

  if (std::isfinite(p.makespan_us)) {
    finite_.push_back(index);
    sum_ += p.makespan_us;
    if (finite_.size() > static_cast<size_t>(window_))
      sum_ -= makespan_[finite_[finite_.size() - 1 - window_]];
    // Adding and subtracting drifts: re-add the window once per window (amortised O(1)).
    if (++sinceExactSum_ >= window_) {
      sinceExactSum_ = 0;
      sum_ = 0;
      const size_t from =
          finite_.size() > static_cast<size_t>(window_) ? finite_.size() - window_ : 0;
      for (size_t i = from; i < finite_.size(); ++i) sum_ += makespan_[finite_[i]];
    }
    const size_t n = std::min(finite_.size(), static_cast<size_t>(window_));
    meanY_.push_back(sum_ / static_cast<double>(n));
  } else {
    meanY_.push_back(NAN);
  }

  // The best so far never rises, whatever the reports say: the run's best (any decision mode)
  // when it has one, else this episode.
  const double candidate = std::isfinite(p.best_makespan_us) ? p.best_makespan_us : p.makespan_us;
  if (std::isfinite(candidate) && !(candidate >= bestSoFar_)) {
    if (!bestY_.empty()) {
      // A step line: along at the old best, then down at this episode.
      bestX_.push_back(x);
      bestY_.push_back(bestSoFar_);
    }
    bestX_.push_back(x);
    bestY_.push_back(candidate);
    bestSoFar_ = candidate;
  }
  if (p.evaluated && std::isfinite(p.greedy_makespan_us)) {
    evalX_.push_back(x);
    evalY_.push_back(p.greedy_makespan_us);
  }
  scheduleRedraw();
}

void TrainingCharts::scheduleRedraw() {
  if (!timer_->isActive()) timer_->start();
}

bool TrainingCharts::redrawPending() const {
  return timer_->isActive();
}

void TrainingCharts::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // The plot's width sets how many points each series keeps.
  scheduleRedraw();
}

void TrainingCharts::redrawSmall(SmallChart& c, double x0, double x1) {
  QChart* chart = c.view->chart();
  const int width =
      std::max(8, static_cast<int>(chart->plotArea().width() > 0 ? chart->plotArea().width()
                                                                 : c.view->width() - 60));
  setNiceAxis(c.x, x0, x1, 3);
  std::vector<std::vector<XY>> points(c.lines.size());
  double largest = 0;
  for (size_t i = 0; i < c.lines.size(); ++i) {
    decimateMinMax(episode_, *c.data[i], x0, x1, width, points[i]);
    for (const XY& p : points[i]) largest = std::max(largest, std::abs(p.y));
  }
  // Learning rates (3e-4 .. 1e-6) read better as "3 ×10⁻⁴" than as axis labels full of zeros:
  // small values are drawn in units of their power of ten, named in the title.
  int exponent = 0;
  if (largest > 0 && largest < 0.01) exponent = static_cast<int>(std::floor(std::log10(largest)));
  const double scale = std::pow(10.0, exponent);
  const QString title =
      exponent == 0 ? c.title : tr("%1 (×10%2)").arg(c.title, superscript(exponent));
  // A new title re-lays the chart out: only when it changes.
  if (chart->title() != title) chart->setTitle(title);
  Extent extent;
  for (size_t i = 0; i < c.lines.size(); ++i)
    replacePoints(c.lines[i], points[i], scale, &extent, x0, x1);
  if (extent.empty())
    setNiceRange(c.y, NAN, NAN);  // fixed ticks first: see setNiceAxis
  else
    setNiceRange(c.y, extent.lo, extent.hi);
}

void TrainingCharts::redrawNow() {
  timer_->stop();
  const double last = episode_.empty() ? 0 : episode_.back();
  const double x0 = 0;
  const double x1 = std::max({static_cast<double>(planned_), last, 1.0});
  setNiceAxis(axisX_, x0, x1, 6);
  const QRectF plot = makespanChart_->plotArea();
  const int width =
      std::max(8, static_cast<int>(plot.width() > 0 ? plot.width() : makespanView_->width() - 80));
  lastPlotWidth_ = width;
  const double scale = unitScale();

  std::vector<XY> points;
  points.reserve(2 * static_cast<size_t>(width) + 4);
  Extent cloud, lines;
  decimateMinMax(episode_, makespan_, x0, x1, width, points);
  replacePoints(scatter_, points, scale, &cloud, x0, x1);
  points.clear();
  decimateMinMax(episode_, meanY_, x0, x1, width, points);
  replacePoints(mean_, points, scale, &lines, x0, x1);
  points.clear();
  decimateMinMax(bestX_, bestY_, x0, x1, width, points);
  // The step runs on to the latest report.
  if (!points.empty() && last > points.back().x) points.push_back({last, points.back().y});
  replacePoints(best_, points, scale, &lines, x0, x1);
  points.clear();
  decimateMinMax(evalX_, evalY_, x0, x1, width, points);
  replacePoints(evals_, points, scale, &lines, x0, x1);

  for (auto [series, value] : {std::pair{lowerBound_, refs_.lower_bound_us},
                               std::pair{criticalPath_, refs_.critical_path_us},
                               std::pair{localSearch_, refs_.local_search_us}})
    if (std::isfinite(value)) {
      series->replace(QList<QPointF>{{x0, value / scale}, {x1, value / scale}});
      lines.add(value / scale);
    }

  // The y-range follows the lines that matter (mean, best, evaluations, references). The first
  // episodes of an untrained policy can be several times the final makespan: letting them set
  // the range would squash the part of the run worth looking at, so the cloud may widen the
  // range by half again at most and is clipped beyond.
  if (lines.empty() && cloud.empty()) {
    setNiceRange(axisY_, NAN, NAN);
  } else {
    double lo = std::min(lines.lo, cloud.lo), hi = lines.hi;
    if (lines.empty()) hi = cloud.hi;
    if (!cloud.empty()) hi = std::min(std::max(hi, cloud.hi), hi + 0.5 * (hi - lo));
    setNiceRange(axisY_, lo, hi);
  }
  for (SmallChart& c : small_) redrawSmall(c, x0, x1);
  placeReferenceLabels();
  redrawDistillation();
}

void TrainingCharts::redrawDistillation() {
  if (distillX_.empty()) {
    distillGreedy_->clear();
    distillTarget_->clear();
    return;
  }
  const double scale = unitScale();
  const double x1 = std::max(1.0, distillX_.back());
  const int width = std::max(8, distillView_->width() - 60);
  std::vector<XY> points;
  decimateMinMax(distillX_, distillGreedyUs_, 0, x1, width, points);
  Extent extent;
  replacePoints(distillGreedy_, points, scale, &extent);
  distillGreedy_->setPointsVisible(points.size() < 40);
  if (std::isfinite(distillTargetUs_)) {
    distillTarget_->replace(
        QList<QPointF>{{0, distillTargetUs_ / scale}, {x1, distillTargetUs_ / scale}});
    extent.add(distillTargetUs_ / scale);
  } else {
    distillTarget_->clear();
  }
  setNiceAxis(distillAxisX_, 0, x1, 3);
  distillAxisY_->setTitleText(tr("makespan (%1)").arg(unitName()));
  if (extent.empty())
    setNiceRange(distillAxisY_, NAN, NAN);
  else
    setNiceRange(distillAxisY_, extent.lo, extent.hi);
}

void TrainingCharts::placeReferenceLabels() {
  const QRectF plot = makespanChart_->plotArea();
  const double values[] = {refs_.lower_bound_us, refs_.critical_path_us, refs_.local_search_us};
  QLineSeries* lines[] = {lowerBound_, criticalPath_, localSearch_};
  for (int i = 0; i < 3; ++i) {
    QGraphicsSimpleTextItem* label = refLabels_[i];
    const double y = values[i] / unitScale();
    if (!std::isfinite(y) || y < axisY_->min() || y > axisY_->max() || plot.isEmpty()) {
      label->hide();
      continue;
    }
    const QPointF at = makespanChart_->mapToPosition(QPointF(axisX_->max(), y), lines[i]);
    const QRectF box = label->boundingRect();
    // The bound is the floor, so its name goes under the line; the others above theirs.
    const double top = i == 0 ? at.y() + 1 : at.y() - box.height() - 1;
    label->setPos(plot.right() - box.width() - 4, top);
    label->show();
  }
}

QXYSeries* TrainingCharts::series(const QString& name) const {
  for (QAbstractSeries* s : makespanChart_->series())
    if (s->objectName() == name) return qobject_cast<QXYSeries*>(s);
  for (const SmallChart& c : small_)
    for (QLineSeries* s : c.lines)
      if (s->objectName() == name) return s;
  return nullptr;
}

void TrainingCharts::applyTheme() {
  const Theme& t = Theme::current();
  std::vector<QChart*> charts{makespanChart_, distillView_->chart()};
  for (const SmallChart& c : small_) charts.push_back(c.view->chart());
  for (QChart* chart : charts) {
    // setTheme() resets every series' and axis' colours: everything below comes after it.
    chart->setTheme(t.dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
    chart->setBackgroundBrush(t.background);
    chart->setBackgroundRoundness(0);
    chart->setTitleBrush(t.text);
    QFont title = chart->titleFont();
    title.setBold(true);
    chart->setTitleFont(title);
    chart->legend()->setLabelColor(t.text);
    for (QAbstractAxis* axis : chart->axes()) {
      axis->setLabelsColor(t.mutedText);
      axis->setTitleBrush(t.mutedText);
      axis->setGridLineColor(t.grid);
      axis->setLinePenColor(t.grid);
      axis->setMinorGridLineVisible(false);
    }
  }
  for (QChartView* v : smallViews_) v->setBackgroundBrush(t.background);
  distillView_->setBackgroundBrush(t.background);
  distillGreedy_->setPen(QPen(kEvalColor, 2));
  distillGreedy_->setColor(kEvalColor);
  distillTarget_->setPen(QPen(kBestColor, 1.8, Qt::DashLine));
  makespanView_->setBackgroundBrush(t.background);

  // The cloud is faint so that the mean and the best read over it; on a dark background the same
  // alpha looks brighter, so it is lower there.
  QColor cloud = t.dark ? kEpisodeColor.lighter(130) : kEpisodeColor;
  cloud.setAlpha(t.dark ? 70 : 80);
  scatter_->setColor(cloud);
  scatter_->setBorderColor(Qt::transparent);
  scatter_->setLightMarker(markerImage(scatter_->markerSize(), cloud, Qt::transparent, false));
  const QColor meanColor = t.dark ? kEpisodeColor.lighter(150) : kEpisodeColor.darker(120);
  mean_->setPen(QPen(meanColor, 2.2));
  best_->setPen(QPen(kBestColor, 2.4));
  evals_->setColor(kEvalColor);
  evals_->setBorderColor(t.dark ? t.background : QColor(Qt::white));
  evals_->setLightMarker(
      markerImage(evals_->markerSize(), kEvalColor, evals_->borderColor(), true));
  lowerBound_->setPen(QPen(t.mutedText, 1.5, Qt::DashLine));
  criticalPath_->setPen(QPen(kCriticalPathColor, 1.5, Qt::DashDotLine));
  localSearch_->setPen(QPen(kLocalSearchColor, 1.5, Qt::DotLine));
  const QColor labelColors[] = {t.mutedText, kCriticalPathColor, kLocalSearchColor};
  for (int i = 0; i < 3; ++i) refLabels_[i]->setBrush(labelColors[i]);
  const QColor smallColors[] = {kSelColor, kPlcColor, kEntropyColor, kLrColor, kSpeedColor};
  int k = 0;
  for (SmallChart& c : small_)
    for (QLineSeries* s : c.lines) s->setPen(QPen(smallColors[k++], 1.6));
  // setTheme() showed the hidden reference lines' legend entries again.
  updateReferenceLines();
}

}  // namespace doppler::views
