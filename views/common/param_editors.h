#pragma once
// Editors generated from ParamSpecs (a method's parameters in the tuner, a training run's in the
// training dashboard): one widget per spec, named "param_<name>" so that tests and the studio
// find them, with the spec's description as tooltip and its default as the initial value.
// Values travel as text, as in ParamValues.
#include <QString>
#include <functional>

#include "core/heuristics/method.h"

class QWidget;
class QObject;

namespace doppler::views {

struct ParamEditorOptions {
  // Numbers as the shortest text that round-trips ("3e-04", "0.95", "12.5"), for parameters that
  // span magnitudes (learning rates); otherwise with 2 or 3 fixed decimals, as the tuner shows its
  // weights. Also shows thousands separators in large integers (episode counts).
  bool general_numbers = false;
};

// Number -> QDoubleSpinBox, Integer -> QSpinBox (clamped to int), Choice -> QComboBox,
// Bool -> QCheckBox.
QWidget* createParamEditor(const ParamSpec& spec, const ParamEditorOptions& options = {});
// The editor's value as ParamValues text ("0.5", "3", "earliest-start", "true").
QString paramEditorValue(const QWidget* editor);
void setParamEditorValue(QWidget* editor, const QString& value);
// Calls `changed` (in `context`'s thread, while context lives) whenever the user edits the value.
void onParamEditorChanged(QWidget* editor, QObject* context, std::function<void()> changed);
// Whether two values of a spec mean the same ("0.0003" and "3e-4" do).
bool sameParamValue(const ParamSpec& spec, const QString& a, const QString& b);

}  // namespace doppler::views
