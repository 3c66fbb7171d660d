#include "views/stepper/stepper_widget.h"

#include <QComboBox>
#include <QEvent>
#include <QGridLayout>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QKeyEvent>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPainterPath>
#include <QPushButton>
#include <QSlider>
#include <QSplitter>
#include <QTableView>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/common/shortcuts.h"
#include "views/common/theme.h"
#include "views/stepper/candidate_model.h"
#include "views/stepper/device_choice_model.h"
#include "views/stepper/score_bar_delegate.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {
namespace {

enum class Glyph { First, Previous, Play, Pause, Next, Last };

// The transport icons are drawn in the palette's text colour rather than taken from the style,
// whose media icons are dark-on-transparent and vanish on the dark theme.
QIcon transportIcon(Glyph glyph, const QColor& colour, qreal dpr) {
  const int side = 20;
  QPixmap pm(QSize(side, side) * dpr);
  pm.setDevicePixelRatio(dpr);
  pm.fill(Qt::transparent);
  QPainter p(&pm);
  p.setRenderHint(QPainter::Antialiasing);
  p.setPen(Qt::NoPen);
  p.setBrush(colour);
  auto triangle = [&](double x0, double x1, bool right) {
    QPainterPath path;
    if (right) {
      path.moveTo(x0, 4);
      path.lineTo(x1, 10);
      path.lineTo(x0, 16);
    } else {
      path.moveTo(x1, 4);
      path.lineTo(x0, 10);
      path.lineTo(x1, 16);
    }
    path.closeSubpath();
    p.drawPath(path);
  };
  switch (glyph) {
    case Glyph::First:
      p.drawRect(QRectF(4, 4, 2.5, 12));
      triangle(6.5, 16, false);
      break;
    case Glyph::Previous:
      triangle(5, 15, false);
      break;
    case Glyph::Play:
      triangle(6, 16, true);
      break;
    case Glyph::Pause:
      p.drawRect(QRectF(5, 4, 3.5, 12));
      p.drawRect(QRectF(11.5, 4, 3.5, 12));
      break;
    case Glyph::Next:
      triangle(5, 15, true);
      break;
    case Glyph::Last:
      triangle(4, 13.5, true);
      p.drawRect(QRectF(13.5, 4, 2.5, 12));
      break;
  }
  p.end();
  QIcon icon(pm);
  // Disabled buttons: the same glyph, faded, instead of the style's grey-on-grey.
  QPixmap faded(pm.size());
  faded.setDevicePixelRatio(dpr);
  faded.fill(Qt::transparent);
  QPainter fp(&faded);
  fp.setOpacity(0.3);
  fp.drawPixmap(0, 0, pm);
  fp.end();
  icon.addPixmap(faded, QIcon::Disabled);
  return icon;
}

QToolButton* transportButton(const QString& name, const QString& tip) {
  auto* b = new QToolButton;
  b->setObjectName(name);
  b->setToolTip(tip);
  b->setAutoRaise(true);
  b->setIconSize(QSize(20, 20));
  // The dock's focus stays on the lists, where the step keys work; Space would otherwise press
  // whichever button was clicked last instead of play.
  b->setFocusPolicy(Qt::NoFocus);
  return b;
}

QTableView* makeTable(const QString& name, QAbstractItemModel* model, int scoreColumn,
                      QObject* parent) {
  auto* table = new QTableView;
  table->setObjectName(name);
  table->setModel(model);
  table->setItemDelegateForColumn(scoreColumn, new ScoreBarDelegate(parent));
  table->setSelectionBehavior(QAbstractItemView::SelectRows);
  table->setSelectionMode(QAbstractItemView::SingleSelection);
  table->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table->setShowGrid(false);
  table->setWordWrap(false);
  table->setAlternatingRowColors(false);
  table->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  table->verticalHeader()->setSectionResizeMode(QHeaderView::Fixed);
  table->horizontalHeader()->setHighlightSections(false);
  table->horizontalHeader()->setDefaultAlignment(Qt::AlignLeft | Qt::AlignVCenter);
  return table;
}

QString signedDuration(double us) {
  return (us > 0   ? QStringLiteral("+")
          : us < 0 ? QString::fromUtf8("−")
                   : QString()) +
         formatDuration(std::abs(us));
}

// The change of a makespan against the original, coloured by whether it is better.
QString differenceHtml(double value, double original) {
  const double d = value - original;
  const bool dark = Theme::isDark();
  const QString colour = d < 0   ? (dark ? QStringLiteral("#66bb6a") : QStringLiteral("#2e7d32"))
                         : d > 0 ? (dark ? QStringLiteral("#ef5350") : QStringLiteral("#c62828"))
                                 : Theme::current().mutedText.name();
  const double pct = original > 0 ? 100 * d / original : 0;
  return QStringLiteral("<span style='color:%1'><b>%2</b> (%3%4%)</span>")
      .arg(colour, d == 0 ? QStringLiteral("±0") : signedDuration(d),
           pct > 0   ? QStringLiteral("+")
           : pct < 0 ? QString::fromUtf8("−")
                     : QString())
      .arg(std::abs(pct), 0, 'f', std::abs(pct) < 1 ? 2 : 1);  // -0.03%, not -0.0%
}

QLabel* caption(const QString& text) {
  auto* l = new QLabel(text);
  l->setForegroundRole(QPalette::PlaceholderText);
  return l;
}

}  // namespace

