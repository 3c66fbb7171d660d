#include "views/training/training_dashboard.h"

#include <QButtonGroup>
#include <QComboBox>
#include <QFileInfo>
#include <QFormLayout>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLocale>
#include <QProgressBar>
#include <QPushButton>
#include <QRadioButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSplitter>
#include <QStandardItemModel>
#include <QVBoxLayout>
#include <cmath>

#include "views/common/param_editors.h"
#include "views/common/theme.h"

namespace doppler::views {
namespace {

constexpr int kStageIII = 2;  // the combo's row for stage III

// "12 s", "4 min 12 s", "1 h 05 min": an ETA needs no more than two units.
QString formatEta(double seconds) {
  const long s = std::lround(std::max(0.0, seconds));
  if (s < 60) return QObject::tr("%1 s").arg(s);
  if (s < 3600) return QObject::tr("%1 min %2 s").arg(s / 60).arg(s % 60, 2, 10, QLatin1Char('0'));
  return QObject::tr("%1 h %2 min").arg(s / 3600).arg((s % 3600) / 60, 2, 10, QLatin1Char('0'));
}

QString count(long n) {
  return QLocale().toString(static_cast<qlonglong>(n));
}

}  // namespace

QString toDisplayString(TrainingState s) {
  switch (s) {
    case TrainingState::Idle:
      return QObject::tr("Ready");
    case TrainingState::Running:
      return QObject::tr("Running");
    case TrainingState::Paused:
      return QObject::tr("Paused");
    case TrainingState::Finished:
      return QObject::tr("Finished");
    case TrainingState::Cancelled:
      return QObject::tr("Cancelled");
    case TrainingState::Failed:
      return QObject::tr("Failed");
  }
  return {};
}

TrainingDashboard::TrainingDashboard(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("trainingDashboard"));

  // ---- The set-up column: what to train, from where, and the run's controls.
  setupPanel_ = new QWidget;
  auto* setup = new QVBoxLayout(setupPanel_);
  setup->setContentsMargins(8, 8, 8, 8);

  auto* stageForm = new QFormLayout;
  stage_ = new QComboBox;
  stage_->setObjectName(QStringLiteral("stage"));
  stage_->addItem(tr("I · imitation of the critical-path teacher"));
  stage_->addItem(tr("II · reinforcement learning in the simulator"));
  stage_->addItem(tr("III · reinforcement learning on real executions"));
  stage_->setItemData(0,
                      tr("Stage I: cross-entropy against the critical-path list scheduler along "
                         "the policy's own trajectories"),
                      Qt::ToolTipRole);
  stage_->setItemData(1, tr("Stage II: REINFORCE on the simulated makespan"), Qt::ToolTipRole);
  stage_->setItemData(
      kStageIII,
      tr("Stage III: REINFORCE on measured makespans (CPU cores stand in for GPUs), "
         "from a trained policy; rolls back when measurements regress"),
      Qt::ToolTipRole);
  stage_->setCurrentIndex(1);
  stage_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  stage_->setMinimumContentsLength(16);
  stageForm->addRow(tr("Stage"), stage_);
  setup->addLayout(stageForm);

  auto* startBox = new QGroupBox(tr("Start from"));
  auto* startGrid = new QGridLayout(startBox);
  startGrid->setColumnStretch(1, 1);
  fresh_ = new QRadioButton(tr("fresh weights"));
  fresh_->setObjectName(QStringLiteral("startFresh"));
  fresh_->setChecked(true);
  fromCheckpoint_ = new QRadioButton(tr("checkpoint"));
  fromCheckpoint_->setObjectName(QStringLiteral("startCheckpoint"));
  checkpointLabel_ = new QLabel(tr("no file chosen"));
  checkpointLabel_->setObjectName(QStringLiteral("checkpointFile"));
  checkpointLabel_->setForegroundRole(QPalette::PlaceholderText);
  checkpointLabel_->setMinimumWidth(60);
  chooseCheckpoint_ = new QPushButton(QStringLiteral("…"));
  chooseCheckpoint_->setObjectName(QStringLiteral("chooseCheckpoint"));
  chooseCheckpoint_->setToolTip(tr("Choose a checkpoint file"));
  chooseCheckpoint_->setFixedWidth(chooseCheckpoint_->fontMetrics().horizontalAdvance('M') * 3);
  fromRun_ = new QRadioButton(tr("stored run"));
  fromRun_->setObjectName(QStringLiteral("startRun"));
  fromRun_->setEnabled(false);
  fromRun_->setToolTip(tr("Continue from the checkpoint of a run in the open session"));
  storedRuns_ = new QComboBox;
  storedRuns_->setObjectName(QStringLiteral("storedRuns"));
  storedRuns_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  storedRuns_->setMinimumContentsLength(10);
  storedRuns_->setEnabled(false);
  startFrom_ = new QButtonGroup(this);
  for (QRadioButton* b : {fresh_, fromCheckpoint_, fromRun_}) startFrom_->addButton(b);
  startGrid->addWidget(fresh_, 0, 0, 1, 3);
  startGrid->addWidget(fromCheckpoint_, 1, 0);
  startGrid->addWidget(checkpointLabel_, 1, 1);
  startGrid->addWidget(chooseCheckpoint_, 1, 2);
  startGrid->addWidget(fromRun_, 2, 0);
  startGrid->addWidget(storedRuns_, 2, 1, 1, 2);
  setup->addWidget(startBox);

