#pragma once
// Runs search methods (local search: thousands of simulations) off the GUI thread. One job at a
// time on its own QThread; progress and the result leave by queued signals tagged with the job's
// id, so the document can drop results of jobs it superseded. Cancel by setting the job's flag.
#include <QObject>
#include <atomic>
#include <memory>

#include "app/studio/placement_compute.h"

namespace doppler::studio {

struct PlacementJob {
  int id = 0;
  PlacementInputs inputs;
  views::PlacementSettings settings;
  views::SnapshotPtr previous;
  std::shared_ptr<std::atomic<bool>> cancel;
};

class PlacementWorker : public QObject {
  Q_OBJECT
 public:
  using QObject::QObject;

  // Called through QMetaObject::invokeMethod on the worker's thread.
  void run(const PlacementJob& job);

 Q_SIGNALS:
  void progress(int id, long done, long total, double best_us);
  void finished(int id, doppler::views::SnapshotPtr snapshot, QString error);
};

}  // namespace doppler::studio
