#pragma once
// "A clean image of any view": every view that can be exported renders its content with its
// title and legend, without interactive chrome (scroll bars, minimap, search field), into any
// QPainter: a QImage for PNG and the clipboard, a QSvgGenerator for SVG.
#include <QImage>
#include <QSize>
#include <QString>

class QPainter;
class QWidget;

namespace doppler::views {

class ImageSource {
 public:
  virtual ~ImageSource() = default;
  // A short name for file names ("graph", "timeline").
  virtual QString imageName() const = 0;
  // The natural size of the clean image in logical pixels.
  virtual QSize cleanImageSize() const = 0;
  // Paints the clean image into [0, size) of the painter's coordinate system.
  virtual void renderClean(QPainter& painter, const QSize& size) = 0;
  // Why an image now would not show the view's content (a graph still being laid out), or empty.
  // Exports refuse with this reason rather than write a picture with nothing in it.
  virtual QString notReadyReason() const { return {}; }
};

QImage renderImage(ImageSource& source, double scale = 1.0);
// These return an error message (the source's notReadyReason first), or an empty string.
QString savePng(ImageSource& source, const QString& path, double scale = 1.0);
QString saveSvg(ImageSource& source, const QString& path, const QString& title);
QString copyImageToClipboard(ImageSource& source);
// Asks for a file name (PNG or SVG by its suffix) and saves; reports errors in a message box.
void saveImageInteractively(ImageSource& source, QWidget* parent);

}  // namespace doppler::views
