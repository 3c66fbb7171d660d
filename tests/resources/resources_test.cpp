// resources.icons: every icon in resources.qrc loads from a program that only links
// doppler_resources (no Q_INIT_RESOURCE), is a valid SVG, and paints something at 16 px and at
// its full size; toolbar icons are 24x24 and take a colour. `resources_test --save DIR` also
// writes each icon as PNG at 16, 24, 48 and 256 px, for looking at them.
#include <QDir>
#include <QDirIterator>
#include <QFile>
#include <QGuiApplication>
#include <QImage>
#include <QPainter>
#include <QSet>
#include <QSvgRenderer>
#include <QTextStream>

#include "resources/icons.h"

namespace {

const QStringList kToolbarIcons = {"open",    "devices", "method", "run",  "cancel",  "fit",
                                   "present", "export",  "theme",  "find", "generate"};

int failures = 0;

void check(bool ok, const QString& what) {
  if (ok) return;
  ++failures;
  QTextStream(stderr) << "FAIL: " << what << "\n";
}

// Pixels with any opacity, and whether one of them is close to `color` (when given).
struct Ink {
  int pixels = 0;
  bool hasColor = false;
};

Ink ink(const QImage& image, const QColor& color = {}) {
  Ink out;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.alpha() == 0) continue;
      ++out.pixels;
      if (color.isValid() && c.alpha() > 200 && std::abs(c.red() - color.red()) < 40 &&
          std::abs(c.green() - color.green()) < 40 && std::abs(c.blue() - color.blue()) < 40)
        out.hasColor = true;
    }
  return out;
}

QImage render(QSvgRenderer& renderer, int size) {
  QImage image(size, size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  QPainter painter(&image);
  renderer.render(&painter);
  painter.end();
  return image;
}

}  // namespace

int main(int argc, char** argv) {
  QGuiApplication app(argc, argv);
  QString saveDir;
  const QStringList args = app.arguments();
  if (const qsizetype i = args.indexOf("--save"); i >= 0 && i + 1 < args.size())
    saveDir = args[i + 1];
  if (!saveDir.isEmpty()) QDir().mkpath(saveDir);

  QStringList expected = kToolbarIcons;
  expected << "doppler-studio";
  QSet<QString> found;
  for (QDirIterator it(":/icons"); it.hasNext();) found.insert(QFileInfo(it.next()).fileName());
  check(!found.isEmpty(), "no :/icons in the program: the resources were not linked in");
  for (const QString& file : found)
    check(expected.contains(QFileInfo(file).completeBaseName()),
          ":/icons/" + file + " is in resources.qrc but not known to this test");

  for (const QString& name : expected) {
    const QString path = doppler::resources::iconPath(name);
    check(QFile::exists(path), path + " is missing");
    QSvgRenderer renderer(path);
    check(renderer.isValid(), path + " is not a valid SVG for Qt");
    if (!renderer.isValid()) continue;
    const bool toolbar = name != "doppler-studio";
    if (toolbar)
      check(renderer.viewBoxF() == QRectF(0, 0, 24, 24), path + " has no 0 0 24 24 viewBox");
    for (int size : {16, 24, 48, 256}) {
      const QImage image = render(renderer, size);
      const Ink drawn = ink(image);
      // A line icon covers a few percent of its square at least, and never all of it.
      check(drawn.pixels > size * size / 25,
            path + " paints almost nothing at " + QString::number(size) + " px");
      if (toolbar)
        check(drawn.pixels < size * size * 3 / 4,
              path + " fills its square at " + QString::number(size) + " px");
      if (!saveDir.isEmpty())
        image.save(saveDir + "/" + name + "-" + QString::number(size) + ".png");
    }
    const QIcon icon(path);
    check(!icon.isNull() && !icon.pixmap(16, 16).isNull(), "QIcon(" + path + ") gives no pixmap");
    if (toolbar) {
      const QColor red(0xd0, 0x20, 0x20);
      const QIcon colored = doppler::resources::toolbarIcon(name, red);
      check(!colored.isNull(), "toolbarIcon(" + name + ") is null");
      check(ink(colored.pixmap(24, 24).toImage(), red).hasColor,
            "toolbarIcon(" + name + ") does not draw in the colour asked for");
    }
  }
  check(!doppler::resources::appIcon().pixmap(256, 256).isNull(), "appIcon() gives no pixmap");
  check(doppler::resources::toolbarIcon("no-such-icon", Qt::black).isNull(),
        "toolbarIcon of an unknown name is not null");

  QTextStream(stdout) << expected.size() << " icons checked, " << failures << " failures\n";
  return failures == 0 ? 0 : 1;
}
