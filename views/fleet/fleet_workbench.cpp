#include "views/fleet/fleet_workbench.h"

#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPainter>
#include <QProgressBar>
#include <QPushButton>
#include <QRegularExpression>
#include <QScrollArea>
#include <QSlider>
#include <QSpinBox>
#include <QSplitter>
#include <QTableWidget>
#include <QTimeEdit>
#include <QTimer>
#include <QToolButton>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "views/common/theme.h"
#include "views/fleet/fleet_charts_view.h"
#include "views/fleet/fleet_colors.h"
#include "views/fleet/fleet_decision_view.h"
#include "views/fleet/fleet_heatmap_view.h"
#include "views/fleet/fleet_line_chart.h"
#include "views/fleet/fleet_map_view.h"

namespace doppler::views {

namespace fs = doppler::fleet::sim;

namespace {

// "1:2:60:3, 2:0:30:2" to {"1:2:60:3", "2:0:30:2"} (commas or spaces between specs).
std::vector<std::string> specList(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part :
       text.split(QRegularExpression(QStringLiteral("[,\\s]+")), Qt::SkipEmptyParts))
    out.push_back(part.toStdString());
  return out;
}

QString specText(const std::vector<std::string>& specs) {
  QStringList parts;
  for (const std::string& spec : specs) parts << QString::fromStdString(spec);
  return parts.join(QStringLiteral(", "));
}

// The training's curve under the form.
class TrainCurve : public QWidget {
 public:
  LineChartSpec spec;
  TrainCurve() {
    setObjectName(QStringLiteral("fleetTrainCurve"));
    setMinimumHeight(150);
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), Theme::current().background);
    paintLineChart(p, QRectF(rect()).adjusted(0, 2, -2, -2), spec);
  }
};

}  // namespace

FleetWorkbench::FleetWorkbench(FleetRunModel* model, QWidget* parent)
    : QWidget(parent), model_(model) {
  setObjectName(QStringLiteral("fleetWorkbench"));
  map_ = new FleetMapView(model_);
  heatmap_ = new FleetHeatmapView(model_);
  charts_ = new FleetChartsView(model_);
  decision_ = new FleetDecisionView(model_);

  table_ = new QTableWidget;
  table_->setObjectName(QStringLiteral("fleetSummary"));
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setMaximumHeight(150);
  table_->setSizeAdjustPolicy(QAbstractScrollArea::AdjustToContents);

  // Top: the map and the decision trace; bottom: the heatmap over the table, and the charts.
  auto* top = new QSplitter(Qt::Horizontal);
  top->addWidget(map_);
  top->addWidget(decision_);
  top->setStretchFactor(0, 1);
  top->setStretchFactor(1, 1);
  top->setSizes({640, 520});
  auto* left = new QWidget;
  auto* leftLayout = new QVBoxLayout(left);
  leftLayout->setContentsMargins(0, 0, 0, 0);
  leftLayout->setSpacing(2);
  leftLayout->addWidget(heatmap_, 1);
  leftLayout->addWidget(table_);
  auto* bottom = new QSplitter(Qt::Horizontal);
  bottom->setObjectName(QStringLiteral("fleetComparePanel"));
  bottom->addWidget(left);
  bottom->addWidget(charts_);
  bottom->setStretchFactor(0, 3);
  bottom->setStretchFactor(1, 2);
  comparePanel_ = bottom;
  auto* views = new QSplitter(Qt::Vertical);
  views->addWidget(top);
  views->addWidget(bottom);
  views->setStretchFactor(0, 5);
  views->setStretchFactor(1, 4);
  views->setChildrenCollapsible(false);

  auto* centre = new QWidget;
  auto* centreLayout = new QVBoxLayout(centre);
  centreLayout->setContentsMargins(0, 0, 0, 0);
  centreLayout->setSpacing(2);
  centreLayout->addWidget(buildSlotBar());
  centreLayout->addWidget(views, 1);

  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(buildForm());
  layout->addWidget(centre, 1);

  connect(model_, &FleetRunModel::resultsChanged, this, &FleetWorkbench::refreshResults);
  connect(model_, &FleetRunModel::selectionChanged, this, &FleetWorkbench::refreshSelection);
  refreshResults();
  setState(FleetJobState::Idle);
}

