// The timeline view driven by keys and the mouse: zoom, pan, fit, select, hover, range, colour,
// zoom to a range and back, search, exports, and level-of-detail painting of 100,000 events.
#include "views/timeline/timeline_view.h"

#include <QElapsedTimer>
#include <QLineEdit>
#include <QTemporaryDir>
#include <QtTest>
#include <nlohmann/json.hpp>

#include "core/sim/critical_path.h"
#include "tests/support/mouse.h"
#include "tests/views/synthetic.h"
#include "views/common/image_export.h"
#include "views/common/selection_state.h"

using namespace doppler;
using namespace doppler::views;
using doppler::qtest::sendMouse;

namespace {}  // namespace

class TimelineViewTest : public QObject {
  Q_OBJECT
 private:
  SelectionState* sel_ = nullptr;
  TimelineView* view_ = nullptr;
  SnapshotPtr snapshot_;
  double span() const { return view_->visibleEnd() - view_->visibleStart(); }

 private Q_SLOTS:
  void init() {
    sel_ = new SelectionState;
    view_ = new TimelineView(sel_);
    view_->resize(1100, 520);
    view_->show();
    QVERIFY(QTest::qWaitForWindowExposed(view_));
    snapshot_ = testing::workloadSnapshot("llama-block", 4);
    view_->setSnapshot(snapshot_);
  }
  void cleanup() {
    delete view_;
    delete sel_;
  }

  void fitShowsWholeSchedule() {
    QVERIFY(view_->visibleStart() <= 0);
    QVERIFY(view_->visibleEnd() >= snapshot_->makespan());
    QVERIFY(span() < snapshot_->makespan() * 1.2);
    // One lane per device, then one per directed link that carried a transfer.
    const TimelineData* d = view_->data();
    QCOMPARE(d->computeLanes, 4);
    QCOMPARE(d->eventCount,
             snapshot_->graph->nodeCount() + snapshot_->sim.schedule.transfers.size());
  }

  void keysZoomPanFit() {
    const double full = span();
    QTest::keyClick(view_, Qt::Key_W);
    QVERIFY(std::abs(span() - full / 1.5) < full * 1e-6);
    QTest::keyClick(view_, Qt::Key_W);
    const double zoomed = span();
    const double start = view_->visibleStart();
    QTest::keyClick(view_, Qt::Key_D);
    QVERIFY(view_->visibleStart() > start);
    QTest::keyClick(view_, Qt::Key_A);
    QTest::keyClick(view_, Qt::Key_A);
    QVERIFY(view_->visibleStart() < start);
    QTest::keyClick(view_, Qt::Key_S);
    QVERIFY(std::abs(span() - zoomed * 1.5) < full * 1e-6);
    QTest::keyClick(view_, Qt::Key_F);
    QVERIFY(std::abs(span() - full) < full * 1e-6);
  }

  void wheelZooms() {
    const double full = span();
    const QPoint at(600, 200);
    const double tAt = view_->timeAtX(at.x());
    QWheelEvent in(QPointF(at), view_->viewport()->mapToGlobal(QPointF(at)), QPoint(),
                   QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view_->viewport(), &in);
    QVERIFY(span() < full * 0.8);
    QVERIFY(std::abs(view_->timeAtX(at.x()) - tAt) < full * 1e-3);  // zoom around the mouse
  }

