// Executing the placement (execution_page.h).
#include "app/studio/panels/execution_page.h"

#include <QMenu>
#include <QStatusBar>
#include <memory>

#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/execute_job.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/panels/placement_docks.h"
#include "app/studio/window/main_window.h"
#include "core/exec/cuda_backend.h"
#include "views/common/shortcuts.h"
#include "views/common/theme.h"
#include "views/timeline/timeline_view.h"

namespace doppler::studio {

using views::Command;
using views::keysOf;
using views::MeasuredRunPtr;

ExecutionPage::ExecutionPage(MainWindow* window) : QObject(window), window_(window) {
  QMenu* run = window->menu(WindowMenu::Run);
  QAction* cpu = run->addAction(tr("&Execute on CPU"), this, &ExecutionPage::executeOnCpu);
  cpu->setShortcuts(keysOf(Command::ExecuteOnCpu));
  cpu->setObjectName(QStringLiteral("actionExecuteOnCpu"));
  // The CUDA backend, in builds that have it: whether a GPU is there is asked when the menu
  // opens (the CUDA runtime starts then, not with the studio), and the reason shows when none is.
  if (exec::cudaBackendBuiltIn()) {
    QAction* gpu = run->addAction(tr("Execute on &GPU"), this, &ExecutionPage::executeOnGpu);
    gpu->setShortcuts(keysOf(Command::ExecuteOnGpu));
    gpu->setObjectName(QStringLiteral("actionExecuteOnGpu"));
    connect(run, &QMenu::aboutToShow, gpu, [gpu] {
      std::string why;
      const int gpus = exec::cudaDeviceCount(&why);
      gpu->setEnabled(gpus > 0);
      gpu->setText(gpus == 1  ? tr("Execute on &GPU (1 GPU)")
                   : gpus > 1 ? tr("Execute on &GPU (%1 GPUs)").arg(gpus)
                              : tr("Execute on &GPU (%1)").arg(QString::fromStdString(why)));
    });
  }
  JobRunner* jobs = window->jobs();
  QAction* cancel =
      run->addAction(tr("&Cancel Execution"), this, [jobs] { jobs->cancel(JobSlot::Execution); });
  cancel->setObjectName(QStringLiteral("actionCancelExecution"));
  cancel->setEnabled(false);
  connect(jobs, &JobRunner::busyChanged, cancel, [cancel](JobSlot slot, bool busy) {
    if (slot == JobSlot::Execution) cancel->setEnabled(busy);
  });
}

void ExecutionPage::executeOnCpu() {
  start(tr("CPU"), &studio::executeOnCpu);
}

void ExecutionPage::executeOnGpu() {
  start(tr("GPU"), &studio::executeOnGpu);
}

void ExecutionPage::start(const QString& where, Execute execute) {
  const views::SnapshotPtr snapshot = window_->document()->snapshot();
  if (!snapshot || !snapshot->graph) return;
  window_->statusBar()->showMessage(tr("Executing %1 on %2 %3 devices…")
                                        .arg(QString::fromStdString(snapshot->settings.method))
                                        .arg(snapshot->devices->size())
                                        .arg(where));
  window_->jobs()->start<MeasuredRunPtr>(
      JobSlot::Execution,
      [snapshot, execute](const JobContext& ctx) -> MeasuredRunPtr {
        return std::make_shared<const views::MeasuredRun>(execute(snapshot, ctx.cancel()));
      },
      [this](MeasuredRunPtr run) {
        if (!run || run->snapshot != window_->document()->snapshot()) return;  // placed again
        window_->timelineView()->setMeasured(run);
        window_->docks()->refreshDetails();
        window_->statusBar()->showMessage(tr("Measured %1 (median of %2), simulated %3: error %4%")
                                              .arg(views::formatDuration(run->schedule.makespan_us))
                                              .arg(run->repeat())
                                              .arg(views::formatDuration(run->simulatedMakespan()))
                                              .arg(QString::asprintf("%+.1f", run->errorPercent())),
                                          8000);
      },
      [this, where](const QString& message) {
        window_->showError(tr("Execute on %1: %2").arg(where, message));
      });
}

MeasuredRunPtr ExecutionPage::measured() const {
  return window_->timelineView()->measured();
}

}  // namespace doppler::studio
