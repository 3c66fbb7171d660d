#pragma once
// The studio's current session and its runs: which session file is open (the default one, or
// DOPPLER_STUDIO_DB), New / Open / Save As, the writes the Runs dock asks for (tag, note, rename,
// delete), the comparison's data, and the live view of the file.
//
// Live: other processes (`doppler place --db`, a training) write the same file. Once a second
// the controller asks SQLite's `PRAGMA data_version`, which changes exactly when another
// connection has committed to the file, and lists the runs again only then -- an idle session
// costs one cheap pragma a second, and nothing is re-read while nothing changes. The store's own
// writes (through this controller) refresh at once.
#include <QObject>
#include <QString>
#include <QTimer>
#include <memory>
#include <vector>

#include "sessions/records.h"
#include "sessions/session.h"
#include "views/runs/run_compare_view.h"

namespace doppler::studio {

class RunsController : public QObject {
  Q_OBJECT
 public:
  explicit RunsController(QObject* parent = nullptr);
  ~RunsController() override;

  // DOPPLER_STUDIO_DB when set, else the default session (its directory created).
  static QString startupPath();

  // Opens (or creates, when missing or empty) the session at `path`. On failure -- a damaged,
  // foreign or newer file -- returns false with the reason in `error` and keeps the current
  // session open.
  bool open(const QString& path, QString* error);
  // A new, empty session at `path` (refuses an existing non-empty file).
  bool create(const QString& path, QString* error);
  // Copies the session to `path` and continues on the copy.
  bool saveAs(const QString& path, QString* error);
  bool isOpen() const { return session_ != nullptr; }
  QString path() const;  // "" when none is open
  sessions::RunStore* store() const;

  const std::vector<sessions::RunInfo>& runs() const { return runs_; }
  // Lists the runs now and emits runsChanged (even if nothing changed).
  void refresh();
  // Re-lists only when another connection has committed since the last look.
  void poll();

  // The dock's requests; each returns false with the reason in `error`.
  bool tag(const QList<qint64>& runs, const QString& tag, bool remove, QString* error);
  bool note(const QList<qint64>& runs, const QString& text, QString* error);
  // Names a run: replaces its "name:" tag (empty: removes it). One transaction.
  bool rename(qint64 run, const QString& name, QString* error);
  bool remove(const QList<qint64>& runs, QString* error);

  // Everything the comparison view draws, read from the store.
  views::RunComparison comparison(const QList<qint64>& runs, QString* error);

 Q_SIGNALS:
  void runsChanged(const std::vector<sessions::RunInfo>& runs);
  void sessionChanged(const QString& path);

 private:
  bool write(const std::function<void(sessions::RunStore&)>& fn, QString* error);
  void setSession(std::unique_ptr<sessions::Session> session);
  int64_t dataVersion();

  std::unique_ptr<sessions::Session> session_;
  std::vector<sessions::RunInfo> runs_;
  int64_t dataVersion_ = -1;
  QTimer timer_;
};

}  // namespace doppler::studio
