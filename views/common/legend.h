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
  // Dot and Diamond: a chart's point markers.
  enum class Kind { Swatch, Line, Outline, DashedOutline, Hatch, Dotted, Dot, Diamond };
  Kind kind = Kind::Swatch;
  QColor color;
  QString text;
  double width = 2;                    // Line and outlines
  Qt::PenStyle style = Qt::SolidLine;  // Line
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

// A legend alone, flowing over as many rows as `width` needs (a chart's, which never cuts an
// entry short as Qt Charts' own legend does when the chart is narrow).
int legendHeight(const std::vector<LegendEntry>& legend, const QFont& base, int width);
void paintLegend(QPainter& p, const std::vector<LegendEntry>& legend, const QFont& base,
                 const QRect& area);

}  // namespace doppler::views