QWidget* FleetWorkbench::buildForm() {
  auto* form = new QWidget;
  auto* outer = new QVBoxLayout(form);
  outer->setContentsMargins(4, 4, 4, 4);
  auto* title = new QLabel(tr("Fleet scenario"));
  title->setFont(titleFont(*title));
  outer->addWidget(title);
  auto* fl = new QFormLayout;
  topology_ = new QComboBox;
  topology_->setObjectName(QStringLiteral("fleetTopology"));
  topology_->setEditable(true);  // a shipped name, or a topology file
  topology_->setToolTip(tr("A shipped topology, or the path of an SNDlib or TopoHub file"));
  trace_ = new QComboBox;
  trace_->setObjectName(QStringLiteral("fleetTrace"));
  trace_->setEditable(true);
  trace_->addItems({QStringLiteral("conv"), QStringLiteral("code"), QStringLiteral("synthetic")});
  trace_->setToolTip(tr("conv, code (Azure LLM traces), synthetic, or a trace file"));
  const fs::RunOptions defaults;  // a temporary's strings read as uninitialised to GCC 12
  slots_ = new QSpinBox;
  slots_->setObjectName(QStringLiteral("fleetSlots"));
  slots_->setRange(1, 5000);
  slots_->setValue(defaults.slots);
  slots_->setSuffix(tr(" × 45 s"));
  // The calendar horizon's start: a day and a UTC time (docs/fleet.md, "Demand over a day and a
  // week").
  startDay_ = new QComboBox;
  startDay_->setObjectName(QStringLiteral("fleetStartDay"));
  for (const char* day : {"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"})
    startDay_->addItem(QString::fromLatin1(day));
  startTime_ = new QTimeEdit;
  startTime_->setObjectName(QStringLiteral("fleetStartTime"));
  startTime_->setDisplayFormat(QStringLiteral("HH:mm"));
  const int startMinutes = static_cast<int>(std::lround(defaults.calendar.start_week_hour * 60));
  startDay_->setCurrentIndex(startMinutes / (24 * 60));
  startTime_->setTime(QTime(startMinutes % (24 * 60) / 60, startMinutes % 60));
  const QString startTip =
      tr("The horizon's start, UTC. Training draws Mon–Wed and Sat and the "
         "trace's first half; a start on Thu, Fri or Sun is held out");
  startDay_->setToolTip(startTip);
  startTime_->setToolTip(startTip);
  auto* start = new QWidget;
  auto* startLayout = new QHBoxLayout(start);
  startLayout->setContentsMargins(0, 0, 0, 0);
  startLayout->addWidget(startDay_);
  startLayout->addWidget(startTime_, 1);
  profile_ = new QComboBox;
  profile_->setObjectName(QStringLiteral("fleetProfile"));
  profile_->addItems({QStringLiteral("auto"), QStringLiteral("conv"), QStringLiteral("code"),
                      QStringLiteral("flat")});
  profile_->setToolTip(
      tr("The day-and-week shape demand follows: code 10:1 on weekdays, conv "
         "2:1, flat; auto: the trace's own (code for code, else conv)"));
  // Regional events, as the CLI's --spike and --outage take them (docs/fleet.md, "Spikes and
  // outages"); a bad one fails the run before it begins, naming the field.
  spikes_ = new QLineEdit;
  spikes_->setObjectName(QStringLiteral("fleetSpikes"));
  spikes_->setPlaceholderText(tr("region:start h:min:factor"));
  spikes_->setToolTip(
      tr("Demand spikes, e.g. 1:2:60:3 (region 1, 2 h in, 60 min, 3×), on top of "
         "the load; several separated by commas"));
  outages_ = new QLineEdit;
  outages_->setObjectName(QStringLiteral("fleetOutages"));
  outages_->setPlaceholderText(tr("region:start h:min"));
  outages_->setToolTip(
      tr("Regions whose servers are gone for a while, e.g. 3:1:60; their queue "
         "and demand go elsewhere, their servers come back cold (slot fidelity)"));
  load_ = new QDoubleSpinBox;
  load_->setObjectName(QStringLiteral("fleetLoad"));
  load_->setRange(0, 10);
  load_->setSingleStep(0.05);
  load_->setDecimals(2);
  load_->setValue(defaults.load);
  load_->setToolTip(tr("Demand scaled so the fleet's mean load is this (0: as the trace is)"));
  seed_ = new QSpinBox;
  seed_->setObjectName(QStringLiteral("fleetSeed"));
  seed_->setRange(0, 1000000);
  seed_->setValue(1);
  seeds_ = new QSpinBox;
  seeds_->setObjectName(QStringLiteral("fleetSeeds"));
  seeds_->setRange(1, 100);
  seeds_->setValue(3);
  seeds_->setToolTip(tr("Compare: seeds seed, seed + 1, …; the views show the first"));
  fidelity_ = new QComboBox;
  fidelity_->setObjectName(QStringLiteral("fleetFidelity"));
  fidelity_->addItems({QStringLiteral("slot"), QStringLiteral("request")});
  fidelity_->setToolTip(tr("slot: the fluid model, fast; request: discrete-event, per request"));
  method_ = new QComboBox;
  method_->setObjectName(QStringLiteral("fleetMethod"));
  methods_ = new QListWidget;
  methods_->setObjectName(QStringLiteral("fleetMethods"));
  methods_->setMaximumHeight(150);
  checkpoint_ = new QLineEdit;
  checkpoint_->setObjectName(QStringLiteral("fleetCheckpoint"));
  checkpoint_->setPlaceholderText(tr("torta checkpoint (.pt)"));
  browse_ = new QPushButton(tr("…"));
  browse_->setMaximumWidth(30);
  connect(browse_, &QPushButton::clicked, this, &FleetWorkbench::chooseCheckpointRequested);
  auto* ckpt = new QWidget;
  auto* ckptLayout = new QHBoxLayout(ckpt);
  ckptLayout->setContentsMargins(0, 0, 0, 0);
  ckptLayout->addWidget(checkpoint_, 1);
  ckptLayout->addWidget(browse_);
  episodes_ = new QSpinBox;
  episodes_->setObjectName(QStringLiteral("fleetEpisodes"));
  episodes_->setRange(1, 100000);
  episodes_->setValue(60);
  fl->addRow(tr("Topology"), topology_);
  fl->addRow(tr("Trace"), trace_);
  fl->addRow(tr("Slots"), slots_);
  fl->addRow(tr("Start"), start);
  fl->addRow(tr("Profile"), profile_);
  fl->addRow(tr("Spikes"), spikes_);
  fl->addRow(tr("Outages"), outages_);
  fl->addRow(tr("Load"), load_);
  fl->addRow(tr("Seed"), seed_);
  fl->addRow(tr("Fidelity"), fidelity_);
  fl->addRow(tr("Simulate"), method_);
  fl->addRow(tr("Compare"), methods_);
  fl->addRow(tr("Seeds"), seeds_);
  fl->addRow(tr("Checkpoint"), ckpt);
  fl->addRow(tr("Episodes"), episodes_);
  outer->addLayout(fl);

  simulate_ = new QPushButton(tr("Simulate"));
  simulate_->setObjectName(QStringLiteral("fleetSimulate"));
  simulate_->setToolTip(
      tr("fleet simulate: the chosen method (and OT-only beside it, for regret)"));
  compare_ = new QPushButton(tr("Compare"));
  compare_->setObjectName(QStringLiteral("fleetCompare"));
  compare_->setToolTip(tr("fleet compare: the ticked methods on every seed"));
  train_ = new QPushButton(tr("Train torta"));
  train_->setObjectName(QStringLiteral("fleetTrain"));
  cancel_ = new QPushButton(tr("Cancel"));
  cancel_->setObjectName(QStringLiteral("fleetCancel"));
  connect(simulate_, &QPushButton::clicked, this, &FleetWorkbench::simulateRequested);
  connect(compare_, &QPushButton::clicked, this, &FleetWorkbench::compareRequested);
  connect(train_, &QPushButton::clicked, this, &FleetWorkbench::trainRequested);
  connect(cancel_, &QPushButton::clicked, this, &FleetWorkbench::cancelRequested);
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(simulate_);
  buttons->addWidget(compare_);
  outer->addLayout(buttons);
  auto* buttons2 = new QHBoxLayout;
  buttons2->addWidget(train_);
  buttons2->addWidget(cancel_);
  outer->addLayout(buttons2);
  progress_ = new QProgressBar;
  progress_->setObjectName(QStringLiteral("fleetProgress"));
  progress_->setTextVisible(true);
  outer->addWidget(progress_);
  stateLabel_ = new QLabel;
  stateLabel_->setObjectName(QStringLiteral("fleetState"));
  stateLabel_->setWordWrap(true);
  stateLabel_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  outer->addWidget(stateLabel_);
  trainCurve_ = new TrainCurve;
  trainCurve_->hide();
  outer->addWidget(trainCurve_);
  outer->addStretch(1);
  setTrainAvailable(false);

  auto* scroll = new QScrollArea;
  scroll->setWidget(form);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setFixedWidth(270);
  return scroll;
}

