#pragma once
// Run > Execute on CPU / GPU: the current placement run for real (execute_job.h) on the job
// runner's Execution slot, and Run > Cancel Execution. The measured run goes to the timeline
// (measured() until the next placement) and the node details.
#include <QObject>
#include <functional>

#include "core/common/cancel_token.h"
#include "views/common/measured_run.h"

namespace doppler::studio {

class MainWindow;

class ExecutionPage : public QObject {
  Q_OBJECT
 public:
  using Execute = std::function<views::MeasuredRun(const views::SnapshotPtr&, const CancelToken&)>;

  explicit ExecutionPage(MainWindow* window);

  void executeOnCpu();
  void executeOnGpu();
  // Runs `execute` on the Execution slot and shows its measured run (`where`: "CPU", "GPU").
  void start(const QString& where, Execute execute);
  views::MeasuredRunPtr measured() const;

 private:
  MainWindow* window_;
};

}  // namespace doppler::studio
