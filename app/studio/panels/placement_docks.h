#pragma once
// The placement's docks: the heuristic tuner, the chart of every setting's makespan, the node
// details, the devices (their utilization, in a dragged timeline range), and the node and event
// tables below the views. They follow the document's snapshot and the shared selection; the tuner
// drives the document's settings.
#include <QList>
#include <QObject>

#include "views/common/snapshot.h"

class QDockWidget;
class QSortFilterProxyModel;
class QTableView;
class QTextBrowser;

namespace doppler::views {
class TunerWidget;
class SettingsHistoryChart;
class NodeTableModel;
class ScheduleModel;
class DeviceSummaryModel;
}  // namespace doppler::views

namespace doppler::studio {

class MainWindow;

class PlacementDocks : public QObject {
  Q_OBJECT
 public:
  explicit PlacementDocks(MainWindow* window);

  views::TunerWidget* tuner() const { return tuner_; }
  views::SettingsHistoryChart* history() const { return history_; }
  views::DeviceSummaryModel* deviceModel() const { return deviceModel_; }
  QTextBrowser* details() const { return details_; }
  QDockWidget* tunerDock() const { return tunerDock_; }
  QDockWidget* historyDock() const { return historyDock_; }
  QDockWidget* detailsDock() const { return detailsDock_; }
  QDockWidget* devicesDock() const { return devicesDock_; }
  // Beside the views (the tuner first) and below them, for the window's layout and View menu.
  QList<QDockWidget*> sideDocks() const;
  QList<QDockWidget*> bottomDocks() const;

  void showSnapshot(const views::SnapshotPtr& s);
  // The selected node's details again (a measured run arrived).
  void refreshDetails();
  void applyTheme();

 private:
  // The node details pane's text (with the measured section when there is a run of it).
  QString detailsHtml(int node) const;

  MainWindow* window_;
  views::TunerWidget* tuner_;
  views::SettingsHistoryChart* history_;
  views::NodeTableModel* nodeModel_;
  views::ScheduleModel* scheduleModel_;
  views::DeviceSummaryModel* deviceModel_;
  QSortFilterProxyModel* nodeProxy_;
  QTableView* nodeTable_ = nullptr;
  QTextBrowser* details_ = nullptr;
  QDockWidget* tunerDock_ = nullptr;
  QDockWidget* historyDock_ = nullptr;
  QDockWidget* detailsDock_ = nullptr;
  QDockWidget* devicesDock_ = nullptr;
  QDockWidget* nodesDock_ = nullptr;
  QDockWidget* eventsDock_ = nullptr;
};

}  // namespace doppler::studio