StepperWidget::StepperWidget(QWidget* parent) : QWidget(parent) {
  setObjectName(QStringLiteral("stepper"));
  setFocusPolicy(Qt::StrongFocus);
  candidateModel_ = new CandidateModel(this);
  deviceModel_ = new DeviceChoiceModel(this);
  timer_ = new QTimer(this);
  timer_->setObjectName(QStringLiteral("playTimer"));

  auto* outer = new QVBoxLayout(this);
  outer->setContentsMargins(8, 6, 8, 8);
  outer->setSpacing(6);

  // Where the decisions come from.
  auto* sourceRow = new QHBoxLayout;
  source_ = new QLabel;
  source_->setObjectName(QStringLiteral("source"));
  source_->setForegroundRole(QPalette::PlaceholderText);
  source_->setTextFormat(Qt::PlainText);
  source_->setSizePolicy(QSizePolicy::Ignored, QSizePolicy::Preferred);
  sourceButton_ = new QPushButton(tr("Source…"));
  sourceButton_->setObjectName(QStringLiteral("sourceButton"));
  sourceButton_->setToolTip(tr("Step through another method, a policy checkpoint or a stored run"));
  sourceButton_->setFocusPolicy(Qt::NoFocus);
  sourceRow->addWidget(source_, 1);
  sourceRow->addWidget(sourceButton_);
  outer->addLayout(sourceRow);

  // Where the episode stands.
  title_ = new QLabel;
  title_->setObjectName(QStringLiteral("stepTitle"));
  decision_ = new QLabel;
  decision_->setObjectName(QStringLiteral("decision"));
  decision_->setTextFormat(Qt::RichText);
  decision_->setWordWrap(true);
  outer->addWidget(title_);
  outer->addWidget(decision_);

  auto* metrics = new QGridLayout;
  metrics->setHorizontalSpacing(18);
  metrics->setVerticalSpacing(0);
  // Two models, named: the plan (each node appended to its device's queue in decision order,
  // as the list scheduler plans) and the work-conserving simulator's run of the final placement,
  // the figure every other makespan in the studio is. They can differ at the last step.
  soFarCaption_ = caption(tr("planned so far"));
  soFarCaption_->setToolTip(
      tr("The plan's makespan over the nodes placed so far: each node appended to its device's "
         "queue in the order decided (the timeline draws this plan)"));
  finalCaption_ = caption(tr("simulated, final"));
  finalCaption_->setToolTip(
      tr("This branch's final placement run by the work-conserving simulator, as the toolbar's "
         "makespan is for the tuner's placement"));
  originalCaption_ = caption(tr("original"));
  soFar_ = new QLabel;
  soFar_->setObjectName(QStringLiteral("makespanSoFar"));
  final_ = new QLabel;
  final_->setObjectName(QStringLiteral("finalMakespan"));
  original_ = new QLabel;
  original_->setObjectName(QStringLiteral("originalMakespan"));
  original_->setTextFormat(Qt::RichText);
  metrics->addWidget(soFarCaption_, 0, 0);
  metrics->addWidget(finalCaption_, 0, 1);
  metrics->addWidget(originalCaption_, 0, 2);
  metrics->addWidget(soFar_, 1, 0);
  metrics->addWidget(final_, 1, 1);
  metrics->addWidget(original_, 1, 2);
  metrics->setColumnStretch(3, 1);
  outer->addLayout(metrics);

  // The controls.
  auto* controls = new QHBoxLayout;
  controls->setSpacing(2);
  first_ = transportButton(QStringLiteral("first"), tr("First decision (Home)"));
  previous_ = transportButton(QStringLiteral("previous"), tr("Previous decision (←)"));
  play_ = transportButton(QStringLiteral("play"), tr("Play / pause (Space)"));
  next_ = transportButton(QStringLiteral("next"), tr("Next decision (→)"));
  last_ = transportButton(QStringLiteral("last"), tr("Last decision (End)"));
  speed_ = new QComboBox;
  speed_->setObjectName(QStringLiteral("speed"));
  speed_->setToolTip(tr("Playing speed"));
  speed_->setFocusPolicy(Qt::NoFocus);
  for (int s : speeds()) speed_->addItem(tr("%1 steps/s").arg(s), s);
  speed_->setCurrentIndex(2);
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setObjectName(QStringLiteral("scrub"));
  slider_->setToolTip(tr("Scrub through the decisions"));
  slider_->setFocusPolicy(Qt::NoFocus);
  slider_->setRange(0, 0);
  for (QWidget* w : {first_, previous_, play_, next_, last_}) controls->addWidget(w);
  controls->addSpacing(6);
  controls->addWidget(speed_);
  controls->addSpacing(8);
  controls->addWidget(slider_, 1);
  outer->addLayout(controls);

  // The ranked candidates, the devices and the branches, in a splitter the user can resize.
  auto* split = new QSplitter(Qt::Vertical);
  split->setObjectName(QStringLiteral("stepperSplit"));
  split->setChildrenCollapsible(false);
  auto pane = [split](QLabel* heading, QWidget* body, QWidget* extra = nullptr) {
    auto* w = new QWidget;
    auto* l = new QVBoxLayout(w);
    l->setContentsMargins(0, 4, 0, 0);
    l->setSpacing(3);
    auto* top = new QHBoxLayout;
    top->addWidget(heading, 1);
    if (extra) top->addWidget(extra);
    l->addLayout(top);
    l->addWidget(body, 1);
    split->addWidget(w);
  };
  candidatesCaption_ = new QLabel;
  candidatesCaption_->setObjectName(QStringLiteral("candidatesCaption"));
  candidatesCaption_->setTextFormat(Qt::RichText);
  candidatesCaption_->setWordWrap(true);  // a long caption must not widen the dock
  candidates_ =
      makeTable(QStringLiteral("candidates"), candidateModel_, CandidateModel::ScoreColumn, this);
  candidates_->verticalHeader()->setVisible(true);
  candidates_->verticalHeader()->setDefaultAlignment(Qt::AlignRight | Qt::AlignVCenter);
  candidates_->horizontalHeader()->setSectionResizeMode(CandidateModel::NodeColumn,
                                                        QHeaderView::Stretch);
  candidates_->horizontalHeader()->setSectionResizeMode(CandidateModel::OpColumn,
                                                        QHeaderView::ResizeToContents);
  candidates_->horizontalHeader()->setSectionResizeMode(CandidateModel::ScoreColumn,
                                                        QHeaderView::Fixed);
  pane(candidatesCaption_, candidates_);

  devicesCaption_ = new QLabel;
  devicesCaption_->setObjectName(QStringLiteral("devicesCaption"));
  devicesCaption_->setTextFormat(Qt::RichText);
  devicesCaption_->setWordWrap(true);
  devices_ =
      makeTable(QStringLiteral("devices"), deviceModel_, DeviceChoiceModel::ScoreColumn, this);
  devices_->verticalHeader()->setVisible(false);
  devices_->horizontalHeader()->setSectionResizeMode(DeviceChoiceModel::DeviceColumn,
                                                     QHeaderView::Stretch);
  devices_->horizontalHeader()->setSectionResizeMode(DeviceChoiceModel::ScoreColumn,
                                                     QHeaderView::Fixed);
  devices_->horizontalHeader()->setSectionResizeMode(DeviceChoiceModel::StartColumn,
                                                     QHeaderView::ResizeToContents);
  devices_->horizontalHeader()->setSectionResizeMode(DeviceChoiceModel::FinishColumn,
                                                     QHeaderView::ResizeToContents);
  devices_->horizontalHeader()->setSectionResizeMode(DeviceChoiceModel::JoinColumn,
                                                     QHeaderView::ResizeToContents);
  pane(devicesCaption_, devices_);

  auto* branchesCaption = new QLabel(tr("<b>Branches</b>"));
  branches_ = new QListWidget;
  branches_->setObjectName(QStringLiteral("branches"));
  branches_->setToolTip(tr("Each override starts a branch; click one to switch to it"));
  saveBranch_ = new QPushButton(tr("Save branch as run"));
  saveBranch_->setObjectName(QStringLiteral("saveBranch"));
  saveBranch_->setToolTip(
      tr("Store the current branch as a run whose parent is the original, to compare it"));
  saveBranch_->setFocusPolicy(Qt::NoFocus);
  pane(branchesCaption, branches_, saveBranch_);
  // The devices are few: their pane keeps its rows' height, the ready set takes the rest.
  split->setStretchFactor(0, 4);
  split->setStretchFactor(1, 0);
  split->setStretchFactor(2, 1);
  outer->addWidget(split, 1);

  busy_ = new QLabel;
  busy_->setObjectName(QStringLiteral("busy"));
  busy_->setForegroundRole(QPalette::PlaceholderText);
  busy_->hide();
  outer->addWidget(busy_);

  connect(first_, &QToolButton::clicked, this, [this] { requestStep(0); });
  connect(previous_, &QToolButton::clicked, this, [this] { requestStep(content_.step - 1); });
  connect(next_, &QToolButton::clicked, this, [this] { requestStep(content_.step + 1); });
  connect(last_, &QToolButton::clicked, this, [this] { requestStep(steps()); });
  connect(play_, &QToolButton::clicked, this, [this] { setPlaying(!playing()); });
  connect(speed_, &QComboBox::currentIndexChanged, this,
          [this] { timer_->setInterval(1000 / std::max(1, speed())); });
  connect(slider_, &QSlider::valueChanged, this, [this](int value) {
    if (!updating_) requestStep(value);
  });
  connect(timer_, &QTimer::timeout, this, &StepperWidget::playTick);
  connect(candidates_, &QTableView::doubleClicked, this,
          [this](const QModelIndex& index) { requestNodeOverride(index.row()); });
  connect(devices_, &QTableView::doubleClicked, this,
          [this](const QModelIndex& index) { requestDeviceOverride(index.row()); });
  connect(branches_, &QListWidget::itemClicked, this, [this](QListWidgetItem* item) {
    const int row = branches_->row(item);
    if (!updating_ && row >= 0 && row != content_.current_branch) Q_EMIT branchRequested(row);
  });
  connect(branches_, &QListWidget::itemActivated, this, [this](QListWidgetItem* item) {
    const int row = branches_->row(item);
    if (!updating_ && row >= 0 && row != content_.current_branch) Q_EMIT branchRequested(row);
  });
  connect(saveBranch_, &QPushButton::clicked, this, [this] { Q_EMIT saveBranchRequested(); });
  connect(sourceButton_, &QPushButton::clicked, this, [this] { Q_EMIT sourceRequested(); });

  // The step keys work wherever the focus is inside the dock: the lists would otherwise take
  // the arrows, Home and End for themselves.
  for (QWidget* w : findChildren<QWidget*>()) w->installEventFilter(this);
  timer_->setInterval(1000 / speed());
  built_ = true;
  refreshStyle();
  clear(tr("No decisions to step through yet"));
}

