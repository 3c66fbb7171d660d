#include "app/studio/panels/first_start.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <cmath>
#include <map>

#include "core/common/temporary_name.h"
#include "sessions/file_publish.h"
#include "sessions/queries.h"
#include "sessions/user_paths.h"

namespace doppler::studio {

namespace {

const QString kSessionName = QStringLiteral("demo-session.sqlite");
const QString kCheckpointName = QStringLiteral("demo-policy.pt");

// A scratch name beside `path` no other process uses: two studios making their first start at
// once must not remove or rename each other's half-made copies.
QString scratchBeside(const QString& path) {
  return QString::fromStdString(temporarySibling(path.toStdString()));
}

// Copies through a scratch name and renames, so a copy cut short never passes for a session;
// the result is the user's (writable whatever the shipped file's mode was).
bool copyFile(const QString& from, const QString& to) {
  const QString part = scratchBeside(to);
  if (!QFile::copy(from, part)) return false;
  QFile::setPermissions(part, QFileDevice::ReadOwner | QFileDevice::WriteOwner |
                                  QFileDevice::ReadGroup | QFileDevice::ReadOther);
  if (QFile::rename(part, to)) return true;  // Qt's rename never replaces `to`
  QFile::remove(part);
  return QFileInfo::exists(to);  // put there meanwhile by another first start: the same file
}

}  // namespace

QString shippedDemoSession() {
  // An installed studio reads its own prefix's copy and never looks at the build tree.
  const QString installed =
      QDir(QCoreApplication::applicationDirPath())
          .filePath(QStringLiteral("../share/doppler-studio/") + kSessionName);
  if (QFileInfo::exists(installed)) return QDir::cleanPath(installed);
#ifdef DOPPLER_BUILD_DEMO_SESSION
  const QString built = QStringLiteral(DOPPLER_BUILD_DEMO_SESSION);
  if (QFileInfo::exists(built)) return built;
#endif
  return {};
}

bool installDemoSession(QString* error, const QString& demo) {
  // Tests and scripted runs name their session: theirs is never replaced by a demo.
  if (!qgetenv("DOPPLER_STUDIO_DB").isEmpty() || demo.isEmpty() || !QFileInfo::exists(demo))
    return false;
  try {
    const QString target = QString::fromStdString(sessions::defaultSessionPath());
    if (QFileInfo::exists(target)) return false;  // the user's own session: never overwritten
    sessions::ensureDataDirectory();
    const QDir targetDir = QFileInfo(target).absoluteDir();
    const QString checkpoint = QFileInfo(demo).absoluteDir().filePath(kCheckpointName);
    const QString checkpointCopy = targetDir.filePath(kCheckpointName);
    const bool withCheckpoint = QFileInfo::exists(checkpoint) && !QFileInfo::exists(checkpointCopy);
    if (withCheckpoint && !copyFile(checkpoint, checkpointCopy))
      throw std::runtime_error("cannot copy " + checkpoint.toStdString());
    // The session last: once it exists the next start leaves everything alone.
    const QString part = scratchBeside(target);
    if (!copyFile(demo, part)) throw std::runtime_error("cannot copy " + demo.toStdString());
    {
      sessions::RunStore store(part.toStdString());
      if (QFileInfo::exists(checkpointCopy))
        for (const sessions::RunInfo& run : sessions::listRuns(store, {}))
          if (run.kind == "train") {
            const auto checkpoints = sessions::listCheckpoints(store, run.id);
            store.addCheckpointFile(run.id, checkpointCopy.toStdString(),
                                    checkpoints.empty() ? std::nullopt : checkpoints.back().step,
                                    checkpoints.empty() ? "" : checkpoints.back().label);
          }
    }
    // Never over a session that appeared meanwhile: publishWithoutReplacing is atomic about it
    // (another studio's first start won the race: that one shows the demo, this one opens it).
    return sessions::publishWithoutReplacing(part.toStdString(), target.toStdString());
  } catch (const std::exception& e) {
    if (error)
      *error = QCoreApplication::translate("FirstStart", "The demo session was not copied: %1")
                   .arg(QString::fromUtf8(e.what()));
    return false;
  }
}

std::vector<train::TrainProgress> storedTrainingReports(sessions::RunStore& store,
                                                        const sessions::RunInfo& run) {
  // One report per step of the makespan series; the other series fill in where they have the
  // step (greedy evaluations only at the evaluated ones).
  const sessions::Series makespan = sessions::loadSeries(store, run.id, "makespan_us");
  std::map<std::string, std::map<int64_t, double>> byName;
  for (const char* name :
       {"best_makespan_us", "greedy_makespan_us", "loss", "sel_loss", "plc_loss", "entropy", "lr",
        "epsilon", "episodes_per_s", "baseline_us", "agreement"}) {
    const sessions::Series s = sessions::loadSeries(store, run.id, name);
    auto& values = byName[name];
    for (size_t i = 0; i < s.steps.size(); ++i) values[s.steps[i]] = s.values[i];
  }
  auto value = [&](const char* name, int64_t step, double otherwise) {
    const auto& values = byName[name];
    const auto it = values.find(step);
    return it == values.end() ? otherwise : it->second;
  };
  const auto episodesFigure = run.figures.find("episodes");
  const long episodes =
      episodesFigure != run.figures.end()
          ? static_cast<long>(episodesFigure->second)
          : (makespan.steps.empty() ? 0 : static_cast<long>(makespan.steps.back()));
  const std::string stage = run.params.value("stage", "");
  std::vector<train::TrainProgress> reports;
  reports.reserve(makespan.steps.size());
  for (size_t i = 0; i < makespan.steps.size(); ++i) {
    const int64_t step = makespan.steps[i];
    train::TrainProgress p;
    p.stage = stage == "imitation" ? train::Stage::Imitation : train::Stage::Simulation;
    p.episode = static_cast<long>(step);
    p.episodes = episodes;
    // Distillation reports continue the step axis after the episodes.
    p.distill_update = step > episodes ? static_cast<long>(step - episodes) : 0;
    p.makespan_us = makespan.values[i];
    p.best_makespan_us = value("best_makespan_us", step, NAN);
    p.greedy_makespan_us = value("greedy_makespan_us", step, NAN);
    p.evaluated = std::isfinite(p.greedy_makespan_us);
    p.loss = value("loss", step, 0);
    p.sel_loss = value("sel_loss", step, 0);
    p.plc_loss = value("plc_loss", step, 0);
    p.entropy = value("entropy", step, 0);
    p.lr = value("lr", step, 0);
    p.epsilon = value("epsilon", step, 0);
    p.episodes_per_s = value("episodes_per_s", step, 0);
    p.baseline_us = value("baseline_us", step, NAN);
    p.agreement = value("agreement", step, NAN);
    reports.push_back(std::move(p));
  }
  return reports;
}

}  // namespace doppler::studio
