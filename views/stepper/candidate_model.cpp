#include "views/stepper/candidate_model.h"

#include <QFont>
#include <algorithm>

#include "views/stepper/score_scale.h"

namespace doppler::views {

void CandidateModel::setStep(std::shared_ptr<const DataflowGraph> graph,
                             std::shared_ptr<const DecisionTrace> trace, int step) {
  std::vector<Row> rows;
  bool overridden = false;
  if (graph && trace && step >= 0 && step < static_cast<int>(trace->steps.size())) {
    const DecisionStep& decision = trace->steps[step];
    overridden = decision.node_overridden;
    std::vector<double> scores;
    for (const CandidateScore& c : decision.ready) {
      if (c.node < 0 || c.node >= graph->nodeCount()) continue;
      rows.push_back({c.node, c.score, 1, c.node == decision.node});
      scores.push_back(c.score);
    }
    const std::vector<double> fractions = barFractions(scores, trace->node_higher_better);
    for (size_t i = 0; i < rows.size(); ++i) rows[i].fraction = fractions[i];
    const bool higher = trace->node_higher_better;
    std::stable_sort(rows.begin(), rows.end(), [higher](const Row& a, const Row& b) {
      if (a.score != b.score) return higher ? a.score > b.score : a.score < b.score;
      return a.chosen && !b.chosen;
    });
  }
  replaceRows(std::move(rows), ColumnCount, [&] {
    graph_ = std::move(graph);
    trace_ = std::move(trace);
    overridden_ = overridden;
  });
}

void CandidateModel::clear() {
  setStep(nullptr, nullptr, 0);
}

int CandidateModel::nodeAt(int row) const {
  return row >= 0 && row < static_cast<int>(rows_.size()) ? rows_[row].node : -1;
}

int CandidateModel::rowOfNode(int node) const {
  for (size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].node == node) return static_cast<int>(r);
  return -1;
}

int CandidateModel::chosenRow() const {
  for (size_t r = 0; r < rows_.size(); ++r)
    if (rows_[r].chosen) return static_cast<int>(r);
  return -1;
}

int CandidateModel::columnCount(const QModelIndex& parent) const {
  return parent.isValid() ? 0 : ColumnCount;
}

QVariant CandidateModel::data(const QModelIndex& index, int role) const {
  if (!checkIndex(index, CheckIndexOption::IndexIsValid | CheckIndexOption::ParentIsInvalid))
    return {};
  const Row& row = rows_[index.row()];
  const Node& node = graph_->node(row.node);
  switch (role) {
    case Qt::DisplayRole:
      switch (index.column()) {
        case NodeColumn:
          return QString::fromStdString(node.id);
        case OpColumn:
          return QString::fromStdString(node.op);
        case ScoreColumn:
          return formatScore(row.score, trace_->node_score);
      }
      return {};
    case Qt::ToolTipRole: {
      QString tip = QStringLiteral("<b>%1</b> (%2)<br>%3: %4")
                        .arg(QString::fromStdString(node.id).toHtmlEscaped(),
                             QString::fromStdString(node.op).toHtmlEscaped(),
                             scoreCaption(trace_->node_score, trace_->node_higher_better),
                             formatScore(row.score, trace_->node_score));
      if (row.chosen)
        tip += overridden_ ? tr("<br>chosen here by an override") : tr("<br>the method's choice");
      else
        tip += tr("<br>double-click or Enter: take this node instead");
      return tip;
    }
    case Qt::TextAlignmentRole:
      return index.column() == ScoreColumn ? QVariant::fromValue(Qt::AlignRight | Qt::AlignVCenter)
                                           : QVariant::fromValue(Qt::AlignLeft | Qt::AlignVCenter);
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
    case BarColorRole:
      return row.chosen ? stepAccentTint(150) : stepAccentTint(80);
    case ChosenRole:
      return row.chosen;
    case ItemIndexRole:
      return row.node;
    case ScoreValueRole:
      return row.score;
  }
  return {};
}

QVariant CandidateModel::headerData(int section, Qt::Orientation orientation, int role) const {
  if (orientation == Qt::Vertical) {
    if (role == Qt::DisplayRole && section >= 0 && section < static_cast<int>(rows_.size()))
      return section + 1;  // the rank
    return {};
  }
  if (role == Qt::DisplayRole) {
    switch (section) {
      case NodeColumn:
        return tr("Node");
      case OpColumn:
        return tr("Op");
      case ScoreColumn:
        return tr("Score");
    }
  }
  if (role == Qt::ToolTipRole && section == ScoreColumn && trace_)
    return scoreCaption(trace_->node_score, trace_->node_higher_better);
  return {};
}

}  // namespace doppler::views
