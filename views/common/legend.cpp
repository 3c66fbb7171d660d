#include "views/common/legend.h"

#include <QFontMetrics>
#include <QPainter>

#include "views/common/theme.h"

namespace doppler::views {
namespace {

constexpr int kPad = 8, kSwatch = 12, kGap = 14, kRowGap = 4;

QFont titleOf(const QFont& base) {
  QFont f = base;
  if (f.pointSizeF() > 0)
    f.setPointSizeF(f.pointSizeF() * 1.2);
  else
    f.setPixelSize(static_cast<int>(f.pixelSize() * 1.2));
  f.setBold(true);
  return f;
}

// Lays the legend out in rows; calls draw(entry, x, y) for each when given.
template <typename Draw>
int flow(const std::vector<LegendEntry>& legend, const QFont& base, int width, int y0, Draw draw) {
  QFontMetrics fm(base);
  const int rowH = std::max(fm.height(), kSwatch) + kRowGap;
  int x = kPad, y = y0;
  bool any = false;
  for (const LegendEntry& e : legend) {
    const int w = kSwatch + 5 + fm.horizontalAdvance(e.text);
    if (any && x + w > width - kPad) {
      x = kPad;
      y += rowH;
    }
    draw(e, x, y, rowH);
    x += w + kGap;
    any = true;
  }
  return any ? y + rowH - y0 : 0;
}

// Draws the entries flowed from (left, y0) over `width`.
void paintEntries(QPainter& p, const std::vector<LegendEntry>& legend, const QFont& base, int left,
                  int width, int y0) {
  const Theme& t = Theme::current();
  p.setFont(base);
  QFontMetrics fm(base);
  flow(legend, base, width, y0, [&](const LegendEntry& e, int x, int y, int rowH) {
    x += left;
    const QRect sw(x, y + (rowH - kRowGap - kSwatch) / 2, kSwatch, kSwatch);
    switch (e.kind) {
      case LegendEntry::Kind::Swatch:
        p.setPen(e.color.darker(140));
        p.setBrush(e.color);
        p.drawRoundedRect(sw.adjusted(0, 0, -1, -1), 2, 2);
        break;
      case LegendEntry::Kind::Line:
        p.setPen(QPen(e.color, e.width, e.style, Qt::FlatCap));
        p.drawLine(sw.left(), sw.center().y(), sw.right(), sw.center().y());
        break;
      case LegendEntry::Kind::Dot:
        p.setPen(Qt::NoPen);
        p.setBrush(e.color);
        p.drawEllipse(QRectF(sw).adjusted(2.5, 2.5, -2.5, -2.5));
        break;
      case LegendEntry::Kind::Diamond: {
        const QRectF r = QRectF(sw).adjusted(1.5, 1.5, -1.5, -1.5);
        p.setPen(Qt::NoPen);
        p.setBrush(e.color);
        p.drawPolygon(QPolygonF{{r.center().x(), r.top()},
                                {r.right(), r.center().y()},
                                {r.center().x(), r.bottom()},
                                {r.left(), r.center().y()}});
        break;
      }
      case LegendEntry::Kind::Outline:
      case LegendEntry::Kind::DashedOutline:
        p.setPen(QPen(e.color, e.width,
                      e.kind == LegendEntry::Kind::Outline ? Qt::SolidLine : Qt::DashLine));
        p.setBrush(Qt::NoBrush);
        p.drawRoundedRect(QRectF(sw).adjusted(1.5, 1.5, -1.5, -1.5), 2, 2);
        break;
      case LegendEntry::Kind::Hatch:
        p.setPen(Qt::NoPen);
        p.setBrush(t.idle);
        p.drawRect(sw);
        p.setBrush(QBrush(e.color, Qt::BDiagPattern));
        p.drawRect(sw);
        break;
      case LegendEntry::Kind::Dotted:  // the op kinds without a shade of their own
        p.setPen(Qt::NoPen);
        p.setBrush(e.color);
        p.drawRect(sw);
        p.setBrush(QBrush(e.color.darker(170), Qt::Dense6Pattern));
        p.drawRect(sw);
        break;
    }
    p.setPen(t.text);
    p.drawText(sw.right() + 5, y + fm.ascent() + (rowH - kRowGap - fm.height()) / 2, e.text);
  });
}

}  // namespace

int headerHeight(const ViewHeader& header, const QFont& base, int width) {
  QFontMetrics tf(titleOf(base));
  const int legend = legendHeight(header.legend, base, width);
  return kPad + tf.height() + (legend ? 4 + legend : 0) + kPad / 2;
}

int legendHeight(const std::vector<LegendEntry>& legend, const QFont& base, int width) {
  return flow(legend, base, width, 0, [](const LegendEntry&, int, int, int) {});
}

void paintLegend(QPainter& p, const std::vector<LegendEntry>& legend, const QFont& base,
                 const QRect& area) {
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  paintEntries(p, legend, base, area.left(), area.width(), area.top());
  p.restore();
}

int paintHeader(QPainter& p, const ViewHeader& header, const QFont& base, const QRect& area) {
  const Theme& t = Theme::current();
  const int h = headerHeight(header, base, area.width());
  p.save();
  p.setRenderHint(QPainter::Antialiasing);
  p.fillRect(QRect(area.left(), area.top(), area.width(), h), t.legendBackground);
  p.setPen(t.grid);
  p.drawLine(area.left(), area.top() + h - 1, area.right(), area.top() + h - 1);
  const QFont tfont = titleOf(base);
  QFontMetrics tf(tfont);
  p.setFont(tfont);
  p.setPen(t.text);
  const int baseline = area.top() + kPad + tf.ascent();
  const QString title = tf.elidedText(header.title, Qt::ElideRight, area.width() - 2 * kPad);
  p.drawText(area.left() + kPad, baseline, title);
  if (!header.subtitle.isEmpty()) {
    const int x = area.left() + kPad + tf.horizontalAdvance(title) + 10;
    p.setFont(base);
    p.setPen(t.mutedText);
    QFontMetrics fm(base);
    p.drawText(x, baseline,
               fm.elidedText(header.subtitle, Qt::ElideRight, area.right() - kPad - x));
  }
  const int y0 = area.top() + kPad + tf.height() + 4;
  paintEntries(p, header.legend, base, area.left(), area.width(), y0);
  p.restore();
  return h;
}

}  // namespace doppler::views