StepperWidget::~StepperWidget() = default;

QAbstractItemModel* StepperWidget::candidateModel() const {
  return candidateModel_;
}
QAbstractItemModel* StepperWidget::deviceModel() const {
  return deviceModel_;
}

const std::vector<int>& StepperWidget::speeds() {
  static const std::vector<int> s = {1, 2, 5, 10, 25};
  return s;
}

int StepperWidget::speed() const {
  return speed_->currentData().toInt();
}

void StepperWidget::setSpeed(int stepsPerSecond) {
  const int i = speed_->findData(stepsPerSecond);
  if (i >= 0) speed_->setCurrentIndex(i);
}

int StepperWidget::steps() const {
  return content_.trace ? static_cast<int>(content_.trace->steps.size()) : 0;
}

bool StepperWidget::playing() const {
  return timer_->isActive();
}

void StepperWidget::setContent(const StepperContent& content) {
  content_ = content;
  why_.clear();
  const int n = steps();
  content_.step = std::clamp(content_.step, 0, n);
  candidateModel_->setStep(content_.graph, content_.trace, content_.step);
  deviceModel_->setStep(content_.devices, content_.trace, content_.step);
  if (content_.step >= n && playing()) setPlaying(false);
  refresh();
}

void StepperWidget::clear(const QString& why) {
  setPlaying(false);
  content_ = StepperContent{};
  why_ = why.isEmpty() ? tr("Nothing to step through") : why;
  candidateModel_->clear();
  deviceModel_->clear();
  refresh();
}

