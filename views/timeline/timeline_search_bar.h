#pragma once
// The timeline's find field (Ctrl+F): a line edit and a "k of n" count over the top right of the
// plot. Enter asks for the next match; Esc closes it.
#include <QWidget>

class QLabel;
class QLineEdit;

namespace doppler::views {

class TimelineSearchBar : public QWidget {
  Q_OBJECT
 public:
  explicit TimelineSearchBar(QWidget* parent);
  QString text() const;
  void open();                           // shows it with the text selected and the focus in it
  void showCount(int index, int count);  // index < 0: no match (or nothing typed)

 Q_SIGNALS:
  void textChanged(const QString& text);
  void nextRequested();
  void closed();

 protected:
  void keyPressEvent(QKeyEvent* event) override;

 private:
  QLineEdit* edit_;
  QLabel* count_;
};

}  // namespace doppler::views
