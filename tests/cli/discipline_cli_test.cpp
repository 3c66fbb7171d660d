// --discipline on `place` and `simulate`: the JSON says which discipline ran, a placement file
// carries its order back into `simulate`, and bad names or missing orders are one-line errors
// with exit status 2.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

using nlohmann::json;
using Result = doppler::testing::CliResult;
const std::string& kFfnn = doppler::testing::kFfnnGraph;

class DisciplineCli : public doppler::testing::CliFixture {};

TEST_F(DisciplineCli, PlaceSaysWhichDisciplineRanAndSequenceRunsThePlan) {
  for (const char* discipline : {"fifo", "priority", "sequence"}) {
    Result r = run("place --graph " + kFfnn + " --devices 4 --method heft --discipline " +
                   discipline + " --json --no-record");
    ASSERT_EQ(r.status, 0) << r.err;
    const json j = json::parse(r.out);
    EXPECT_EQ(j["discipline"], discipline);
    EXPECT_EQ(j["order_source"], "planned");
    EXPECT_EQ(j["execution_order"].size(), j["assignment"].size());
    if (std::string(discipline) == "sequence") {
      EXPECT_EQ(j["makespan_us"].get<double>(), j["planned_makespan_us"].get<double>());
    }
  }
  // Without the option: fifo.
  Result r = run("place --graph " + kFfnn + " --devices 4 --method heft --json --no-record");
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(json::parse(r.out)["discipline"], "fifo");
}

TEST_F(DisciplineCli, SimulateReadsThePlacementsOrderBack) {
  for (const char* discipline : {"fifo", "priority", "sequence"}) {
    const std::string placed = write(std::string("placed-") + discipline + ".json", "");
    Result p = run("place --graph " + kFfnn + " --devices 4 --method cpop --discipline " +
                   discipline + " --json --no-record --out " + placed);
    ASSERT_EQ(p.status, 0) << p.err;
    Result s = run("simulate --graph " + kFfnn + " --devices 4 --assignment " + placed +
                   " --discipline " + discipline + " --json --no-record");
    ASSERT_EQ(s.status, 0) << s.err;
    const json sj = json::parse(s.out);
    EXPECT_EQ(sj["discipline"], discipline);
    Result again = run("place --graph " + kFfnn + " --devices 4 --method cpop --discipline " +
                       discipline + " --json --no-record");
    EXPECT_EQ(sj["makespan_us"], json::parse(again.out)["makespan_us"]) << discipline;
  }
}

TEST_F(DisciplineCli, BadNamesAndMissingOrdersAreOneLineErrors) {
  expectBadInput("place --graph " + kFfnn + " --devices 4 --discipline lifo --json --no-record",
                 {"--discipline", "unknown discipline 'lifo'", "fifo, priority, sequence"});
  const std::string bare = write("bare.json", R"({"assignment": [0, 1]})");
  expectBadInput("simulate --graph " + kFfnn + " --devices 4 --assignment " + bare +
                     " --discipline fast --no-record",
                 {"--discipline", "unknown discipline 'fast'"});
  // A file with an assignment and no order: fine under fifo, an error under sequence.
  Result p = run("place --graph " + kFfnn + " --devices 2 --method round-robin --json --no-record");
  ASSERT_EQ(p.status, 0) << p.err;
  json j = json::parse(p.out);
  const std::string plain = write("plain.json", json{{"assignment", j["assignment"]}}.dump());
  EXPECT_EQ(run("simulate --graph " + kFfnn + " --devices 2 --assignment " + plain + " --no-record")
                .status,
            0);
  for (const char* discipline : {"sequence", "priority"})
    expectBadInput(
        "simulate --graph " + kFfnn + " --devices 2 --assignment " + plain + " --discipline " +
            discipline + " --no-record",
        {plain, "order", std::string("the ") + discipline + " discipline needs an order"});
  // An order that lists a node twice, or deadlocks.
  json twice = j;
  twice.erase("execution_order");
  twice["order"][1] = twice["order"][0];
  expectBadInput("simulate --graph " + kFfnn + " --devices 2 --assignment " +
                     write("twice.json", twice.dump()) + " --discipline sequence --no-record",
                 {"order[1]", "listed twice"});
  json reversed = j;
  reversed.erase("order");
  std::reverse(reversed["execution_order"].begin(), reversed["execution_order"].end());
  expectBadInput("simulate --graph " + kFfnn + " --devices 2 --assignment " +
                     write("reversed.json", reversed.dump()) + " --discipline sequence --no-record",
                 {"reversed.json", "order", "waits forever"});
}

}  // namespace