void StepperWidget::setPlaying(bool on) {
  if (on == playing()) return;
  if (on) {
    if (!content_.trace || steps() == 0) return;
    // Play at the end starts over, as a media player does.
    if (content_.step >= steps()) Q_EMIT stepRequested(0);
    timer_->start(1000 / std::max(1, speed()));
  } else {
    timer_->stop();
  }
  updatePlayButton();
  Q_EMIT playingChanged(on);
}

void StepperWidget::playTick() {
  if (!content_.trace || content_.step >= steps()) {
    setPlaying(false);
    return;
  }
  Q_EMIT stepRequested(content_.step + 1);
}

void StepperWidget::requestStep(int step) {
  if (!content_.trace) return;
  step = std::clamp(step, 0, steps());
  if (step != content_.step) Q_EMIT stepRequested(step);
}

void StepperWidget::requestNodeOverride(int row) {
  if (!content_.can_override) return;
  const int node = candidateModel_->nodeAt(row);
  if (node < 0 || row == candidateModel_->chosenRow()) return;
  setPlaying(false);
  Q_EMIT nodeOverrideRequested(node);
}

void StepperWidget::requestDeviceOverride(int row) {
  if (!content_.can_override) return;
  const int device = deviceModel_->deviceAt(row);
  if (device < 0 || row == deviceModel_->chosenRow()) return;
  setPlaying(false);
  Q_EMIT deviceOverrideRequested(device);
}