  auto* runRow = new QHBoxLayout;
  start_ = new QPushButton(tr("Start"));
  start_->setObjectName(QStringLiteral("start"));
  start_->setDefault(true);
  pause_ = new QPushButton(tr("Pause"));
  pause_->setObjectName(QStringLiteral("pause"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setObjectName(QStringLiteral("cancel"));
  cancel_->setToolTip(tr("Stop the run; it is kept as cancelled, with its best checkpoint"));
  runRow->addWidget(start_, 1);
  runRow->addWidget(pause_, 1);
  runRow->addWidget(cancel_, 1);
  setup->addLayout(runRow);

  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("progress"));
  progress_->setRange(0, 1000);
  progress_->setTextVisible(true);
  setup->addWidget(progress_);
  status_ = new QLabel;
  status_->setObjectName(QStringLiteral("status"));
  status_->setWordWrap(true);
  status_->setTextFormat(Qt::RichText);
  setup->addWidget(status_);
  // Stage III: what simulation expects before any real run, and the run's log (rollbacks, an
  // early stop).
  expected_ = new QLabel;
  expected_->setObjectName(QStringLiteral("expected"));
  expected_->setWordWrap(true);
  expected_->hide();
  setup->addWidget(expected_);
  events_ = new QLabel;
  events_->setObjectName(QStringLiteral("events"));
  events_->setWordWrap(true);
  events_->hide();
  setup->addWidget(events_);

  auto* bestBox = new QGroupBox(tr("Best so far"));
  auto* bestLayout = new QVBoxLayout(bestBox);
  best_ = new QLabel(QStringLiteral("–"));
  best_->setObjectName(QStringLiteral("best"));
  best_->setFont(titleFont(*this, 1.6));
  bestDetail_ = new QLabel;
  bestDetail_->setObjectName(QStringLiteral("bestDetail"));
  bestDetail_->setForegroundRole(QPalette::PlaceholderText);
  auto* bestButtons = new QHBoxLayout;
  showBest_ = new QPushButton(tr("Show best placement"));
  showBest_->setObjectName(QStringLiteral("showBest"));
  showBest_->setToolTip(tr("Show the best placement so far in the graph and the timeline"));
  openBest_ = new QPushButton(tr("Open best in stepper"));
  openBest_->setObjectName(QStringLiteral("openBestInStepper"));
  openBest_->setToolTip(tr("Step through the best placement so far in the decision stepper"));
  bestButtons->addWidget(showBest_);
  bestButtons->addWidget(openBest_);
  bestLayout->addWidget(best_);
  bestLayout->addWidget(bestDetail_);
  bestLayout->addLayout(bestButtons);
  setup->addWidget(bestBox);

  paramsBox_ = new QGroupBox;
  auto* paramsOuter = new QVBoxLayout(paramsBox_);
  paramsOuter->setContentsMargins(4, 4, 4, 4);
  auto* paramsHint = new QHBoxLayout;
  auto* hint = new QLabel(tr("Bold: changed from the stage's default"));
  hint->setForegroundRole(QPalette::PlaceholderText);
  auto* defaults = new QPushButton(tr("Defaults"));
  defaults->setObjectName(QStringLiteral("resetParams"));
  defaults->setToolTip(tr("Reset every parameter to the stage's default"));
  paramsHint->addWidget(hint, 1);
  paramsHint->addWidget(defaults);
  paramsOuter->addLayout(paramsHint);
  // `doppler train` has some 27 options: they scroll, the controls above stay in view.
  auto* scroll = new QScrollArea;
  scroll->setObjectName(QStringLiteral("paramsScroll"));
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  auto* paramsWidget = new QWidget;
  paramsForm_ = new QFormLayout(paramsWidget);
  paramsForm_->setContentsMargins(0, 0, 4, 0);
  paramsForm_->setFieldGrowthPolicy(QFormLayout::ExpandingFieldsGrow);
  scroll->setWidget(paramsWidget);
  paramsOuter->addWidget(scroll, 1);
  setup->addWidget(paramsBox_, 1);

  charts_ = new TrainingCharts;

  auto* splitter = new QSplitter(Qt::Horizontal);
  splitter->setObjectName(QStringLiteral("trainingSplitter"));
  splitter->setChildrenCollapsible(false);
  // The setup column scrolls as a whole when the dock is shorter than it: squeezed below its
  // minimum, its labels were drawn over each other ("Best so far" at a 1600x1000 window).
  auto* setupScroll = new QScrollArea;
  setupScroll->setObjectName(QStringLiteral("setupScroll"));
  setupScroll->setWidgetResizable(true);
  setupScroll->setFrameShape(QFrame::NoFrame);
  setupScroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setupScroll->setWidget(setupPanel_);
  setupScroll->viewport()->setBackgroundRole(QPalette::Window);
  setupPanel_->setMinimumWidth(300);
  setupPanel_->setMaximumWidth(460);
  setupScroll->setMaximumWidth(460 + setupScroll->verticalScrollBar()->sizeHint().width());
  splitter->addWidget(setupScroll);
  splitter->addWidget(charts_);
  splitter->setStretchFactor(0, 0);
  splitter->setStretchFactor(1, 1);
  auto* outer = new QHBoxLayout(this);
  outer->setContentsMargins(0, 0, 0, 0);
  outer->addWidget(splitter);

  connect(stage_, &QComboBox::currentIndexChanged, this, [this] {
    rebuildParams();
    if (!quiet_) Q_EMIT settingsChanged();
  });
  connect(defaults, &QPushButton::clicked, this, &TrainingDashboard::resetParams);
  connect(chooseCheckpoint_, &QPushButton::clicked, this,
          &TrainingDashboard::chooseCheckpointRequested);
  connect(fromCheckpoint_, &QRadioButton::clicked, this, [this] {
    // Choosing "checkpoint" without a file asks for one at once.
    if (checkpoint_.isEmpty()) Q_EMIT chooseCheckpointRequested();
  });
  connect(startFrom_, &QButtonGroup::buttonToggled, this, [this](QAbstractButton*, bool on) {
    storedRuns_->setEnabled(fromRun_->isChecked() && state_ != TrainingState::Running &&
                            state_ != TrainingState::Paused);
    if (on && !quiet_) Q_EMIT settingsChanged();
  });
  connect(storedRuns_, &QComboBox::currentIndexChanged, this, [this] {
    if (!quiet_) Q_EMIT settingsChanged();
  });
  connect(start_, &QPushButton::clicked, this, &TrainingDashboard::startRequested);
  connect(pause_, &QPushButton::clicked, this,
          [this] { Q_EMIT pauseRequested(state_ == TrainingState::Running); });
  connect(cancel_, &QPushButton::clicked, this, &TrainingDashboard::cancelRequested);
  connect(showBest_, &QPushButton::clicked, this, &TrainingDashboard::showBestRequested);
  connect(openBest_, &QPushButton::clicked, this, &TrainingDashboard::openBestInStepperRequested);

  rebuildParams();
  reset(TrainingReferences{}, 0);
  setState(TrainingState::Idle);
}

train::Stage TrainingDashboard::stage() const {
  switch (stage_->currentIndex()) {
    case 0:
      return train::Stage::Imitation;
    case kStageIII:
      return train::Stage::Real;
    default:
      return train::Stage::Simulation;
  }
}

void TrainingDashboard::setStage(train::Stage s) {
  quiet_ = true;
  stage_->setCurrentIndex(s == train::Stage::Imitation ? 0
                          : s == train::Stage::Real    ? kStageIII
                                                       : 1);
  quiet_ = false;
}

void TrainingDashboard::setExpectation(const QString& text) {
  expected_->setText(text.isEmpty() ? QString() : tr("Expected before any real run: %1").arg(text));
  expected_->setVisible(!text.isEmpty());
}

QString TrainingDashboard::expectationText() const {
  return expected_->text();
}

QString TrainingDashboard::eventsText() const {
  return events_->text();
}

void TrainingDashboard::rebuildParams() {
  while (paramsForm_->rowCount() > 0) paramsForm_->removeRow(0);
  editors_.clear();
  labels_.clear();
  // Every `doppler train` option: the stage's, then the architecture of a new policy.
  specs_ = train::trainParamSpecs(stage());
  for (ParamSpec& a : train::architectureParamSpecs()) specs_.push_back(std::move(a));
  paramsBox_->setTitle(tr("Parameters · defaults of stage %1")
                           .arg(stage() == train::Stage::Imitation ? QStringLiteral("I")
                                : stage() == train::Stage::Real    ? QStringLiteral("III")
                                                                   : QStringLiteral("II")));
  for (const ParamSpec& p : specs_) {
    QWidget* editor = createParamEditor(p, ParamEditorOptions{.general_numbers = true});
    // Spin boxes size themselves to their range's text ("0" to "10"), too narrow for "3e-04":
    // every editor takes the column's width.
    editor->setSizePolicy(QSizePolicy::Expanding, editor->sizePolicy().verticalPolicy());
    editor->setMinimumWidth(editor->fontMetrics().horizontalAdvance(QStringLiteral("0.000300")) +
                            40);
    onParamEditorChanged(editor, this, [this] {
      updateChangedMarks();
      if (!quiet_) Q_EMIT settingsChanged();
    });
    // The option's name, as `doppler train --help` lists it, so that a setting reads the same in
    // both; the description is the tooltip.
    auto* label = new QLabel(QString::fromStdString(p.name));
    label->setToolTip(QString::fromStdString(p.description));
    label->setBuddy(editor);
    paramsForm_->addRow(label, editor);
    editors_[p.name] = editor;
    labels_[p.name] = label;
  }
  updateButtons();
}

void TrainingDashboard::resetParams() {
  quiet_ = true;
  for (const ParamSpec& p : specs_)
    setParamEditorValue(editors_.at(p.name), QString::fromStdString(p.default_value));
  quiet_ = false;
  updateChangedMarks();
  Q_EMIT settingsChanged();
}

ParamValues TrainingDashboard::values() const {
  ParamValues out;
  for (const ParamSpec& p : specs_) {
    const QString v = paramEditorValue(editors_.at(p.name));
    if (!sameParamValue(p, v, QString::fromStdString(p.default_value)))
      out[p.name] = v.toStdString();
  }
  return out;
}

void TrainingDashboard::setValues(const ParamValues& values) {
  quiet_ = true;
  for (const auto& [name, value] : values)
    if (auto it = editors_.find(name); it != editors_.end())
      setParamEditorValue(it->second, QString::fromStdString(value));
  quiet_ = false;
  updateChangedMarks();
}

void TrainingDashboard::updateChangedMarks() {
  for (const ParamSpec& p : specs_) {
    QLabel* label = labels_.at(p.name);
    QFont f = label->font();
    const bool changed = !sameParamValue(p, paramEditorValue(editors_.at(p.name)),
                                         QString::fromStdString(p.default_value));
    if (f.bold() == changed) continue;
    f.setBold(changed);
    label->setFont(f);
  }
}

QString TrainingDashboard::startFromCheckpoint() const {
  return fromCheckpoint_->isChecked() ? checkpoint_ : QString();
}

std::optional<int64_t> TrainingDashboard::startFromRun() const {
  if (!fromRun_->isChecked() || storedRuns_->currentIndex() < 0) return std::nullopt;
  return storedRuns_->currentData().toLongLong();
}

void TrainingDashboard::setCheckpointFile(const QString& path) {
  checkpoint_ = path;
  if (path.isEmpty()) {
    checkpointLabel_->setText(tr("no file chosen"));
    checkpointLabel_->setToolTip({});
    checkpointLabel_->setForegroundRole(QPalette::PlaceholderText);
    if (fromCheckpoint_->isChecked()) fresh_->setChecked(true);
    return;
  }
  // The name fits the column; the full path is in the tooltip.
  const QString name = QFileInfo(path).fileName();
  checkpointLabel_->setText(checkpointLabel_->fontMetrics().elidedText(
      name, Qt::ElideMiddle, std::max(80, checkpointLabel_->width())));
  checkpointLabel_->setToolTip(path);
  checkpointLabel_->setForegroundRole(QPalette::WindowText);
  fromCheckpoint_->setChecked(true);
}

void TrainingDashboard::setStoredRuns(const std::vector<std::pair<int64_t, QString>>& runs) {
  const std::optional<int64_t> chosen = storedRuns_->currentIndex() >= 0
                                            ? std::optional(storedRuns_->currentData().toLongLong())
                                            : std::nullopt;
  quiet_ = true;
  storedRuns_->clear();
  for (const auto& [id, label] : runs) {
    storedRuns_->addItem(tr("#%1 %2").arg(id).arg(label), QVariant::fromValue<qlonglong>(id));
    storedRuns_->setItemData(storedRuns_->count() - 1, label, Qt::ToolTipRole);
  }
  // The same run stays chosen when the list is refreshed with it still there.
  if (chosen)
    if (const int i = storedRuns_->findData(QVariant::fromValue<qlonglong>(*chosen)); i >= 0)
      storedRuns_->setCurrentIndex(i);
  if (runs.empty() && fromRun_->isChecked()) fresh_->setChecked(true);
  quiet_ = false;
  updateButtons();
}

void TrainingDashboard::reset(const TrainingReferences& refs, long plannedEpisodes) {
  refs_ = refs;
  planned_ = std::max(0L, plannedEpisodes);
  hasProgress_ = false;
  bestAvailable_ = true;
  bestWhyNot_.clear();
  last_ = train::TrainProgress{};
  bestGreedy_ = NAN;
  events_->clear();
  events_->hide();
  charts_->reset(planned_);
  charts_->setReferences(refs);
  charts_->redrawNow();
  best_->setText(QStringLiteral("–"));
  bestDetail_->setText(std::isfinite(refs.lower_bound_us)
                           ? tr("lower bound %1").arg(formatDuration(refs.lower_bound_us))
                           : QString());
  updateProgress();
  updateButtons();
}

void TrainingDashboard::setReferences(const TrainingReferences& refs) {
  refs_ = refs;
  charts_->setReferences(refs);
}

void TrainingDashboard::addProgress(const train::TrainProgress& p) {
  charts_->addProgress(p);
  last_ = p;
  if (!p.event.empty()) {
    const QString rollbacks =
        p.rollbacks == 1 ? tr("1 rollback") : tr("%1 rollbacks").arg(p.rollbacks);
    events_->setText(tr("%1 · last: %2").arg(rollbacks, QString::fromStdString(p.event)));
    events_->show();
  }
  if (p.episodes > 0 && p.distill_update == 0) planned_ = p.episodes;
  if (p.evaluated && std::isfinite(p.greedy_makespan_us))
    bestGreedy_ = std::isfinite(bestGreedy_) ? std::min(bestGreedy_, p.greedy_makespan_us)
                                             : p.greedy_makespan_us;
  const bool first = !hasProgress_;
  hasProgress_ = true;
  updateProgress();
  if (first) updateButtons();
}

QString TrainingDashboard::progressText() const {
  return progress_->text();
}

QString TrainingDashboard::statusText() const {
  return status_->text();
}

void TrainingDashboard::updateProgress() {
  const train::TrainProgress& p = last_;
  if (!hasProgress_) {
    progress_->setValue(0);
    progress_->setFormat(planned_ > 0 ? tr("0 of %1 episodes").arg(count(planned_))
                                      : tr("no run yet"));
  } else if (p.distill_update > 0) {
    // After the episodes, the best episode is distilled into the policy: no episode count left.
    progress_->setValue(progress_->maximum());
    const bool over = state_ != TrainingState::Running && state_ != TrainingState::Paused;
    progress_->setFormat(
        over ? tr("%1 episodes · %2 distillation updates")
                   .arg(count(planned_), count(p.distill_update))
             : tr("distilling the best episode · update %1").arg(count(p.distill_update)));
  } else {
    const long done = std::min(p.episode, planned_ > 0 ? planned_ : p.episode);
    progress_->setValue(planned_ > 0 ? static_cast<int>(1000.0 * done / planned_) : 0);
    QString text = planned_ > 0 ? tr("%1 of %2 episodes").arg(count(done), count(planned_))
                                : tr("%1 episodes").arg(count(done));
    if (p.episodes_per_s > 0) {
      text += tr(" · %1/s").arg(p.episodes_per_s, 0, 'f', p.episodes_per_s >= 100 ? 0 : 1);
      if (planned_ > done)
        text += tr(" · ETA %1").arg(formatEta((planned_ - done) / p.episodes_per_s));
    }
    progress_->setFormat(text);
  }
  if (!hasProgress_) return;
  const double best = std::isfinite(p.best_makespan_us) ? p.best_makespan_us : NAN;
  best_->setText(std::isfinite(best) ? formatDuration(best) : QStringLiteral("–"));
  QStringList detail;
  if (std::isfinite(best) && std::isfinite(refs_.lower_bound_us) && refs_.lower_bound_us > 0)
    detail << tr("%1× the lower bound").arg(best / refs_.lower_bound_us, 0, 'f', 3);
  if (std::isfinite(best) && std::isfinite(refs_.local_search_us) && refs_.local_search_us > 0) {
    const double pct = 100 * (best / refs_.local_search_us - 1);
    detail << tr("%1%2% vs local search")
                  .arg(pct > 0 ? QStringLiteral("+") : QString())
                  .arg(pct, 0, 'f', 1);
  }
  if (std::isfinite(bestGreedy_)) detail << tr("greedy policy %1").arg(formatDuration(bestGreedy_));
  // A line each: a wrapped line in the scrolling setup column is given the height of its
  // unwrapped text and its last line was cut.
  bestDetail_->setText(detail.join(QLatin1Char('\n')));
}

void TrainingDashboard::setState(TrainingState s, const QString& message) {
  state_ = s;
  message_ = message;
  const Theme& t = Theme::current();
  QColor colour = t.text;
  if (s == TrainingState::Failed)
    colour = t.dark ? QColor(0xff, 0x8a, 0x80) : QColor(0xc6, 0x28, 0x28);
  if (s == TrainingState::Finished)
    colour = t.dark ? QColor(0x81, 0xc7, 0x84) : QColor(0x2e, 0x7d, 0x32);
  QString html = QStringLiteral("<span style='color:%1'><b>%2</b></span>")
                     .arg(colour.name(), toDisplayString(s).toHtmlEscaped());
  if (!message.isEmpty()) html += QStringLiteral(" · ") + message.toHtmlEscaped();
  status_->setText(html);
  updateButtons();
  updateProgress();  // a finished run's bar says what was done, not what is going on
}

void TrainingDashboard::setBestPlacementAvailable(bool available, const QString& whyNot) {
  bestAvailable_ = available;
  bestWhyNot_ = whyNot;
  updateButtons();
}

void TrainingDashboard::updateButtons() {
  const bool active = state_ == TrainingState::Running || state_ == TrainingState::Paused;
  start_->setEnabled(!active);
  pause_->setEnabled(active);
  cancel_->setEnabled(active);
  pause_->setText(state_ == TrainingState::Paused ? tr("Resume") : tr("Pause"));
  const bool best = hasProgress_ && bestAvailable_;
  showBest_->setEnabled(best);
  openBest_->setEnabled(best);
  const QString why =
      !hasProgress_ ? tr("No episode yet: the best placement arrives with the first") : bestWhyNot_;
  showBest_->setToolTip(best ? tr("Show the best placement so far in the graph and the timeline")
                             : why);
  openBest_->setToolTip(best ? tr("Step through the best placement so far in the decision stepper")
                             : why);
  // A run's settings are fixed once it starts.
  stage_->setEnabled(!active);
  paramsBox_->setEnabled(!active);
  fresh_->setEnabled(!active);
  fromCheckpoint_->setEnabled(!active);
  chooseCheckpoint_->setEnabled(!active);
  fromRun_->setEnabled(!active && storedRuns_->count() > 0);
  storedRuns_->setEnabled(!active && fromRun_->isChecked());
}

void TrainingDashboard::applyTheme() {
  charts_->applyTheme();
  setState(state_, message_);
}

}  // namespace doppler::views
