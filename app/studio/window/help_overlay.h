#pragma once
// The keyboard shortcut overlay (`?`): drawn over the whole window, closed by `?`, Esc or a click.
#include <QWidget>
#include <utility>
#include <vector>

namespace doppler::studio {

class HelpOverlay : public QWidget {
  Q_OBJECT
 public:
  using Entries = std::vector<std::pair<QString, QString>>;  // keys, what they do; "" = heading
  HelpOverlay(Entries entries, QWidget* parent);
  void toggle();

 protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  Entries entries_;
};

}  // namespace doppler::studio
