// Drawing cost of the studio's views, offscreen into QImages (raster, as on screen):
//   - timeline paint with 100,000 events, fitted (everything visible, level of detail) and zoomed
//     in 50x (bars drawn one by one), at 1920x1080: goal under 16 ms a frame;
//   - graph view at 2,000 nodes: Graphviz layout, scene build, and paint fitted and at 100%;
//   - the decision stepper on LLAMA-LAYER (229 nodes, 4 devices, HEFT's trace): one step forward
//     is the dock's new content, the graph's and the timeline's step overlays, and the repaint of
//     all three (dock 480x900, graph 1200x900, timeline 1600x420): goal under 16 ms.
//   - the training dashboard's charts after 50,000 reports: appending one report, and one redraw
//     (min/max decimation of every series to the plot widths, replace(), render of the makespan
//     chart and the four small charts into a QImage at 1400x700): goal under 16 ms.
// Run on one core: taskset -c 0 build/release/bench/views_bench --benchmark_time_unit=ms
// DOPPLER_BENCH_PNG=DIR saves one frame of each paint benchmark to DIR for a look.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <QtCharts/QXYSeries>
#include <cmath>
#include <memory>
#include <random>

#include "core/heuristics/list_scheduler.h"
#include "tests/views/synthetic.h"
#include "views/graph/graph_layout.h"
#include "views/graph/graph_scene.h"
#include "views/graph/graph_view.h"
#include "views/stepper/stepper_widget.h"
#include "views/timeline/timeline_painter.h"
#include "views/timeline/timeline_view.h"
#include "views/training/training_charts.h"

namespace doppler::views {
namespace {

const QSize kFrame(1920, 1080);

void maybeSave(const QImage& image, const char* name) {
  const QByteArray dir = qgetenv("DOPPLER_BENCH_PNG");
  if (!dir.isEmpty())
    image.save(QDir(QString::fromLocal8Bit(dir)).filePath(QString::fromLatin1(name)), "PNG");
}

struct TimelineFixture {
  SnapshotPtr snapshot = testing::bigTimelineSnapshot(100000, 8);
  TimelineData data =
      TimelineData::build(*snapshot->graph, *snapshot->devices, snapshot->sim.schedule);
  QFont font = QApplication::font();
  TimelineState state;
  TimelineGeometry geo;
  TimelineFixture() {
    state.header.title = QStringLiteral("Timeline");
    state.header.subtitle = QStringLiteral("100,000 events");
    for (int i = 0; i < 6; ++i)
      state.header.legend.push_back({LegendEntry::Kind::Swatch, QColor::fromRgb(data.ops[i].color),
                                     QString::fromStdString(data.ops[i].op)});
    geo = TimelinePainter::geometry(data, state.header, font, kFrame);
    state.usPerPx = data.makespan * 1.03 / geo.plotWidth();
    state.t0 = -data.makespan * 0.01;
  }
};

TimelineFixture& timeline() {
  static TimelineFixture f;
  return f;
}

void BM_TimelineBuild100k(benchmark::State& st) {
  auto& f = timeline();
  for (auto _ : st) {
    TimelineData d =
        TimelineData::build(*f.snapshot->graph, *f.snapshot->devices, f.snapshot->sim.schedule);
    benchmark::DoNotOptimize(d.eventCount);
  }
  st.counters["events"] = static_cast<double>(f.data.eventCount);
}
BENCHMARK(BM_TimelineBuild100k)->Unit(benchmark::kMillisecond);

void paintTimeline(benchmark::State& st, double zoom, const char* png) {
  auto& f = timeline();
  TimelineState s = f.state;
  s.usPerPx /= zoom;
  s.t0 = f.data.makespan / 2 - f.geo.plotWidth() * s.usPerPx / 2;
  s.selected = static_cast<int>(f.data.nodeLane.size() / 2);  // flow arrows too
  QImage image(kFrame, QImage::Format_ARGB32_Premultiplied);
  for (auto _ : st) {
    QPainter p(&image);
    TimelinePainter::paint(p, kFrame, f.data, s, f.font, f.geo);
  }
  st.counters["events"] = static_cast<double>(f.data.eventCount);
  maybeSave(image, png);
}
void BM_TimelinePaint100kFit(benchmark::State& st) {
  paintTimeline(st, 1, "timeline-100k-fit.png");
}
void BM_TimelinePaint100kZoom50(benchmark::State& st) {
  paintTimeline(st, 50, "timeline-100k-zoom50.png");
}
BENCHMARK(BM_TimelinePaint100kFit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TimelinePaint100kZoom50)->Unit(benchmark::kMillisecond);

struct GraphFixture {
  std::shared_ptr<const DataflowGraph> graph =
      std::make_shared<const DataflowGraph>(testing::layeredGraph(2000, 40));
  SnapshotPtr snapshot = testing::snapshotOf(graph, 4, "heft");
  LayoutInput input = makeLayoutInput(*graph, QApplication::font());
  LayoutResultPtr layout;
};

GraphFixture& graphFixture() {
  static GraphFixture f;
  return f;
}

void BM_GraphLayout2000(benchmark::State& st) {
  auto& f = graphFixture();
  for (auto _ : st) {
    auto r = std::make_shared<const LayoutResult>(computeLayout(f.input));
    benchmark::DoNotOptimize(r->width);
    f.layout = r;
  }
  st.counters["nodes"] = f.graph->nodeCount();
  st.counters["edges"] = f.graph->edgeCount();
}
BENCHMARK(BM_GraphLayout2000)->Unit(benchmark::kMillisecond)->Iterations(2);

LayoutResultPtr layoutOnce() {
  auto& f = graphFixture();
  if (!f.layout) f.layout = std::make_shared<const LayoutResult>(computeLayout(f.input));
  return f.layout;
}

void BM_GraphSceneBuild2000(benchmark::State& st) {
  auto& f = graphFixture();
  const LayoutResultPtr layout = layoutOnce();
  for (auto _ : st) {
    GraphScene scene;
    scene.setFont(QApplication::font());
    scene.setGraph(f.graph, f.input.hash);
    scene.setSnapshot(f.snapshot);
    scene.setLayout(layout);
    benchmark::DoNotOptimize(scene.crossEdgeCount());
  }
}
BENCHMARK(BM_GraphSceneBuild2000)->Unit(benchmark::kMillisecond);

void paintGraph(benchmark::State& st, bool fit, const char* png) {
  auto& f = graphFixture();
  GraphScene scene;
  scene.setFont(QApplication::font());
  scene.setGraph(f.graph, f.input.hash);
  scene.setSnapshot(f.snapshot);
  scene.setLayout(layoutOnce());
  const QSize frame(1600, 1000);
  QImage image(frame, QImage::Format_ARGB32_Premultiplied);
  const QRectF all = scene.sceneRect();
  // At 100%: a window's worth around the middle of the graph.
  const QRectF window(all.center() - QPointF(frame.width() / 2.0, frame.height() / 2.0),
                      QSizeF(frame));
  for (auto _ : st) {
    image.fill(Qt::white);
    QPainter p(&image);
    p.setRenderHint(QPainter::Antialiasing, !qEnvironmentVariableIsSet("NOAA"));
    scene.render(&p, QRectF(QPointF(0, 0), QSizeF(frame)), fit ? all : window, Qt::KeepAspectRatio);
  }
  st.counters["nodes"] = f.graph->nodeCount();
  maybeSave(image, png);
}
void BM_GraphPaint2000Fit(benchmark::State& st) {
  paintGraph(st, true, "graph-2000-fit.png");
}
void BM_GraphPaint2000At100(benchmark::State& st) {
  paintGraph(st, false, "graph-2000-100.png");
}
BENCHMARK(BM_GraphPaint2000Fit)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GraphPaint2000At100)->Unit(benchmark::kMillisecond);

// The stepper's three views on LLAMA-LAYER with every step's content and overlay prepared (the
// studio's session builds those; here only the views' work is timed).
struct StepperFixture {
  std::shared_ptr<const DataflowGraph> graph =
      std::make_shared<const DataflowGraph>(generateGraph("llama-layer"));
  SnapshotPtr snapshot = testing::snapshotOf(graph, 4, "heft");
  std::vector<StepperContent> contents;
  std::vector<StepOverlayPtr> overlays;
  StepperWidget stepper;
  GraphView graphView{nullptr};
  TimelineView timeline{nullptr};

