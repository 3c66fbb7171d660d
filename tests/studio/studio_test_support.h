#pragma once
// What the studio's Qt Test suites share: a main() that runs one suite with a throwaway settings
// home (and the LibTorch module where the build has one), and the studio window opened on its
// demo, shown offscreen and settled.
#include <QApplication>
#include <QTemporaryDir>
#include <QtTest>

#include "app/studio/main_window.h"

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
