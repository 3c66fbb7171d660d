#include "views/common/shortcuts.h"

#include <QCoreApplication>
#include <QKeyEvent>

namespace doppler::views {
namespace {

QString tr(const char* text) {
  return QCoreApplication::translate("Shortcuts", text);
}
QKeySequence key(int k) {
  return QKeySequence(k);
}

std::vector<Shortcut> build() {
  const QString files = tr("Files"), graph = tr("Graph view"), timeline = tr("Timeline"),
                stepper = tr("Decision stepper"), run = tr("Run"), studio = tr("Studio");
  return {
      {Command::Open,
       files,
       {QKeySequence::Open},
       {},
       tr("open a graph or device file (or drop it on the window)")},
      {Command::OpenDevices,
       files,
       {QKeySequence(tr("Ctrl+Shift+O"))},
       {},
       tr("open a device set")},
      {Command::Generate, files, {QKeySequence(tr("Ctrl+G"))}, {}, tr("generate a paper workload")},
      {Command::CopyImage,
       files,
       {QKeySequence(tr("Ctrl+Shift+C"))},
       {},
       tr("copy a clean image of the focused view")},
      {Command::Quit, files, {QKeySequence(tr("Ctrl+Q"))}, {}, tr("quit")},

      {Command::GraphZoomIn,
       graph,
       {key(Qt::Key_Plus), key(Qt::Key_Equal)},
       tr("Wheel"),
       tr("zoom in at the mouse / the centre")},
      {Command::GraphZoomOut, graph, {key(Qt::Key_Minus)}, {}, tr("zoom out")},
      {Command::GraphZoomReset, graph, {key(Qt::Key_0)}, {}, tr("actual size")},
      {Command::None, graph, {}, tr("Drag, arrows"), tr("pan")},
      {Command::Fit, graph, {key(Qt::Key_F)}, {}, tr("fit the focused view")},
      {Command::Find, graph, {QKeySequence::Find}, {}, tr("find a node by id or op (Enter: next)")},
      {Command::CriticalPath,
       graph,
       {QKeySequence(tr("Ctrl+K"))},
       {},
       tr("critical path overlay on/off")},
      {Command::FlipLayout,
       graph,
       {QKeySequence(tr("Ctrl+L"))},
       {},
       tr("lay the graph out top to bottom / left to right")},
      {Command::ClearSelection,
       graph,
       {key(Qt::Key_Escape)},
       tr("Click"),
       tr("select a node / clear the selection")},
      // Large graphs are drawn as groups; the graph view handles these keys itself.
      {Command::None, graph, {}, tr("E, double-click"), tr("expand the selected group in place")},
      {Command::None, graph, {}, tr("Shift+E, double-click a member"), tr("collapse its group")},
      {Command::None, graph, {}, tr("L"), tr("lay the graph out again")},
      {Command::None, graph, {}, tr("Esc while laying out"), tr("abandon the layout")},

      {Command::TimelineZoomIn,
       timeline,
       {key(Qt::Key_W), key(Qt::Key_Plus), key(Qt::Key_Equal)},
       tr("Wheel"),
       tr("zoom in")},
      {Command::TimelineZoomOut,
       timeline,
       {key(Qt::Key_S), key(Qt::Key_Minus)},
       {},
       tr("zoom out")},
      {Command::TimelinePanEarlier,
       timeline,
       {key(Qt::Key_A), key(Qt::Key_Left)},
       tr("Shift+wheel"),
       tr("pan earlier")},
      {Command::TimelinePanLater,
       timeline,
       {key(Qt::Key_D), key(Qt::Key_Right)},
       {},
       tr("pan later")},
      {Command::None,
       timeline,
       {},
       tr("Drag"),
       tr("select a range: utilization and idle time per device")},
      {Command::None, timeline, {}, tr("Middle drag"), tr("pan")},
      {Command::TimelineZoomToRange,
       timeline,
       {key(Qt::Key_Z)},
       {},
       tr("zoom to the dragged range (the view before it is kept)")},
      {Command::TimelineZoomBack,
       timeline,
       {key(Qt::Key_Backspace)},
       {},
       tr("back to the view before the last zoom to a range")},
      {Command::None, timeline, {}, tr("Ctrl+F"), tr("find a node's bars by id or op")},
      {Command::TimelineColour,
       timeline,
       {key(Qt::Key_C)},
       {},
       tr("colour bars by op kind, device or node")},
      {Command::None, timeline, {}, tr("Esc"), tr("clear the range, then the selection")},

      // Only while the stepper dock has the focus, so the arrows still pan the graph and the
      // timeline when they have it.
      {Command::StepNext, stepper, {key(Qt::Key_Right)}, {}, tr("next decision")},
      {Command::StepPrevious, stepper, {key(Qt::Key_Left)}, {}, tr("previous decision")},
      {Command::StepFirst, stepper, {key(Qt::Key_Home)}, {}, tr("first decision")},
      {Command::StepLast, stepper, {key(Qt::Key_End)}, {}, tr("last decision (episode complete)")},
      {Command::StepPlay, stepper, {key(Qt::Key_Space)}, {}, tr("play / pause (speed: the list)")},
      {Command::None,
       stepper,
       {},
       tr("Double-click, Enter"),
       tr("on another candidate or device: override that decision")},
      {Command::None, stepper, {}, tr("Click"), tr("a ready node in the graph: override")},
      {Command::StepUndo,
       stepper,
       QKeySequence::keyBindings(QKeySequence::Undo),
       {},
       tr("undo an override or a branch switch")},
      {Command::StepRedo,
       stepper,
       QKeySequence::keyBindings(QKeySequence::Redo),
       {},
       tr("redo it")},

      {Command::ExecuteOnCpu,
       run,
       {QKeySequence(tr("Ctrl+E"))},
       {},
       tr("execute the placement on CPU cores (measured timeline)")},
      {Command::ExecuteOnGpu,
       run,
       {QKeySequence(tr("Ctrl+Shift+E"))},
       {},
       tr("execute the placement on NVIDIA GPUs (builds with CUDA, when a GPU is present)")},

      {Command::Presentation,
       studio,
       {key(Qt::Key_F5)},
       {},
       tr("presentation mode (Tab: other view, Esc: leave)")},
      {Command::LeavePresentation, studio, {key(Qt::Key_Escape)}, {}, {}},
      {Command::PresentOtherView, studio, {key(Qt::Key_Tab)}, {}, {}},
      {Command::DarkTheme,
       studio,
       {QKeySequence(tr("Ctrl+Shift+D"))},
       {},
       tr("light / dark theme")},
      {Command::FleetPerspective,
       studio,
       {QKeySequence(tr("Ctrl+Shift+F"))},
       {},
       tr("fleet workbench / back to the placement views")},
      {Command::Help, studio, {key(Qt::Key_Question)}, {}, tr("this help")},
  };
}

}  // namespace

const std::vector<Shortcut>& shortcuts() {
  static const std::vector<Shortcut> table = build();
  return table;
}

const Shortcut& shortcut(Command command) {
  for (const Shortcut& s : shortcuts())
    if (s.command == command) return s;
  static const Shortcut none;
  return none;
}

QList<QKeySequence> keysOf(Command command) {
  return shortcut(command).keys;
}

bool matches(const QKeyEvent* event, Command command) {
  // Shift is part of some keys ("?", "+"): compare the sequence the event makes with and without
  // it.
  const int withModifiers = event->key() | event->modifiers().toInt();
  const int plain = event->key() | (event->modifiers() & ~Qt::ShiftModifier).toInt();
  for (const QKeySequence& k : keysOf(command)) {
    if (k.count() != 1) continue;
    const int wanted = k[0].toCombined();
    if (wanted == withModifiers || wanted == plain) return true;
  }
  return false;
}

QString keysText(const Shortcut& s) {
  QStringList parts;
  if (!s.gesture.isEmpty()) parts << s.gesture;
  QStringList keys;
  for (const QKeySequence& k : s.keys) keys << k.toString(QKeySequence::NativeText);
  if (!keys.isEmpty()) parts << keys.join(QStringLiteral(" / "));
  return parts.join(QStringLiteral(", "));
}

}  // namespace doppler::views