void StepperWidget::refresh() {
  updating_ = true;
  const bool have = content_.trace != nullptr;
  const int n = steps(), k = content_.step;
  const DecisionTrace* trace = content_.trace.get();

  source_->setText(have ? content_.source : why_);
  title_->setText(have ? tr("Step %1 / %2").arg(k).arg(n) : tr("Decision stepper"));

  // The decision about to be taken, in words.
  QString decision;
  if (have && k < n) {
    const DecisionStep& step = trace->steps[k];
    const QString node = content_.graph && step.node >= 0 && step.node < content_.graph->nodeCount()
                             ? QString::fromStdString(content_.graph->node(step.node).id)
                             : QString::number(step.node);
    QString device = QStringLiteral("dev%1").arg(step.device);
    if (content_.devices && step.device >= 0 && step.device < content_.devices->size() &&
        !content_.devices->devices[step.device].name.empty())
      device = QString::fromStdString(content_.devices->devices[step.device].name);
    const QString accent = stepAccent().name();
    // The device's colour as a swatch before its name: some device colours (yellow, pink) are
    // unreadable as text on the light theme.
    decision = tr("next: <b style='color:%1'>%2</b>%3 on <span style='color:%4'>&#9632;</span>"
                  "&nbsp;<b>%5</b>%6 <span style='color:%7'>of %8 ready</span>")
                   .arg(accent, node.toHtmlEscaped(),
                        step.node_overridden ? tr(" <i>(override)</i>") : QString(),
                        Theme::deviceColor(step.device).name(), device.toHtmlEscaped(),
                        step.device_overridden ? tr(" <i>(override)</i>") : QString(),
                        Theme::current().mutedText.name())
                   .arg(step.ready.size());
  } else if (have) {
    decision = tr("episode complete: every node is placed");
  }
  decision_->setText(decision);

  const double soFar = have && k > 0 ? trace->steps[k - 1].partial_makespan_us : 0;
  soFar_->setText(have ? formatDuration(soFar) : QStringLiteral("–"));
  final_->setText(have ? formatDuration(content_.final_makespan_us) : QStringLiteral("–"));
  const bool vs = have && content_.original_makespan_us.has_value();
  originalCaption_->setVisible(vs);
  original_->setVisible(vs);
  if (vs)
    original_->setText(
        QStringLiteral("%1 &nbsp;%2")
            .arg(formatDuration(*content_.original_makespan_us),
                 differenceHtml(content_.final_makespan_us, *content_.original_makespan_us)));

  first_->setEnabled(have && k > 0);
  previous_->setEnabled(have && k > 0);
  next_->setEnabled(have && k < n);
  last_->setEnabled(have && k < n);
  play_->setEnabled(have && n > 0);
  speed_->setEnabled(have);
  slider_->setEnabled(have && n > 0);
  slider_->setRange(0, n);
  slider_->setValue(k);
  slider_->setPageStep(std::max(1, n / 10));

  candidates_->setColumnHidden(CandidateModel::ScoreColumn, have && !trace->node_scored);
  if (have && k < n) {
    const DecisionStep& step = trace->steps[k];
    QString scores;
    if (!trace->node_scored) {
      scores = tr("recorded order: no scores");
    } else {
      std::vector<double> values;
      for (const CandidateScore& c : step.ready) values.push_back(c.score);
      scores = scoreCaption(trace->node_score, trace->node_higher_better).toHtmlEscaped();
      // Ties are visible, with the rule that decided them.
      if (const int tied = tiedAtBest(values, trace->node_higher_better); tied > 1)
        scores += tr(" · <b>%1 tied</b> at the best; ties: %2")
                      .arg(tied)
                      .arg(QString::fromStdString(trace->node_tie_break.empty()
                                                      ? std::string("first listed")
                                                      : trace->node_tie_break)
                               .toHtmlEscaped());
    }
    candidatesCaption_->setText(
        tr("<b>Ready set</b> · %1 candidates · %2").arg(step.ready.size()).arg(scores));
    std::vector<double> deviceValues;
    for (const DeviceScore& d : step.devices) deviceValues.push_back(d.score);
    QString deviceScores =
        scoreCaption(trace->device_score, trace->device_higher_better).toHtmlEscaped();
    if (const int tied = tiedAtBest(deviceValues, trace->device_higher_better);
        tied > 1 && !trace->device_tie_break.empty())
      deviceScores += tr(" · <b>%1 tied</b>; ties: %2")
                          .arg(tied)
                          .arg(QString::fromStdString(trace->device_tie_break).toHtmlEscaped());
    devicesCaption_->setText(tr("<b>Devices</b> · %1").arg(deviceScores));
  } else {
    candidatesCaption_->setText(tr("<b>Ready set</b>"));
    devicesCaption_->setText(tr("<b>Devices</b>"));
  }
  // The device list shows every device without scrolling, up to eight.
  const int deviceRows = std::clamp(content_.devices ? content_.devices->size() : 4, 2, 8);
  const int devicesHeight = devices_->horizontalHeader()->sizeHint().height() +
                            deviceRows * devices_->verticalHeader()->defaultSectionSize() +
                            2 * devices_->frameWidth() + 2;
  devices_->setMinimumHeight(devicesHeight);
  devices_->setMaximumHeight(devicesHeight);
  // Keep the chosen rows in sight while stepping, without moving the user's current row.
  if (const int row = candidateModel_->chosenRow(); row >= 0)
    candidates_->scrollTo(candidateModel_->index(row, 0));
  candidates_->setEnabled(have);
  devices_->setEnabled(have);
  const QString overrideTip = content_.can_override
                                  ? tr("Double-click or Enter on another row: override")
                                  : tr("Replaying an override…");
  candidates_->setToolTip(have && k < n ? overrideTip : QString());
  devices_->setToolTip(have && k < n ? overrideTip : QString());
  busy_->setVisible(have && !content_.can_override);
  busy_->setText(tr("Replaying the override…"));

  // The branches, each with its makespan and its change against the original.
  const int count = static_cast<int>(content_.branches.size());
  while (branches_->count() > count) delete branches_->takeItem(branches_->count() - 1);
  while (branches_->count() < count) branches_->addItem(QString());
  const double original = count > 0 ? content_.branches[0].makespan_us : 0;
  for (int b = 0; b < count; ++b) {
    const StepperBranch& branch = content_.branches[b];
    QString text =
        QStringLiteral("%1  ·  %2").arg(branch.label, formatDuration(branch.makespan_us));
    if (b > 0 && original > 0) {
      const double d = branch.makespan_us - original;
      text +=
          QStringLiteral("  (%1, %2%3%)")
              .arg(d == 0 ? QStringLiteral("±0") : signedDuration(d), d > 0 ? QStringLiteral("+")
                                                                      : d < 0
                                                                          ? QString::fromUtf8("−")
                                                                          : QString())
              .arg(std::abs(100 * d / original), 0, 'f', std::abs(100 * d / original) < 1 ? 2 : 1);
    }
    QListWidgetItem* item = branches_->item(b);
    item->setText(text);
    QFont f = branches_->font();
    f.setBold(b == content_.current_branch);
    item->setFont(f);
    item->setData(Qt::DecorationRole,
                  b == content_.current_branch ? stepAccent() : QColor(Qt::transparent));
  }
  if (content_.current_branch >= 0 && content_.current_branch < count)
    branches_->setCurrentRow(content_.current_branch);
  // The branch list grows with its rows up to four, then scrolls: the ready set keeps the height.
  const int rowHeight =
      std::max(branches_->sizeHintForRow(0), branches_->fontMetrics().height() + 4);
  branches_->setMaximumHeight(std::clamp(count, 1, 4) * rowHeight + 2 * branches_->frameWidth() +
                              2);
  branches_->setEnabled(have && count > 0);
  saveBranch_->setEnabled(have && content_.current_branch > 0);
  sourceButton_->setEnabled(true);
  updatePlayButton();
  updating_ = false;
}