  void clickSelectsAndHoverLights() {
    // A long compute bar.
    int v = -1;
    double longest = 0;
    for (const NodeSpan& n : snapshot_->sim.schedule.nodes)
      if (n.finish_us - n.start_us > longest) {
        longest = n.finish_us - n.start_us;
        v = n.node;
      }
    const QPoint p = view_->pointOfNode(v);
    QVERIFY(p.x() >= 0);
    QCOMPARE(view_->nodeAt(p), v);
    sendMouse(view_->viewport(), QEvent::MouseMove, p, Qt::NoButton, Qt::NoButton);
    QCOMPARE(sel_->hovered(), v);
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, Qt::NoModifier, p);
    QCOMPARE(sel_->selected(), v);
    QCOMPARE(view_->selectedNode(), v);
    // Empty space clears the selection.
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, Qt::NoModifier,
                      QPoint(5, view_->viewport()->height() - 3));
    QCOMPARE(sel_->selected(), -1);
    // The reverse: hovering elsewhere (the graph) lights the bar here.
    sel_->setHovered(v);
    QCOMPARE(view_->hoveredNode(), v);
  }

  // Eight devices have up to 56 directed links: their lanes start folded into one row, every
  // transfer still under the mouse there, and a click on the row's label unfolds them.
  void linkLanesFoldIntoOneRowAboveFourDevices() {
    QVERIFY(!view_->linksCollapsed());  // 4 devices: a lane per link
    view_->setSnapshot(testing::workloadSnapshot("llama-block", 8));
    const TimelineData* d = view_->data();
    QCOMPARE(d->computeLanes, 8);
    QVERIFY(d->lanes.size() > 9u);
    QVERIFY(view_->linksCollapsed());
    TimelineGeometry g = view_->geometry();
    for (size_t l = d->computeLanes + 1; l < d->lanes.size(); ++l) {
      QCOMPARE(g.laneY[l], g.laneY[d->computeLanes]);
      QCOMPARE(g.laneH[l], g.laneH[d->computeLanes]);
    }
    const int folded = g.contentH;
    // The row's transfers: a point inside a transfer bar of the last link lane finds its consumer.
    const TimelineLane& last = d->lanes.back();
    QVERIFY(!last.events.empty());
    const TimelineEvent& e = last.events.front();
    const double x =
        g.plotLeft + ((e.start + e.finish) / 2 - view_->visibleStart()) / (span() / g.plotWidth());
    const int y = g.lanesTop + g.laneY[d->lanes.size() - 1] + g.laneH.back() / 2;
    const int consumer = view_->nodeAt(QPoint(static_cast<int>(x), y));
    QVERIFY(consumer >= 0);
    // Unfold by clicking the row's label: one lane per link again, taller content.
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, Qt::NoModifier, QPoint(20, y));
    QVERIFY(!view_->linksCollapsed());
    g = view_->geometry();
    QVERIFY(g.contentH > folded);
    QVERIFY(g.laneY.back() > g.laneY[d->computeLanes]);
    QCOMPARE(sel_->selected(), -1);  // the label click selected nothing
    // And fold again from the first link lane's label.
    QTest::mouseClick(
        view_->viewport(), Qt::LeftButton, Qt::NoModifier,
        QPoint(20, g.lanesTop + g.laneY[d->computeLanes] + g.laneH[d->computeLanes] / 2));
    QVERIFY(view_->linksCollapsed());
  }

  // A short pane (a laptop's first start) shows every device's lane and the folded links before
  // any scrolling, with lanes no shorter than a line of text; a tall one keeps the full height.
  void aShortPaneFitsEveryDeviceLane() {
    view_->setSnapshot(testing::workloadSnapshot("llama-block", 8));
    const TimelineData* d = view_->data();
    view_->resize(1000, 600);
    const int tall = view_->geometry().laneH[0];
    view_->resize(1000, 290);
    const TimelineGeometry g = view_->geometry();
    const int text = QFontMetrics(view_->font()).height();
    QVERIFY(g.laneH[0] < tall);
    QVERIFY(g.laneH[0] >= text + 4);
    const int lastRow = d->computeLanes;  // the folded links
    QVERIFY2(g.lanesTop + g.laneY[lastRow] + g.laneH[lastRow] <= view_->viewport()->height(),
             qPrintable(QStringLiteral("%1 + %2 + %3 > %4")
                            .arg(g.lanesTop)
                            .arg(g.laneY[lastRow])
                            .arg(g.laneH[lastRow])
                            .arg(view_->viewport()->height())));
  }

  // The critical path is outlined on the timeline as in the graph: the same nodes, in the theme's
  // critical colour at the bar's edge, with a legend entry; hidden on request.
  void criticalPathIsOutlined() {
    QVERIFY(view_->criticalPathVisible());
    const CriticalPath cp = criticalPath(*snapshot_->graph, snapshot_->sim.schedule);
    QCOMPARE(view_->criticalNodes(), cp.onPath);
    const auto hasEntry = [this] {
      for (const LegendEntry& e : view_->header().legend)
        if (e.text == QStringLiteral("critical path")) return true;
      return false;
    };
    QVERIFY(hasEntry());
    // The last node of the path (it ends the makespan): its bar's top edge is critical-coloured.
    const int v = cp.nodes.back();
    const QPoint c = view_->pointOfNode(v);
    QVERIFY(c.x() >= 0);
    const TimelineGeometry g = view_->geometry();
    const int lane = view_->data()->nodeLane[v];
    const int top = g.lanesTop + g.laneY[lane] + 1;
    const QImage frame = view_->viewport()->grab().toImage();
    bool found = false;
    for (int y = top - 1; y <= top + 2; ++y)
      found = found || QColor(frame.pixel(c.x(), y)) == Theme::current().critical;
    QVERIFY2(found, "the critical bar's outline");
    view_->setCriticalPathVisible(false);
    QVERIFY(view_->criticalNodes().empty());
    QVERIFY(!hasEntry());
  }

  void externalSelectionBringsBarIntoView() {
    for (int i = 0; i < 6; ++i) QTest::keyClick(view_, Qt::Key_W);
    // The node that finishes last is off screen after zooming in around the centre.
    int last = 0;
    for (const NodeSpan& n : snapshot_->sim.schedule.nodes)
      if (n.finish_us > snapshot_->sim.schedule.nodes[last].finish_us) last = n.node;
    QVERIFY(view_->pointOfNode(last).x() < 0);
    sel_->setSelected(last);
    QVERIFY(view_->pointOfNode(last).x() >= 0);
  }

  void dragSelectsRangeWithUtilization() {
    QSignalSpy spy(view_, &TimelineView::rangeChanged);
    const TimelineGeometry g = view_->geometry();
    const int y = g.lanesTop + 30;
    const QPoint a(g.plotLeft + 100, y), b(g.plotLeft + 500, y);
    sendMouse(view_->viewport(), QEvent::MouseButtonPress, a, Qt::LeftButton, Qt::LeftButton);
    sendMouse(view_->viewport(), QEvent::MouseMove, a + QPoint(50, 0), Qt::NoButton,
              Qt::LeftButton);
    sendMouse(view_->viewport(), QEvent::MouseMove, b, Qt::NoButton, Qt::LeftButton);
    sendMouse(view_->viewport(), QEvent::MouseButtonRelease, b, Qt::LeftButton, Qt::NoButton);
    QVERIFY(view_->range().has_value());
    QVERIFY(!spy.isEmpty());
    const auto [t0, t1] = *view_->range();
    QVERIFY(std::abs(t0 - view_->timeAtX(a.x())) < 1e-6 * snapshot_->makespan());
    QVERIFY(std::abs(t1 - view_->timeAtX(b.x())) < 1e-6 * snapshot_->makespan());
    const auto expected = deviceRangeStats(snapshot_->sim.schedule, 4, t0, t1);
    QCOMPARE(view_->rangeStats().size(), size_t(4));
    for (int d = 0; d < 4; ++d) {
      QCOMPARE(view_->rangeStats()[d].busy_us, expected[d].busy_us);
      QVERIFY(view_->rangeStats()[d].idle_us >= 0);
    }
    QTest::keyClick(view_, Qt::Key_Escape);
    QVERIFY(!view_->range().has_value());
  }

  void zoomToRangeAndBack() {
    // Without a range Z does nothing and the stack stays empty.
    const double fullStart = view_->visibleStart(), full = span();
    QTest::keyClick(view_, Qt::Key_Z);
    QCOMPARE(view_->zoomDepth(), 0);
    QCOMPARE(span(), full);
    const double m = snapshot_->makespan();
    view_->setRange(std::make_pair(0.2 * m, 0.3 * m));
    QTest::keyClick(view_, Qt::Key_Z);
    QCOMPARE(view_->zoomDepth(), 1);
    // The range fills the plot, with a little room at both edges.
    QVERIFY(view_->visibleStart() <= 0.2 * m && view_->visibleStart() > 0.19 * m);
    QVERIFY(view_->visibleEnd() >= 0.3 * m && view_->visibleEnd() < 0.31 * m);
    // A second range inside it, then back twice: each view as it was.
    const double midStart = view_->visibleStart(), mid = span();
    view_->setRange(std::make_pair(0.25 * m, 0.26 * m));
    QTest::keyClick(view_, Qt::Key_Z);
    QCOMPARE(view_->zoomDepth(), 2);
    QVERIFY(span() < mid / 5);
    QTest::keyClick(view_, Qt::Key_Backspace);
    QCOMPARE(view_->zoomDepth(), 1);
    QCOMPARE(view_->visibleStart(), midStart);
    QCOMPARE(span(), mid);
    QTest::keyClick(view_, Qt::Key_Backspace);
    QCOMPARE(view_->zoomDepth(), 0);
    QCOMPARE(view_->visibleStart(), fullStart);
    QCOMPARE(span(), full);
    QVERIFY(!view_->zoomBack());  // an empty stack: nothing to go back to
    // Another graph empties the stack: its times would be of the old schedule.
    QVERIFY(view_->zoomToRange());
    view_->setSnapshot(testing::workloadSnapshot("llama-block", 8));
    QCOMPARE(view_->zoomDepth(), 0);
  }

  void searchOutlinesMatchesAndCyclesThroughThem() {
    view_->showSearch();
    auto* edit = view_->findChild<QLineEdit*>(QStringLiteral("timelineSearchEdit"));
    QVERIFY(edit && edit->isVisible());
    // The field sits over the plot, inside the view.
    QVERIFY(view_->rect().contains(edit->mapTo(view_, edit->rect().bottomRight())));
    const DataflowGraph& g = *snapshot_->graph;
    // An op kind matches every node of it; an id fragment the nodes whose id holds it.
    const std::string op = g.node(0).op;
    int ofOp = 0;
    for (int v = 0; v < g.nodeCount(); ++v) ofOp += g.node(v).op == op;
    QTest::keyClicks(edit, QString::fromStdString(op));
    QCOMPARE(static_cast<int>(view_->searchMatches().size()), ofOp);
    const int first = sel_->selected();
    QCOMPARE(first, view_->searchMatches().front());
    if (ofOp > 1) {
      QTest::keyClick(edit, Qt::Key_Return);
      QCOMPARE(sel_->selected(), view_->searchMatches()[1]);
      // The selected match's bar is in view.
      QVERIFY(view_->pointOfNode(sel_->selected()).x() >= 0);
    }
    edit->clear();
    QTest::keyClicks(edit, QStringLiteral("no-such-node-zzz"));
    QVERIFY(view_->searchMatches().empty());
    // Esc closes the field and clears the outlines.
    QTest::keyClicks(edit, QStringLiteral("x"));
    QTest::keyClick(edit, Qt::Key_Escape);
    QVERIFY(!edit->isVisible());
    QVERIFY(view_->searchMatches().empty());
  }

  void colourModeCycles() {
    // Device first, so a bar means what its node's fill means in the graph.
    QCOMPARE(view_->colorMode(), TimelineColorMode::Device);
    QTest::keyClick(view_, Qt::Key_C);
    QCOMPARE(view_->colorMode(), TimelineColorMode::OpKind);
    QTest::keyClick(view_, Qt::Key_C);
    QCOMPARE(view_->colorMode(), TimelineColorMode::Node);
    QTest::keyClick(view_, Qt::Key_C);
    QCOMPARE(view_->colorMode(), TimelineColorMode::Device);
  }

  void graphsWithoutOpKindsAreColouredByDevice() {
    // The Doppler text format has no op kinds: one "(no op)" colour would tell nothing.
    const DataflowGraph source = generateGraph("chainmm");
    DataflowGraph g;
    for (Node node : source.nodes()) {
      node.op.clear();
      g.addNode(std::move(node));
    }
    for (const Edge& e : source.edges()) g.addEdge(e);
    view_->setSnapshot(testing::snapshotOf(std::make_shared<const DataflowGraph>(std::move(g)), 4));
    QCOMPARE(view_->colorMode(), TimelineColorMode::Device);
    QVERIFY(!view_->hasOpKinds());
    QTest::keyClick(view_, Qt::Key_C);
    QCOMPARE(view_->colorMode(), TimelineColorMode::Node);
    QTest::keyClick(view_, Qt::Key_C);
    QCOMPARE(view_->colorMode(), TimelineColorMode::Device);  // op kind is skipped
  }

  void exports() {
    QTemporaryDir dir;
    const QString trace = dir.filePath("t.json");
    QCOMPARE(view_->exportChromeTrace(trace), QString());
    QFile f(trace);
    QVERIFY(f.open(QIODevice::ReadOnly));
    const auto json = nlohmann::json::parse(f.readAll().toStdString());
    QVERIFY(!json.empty());
    QCOMPARE(savePng(*view_, dir.filePath("t.png")), QString());
    QCOMPARE(saveSvg(*view_, dir.filePath("t.svg"), "t"), QString());
    QImage png(dir.filePath("t.png"));
    QVERIFY(!png.isNull());
    QCOMPARE(png.width(), view_->cleanImageSize().width());
    QVERIFY(QFileInfo(dir.filePath("t.svg")).size() > 1000);
  }

  void levelOfDetail100kEvents() {
    auto big = testing::bigTimelineSnapshot(100000, 8);
    view_->setSnapshot(big);
    QVERIFY(view_->data()->eventCount >= 99000);
    QElapsedTimer t;
    t.start();
    const int frames = 5;
    for (int i = 0; i < frames; ++i) view_->viewport()->repaint();
    const double ms = t.nsecsElapsed() / 1e6 / frames;
    qInfo("timeline repaint with %zu events: %.2f ms per frame", view_->data()->eventCount, ms);
    QVERIFY2(ms < 250, "painting 100,000 events is far too slow");
    // Zoomed in, bars are drawn individually and hit tests still work.
    for (int i = 0; i < 12; ++i) QTest::keyClick(view_, Qt::Key_W);
    view_->viewport()->repaint();
  }
};

#include "timeline_view_test.moc"
int runTimelineViewTest(int argc, char** argv) {
  TimelineViewTest t;
  return QTest::qExec(&t, argc, argv);
}
