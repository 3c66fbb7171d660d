#include "views/common/param_editors.h"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QLocale>
#include <QRegularExpression>
#include <QSpinBox>
#include <algorithm>
#include <cmath>

namespace doppler::views {
namespace {

QString numberText(double v) {
  return QString::number(v, 'g', 12);
}

// A spin box that shows "3e-04" or "0.95" rather than "0.000": learning rates run from 1e-6 to
// 1e-2, which fixed decimals either round to zero or pad with noise. Ten decimals keep every value
// a training run is given; the adaptive step moves by a tenth of the value's magnitude.
class GeneralSpinBox : public QDoubleSpinBox {
 public:
  GeneralSpinBox() {
    setDecimals(10);
    setStepType(QAbstractSpinBox::AdaptiveDecimalStepType);
  }
  QString textFromValue(double value) const override {
    QLocale l = locale();
    l.setNumberOptions(QLocale::OmitGroupSeparator);
    return l.toString(value, 'g', 6);
  }
  double valueFromText(const QString& text) const override {
    bool ok = false;
    const double v = locale().toDouble(text.trimmed(), &ok);
    return ok ? v : value();
  }
  QValidator::State validate(QString& text, int&) const override {
    const QString t = text.trimmed();
    if (t.isEmpty()) return QValidator::Intermediate;
    bool ok = false;
    const double v = locale().toDouble(t, &ok);
    if (ok)
      return v >= minimum() && v <= maximum() ? QValidator::Acceptable : QValidator::Intermediate;
    // "1e", "1e-", "-", "." are on their way to a number.
    static const QRegularExpression partial(QStringLiteral("^[-+]?[0-9]*[.,]?[0-9]*([eE][-+]?)?$"));
    return partial.match(t).hasMatch() ? QValidator::Intermediate : QValidator::Invalid;
  }
};

}  // namespace

QWidget* createParamEditor(const ParamSpec& p, const ParamEditorOptions& options) {
  QWidget* editor = nullptr;
  const QString def = QString::fromStdString(p.default_value);
  switch (p.type) {
    case ParamSpec::Type::Number: {
      QDoubleSpinBox* s = nullptr;
      if (options.general_numbers) {
        s = new GeneralSpinBox;
      } else {
        s = new QDoubleSpinBox;
        s->setDecimals(p.max - p.min <= 1.0001 ? 3 : 2);
        s->setSingleStep(p.max - p.min <= 1.0001 ? 0.05 : 0.1);
      }
      s->setRange(p.min, p.max);
      s->setValue(def.toDouble());
      s->setKeyboardTracking(false);
      editor = s;
      break;
    }
    case ParamSpec::Type::Integer: {
      auto* s = new QSpinBox;
      s->setRange(static_cast<int>(std::max(p.min, -2e9)), static_cast<int>(std::min(p.max, 2e9)));
      s->setValue(def.toInt());
      s->setKeyboardTracking(false);
      // Thousands separators tell 12000 and 120000 apart at a glance (episode counts).
      s->setGroupSeparatorShown(options.general_numbers && p.max >= 10000);
      editor = s;
      break;
    }
    case ParamSpec::Type::Choice: {
      auto* c = new QComboBox;
      c->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
      c->setMinimumContentsLength(10);
      for (const auto& choice : p.choices) c->addItem(QString::fromStdString(choice));
      c->setCurrentText(def);
      editor = c;
      break;
    }
    case ParamSpec::Type::Bool: {
      auto* c = new QCheckBox;
      c->setChecked(def == QStringLiteral("true"));
      editor = c;
      break;
    }
  }
  editor->setObjectName(QStringLiteral("param_") + QString::fromStdString(p.name));
  editor->setToolTip(QString::fromStdString(p.description));
  return editor;
}

QString paramEditorValue(const QWidget* editor) {
  if (auto* d = qobject_cast<const QDoubleSpinBox*>(editor)) return numberText(d->value());
  if (auto* i = qobject_cast<const QSpinBox*>(editor)) return QString::number(i->value());
  if (auto* c = qobject_cast<const QComboBox*>(editor)) return c->currentText();
  if (auto* b = qobject_cast<const QCheckBox*>(editor))
    return b->isChecked() ? QStringLiteral("true") : QStringLiteral("false");
  return {};
}

void setParamEditorValue(QWidget* editor, const QString& v) {
  if (auto* d = qobject_cast<QDoubleSpinBox*>(editor))
    d->setValue(v.toDouble());
  else if (auto* i = qobject_cast<QSpinBox*>(editor))
    i->setValue(v.toInt());
  else if (auto* c = qobject_cast<QComboBox*>(editor))
    c->setCurrentText(v);
  else if (auto* b = qobject_cast<QCheckBox*>(editor))
    b->setChecked(v == QStringLiteral("true"));
}

void onParamEditorChanged(QWidget* editor, QObject* context, std::function<void()> changed) {
  if (auto* d = qobject_cast<QDoubleSpinBox*>(editor))
    QObject::connect(d, &QDoubleSpinBox::valueChanged, context, [changed] { changed(); });
  else if (auto* i = qobject_cast<QSpinBox*>(editor))
    QObject::connect(i, &QSpinBox::valueChanged, context, [changed] { changed(); });
  else if (auto* c = qobject_cast<QComboBox*>(editor))
    QObject::connect(c, &QComboBox::currentIndexChanged, context, [changed] { changed(); });
  else if (auto* b = qobject_cast<QCheckBox*>(editor))
    QObject::connect(b, &QCheckBox::toggled, context, [changed] { changed(); });
}

bool sameParamValue(const ParamSpec& spec, const QString& a, const QString& b) {
  switch (spec.type) {
    case ParamSpec::Type::Number: {
      bool okA = false, okB = false;
      const double x = a.toDouble(&okA), y = b.toDouble(&okB);
      if (!okA || !okB) return a == b;
      // The editors hold ten decimals at most: equal up to that is the same setting.
      return std::abs(x - y) <= 1e-12 * std::max({1.0, std::abs(x), std::abs(y)});
    }
    case ParamSpec::Type::Integer: {
      bool okA = false, okB = false;
      const qlonglong x = a.toLongLong(&okA), y = b.toLongLong(&okB);
      return okA && okB ? x == y : a == b;
    }
    case ParamSpec::Type::Choice:
    case ParamSpec::Type::Bool:
      return a == b;
  }
  return a == b;
}

}  // namespace doppler::views
