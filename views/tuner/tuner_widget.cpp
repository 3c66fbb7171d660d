#include "views/tuner/tuner_widget.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>
#include <cmath>

#include "core/graph/device_presets.h"
#include "views/common/param_editors.h"
#include "views/common/theme.h"

namespace doppler::views {

TunerWidget::TunerWidget(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("tuner"));
  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(8, 8, 8, 8);

  auto* methodRow = new QFormLayout;
  method_ = new QComboBox;
  method_->setObjectName(QStringLiteral("method"));
  method_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  method_->setMinimumContentsLength(12);
  // Items show a label and carry the method's id (the registry's methods: their name).
  for (const auto& m : methods()) {
    const QString name = QString::fromStdString(m->name());
    method_->addItem(name, name);
  }
  methodRow->addRow(tr("Method"), method_);
  description_ = new QLabel;
  description_->setWordWrap(true);
  description_->setForegroundRole(QPalette::PlaceholderText);
  description_->setFont(titleFont(*this, 0.9, false));

  paramsBox_ = new QGroupBox(tr("Method parameters"));
  paramsForm_ = new QFormLayout(paramsBox_);

  auto* simBox = new QGroupBox(tr("Devices and simulation"));
  auto* simForm = new QFormLayout(simBox);
  devices_ = new QComboBox;
  devices_->setObjectName(QStringLiteral("devices"));
  devices_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  devices_->setMinimumContentsLength(12);
  fillDeviceChoices(devices_);
  simForm->addRow(tr("Devices"), devices_);
  costModel_ = new QComboBox;
  costModel_->setObjectName(QStringLiteral("costModel"));
  costModel_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  costModel_->setMinimumContentsLength(12);
  costModel_->addItem(tr("reference (transfers never contend)"), QStringLiteral("reference"));
  costModel_->addItem(tr("links (one transfer per link at a time)"), QStringLiteral("links"));
  simForm->addRow(tr("Cost model"), costModel_);
  discipline_ = new QComboBox;
  discipline_->setObjectName(QStringLiteral("discipline"));
  discipline_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  discipline_->setMinimumContentsLength(12);
  discipline_->addItem(tr("fifo (first ready runs first)"), QStringLiteral("fifo"));
  discipline_->addItem(tr("priority (the method's order)"), QStringLiteral("priority"));
  discipline_->addItem(tr("sequence (planned order, waits)"), QStringLiteral("sequence"));
  discipline_->setToolTip(
      tr("How each device picks its next node: work-conserving by readiness (Doppler's runtime), "
         "work-conserving by the method's order, or one stream per device in the planned order"));
  simForm->addRow(tr("Discipline"), discipline_);
  noise_ = new QDoubleSpinBox;
  noise_->setObjectName(QStringLiteral("noise"));
  noise_->setRange(0, 2);
  noise_->setSingleStep(0.05);
  noise_->setDecimals(3);
  noise_->setKeyboardTracking(false);
  noise_->setToolTip(tr("Sigma of a log-normal factor on every duration; 0 = deterministic"));
  simForm->addRow(tr("Noise σ"), noise_);
  seed_ = new QSpinBox;
  seed_->setObjectName(QStringLiteral("seed"));
  seed_->setRange(0, 1 << 30);
  seed_->setValue(1);
  seed_->setKeyboardTracking(false);
  seed_->setToolTip(tr("Seed for randomised methods, tie-breaking and noise"));
  simForm->addRow(tr("Seed"), seed_);
  budget_ = new QSpinBox;
  budget_->setObjectName(QStringLiteral("budget"));
  budget_->setRange(1, 10000000);
  budget_->setSingleStep(1000);
  budget_->setValue(5000);
  budget_->setKeyboardTracking(false);
  budget_->setToolTip(tr("Simulator evaluations for search methods (local-search)"));
  simForm->addRow(tr("Search budget"), budget_);

