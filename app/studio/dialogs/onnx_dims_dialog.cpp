#include "app/studio/dialogs/onnx_dims_dialog.h"

#include <QDialogButtonBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <algorithm>

namespace doppler::studio {

OnnxDimsDialog::OnnxDimsDialog(const QString& path, const std::vector<Dim>& dims,
                               const QString& reason, QWidget* parent)
    : QDialog(parent), path_(path) {
  setObjectName(QStringLiteral("onnxDimsDialog"));
  setWindowTitle(tr("Dynamic dimensions of %1").arg(QFileInfo(path).fileName()));
  auto* layout = new QVBoxLayout(this);
  auto* intro =
      new QLabel(tr("<b>%1</b> leaves these dimensions open. Give each a value to import the model "
                    "(as <code>doppler graph import --dim NAME=VALUE</code> does).")
                     .arg(QFileInfo(path).fileName().toHtmlEscaped()));
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* form = new QFormLayout;
  for (const Dim& dim : dims) {
    auto* spin = new QSpinBox;
    spin->setObjectName(QStringLiteral("dim_") + dim.name);
    spin->setRange(1, 1 << 30);
    spin->setValue(static_cast<int>(std::clamp<qint64>(dim.value, 1, 1 << 30)));
    spin->setToolTip(tr("used by tensor %1").arg(dim.tensor));
    const QString label = dim.tensor.isEmpty()
                              ? dim.name
                              : tr("%1 <span style='color:gray'>(%2)</span>")
                                    .arg(dim.name.toHtmlEscaped(), dim.tensor.toHtmlEscaped());
    form->addRow(new QLabel(label), spin);
    editors_.emplace_back(dim.name, spin);
  }
  layout->addLayout(form);
  if (!reason.isEmpty()) {
    auto* why = new QLabel(reason);
    why->setWordWrap(true);
    why->setStyleSheet(QStringLiteral("color: gray"));
    layout->addWidget(why);
  }
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Import"));
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  layout->addWidget(buttons);
}

QSpinBox* OnnxDimsDialog::editor(const QString& name) const {
  for (const auto& [dim, spin] : editors_)
    if (dim == name) return spin;
  return nullptr;
}

std::map<std::string, int64_t> OnnxDimsDialog::values() const {
  std::map<std::string, int64_t> out;
  for (const auto& [dim, spin] : editors_) out[dim.toStdString()] = spin->value();
  return out;
}

}  // namespace doppler::studio
