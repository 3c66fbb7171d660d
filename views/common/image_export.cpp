#include "views/common/image_export.h"

#include <QClipboard>
#include <QFileDialog>
#include <QGuiApplication>
#include <QMessageBox>
#include <QPainter>
#include <QSvgGenerator>

namespace doppler::views {

QImage renderImage(ImageSource& source, double scale) {
  const QSize size = source.cleanImageSize();
  QImage image(size * scale, QImage::Format_ARGB32_Premultiplied);
  image.setDevicePixelRatio(scale);
  image.fill(Qt::transparent);
  QPainter p(&image);
  p.setRenderHint(QPainter::Antialiasing);
  p.setRenderHint(QPainter::TextAntialiasing);
  source.renderClean(p, size);
  p.end();
  return image;
}

QString savePng(ImageSource& source, const QString& path, double scale) {
  if (QString why = source.notReadyReason(); !why.isEmpty()) return why;
  const QImage image = renderImage(source, scale);
  if (image.isNull()) return QStringLiteral("the image is empty");
  if (!image.save(path, "PNG")) return QStringLiteral("cannot write %1").arg(path);
  return {};
}

QString saveSvg(ImageSource& source, const QString& path, const QString& title) {
  if (QString why = source.notReadyReason(); !why.isEmpty()) return why;
  const QSize size = source.cleanImageSize();
  QSvgGenerator svg;
  svg.setFileName(path);
  svg.setSize(size);
  svg.setViewBox(QRect(QPoint(0, 0), size));
  svg.setTitle(title);
  svg.setDescription(QStringLiteral("Doppler Studio"));
  QPainter p;
  if (!p.begin(&svg)) return QStringLiteral("cannot write %1").arg(path);
  p.setRenderHint(QPainter::Antialiasing);
  source.renderClean(p, size);
  p.end();
  return {};
}

QString copyImageToClipboard(ImageSource& source) {
  if (QString why = source.notReadyReason(); !why.isEmpty()) return why;
  QGuiApplication::clipboard()->setImage(renderImage(source, 2.0));
  return {};
}

void saveImageInteractively(ImageSource& source, QWidget* parent) {
  // Said before the file dialog: there is nothing to save yet.
  if (const QString why = source.notReadyReason(); !why.isEmpty())
    return static_cast<void>(QMessageBox::information(parent, QObject::tr("Save image"), why));
  const QString path = QFileDialog::getSaveFileName(
      parent, QObject::tr("Save image"), source.imageName() + QStringLiteral(".png"),
      QObject::tr("PNG image (*.png);;SVG drawing (*.svg)"));
  if (path.isEmpty()) return;
  const QString error = path.endsWith(QStringLiteral(".svg"), Qt::CaseInsensitive)
                            ? saveSvg(source, path, source.imageName())
                            : savePng(source, path, 2.0);
  if (!error.isEmpty()) QMessageBox::warning(parent, QObject::tr("Save image"), error);
}

}  // namespace doppler::views
