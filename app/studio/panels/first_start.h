#pragma once
// The studio's first start: a new user's default session does not exist yet, so the demo session
// made at build time (resources/cmake/make_demo_session.cmake: the LLaMA block placed by three
// heuristics and a short finished training) is copied there, with its policy checkpoint, and the
// window opens on it (MainWindow::showFirstStart arranges the docks). Plain functions over files
// and the run store; the window only calls them.
#include <QString>
#include <cstdint>
#include <vector>

#include "core/train/train_progress.h"
#include "sessions/records.h"
#include "sessions/run_store.h"

namespace doppler::studio {

// The demo session shipped with this studio: the build tree's when running from it, else the
// installed one (<prefix>/share/doppler-studio/, beside the executable's bin/). Empty when there
// is none (a build without the demo: the studio then starts as it always did).
QString shippedDemoSession();

// Copies the demo session (and demo-policy.pt beside it) to the user's default session when
// DOPPLER_STUDIO_DB is not set and the default session does not exist yet. The copy's training
// runs get their checkpoint recorded at the copied file, so "start from a stored run" finds it
// wherever the build tree goes. Returns true when it copied; false (the user's files untouched)
// otherwise, with a reason in `error` only when a copy was due and failed.
bool installDemoSession(QString* error = nullptr, const QString& demo = shippedDemoSession());

// A stored training run's metric series as the reports a live run would have sent, in step
// order, so the dashboard draws a finished run exactly as it drew it live.
std::vector<train::TrainProgress> storedTrainingReports(sessions::RunStore& store,
                                                        const sessions::RunInfo& run);

}  // namespace doppler::studio