QWidget* FleetWorkbench::buildSlotBar() {
  auto* bar = new QWidget;
  auto* l = new QHBoxLayout(bar);
  l->setContentsMargins(4, 2, 4, 2);
  play_ = new QToolButton;
  play_->setObjectName(QStringLiteral("fleetPlay"));
  play_->setCheckable(true);
  play_->setText(QStringLiteral("▶"));
  play_->setToolTip(tr("Play / pause the slots"));
  slider_ = new QSlider(Qt::Horizontal);
  slider_->setObjectName(QStringLiteral("fleetSlotSlider"));
  slider_->setRange(0, 0);
  slotLabel_ = new QLabel;
  slotLabel_->setObjectName(QStringLiteral("fleetSlotLabel"));
  slotLabel_->setMinimumWidth(fontMetrics().horizontalAdvance(
      QStringLiteral("slot 4800 / 4800 · Wed 23:59 UTC (+59:59 h)")));
  shown_ = new QComboBox;
  shown_->setObjectName(QStringLiteral("fleetShownMethod"));
  shown_->setToolTip(tr("The method the map, the heatmap and the decision trace show"));
  heatMetric_ = new QComboBox;
  heatMetric_->setObjectName(QStringLiteral("fleetHeatMetric"));
  heatMetric_->setToolTip(tr("What colours the map's discs and the heatmap, on one scale"));
  for (HeatMetric m : {HeatMetric::LoadShare, HeatMetric::PoolUtilization, HeatMetric::Utilization,
                       HeatMetric::Queue, HeatMetric::DemandOverCapacity})
    heatMetric_->addItem(heatMetricName(m), static_cast<int>(m));
  l->addWidget(play_);
  l->addWidget(slider_, 1);
  l->addWidget(slotLabel_);
  l->addWidget(new QLabel(tr("Show")));
  l->addWidget(shown_);
  l->addWidget(new QLabel(tr("Colour by")));
  l->addWidget(heatMetric_);

  timer_ = new QTimer(this);
  timer_->setInterval(kPlayIntervalMs);
  connect(timer_, &QTimer::timeout, this, [this] {
    if (model_->slot() + 1 >= model_->slots()) {
      setPlaying(false);
      return;
    }
    model_->setSlot(model_->slot() + 1);
  });
  connect(play_, &QToolButton::toggled, this, &FleetWorkbench::setPlaying);
  connect(slider_, &QSlider::valueChanged, model_, &FleetRunModel::setSlot);
  connect(shown_, &QComboBox::currentTextChanged, this, [this](const QString& m) {
    if (!m.isEmpty()) model_->setMethod(m.toStdString());
  });
  connect(heatMetric_, &QComboBox::currentIndexChanged, this, [this](int) {
    const auto metric = static_cast<HeatMetric>(heatMetric_->currentData().toInt());
    heatmap_->setMetric(metric);
    map_->setMetric(metric);
  });
  return bar;
}

