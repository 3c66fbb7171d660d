// Drawing cost of the studio's views, offscreen into QImages (raster, as on screen):
//   - timeline paint with 100,000 events, fitted (everything visible, level of detail) and zoomed
//     in 50x (bars drawn one by one), at 1920x1080: goal under 16 ms a frame;
//   - graph view at 2,000 nodes: Graphviz layout, scene build, and paint fitted and at 100%.
// Run on one core: taskset -c 0 build/release/bench/views_bench --benchmark_time_unit=ms
// DOPPLER_BENCH_PNG=DIR saves one frame of each paint benchmark to DIR for a look.
#include <benchmark/benchmark.h>

#include <QApplication>
#include <QDir>
#include <QImage>
#include <QPainter>
#include <memory>

#include "tests/views/synthetic.h"
#include "views/graph/graph_layout.h"
#include "views/graph/graph_scene.h"
#include "views/timeline/timeline_painter.h"

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
