#pragma once
// The device decision at one step of a decision trace: one row per device, in device order, with
// the method's score for putting the chosen node there (PLC's probability or the heuristic's key)
// as a bar against the best, the estimated start and finish in the plan so far, and the join
// look-ahead (when the node's output and its successors' placed inputs could first be together;
// drawn in the critical colour where that is visibly later than the finish, i.e. a successor
// would wait for a transfer). The chosen device's row is flagged (bold, tinted, ChosenRole).
#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "core/graph/device_set.h"
#include "core/heuristics/decision_trace.h"
#include "views/stepper/step_rows_model.h"

namespace doppler::views {

struct DeviceChoiceRow {
  DeviceScore score;
  double fraction = 1;
  bool chosen = false;
};

class DeviceChoiceModel : public StepRowsModel<DeviceChoiceRow> {
  Q_OBJECT
 public:
  // The shortest wait highlighted, as a share of the finish: three significant digits show it.
  static constexpr double kVisibleWait = 0.005;
  // A successor would wait for a transfer: the join is later than the finish by more than
  // `share` of it.
  static bool joinWaits(const DeviceScore& d, double share = 0);
  enum Column { DeviceColumn, ScoreColumn, StartColumn, FinishColumn, JoinColumn, ColumnCount };
  using StepRowsModel::StepRowsModel;

  // Shows trace->steps[step]'s devices; a step past the last decision (or no trace) shows none.
  // Rows are updated in place, so a view keeps its current row.
  void setStep(std::shared_ptr<const DeviceSet> devices, std::shared_ptr<const DecisionTrace> trace,
               int step);
  void clear();

  int deviceAt(int row) const;  // -1 outside the rows
  int chosenRow() const;
  bool overridden() const { return overridden_; }  // the chosen device was forced here

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  using Row = DeviceChoiceRow;
  QString deviceName(int device) const;

  std::shared_ptr<const DeviceSet> devices_;
  std::shared_ptr<const DecisionTrace> trace_;
  bool overridden_ = false;
};

}  // namespace doppler::views
