// The ONNX import's prompt and notes (onnx_prompt.h).
#include "app/studio/dialogs/onnx_prompt.h"

#include <QFileInfo>
#include <QLabel>
#include <QStatusBar>
#include <vector>

#include "app/studio/dialogs/onnx_dims_dialog.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/window/main_window.h"

namespace doppler::studio {

OnnxPrompt::OnnxPrompt(MainWindow* window) : QObject(window), window_(window) {
  StudioDocument* document = window->document();
  connect(document, &StudioDocument::dimsNeeded, this, &OnnxPrompt::ask);
  connect(document, &StudioDocument::imported, this, &OnnxPrompt::showNotes);
  connect(document, &StudioDocument::graphChanged, this, [this, document] {
    // Another graph: the model's notes no longer apply.
    if (label_ && !document->graphSource().endsWith(QLatin1String(".onnx"), Qt::CaseInsensitive))
      label_->hide();
  });
}

OnnxDimsDialog* OnnxPrompt::dialog() const {
  return dialog_.data();
}

void OnnxPrompt::ask(const QString& path, const QStringList& names, const QStringList& tensors,
                     const QString& reason) {
  delete dialog_;
  StudioSettings& settings = window_->settings();
  std::vector<OnnxDimsDialog::Dim> dims;
  for (int i = 0; i < names.size(); ++i)
    dims.push_back(
        {names[i], i < tensors.size() ? tensors[i] : QString(), settings.onnxDim(names[i], 1)});
  dialog_ = new OnnxDimsDialog(path, dims, reason, window_);
  dialog_->setAttribute(Qt::WA_DeleteOnClose);
  connect(dialog_, &QDialog::accepted, this, [this, dialog = dialog_.data()] {
    const auto values = dialog->values();
    for (const auto& [name, value] : values)
      window_->settings().setOnnxDim(QString::fromStdString(name), value);
    window_->document()->openOnnx(dialog->path(), values);
  });
  dialog_->open();  // window-modal, not blocking: the studio keeps what it shows
}

void OnnxPrompt::showNotes(const QString& path, const QString& notes) {
  notes_ = notes;
  // A permanent corner of the status bar: passing messages would replace the notes.
  QStatusBar* bar = window_->statusBar();
  if (!label_) {
    label_ = new QLabel(window_);
    bar->addPermanentWidget(label_);
  }
  label_->setText(notes.isEmpty() ? QString() : tr("ONNX: %1").arg(notes));
  label_->setToolTip(notes);
  label_->setVisible(!notes.isEmpty());
  const QString file = QFileInfo(path).fileName();
  bar->showMessage(
      notes.isEmpty() ? tr("Imported %1").arg(file) : tr("Imported %1 · %2").arg(file, notes),
      20000);
}

}  // namespace doppler::studio
