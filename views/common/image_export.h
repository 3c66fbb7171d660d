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
};

QImage renderImage(ImageSource& source, double scale = 1.0);
// Returns an error message, or an empty string on success.
QString savePng(ImageSource& source, const QString& path, double scale = 1.0);
QString saveSvg(ImageSource& source, const QString& path, const QString& title);
void copyImageToClipboard(ImageSource& source);
// Asks for a file name (PNG or SVG by its suffix) and saves; reports errors in a message box.
void saveImageInteractively(ImageSource& source, QWidget* parent);

}  // namespace doppler::views
