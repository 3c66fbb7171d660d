#pragma once
// The studio's one shortcut table. The menus take their key sequences from it, the views match
// key presses against it, and the `?` overlay lists it, so the three never disagree.
#include <QKeySequence>
#include <QList>
#include <QString>
#include <vector>

class QKeyEvent;

namespace doppler::views {

enum class Command {
  None,  // a row that only documents a mouse gesture
  // Files
  Open,
  OpenDevices,
  Generate,
  CopyImage,
  Quit,
  // Graph view
  GraphZoomIn,
  GraphZoomOut,
  GraphZoomReset,
  Fit,
  Find,
  CriticalPath,
  FlipLayout,
  ClearSelection,
  // Timeline
  TimelineZoomIn,
  TimelineZoomOut,
  TimelinePanEarlier,
  TimelinePanLater,
  TimelineColour,
  TimelineZoomToRange,
  TimelineZoomBack,
  // Decision stepper
  StepNext,
  StepPrevious,
  StepFirst,
  StepLast,
  StepPlay,
  StepUndo,
  StepRedo,
  // Run
  ExecuteOnCpu,
  ExecuteOnGpu,
  // Studio
  Presentation,
  LeavePresentation,
  PresentOtherView,
  DarkTheme,
  Help,
  FleetPerspective,
};

struct Shortcut {
  Command command = Command::None;
  QString section;           // "Files", "Graph view", ...
  QList<QKeySequence> keys;  // empty for mouse rows
  QString gesture;           // extra text shown before the keys ("Wheel", "Drag")
  QString description;
};

const std::vector<Shortcut>& shortcuts();
const Shortcut& shortcut(Command command);
QList<QKeySequence> keysOf(Command command);
// Whether a key press is one of the command's sequences.
bool matches(const QKeyEvent* event, Command command);
// What the overlay shows in its key column: the gesture, then the keys, as "Wheel, + / -".
QString keysText(const Shortcut& s);

}  // namespace doppler::views
