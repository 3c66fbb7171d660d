// Large graphs and ONNX models in the studio, as a person uses them (offscreen): a graph of
// thousands of nodes opens drawn as groups while the timeline shows every node; a group expands in
// place and collapses back; selecting in the timeline lights the group in the graph and the
// reverse; a layout can be abandoned while the rest keeps working; an ONNX model with dynamic
// dimensions asks for them, and remembers them.
#include <QComboBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QFile>
#include <QSignalSpy>
#include <QSpinBox>
#include <QStatusBar>
#include <QTemporaryDir>
#include <QTimer>
#include <QtTest>
#include <algorithm>
#include <set>
#include <string>

#include "app/studio/dialogs/onnx_dims_dialog.h"
#include "app/studio/document/studio_document.h"
#include "app/studio/jobs/job_runner.h"
#include "app/studio/window/main_window.h"
#include "core/graph/coarsening.h"
#include "core/graph/graph_io.h"
#include "tests/studio/studio_test_support.h"
#include "views/common/selection_state.h"
#include "views/graph/display_graph.h"
#include "views/graph/graph_view.h"
#include "views/timeline/timeline_view.h"
#include "views/tuner/tuner_widget.h"
#ifdef DOPPLER_TEST_ONNX
#include "tests/support/onnx_models.h"
#endif

using namespace doppler;
using namespace doppler::studio;
using namespace doppler::views;

namespace {

// A transformer-shaped graph with scoped ids as exporters write them ("/h.12/attn/MatMul_3"):
// per layer a norm, three parallel projections, attention, an output projection and an MLP.
DataflowGraph layeredGraph(int layers) {
  DataflowGraph g;
  g.name = "layered-" + std::to_string(layers);
  std::string prev = "/embed/Gather";
  g.addNode({prev, "Gather", 1e6, 4e6, {}});
  for (int l = 0; l < layers; ++l) {
    const std::string h = "/h." + std::to_string(l);
    auto add = [&](const std::string& id, const char* op, double flops,
                   std::initializer_list<std::string> inputs) {
      g.addNode({id, op, flops, 2e6, {}});
      for (const std::string& in : inputs) g.addEdge(in, id, 2e6);
      return id;
    };
    const std::string ln = add(h + "/ln_1/LayerNormalization", "LayerNormalization", 4e6, {prev});
    const std::string q = add(h + "/attn/q/MatMul", "MatMul", 5e8, {ln});
    const std::string k = add(h + "/attn/k/MatMul", "MatMul", 5e8, {ln});
    const std::string v = add(h + "/attn/v/MatMul", "MatMul", 5e8, {ln});
    const std::string s = add(h + "/attn/MatMul", "MatMul", 2e8, {q, k});
    const std::string sm = add(h + "/attn/Softmax", "Softmax", 1e7, {s});
    const std::string c = add(h + "/attn/MatMul_1", "MatMul", 2e8, {sm, v});
    const std::string o = add(h + "/attn/c_proj/MatMul", "MatMul", 5e8, {c});
    const std::string r = add(h + "/Add", "Add", 2e6, {o, prev});
    const std::string ln2 = add(h + "/ln_2/LayerNormalization", "LayerNormalization", 4e6, {r});
    const std::string up = add(h + "/mlp/c_fc/MatMul", "MatMul", 2e9, {ln2});
    const std::string act = add(h + "/mlp/act/Gelu", "Gelu", 8e6, {up});
    const std::string down = add(h + "/mlp/c_proj/MatMul", "MatMul", 2e9, {act});
    prev = add(h + "/Add_1", "Add", 2e6, {down, r});
  }
  return g;
}

QString writeFile(const QTemporaryDir& dir, const QString& name, const std::string& bytes) {
  const QString path = dir.filePath(name);
  QFile f(path);
  if (!f.open(QIODevice::WriteOnly)) return {};
  f.write(bytes.data(), static_cast<qint64>(bytes.size()));
  return path;
}

// A Doppler text graph (docs/formats.md) of `n` nodes: a chain, each node past the tenth also fed
// by one of the thousand before it, costs from a fixed generator. 1,000,000 nodes make 33 MB.
std::string chainText(int n) {
  std::string src, dst;
  uint32_t state = 12345;
  auto next = [&state] { return state = state * 1664525u + 1013904223u; };
  for (int i = 1; i < n; ++i) {
    src += std::to_string(i - 1) + ',';
    dst += std::to_string(i) + ',';
    if (i > 10) {
      const int lo = std::max(0, i - 1000);
      src +=
          std::to_string(lo + static_cast<int>(next() % static_cast<uint32_t>(i - 1 - lo))) + ',';
      dst += std::to_string(i) + ',';
    }
  }
  if (!src.empty()) src.pop_back(), dst.pop_back();
  std::string text =
      std::to_string(n + 1) + "\n" + std::to_string(n) + "\n" + src + "\n" + dst + "\n";
  for (int i = 0; i < n; ++i)
    text +=
        std::to_string(1 + next() % 100) + "000000," + std::to_string(1 + next() % 50) + "000000\n";
  return text;
}

// The longest the GUI thread went without running its event loop while it was being watched: a
// timer asks to run every 10 ms and notes each gap between two runs.
class StallWatch {
 public:
  StallWatch() {
    QObject::connect(&timer_, &QTimer::timeout,
                     [this] { longest_ = std::max(longest_, clock_.restart()); });
    clock_.start();
    timer_.start(10);
  }
  qint64 longestMs() const { return longest_; }

