#pragma once
// The banner above the views that says why an input could not be used (the file, the place in
// it, the problem). It stays until closed or until the next input is used.
#include <QFrame>

class QLabel;

namespace doppler::studio {

class ErrorBanner : public QFrame {
  Q_OBJECT
 public:
  explicit ErrorBanner(QWidget* parent = nullptr);
  void showMessage(const QString& message);
  QString message() const { return message_; }

 private:
  QLabel* text_;
  QString message_;
};

}  // namespace doppler::studio
