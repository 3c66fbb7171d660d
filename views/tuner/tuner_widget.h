#pragma once
// The heuristic tuner (a dock): pick a method, change its parameters (generated from the method's
// ParamSpecs), the device set, cost model, noise, seed and search budget, and see the makespan of
// every setting against the previous one (the chart of every setting's makespan is its own
// widget, SettingsHistoryChart). The widget only edits settings and shows results; the studio's
// controller computes placements.
#include <QWidget>
#include <map>
#include <string>
#include <vector>

#include "views/common/snapshot.h"

class QComboBox;
class QDoubleSpinBox;
class QSpinBox;
class QLabel;
class QPushButton;
class QProgressBar;
class QFormLayout;
class QGroupBox;

namespace doppler::views {

class TunerWidget : public QWidget {
  Q_OBJECT
 public:
  explicit TunerWidget(QWidget* parent = nullptr);

  bool hasMethod(const QString& id) const;

  PlacementSettings settings() const;
  // Shows settings without emitting settingsChanged.
  void setSettings(const PlacementSettings& settings);

  // Device choices: presets and counts are listed; a file path is added when first used.
  QString devicesSpec() const;
  void setDevicesSpec(const QString& spec);
  static void fillDeviceChoices(QComboBox* combo);
  static void selectDeviceSpec(QComboBox* combo, const QString& spec);

  void showSnapshot(const SnapshotPtr& snapshot);
  void setRunning(bool running);
  void setProgress(long done, long total, double best_us);
  void showError(const QString& message);
  QString makespanText() const;

 Q_SIGNALS:
  void settingsChanged();
  void devicesChanged(const QString& spec);
  void cancelRequested();
  void rerunRequested();

 private:
  void rebuildParams();
  void emitChanged();
  void resetDefaults();

  std::string currentMethod() const;

  bool quiet_ = false;
  QComboBox* method_;
  QLabel* description_;
  QGroupBox* paramsBox_;
  QFormLayout* paramsForm_;
  std::map<std::string, QWidget*> paramEditors_;
  QComboBox* devices_;
  QComboBox* costModel_;
  QComboBox* discipline_;
  QDoubleSpinBox* noise_;
  QSpinBox* seed_;
  QSpinBox* budget_;
  QPushButton* rerun_;
  QPushButton* cancel_;
  QProgressBar* progress_;
  QLabel* makespan_;
  QLabel* delta_;
  QLabel* moved_;
  QLabel* bound_;
  QLabel* timing_;
  QLabel* error_;
};

}  // namespace doppler::views
