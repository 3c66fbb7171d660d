#pragma once
// The main toolbar: the open graph (its arrow lists recent files), the device set, the method,
// and a large makespan read-out with mean utilization and the ratio to the lower bound. It shows
// state and reports choices; the window decides what they do.
#include <QToolBar>

#include "views/common/snapshot.h"

class QComboBox;
class QLabel;
class QMenu;
class QToolButton;

namespace doppler::studio {

class StudioToolbar : public QToolBar {
  Q_OBJECT
 public:
  StudioToolbar(QMenu* recentMenu, QWidget* parent = nullptr);

  void showGraph(const QString& label, const QString& source);
  void showDevicesSpec(const QString& spec);  // without emitting devicesChosen
  void showMethod(const QString& method);     // without emitting methodChosen
  void showSnapshot(const views::PlacementSnapshot& s);
  QString makespanText() const;

 Q_SIGNALS:
  void openRequested();
  void devicesChosen(const QString& spec);
  void methodChosen(const QString& method);

 private:
  QToolButton* graphButton_;
  QComboBox* devicesCombo_;
  QComboBox* methodCombo_;
  QLabel* readoutMain_;
  QLabel* readoutSub_;
};

}  // namespace doppler::studio
