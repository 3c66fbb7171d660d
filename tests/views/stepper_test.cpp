// The decision stepper's views on a real trace (HEFT-style list scheduling of LLAMA-BLOCK on four
// devices): the ranked candidate and device models, the dock's keys, clicks and play, and the
// step overlays in the graph and the timeline.
#include <QAbstractItemModelTester>
#include <QLabel>
#include <QListWidget>
#include <QPainter>
#include <QPushButton>
#include <QSignalSpy>
#include <QStyle>
#include <QStyleFactory>
#include <QTableView>
#include <QtTest>
#include <algorithm>
#include <set>

#include "core/heuristics/list_scheduler.h"
#include "tests/support/mouse.h"
#include "tests/views/synthetic.h"
#include "views/common/selection_state.h"
#include "views/common/shortcuts.h"
#include "views/common/theme.h"
#include "views/graph/graph_view.h"
#include "views/stepper/candidate_model.h"
#include "views/stepper/device_choice_model.h"
#include "views/stepper/score_scale.h"
#include "views/stepper/stepper_widget.h"
#include "views/timeline/timeline_view.h"

using namespace doppler;
using namespace doppler::views;
using doppler::qtest::sendMouse;

namespace {

struct Traced {
  std::shared_ptr<const DataflowGraph> graph;
  std::shared_ptr<const DeviceSet> devices;
  std::shared_ptr<const DecisionTrace> trace;
  Schedule plan;
};

Traced traced(const std::string& kind, ListConfig config) {
  Traced t;
  t.graph = std::make_shared<const DataflowGraph>(generateGraph(kind));
  t.devices = std::make_shared<const DeviceSet>(DeviceSet::uniform(4));
  const CostTable costs(*t.graph, *t.devices);
  const DecisionControl control{true, {}, t.graph.get()};
  Placement p = listSchedule(costs, config, &control);
  t.trace = std::make_shared<const DecisionTrace>(std::move(p.decisions));
  t.plan = *p.planned;
  return t;
}

ListConfig heft() {
  ListConfig c;
  c.device_rule = ListConfig::DeviceRule::EarliestFinish;
  c.insertion = true;
  return c;
}

// What the studio's stepper session hands the graph and the timeline at step k.
StepOverlayPtr overlayAt(const Traced& t, int k) {
  auto o = std::make_shared<StepOverlay>();
  const int n = t.graph->nodeCount();
  o->step = k;
  o->steps = static_cast<int>(t.trace->steps.size());
  if (k < o->steps) {
    o->ready = t.trace->steps[k].ready;
    o->chosen = t.trace->steps[k].node;
  }
  o->node_score = t.trace->node_score;
  o->node_higher_better = t.trace->node_higher_better;
  o->plan = t.plan;
  o->placed.assign(n, 0);
  for (int s = 0; s < k; ++s) o->placed[t.trace->steps[s].node] = 1;
  o->partial_makespan_us = k > 0 ? t.trace->steps[k - 1].partial_makespan_us : 0;
  return o;
}

// What a real double-click delivers: press, release, double-click, release.
void doubleClick(QWidget* viewport, QPoint pos) {
  QTest::mousePress(viewport, Qt::LeftButton, {}, pos);
  QTest::mouseRelease(viewport, Qt::LeftButton, {}, pos);
  QTest::mouseDClick(viewport, Qt::LeftButton, {}, pos);
  QTest::mouseRelease(viewport, Qt::LeftButton, {}, pos);
}

StepperContent contentAt(const Traced& t, int k) {
  StepperContent c;
  c.graph = t.graph;
  c.devices = t.devices;
  c.trace = t.trace;
  c.source = QStringLiteral("heft (tuner settings)");
  c.step = k;
  c.final_makespan_us = t.plan.makespan_us;
  c.branches = {{QStringLiteral("original"), t.plan.makespan_us}};
  return c;
}

// A step after the first whose ready set has at least three candidates, so "another" candidate
// exists and some node is placed already.
int busyStep(const DecisionTrace& trace) {
  for (size_t k = 1; k < trace.steps.size(); ++k)
    if (trace.steps[k].ready.size() >= 3) return static_cast<int>(k);
  return -1;
}

}  // namespace

class StepperTest : public QObject {
  Q_OBJECT
 private:
  Traced heft_ = traced("llama-block", heft());
  StepperWidget* w_ = nullptr;

  int steps() const { return static_cast<int>(heft_.trace->steps.size()); }

