#pragma once
// What the studio's Qt Test suites share: a main() that runs one suite with a throwaway settings
// home (and the LibTorch module where the build has one), and the studio window opened on its
// demo, shown offscreen and settled.
#include <QApplication>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "app/studio/dialogs/onnx_prompt.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/panels/execution_page.h"
#include "app/studio/panels/fleet_page.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/panels/runs_page.h"
#include "app/studio/panels/stepper_page.h"
#include "app/studio/panels/training_page.h"
#include "app/studio/window/main_window.h"
#include "core/graph/graph_io.h"

namespace doppler::qtest {

// The window on the demo, fresh settings (nothing read or written), settled: null if it did not
// settle in time (the caller QVERIFYs).
inline studio::MainWindow* openSettledWindow() {
  studio::StudioOptions options;
  options.fresh = true;
  auto* w = new studio::MainWindow(options);
  w->resize(1500, 950);
  w->show();
  if (!QTest::qWaitForWindowExposed(w) || !w->waitSettled(60000)) {
    delete w;
    return nullptr;
  }
  return w;
}

#ifdef DOPPLER_CLI
// The window's current graph written as dataflow-graph/1 JSON into `dir`; its path.
inline QString writeDocumentGraph(studio::MainWindow* w, const QTemporaryDir& dir) {
  const QString graph = dir.filePath(QStringLiteral("current.json"));
  QFile f(graph);
  f.open(QIODevice::WriteOnly);
  f.write(QByteArray::fromStdString(writeGraphJson(*w->document()->graph())));
  return graph;
}

// `doppler ARGS`, whose standard output is JSON; empty (with a warning) when it fails.
inline nlohmann::json runCliJson(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(DOPPLER_CLI), args);
  if (!p.waitForFinished(120000) || p.exitCode() != 0) {
    qWarning() << "doppler failed:" << args << p.readAllStandardError();
    return {};
  }
  return nlohmann::json::parse(p.readAllStandardOutput().toStdString());
}

// Runs `doppler ARGS --graph G --devices D --json --no-record` on the window's graph (written to
// `dir`) and device set; its JSON, or empty (with a warning) when it fails.
inline nlohmann::json cliOnDocument(studio::MainWindow* w, const QTemporaryDir& dir,
                                    QStringList args) {
  args << "--graph" << writeDocumentGraph(w, dir) << "--devices" << w->document()->devicesSpec()
       << "--json"
       << "--no-record";
  return runCliJson(args);
}
#endif

template <class Suite>
int runStudioSuite(int argc, char** argv) {
  QTemporaryDir config;
  qputenv("XDG_CONFIG_HOME", config.path().toLocal8Bit());
#ifdef DOPPLER_TORCH_MODULE_PATH
  // Test binaries live in tests/, away from the module the studio finds beside itself.
  if (qEnvironmentVariableIsEmpty("DOPPLER_TORCH_MODULE"))
    qputenv("DOPPLER_TORCH_MODULE", DOPPLER_TORCH_MODULE_PATH);
#endif
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Doppler-tests"));
  Suite suite;
  return QTest::qExec(&suite, argc, argv);
}

}  // namespace doppler::qtest

#define DOPPLER_STUDIO_TEST_MAIN(Suite)                       \
  int main(int argc, char** argv) {                           \
    return doppler::qtest::runStudioSuite<Suite>(argc, argv); \
  }
