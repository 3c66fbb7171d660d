#pragma once
// A chart's legend as a widget of its own, above the chart: its entries flow over as many rows
// as the width needs (legend.h), where Qt Charts' own legend cuts them short ("greedy evalu…")
// once the chart is narrow. Its height follows its width.
#include <QWidget>
#include <vector>

#include "views/common/legend.h"

namespace doppler::views {

class LegendBar : public QWidget {
  Q_OBJECT
 public:
  explicit LegendBar(QWidget* parent = nullptr);

  void setEntries(std::vector<LegendEntry> entries);
  // A bold line above the entries (a chart's title, which then stays above its legend).
  void setTitle(const QString& title);
  const QString& title() const { return title_; }
  const std::vector<LegendEntry>& entries() const { return entries_; }

  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override { return {0, 0}; }

 protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void fitHeight();
  int titleHeight() const;
  std::vector<LegendEntry> entries_;
  QString title_;
};

}  // namespace doppler::views