  // Shows the widget at step k, and follows its requests as the studio would.
  void followRequests() {
    connect(w_, &StepperWidget::stepRequested, w_,
            [this](int step) { w_->setContent(contentAt(heft_, step)); });
  }

  QPoint rowCentre(QTableView* view, int row) const {
    return view->visualRect(view->model()->index(row, 0)).center();
  }

 private Q_SLOTS:
  void init() {
    w_ = new StepperWidget;
    w_->resize(520, 720);
    w_->show();
    QVERIFY(QTest::qWaitForWindowExposed(w_));
  }
  void cleanup() {
    delete w_;
    w_ = nullptr;
  }

  void theTraceCoversEveryNode() {
    QCOMPARE(steps(), heft_.graph->nodeCount());
    QVERIFY(busyStep(*heft_.trace) >= 0);
  }

  void candidatesAreRankedBestFirstWithTheChoiceFlagged() {
    CandidateModel model;
    for (int k = 0; k < steps(); ++k) {
      const DecisionStep& step = heft_.trace->steps[k];
      model.setStep(heft_.graph, heft_.trace, k);
      QCOMPARE(model.rowCount(), static_cast<int>(step.ready.size()));
      std::set<int> shown, ready;
      int chosen = 0;
      for (int r = 0; r < model.rowCount(); ++r) {
        const QModelIndex i = model.index(r, CandidateModel::ScoreColumn);
        shown.insert(i.data(ItemIndexRole).toInt());
        chosen += i.data(ChosenRole).toBool();
        const double fraction = i.data(BarFractionRole).toDouble();
        QVERIFY(fraction > 0 && fraction <= 1);
        // Upward rank: larger first.
        if (r > 0)
          QVERIFY(model.index(r - 1, 0).data(ScoreValueRole).toDouble() >=
                  i.data(ScoreValueRole).toDouble());
      }
      for (const CandidateScore& c : step.ready) ready.insert(c.node);
      QCOMPARE(shown, ready);
      QCOMPARE(chosen, 1);
      QCOMPARE(model.nodeAt(model.chosenRow()), step.node);
      QCOMPARE(model.index(0, 0).data(BarFractionRole).toDouble(), 1.0);
      QCOMPARE(model.index(model.chosenRow(), 0).data(Qt::FontRole).value<QFont>().bold(), true);
      QCOMPARE(model.index(0, CandidateModel::NodeColumn).data().toString(),
               QString::fromStdString(heft_.graph->node(model.nodeAt(0)).id));
    }
    // The episode complete: nothing to rank.
    model.setStep(heft_.graph, heft_.trace, steps());
    QCOMPARE(model.rowCount(), 0);
  }

  void lowerIsBetterScoresRankAscending() {
    ListConfig etf;
    etf.selection = ListConfig::Selection::EarliestStart;
    const Traced t = traced("llama-block", etf);
    QVERIFY(!t.trace->node_higher_better);
    CandidateModel model;
    for (int k = 0; k < static_cast<int>(t.trace->steps.size()); ++k) {
      model.setStep(t.graph, t.trace, k);
      for (int r = 1; r < model.rowCount(); ++r)
        QVERIFY(model.index(r - 1, 0).data(ScoreValueRole).toDouble() <=
                model.index(r, 0).data(ScoreValueRole).toDouble());
      // ETF picks the earliest start, so the choice ranks first (ties: the choice first).
      QCOMPARE(model.chosenRow(), 0);
    }
  }

  void barFractionsFavourTheBest() {
    // Probabilities: proportional.
    const auto p = barFractions({0.5, 0.25, 0.25}, true);
    QCOMPARE(p[0], 1.0);
    QCOMPARE(p[1], 0.5);
    // Times where lower is better: proportional to best / score.
    const auto f = barFractions({20, 10, 40}, false);
    QCOMPARE(f[1], 1.0);
    QCOMPARE(f[0], 0.5);
    QCOMPARE(f[2], 0.25);
    // A best of 0: linear, the worst short but visible.
    const auto t = barFractions({100, 0, 50}, false);
    QCOMPARE(t[1], 1.0);
    QCOMPARE(t[0], 0.1);
    QVERIFY(t[2] > t[0] && t[2] < t[1]);
    QCOMPARE(barFractions({3, 3}, false), (std::vector<double>{1, 1}));
    QCOMPARE(formatScore(0.4213, "SEL probability"), QStringLiteral("0.42"));
    QCOMPARE(formatScore(108, "upward rank (us)"), formatDuration(108));
  }

