// studio.fit: the studio fits a laptop and a projector. In every layout a user meets (the first
// start, View > Reset Layout, every dock open, presentation mode, the fleet perspective) the
// least size the window asks the window manager for is at most 1280 x 720, and at 1366 x 768 the
// makespan read-out, the graph and the timeline are on screen, whole. A failure names the docks
// and their least sizes, so the culprit is in the message.
#include <QDockWidget>
#include <QLabel>
#include <QTemporaryDir>
#include <QtTest>

#include "app/studio/window/main_window.h"
#include "tests/studio/studio_test_support.h"
#include "views/graph/graph_view.h"
#include "views/timeline/timeline_view.h"

using namespace doppler;

namespace {

constexpr QSize kLeast(1280, 720);
constexpr QSize kLaptop(1366, 768);

QString sizeText(const QSize& s) {
  return QStringLiteral("%1x%2").arg(s.width()).arg(s.height());
}

// What asks for room: the central widget and each visible dock, with their least sizes.
QString culprits(QMainWindow* w) {
  QStringList parts;
  parts << QStringLiteral("window %1").arg(sizeText(w->minimumSizeHint()));
  if (QWidget* c = w->centralWidget())
    parts << QStringLiteral("centre %1").arg(sizeText(c->minimumSizeHint()));
  for (QDockWidget* d : w->findChildren<QDockWidget*>())
    if (d->isVisible())
      parts << QStringLiteral("%1 %2").arg(d->objectName(), sizeText(d->minimumSizeHint()));
  return parts.join(QStringLiteral(", "));
}

// "" when the widget lies inside the window's client area with at least `least` of it shown,
// else what is wrong.
QString notWholeOnScreen(QWidget* window, QWidget* widget, const QSize& least = {1, 1}) {
  if (!widget) return QStringLiteral("missing");
  if (!widget->isVisible()) return widget->objectName() + QStringLiteral(" hidden");
  const QRect r(widget->mapTo(window, QPoint(0, 0)), widget->size());
  if (window->rect().contains(r) && r.width() >= least.width() && r.height() >= least.height())
    return {};
  return QStringLiteral("%1 at %2,%3 %4 in a %5 window")
      .arg(widget->objectName())
      .arg(r.x())
      .arg(r.y())
      .arg(sizeText(r.size()), sizeText(window->size()));
}

}  // namespace

class WindowFitTest : public QObject {
  Q_OBJECT
 private:
  QTemporaryDir data_;
  std::unique_ptr<studio::MainWindow> w_;

  void checkFits(const char* layout) {
    QCoreApplication::processEvents();
    const QSize least = w_->minimumSizeHint().expandedTo(w_->minimumSize());
    QVERIFY2(least.width() <= kLeast.width() && least.height() <= kLeast.height(),
             qPrintable(QStringLiteral("%1: %2").arg(QLatin1String(layout), culprits(w_.get()))));
    if (!w_->presentationMode()) {  // presentation mode is full screen: the screen's size
      w_->resize(kLaptop);
      QTest::qWait(50);  // the layout settles after the resize
      QCOMPARE(w_->size(), kLaptop);
    }
    auto* makespan = w_->findChild<QLabel*>(QStringLiteral("makespanValue"));
    if (!w_->fleetPage()->active()) {
      for (const auto& [widget, least] :
           {std::pair<QWidget*, QSize>{w_->presentationMode() ? nullptr : makespan, {1, 1}},
            {w_->graphView(), {400, 200}},
            {w_->timelineView(), {400, 120}}}) {
        if (!widget) continue;
        if (w_->presentationMode() && !widget->isVisible()) continue;  // one view at a time
        const QString why = notWholeOnScreen(w_.get(), widget, least);
        QVERIFY2(why.isEmpty(), qPrintable(QStringLiteral("%1: %2").arg(layout, why)));
      }
    }
  }

 private Q_SLOTS:
  void initTestCase() {
    QVERIFY(data_.isValid());
    qputenv("XDG_DATA_HOME", data_.path().toLocal8Bit());
    qunsetenv("DOPPLER_STUDIO_DB");
    studio::StudioOptions options;  // a real first start
    w_ = std::make_unique<studio::MainWindow>(options);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_.get()));
    QVERIFY(w_->waitSettled(60000));
    QVERIFY(w_->firstStart());
  }

  void theFirstStartFits() { checkFits("first start"); }

  void theResetLayoutFits() {
    w_->resetLayout();
    checkFits("reset layout");
  }

  void everyDockOpenFits() {
    for (QDockWidget* d : w_->findChildren<QDockWidget*>()) d->show();
    checkFits("every dock open");
    w_->resetLayout();
  }

  void presentationModeFits() {
    w_->setPresentationMode(true);
    checkFits("presentation mode");
    // Read from the back of the room: node labels of 14 px at least, at the laptop's size.
    w_->resize(kLaptop);
    QVERIFY(w_->waitSettled(60000));
    QCoreApplication::processEvents();
    QVERIFY2(w_->graphView()->labelPixels() >= 14 - 1e-9,
             qPrintable(QString::number(w_->graphView()->labelPixels())));
    w_->setPresentationMode(false);
  }

  void theFleetPerspectiveFits() {
    w_->fleetPage()->setActive(true);
    checkFits("fleet perspective");
    w_->fleetPage()->setActive(false);
    checkFits("back from the fleet");
  }

  void cleanupTestCase() { w_.reset(); }
};

DOPPLER_STUDIO_TEST_MAIN(WindowFitTest)
#include "window_fit_test.moc"
