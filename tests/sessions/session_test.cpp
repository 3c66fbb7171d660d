// Sessions as files: create, open, Save As (a consistent copy that every run opens from as it
// was), the default session in the data directory, and the recent sessions list.
#include "sessions/session.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <optional>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"
#include "sessions/from_core.h"
#include "sessions/metric_writer.h"
#include "sessions/queries.h"
#include "sessions/recent_sessions.h"
#include "sessions/user_paths.h"
#include "tests/sessions/test_util.h"

namespace doppler::sessions {
namespace {

namespace fs = std::filesystem;

using testing::diamond;
using testing::StoreTest;

class SessionFiles : public StoreTest {};

// Sets environment variables for one test and restores them after.
class EnvGuard {
 public:
  void set(const char* name, const char* value) {
    if (!saved_.count(name)) {
      const char* old = std::getenv(name);
      saved_[name] = old ? std::optional<std::string>(old) : std::nullopt;
    }
    if (value)
      ::setenv(name, value, 1);
    else
      ::unsetenv(name);
  }
  ~EnvGuard() {
    for (const auto& [name, value] : saved_) {
      if (value)
        ::setenv(name.c_str(), value->c_str(), 1);
      else
        ::unsetenv(name.c_str());
    }
  }

 private:
  std::map<std::string, std::optional<std::string>> saved_;
};

int64_t recordRun(RunStore& s, const std::string& method) {
  const DataflowGraph g = diamond();
  RunSpec sp;
  sp.kind = "place";
  sp.method = method;
  sp.graph_id = s.putGraph(g);
  sp.device_set_id = s.putDeviceSet(DeviceSet::uniform(2));
  const int64_t id = s.beginRun(sp);
  s.savePlacement(id, placementRecord(g, {0, 1, 1, 0}, {0, 1, 2, 3}));
  {
    MetricWriter w(s, id);
    for (int i = 0; i < 100; ++i) w.append("best_makespan_us", i, 100 - i);
  }
  s.setFigure(id, "makespan_us", 42);
  s.finishRun(id, RunStatus::Finished);
  return id;
}

TEST_F(SessionFiles, CreateOpenAndNeverOverwrite) {
  const std::string f = path("team.sqlite");
  EXPECT_THROW(Session::open(f), InputError);
  EXPECT_FALSE(fs::exists(f));
  {
    Session s = Session::create(f);
    recordRun(s.store(), "heft");
  }
  EXPECT_THROW(Session::create(f), InputError);  // a session is there: not replaced
  Session again = Session::open(f);
  EXPECT_EQ(listRuns(again.store()).size(), 1u);
  Session ro = Session::open(f, OpenMode::ReadOnly);
  EXPECT_TRUE(ro.store().readOnly());
}

TEST_F(SessionFiles, SaveAsCopiesEveryRunAndContinuesOnTheCopy) {
  const std::string original = path("meeting.sqlite"), copy = path("for-a-colleague.sqlite");
  Session s = Session::create(original);
  const int64_t a = recordRun(s.store(), "heft");
  const int64_t b = recordRun(s.store(), "etf");
  s.store().addTag(a, "shown");
  s.saveAs(copy);
  EXPECT_EQ(s.path(), copy);
  const int64_t c = recordRun(s.store(), "cpop");  // goes to the copy only

  Session orig = Session::open(original), copied = Session::open(copy);
  EXPECT_EQ(listRuns(orig.store()).size(), 2u);
  ASSERT_EQ(listRuns(copied.store()).size(), 3u);
  for (int64_t id : {a, b}) {
    const RunInfo x = getRun(orig.store(), id), y = getRun(copied.store(), id);
    EXPECT_EQ(x.method, y.method);
    EXPECT_EQ(x.params, y.params);
    EXPECT_EQ(x.figures, y.figures);
    EXPECT_EQ(x.tags, y.tags);
    EXPECT_EQ(x.started_at, y.started_at);
    EXPECT_EQ(loadSeries(orig.store(), id, "best_makespan_us").values,
              loadSeries(copied.store(), id, "best_makespan_us").values);
    EXPECT_EQ(loadPlacement(copied.store(), id).nodes.size(), 4u);
  }
  EXPECT_FALSE(orig.store().hasRun(c));
  EXPECT_EQ(writeGraphJson(copied.store().loadGraph(*getRun(copied.store(), a).graph_id)),
            writeGraphJson(diamond()));
  auto l = copied.store().lock();
  EXPECT_EQ(copied.store().db().queryText("PRAGMA journal_mode"), "wal");
  EXPECT_EQ(copied.store().db().queryText("PRAGMA integrity_check"), "ok");
}

TEST_F(SessionFiles, CopyToReplacesATargetOnlyWithACompleteCopy) {
  Session s = Session::create(path("a.sqlite"));
  recordRun(s.store(), "heft");
  spit(path("old.sqlite"), "an old export");
  s.copyTo(path("old.sqlite"));
  EXPECT_EQ(listRuns(Session::open(path("old.sqlite")).store()).size(), 1u);
  EXPECT_EQ(s.path(), path("a.sqlite"));  // copyTo does not switch
  EXPECT_THROW(s.copyTo(path("a.sqlite")), InputError);
  EXPECT_THROW(s.copyTo(path("missing-dir/x.sqlite")), InputError);
  for (const auto& e : fs::directory_iterator(dir()))
    EXPECT_EQ(e.path().filename().string().find(".new-"), std::string::npos) << e.path();
}

TEST_F(SessionFiles, DefaultSessionFollowsXdgDataHome) {
  EnvGuard env;
  env.set("XDG_DATA_HOME", path("xdg").c_str());
  env.set("HOME", path("home").c_str());
  EXPECT_EQ(dataDirectory(), path("xdg") + "/doppler-studio");
  EXPECT_EQ(defaultSessionPath(), path("xdg") + "/doppler-studio/runs.sqlite");
  {
    Session s = Session::openDefault();  // created with its directory on first use
    EXPECT_EQ(s.path(), defaultSessionPath());
  }
  EXPECT_TRUE(fs::exists(defaultSessionPath()));
  env.set("XDG_DATA_HOME", "relative/ignored");
  EXPECT_EQ(dataDirectory(), path("home") + "/.local/share/doppler-studio");
  env.set("XDG_DATA_HOME", nullptr);
  EXPECT_EQ(dataDirectory(), path("home") + "/.local/share/doppler-studio");
  env.set("HOME", nullptr);
  EXPECT_THROW(dataDirectory(), InputError);
}

TEST_F(SessionFiles, RecentSessionsMostRecentFirstWithoutDuplicates) {
  const std::string dir = path("data");
  EXPECT_TRUE(recentSessions(dir).empty());
  rememberRecentSession(path("a.sqlite"), dir);
  rememberRecentSession(path("b.sqlite"), dir);
  rememberRecentSession(path("a.sqlite"), dir);
  EXPECT_EQ(recentSessions(dir), (std::vector<std::string>{path("a.sqlite"), path("b.sqlite")}));
  for (int i = 0; i < 12; ++i) {
    std::string name = std::to_string(i);  // (not "s" + ...: GCC 12 warns falsely, PR 105329)
    rememberRecentSession(path(name.insert(0, 1, 's') + ".sqlite"), dir);
  }
  const auto list = recentSessions(dir);
  ASSERT_EQ(list.size(), kMaxRecent);
  EXPECT_EQ(list.front(), path("s11.sqlite"));
  forgetRecentSession(path("s11.sqlite"), dir);
  EXPECT_EQ(recentSessions(dir).front(), path("s10.sqlite"));
  EXPECT_TRUE(fs::exists(dir + "/recent-sessions.txt"));
}

}  // namespace
}  // namespace doppler::sessions