  StepperFixture() {
    ListConfig heft;
    heft.device_rule = ListConfig::DeviceRule::EarliestFinish;
    heft.insertion = true;
    const DecisionControl control{true, {}, graph.get()};
    Placement p = listSchedule(*snapshot->costs, heft, &control);
    auto trace = std::make_shared<const DecisionTrace>(std::move(p.decisions));
    const int n = graph->nodeCount(), steps = static_cast<int>(trace->steps.size());
    std::vector<char> placed(n, 0);
    for (int k = 0; k <= steps; ++k) {
      StepperContent c;
      c.graph = graph;
      c.devices = snapshot->devices;
      c.trace = trace;
      c.source = QStringLiteral("heft (tuner settings)");
      c.step = k;
      c.final_makespan_us = p.planned->makespan_us;
      c.original_makespan_us = p.planned->makespan_us * 1.04;
      c.branches = {{QStringLiteral("original"), *c.original_makespan_us},
                    {QStringLiteral("step 12: device gpu2"), c.final_makespan_us}};
      c.current_branch = 1;
      contents.push_back(std::move(c));
      auto o = std::make_shared<StepOverlay>();
      o->step = k;
      o->steps = steps;
      if (k < steps) {
        o->ready = trace->steps[k].ready;
        o->chosen = trace->steps[k].node;
      }
      o->node_score = trace->node_score;
      o->node_higher_better = trace->node_higher_better;
      o->plan = *p.planned;
      o->placed = placed;
      o->partial_makespan_us = k > 0 ? trace->steps[k - 1].partial_makespan_us : 0;
      overlays.push_back(std::move(o));
      if (k < steps) placed[trace->steps[k].node] = 1;
    }
    stepper.resize(480, 900);
    graphView.resize(1200, 900);
    timeline.resize(1600, 420);
    for (QWidget* w : std::initializer_list<QWidget*>{&stepper, &graphView, &timeline}) w->show();
    QObject::connect(
        &graphView, &GraphView::layoutRequested, &graphView,
        [this](std::shared_ptr<const LayoutInput> in) {
          graphView.setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*in)));
        });
    graphView.setSnapshot(snapshot);
    timeline.setSnapshot(snapshot);
    QApplication::processEvents();
  }

  void show(int k) {
    stepper.setContent(contents[k]);
    graphView.setStepOverlay(overlays[k]);
    timeline.setStepOverlay(overlays[k]);
    // Layout first (the labels' new texts), then a synchronous repaint of each window, as the
    // next frame would.
    QCoreApplication::sendPostedEvents(nullptr, QEvent::LayoutRequest);
    stepper.repaint();
    graphView.viewport()->repaint();
    timeline.viewport()->repaint();
  }
};

