#pragma once
// The fleet workbench (the studio's Fleet perspective, docs/fleet_workbench.md): a form to launch
// `fleet simulate`, `compare` and `train` (what runs them is the studio's FleetController), a
// slot slider with play, and the views of the model: the map, the decision trace, the regions x
// slots heatmap, the per-method charts and a table of each method's figures over seeds. The
// widget only asks for runs (signals) and shows state; it never runs anything itself.
#include <QWidget>
#include <string>
#include <vector>

#include "core/fleet/sim/harness.h"
#include "views/fleet/fleet_run_model.h"

class QComboBox;
class QDoubleSpinBox;
class QLabel;
class QLineEdit;
class QListWidget;
class QProgressBar;
class QPushButton;
class QSlider;
class QSpinBox;
class QTimeEdit;
class QTableWidget;
class QTimer;
class QToolButton;

namespace doppler::views {

class FleetMapView;
class FleetHeatmapView;
class FleetChartsView;
class FleetDecisionView;

// What the form asks for.
struct FleetLaunchSettings {
  fleet::sim::RunOptions options;    // topology, trace, slots, load, seed, fidelity
  std::string method = "ot";         // simulate
  std::vector<std::string> methods;  // compare
  int seeds = 3;                     // compare
  std::string checkpoint;            // the learned method's ("" = none)
  int episodes = 60;                 // train
};

enum class FleetJobState { Idle, Running, Finished, Cancelled, Failed };

class FleetWorkbench : public QWidget {
  Q_OBJECT
 public:
  // Milliseconds between two slots while playing.
  static constexpr int kPlayIntervalMs = 120;
  // The fewest seeds a results table gives a 95% interval for.
  static constexpr int kSeedsForInterval = 3;

  explicit FleetWorkbench(FleetRunModel* model, QWidget* parent = nullptr);

  FleetRunModel* model() const { return model_; }
  FleetMapView* map() const { return map_; }
  FleetHeatmapView* heatmap() const { return heatmap_; }
  FleetChartsView* charts() const { return charts_; }
  FleetDecisionView* decision() const { return decision_; }
  QSlider* slotSlider() const { return slider_; }
  QTableWidget* summaryTable() const { return table_; }
  // The charts, the heatmap and the table together (the compare grab).
  QWidget* comparePanel() const { return comparePanel_; }

  // The methods the form offers (the baselines, and "torta" where it can be built), the
  // topologies, and whether training is offered.
  void setMethodNames(const std::vector<std::string>& names);
  void setTopologies(const std::vector<std::string>& names);
  void setTrainAvailable(bool available, const QString& why = {});
  FleetLaunchSettings settings() const;
  void setSettings(const FleetLaunchSettings& s);
  void setCheckpoint(const QString& path);

  void setState(FleetJobState state, const QString& text = {});
  FleetJobState state() const { return state_; }
  QString stateText() const;
  // Progress of the running job: `done` of `total` steps (0 total: unknown), and what it does.
  void setProgress(int done, int total, const QString& what);

  // A training's curve (per PPO episode: the episode's mean response and OT-only's on the same
  // seed), drawn under the form while and after it runs; empty hides it.
  void setTrainingCurve(const std::vector<double>& response, const std::vector<double>& ot);

  void setPlaying(bool playing);
  bool playing() const;
  void setHeatMetric(HeatMetric metric);

 Q_SIGNALS:
  void simulateRequested();
  void compareRequested();
  void trainRequested();
  void cancelRequested();
  void chooseCheckpointRequested();

 private:
  QWidget* buildForm();
  QWidget* buildSlotBar();
  void refreshResults();
  void refreshSelection();
  void refreshTable();

  FleetRunModel* model_;
  FleetMapView* map_;
  FleetHeatmapView* heatmap_;
  FleetChartsView* charts_;
  FleetDecisionView* decision_;
  QWidget* comparePanel_ = nullptr;
  QTableWidget* table_ = nullptr;
  // Form.
  QComboBox* topology_ = nullptr;
  QComboBox* trace_ = nullptr;
  QSpinBox* slots_ = nullptr;
  QComboBox* startDay_ = nullptr;  // the calendar horizon's start (UTC)
  QTimeEdit* startTime_ = nullptr;
  QComboBox* profile_ = nullptr;  // auto, conv, code, flat
  QLineEdit* spikes_ = nullptr;   // --spike specs, separated by commas or spaces
  QLineEdit* outages_ = nullptr;  // --outage specs
  QDoubleSpinBox* load_ = nullptr;
  QSpinBox* seed_ = nullptr;
  QSpinBox* seeds_ = nullptr;
  QComboBox* fidelity_ = nullptr;
  QComboBox* method_ = nullptr;
  QListWidget* methods_ = nullptr;
  QLineEdit* checkpoint_ = nullptr;
  QPushButton* browse_ = nullptr;
  QSpinBox* episodes_ = nullptr;
  QPushButton* simulate_ = nullptr;
  QPushButton* compare_ = nullptr;
  QPushButton* train_ = nullptr;
  QPushButton* cancel_ = nullptr;
  QProgressBar* progress_ = nullptr;
  QLabel* stateLabel_ = nullptr;
  QWidget* trainCurve_ = nullptr;
  bool trainAvailable_ = false;
  FleetJobState state_ = FleetJobState::Idle;
  // Slot bar.
  QToolButton* play_ = nullptr;
  QSlider* slider_ = nullptr;
  QLabel* slotLabel_ = nullptr;
  QComboBox* shown_ = nullptr;  // the method the map and the decision trace show
  QComboBox* heatMetric_ = nullptr;
  QTimer* timer_ = nullptr;
};

}  // namespace doppler::views
