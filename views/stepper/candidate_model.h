#pragma once
// The ready set at one step of a decision trace, ranked best first by the method's score (ties:
// the chosen node first, then the method's own order), one row per candidate: node id, op, score
// with a bar against the best. The chosen node's row is flagged (bold, tinted, ChosenRole).
#include <QAbstractTableModel>
#include <memory>
#include <vector>

#include "core/graph/dataflow_graph.h"
#include "core/heuristics/decision_trace.h"
#include "views/stepper/step_rows_model.h"

namespace doppler::views {

struct CandidateRow {
  int node = -1;
  double score = 0, fraction = 1;
  bool chosen = false;
};

class CandidateModel : public StepRowsModel<CandidateRow> {
  Q_OBJECT
 public:
  enum Column { NodeColumn, OpColumn, ScoreColumn, ColumnCount };
  using StepRowsModel::StepRowsModel;

  // Shows trace->steps[step]'s ready set; a step past the last decision (or no trace) shows none.
  // Rows are updated in place (inserted, removed, changed), so a view keeps its current row.
  void setStep(std::shared_ptr<const DataflowGraph> graph,
               std::shared_ptr<const DecisionTrace> trace, int step);
  void clear();

  int nodeAt(int row) const;                       // -1 outside the rows
  int rowOfNode(int node) const;                   // -1 when the node is not a candidate
  int chosenRow() const;                           // -1 when there is no decision at this step
  bool overridden() const { return overridden_; }  // the chosen node was forced here

  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role) const override;

 private:
  using Row = CandidateRow;
  std::shared_ptr<const DataflowGraph> graph_;
  std::shared_ptr<const DecisionTrace> trace_;
  bool overridden_ = false;
};

}  // namespace doppler::views
