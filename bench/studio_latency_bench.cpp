// The studio's event loop while a policy trains (issue "training dashboard": the GUI stays
// responsive, worst latency under 50 ms). Opens the studio offscreen on LLAMA-LAYER (the paper's
// graph when the data folder has it, else the generated one), starts a stage II run from the
// training dashboard with its defaults (the number of episodes aside), and measures how late a
// 5 ms timer fires on the GUI thread, while the charts redraw live; then the same with no
// training, side by side.
//   QT_QPA_PLATFORM=offscreen build/release/bench/studio_latency_bench [seconds]
#include <QApplication>
#include <QElapsedTimer>
#include <QTimer>
#include <algorithm>
#include <cstdio>
#include <vector>

#include "app/studio/document/studio_document.h"
#include "app/studio/panels/training_controller.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/main_window.h"
#include "paper_graph.h"
#include "views/training/training_dashboard.h"

namespace {

struct Latency {
  double worst_ms = 0, p99_ms = 0, mean_ms = 0;
  long ticks = 0;
};

// Runs the event loop for `seconds` with a 5 ms timer and reports how late its ticks came.
Latency measure(double seconds) {
  std::vector<double> late;
  QElapsedTimer clock;
  clock.start();
  qint64 last = clock.nsecsElapsed();
  QTimer timer;
  timer.setTimerType(Qt::PreciseTimer);
  QObject::connect(&timer, &QTimer::timeout, [&] {
    const qint64 now = clock.nsecsElapsed();
    late.push_back(std::max(0.0, (now - last) / 1e6 - 5.0));
    last = now;
  });
  timer.start(5);
  QEventLoop loop;
  QTimer::singleShot(static_cast<int>(seconds * 1000), &loop, &QEventLoop::quit);
  loop.exec();
  timer.stop();
  Latency l;
  l.ticks = static_cast<long>(late.size());
  if (late.empty()) return l;
  std::sort(late.begin(), late.end());
  l.worst_ms = late.back();
  l.p99_ms = late[late.size() * 99 / 100];
  for (double x : late) l.mean_ms += x;
  l.mean_ms /= late.size();
  return l;
}

void print(const char* what, const Latency& l) {
  std::printf("%-28s worst %7.2f ms   p99 %6.2f ms   mean %5.2f ms   (%ld ticks)\n", what,
              l.worst_ms, l.p99_ms, l.mean_ms, l.ticks);
}

}  // namespace

int main(int argc, char** argv) {
  if (qEnvironmentVariableIsEmpty("DOPPLER_TORCH_MODULE"))  // bench/ is not beside the module
    qputenv("DOPPLER_TORCH_MODULE", DOPPLER_TORCH_MODULE_PATH);
  QApplication app(argc, argv);
  const double seconds = argc > 1 ? std::atof(argv[1]) : 20;
  using namespace doppler;
  studio::StudioOptions options;
  options.fresh = true;
  studio::MainWindow w(options);
  w.resize(1600, 1000);
  w.show();
  w.waitSettled(120000);
  QString error;
  DataflowGraph g =
      bench::paperGraphOrGenerated("full_transformer_layer_261nodes.txt", "llama-layer");
  const int nodes = g.nodeCount();
  w.document()->setGraph(std::move(g), QStringLiteral("LLAMA-LAYER"), &error);
  w.waitSettled(120000);
  w.trainingPage()->show();
  const Latency idle = measure(seconds / 2);
  views::TrainingDashboard* d = w.trainingPage()->dashboard();
  d->setStage(train::Stage::Simulation);
  d->setValues({{"episodes", "100000"}});  // longer than the measurement
  w.trainingPage()->startTraining();
  if (!w.trainingPage()->controller()->running()) {
    std::fprintf(stderr, "training did not start: %s\n", qPrintable(d->statusText()));
    return 1;
  }
  measure(2);  // LibTorch loads and the first reports arrive
  const Latency training = measure(seconds);
  std::printf("LLAMA-LAYER, %d nodes, 4 devices; stage II training on the job runner\n", nodes);
  print("event loop, idle", idle);
  print("event loop, while training", training);
  std::printf("training: %s\n", qPrintable(d->progressText()));
  w.trainingPage()->controller()->cancel();
  w.jobs()->waitIdle(120000);
  return 0;
}
