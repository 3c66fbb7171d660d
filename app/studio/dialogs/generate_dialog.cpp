#include "app/studio/dialogs/generate_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QPushButton>
#include <QVBoxLayout>
#include <cmath>

#include "core/graph/generators.h"

namespace doppler::studio {

GenerateDialog::GenerateDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Generate a paper workload"));
  auto* layout = new QVBoxLayout(this);
  auto* top = new QFormLayout;
  kind_ = new QComboBox;
  kind_->setObjectName(QStringLiteral("kind"));
  for (const GeneratorInfo& info : generatorKinds())
    kind_->addItem(QString::fromStdString(info.kind));
  top->addRow(tr("Workload"), kind_);
  layout->addLayout(top);
  description_ = new QLabel;
  description_->setWordWrap(true);
  description_->setMinimumWidth(460);
  layout->addWidget(description_);
  auto* paramsWidget = new QWidget;
  form_ = new QFormLayout(paramsWidget);
  layout->addWidget(paramsWidget);
  error_ = new QLabel;
  error_->setObjectName(QStringLiteral("error"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c62828"));
  error_->hide();
  layout->addWidget(error_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel);
  buttons->button(QDialogButtonBox::Ok)->setText(tr("Generate"));
  layout->addWidget(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &GenerateDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &GenerateDialog::reject);
  connect(kind_, &QComboBox::currentIndexChanged, this, &GenerateDialog::rebuild);
  rebuild();
}

void GenerateDialog::rebuild() {
  while (form_->rowCount() > 0) form_->removeRow(0);
  editors_.clear();
  error_->hide();
  for (const GeneratorInfo& info : generatorKinds()) {
    if (QString::fromStdString(info.kind) != kind_->currentText()) continue;
    description_->setText(QString::fromStdString(info.description));
    for (const GeneratorParam& p : info.params) {
      auto* spin = new QDoubleSpinBox;
      spin->setObjectName(QStringLiteral("param_") + QString::fromStdString(p.name));
      spin->setDecimals(p.integer ? 0 : 3);
      spin->setRange(p.min, p.max);
      spin->setValue(p.value);
      spin->setToolTip(QString::fromStdString(p.description));
      auto* label = new QLabel(QString::fromStdString(p.name));
      label->setToolTip(QString::fromStdString(p.description));
      form_->addRow(label, spin);
      editors_[p.name] = spin;
    }
  }
}

void GenerateDialog::setKind(const QString& kind) {
  kind_->setCurrentText(kind);
}

void GenerateDialog::setParam(const QString& name, double value) {
  auto it = editors_.find(name.toStdString());
  if (it != editors_.end()) it->second->setValue(value);
}

QString GenerateDialog::kind() const {
  return kind_->currentText();
}

std::map<std::string, double> GenerateDialog::params() const {
  std::map<std::string, double> out;
  for (const auto& [name, spin] : editors_) out[name] = spin->value();
  return out;
}

void GenerateDialog::accept() {
  try {
    graph_ = generateGraph(kind().toStdString(), params());
  } catch (const std::exception& e) {
    error_->setText(QString::fromStdString(e.what()));
    error_->show();
    return;
  }
  QDialog::accept();
}

}  // namespace doppler::studio
