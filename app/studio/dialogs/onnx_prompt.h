#pragma once
// The ONNX import as the user meets it: the dialog asking for a model's dynamic dimensions (the
// last values remembered per name), and the importer's notes (ops costed by output bytes,
// external weights) in a permanent corner of the status bar while the model is open.
#include <QObject>
#include <QPointer>
#include <QString>

class QLabel;

namespace doppler::studio {

class MainWindow;
class OnnxDimsDialog;

class OnnxPrompt : public QObject {
  Q_OBJECT
 public:
  explicit OnnxPrompt(MainWindow* window);

  OnnxDimsDialog* dialog() const;  // while it is open, else null
  QString notes() const { return notes_; }

 private:
  void ask(const QString& path, const QStringList& names, const QStringList& tensors,
           const QString& reason);
  void showNotes(const QString& path, const QString& notes);

  MainWindow* window_;
  QPointer<OnnxDimsDialog> dialog_;
  QString notes_;
  QLabel* label_ = nullptr;
};

}  // namespace doppler::studio
