#pragma once
// One row per stored run of a session, oldest first (run ids grow with time). The studio lists
// the store and hands the rows in; setRuns() updates in place by run id -- rows inserted, removed
// and changed, never a reset -- so a selection and the scroll position survive the live updates
// that arrive while other processes (the CLI, a training) write the same file.
//
// Runs have no name column in the store: a run's name is the tag "name:<text>" (see
// runNameTag()), so `doppler runs list` shows it among the tags, `doppler runs list --tag
// name:<text>` finds it, older builds read the file unchanged, and a session copied with Save As
// keeps it.
#include <QAbstractTableModel>
#include <QStringList>
#include <vector>

#include "sessions/records.h"
#include "views/models/node_table_model.h"

namespace doppler::views {

// The tag prefix that names a run.
inline constexpr const char* kRunNameTagPrefix = "name:";
QString runNameTag(const QString& name);            // "name:<name>"
QString runName(const sessions::RunInfo& run);      // the name, or "" when the run has none
QStringList runTags(const sessions::RunInfo& run);  // the tags other than the name
// Wall time from start to finish in seconds, or -1 while the run has no finish time.
double runSeconds(const sessions::RunInfo& run);
// makespan_us / lower_bound_us, or NaN when either figure is missing.
double ratioToBound(const sessions::RunInfo& run);
QString formatSeconds(double seconds);

class RunsTableModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Id,
    Name,
    Kind,
    Method,
    Graph,
    Devices,
    Makespan,
    Ratio,
    Status,
    Tags,
    Started,
    Duration,
    ColumnCount
  };
  // The run id of a row (qint64), for any column.
  static constexpr int RunIdRole = Qt::UserRole + 20;

  using QAbstractTableModel::QAbstractTableModel;

  // Updates in place by run id. `runs` may come in any order; rows are kept by id.
  void setRuns(std::vector<sessions::RunInfo> runs);
  const std::vector<sessions::RunInfo>& runs() const { return runs_; }
  const sessions::RunInfo& run(int row) const { return runs_[static_cast<size_t>(row)]; }
  int rowOfRun(int64_t id) const;  // -1 if absent

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  std::vector<sessions::RunInfo> runs_;  // by id
};

}  // namespace doppler::views
