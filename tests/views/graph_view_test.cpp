// The graph view: Graphviz layout, zoom and fit by keys and wheel, click and hover selection in
// sync with SelectionState, search, critical path, minimap and exports.
#include "views/graph/graph_view.h"

#include <QLineEdit>
#include <QPainter>
#include <QTemporaryDir>
#include <QtTest>
#include <cmath>

#include "core/common/numbered.h"
#include "core/graph/generators.h"
#include "tests/support/mouse.h"
#include "tests/views/synthetic.h"
#include "views/common/image_export.h"
#include "views/common/selection_state.h"

using namespace doppler;
using namespace doppler::views;
using doppler::qtest::sendMouse;

class GraphViewTest : public QObject {
  Q_OBJECT
 private:
  SelectionState* sel_ = nullptr;
  GraphView* view_ = nullptr;
  SnapshotPtr snapshot_;
  int layouts_ = 0;

 private Q_SLOTS:
  void init() {
    sel_ = new SelectionState;
    view_ = new GraphView(sel_);
    // The studio sends requests to its Graphviz worker; here the test thread is the only one.
    connect(view_, &GraphView::layoutRequested, view_,
            [this](std::shared_ptr<const LayoutInput> in) {
              ++layouts_;
              view_->setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*in)));
            });
    view_->resize(1000, 640);
    view_->show();
    QVERIFY(QTest::qWaitForWindowExposed(view_));
    snapshot_ = testing::workloadSnapshot("chainmm", 4);
    view_->setSnapshot(snapshot_);
    QVERIFY(view_->hasLayout());
  }
  void cleanup() {
    delete view_;
    delete sel_;
  }

  void layoutPlacesEveryNode() {
    const LayoutResultPtr layout = view_->graphScene()->layout();
    QVERIFY(layout->error.isEmpty());
    QCOMPARE(int(layout->centers.size()), snapshot_->graph->nodeCount());
    const QRectF scene = view_->graphScene()->sceneRect();
    for (int v = 0; v < snapshot_->graph->nodeCount(); ++v)
      QVERIFY(scene.contains(view_->graphScene()->nodeRect(v)));
    // dot ranks edges along the layout direction: every producer sits before its consumer.
    const bool lr = view_->layoutDirection() == LayoutDirection::LeftToRight;
    for (const Edge& e : snapshot_->graph->edges()) {
      const QPointF a = layout->centers[e.src], b = layout->centers[e.dst];
      QVERIFY(lr ? a.x() < b.x() : a.y() < b.y());
    }
    // Recolouring for a new placement keeps the layout.
    view_->setSnapshot(testing::snapshotOf(snapshot_->graph, 2));
    QCOMPARE(layouts_, 1);
  }

  static Node named(const std::string& id) {
    Node node;
    node.id = id;
    return node;
  }

  void layoutDirectionFollowsThePaneAndFlips() {
    // A deep, narrow graph (a 60-node chain) goes left to right in a wide pane, top to bottom in
    // a tall one.
    DataflowGraph chain;
    for (int v = 0; v < 60; ++v) {
      chain.addNode(named(doppler::numbered("n", v)));
      if (v > 0) chain.addEdge(doppler::numbered("n", v - 1), doppler::numbered("n", v), 1e6);
    }
    QCOMPARE(preferredDirection(chain, QSizeF(1100, 500)), LayoutDirection::LeftToRight);
    QCOMPARE(preferredDirection(chain, QSizeF(500, 1100)), LayoutDirection::TopToBottom);
    // A wide, shallow graph (60 independent nodes) stays top to bottom in a wide pane.
    DataflowGraph flat;
    for (int v = 0; v < 60; ++v) flat.addNode(named("f" + std::to_string(v)));
    QCOMPARE(preferredDirection(flat, QSizeF(1100, 500)), LayoutDirection::TopToBottom);
    // A small graph that fits legibly either way takes the direction with the larger zoom.
    DataflowGraph small;
    for (int v = 0; v < 4; ++v) {
      small.addNode(named("s" + std::to_string(v)));
      if (v > 0) small.addEdge("s" + std::to_string(v - 1), "s" + std::to_string(v), 1e6);
    }
    QCOMPARE(preferredDirection(small, QSizeF(1100, 150)), LayoutDirection::LeftToRight);
    QCOMPARE(preferredDirection(small, QSizeF(400, 600)), LayoutDirection::TopToBottom);

    // Flipping lays the graph out again the other way, and the fit zoom follows.
    const LayoutDirection before = view_->layoutDirection();
    const int layoutsBefore = layouts_;
    view_->flipLayoutDirection();
    QVERIFY(view_->layoutDirection() != before);
    QVERIFY(view_->hasLayout());
    QCOMPARE(layouts_, layoutsBefore + 1);
    const LayoutResultPtr flipped = view_->graphScene()->layout();
    for (const Edge& e : snapshot_->graph->edges()) {
      const QPointF a = flipped->centers[e.src], b = flipped->centers[e.dst];
      QVERIFY(view_->layoutDirection() == LayoutDirection::LeftToRight ? a.x() < b.x()
                                                                       : a.y() < b.y());
    }
    QVERIFY(view_->graphScene()->snapshot());  // the placement stays shown
    view_->setLayoutDirectionChoice(std::nullopt);
    QCOMPARE(view_->layoutDirection(), before);
  }

  void aCancelledLayoutStopsBeforeGraphviz() {
    const LayoutInput in = makeLayoutInput(*snapshot_->graph, view_->font());
    CancelToken cancel;
    cancel.cancel();
    const LayoutResult r = computeLayout(in, cancel);
    QVERIFY(r.cancelled);
    QVERIFY(r.centers.empty());
    QVERIFY(!computeLayout(in).cancelled);
  }

  void crossDeviceEdgesCounted() {
    int cross = 0;
    for (const Edge& e : snapshot_->graph->edges())
      cross += snapshot_->assignment[e.src] != snapshot_->assignment[e.dst];
    QCOMPARE(view_->graphScene()->crossEdgeCount(), cross);
  }

  void keysAndWheelZoom() {
    const double fit = view_->zoom();
    QTest::keyClick(view_, Qt::Key_Plus);
    QVERIFY(std::abs(view_->zoom() - fit * 1.25) < 1e-9);
    QTest::keyClick(view_, Qt::Key_Minus);
    QVERIFY(std::abs(view_->zoom() - fit) < 1e-9);
    const QPoint at(500, 320);
    QWheelEvent in(QPointF(at), view_->viewport()->mapToGlobal(QPointF(at)), QPoint(),
                   QPoint(0, 240), Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase, false);
    QApplication::sendEvent(view_->viewport(), &in);
    QVERIFY(view_->zoom() > fit * 1.2);
    QVERIFY(!view_->atFit());
    // Zoomed in, the minimap shows where the view is.
    auto* minimap = view_->findChild<QWidget*>("minimap");
    QVERIFY(minimap && minimap->isVisible());
    QTest::keyClick(view_, Qt::Key_F);
    QVERIFY(std::abs(view_->zoom() - fit) < 1e-9);
    QVERIFY(view_->atFit());
  }

  void zoomedInTheViewFollowsTheStepperPick() {
    const int n = snapshot_->graph->nodeCount();
    auto overlayAt = [&](int chosen) {
      auto o = std::make_shared<StepOverlay>();
      o->steps = n;
      o->placed.assign(n, 0);
      o->plan.nodes.resize(n);
      for (int v = 0; v < n; ++v) o->plan.nodes[v] = {v, v % 4, 0, 1};
      o->chosen = chosen;
      return o;
    };
    auto onScreen = [&](int v) {
      return view_->viewport()->rect().contains(view_->viewportPosOfNode(v));
    };
    view_->zoomBy(8);
    view_->centerOn(view_->graphScene()->nodeRect(0).center());
    QVERIFY(onScreen(0));
    QVERIFY(!onScreen(n - 1));
    view_->setStepOverlay(overlayAt(n - 1));
    QVERIFY(onScreen(n - 1));
    view_->setStepOverlay(nullptr);
  }

  void clickSelectsHoverLights() {
    const int v = 40;
    const QPoint p = view_->viewportPosOfNode(v);
    QCOMPARE(view_->nodeAtViewport(p), v);
    sendMouse(view_->viewport(), QEvent::MouseMove, p, Qt::NoButton, Qt::NoButton);
    QCOMPARE(sel_->hovered(), v);
    QCOMPARE(view_->graphScene()->hovered(), v);
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, Qt::NoModifier, p);
    QCOMPARE(sel_->selected(), v);
    QCOMPARE(view_->graphScene()->selected(), v);
    // From elsewhere (the timeline): the scene follows.
    sel_->setHovered(7);
    QCOMPARE(view_->graphScene()->hovered(), 7);
    sel_->setSelected(8);
    QCOMPARE(view_->graphScene()->selected(), 8);
    // A click on empty canvas clears the selection.
    QTest::mouseClick(view_->viewport(), Qt::LeftButton, Qt::NoModifier,
                      QPoint(3, view_->viewport()->height() - 3));
    QCOMPARE(sel_->selected(), -1);
  }

  void searchFocusesNode() {
    QTest::keyClick(view_, Qt::Key_F, Qt::ControlModifier);
    auto* edit = view_->findChild<QLineEdit*>("graphSearch");
    QVERIFY(edit && edit->isVisible());
    QTest::keyClicks(edit, "xyz_1_1");
    const int v = sel_->selected();
    QVERIFY(v >= 0);
    QVERIFY(QString::fromStdString(snapshot_->graph->node(v).id).contains("xyz_1_1"));
    const QPoint p = view_->viewportPosOfNode(v);
    QVERIFY(view_->viewport()->rect().contains(p));
    QTest::keyClick(edit, Qt::Key_Return);
    QVERIFY(sel_->selected() != v);      // next match
    QCOMPARE(view_->search("add"), 18);  // by op
  }

  void criticalPathIsAChainToTheMakespan() {
    const CriticalPath& cp = view_->graphScene()->criticalPath();
    QVERIFY(cp.nodes.size() >= 2);
    const Schedule& s = snapshot_->sim.schedule;
    QCOMPARE(s.nodes[cp.nodes.back()].finish_us, s.makespan_us);
    for (size_t i = 1; i < cp.nodes.size(); ++i)
      QVERIFY(s.nodes[cp.nodes[i]].start_us >= s.nodes[cp.nodes[i - 1]].finish_us - 1e-9);
    QVERIFY(view_->criticalPathVisible());
    view_->setCriticalPathVisible(false);
    QVERIFY(!view_->criticalPathVisible());
  }

  void exports() {
    QTemporaryDir dir;
    QCOMPARE(savePng(*view_, dir.filePath("g.png")), QString());
    QCOMPARE(saveSvg(*view_, dir.filePath("g.svg"), "g"), QString());
    QImage png(dir.filePath("g.png"));
    QVERIFY(!png.isNull());
    // Something besides the background was drawn.
    int coloured = 0;
    for (int y = png.height() / 4; y < png.height(); y += 7)
      for (int x = 0; x < png.width(); x += 7)
        coloured += QColor(png.pixel(x, y)).hsvSaturation() > 80;
    QVERIFY(coloured > 20);
    QVERIFY(QFileInfo(dir.filePath("g.svg")).size() > 5000);
  }

  // A graph whose layout has not arrived has nothing to show: exports say so, write no file.
  void exportsRefuseWhileTheLayoutIsPending() {
    SelectionState sel;
    GraphView view(&sel);  // nothing answers its layout request until the end
    std::shared_ptr<const LayoutInput> asked;
    connect(&view, &GraphView::layoutRequested, &view,
            [&asked](std::shared_ptr<const LayoutInput> in) { asked = std::move(in); });
    view.resize(800, 500);
    view.setSnapshot(snapshot_);
    QVERIFY(view.layoutPending());
    QVERIFY(!view.hasLayout());
    QTemporaryDir dir;
    const QString png = dir.filePath("pending.png");
    QVERIFY(savePng(view, png).contains("still being laid out"));
    QVERIFY(saveSvg(view, dir.filePath("pending.svg"), "g").contains("still being laid out"));
    QVERIFY(!QFileInfo::exists(png));
    QVERIFY(!QFileInfo::exists(dir.filePath("pending.svg")));
    // Once it arrives the same view exports.
    QVERIFY(asked);
    view.setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*asked)));
    QVERIFY(view.hasLayout());
    QCOMPARE(view.notReadyReason(), QString());
    QCOMPARE(savePng(view, png), QString());
  }

  void largeGraphIsDrawnAsGroups() {
    auto g = std::make_shared<const DataflowGraph>(testing::layeredGraph(600, 30));
    view_->setSnapshot(testing::snapshotOf(g, 4));
    QVERIFY(view_->hasLayout());
    const DisplayGraph& d = *view_->display();
    QVERIFY(d.coarse());
    QVERIFY(d.shownCount() <= kCoarsenTarget);
    QCOMPARE(view_->graphScene()->layout()->centers.size(), size_t(d.shownCount()));
    // Every node is in exactly one drawn node.
    std::vector<int> seen(600, 0);
    for (int v = 0; v < d.shownCount(); ++v)
      for (int m : d.members(v)) ++seen[m];
    for (int count : seen) QCOMPARE(count, 1);
    // Selecting a node lights the group that holds it.
    sel_->setSelected(123);
    QCOMPARE(view_->graphScene()->selected(), d.shownOf(123));
    QCOMPARE(view_->graphScene()->layout()->engine, QStringLiteral("dot"));
    // Moves since the last setting ring the groups holding them, and the legend says so.
    auto moved = std::make_shared<PlacementSnapshot>(*view_->graphScene()->snapshot());
    moved->moved = {5, 123};
    view_->setSnapshot(moved);
    QCOMPARE(view_->graphScene()->movedCount(), 2);
    bool named = false;
    for (const LegendEntry& e : view_->header().legend)
      named |= e.text.startsWith(QStringLiteral("moved device since last setting (2)"));
    QVERIFY(named);
  }

  // Zoomed out, a large drawing's plain nodes and edges are painted in batches by colour: each
  // node still shows its own device's colour, where it is.
  void zoomedOutALargeGraphPaintsEveryNodeInItsColour() {
    auto g = std::make_shared<const DataflowGraph>(testing::layeredGraph(800, 30));
    GraphScene scene;
    scene.setFont(view_->font());
    const LayoutInput input = makeLayoutInput(*g, view_->font());
    scene.setGraph(g, input.hash);
    scene.setSnapshot(testing::snapshotOf(g, 4, "heft"));
    QVERIFY(scene.setLayout(std::make_shared<const LayoutResult>(computeLayout(input))));
    const QRectF all = scene.sceneRect();
    const double s = 0.2;  // below both batch levels
    QImage image(QSize(int(all.width() * s) + 1, int(all.height() * s) + 1),
                 QImage::Format_ARGB32_Premultiplied);
    image.fill(Qt::white);
    {
      QPainter p(&image);
      scene.render(&p, QRectF(QPointF(0, 0), QSizeF(all.size() * s)), all);
    }
    int checked = 0;
    for (int v = 0; v < g->nodeCount(); ++v) {
      if (scene.criticalPath().onPath[v]) continue;  // ringed: drawn by its item
      const QPointF c = (scene.nodeRect(v).center() - all.topLeft()) * s;
      QCOMPARE(image.pixelColor(c.toPoint()).rgb(), scene.nodeFill(v).rgb());
      ++checked;
    }
    QVERIFY(checked > 400);
  }

  // Zoomed out past the items' own labels, the heaviest groups are named at a legible size,
  // the heaviest first, none over another; zoomed in, the items label themselves.
  void zoomedOutTheHeaviestGroupsAreNamed() {
    auto g = std::make_shared<const DataflowGraph>(testing::layeredGraph(600, 30));
    view_->setSnapshot(testing::snapshotOf(g, 4));
    QVERIFY(view_->hasLayout());
    const GraphScene* scene = view_->graphScene();
    const DisplayGraph& d = *view_->display();
    const QRectF all = scene->sceneRect();
    const double s = 0.25;
    const QTransform at =
        QTransform::fromTranslate(-all.left(), -all.top()) * QTransform::fromScale(s, s);
    const QRectF visible(0, 0, all.width() * s, all.height() * s);
    const auto marks = scene->landmarks(at, view_->font(), visible);
    QVERIFY(marks.size() >= 3);
    for (size_t i = 0; i < marks.size(); ++i) {
      QVERIFY(visible.contains(marks[i].rect));
      QVERIFY(marks[i].rect.height() >= QFontMetricsF(view_->font()).height());
      QVERIFY(marks[i].text.contains(QStringLiteral("\u00d7%1").arg(d.memberCount(marks[i].node))));
      if (i > 0) QVERIFY(d.memberCount(marks[i].node) <= d.memberCount(marks[i - 1].node));
      for (size_t j = 0; j < i; ++j) QVERIFY(!marks[i].rect.intersects(marks[j].rect));
      // A name never covers a node: the fill is the placement.
      for (int v = 0; v < d.shownCount(); ++v)
        if (v != marks[i].node) QVERIFY(!marks[i].rect.intersects(at.mapRect(scene->nodeRect(v))));
    }
    QVERIFY(scene->landmarks(QTransform(), view_->font(), QRectF()).empty());
  }

  // A wide model's 300 groups can have so many edges between them that dot runs for minutes
  // (a LLaMA layer on 16 x 8 shards: 880 edges, 100 s): such a drawing has fewer groups.
  void aDenseCoarseDrawingHasFewerGroups() {
    auto g = std::make_shared<const DataflowGraph>(
        generateGraph("llama-layer", {{"head_shards", 16}, {"batch_shards", 8}, {"batch", 8}}));
    QCOMPARE(g->nodeCount(), 1832);
    const DisplayGraph d = DisplayGraph::of(g);
    QVERIFY(d.coarse());
    QVERIFY(d.shown()->edgeCount() <= kCoarseMaxEdges);
    QVERIFY(d.shownCount() >= kCoarsenFloor);
  }

  void aLargeDrawingIsLaidOutWithSfdp() {
    // Above kDotMaxNodes drawn nodes dot would take minutes: sfdp places every node.
    const DataflowGraph g = testing::layeredGraph(kDotMaxNodes + 100, 40);
    const LayoutResult r = computeLayout(makeLayoutInput(g, view_->font()));
    QCOMPARE(r.engine, QStringLiteral("sfdp"));
    QVERIFY(r.error.isEmpty());
    QCOMPARE(r.centers.size(), size_t(g.nodeCount()));
    QCOMPARE(r.splines.size(), size_t(g.edgeCount()));
    QVERIFY(r.width > 0 && r.height > 0);
    for (const QPointF& c : r.centers) QVERIFY(std::isfinite(c.x()) && std::isfinite(c.y()));
  }
};

#include "graph_view_test.moc"
int runGraphViewTest(int argc, char** argv) {
  GraphViewTest t;
  return QTest::qExec(&t, argc, argv);
}
