#pragma once
// The training dashboard (a dock): choose a stage and its parameters (generated from
// train::trainParamSpecs, as the tuner's are from a method's ParamSpecs), where to start from,
// start / pause / cancel, and watch the run (progress with an ETA, the best makespan so far, the
// live charts of TrainingCharts). The widget only edits settings and shows what it is given; the
// studio runs the training on its job runner, stores the run, and answers the signals.
#include <QWidget>
#include <cstdint>
#include <map>
#include <optional>
#include <utility>
#include <vector>

#include "core/heuristics/method.h"
#include "core/train/train_config.h"
#include "core/train/train_progress.h"
#include "views/training/training_charts.h"

class QButtonGroup;
class QComboBox;
class QGroupBox;
class QFormLayout;
class QLabel;
class QProgressBar;
class QPushButton;
class QRadioButton;

namespace doppler::views {

enum class TrainingState { Idle, Running, Paused, Finished, Cancelled, Failed };
QString toDisplayString(TrainingState s);

class TrainingDashboard : public QWidget {
  Q_OBJECT
 public:
  explicit TrainingDashboard(QWidget* parent = nullptr);

  train::Stage stage() const;
  // Selects a stage; its parameter editors are rebuilt with that stage's defaults.
  void setStage(train::Stage stage);
  // Only the values that differ from the stage's defaults, as `doppler train` options without
  // the dashes ("lr" -> "1e-4"), so that a run records what the user chose.
  ParamValues values() const;
  // Shows values (unknown names are ignored); the others keep their current value.
  void setValues(const ParamValues& values);

  QString startFromCheckpoint() const;  // empty unless "checkpoint" is chosen and a file was set
  std::optional<int64_t> startFromRun() const;  // set when "stored run" is chosen
  void setCheckpointFile(const QString& path);  // also chooses "checkpoint"; empty: back to fresh
  void setStoredRuns(const std::vector<std::pair<int64_t, QString>>& runs);

  // A new run: clears the charts and the read-outs, sets the references and the episodes
  // planned (for the progress bar and the charts' x-axis).
  void reset(const TrainingReferences& refs, long plannedEpisodes);
  void setReferences(const TrainingReferences& refs);
  void addProgress(const train::TrainProgress& p);
  void setState(TrainingState s, const QString& message = {});
  // Whether "Show best placement" and "Open best in stepper" can work (reset makes them
  // available): a stored run shown without its best episode disables them, saying why.
  void setBestPlacementAvailable(bool available, const QString& whyNot = {});
  bool bestPlacementAvailable() const { return hasProgress_ && bestAvailable_; }
  TrainingState state() const { return state_; }
  // The progress bar's text ("3,400 of 12,000 episodes · 850 episodes/s · ETA 10 s").
  QString progressText() const;
  QString statusText() const;
  // Stage III: what simulation expects the policy to gain over the heuristic (empty hides it),
  // and the run's last rollback or stop.
  void setExpectation(const QString& text);
  QString expectationText() const;
  QString eventsText() const;

  TrainingCharts* charts() const { return charts_; }
  // Re-applies the theme's colours (light / dark).
  void applyTheme();

 Q_SIGNALS:
  void startRequested();
  void pauseRequested(bool paused);  // true: pause, false: resume
  void cancelRequested();
  void chooseCheckpointRequested();
  void showBestRequested();
  void openBestInStepperRequested();
  // A parameter, the stage or the starting point changed (not emitted by the setters' own
  // updates of the read-outs).
  void settingsChanged();

 private:
  void rebuildParams();
  void resetParams();
  void updateButtons();
  void updateChangedMarks();
  void updateProgress();

  QComboBox* stage_;
  QRadioButton* fresh_;
  QRadioButton* fromCheckpoint_;
  QRadioButton* fromRun_;
  QButtonGroup* startFrom_;
  QPushButton* chooseCheckpoint_;
  QLabel* checkpointLabel_;
  QComboBox* storedRuns_;
  QPushButton* start_;
  QPushButton* pause_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* status_;
  QLabel* expected_;
  QLabel* events_;
  QLabel* best_;
  QLabel* bestDetail_;
  QPushButton* showBest_;
  QPushButton* openBest_;
  QGroupBox* paramsBox_;
  QFormLayout* paramsForm_;
  QWidget* setupPanel_;
  TrainingCharts* charts_;

  std::vector<ParamSpec> specs_;
  std::map<std::string, QWidget*> editors_;
  std::map<std::string, QLabel*> labels_;
  QString checkpoint_;
  TrainingState state_ = TrainingState::Idle;
  QString message_;
  TrainingReferences refs_;
  long planned_ = 0;
  bool hasProgress_ = false;
  bool bestAvailable_ = true;
  QString bestWhyNot_;
  train::TrainProgress last_;
  double bestGreedy_ = NAN;
  bool quiet_ = false;
};

}  // namespace doppler::views
