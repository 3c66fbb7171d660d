#pragma once
// The runs: the "Runs" dock over the current session (kept live while other processes write it),
// the comparison window and its rings on the graph, and File > New Session, Open Session, Save
// Session As and Recent Sessions. The session logic is sessions::Session; the store's reads and
// writes go through RunsController; this page wires them to the dock, the menus and the banner.
#include <QList>
#include <QObject>
#include <QString>
#include <cstdint>
#include <vector>

class QDockWidget;
class QMenu;

namespace doppler::views {
class RunsPanel;
class RunCompareView;
}  // namespace doppler::views

namespace doppler::studio {

class MainWindow;
class RunsController;

class RunsPage : public QObject {
  Q_OBJECT
 public:
  explicit RunsPage(MainWindow* window);

  RunsController* controller() const { return controller_; }
  views::RunsPanel* panel() const { return panel_; }
  views::RunCompareView* compareView() const { return compare_; }
  QDockWidget* dock() const { return dock_; }
  // The current session file: the default one, or DOPPLER_STUDIO_DB.
  QString sessionPath() const;
  // New / Open / Save As: false with the reason in the banner, the current session kept open.
  bool openSession(const QString& path);
  bool newSession(const QString& path);
  bool saveSessionAs(const QString& path);
  void show();
  void compareRuns(const QList<qint64>& ids);
  // The open graph placed by a heuristic and two seeded searches, recorded as `doppler place`
  // records them (for the grabs); returns the runs.
  std::vector<int64_t> recordSampleRuns();

 private:
  void addSessionActions(QMenu* file);
  void rememberSession();
  // Shows the comparison window's second run against the shown placement on the graph.
  void markMovedNodes();

  MainWindow* window_;
  RunsController* controller_;
  views::RunsPanel* panel_;
  views::RunCompareView* compare_;
  QDockWidget* dock_;
  QMenu* recentSessionsMenu_ = nullptr;
};

}  // namespace doppler::studio