 private:
  QTimer timer_;
  QElapsedTimer clock_;
  qint64 longest_ = 0;
};

// The first drawn group with at least `least` members.
int someGroup(const DisplayGraph& d, int least = 3) {
  for (int v = 0; v < d.shownCount(); ++v)
    if (d.memberCount(v) >= least) return v;
  return -1;
}

}  // namespace

class LargeGraphTest : public QObject {
  Q_OBJECT
 private:
  MainWindow* w_ = nullptr;
  QTemporaryDir dir_;
  QString large_;  // 14 x 200 + 1 = 2,801 nodes

  GraphView* graph() const { return w_->graphView(); }
  const DisplayGraph& display() const { return *graph()->display(); }

  bool openSettled(const QString& path) {
    if (!w_->openFile(path)) return false;
    return w_->waitSettled(120000);
  }
  void doubleClickNode(int shown) {
    graph()->centerOn(graph()->graphScene()->nodeRect(shown).center());
    QTest::mouseDClick(graph()->viewport(), Qt::LeftButton, {}, graph()->viewportPosOfNode(shown));
  }

 private Q_SLOTS:
  void initTestCase() {
    large_ = writeFile(dir_, "layered.json", writeGraphJson(layeredGraph(200)));
    QVERIFY(!large_.isEmpty());
    w_ = doppler::qtest::openSettledWindow();
    QVERIFY(w_);
  }
  void cleanupTestCase() { delete w_; }

  void aLargeGraphIsDrawnAsGroupsAndTheTimelineShowsEveryNode() {
    QVERIFY(openSettled(large_));
    const auto full = w_->document()->graph();
    QCOMPARE(full->nodeCount(), 2801);
    QVERIFY(graph()->hasLayout());
    QVERIFY(display().coarse());
    QVERIFY(display().shownCount() <= kCoarsenTarget);
    QVERIFY(display().groupCount() > 0);
    QCOMPARE(display().full(), full);  // placement and timeline work on the full graph
    QCOMPARE(w_->document()->snapshot()->graph, full);
    QCOMPARE(w_->timelineView()->data()->nodeLane.size(), size_t(2801));
    for (int v = 0; v < full->nodeCount(); ++v)
      QVERIFY(w_->timelineView()->data()->nodeLane[v] >= 0);
    // The header says which engine drew how many groups of how many nodes.
    const QString subtitle = graph()->header().subtitle;
    QVERIFY2(subtitle.contains(
                 QStringLiteral("dot · %1 groups of 2,801 nodes").arg(display().shownCount())),
             qPrintable(subtitle));
    // A group is filled with the device that runs most of its members' work.
    const auto snapshot = w_->document()->snapshot();
    for (int v = 0; v < display().shownCount(); ++v) {
      std::vector<double> work(snapshot->devices->size(), 0);
      for (int m : display().members(v))
        work[snapshot->assignment[m]] += snapshot->costs->compute(m, snapshot->assignment[m]);
      const int most = static_cast<int>(std::max_element(work.begin(), work.end()) - work.begin());
      QCOMPARE(graph()->graphScene()->nodeDevice(v), most);
    }
  }