  void deviceRowsShowEveryDeviceWithItsEstimates() {
    DeviceChoiceModel model;
    const int k = busyStep(*heft_.trace);
    const DecisionStep& step = heft_.trace->steps[k];
    model.setStep(heft_.devices, heft_.trace, k);
    QCOMPARE(model.rowCount(), 4);
    for (int r = 0; r < 4; ++r) {
      const DeviceScore& d = step.devices[r];
      QCOMPARE(model.deviceAt(r), d.device);
      QCOMPARE(model.index(r, DeviceChoiceModel::StartColumn).data().toString(),
               formatDuration(d.est_start_us));
      QCOMPARE(model.index(r, DeviceChoiceModel::FinishColumn).data().toString(),
               formatDuration(d.est_finish_us));
      QCOMPARE(model.index(r, DeviceChoiceModel::JoinColumn).data().toString(),
               formatDuration(d.join_us));
      QCOMPARE(model.index(r, 0).data(ChosenRole).toBool(), d.device == step.device);
    }
    QCOMPARE(model.deviceAt(model.chosenRow()), step.device);
    // Earliest finish: the chosen device has the best (smallest) score and the full bar.
    QCOMPARE(model.index(model.chosenRow(), DeviceChoiceModel::ScoreColumn)
                 .data(BarFractionRole)
                 .toDouble(),
             1.0);
  }

  // The join look-ahead in the critical colour exactly where a successor would wait visibly (by
  // more than 0.5%) for a transfer; the tooltip tells any wait. Over the block's steps, both
  // kinds occur.
  void joinColumnMarksSplitJoins() {
    DeviceChoiceModel model;
    int waits = 0, meets = 0;
    for (int k = 0; k < steps(); ++k) {
      model.setStep(heft_.devices, heft_.trace, k);
      for (int r = 0; r < model.rowCount(); ++r) {
        const DeviceScore& d = heft_.trace->steps[k].devices[model.deviceAt(r)];
        const QModelIndex join = model.index(r, DeviceChoiceModel::JoinColumn);
        const bool marked = join.data(Qt::ForegroundRole).isValid();
        const bool wait = d.join_us > d.est_finish_us * (1 + 1e-9);
        QCOMPARE(marked, d.join_us > d.est_finish_us * (1 + DeviceChoiceModel::kVisibleWait));
        QVERIFY(join.data(Qt::ToolTipRole).toString().contains(wait ? "would wait" : "meet as"));
        (marked ? waits : meets) += 1;
      }
    }
    QVERIFY(waits > 0);
    QVERIFY(meets > 0);
  }

  void modelsStayConsistentWhileStepping() {
    QAbstractItemModelTester candidates(w_->candidateModel(),
                                        QAbstractItemModelTester::FailureReportingMode::QtTest);
    QAbstractItemModelTester devices(w_->deviceModel(),
                                     QAbstractItemModelTester::FailureReportingMode::QtTest);
    for (int k = 0; k <= steps(); ++k) w_->setContent(contentAt(heft_, k));
    QCOMPARE(w_->candidateModel()->rowCount(), 0);  // complete
    QCOMPARE(w_->deviceModel()->rowCount(), 0);
    for (int k : {steps() - 1, 3, 0, busyStep(*heft_.trace), steps(), 1})
      w_->setContent(contentAt(heft_, k));
    w_->clear(QStringLiteral("no graph"));
    QCOMPARE(w_->candidateModel()->rowCount(), 0);
    w_->setContent(contentAt(heft_, 2));
    QCOMPARE(w_->candidateModel()->rowCount(),
             static_cast<int>(heft_.trace->steps[2].ready.size()));
  }

  // Times carry their unit on the values ("4.62 ms"), so the caption names none; a tie at the
  // best score is counted and its rule stated; a recorded order says it has no scores and shows
  // none.
  void captionsStateUnitsTiesAndRecordedOrders() {
    QCOMPARE(scoreCaption("upward rank (us)", true), QStringLiteral("upward rank, higher first"));
    QCOMPARE(tiedAtBest({4.62, 4.62, 3.0}, true), 2);
    QCOMPARE(tiedAtBest({4.62, 4.62, 3.0}, false), 1);
    int tiedStep = -1;
    for (size_t k = 0; k < heft_.trace->steps.size() && tiedStep < 0; ++k) {
      std::vector<double> scores;
      for (const CandidateScore& c : heft_.trace->steps[k].ready) scores.push_back(c.score);
      if (tiedAtBest(scores, true) > 1) tiedStep = static_cast<int>(k);
    }
    QVERIFY2(tiedStep >= 0, "the LLaMA block's identical heads should tie somewhere");
    w_->setContent(contentAt(heft_, tiedStep));
    auto* caption = w_->findChild<QLabel*>("candidatesCaption");
    QVERIFY(caption->text().contains(QStringLiteral("tied")));
    QVERIFY(caption->text().contains(QStringLiteral("lower node index first")));
    QVERIFY(!caption->text().contains(QString::fromUtf8("µs")));
    auto* table = w_->findChild<QTableView*>("candidates");
    QVERIFY(!table->isColumnHidden(CandidateModel::ScoreColumn));

    auto recorded = std::make_shared<DecisionTrace>(*heft_.trace);
    recorded->node_scored = false;
    Traced replay = heft_;
    replay.trace = recorded;
    w_->setContent(contentAt(replay, tiedStep));
    QVERIFY(caption->text().contains(QStringLiteral("recorded order: no scores")));
    QVERIFY(table->isColumnHidden(CandidateModel::ScoreColumn));
  }