void FleetWorkbench::setTrainingCurve(const std::vector<double>& response,
                                      const std::vector<double>& ot) {
  auto* curve = static_cast<TrainCurve*>(trainCurve_);
  curve->spec = {};
  curve->spec.title = tr("training: response per episode");
  curve->spec.unit = QStringLiteral("s");
  curve->spec.xName = tr("episode");
  curve->spec.series.push_back({QStringLiteral("torta"), methodColor("torta"), response, false});
  curve->spec.series.push_back({QStringLiteral("OT"), Theme::current().mutedText, ot, true});
  curve->setVisible(!response.empty());
  curve->update();
}

void FleetWorkbench::setPlaying(bool playing) {
  if (playing && model_->slots() <= 1) playing = false;
  if (playing && model_->slot() + 1 >= model_->slots()) model_->setSlot(0);
  if (playing)
    timer_->start();
  else
    timer_->stop();
  if (play_->isChecked() != playing) {
    QSignalBlocker block(play_);
    play_->setChecked(playing);
  }
  play_->setText(playing ? QStringLiteral("⏸") : QStringLiteral("▶"));
}

bool FleetWorkbench::playing() const {
  return timer_->isActive();
}

void FleetWorkbench::setHeatMetric(HeatMetric metric) {
  heatMetric_->setCurrentIndex(heatMetric_->findData(static_cast<int>(metric)));
}

