#pragma once
// The screenshots scripts/grab_views.sh saves: every view and the whole window on the demo, then
// with a selection, a range, a tuner change, the help overlay, the dark theme, presentation mode,
// the stepper, training, runs, the fleet workbench and a bad file.
#include <QString>
#include <QStringList>

namespace doppler::studio {

class MainWindow;

// Saves the PNGs into `dir` (created); returns the files written.
QStringList grabViews(MainWindow& window, const QString& dir);

}  // namespace doppler::studio