  void theHeaderSaysWhereTheEpisodeStands() {
    const int k = busyStep(*heft_.trace) + 1;
    StepperContent c = contentAt(heft_, k);
    c.final_makespan_us = 90;
    c.original_makespan_us = 100;
    c.branches.push_back({QStringLiteral("step 3: node x"), 90});
    c.current_branch = 1;
    w_->setContent(c);
    auto* title = w_->findChild<QLabel*>("stepTitle");
    QCOMPARE(title->text(), QStringLiteral("Step %1 / %2").arg(k).arg(steps()));
    QCOMPARE(w_->findChild<QLabel*>("makespanSoFar")->text(),
             formatDuration(heft_.trace->steps[k - 1].partial_makespan_us));
    QCOMPARE(w_->findChild<QLabel*>("finalMakespan")->text(), formatDuration(90));
    auto* original = w_->findChild<QLabel*>("originalMakespan");
    QVERIFY(original->isVisible());
    QVERIFY(original->text().contains(formatDuration(100)));
    QVERIFY(original->text().contains(QString::fromUtf8("−10.0%")));
    QCOMPARE(w_->branchList()->count(), 2);
    QVERIFY(w_->findChild<QPushButton*>("saveBranch")->isEnabled());
    // On the original branch: no comparison, nothing to save.
    w_->setContent(contentAt(heft_, k));
    QVERIFY(!original->isVisible());
    QVERIFY(!w_->findChild<QPushButton*>("saveBranch")->isEnabled());
  }

  void stepKeysRequestSteps() {
    QSignalSpy spy(w_, &StepperWidget::stepRequested);
    w_->setContent(contentAt(heft_, 5));
    QTableView* list = w_->candidateView();
    list->setFocus();
    QTest::keyClick(list, Qt::Key_Right);
    QTest::keyClick(list, Qt::Key_Left);
    QTest::keyClick(list, Qt::Key_Home);
    QTest::keyClick(list, Qt::Key_End);
    QTest::keyClick(w_->deviceView(), Qt::Key_Right);
    QTest::keyClick(w_, Qt::Key_Left);  // the dock itself
    QCOMPARE(spy.count(), 6);
    const QList<int> expected = {6, 4, 0, steps(), 6, 4};
    for (int i = 0; i < 6; ++i) QCOMPARE(spy.at(i).at(0).toInt(), expected[i]);
    // At the ends there is nowhere to go.
    spy.clear();
    w_->setContent(contentAt(heft_, 0));
    QTest::keyClick(list, Qt::Key_Left);
    QTest::keyClick(list, Qt::Key_Home);
    w_->setContent(contentAt(heft_, steps()));
    QTest::keyClick(list, Qt::Key_Right);
    QTest::keyClick(list, Qt::Key_End);
    QCOMPARE(spy.count(), 0);
    // The keys come from the shortcut table.
    QCOMPARE(keysOf(Command::StepNext), QList<QKeySequence>{QKeySequence(Qt::Key_Right)});
    QCOMPARE(keysOf(Command::StepPlay), QList<QKeySequence>{QKeySequence(Qt::Key_Space)});
    QCOMPARE(shortcut(Command::StepFirst).section, QStringLiteral("Decision stepper"));
  }

  void theArrowsStayWithTheOtherViews() {
    // The step keys are the dock's only while it has the focus: the timeline still pans on →.
    QSignalSpy spy(w_, &StepperWidget::stepRequested);
    w_->setContent(contentAt(heft_, 5));
    TimelineView timeline(nullptr);
    timeline.resize(600, 300);
    timeline.show();
    QVERIFY(QTest::qWaitForWindowExposed(&timeline));
    timeline.setSnapshot(testing::snapshotOf(heft_.graph, 4));
    const double t0 = timeline.visibleStart();
    QTest::keyClick(&timeline, Qt::Key_Right);
    QVERIFY(timeline.visibleStart() > t0);
    QCOMPARE(spy.count(), 0);
  }