void FleetWorkbench::refreshResults() {
  {
    QSignalBlocker block(slider_);
    slider_->setRange(0, std::max(0, model_->slots() - 1));
    slider_->setValue(model_->slot());
  }
  const std::vector<std::string> methods = model_->methods();
  QStringList names;
  for (const std::string& m : methods) names << QString::fromStdString(m);
  QStringList current;
  for (int i = 0; i < shown_->count(); ++i) current << shown_->itemText(i);
  if (names != current) {
    QSignalBlocker block(shown_);
    shown_->clear();
    shown_->addItems(names);
  }
  {
    QSignalBlocker block(shown_);
    shown_->setCurrentText(QString::fromStdString(model_->method()));
  }
  // The shown method has no result yet (it is still running): show the first that has one.
  if (!model_->result(model_->method()) && !methods.empty()) model_->setMethod(methods.front());
  refreshTable();
  refreshSelection();
}

void FleetWorkbench::refreshSelection() {
  if (slider_->value() != model_->slot()) {
    QSignalBlocker block(slider_);
    slider_->setValue(model_->slot());
  }
  slotLabel_->setText(model_->slots() > 0 ? model_->slotLabel(model_->slot()) : QString());
  if (shown_->currentText().toStdString() != model_->method()) {
    QSignalBlocker block(shown_);
    shown_->setCurrentText(QString::fromStdString(model_->method()));
  }
}

