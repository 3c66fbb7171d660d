#pragma once
// The header every view paints over its content: a title that says what the view shows and a
// legend that flows over as many rows as the width needs. Used on screen and in exported images,
// so a screenshot pasted into slides explains itself.
#include <QColor>
#include <QFont>
#include <QRect>
#include <QString>
#include <vector>

class QPainter;

namespace doppler::views {

struct LegendEntry {
  enum class Kind { Swatch, Line, Outline, DashedOutline, Hatch, Dotted };
  Kind kind = Kind::Swatch;
  QColor color;
  QString text;
  double width = 2;  // Line and outlines
};

struct ViewHeader {
  QString title;
  QString subtitle;  // muted, after the title
  std::vector<LegendEntry> legend;
};

// Height the header needs at this width.
int headerHeight(const ViewHeader& header, const QFont& base, int width);
// Paints the header into the top of `area` (with a translucent band behind it); returns its height.
int paintHeader(QPainter& p, const ViewHeader& header, const QFont& base, const QRect& area);

}  // namespace doppler::views