  void aGroupExpandsInPlaceAndCollapsesBack() {
    QVERIFY(openSettled(large_));
    const int before = display().shownCount();
    const int group = someGroup(display());
    QVERIFY(group >= 0);
    const std::vector<int> members(display().members(group).begin(),
                                   display().members(group).end());
    doubleClickNode(group);
    QVERIFY(w_->waitSettled(120000));
    QVERIFY(!graph()->layoutPending());
    QCOMPARE(display().shownCount(), before + static_cast<int>(members.size()) - 1);
    QCOMPARE(display().expanded().size(), size_t(1));
    // Every member is now a node of its own, framed together.
    std::set<int> drawn;
    for (int m : members) {
      const int shown = display().shownOf(m);
      QVERIFY(!display().isGroup(shown));
      QVERIFY(display().isExpandedMember(shown));
      QVERIFY(!graph()->graphScene()->nodeRect(shown).isEmpty());
      drawn.insert(shown);
    }
    QCOMPARE(drawn.size(), members.size());
    QCOMPARE(graph()->graphScene()->groupFrameCount(), 1);
    QVERIFY(graph()->header().subtitle.contains(QStringLiteral("1 expanded")));

    // Double-clicking a member collapses the group again.
    doubleClickNode(display().shownOf(members.back()));
    QVERIFY(w_->waitSettled(120000));
    QCOMPARE(display().shownCount(), before);
    QVERIFY(display().expanded().empty());
    QCOMPARE(graph()->graphScene()->groupFrameCount(), 0);

    // The keyboard does the same: E on the selected group, Shift+E collapses.
    w_->selection()->setSelected(members.front());
    graph()->setFocus();
    QTest::keyClick(graph(), Qt::Key_E);
    QVERIFY(w_->waitSettled(120000));
    QCOMPARE(display().shownCount(), before + static_cast<int>(members.size()) - 1);
    QTest::keyClick(graph(), Qt::Key_E, Qt::ShiftModifier);
    QVERIFY(w_->waitSettled(120000));
    QCOMPARE(display().shownCount(), before);
  }

  // A file written by `doppler graph coarsen` (or `graph import --coarsen`): the studio places its
  // fine graph, draws the file's own groups, and expands them in place.
  void aCoarsenedFileOpensWithItsOwnGroupsExpandable() {
    const DataflowGraph coarse = coarsenGraph(layeredGraph(20), 12);
    QCOMPARE(coarse.nodeCount(), 12);
    const QString path = writeFile(dir_, "coarse.json", writeGraphJson(coarse));
    QVERIFY(openSettled(path));
    QCOMPARE(w_->document()->graph()->nodeCount(), 281);  // every node is placed
    QVERIFY(display().coarse());
    QCOMPARE(display().shownCount(), 12);  // the file's groups, not a new coarsening
    QCOMPARE(display().full().get(), w_->document()->graph().get());
    for (int v = 0; v < 12; ++v)
      QCOMPARE(QString::fromStdString(display().shown()->node(v).id),
               QString::fromStdString(coarse.node(v).id));
    const int group = someGroup(display());
    QVERIFY(group >= 0);
    const int members = display().memberCount(group);
    QVERIFY(graph()->expandGroup(group));
    QVERIFY(w_->waitSettled(120000));
    QCOMPARE(display().shownCount(), 12 + members - 1);
    // The timeline has every fine node.
    QCOMPARE(static_cast<int>(w_->document()->snapshot()->sim.schedule.nodes.size()), 281);
  }

  void selectingInTheTimelineLightsTheGroupAndTheReverse() {
    QVERIFY(openSettled(large_));
    TimelineView* timeline = w_->timelineView();
    // A person clicks a bar in the timeline: the group holding that node lights in the graph.
    const int group = someGroup(display());
    const int node = display().members(group)[1];
    timeline->zoomBy(40);
    w_->selection()->setSelected(node);  // brings it into view
    QTest::qWait(1);
    const QPoint bar = timeline->pointOfNode(node);
    QVERIFY(bar.x() >= 0);
    w_->selection()->setSelected(-1);
    QTest::mouseClick(timeline->viewport(), Qt::LeftButton, {}, bar);
    const int clicked = timeline->selectedNode();
    QVERIFY(clicked >= 0);
    QCOMPARE(w_->selection()->selected(), clicked);
    QCOMPARE(graph()->graphScene()->selected(), display().shownOf(clicked));

    // A click on a group in the graph selects one of its members; the timeline shows it.
    const int other = someGroup(display(), 4) == group ? group : someGroup(display(), 4);
    graph()->centerOn(graph()->graphScene()->nodeRect(other).center());
    QTest::mouseClick(graph()->viewport(), Qt::LeftButton, {}, graph()->viewportPosOfNode(other));
    const int selected = w_->selection()->selected();
    QCOMPARE(display().shownOf(selected), other);
    QCOMPARE(graph()->graphScene()->selected(), other);
    QCOMPARE(timeline->selectedNode(), selected);
    // ... and outlines the group's other members, so its extent in time shows.
    QCOMPARE(timeline->groupNodes().size(), size_t(display().memberCount(other)));
  }

