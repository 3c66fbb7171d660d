#include "app/studio/window/studio_toolbar.h"

#include <QComboBox>
#include <QHBoxLayout>
#include <QIcon>
#include <QLabel>
#include <QToolButton>

#include "views/common/theme.h"
#include "views/tuner/tuner_widget.h"

namespace doppler::studio {

StudioToolbar::StudioToolbar(QMenu* recentMenu, QWidget* parent) : QToolBar(tr("Main"), parent) {
  setObjectName(QStringLiteral("mainToolbar"));
  setMovable(false);
  setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  setIconSize(QSize(18, 18));
  auto caption = [](const QString& text) {
    auto* l = new QLabel(text);
    l->setContentsMargins(10, 0, 4, 0);
    l->setForegroundRole(QPalette::PlaceholderText);
    return l;
  };
  addWidget(caption(tr("Graph")));
  graphButton_ = new QToolButton;
  graphButton_->setObjectName(QStringLiteral("graphButton"));
  graphButton_->setIcon(QIcon(QStringLiteral(":/icons/open.svg")));
  graphButton_->setToolButtonStyle(Qt::ToolButtonTextBesideIcon);
  graphButton_->setPopupMode(QToolButton::MenuButtonPopup);
  graphButton_->setMenu(recentMenu);
  graphButton_->setToolTip(
      tr("The open graph; click to open another (Ctrl+O), the arrow lists recent files"));
  QFont bold = graphButton_->font();
  bold.setBold(true);
  graphButton_->setFont(bold);
  connect(graphButton_, &QToolButton::clicked, this, &StudioToolbar::openRequested);
  addWidget(graphButton_);

  addWidget(caption(tr("Devices")));
  devicesCombo_ = new QComboBox;
  devicesCombo_->setObjectName(QStringLiteral("toolbarDevices"));
  views::TunerWidget::fillDeviceChoices(devicesCombo_);
  devicesCombo_->setSizeAdjustPolicy(QComboBox::AdjustToContents);
  addWidget(devicesCombo_);

  addWidget(caption(tr("Method")));
  methodCombo_ = new QComboBox;
  methodCombo_->setObjectName(QStringLiteral("toolbarMethod"));
  for (const auto& m : methods()) {
    methodCombo_->addItem(QString::fromStdString(m->name()));
    methodCombo_->setItemData(methodCombo_->count() - 1, QString::fromStdString(m->description()),
                              Qt::ToolTipRole);
  }
  addWidget(methodCombo_);
  auto* spacer = new QWidget;
  spacer->setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Preferred);
  addWidget(spacer);

  auto* readout = new QWidget;
  readout->setObjectName(QStringLiteral("makespanReadout"));
  auto* rl = new QHBoxLayout(readout);
  rl->setContentsMargins(8, 0, 12, 0);
  auto* what = new QLabel(tr("makespan"));
  what->setForegroundRole(QPalette::PlaceholderText);
  readoutMain_ = new QLabel(QStringLiteral("–"));
  readoutMain_->setObjectName(QStringLiteral("makespanValue"));
  readoutMain_->setFont(views::titleFont(*readoutMain_, 2.0));
  readoutSub_ = new QLabel;
  readoutSub_->setObjectName(QStringLiteral("makespanDetail"));
  rl->addWidget(what);
  rl->addWidget(readoutMain_);
  rl->addWidget(readoutSub_);
  addWidget(readout);

  connect(devicesCombo_, &QComboBox::currentIndexChanged, this,
          [this] { Q_EMIT devicesChosen(devicesCombo_->currentData().toString()); });
  connect(methodCombo_, &QComboBox::currentIndexChanged, this,
          [this] { Q_EMIT methodChosen(methodCombo_->currentText()); });
}

void StudioToolbar::showGraph(const QString& label, const QString& source) {
  graphButton_->setText(label);
  graphButton_->setToolTip(source);
}

void StudioToolbar::showDevicesSpec(const QString& spec) {
  QSignalBlocker block(devicesCombo_);
  views::TunerWidget::selectDeviceSpec(devicesCombo_, spec);
}

void StudioToolbar::showMethod(const QString& method) {
  QSignalBlocker block(methodCombo_);
  methodCombo_->setCurrentText(method);
}

void StudioToolbar::showSnapshot(const views::PlacementSnapshot& s) {
  readoutMain_->setText(views::formatDuration(s.makespan()) +
                        (s.cancelled ? tr(" (cancelled)") : QString()));
  readoutSub_->setText(
      tr("utilization %1%\n%2× lower bound")
          .arg(s.meanUtilization() * 100, 0, 'f', 0)
          .arg(s.lower_bound_us > 0 ? s.makespan() / s.lower_bound_us : 0, 0, 'f', 2));
  readoutSub_->setToolTip(
      tr("Mean device utilization, and the makespan over the lower bound %1 (longest path "
         "on the fastest devices, or all work spread evenly)")
          .arg(views::formatDuration(s.lower_bound_us)));
  showMethod(QString::fromStdString(s.settings.method));
}

QString StudioToolbar::makespanText() const {
  return readoutMain_->text();
}

}  // namespace doppler::studio