void FleetWorkbench::refreshTable() {
  const std::vector<FleetMethodSummary> rows = model_->summaries();
  const QStringList header = {tr("method"),   tr("seeds"), tr("mean response s"),
                              tr("p95 s"),    tr("SLO"),   tr("power $"),
                              tr("switches"), tr("util"),  tr("fallbacks")};
  table_->setColumnCount(header.size());
  table_->setHorizontalHeaderLabels(header);
  table_->setRowCount(static_cast<int>(rows.size()));
  // Three significant figures ("8.51", "284", "0.970"): the seeds' spread makes more digits
  // noise. A 95% interval only from three seeds or more: from two, t's quantile (12.7) makes
  // "± 1537" out of two nearby runs.
  auto withCi = [](const FleetMethodSummary& s, const std::string& name, int maxDecimals) {
    const double m = s.mean.count(name) ? s.mean.at(name) : 0.0;
    const int magnitude = m != 0 ? static_cast<int>(std::floor(std::log10(std::abs(m)))) : 0;
    const int decimals = std::clamp(2 - magnitude, 0, maxDecimals);
    QString text = QString::number(m, 'f', decimals);
    if (s.seeds >= kSeedsForInterval && s.ci95.count(name))
      text += QStringLiteral(" ± ") + QString::number(s.ci95.at(name), 'f', decimals);
    return text;
  };
  for (int r = 0; r < static_cast<int>(rows.size()); ++r) {
    const FleetMethodSummary& s = rows[r];
    const QStringList cells = {QString::fromStdString(s.method), QString::number(s.seeds),
                               withCi(s, "mean_response_s", 3),  withCi(s, "p95_response_s", 3),
                               withCi(s, "slo_attainment", 3),   withCi(s, "power_cost", 2),
                               withCi(s, "switches", 0),         withCi(s, "utilization", 3),
                               QString::number(s.fallbacks)};
    for (int c = 0; c < cells.size(); ++c) {
      auto* item = new QTableWidgetItem(cells[c]);
      if (c == 0) item->setForeground(methodColor(s.method));
      if (c > 1 && c + 1 < cells.size() && s.seeds < kSeedsForInterval)
        item->setToolTip(tr("Mean of %n seed(s); an interval needs %1 or more", nullptr, s.seeds)
                             .arg(kSeedsForInterval));
      item->setTextAlignment(c == 0 ? Qt::AlignLeft | Qt::AlignVCenter
                                    : Qt::AlignRight | Qt::AlignVCenter);
      table_->setItem(r, c, item);
    }
  }
}