  void aLayoutCanBeAbandonedAndWorkGoesOn() {
    // Opening starts the layout; Esc abandons it at once, before it could arrive.
    const QString other = writeFile(dir_, "layered-150.json", writeGraphJson(layeredGraph(150)));
    QVERIFY(w_->openFile(other));
    QVERIFY(graph()->layoutPending());
    graph()->setFocus();
    QTest::keyClick(graph(), Qt::Key_Escape);
    QVERIFY(!graph()->layoutPending());
    QVERIFY(w_->jobs()->waitIdle(120000));
    QVERIFY(!graph()->hasLayout());  // the abandoned result was dropped
    // Everything else works: the placement, the timeline, selection.
    QVERIFY(w_->document()->snapshot());
    QCOMPARE(w_->document()->snapshot()->graph->nodeCount(), 14 * 150 + 1);
    QCOMPARE(w_->timelineView()->data()->nodeLane.size(), size_t(14 * 150 + 1));
    w_->selection()->setSelected(42);
    QCOMPARE(w_->timelineView()->selectedNode(), 42);
    // L lays it out again.
    QTest::keyClick(graph(), Qt::Key_L);
    QVERIFY(w_->waitSettled(120000));
    QVERIFY(graph()->hasLayout());

    // An expansion abandoned keeps the drawing as it was.
    const int before = display().shownCount();
    QVERIFY(graph()->expandGroup(someGroup(display())));
    QVERIFY(graph()->layoutPending());
    graph()->cancelLayout();
    QVERIFY(w_->jobs()->waitIdle(120000));
    QVERIFY(graph()->hasLayout());
    QCOMPARE(display().shownCount(), before);
    QVERIFY(display().expanded().empty());
  }

