// MainWindow, Run > Execute on CPU / GPU: the current placement run for real (execute_job.h) on
// the job runner's Execution slot; the measured run goes to the timeline and the node details.
#include <QStatusBar>
#include <QTextBrowser>
#include <memory>

#include "app/studio/execute_job.h"
#include "app/studio/job_runner.h"
#include "app/studio/main_window.h"
#include "app/studio/studio_document.h"
#include "views/common/node_details.h"
#include "views/common/selection_state.h"
#include "views/common/theme.h"
#include "views/timeline/timeline_view.h"

namespace doppler::studio {

using views::MeasuredRunPtr;

void MainWindow::executeOnCpu() {
  startExecution(tr("CPU"), &studio::executeOnCpu);
}

void MainWindow::executeOnGpu() {
  startExecution(tr("GPU"), &studio::executeOnGpu);
}

void MainWindow::startExecution(
    const QString& where,
    std::function<views::MeasuredRun(const views::SnapshotPtr&, const CancelToken&)> execute) {
  const views::SnapshotPtr snapshot = document_->snapshot();
  if (!snapshot || !snapshot->graph) return;
  statusBar()->showMessage(tr("Executing %1 on %2 %3 devices…")
                               .arg(QString::fromStdString(snapshot->settings.method))
                               .arg(snapshot->devices->size())
                               .arg(where));
  jobs_->start<MeasuredRunPtr>(
      JobSlot::Execution,
      [snapshot, execute](const JobContext& ctx) -> MeasuredRunPtr {
        return std::make_shared<const views::MeasuredRun>(execute(snapshot, ctx.cancel()));
      },
      [this](MeasuredRunPtr run) {
        if (!run || run->snapshot != document_->snapshot()) return;  // placed again meanwhile
        timelineView_->setMeasured(run);
        if (selection_->selected() >= 0) details_->setHtml(detailsHtml(selection_->selected()));
        statusBar()->showMessage(tr("Measured %1 (median of %2), simulated %3: error %4%")
                                     .arg(views::formatDuration(run->schedule.makespan_us))
                                     .arg(run->repeat())
                                     .arg(views::formatDuration(run->simulatedMakespan()))
                                     .arg(QString::asprintf("%+.1f", run->errorPercent())),
                                 8000);
      },
      [this, where](const QString& message) {
        showError(tr("Execute on %1: %2").arg(where, message));
      });
}

views::MeasuredRunPtr MainWindow::measured() const {
  return timelineView_->measured();
}

QString MainWindow::detailsHtml(int node) const {
  const views::SnapshotPtr s = document_->snapshot();
  if (!s || node < 0) return views::noNodeSelectedHtml();
  QString html = views::nodeDetailsHtml(*s, node);
  if (const MeasuredRunPtr run = timelineView_->measured(); run && run->snapshot == s)
    html += views::measuredNodeHtml(*run, node);
  return html;
}

}  // namespace doppler::studio