void FleetWorkbench::setMethodNames(const std::vector<std::string>& names) {
  const QString current = method_->currentText();
  method_->clear();
  std::vector<std::string> ticked;
  for (int i = 0; i < methods_->count(); ++i)
    if (methods_->item(i)->checkState() == Qt::Checked)
      ticked.push_back(methods_->item(i)->text().toStdString());
  methods_->clear();
  for (const std::string& n : names) {
    method_->addItem(QString::fromStdString(n));
    auto* item = new QListWidgetItem(QString::fromStdString(n), methods_);
    const bool on = std::find(ticked.begin(), ticked.end(), n) != ticked.end();
    item->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  method_->setCurrentText(current.isEmpty() ? QString::fromLatin1(FleetRunModel::kReferenceMethod)
                                            : current);
}

void FleetWorkbench::setTopologies(const std::vector<std::string>& names) {
  const QString current = topology_->currentText();
  topology_->clear();
  for (const std::string& n : names) topology_->addItem(QString::fromStdString(n));
  if (!current.isEmpty()) topology_->setCurrentText(current);
}

void FleetWorkbench::setTrainAvailable(bool available, const QString& why) {
  trainAvailable_ = available;
  train_->setVisible(available);
  episodes_->setEnabled(available);
  train_->setToolTip(available ? tr("fleet train: the OT-guided PPO policy, into the checkpoint")
                               : why);
  setState(state_, stateLabel_->text());
}

FleetLaunchSettings FleetWorkbench::settings() const {
  FleetLaunchSettings s;
  s.options.topology = topology_->currentText().trimmed().toStdString();
  s.options.trace = trace_->currentText().trimmed().toStdString();
  s.options.slots = slots_->value();
  const QTime t = startTime_->time();
  s.options.calendar.start_week_hour =
      startDay_->currentIndex() * 24.0 + t.hour() + t.minute() / 60.0;
  if (profile_->currentIndex() > 0)
    s.options.calendar.profile = profile_->currentText().toStdString();
  s.options.spikes = specList(spikes_->text());
  s.options.outages = specList(outages_->text());
  s.options.load = load_->value();
  s.options.seed = static_cast<uint64_t>(seed_->value());
  s.options.fidelity = fidelity_->currentText() == QStringLiteral("request") ? fs::Fidelity::Request
                                                                             : fs::Fidelity::Slot;
  s.method = method_->currentText().toStdString();
  for (int i = 0; i < methods_->count(); ++i)
    if (methods_->item(i)->checkState() == Qt::Checked)
      s.methods.push_back(methods_->item(i)->text().toStdString());
  s.seeds = seeds_->value();
  s.checkpoint = checkpoint_->text().trimmed().toStdString();
  s.episodes = episodes_->value();
  return s;
}

void FleetWorkbench::setSettings(const FleetLaunchSettings& s) {
  topology_->setCurrentText(QString::fromStdString(s.options.topology));
  trace_->setCurrentText(QString::fromStdString(s.options.trace));
  slots_->setValue(s.options.slots);
  const int minutes =
      static_cast<int>(std::lround(s.options.calendar.start_week_hour * 60)) % (7 * 24 * 60);
  startDay_->setCurrentIndex(minutes / (24 * 60));
  startTime_->setTime(QTime(minutes % (24 * 60) / 60, minutes % 60));
  const int profile = profile_->findText(QString::fromStdString(s.options.calendar.profile));
  profile_->setCurrentIndex(std::max(0, profile));
  spikes_->setText(specText(s.options.spikes));
  outages_->setText(specText(s.options.outages));
  load_->setValue(s.options.load);
  seed_->setValue(static_cast<int>(s.options.seed));
  fidelity_->setCurrentText(s.options.fidelity == fs::Fidelity::Request ? QStringLiteral("request")
                                                                        : QStringLiteral("slot"));
  method_->setCurrentText(QString::fromStdString(s.method));
  for (int i = 0; i < methods_->count(); ++i) {
    const std::string name = methods_->item(i)->text().toStdString();
    const bool on = std::find(s.methods.begin(), s.methods.end(), name) != s.methods.end();
    methods_->item(i)->setCheckState(on ? Qt::Checked : Qt::Unchecked);
  }
  seeds_->setValue(s.seeds);
  checkpoint_->setText(QString::fromStdString(s.checkpoint));
  episodes_->setValue(s.episodes);
}

void FleetWorkbench::setCheckpoint(const QString& path) {
  checkpoint_->setText(path);
}

void FleetWorkbench::setState(FleetJobState state, const QString& text) {
  state_ = state;
  const bool running = state == FleetJobState::Running;
  simulate_->setEnabled(!running);
  compare_->setEnabled(!running);
  train_->setEnabled(!running && trainAvailable_);
  cancel_->setEnabled(running);
  if (!running) {
    progress_->setRange(0, 1);
    progress_->setValue(state == FleetJobState::Idle ? 0 : 1);
  }
  // Only a failure has its own colour; otherwise the label follows the theme's palette.
  stateLabel_->setStyleSheet(state == FleetJobState::Failed
                                 ? QStringLiteral("color: %1").arg(Theme::current().critical.name())
                                 : QString());
  stateLabel_->setText(text);
}

QString FleetWorkbench::stateText() const {
  return stateLabel_->text();
}

void FleetWorkbench::setProgress(int done, int total, const QString& what) {
  progress_->setRange(0, std::max(0, total));
  if (total > 0) progress_->setValue(std::clamp(done, 0, total));
  progress_->setFormat(what.isEmpty() ? QStringLiteral("%p%") : what + QStringLiteral(" · %p%"));
}

}  // namespace doppler::views
