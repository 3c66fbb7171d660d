#include "views/stepper/device_choice_model.h"

#include <QFont>
#include <algorithm>

#include "views/common/theme.h"
#include "views/stepper/score_scale.h"

namespace doppler::views {

void DeviceChoiceModel::setStep(std::shared_ptr<const DeviceSet> devices,
                                std::shared_ptr<const DecisionTrace> trace, int step) {
  std::vector<Row> rows;
  bool overridden = false;
  if (trace && step >= 0 && step < static_cast<int>(trace->steps.size())) {
    const DecisionStep& decision = trace->steps[step];
    overridden = decision.device_overridden;
    std::vector<double> scores;
    for (const DeviceScore& d : decision.devices) {
      if (d.device < 0) continue;
      rows.push_back({d, 1, d.device == decision.device});
      scores.push_back(d.score);
    }
    const std::vector<double> fractions = barFractions(scores, trace->device_higher_better);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].fraction = fractions[i];
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& a, const Row& b) { return a.score.device < b.score.device; });
  }
  replaceRows(std::move(rows), ColumnCount, [&] {
    devices_ = std::move(devices);
    trace_ = std::move(trace);
    overridden_ = overridden;
  });
}

void DeviceChoiceModel::clear() {
  setStep(nullptr, nullptr, 0);
}

int DeviceChoiceModel::deviceAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[row].score.device : -1;
}

int DeviceChoiceModel::chosenRow() const {
  for (size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].chosen) return static_cast<int>(r);
  return -1;
}

QString DeviceChoiceModel::deviceName(int device) const {
  if (devices_ && device < devices_->size() && !devices_->devices[device].name.empty())
    return QString::fromStdString(devices_->devices[device].name);
  return QStringLiteral("dev%1").arg(device);
}

bool DeviceChoiceModel::joinWaits(const DeviceScore& d, double share) {
  // The look-ahead adds transfers to the finish, so equal means no wait.
  return d.join_us >= 0 &&
         d.join_us - d.est_finish_us > std::max(share, 1e-9) * std::max(1.0, d.est_finish_us);
}

int DeviceChoiceModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant DeviceChoiceModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& row = rows_[index.row()];
  const DeviceScore& d = row.score;
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case DeviceColumn:
          return deviceName(d.device);
        case ScoreColumn:
          return formatScore(d.score, trace_->device_score);
        case StartColumn:
          return formatDuration(d.est_start_us);
        case FinishColumn:
          return formatDuration(d.est_finish_us);
        case JoinColumn:
          return d.join_us >= 0 ? formatDuration(d.join_us) : QString();
      }
      return {};
    case Qt::ForegroundRole:
      if (index.column() == JoinColumn && joinWaits(d, kVisibleWait))
        return Theme::current().critical;
      return {};
    case Qt::DecorationRole:
      return index.column() == DeviceColumn ? QVariant(Theme::deviceColor(d.device)) : QVariant();
    case Qt::ToolTipRole: {
      QString tip = tr("<b>%1</b><br>%2: %3<br>estimated start %4, finish %5")
                        .arg(deviceName(d.device).toHtmlEscaped(),
                             scoreCaption(trace_->device_score, trace_->device_higher_better),
                             formatScore(d.score, trace_->device_score), formatTime(d.est_start_us),
                             formatTime(d.est_finish_us));
      if (d.join_us >= 0)
        tip += joinWaits(d)
                   ? tr("<br>its successors' inputs could meet at %1: %2 after it "
                        "finishes (a successor would wait for a transfer)")
                         .arg(formatTime(d.join_us), formatDuration(d.join_us - d.est_finish_us))
                   : tr("<br>its successors' inputs could meet as it finishes");
      if (row.chosen)
        tip += overridden_ ? tr("<br>chosen here by an override") : tr("<br>the method's choice");
      else
        tip += tr("<br>double-click or Enter: put the node here instead");
      return tip;
    }
    case Qt::TextAlignmentRole:
      return index.column() == DeviceColumn
                 ? QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter)
                 : QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter);
    case Qt::FontRole:
      if (row.chosen) {
        QFont bold;
        bold.setBold(true);
        return bold;
      }
      return {};
    case Qt::BackgroundRole:
      return row.chosen ? QVariant(stepAccentTint(38)) : QVariant();
    case BarFractionRole:
      return row.fraction;
    case BarColorRole: {
      QColor c = Theme::deviceColor(d.device);
      c.setAlpha(row.chosen ? 170 : 95);
      return c;
    }
    case ChosenRole:
      return row.chosen;
    case ItemIndexRole:
      return d.device;
    case ScoreValueRole:
      return d.score;
  }
  return {};
}

QVariant DeviceChoiceModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation != Qt::Horizontal) return {};
  if (role == Qt::DisplayRole) {
    switch (section) {
      case DeviceColumn:
        return tr("Device");
      case ScoreColumn:
        return tr("Score");
      case StartColumn:
        return tr("Start");
      case FinishColumn:
        return tr("Finish");
      case JoinColumn:
        return tr("Join");
    }
  }
  if (role == Qt::ToolTipRole && section == StartColumn)
    return tr("Estimated start of the node on this device, in the plan so far");
  if (role == Qt::ToolTipRole && section == FinishColumn)
    return tr("Estimated finish of the node on this device, in the plan so far");
  if (role == Qt::ToolTipRole && section == JoinColumn)
    return tr(
        "Join look-ahead: the earliest time at which the node's output and the placed inputs "
        "of each of its successors could all be on one device, if the node ran here. Later "
        "than the finish (highlighted) where a successor's inputs would be split across devices");
  if (role == Qt::ToolTipRole && section == ScoreColumn && trace_)
    return scoreCaption(trace_->device_score, trace_->device_higher_better);
  return {};
}

}  // namespace doppler::views
