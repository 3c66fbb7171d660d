#include "app/studio/panels/runs_controller.h"

#include <QFileInfo>
#include <algorithm>

#include "core/common/input_error.h"
#include "sessions/queries.h"
#include "sessions/sqlite_db.h"
#include "sessions/user_paths.h"
#include "views/runs/runs_table_model.h"

namespace doppler::studio {

namespace {

QString what(const std::exception& e) {
  return QString::fromUtf8(e.what());
}

// The overlaid series: the first of these that some run has, else the first name a run has.
// Preferring the makespan series keeps a training and a search comparable on one axis.
std::string chooseSeries(const std::vector<std::vector<sessions::SeriesInfo>>& perRun) {
  for (const char* name : {"best_makespan_us", "makespan_us", "reward", "loss"})
    for (const auto& list : perRun)
      for (const sessions::SeriesInfo& s : list)
        if (s.name == name) return name;
  for (const auto& list : perRun)
    if (!list.empty()) return list.front().name;
  return {};
}

}  // namespace

RunsController::RunsController(QObject* parent) : QObject(parent) {
  timer_.setInterval(1000);
  connect(&timer_, &QTimer::timeout, this, &RunsController::poll);
}

RunsController::~RunsController() = default;

QString RunsController::startupPath() {
  const QByteArray env = qgetenv("DOPPLER_STUDIO_DB");
  if (!env.isEmpty()) return QString::fromLocal8Bit(env);
  sessions::ensureDataDirectory();
  return QString::fromStdString(sessions::defaultSessionPath());
}

QString RunsController::path() const {
  return session_ ? QString::fromStdString(session_->path()) : QString();
}

sessions::RunStore* RunsController::store() const {
  return session_ ? &session_->store() : nullptr;
}

void RunsController::setSession(std::unique_ptr<sessions::Session> session) {
  session_ = std::move(session);
  dataVersion_ = -1;
  refresh();
  timer_.start();
  Q_EMIT sessionChanged(path());
}

bool RunsController::open(const QString& path, QString* error) {
  try {
    // The old session stays open until the new one has passed every check.
    setSession(std::make_unique<sessions::Session>(
        sessions::Session::openOrCreate(QFileInfo(path).absoluteFilePath().toStdString())));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = what(e);
    return false;
  }
}

bool RunsController::create(const QString& path, QString* error) {
  try {
    setSession(std::make_unique<sessions::Session>(
        sessions::Session::create(QFileInfo(path).absoluteFilePath().toStdString())));
    return true;
  } catch (const std::exception& e) {
    if (error) *error = what(e);
    return false;
  }
}

bool RunsController::saveAs(const QString& path, QString* error) {
  if (!session_) {
    if (error) *error = tr("no session is open");
    return false;
  }
  try {
    session_->saveAs(QFileInfo(path).absoluteFilePath().toStdString());
  } catch (const std::exception& e) {
    if (error) *error = what(e);
    return false;
  }
  dataVersion_ = -1;
  refresh();
  Q_EMIT sessionChanged(this->path());
  return true;
}

int64_t RunsController::dataVersion() {
  auto lock = session_->store().lock();
  return session_->store().db().queryInt("PRAGMA data_version");
}

void RunsController::refresh() {
  if (!session_) return;
  try {
    dataVersion_ = dataVersion();
    runs_ = sessions::listRuns(session_->store());
  } catch (const std::exception& e) {
    // A file damaged after it was opened: the table keeps what it showed, the next poll tries
    // again.
    qWarning("runs: %s", e.what());
    return;
  }
  Q_EMIT runsChanged(runs_);
}

void RunsController::poll() {
  if (!session_) return;
  try {
    if (dataVersion() == dataVersion_) return;
  } catch (const std::exception&) {
    return;
  }
  refresh();
}

bool RunsController::write(const std::function<void(sessions::RunStore&)>& fn, QString* error) {
  if (!session_) {
    if (error) *error = tr("no session is open");
    return false;
  }
  bool ok = true;
  try {
    fn(session_->store());
  } catch (const std::exception& e) {
    if (error) *error = what(e);
    ok = false;
  }
  refresh();  // also after a failure: another process may have deleted the run meanwhile
  return ok;
}

bool RunsController::tag(const QList<qint64>& runs, const QString& tag, bool remove,
                         QString* error) {
  return write(
      [&](sessions::RunStore& store) {
        for (qint64 run : runs) store.requireRun(run);
        for (qint64 run : runs)
          if (remove)
            store.removeTag(run, tag.toStdString());
          else
            store.addTag(run, tag.toStdString());
      },
      error);
}

bool RunsController::note(const QList<qint64>& runs, const QString& text, QString* error) {
  return write(
      [&](sessions::RunStore& store) {
        for (qint64 run : runs) store.requireRun(run);
        for (qint64 run : runs) store.addNote(run, text.toStdString());
      },
      error);
}

bool RunsController::rename(qint64 run, const QString& name, QString* error) {
  return write(
      [&](sessions::RunStore& store) {
        auto lock = store.lock();
        // Old name out and new name in together: no reader ever sees a run with two names.
        sessions::Transaction tx(store.db());
        for (const std::string& tag : sessions::getRun(store, run).tags)
          if (tag.rfind(views::kRunNameTagPrefix, 0) == 0) store.removeTag(run, tag);
        if (!name.isEmpty()) store.addTag(run, views::runNameTag(name).toStdString());
        tx.commit();
      },
      error);
}

bool RunsController::remove(const QList<qint64>& runs, QString* error) {
  return write(
      [&](sessions::RunStore& store) {
        for (qint64 run : runs) store.requireRun(run);  // all or none, as `doppler runs delete`
        for (qint64 run : runs) store.deleteRun(run);
      },
      error);
}

views::RunComparison RunsController::comparison(const QList<qint64>& ids, QString* error) {
  views::RunComparison c;
  if (!session_) return c;
  try {
    sessions::RunStore& store = session_->store();
    std::vector<std::vector<sessions::SeriesInfo>> series;
    for (qint64 id : ids) {
      c.runs.push_back(sessions::getRun(store, id));
      series.push_back(sessions::listSeries(store, id));
      std::optional<sessions::TimelineRecord> timeline;
      for (sessions::TimelineRecord& t : sessions::loadTimelines(store, id))
        if (!timeline || (t.label == "simulated" && timeline->label != "simulated"))
          timeline = std::move(t);
      c.timelines.push_back(std::move(timeline));
    }
    // Every series any run has, for the compare window's picker; the chosen one shows first.
    for (size_t r = 0; r < series.size(); ++r)
      for (const sessions::SeriesInfo& info : series[r]) {
        std::vector<sessions::Series>& perRun = c.all_series[info.name];
        perRun.resize(ids.size());
        perRun[r] = sessions::loadSeries(store, ids[static_cast<int>(r)], info.name);
      }
    c.series_name = chooseSeries(series);
    if (!c.series_name.empty()) c.series = c.all_series[c.series_name];
    // As `doppler runs compare`: each placement against the first run's.
    for (int i = 1; i < ids.size(); ++i)
      c.diffs.push_back(sessions::placementDiff(store, ids.front(), ids[i]));
  } catch (const std::exception& e) {
    if (error) *error = what(e);
    return {};
  }
  return c;
}

}  // namespace doppler::studio