  // A text graph over StudioDocument::kSynchronousBytes is read on the import slot: openFile
  // returns before the file is read, what is open stays until it is, and the window says what it
  // reads. 100,000 nodes here (3 MB); DOPPLER_LARGE_TEXT_NODES=1000000 runs the same steps on a
  // million and prints the time to open and the GUI thread's longest stall (the README's figures
  // come from that run).
  void aLargeTextGraphIsReadOffTheGuiThread() {
    const int n = qEnvironmentVariableIsSet("DOPPLER_LARGE_TEXT_NODES")
                      ? qEnvironmentVariableIntValue("DOPPLER_LARGE_TEXT_NODES")
                      : 100000;
    const QString path = writeFile(dir_, QStringLiteral("chain-%1.txt").arg(n), chainText(n));
    QVERIFY(QFileInfo(path).size() > StudioDocument::kSynchronousBytes);
    QVERIFY(openSettled(large_));
    const auto before = w_->document()->graph();

    QElapsedTimer clock;
    clock.start();
    StallWatch watch;
    QSignalSpy loaded(w_->document(), &StudioDocument::loaded);
    QVERIFY(w_->openFile(path));
    QVERIFY(w_->document()->importing());
    QCOMPARE(w_->document()->graph(), before);  // nothing changes until the file is read
    QVERIFY2(w_->statusBar()->currentMessage().contains(QFileInfo(path).fileName()),
             qPrintable(w_->statusBar()->currentMessage()));
    QVERIFY(w_->waitSettled(600000));
    QCOMPARE(loaded.count(), 1);
    QCOMPARE(w_->document()->graph()->nodeCount(), n);
    QCOMPARE(w_->document()->snapshot()->graph->nodeCount(), n);
    QVERIFY(display().coarse());
    QVERIFY(graph()->hasLayout());
    QCOMPARE(w_->timelineView()->data()->nodeLane.size(), size_t(n));
    const qint64 openMs = clock.elapsed(), stallMs = watch.longestMs();
    // Then a tuner change places it again (on the placement slot above kSynchronousNodes).
    StallWatch again;
    clock.restart();
    auto* method = w_->findChild<TunerWidget*>()->findChild<QComboBox*>(QStringLiteral("method"));
    QVERIFY(method);
    method->setCurrentIndex(method->findData(QStringLiteral("round-robin")));
    QVERIFY(w_->waitSettled(600000));
    QCOMPARE(w_->document()->snapshot()->settings.method, std::string("round-robin"));
    qInfo(
        "%d nodes: opened, placed and drawn in %lld ms, the GUI thread's longest stall %lld ms; "
        "placed again (round-robin) in %lld ms, longest stall %lld ms",
        n, static_cast<long long>(openMs), static_cast<long long>(stallMs),
        static_cast<long long>(clock.elapsed()), static_cast<long long>(again.longestMs()));

    // A damaged large file: refused naming the file and the line, and the graph stays.
    std::string text = chainText(n);
    text.replace(text.rfind("000000,"), 7, "000000,x");
    const QString bad = writeFile(dir_, QStringLiteral("bad-chain.txt"), text);
    const auto open = w_->document()->graph();
    QVERIFY(w_->openFile(bad));
    QVERIFY(w_->jobs()->waitIdle(600000));
    QTRY_VERIFY(w_->lastError().contains(QStringLiteral("bad-chain.txt")));
    QVERIFY2(w_->lastError().contains(QStringLiteral("line %1").arg(n + 4)),
             qPrintable(w_->lastError()));
    QCOMPARE(w_->document()->graph(), open);
  }

#ifdef DOPPLER_TEST_ONNX
  void anOnnxModelOpensLikeAnyGraph() {
    const QString path = writeFile(dir_, "mlp.onnx", testmodels::mlpModel(8, {64, 128, 10}));
    QVERIFY(openSettled(path));
    QVERIFY(w_->document()->graphSource().endsWith(QStringLiteral("mlp.onnx")));
    QVERIFY(w_->document()->graph()->nodeCount() > 3);
    QVERIFY(graph()->hasLayout());
    QVERIFY(w_->lastError().isEmpty() || !w_->lastError().contains(QStringLiteral("mlp.onnx")));
  }

  void anOnnxModelWithDynamicDimensionsAsksForThem() {
    testmodels::TransformerSpec spec;
    spec.layers = 2;
    spec.dynamic = true;
    const QString path = writeFile(dir_, "dynamic.onnx", testmodels::transformerModel(spec));
    const auto before = w_->document()->graph();
    QVERIFY(w_->openFile(path));
    QVERIFY(w_->jobs()->waitIdle(120000));
    QTRY_VERIFY(w_->onnxPrompt()->dialog());
    QCOMPARE(w_->document()->graph(), before);  // nothing changes while asking
    OnnxDimsDialog* dialog = w_->onnxPrompt()->dialog();
    QVERIFY(dialog->isVisible());
    QVERIFY(dialog->editor(QStringLiteral("batch")));
    QVERIFY(dialog->editor(QStringLiteral("seq")));
    dialog->editor(QStringLiteral("batch"))->setValue(4);
    dialog->editor(QStringLiteral("seq"))->setValue(32);
    dialog->accept();
    QVERIFY(w_->waitSettled(120000));
    QVERIFY(w_->document()->graphSource().endsWith(QStringLiteral("dynamic.onnx")));
    QVERIFY(w_->document()->graph()->nodeCount() >=
            2 * (testmodels::kTransformerOpsPerLayer + testmodels::kTransformerWeightsPerLayer));
    QVERIFY(graph()->hasLayout());
    // The values are remembered per dimension name: the next model is prefilled with them.
    QVERIFY(w_->openFile(path));
    QVERIFY(w_->jobs()->waitIdle(120000));
    QTRY_VERIFY(w_->onnxPrompt()->dialog());
    QCOMPARE(w_->onnxPrompt()->dialog()->editor(QStringLiteral("batch"))->value(), 4);
    QCOMPARE(w_->onnxPrompt()->dialog()->editor(QStringLiteral("seq"))->value(), 32);
    w_->onnxPrompt()->dialog()->reject();
    QTRY_VERIFY(!w_->onnxPrompt()->dialog());
  }
#endif
};

DOPPLER_STUDIO_TEST_MAIN(LargeGraphTest)
#include "large_graph_test.moc"