void StepperWidget::refreshStyle() {
  title_->setFont(titleFont(*this, 1.45));
  for (QLabel* l : {soFar_, final_, original_}) l->setFont(titleFont(*this, 1.25));
  for (QLabel* l : {soFarCaption_, finalCaption_, originalCaption_})
    l->setFont(titleFont(*this, 0.9, false));
  const QColor ink = palette().color(QPalette::ButtonText);
  const qreal dpr = devicePixelRatioF();
  first_->setIcon(transportIcon(Glyph::First, ink, dpr));
  previous_->setIcon(transportIcon(Glyph::Previous, ink, dpr));
  next_->setIcon(transportIcon(Glyph::Next, ink, dpr));
  last_->setIcon(transportIcon(Glyph::Last, ink, dpr));
  updatePlayButton();
  // Row heights follow the font (presentation mode), with room for the bars.
  const int rowH = QFontMetrics(font()).height() + 10;
  candidates_->verticalHeader()->setDefaultSectionSize(rowH);
  devices_->verticalHeader()->setDefaultSectionSize(rowH);
  const int textW = QFontMetrics(font()).horizontalAdvance(QStringLiteral("888.8 ms"));
  candidates_->horizontalHeader()->resizeSection(CandidateModel::ScoreColumn, textW + 60);
  // The device rows carry three times beside the score: a shorter bar keeps the names in view.
  devices_->horizontalHeader()->resizeSection(DeviceChoiceModel::ScoreColumn, textW + 28);
}

