#include "runs_table_model.h"

#include <QDateTime>
#include <QTimeZone>
#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

#include "views/common/theme.h"

namespace doppler::views {

namespace {

constexpr double kMissing = std::numeric_limits<double>::infinity();

QString q(const std::string& s) {
  return QString::fromStdString(s);
}

QDateTime parseTime(const std::string& iso) {
  QDateTime t = QDateTime::fromString(q(iso), Qt::ISODateWithMs);
  if (!t.isValid()) t = QDateTime::fromString(q(iso), Qt::ISODate);
  return t;
}

std::optional<double> figure(const sessions::RunInfo& run, const char* name) {
  const auto it = run.figures.find(name);
  if (it == run.figures.end() || std::isnan(it->second)) return std::nullopt;
  return it->second;
}

// What a row shows and sorts by; two runs with equal keys need no dataChanged.
bool sameRow(const sessions::RunInfo& a, const sessions::RunInfo& b) {
  return a.kind == b.kind && a.method == b.method && a.status == b.status &&
         a.graph_name == b.graph_name && a.device_set_name == b.device_set_name &&
         a.device_count == b.device_count && a.node_count == b.node_count &&
         a.started_at == b.started_at && a.finished_at == b.finished_at && a.figures == b.figures &&
         a.tags == b.tags && a.error == b.error && a.params == b.params &&
         a.parent_id == b.parent_id;
}

}  // namespace

QString runNameTag(const QString& name) {
  return QString::fromLatin1(kRunNameTagPrefix) + name;
}

QString runName(const sessions::RunInfo& run) {
  const std::string prefix = kRunNameTagPrefix;
  for (const std::string& tag : run.tags)
    if (tag.rfind(prefix, 0) == 0) return q(tag.substr(prefix.size()));
  return {};
}

QStringList runTags(const sessions::RunInfo& run) {
  const std::string prefix = kRunNameTagPrefix;
  QStringList tags;
  for (const std::string& tag : run.tags)
    if (tag.rfind(prefix, 0) != 0) tags << q(tag);
  return tags;
}

double runSeconds(const sessions::RunInfo& run) {
  if (run.finished_at.empty()) return -1;
  const QDateTime start = parseTime(run.started_at), finish = parseTime(run.finished_at);
  if (!start.isValid() || !finish.isValid()) return -1;
  return static_cast<double>(start.msecsTo(finish)) / 1000.0;
}

double ratioToBound(const sessions::RunInfo& run) {
  const auto makespan = figure(run, "makespan_us"), bound = figure(run, "lower_bound_us");
  if (!makespan || !bound || *bound <= 0) return std::numeric_limits<double>::quiet_NaN();
  return *makespan / *bound;
}

QString formatSeconds(double seconds) {
  if (seconds < 0 || std::isnan(seconds)) return QStringLiteral("–");
  if (seconds < 60) return QStringLiteral("%1 s").arg(seconds, 0, 'f', seconds < 10 ? 2 : 1);
  const auto total = static_cast<long long>(std::llround(seconds));
  if (total < 3600) return QStringLiteral("%1 min %2 s").arg(total / 60).arg(total % 60);
  return QStringLiteral("%1 h %2 min").arg(total / 3600).arg((total % 3600) / 60);
}

void RunsTableModel::setRuns(std::vector<sessions::RunInfo> runs) {
  std::sort(runs.begin(), runs.end(),
            [](const sessions::RunInfo& a, const sessions::RunInfo& b) { return a.id < b.id; });
  // Removals first, from the back so earlier row numbers stay valid; a contiguous stretch of
  // gone runs is one removal.
  std::unordered_set<int64_t> ids;
  for (const sessions::RunInfo& run : runs) ids.insert(run.id);
  auto kept = [&](int64_t id) { return ids.count(id) > 0; };
  for (int row = static_cast<int>(runs_.size()) - 1; row >= 0;) {
    if (kept(runs_[static_cast<size_t>(row)].id)) {
      --row;
      continue;
    }
    int first = row;
    while (first > 0 && !kept(runs_[static_cast<size_t>(first - 1)].id)) --first;
    beginRemoveRows({}, first, row);
    runs_.erase(runs_.begin() + first, runs_.begin() + row + 1);
    endRemoveRows();
    row = first - 1;
  }
  // Then a merge of two id-ordered lists: new runs are inserted where their id belongs (a
  // stretch of consecutive new runs in one insertion), known runs are updated where they differ.
  size_t row = 0;
  for (size_t i = 0; i < runs.size();) {
    if (row < runs_.size() && runs_[row].id == runs[i].id) {
      if (!sameRow(runs_[row], runs[i])) {
        runs_[row] = std::move(runs[i]);
        Q_EMIT dataChanged(index(static_cast<int>(row), 0),
                           index(static_cast<int>(row), ColumnCount - 1));
      }
      ++row;
      ++i;
      continue;
    }
    // runs[i] is new: it and the new runs after it go before runs_[row].
    size_t end = i;
    while (end < runs.size() && (row >= runs_.size() || runs[end].id < runs_[row].id)) ++end;
    beginInsertRows({}, static_cast<int>(row), static_cast<int>(row + (end - i) - 1));
    runs_.insert(runs_.begin() + static_cast<std::ptrdiff_t>(row),
                 std::make_move_iterator(runs.begin() + static_cast<std::ptrdiff_t>(i)),
                 std::make_move_iterator(runs.begin() + static_cast<std::ptrdiff_t>(end)));
    endInsertRows();
    row += end - i;
    i = end;
  }
}

int RunsTableModel::rowOfRun(int64_t id) const {
  const auto it = std::lower_bound(runs_.begin(), runs_.end(), id,
                                   [](const sessions::RunInfo& r, int64_t v) { return r.id < v; });
  return it != runs_.end() && it->id == id ? static_cast<int>(it - runs_.begin()) : -1;
}

int RunsTableModel::rowCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : static_cast<int>(runs_.size());
}

int RunsTableModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant RunsTableModel::data(const QModelIndex& index, int role) const {
  if (!index.isValid() || index.row() >= rowCount() || index.column() >= ColumnCount) return {};
  const sessions::RunInfo& run = runs_[static_cast<size_t>(index.row())];
  if (role == RunIdRole) return QVariant::fromValue<qint64>(run.id);
  const auto column = static_cast<Column>(index.column());
  if (role == Qt::TextAlignmentRole) {
    switch (column) {
      case Id:
      case Devices:
      case Makespan:
      case Ratio:
      case Duration:
        return QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
      default:
        return QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
    }
  }
  if (role == Qt::ToolTipRole) {
    if (column == Status && !run.error.empty()) return q(run.error);
    if (column == Graph && run.graph_id)
      return tr("%1: %2 nodes").arg(q(run.graph_name)).arg(run.node_count);
    if (column == Started) return q(run.started_at);
    return {};
  }
  if (role == Qt::ForegroundRole && column == Status &&
      (run.status == sessions::RunStatus::Failed || run.status == sessions::RunStatus::Interrupted))
    return Theme::current().critical;
  const auto makespan = figure(run, "makespan_us");
  const double ratio = ratioToBound(run);
  const double seconds = runSeconds(run);
  if (role == SortRole) {
    // Raw values, so that 900 µs sorts before 10 ms and run 9 before run 10; a missing figure
    // sorts after every present one.
    switch (column) {
      case Id:
        return QVariant::fromValue<qint64>(run.id);
      case Name:
        return runName(run).toLower();
      case Kind:
        return q(run.kind);
      case Method:
        return q(run.method);
      case Graph:
        return q(run.graph_name).toLower();
      case Devices:
        return run.device_count;
      case Makespan:
        return makespan ? *makespan : kMissing;
      case Ratio:
        return std::isnan(ratio) ? kMissing : ratio;
      case Status:
        return QString::fromLatin1(sessions::toString(run.status));
      case Tags:
        return runTags(run).join(QLatin1Char(',')).toLower();
      case Started:
        return QVariant::fromValue<qint64>(parseTime(run.started_at).toMSecsSinceEpoch());
      case Duration:
        return seconds < 0 ? kMissing : seconds;
      case ColumnCount:
        break;
    }
    return {};
  }
  if (role != Qt::DisplayRole) return {};
  switch (column) {
    case Id:
      return QString::number(run.id);
    case Name:
      return runName(run);
    case Kind:
      return q(run.kind);
    case Method:
      return q(run.method);
    case Graph:
      return run.graph_id ? q(run.graph_name) : QStringLiteral("–");
    case Devices:
      return run.device_set_id
                 ? QStringLiteral("%1 (%2)").arg(q(run.device_set_name)).arg(run.device_count)
                 : QStringLiteral("–");
    case Makespan:
      return makespan ? formatDuration(*makespan) : QStringLiteral("–");
    case Ratio:
      return std::isnan(ratio) ? QStringLiteral("–") : QStringLiteral("%1×").arg(ratio, 0, 'f', 3);
    case Status:
      return QString::fromLatin1(sessions::toString(run.status));
    case Tags:
      return runTags(run).join(QStringLiteral(", "));
    case Started: {
      const QDateTime t = parseTime(run.started_at);
      return t.isValid() ? t.toLocalTime().toString(QStringLiteral("yyyy-MM-dd HH:mm"))
                         : q(run.started_at);
    }
    case Duration:
      if (run.status == sessions::RunStatus::Running) return tr("running…");
      return formatSeconds(seconds);
    case ColumnCount:
      break;
  }
  return {};
}

QVariant RunsTableModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal || role != Qt::DisplayRole) return {};
  static const char* const names[] = {"id",     "name",    "kind",     "method",
                                      "graph",  "devices", "makespan", "÷ bound",
                                      "status", "tags",    "started",  "duration"};
  if (section < 0 || section >= ColumnCount) return {};
  return tr(names[section]);
}

}  // namespace doppler::views