  void doubleClickOnAnotherCandidateOverridesTheNode() {
    const int k = busyStep(*heft_.trace);
    w_->setContent(contentAt(heft_, k));
    QSignalSpy spy(w_, &StepperWidget::nodeOverrideRequested);
    auto* model = static_cast<CandidateModel*>(w_->candidateModel());
    QTableView* view = w_->candidateView();
    // The chosen row asks for nothing: that is the decision already made.
    doubleClick(view->viewport(), rowCentre(view, model->chosenRow()));
    QCOMPARE(spy.count(), 0);
    const int other = model->chosenRow() == 0 ? 1 : 0;
    doubleClick(view->viewport(), rowCentre(view, other));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), model->nodeAt(other));
    QVERIFY(model->nodeAt(other) != heft_.trace->steps[k].node);
    // Enter on the current row does the same.
    const int third = model->rowCount() - 1 == model->chosenRow() ? 1 : model->rowCount() - 1;
    view->setCurrentIndex(model->index(third, 0));
    QTest::keyClick(view, Qt::Key_Return);
    QCOMPARE(spy.count(), 2);
    QCOMPARE(spy.at(1).at(0).toInt(), model->nodeAt(third));
  }

  void doubleClickOnAnotherDeviceOverridesTheDevice() {
    const int k = busyStep(*heft_.trace);
    w_->setContent(contentAt(heft_, k));
    QSignalSpy spy(w_, &StepperWidget::deviceOverrideRequested);
    auto* model = static_cast<DeviceChoiceModel*>(w_->deviceModel());
    QTableView* view = w_->deviceView();
    doubleClick(view->viewport(), rowCentre(view, model->chosenRow()));
    QCOMPARE(spy.count(), 0);
    const int other = (model->chosenRow() + 1) % 4;
    doubleClick(view->viewport(), rowCentre(view, other));
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), model->deviceAt(other));
  }

  void noOverrideWhileAReplayIsComputing() {
    const int k = busyStep(*heft_.trace);
    StepperContent c = contentAt(heft_, k);
    c.can_override = false;
    w_->setContent(c);
    QSignalSpy nodes(w_, &StepperWidget::nodeOverrideRequested);
    QSignalSpy devices(w_, &StepperWidget::deviceOverrideRequested);
    auto* candidates = static_cast<CandidateModel*>(w_->candidateModel());
    auto* deviceModel = static_cast<DeviceChoiceModel*>(w_->deviceModel());
    const int other = candidates->chosenRow() == 0 ? 1 : 0;
    doubleClick(w_->candidateView()->viewport(), rowCentre(w_->candidateView(), other));
    w_->candidateView()->setCurrentIndex(candidates->index(other, 0));
    QTest::keyClick(w_->candidateView(), Qt::Key_Return);
    doubleClick(w_->deviceView()->viewport(),
                rowCentre(w_->deviceView(), (deviceModel->chosenRow() + 1) % 4));
    QCOMPARE(nodes.count(), 0);
    QCOMPARE(devices.count(), 0);
    QVERIFY(w_->findChild<QLabel*>("busy")->isVisible());
  }

  void branchesAndButtonsAskTheStudio() {
    StepperContent c = contentAt(heft_, 4);
    c.branches.push_back({QStringLiteral("step 2: device gpu1"), heft_.plan.makespan_us * 1.1});
    w_->setContent(c);
    QSignalSpy branch(w_, &StepperWidget::branchRequested);
    QSignalSpy save(w_, &StepperWidget::saveBranchRequested);
    QSignalSpy source(w_, &StepperWidget::sourceRequested);
    QListWidget* list = w_->branchList();
    QVERIFY(list->item(1)->text().contains(QStringLiteral("+10.0%")));
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(0)).center());
    QCOMPARE(branch.count(), 0);  // already there
    QTest::mouseClick(list->viewport(), Qt::LeftButton, {},
                      list->visualItemRect(list->item(1)).center());
    QCOMPARE(branch.count(), 1);
    QCOMPARE(branch.at(0).at(0).toInt(), 1);
    c.current_branch = 1;
    w_->setContent(c);
    QTest::mouseClick(w_->findChild<QPushButton*>("saveBranch"), Qt::LeftButton);
    QTest::mouseClick(w_->findChild<QPushButton*>("sourceButton"), Qt::LeftButton);
    QCOMPARE(save.count(), 1);
    QCOMPARE(source.count(), 1);
  }

  void playStepsToTheEndAndStops() {
    followRequests();
    QSignalSpy steps(w_, &StepperWidget::stepRequested);
    QSignalSpy playing(w_, &StepperWidget::playingChanged);
    w_->setContent(contentAt(heft_, this->steps() - 3));
    w_->setSpeed(25);
    QCOMPARE(w_->speed(), 25);
    w_->setPlaying(true);
    QVERIFY(w_->playing());
    QTRY_VERIFY_WITH_TIMEOUT(!w_->playing(), 10000);
    QCOMPARE(steps.count(), 3);
    for (int i = 0; i < 3; ++i) QCOMPARE(steps.at(i).at(0).toInt(), this->steps() - 2 + i);
    QCOMPARE(w_->step(), this->steps());
    QCOMPARE(playing.count(), 2);
    QCOMPARE(playing.at(1).at(0).toBool(), false);
    // Space plays; at the end, play starts over from the first step.
    steps.clear();
    QTest::keyClick(w_->candidateView(), Qt::Key_Space);
    QVERIFY(w_->playing());
    QCOMPARE(steps.at(0).at(0).toInt(), 0);
    w_->playTick();
    QCOMPARE(w_->step(), 1);
    QTest::keyClick(w_->candidateView(), Qt::Key_Space);
    QVERIFY(!w_->playing());
  }

  void playTicksAdvanceOneStepEach() {
    followRequests();
    w_->setContent(contentAt(heft_, 0));
    w_->setPlaying(true);
    w_->playTick();
    w_->playTick();
    QCOMPARE(w_->step(), 2);
    w_->setPlaying(false);
    w_->setContent(contentAt(heft_, steps()));
    w_->playTick();  // at the end a tick stops and asks for nothing
    QCOMPARE(w_->step(), steps());
    QVERIFY(!w_->playing());
  }

  void graphOverlayMarksTheReadySetAndTheChosenNode() {
    SelectionState selection;
    GraphView view(&selection);
    connect(&view, &GraphView::layoutRequested, &view,
            [&view](std::shared_ptr<const LayoutInput> in) {
              view.setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*in)));
            });
    view.resize(1000, 700);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSnapshot(testing::snapshotOf(heft_.graph, 4, "heft"));
    QVERIFY(view.hasLayout());
    GraphScene* scene = view.graphScene();
    const int n = heft_.graph->nodeCount();
    for (int k : {0, busyStep(*heft_.trace), n / 2, n - 1, n}) {
      const StepOverlayPtr o = overlayAt(heft_, k);
      view.setStepOverlay(o);
      std::set<int> ready;
      for (const CandidateScore& c : o->ready) ready.insert(c.node);
      int readyCount = 0, chosenCount = 0, placedCount = 0;
      for (int v = 0; v < n; ++v) {
        const StepRole role = scene->stepRole(v);
        if (v == o->chosen) {
          QCOMPARE(role, StepRole::Chosen);
          ++chosenCount;
        } else if (ready.count(v)) {
          QCOMPARE(role, StepRole::Ready);
          ++readyCount;
        } else {
          QCOMPARE(role, o->placed[v] ? StepRole::Placed : StepRole::Unplaced);
          placedCount += o->placed[v];
        }
      }
      QCOMPARE(chosenCount, k < n ? 1 : 0);
      QCOMPARE(readyCount + chosenCount, static_cast<int>(ready.size()));
      QCOMPARE(placedCount, k);
      QVERIFY(view.header().subtitle.contains(QStringLiteral("step %1/%2").arg(k).arg(n)));
    }
    // Selection and the critical path still work under the overlay.
    view.setStepOverlay(overlayAt(heft_, 3));
    selection.setSelected(1);
    QCOMPARE(scene->selected(), 1);
    QVERIFY(scene->criticalPathVisible());
    const QImage image = view.grab().toImage();
    QVERIFY(!image.isNull());
    view.setStepOverlay(nullptr);
    for (int v = 0; v < n; ++v) QCOMPARE(scene->stepRole(v), StepRole::None);
    QVERIFY(!view.header().subtitle.contains(QStringLiteral("step ")));
  }

  void clickingAReadyNodeInTheGraphAsksForIt() {
    SelectionState selection;
    GraphView view(&selection);
    connect(&view, &GraphView::layoutRequested, &view,
            [&view](std::shared_ptr<const LayoutInput> in) {
              view.setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*in)));
            });
    view.resize(1400, 900);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    view.setSnapshot(testing::snapshotOf(heft_.graph, 4, "heft"));
    const int k = busyStep(*heft_.trace);
    const StepOverlayPtr o = overlayAt(heft_, k);
    view.setStepOverlay(o);
    QSignalSpy spy(&view, &GraphView::stepNodeClicked);
    int ready = -1;
    for (const CandidateScore& c : o->ready)
      if (c.node != o->chosen) ready = c.node;
    QVERIFY(ready >= 0);
    view.zoomBy(1.0 / view.zoom());  // 100%, so the node is a comfortable target
    view.centerOn(view.graphScene()->nodeRect(ready).center());
    const QPoint p = view.viewportPosOfNode(ready);
    QCOMPARE(view.nodeAtViewport(p), ready);
    sendMouse(view.viewport(), QEvent::MouseButtonPress, p, Qt::LeftButton, Qt::LeftButton);
    sendMouse(view.viewport(), QEvent::MouseButtonRelease, p, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(spy.count(), 1);
    QCOMPARE(spy.at(0).at(0).toInt(), ready);
    QCOMPARE(selection.selected(), ready);  // clicking still selects
    // A placed node is no candidate.
    const int placed = heft_.trace->steps[0].node;
    view.centerOn(view.graphScene()->nodeRect(placed).center());
    const QPoint q = view.viewportPosOfNode(placed);
    QCOMPARE(view.nodeAtViewport(q), placed);
    sendMouse(view.viewport(), QEvent::MouseButtonPress, q, Qt::LeftButton, Qt::LeftButton);
    sendMouse(view.viewport(), QEvent::MouseButtonRelease, q, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(spy.count(), 1);
    // Without an overlay, clicks only select.
    view.setStepOverlay(nullptr);
    view.centerOn(view.graphScene()->nodeRect(ready).center());
    const QPoint r = view.viewportPosOfNode(ready);
    sendMouse(view.viewport(), QEvent::MouseButtonPress, r, Qt::LeftButton, Qt::LeftButton);
    sendMouse(view.viewport(), QEvent::MouseButtonRelease, r, Qt::LeftButton, Qt::NoButton);
    QCOMPARE(spy.count(), 1);
  }

  void timelineOverlayDrawsThePlanPlacedSolidTheRestFaint() {
    TimelineView view(nullptr);
    view.resize(1200, 400);
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    const SnapshotPtr snapshot = testing::snapshotOf(heft_.graph, 4, "heft");
    view.setSnapshot(snapshot);
    const int n = heft_.graph->nodeCount();
    QCOMPARE(view.faintNodeCount(), 0);
    for (int k : {0, 7, n / 2, n}) {
      const StepOverlayPtr o = overlayAt(heft_, k);
      view.setStepOverlay(o);
      QCOMPARE(view.faintNodeCount(), n - k);
      QCOMPARE(view.data()->makespan, heft_.plan.makespan_us);
      QVERIFY(view.header().title.contains(QStringLiteral("planned, step %1/%2").arg(k).arg(n)));
    }
    view.setStepOverlay(nullptr);
    QCOMPARE(view.faintNodeCount(), 0);
    QCOMPARE(view.data()->makespan, snapshot->makespan());
    QVERIFY(!view.header().title.contains(QStringLiteral("planned")));
  }

  void timelinePaintsUnplacedBarsFaint() {
    // Painted without labels, the middle of a wide bar is its fill: the bar's own colour when
    // placed, mostly the lane's background when not.
    const StepOverlayPtr o = overlayAt(heft_, heft_.graph->nodeCount() / 2);
    TimelineData data = TimelineData::build(*heft_.graph, *heft_.devices, o->plan);
    data.nodeLabels.clear();
    TimelineState state;
    state.colorMode = TimelineColorMode::Device;
    state.placed = o->placed;
    state.stepMarkerUs = o->partial_makespan_us;
    const QSize size(2400, 400);
    const QFont font = QApplication::font();
    const TimelineGeometry geo = TimelinePainter::geometry(data, state.header, font, size);
    state.usPerPx = data.makespan * 1.02 / geo.plotWidth();
    QImage image(size, QImage::Format_ARGB32_Premultiplied);
    QPainter p(&image);
    TimelinePainter::paint(p, size, data, state, font, geo);
    p.end();
    int solid = 0, faint = 0;
    for (int v = 0; v < heft_.graph->nodeCount(); ++v) {
      const int lane = data.nodeLane[v];
      const TimelineEvent& e = data.lanes[lane].events[data.nodeIndex[v]];
      const double x0 = geo.plotLeft + (e.start - state.t0) / state.usPerPx;
      const double x1 = geo.plotLeft + (e.finish - state.t0) / state.usPerPx;
      if (x1 - x0 < 8) continue;
      const QPoint mid(static_cast<int>((x0 + x1) / 2),
                       geo.lanesTop + geo.laneY[lane] + geo.laneH[lane] / 2);
      // The makespan-so-far line crosses one column; a bar under it is not a clean sample.
      const double marker = geo.plotLeft + (state.stepMarkerUs - state.t0) / state.usPerPx;
      if (std::abs(mid.x() - marker) < 3) continue;
      const QColor pixel = image.pixelColor(mid);
      const QColor device = QColor::fromRgb(data.deviceColor[lane]);
      if (o->placed[v]) {
        QCOMPARE(pixel.rgb(), device.rgb());
        ++solid;
      } else {
        QVERIFY(pixel.rgb() != device.rgb());
        ++faint;
      }
    }
    QVERIFY(solid > 0);
    QVERIFY(faint > 0);
  }

  void rendersReadablyInBothThemes() {
    // DOPPLER_STEPPER_PNG=DIR saves the dock, the graph and the timeline, light and dark, for
    // LLAMA-BLOCK and LLAMA-LAYER, to look at.
    const QString dir = qEnvironmentVariable("DOPPLER_STEPPER_PNG");
    const QString style = QApplication::style()->name();
    const QPalette palette = QApplication::palette();
    QStringList kinds = {QStringLiteral("llama-block")};
    if (!dir.isEmpty()) kinds << QStringLiteral("llama-layer");
    for (const QString& kind : kinds) {
      const Traced t =
          kind == QLatin1String("llama-block") ? heft_ : traced(kind.toStdString(), heft());
      SelectionState selection;
      GraphView graph(&selection);
      connect(&graph, &GraphView::layoutRequested, &graph,
              [&graph](std::shared_ptr<const LayoutInput> in) {
                graph.setLayoutResult(std::make_shared<LayoutResult>(computeLayout(*in)));
              });
      TimelineView timeline(&selection);
      graph.resize(1200, 800);
      timeline.resize(1400, 420);
      graph.show();
      timeline.show();
      QVERIFY(QTest::qWaitForWindowExposed(&timeline));
      const SnapshotPtr snapshot = testing::snapshotOf(t.graph, 4, "heft");
      graph.setSnapshot(snapshot);
      timeline.setSnapshot(snapshot);
      const int k = busyStep(*t.trace) + static_cast<int>(t.trace->steps.size()) / 4;
      const StepOverlayPtr o = overlayAt(t, k);
      StepperContent c = contentAt(t, k);
      c.original_makespan_us = t.plan.makespan_us * 1.05;
      c.branches = {{QStringLiteral("original"), *c.original_makespan_us},
                    {QStringLiteral("step 9: device gpu2"), t.plan.makespan_us}};
      c.current_branch = 1;
      QImage shots[2][3];
      for (bool dark : {false, true}) {
        Theme::setDark(dark, qApp);
        w_->setContent(c);
        graph.setStepOverlay(o);
        timeline.setStepOverlay(o);
        QCoreApplication::processEvents();
        // Nothing in the dock's header is cut short.
        for (const char* name :
             {"stepTitle", "makespanSoFar", "finalMakespan", "originalMakespan"}) {
          auto* label = w_->findChild<QLabel*>(name);
          QVERIFY2(label->sizeHint().width() <= label->width(), name);
        }
        QWidget* views[] = {w_, &graph, &timeline};
        const char* names[] = {"stepper", "graph", "timeline"};
        for (int i = 0; i < 3; ++i) {
          shots[dark][i] = views[i]->grab().toImage();
          QVERIFY(!shots[dark][i].isNull());
          if (!dir.isEmpty())
            shots[dark][i].save(QDir(dir).filePath(
                QStringLiteral("%1-%2-%3.png")
                    .arg(names[i], kind, dark ? QStringLiteral("dark") : QStringLiteral("light"))));
        }
      }
      for (int i = 0; i < 3; ++i) QVERIFY(shots[0][i] != shots[1][i]);
    }
    Theme::setDark(false);
    QApplication::setStyle(QStyleFactory::create(style));
    QApplication::setPalette(palette);
  }
};

int runStepperTest(int argc, char** argv) {
  StepperTest t;
  return QTest::qExec(&t, argc, argv);
}

#include "stepper_test.moc"
