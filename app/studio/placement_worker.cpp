#include "app/studio/placement_worker.h"

#include <exception>

namespace doppler::studio {

void PlacementWorker::run(const PlacementJob& job) {
  if (job.cancel && job.cancel->load()) {
    Q_EMIT finished(job.id, nullptr, QString());
    return;
  }
  try {
    auto snapshot = computePlacement(
        job.inputs, job.settings, job.cancel.get(),
        [this, id = job.id](const Progress& p) {
          Q_EMIT progress(id, p.done, p.total, p.best_makespan_us);
        },
        job.previous.get());
    Q_EMIT finished(job.id, snapshot, QString());
  } catch (const std::exception& e) {
    Q_EMIT finished(job.id, nullptr, QString::fromStdString(e.what()));
  }
}

}  // namespace doppler::studio