  auto* runRow = new QHBoxLayout;
  auto* reset = new QPushButton(tr("Defaults"));
  reset->setObjectName(QStringLiteral("reset"));
  reset->setToolTip(tr("Reset the method's parameters to their defaults"));
  rerun_ = new QPushButton(tr("Run again"));
  rerun_->setObjectName(QStringLiteral("rerun"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setObjectName(QStringLiteral("cancel"));
  cancel_->setEnabled(false);
  runRow->addWidget(reset);
  runRow->addStretch();
  runRow->addWidget(rerun_);
  runRow->addWidget(cancel_);
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("progress"));
  progress_->setTextVisible(true);
  progress_->setVisible(false);

  auto* resultBox = new QGroupBox(tr("Result"));
  auto* result = new QVBoxLayout(resultBox);
  makespan_ = new QLabel(QStringLiteral("–"));
  makespan_->setObjectName(QStringLiteral("makespan"));
  makespan_->setFont(titleFont(*this, 1.6));
  delta_ = new QLabel;
  delta_->setObjectName(QStringLiteral("delta"));
  moved_ = new QLabel;
  moved_->setObjectName(QStringLiteral("moved"));
  moved_->setWordWrap(true);
  bound_ = new QLabel;
  bound_->setWordWrap(true);
  timing_ = new QLabel;
  timing_->setObjectName(QStringLiteral("timing"));
  timing_->setForegroundRole(QPalette::PlaceholderText);
  error_ = new QLabel;
  error_->setObjectName(QStringLiteral("error"));
  error_->setWordWrap(true);
  error_->setStyleSheet(QStringLiteral("color: #c62828"));
  error_->hide();
  for (QWidget* w : {static_cast<QWidget*>(makespan_), static_cast<QWidget*>(delta_),
                     static_cast<QWidget*>(moved_), static_cast<QWidget*>(bound_),
                     static_cast<QWidget*>(timing_), static_cast<QWidget*>(error_)})
    result->addWidget(w);

  // The result first: it is what changes when a setting does.
  outer->addLayout(methodRow);
  outer->addWidget(description_);
  outer->addWidget(resultBox);
  outer->addLayout(runRow);
  outer->addWidget(progress_);
  outer->addWidget(paramsBox_);
  outer->addWidget(simBox);
  outer->addStretch(1);

  connect(method_, &QComboBox::currentIndexChanged, this, [this] {
    rebuildParams();
    emitChanged();
  });
  connect(devices_, &QComboBox::currentIndexChanged, this, [this] {
    if (!quiet_) Q_EMIT devicesChanged(devicesSpec());
  });
  connect(costModel_, &QComboBox::currentIndexChanged, this, &TunerWidget::emitChanged);
  connect(discipline_, &QComboBox::currentIndexChanged, this, &TunerWidget::emitChanged);
  connect(noise_, &QDoubleSpinBox::valueChanged, this, &TunerWidget::emitChanged);
  connect(seed_, &QSpinBox::valueChanged, this, &TunerWidget::emitChanged);
  connect(budget_, &QSpinBox::valueChanged, this, &TunerWidget::emitChanged);
  connect(reset, &QPushButton::clicked, this, &TunerWidget::resetDefaults);
  connect(rerun_, &QPushButton::clicked, this, &TunerWidget::rerunRequested);
  connect(cancel_, &QPushButton::clicked, this, &TunerWidget::cancelRequested);
  rebuildParams();
}

void TunerWidget::fillDeviceChoices(QComboBox* combo) {
  for (const auto& p : devicePresets())
    combo->addItem(QString::fromStdString(p.name), QString::fromStdString(p.name));
  for (int n : {1, 2, 3, 4, 6, 8, 16})
    combo->addItem(QObject::tr("%1 × default GPU (P100-like)").arg(n), QString::number(n));
}

void TunerWidget::selectDeviceSpec(QComboBox* combo, const QString& spec) {
  int i = combo->findData(spec);
  if (i < 0) {
    combo->addItem(spec.section('/', -1), spec);
    combo->setItemData(combo->count() - 1, spec, Qt::ToolTipRole);
    i = combo->count() - 1;
  }
  combo->setCurrentIndex(i);
}

QString TunerWidget::devicesSpec() const {
  return devices_->currentData().toString();
}

void TunerWidget::setDevicesSpec(const QString& spec) {
  quiet_ = true;
  selectDeviceSpec(devices_, spec);
  quiet_ = false;
}

bool TunerWidget::hasMethod(const QString& id) const {
  return method_->findData(id) >= 0;
}

std::string TunerWidget::currentMethod() const {
  return method_->currentData().toString().toStdString();
}

void TunerWidget::rebuildParams() {
  while (paramsForm_->rowCount() > 0) paramsForm_->removeRow(0);
  paramEditors_.clear();
  const Method& m = findMethod(currentMethod());
  description_->setText(QString::fromStdString(m.description()));
  budget_->setEnabled(m.isSearch());
  const std::vector<ParamSpec> specs = m.params();
  rerun_->setEnabled(true);
  paramsBox_->setVisible(!specs.empty());
  for (const ParamSpec& p : specs) {
    QWidget* editor = createParamEditor(p);
    onParamEditorChanged(editor, this, [this] { emitChanged(); });
    auto* label = new QLabel(QString::fromStdString(p.name));
    label->setToolTip(QString::fromStdString(p.description));
    paramsForm_->addRow(label, editor);
    paramEditors_[p.name] = editor;
  }
}

PlacementSettings TunerWidget::settings() const {
  PlacementSettings s;
  s.method = currentMethod();
  for (const auto& [name, editor] : paramEditors_)
    s.params[name] = paramEditorValue(editor).toStdString();
  s.cost_model = costModel_->currentData().toString() == QStringLiteral("links")
                     ? CostModel::Links
                     : CostModel::Reference;
  s.discipline = disciplineFromName(discipline_->currentData().toString().toStdString());
  s.noise = noise_->value();
  s.seed = static_cast<uint64_t>(seed_->value());
  s.budget = budget_->value();
  return s;
}

void TunerWidget::setSettings(const PlacementSettings& s) {
  quiet_ = true;
  const int mi = method_->findData(QString::fromStdString(s.method));
  if (mi >= 0 && mi != method_->currentIndex()) {
    method_->setCurrentIndex(mi);
    rebuildParams();
  }
  for (const auto& [name, value] : s.params) {
    auto it = paramEditors_.find(name);
    if (it == paramEditors_.end()) continue;
    setParamEditorValue(it->second, QString::fromStdString(value));
  }
  costModel_->setCurrentIndex(s.cost_model == CostModel::Links ? 1 : 0);
  discipline_->setCurrentIndex(discipline_->findData(QString::fromUtf8(toString(s.discipline))));
  noise_->setValue(s.noise);
  seed_->setValue(static_cast<int>(s.seed));
  budget_->setValue(static_cast<int>(s.budget));
  quiet_ = false;
}

void TunerWidget::emitChanged() {
  if (quiet_) return;
  Q_EMIT settingsChanged();
}

void TunerWidget::resetDefaults() {
  quiet_ = true;
  rebuildParams();
  quiet_ = false;
  emitChanged();
}

void TunerWidget::setRunning(bool running) {
  cancel_->setEnabled(running);
  progress_->setVisible(running);
  if (running) {
    progress_->setRange(0, 0);
    progress_->setFormat(tr("running…"));
  }
}

void TunerWidget::setProgress(long done, long total, double best_us) {
  progress_->setVisible(true);
  progress_->setRange(0, 1000);
  progress_->setValue(total > 0 ? static_cast<int>(1000.0 * done / total) : 0);
  progress_->setFormat(
      tr("%1 of %2 evaluations · best %3").arg(done).arg(total).arg(formatDuration(best_us)));
}

void TunerWidget::showError(const QString& message) {
  error_->setText(message);
  error_->setVisible(!message.isEmpty());
}

QString TunerWidget::makespanText() const {
  return makespan_->text();
}

void TunerWidget::showSnapshot(const SnapshotPtr& snapshot) {
  showError(QString());
  if (!snapshot) {
    makespan_->setText(QStringLiteral("–"));
    delta_->clear();
    moved_->clear();
    bound_->clear();
    timing_->clear();
    return;
  }
  const PlacementSnapshot& s = *snapshot;
  setDevicesSpec(QString::fromStdString(s.devices_spec));
  makespan_->setText(
      tr("%1%2").arg(formatDuration(s.makespan()), s.cancelled ? tr(" (cancelled)") : QString()));
  if (s.previous_makespan_us) {
    const double d = s.makespan() - *s.previous_makespan_us;
    const double pct = *s.previous_makespan_us > 0 ? 100 * d / *s.previous_makespan_us : 0;
    const QString colour = d < 0   ? QStringLiteral("#2e7d32")
                           : d > 0 ? QStringLiteral("#c62828")
                                   : QStringLiteral("gray");
    delta_->setText(tr("<span style='color:%1'><b>%2%3</b> (%4%5%)</span> vs the previous setting")
                        .arg(colour, d > 0 ? QStringLiteral("+") : QString(), formatDuration(d),
                             d > 0 ? QStringLiteral("+") : QString())
                        .arg(pct, 0, 'f', 1));
    moved_->setText(s.moved.empty()
                        ? tr("no node changed device")
                        : tr("%1 of %2 nodes moved device (dashed outline in the graph)")
                              .arg(s.moved.size())
                              .arg(s.graph->nodeCount()));
  } else {
    delta_->setText(tr("first setting for this graph and device set"));
    moved_->clear();
  }
  QString bound = tr("lower bound %1 · ratio %2 · mean utilization %3%")
                      .arg(formatDuration(s.lower_bound_us))
                      .arg(s.lower_bound_us > 0 ? s.makespan() / s.lower_bound_us : 0, 0, 'f', 3)
                      .arg(s.meanUtilization() * 100, 0, 'f', 1);
  if (s.planned_makespan_us)
    bound += tr(" · planned %1").arg(formatDuration(*s.planned_makespan_us));
  bound_->setText(bound);
  if (s.evaluations > 0 && s.start_makespan_us)
    // A search: how far it moved from where it started (the start parameter).
    timing_->setText(tr("%1 evaluations in %2 ms, from %3")
                         .arg(s.evaluations)
                         .arg(s.compute_ms, 0, 'f', 1)
                         .arg(formatDuration(*s.start_makespan_us)));
  else
    timing_->setText(
        s.evaluations > 0
            ? tr("%1 evaluations in %2 ms").arg(s.evaluations).arg(s.compute_ms, 0, 'f', 1)
            : tr("placed and simulated in %1 ms").arg(s.compute_ms, 0, 'f', 2));
}

}  // namespace doppler::views
