#pragma once
// The "Runs" dock's content: the session's runs in a sortable table, filtered by text, kind,
// graph and tag, with multi-selection and the actions on it -- tag, note, rename, delete (after
// a confirmation), compare (two or more). The panel never writes the store: it emits what the
// user asked for, and the studio writes and then hands the new rows back with setRuns().
#include <QList>
#include <QSortFilterProxyModel>
#include <QWidget>
#include <vector>

#include "sessions/records.h"

class QComboBox;
class QLabel;
class QLineEdit;
class QPushButton;
class QTableView;

namespace doppler::views {

class RunsTableModel;

// Accepts a run when every set filter matches: the text (case-insensitive, in any column), the
// kind, the graph name and the tag (exactly). An empty filter accepts everything.
class RunsFilterProxy : public QSortFilterProxyModel {
  Q_OBJECT
 public:
  explicit RunsFilterProxy(QObject* parent = nullptr);
  void setText(const QString& text);
  void setKind(const QString& kind);
  void setGraph(const QString& graph);
  void setTag(const QString& tag);

 protected:
  bool filterAcceptsRow(int sourceRow, const QModelIndex& sourceParent) const override;

 private:
  QString text_, kind_, graph_, tag_;
};

class RunsPanel : public QWidget {
  Q_OBJECT
 public:
  explicit RunsPanel(QWidget* parent = nullptr);

  // Updates the table in place (selection kept) and the filters' choices.
  void setRuns(std::vector<sessions::RunInfo> runs);
  RunsTableModel* model() const { return model_; }
  RunsFilterProxy* proxy() const { return proxy_; }
  QTableView* table() const { return table_; }
  // The height that shows the filter bar, the table's header and up to `rows` of its rows and
  // the count line: a panel below the views asks for no more (a demo session's four runs do not
  // need a third of the window).
  int heightForRows(int rows) const;

  // The selected runs that pass the filters, by id (ascending: the first is the reference a
  // comparison measures the others against, as in `doppler runs compare`).
  QList<qint64> selectedRuns() const;
  void selectRuns(const QList<qint64>& ids);

  // What the buttons do once their dialog is answered (tests call these directly).
  void tagSelected(const QString& tag);  // "-tag" removes it
  void noteSelected(const QString& text);
  void renameSelected(const QString& name);  // empty: removes the name
  // With `confirm`, asks first (a modal question naming the runs).
  void deleteSelected(bool confirm = true);
  void compareSelected();

 Q_SIGNALS:
  void tagRequested(const QList<qint64>& runs, const QString& tag, bool remove);
  void noteRequested(const QList<qint64>& runs, const QString& text);
  void renameRequested(qint64 run, const QString& name);
  void deleteRequested(const QList<qint64>& runs);
  void compareRequested(const QList<qint64>& runs);

 private:
  void updateActions();
  void updateChoices();
  void askTag();
  void askNote();
  void askRename();

  RunsTableModel* model_;
  RunsFilterProxy* proxy_;
  QLineEdit* filter_;
  QComboBox *kind_, *graph_, *tag_;
  QTableView* table_;
  QLabel* count_;
  QPushButton *compare_, *tagButton_, *note_, *rename_, *delete_;
};

}  // namespace doppler::views
