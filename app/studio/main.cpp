// doppler-studio: the Qt workbench. With no arguments it opens the last graph, or on first start
// the demo (a LLaMA attention block placed on 4 GPUs). `--grab DIR` opens the demo offscreen-
// friendly, waits for the layout and placement, saves PNGs of every view and exits.
#include <QApplication>
#include <QCommandLineParser>
#include <QTextStream>
#include <QTimer>

#include "app/studio/window/main_window.h"
#include "app/studio/window/studio_grab.h"
#include "resources/icons.h"
#include "resources/version.h"
#include "views/common/theme.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setOrganizationName(QStringLiteral("Doppler"));
  QApplication::setApplicationName(QStringLiteral("Doppler Studio"));
  QApplication::setApplicationVersion(QString::fromStdString(doppler::resources::versionLine()));
  // The installed desktop entry is <app id>.desktop (resources/CMakeLists.txt).
  QApplication::setDesktopFileName(QString::fromLatin1(doppler::resources::kAppId));
  QApplication::setWindowIcon(doppler::resources::appIcon());  // :/icons/doppler-studio.svg
  doppler::views::Theme::setDark(false, &app);

  QCommandLineParser parser;
  parser.setApplicationDescription(
      QStringLiteral("Doppler Studio: place dataflow graphs on GPUs, see them, tune them."));
  parser.addHelpOption();
  parser.addVersionOption();
  parser.addPositionalArgument(
      QStringLiteral("file"),
      QStringLiteral(
          "A graph (dataflow-graph/1 JSON, Doppler text or an ONNX model) or a device set to open"),
      QStringLiteral("[file]"));
  QCommandLineOption devices(QStringLiteral("devices"),
                             QStringLiteral("Device set: a device-set/1 file, a preset or a count"),
                             QStringLiteral("spec"));
  QCommandLineOption method(QStringLiteral("method"),
                            QStringLiteral("Placement method (see `doppler methods`)"),
                            QStringLiteral("name"));
  QCommandLineOption demo(QStringLiteral("demo"),
                          QStringLiteral("Open the demo (a LLaMA attention block on 4 x P100)"));
  QCommandLineOption dark(QStringLiteral("dark"), QStringLiteral("Dark theme"));
  QCommandLineOption fresh(QStringLiteral("fresh"),
                           QStringLiteral("Ignore and do not write saved settings"));
  QCommandLineOption grab(
      QStringLiteral("grab"),
      QStringLiteral("Save PNGs of every view and the window into DIR, then exit"),
      QStringLiteral("dir"));
  QCommandLineOption present(QStringLiteral("present"),
                             QStringLiteral("Start in presentation mode"));
  parser.addOptions({devices, method, demo, dark, fresh, grab, present});
  parser.process(app);

  doppler::studio::StudioOptions options;
  if (!parser.positionalArguments().isEmpty()) options.file = parser.positionalArguments().first();
  options.devices = parser.value(devices);
  options.method = parser.value(method);
  options.demo = parser.isSet(demo);
  options.fresh = parser.isSet(fresh) || parser.isSet(grab);
  if (parser.isSet(dark)) options.dark = true;

  doppler::studio::MainWindow window(options);
  if (parser.isSet(grab)) {
    window.resize(1600, 1000);
    window.show();
    const QStringList files = doppler::studio::grabViews(window, parser.value(grab));
    QTextStream out(stdout);
    for (const QString& f : files) out << f << "\n";
    return files.isEmpty() ? 1 : 0;
  }
  window.show();
  if (parser.isSet(present))
    QTimer::singleShot(300, &window, [&window] { window.setPresentationMode(true); });
  return app.exec();
}
