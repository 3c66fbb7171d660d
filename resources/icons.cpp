#include "resources/icons.h"

#include <QFile>
#include <QPainter>
#include <QPixmap>
#include <QSvgRenderer>

namespace doppler::resources {

QString iconPath(const QString& name) {
  return QStringLiteral(":/icons/") + name + QStringLiteral(".svg");
}

QIcon appIcon() {
  return QIcon(iconPath(QStringLiteral("doppler-studio")));
}

QIcon toolbarIcon(const QString& name, const QColor& color) {
  QFile file(iconPath(name));
  if (!file.open(QIODevice::ReadOnly)) return {};
  QByteArray svg = file.readAll();
  svg.replace("currentColor", color.name(QColor::HexRgb).toLatin1());
  QSvgRenderer renderer(svg);
  if (!renderer.isValid()) return {};
  // Pixmaps at the sizes toolbars and menus ask for, doubled for high-DPI screens; QIcon derives
  // the disabled look from them.
  QIcon icon;
  for (int size : {16, 20, 22, 24, 32, 40, 44, 48, 64, 96}) {
    QPixmap pixmap(size, size);
    pixmap.fill(Qt::transparent);
    QPainter painter(&pixmap);
    renderer.render(&painter);
    painter.end();
    icon.addPixmap(pixmap);
  }
  return icon;
}

}  // namespace doppler::resources
