#pragma once
// File > Generate Workload: the four paper workloads with their parameters (ranges and
// descriptions from core/graph/generators.h).
#include <QDialog>
#include <map>
#include <optional>

#include "core/graph/dataflow_graph.h"

class QComboBox;
class QFormLayout;
class QLabel;
class QDoubleSpinBox;

namespace doppler::studio {

class GenerateDialog : public QDialog {
  Q_OBJECT
 public:
  explicit GenerateDialog(QWidget* parent = nullptr);
  void setKind(const QString& kind);
  void setParam(const QString& name, double value);
  QString kind() const;
  std::map<std::string, double> params() const;
  // The generated graph after accept().
  std::optional<DataflowGraph> graph() const { return graph_; }

  void accept() override;

 private:
  void rebuild();
  QComboBox* kind_;
  QLabel* description_;
  QFormLayout* form_;
  QLabel* error_;
  std::map<std::string, QDoubleSpinBox*> editors_;
  std::optional<DataflowGraph> graph_;
};

}  // namespace doppler::studio
