// Layout requests (layout_requests.h).
#include "app/studio/jobs/layout_requests.h"

#include <QStatusBar>

#include "app/studio/jobs/job_runner.h"
#include "app/studio/jobs/layout_job.h"
#include "app/studio/window/main_window.h"
#include "views/graph/graph_view.h"

namespace doppler::studio {

using views::GraphView;
using views::layoutEngineFor;
using views::LayoutInput;

LayoutRequests::LayoutRequests(MainWindow* window)
    : QObject(window), window_(window), cache_(std::make_shared<LayoutCache>()) {
  GraphView* graphView = window->graphView();
  connect(graphView, &GraphView::layoutRequested, this,
          [this](std::shared_ptr<const LayoutInput> input) {
            window_->statusBar()->showMessage(
                tr("Laying out %1 nodes with Graphviz %2… (Esc cancels)")
                    .arg(input->nodeCount())
                    .arg(QString::fromLatin1(layoutEngineFor(input->nodeCount()))));
            window_->jobs()->start<LayoutOutcome>(
                JobSlot::Layout,
                // The job holds the cache: the window's members go before its child JobRunner
                // joins the layout thread, and an abandoned layout may still be finishing.
                [cache = cache_, input](const JobContext& ctx) {
                  return runLayout(*cache, *input, ctx.cancel());
                },
                [this](LayoutOutcome outcome) {
                  if (!outcome.result) return;
                  window_->graphView()->setLayoutResult(outcome.result);
                  if (!outcome.result->error.isEmpty()) window_->showError(outcome.result->error);
                  const QString engine = outcome.result->engine.isEmpty()
                                             ? tr("grid")
                                             : tr("Graphviz %1").arg(outcome.result->engine);
                  status_ = outcome.cached ? tr("layout from cache")
                                           : tr("%1 layout of %2 nodes %3 s")
                                                 .arg(engine)
                                                 .arg(outcome.result->centers.size())
                                                 .arg(outcome.result->seconds, 0, 'f', 2);
                  window_->statusBar()->showMessage(status_, 8000);
                },
                [this](const QString& error) { window_->showError(error); });
          });
  // Abandoned: the Graphviz call cannot be interrupted, so the layout thread finishes it in the
  // background (and caches it); its delivery is dropped. A later layout waits for that call.
  connect(graphView, &GraphView::layoutCancelRequested, this, [this] {
    window_->jobs()->abandon(JobSlot::Layout);
    window_->statusBar()->showMessage(tr("Layout abandoned; the view keeps what it showed"), 8000);
  });
}

}  // namespace doppler::studio