StepperFixture& stepperFixture() {
  static StepperFixture f;
  return f;
}

void BM_StepperStepLlamaLayer(benchmark::State& st) {
  auto& f = stepperFixture();
  const int states = static_cast<int>(f.contents.size());
  int k = 0;
  for (auto _ : st) {
    k = (k + 1) % states;
    f.show(k);
  }
  st.counters["nodes"] = f.graph->nodeCount();
  st.counters["steps"] = states - 1;
  if (!qEnvironmentVariableIsEmpty("DOPPLER_BENCH_PNG")) {
    f.show(states / 3);
    maybeSave(f.stepper.grab().toImage(), "stepper-llama-layer.png");
    maybeSave(f.graphView.grab().toImage(), "stepper-graph-llama-layer.png");
    maybeSave(f.timeline.grab().toImage(), "stepper-timeline-llama-layer.png");
  }
}
BENCHMARK(BM_StepperStepLlamaLayer)->Unit(benchmark::kMillisecond);

// A noisy makespan decaying towards 1.05x a 10 ms bound, as a stage II run reports it, with a
// greedy evaluation every 50 episodes.
train::TrainProgress trainingReport(long e, long episodes, std::mt19937& rng) {
  std::normal_distribution<double> noise(0, 1);
  const double f = static_cast<double>(e) / static_cast<double>(episodes);
  const double level = 10'000 * (1.05 + 0.95 * std::exp(-6 * f));
  train::TrainProgress p;
  p.stage = train::Stage::Simulation;
  p.episode = e;
  p.episodes = episodes;
  p.makespan_us = level * (1 + 0.08 * std::abs(noise(rng)));
  p.best_makespan_us = level;
  p.sel_loss = std::exp(-3 * f) + 0.05 * noise(rng);
  p.plc_loss = std::exp(-4 * f) + 0.05 * noise(rng);
  p.entropy = 2.5 * (1 - f) + 0.05 * noise(rng);
  p.lr = 3e-4 * (1 - f) + 1e-6;
  p.episodes_per_s = 850 + 40 * noise(rng);
  p.evaluated = e % 50 == 0;
  if (p.evaluated) p.greedy_makespan_us = level * 1.01;
  return p;
}

struct TrainingChartsFixture {
  static constexpr long kReports = 50000;
  TrainingCharts charts;
  TrainingChartsFixture() {
    charts.resize(1400, 700);
    charts.show();
    QCoreApplication::processEvents();
    charts.reset(kReports);
    charts.setReferences({10'000, 13'400, 10'650});
    std::mt19937 rng(5);
    for (long e = 1; e <= kReports; ++e) charts.addProgress(trainingReport(e, kReports, rng));
    charts.redrawNow();
    QCoreApplication::processEvents();
  }
};

void BM_TrainingChartsAppend(benchmark::State& state) {
  // Appending to a run that already holds 50,000 reports: the cost of one report arriving.
  TrainingChartsFixture f;
  std::mt19937 rng(6);
  long e = TrainingChartsFixture::kReports;
  train::TrainProgress p = trainingReport(e, 2 * e, rng);
  for (auto _ : state) {
    p.episode = ++e;
    f.charts.addProgress(p);
  }
  state.counters["reports"] = static_cast<double>(f.charts.reportCount());
}
BENCHMARK(BM_TrainingChartsAppend)->Unit(benchmark::kMicrosecond);

void BM_TrainingChartsRedraw50k(benchmark::State& state) {
  TrainingChartsFixture f;
  QImage image(f.charts.size(), QImage::Format_ARGB32_Premultiplied);
  for (auto _ : state) {
    f.charts.redrawNow();
    QPainter painter(&image);
    f.charts.render(&painter);
  }
  maybeSave(image, "training-charts-50k.png");
  state.counters["drawn_points"] =
      static_cast<double>(f.charts.series(QStringLiteral("makespan"))->count());
}
BENCHMARK(BM_TrainingChartsRedraw50k)->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace doppler::views

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
  QApplication app(argc, argv);
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