void StepperWidget::updatePlayButton() {
  const QColor ink = palette().color(QPalette::ButtonText);
  play_->setIcon(transportIcon(playing() ? Glyph::Pause : Glyph::Play, ink, devicePixelRatioF()));
  play_->setToolTip(playing() ? tr("Pause (Space)") : tr("Play (Space)"));
}

bool StepperWidget::isStepKey(QKeyEvent* event) const {
  for (Command c : {Command::StepNext, Command::StepPrevious, Command::StepFirst, Command::StepLast,
                    Command::StepPlay})
    if (matches(event, c)) return true;
  return false;
}

bool StepperWidget::handleStepKey(QKeyEvent* event) {
  if (!content_.trace) return false;
  if (matches(event, Command::StepNext))
    requestStep(content_.step + 1);
  else if (matches(event, Command::StepPrevious))
    requestStep(content_.step - 1);
  else if (matches(event, Command::StepFirst))
    requestStep(0);
  else if (matches(event, Command::StepLast))
    requestStep(steps());
  else if (matches(event, Command::StepPlay))
    setPlaying(!playing());
  else
    return false;
  event->accept();
  return true;
}

bool StepperWidget::event(QEvent* event) {
  // A window-wide action on one of the step keys must not take it while the dock has the focus.
  if (event->type() == QEvent::ShortcutOverride && content_.trace &&
      isStepKey(static_cast<QKeyEvent*>(event))) {
    event->accept();
    return true;
  }
  return QWidget::event(event);
}

bool StepperWidget::eventFilter(QObject* watched, QEvent* event) {
  if (built_ && event->type() == QEvent::ShortcutOverride && content_.trace &&
      isStepKey(static_cast<QKeyEvent*>(event))) {
    event->accept();
    return true;
  }
  if (built_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    if ((key->key() == Qt::Key_Return || key->key() == Qt::Key_Enter) &&
        (watched == candidates_ || watched == devices_)) {
      const int row = static_cast<QTableView*>(watched)->currentIndex().row();
      if (watched == candidates_)
        requestNodeOverride(row);
      else
        requestDeviceOverride(row);
      return true;
    }
    if (handleStepKey(key)) return true;
  }
  return QWidget::eventFilter(watched, event);
}

void StepperWidget::keyPressEvent(QKeyEvent* event) {
  if (!handleStepKey(event)) QWidget::keyPressEvent(event);
}

void StepperWidget::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (!built_) return;
  if (event->type() == QEvent::FontChange || event->type() == QEvent::PaletteChange ||
      event->type() == QEvent::StyleChange) {
    refreshStyle();
    refresh();  // the differences' colours follow the theme
  }
}

}  // namespace doppler::views
