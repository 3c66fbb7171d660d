// The `doppler` command line as scripts use it: real processes, real files, exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <sstream>

#include "sessions/run_store.h"
#include "sessions/sqlite_db.h"
#include "tests/support/cli_fixture.h"
#include "tests/support/data.h"

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// The repository's own Doppler-format graphs (tests/data).
const std::string& kChain = doppler::testing::kChainGraph;
const std::string& kFfnn = doppler::testing::kFfnnGraph;
constexpr size_t kChainNodes = doppler::testing::kChainGraphNodes;

using Result = doppler::testing::CliResult;

class Cli : public doppler::testing::CliFixture {
 protected:
  // Bad input also prints nothing on stdout.
  void expectBadInput(const std::string& args, const std::vector<std::string>& fragments) const {
    Result r = CliFixture::expectBadInput(args, fragments);
    EXPECT_TRUE(r.out.empty()) << r.out;
  }
};

TEST_F(Cli, PlaceJsonHasTheContractFields) {
  Result r = run("place --graph " + kChain + " --devices 4 --method critical-path --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["method"], "critical-path");
  EXPECT_GT(j["makespan_us"].get<double>(), 0);
  EXPECT_TRUE(j["planned_makespan_us"].is_number());
  ASSERT_EQ(j["planned_schedule"].size(), kChainNodes);  // the list scheduler's own plan
  double plannedEnd = 0;
  for (auto& s : j["planned_schedule"])
    plannedEnd = std::max(plannedEnd, s["finish_us"].get<double>());
  EXPECT_DOUBLE_EQ(plannedEnd, j["planned_makespan_us"].get<double>());
  EXPECT_LE(j["lower_bound_us"].get<double>(), j["makespan_us"].get<double>());
  EXPECT_EQ(j["assignment"].size(), kChainNodes);
  EXPECT_EQ(j["schedule"].size(), kChainNodes);
  for (auto& s : j["schedule"]) {
    EXPECT_TRUE(s.contains("node") && s.contains("device") && s.contains("start_us") &&
                s.contains("finish_us"));
    EXPECT_LE(s["finish_us"].get<double>(), j["makespan_us"].get<double>());
  }
}

TEST_F(Cli, SimulatingAPlacementReproducesItsMakespan) {
  Result p = run("place --graph " + kFfnn + " --devices 4 --method heft --json");
  ASSERT_EQ(p.status, 0) << p.err;
  const std::string a =
      write("placed.json", p.out);  // the place output is accepted as an assignment
  Result s = run("simulate --graph " + kFfnn + " --devices 4 --assignment " + a + " --json");
  ASSERT_EQ(s.status, 0) << s.err;
  json pj = json::parse(p.out), sj = json::parse(s.out);
  EXPECT_DOUBLE_EQ(pj["makespan_us"].get<double>(), sj["makespan_us"].get<double>());
  EXPECT_EQ(sj["utilization"].size(), 4u);
  EXPECT_TRUE(sj["transfers"].is_array());
  EXPECT_GT(sj["transfers"].size(), 0u);
}

TEST_F(Cli, SeededLocalSearchIsReproducible) {
  const std::string args =
      "place --graph " + kChain + " --devices 4 --method local-search --budget 300 --seed 9 --json";
  Result a = run(args), b = run(args);
  ASSERT_EQ(a.status, 0) << a.err;
  EXPECT_EQ(json::parse(a.out)["assignment"], json::parse(b.out)["assignment"]);
  EXPECT_EQ(json::parse(a.out)["evaluations"], 300);
}

TEST_F(Cli, GenerateConvertInfoAndTrace) {
  Result g = run("graph generate llama-block --out " + path("block.json"));
  ASSERT_EQ(g.status, 0) << g.err;
  Result info = run("graph info --graph " + path("block.json") + " --json");
  ASSERT_EQ(info.status, 0) << info.err;
  json ij = json::parse(info.out);
  EXPECT_GT(ij["nodes"].get<int>(), 80);
  // --work-factor scales the work as `exec --size-factor` runs it.
  Result scaled = run("graph convert --graph " + path("block.json") + " --work-factor 4 --out " +
                      path("block4.json"));
  ASSERT_EQ(scaled.status, 0) << scaled.err;
  auto totalFlops = [&](const std::string& file) {
    double sum = 0;
    // The parsed document kept alive: a range-for over a temporary's member reads freed memory
    // (ASan found it).
    const json graph = json::parse(slurp(file));
    for (const json& n : graph["nodes"]) sum += n.value("flops", 0.0);
    return sum;
  };
  // The kernels' dimensions are whole numbers, so the work grows by about 4, not exactly (this
  // compared the sums exactly, and passed only while it read freed memory: see totalFlops).
  EXPECT_NEAR(totalFlops(path("block4.json")), 4 * totalFlops(path("block.json")),
              1e-3 * totalFlops(path("block4.json")));
  EXPECT_GT(totalFlops(path("block.json")), 0);
  expectBadInput("graph convert --graph " + path("block.json") + " --work-factor -1",
                 {"--work-factor", "positive"});
  Result conv = run("graph convert --graph " + kChain + " --out " + path("chain.json"));
  ASSERT_EQ(conv.status, 0) << conv.err;
  Result info2 = run("graph info --graph " + path("chain.json") + " --json");
  EXPECT_EQ(json::parse(info2.out)["nodes"], kChainNodes);
  Result t = run("export-trace --graph " + path("chain.json") +
                 " --devices 4 --method heft --out " + path("t.json"));
  ASSERT_EQ(t.status, 0) << t.err;
  json tj = json::parse(slurp(path("t.json")));
  EXPECT_GT(tj["traceEvents"].size(), kChainNodes);
  Result dev = run("devices show 8xV100-NVLink --out " + path("v100.json"));
  ASSERT_EQ(dev.status, 0) << dev.err;
  Result p = run("place --graph " + path("block.json") + " --devices " + path("v100.json") +
                 " --method etf --json");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(json::parse(p.out)["device_count"], 8);
}

// `doppler demo` reads four paper graphs from the data folder (--data-dir, else $DOPPLER_DATA_DIR,
// else the built-in default). Here a folder of stand-ins (the repository's chain graph under the
// paper's file names) shows which were read.
class Demo : public Cli {
 protected:
  std::string dataDir(const std::vector<std::string>& files) const {
    fs::create_directories(path("data/doppler-graphs"));
    for (const auto& f : files) fs::copy_file(kChain, path("data/doppler-graphs/" + f));
    return path("data");
  }
  static std::vector<std::string> labels(const json& j) {
    std::vector<std::string> out;
    for (const auto& r : j["results"]) out.push_back(r["workload"].get<std::string>());
    return out;
  }
  const std::vector<std::string> generated_ = {"chainmm (generated)", "ffnn (generated)",
                                               "llama-block (generated)",
                                               "llama-layer (generated)"};
};

TEST_F(Demo, WithoutThePaperGraphsSaysSoOnceAndGoesOn) {
  const Result r = run("demo --budget 1 --json --data-dir " + path("nowhere"));
  ASSERT_EQ(r.status, 0) << r.err;
  EXPECT_EQ(labels(json::parse(r.out)), generated_);
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  for (const char* fragment :
       {"doppler-graphs/chain_mm_112nodes.txt",
        "doppler-graphs/full_transformer_layer_261nodes.txt", "were not found in",
        "nowhere (--data-dir)", "--data-dir DIR", "DOPPLER_DATA_DIR=DIR"})
    EXPECT_NE(r.err.find(fragment), std::string::npos)
        << "missing '" << fragment << "' in " << r.err;
  // The same from the environment; --no-shipped asks for none, so nothing is said.
  const Result e = run("demo --budget 1 --json", "DOPPLER_DATA_DIR=" + path("nowhere"));
  ASSERT_EQ(e.status, 0) << e.err;
  EXPECT_NE(e.err.find("nowhere (DOPPLER_DATA_DIR)"), std::string::npos) << e.err;
  const Result none = run("demo --budget 1 --json --no-shipped --data-dir " + path("nowhere"));
  ASSERT_EQ(none.status, 0) << none.err;
  EXPECT_EQ(none.err, "");
}

TEST_F(Demo, ReadsThePaperGraphsFromTheDataFolder) {
  const std::string some = dataDir({"chain_mm_112nodes.txt", "ffnn_192nodes.txt"});
  const Result r = run("demo --budget 1 --json", "DOPPLER_DATA_DIR=" + some);
  ASSERT_EQ(r.status, 0) << r.err;
  std::vector<std::string> expected = generated_;
  expected.push_back("CHAINMM (paper)");
  expected.push_back("FFNN (paper)");
  const json j = json::parse(r.out);
  EXPECT_EQ(labels(j), expected);
  EXPECT_EQ(j["results"][4]["nodes"], kChainNodes);
  // The two it lacks are named, on one line.
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.err.find("(doppler-graphs/transformer_block_215nodes.txt, "
                       "doppler-graphs/full_transformer_layer_261nodes.txt) were not found in " +
                       some + " (DOPPLER_DATA_DIR)"),
            std::string::npos)
      << r.err;
  // --data-dir wins over the variable; with all four nothing is said.
  dataDir({"transformer_block_215nodes.txt", "full_transformer_layer_261nodes.txt"});
  const Result all =
      run("demo --budget 1 --json --data-dir " + some, "DOPPLER_DATA_DIR=" + path("nowhere"));
  ASSERT_EQ(all.status, 0) << all.err;
  EXPECT_EQ(labels(json::parse(all.out)).size(), 8u);
  EXPECT_EQ(all.err, "");
}

// Besides every method, a column of critical-path with the earliest-join device rule: the same
// makespan `place -p device_rule=earliest-join` gives.
TEST_F(Demo, ShowsCriticalPathWithTheEarliestJoinRule) {
  const Result r = run("demo --budget 1 --json --no-shipped");
  ASSERT_EQ(r.status, 0) << r.err;
  const json layer = json::parse(r.out)["results"][3];
  ASSERT_EQ(layer["workload"], "llama-layer (generated)");
  ASSERT_TRUE(layer["makespan_us"].contains("critical-path (earliest-join)")) << layer.dump();
  ASSERT_EQ(run("graph generate llama-layer --out " + path("layer.json")).status, 0);
  const Result p = run("place --graph " + path("layer.json") +
                       " --devices 4xP100-PCIe -m critical-path -p device_rule=earliest-join "
                       "--json --no-record");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_DOUBLE_EQ(layer["makespan_us"]["critical-path (earliest-join)"].get<double>(),
                   json::parse(p.out)["makespan_us"].get<double>());
  EXPECT_NE(layer["makespan_us"]["critical-path (earliest-join)"],
            layer["makespan_us"]["critical-path"]);
}

// And a column of the shipped general policy (its exported weights, no LibTorch): the makespan
// `place --method doppler` gives with the demo's budget and no time limit.
TEST_F(Demo, ShowsTheShippedGeneralPolicy) {
  const Result r = run("demo --budget 1 --json --no-shipped");
  ASSERT_EQ(r.status, 0) << r.err;
  const json block = json::parse(r.out)["results"][2];
  ASSERT_EQ(block["workload"], "llama-block (generated)");
  ASSERT_TRUE(block["makespan_us"].contains("doppler (general policy)")) << block.dump();
  ASSERT_EQ(run("graph generate llama-block --out " + path("block.json")).status, 0);
  const Result p = run("place --graph " + path("block.json") +
                       " --devices 4xP100-PCIe -m doppler -p time_ms=0 --budget 1 --json "
                       "--no-record");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_DOUBLE_EQ(block["makespan_us"]["doppler (general policy)"].get<double>(),
                   json::parse(p.out)["makespan_us"].get<double>());
  EXPECT_GE(block["makespan_us"]["doppler (general policy)"].get<double>(),
            block["lower_bound_us"].get<double>());
}

// A chain of 20,000 nodes: its longest paths hold 4 x 10^8 (node, member) pairs, which the policy
// gathered until the kernel killed the process (a million nodes asked for 24 GB and took the
// studio with it). Refused before any is gathered, naming the file and the way out.
TEST_F(Cli, TheGeneralPolicyRefusesAGraphTooDeepForIt) {
  std::ostringstream text;
  const int n = 20000;
  text << n + 1 << "\n" << n << "\n";
  for (int i = 0; i + 1 < n; ++i) text << (i ? "," : "") << i;
  text << "\n";
  for (int i = 1; i < n; ++i) text << (i > 1 ? "," : "") << i;
  text << "\n";
  for (int i = 0; i < n; ++i) text << "10,5\n";
  const std::string chain = write("deep.txt", text.str());
  for (const std::string& cmd : {"place -m doppler --devices 4 --no-record --graph " + chain,
                                 "eval --devices 4 --no-record --graph " + chain})
    expectBadInput(cmd, {"deep.txt", "400020000 (node, member) pairs", "coarsen it first"});
}

TEST_F(Cli, HelpEverywhere) {
  for (const char* sub :
       {"", "place", "simulate", "graph", "graph generate", "export-trace", "demo", "methods",
        "runs", "runs list", "runs show", "runs compare", "runs export", "runs delete", "runs tag",
        "policy", "policy export", "policy show"}) {
    Result r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub;
  }
}

// Finite values whose sums overflow, an empty graph, and seeds CLI11 wraps (-1, 2^64): refused
// by every command the same way, where `place --json` printed null makespans and exit 0.
TEST_F(Cli, NonsenseThatUsedToBeAcceptedIsRefused) {
  const std::string huge = write("huge.json", R"({"format":"dataflow-graph/1","nodes":[
    {"id":"a","compute_us":1e308},{"id":"b","compute_us":1e308}],"edges":[{"src":"a","dst":"b"}]})");
  expectBadInput("place --devices 4 --json --graph " + huge,
                 {"huge.json", "node 'a'", "31.7 years"});
  const std::string empty =
      write("empty.json", R"({"format":"dataflow-graph/1","nodes":[],"edges":[]})");
  expectBadInput("place --devices 4 --graph " + empty, {"empty.json", "no nodes"});
  for (const std::string seed : {"-1", "18446744073709551616"})
    for (const std::string& cmd : std::vector<std::string>{
             "place --devices 4 --graph " + kChain, "simulate --devices 4 --graph " + kChain,
             "demo", "eval --devices 4 --graph " + kChain})
      expectBadInput(cmd + " --seed " + seed, {"--seed", seed});
  // Misleading messages, each now saying the thing: "-o DIR" said "cannot write: Success"; a
  // --reg of 0 silently became the default.
  fs::create_directories(path("adir"));
  expectBadInput("place --devices 4 --graph " + kChain + " -o " + path("adir"),
                 {"adir", "is a directory"});
  const std::string ot = write("ot.json", R"({"a":[1,1],"b":[1,1],"cost":[[0,1],[1,0]]})");
  expectBadInput("fleet ot --problem " + ot + " --method sinkhorn --reg 0", {"--reg", "found 0"});
  // tflops 1e308 blamed memory_gbps, a field the file does not have.
  const std::string fast = write("fast.json", R"({"format":"device-set/1","devices":[
    {"name":"g","tflops":1e308}],"links":{"bandwidth_gbps":16,"latency_us":5}})");
  expectBadInput("place --graph " + kChain + " --devices " + fast,
                 {"fast.json", "devices[0].tflops", "at most"});
}

TEST_F(Cli, BadInputGetsOneClearLineAndStatusTwo) {
  const std::string g4 =
      write("ok.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a","compute_us":[1,2]},
    {"id":"b","compute_us":1}],"edges":[{"src":"a","dst":"b","transfer_us":3}]})");
  auto graph = [&](const std::string& name, const std::string& text) {
    return "place --devices 2 --graph " + write(name, text);
  };
  expectBadInput(graph("m.json", "{\"format\": \"dataflow-graph/1\", \n\"nodes\": [}"),
                 {"m.json", "line 2", "malformed JSON"});
  expectBadInput(
      graph(
          "u.json",
          R"({"format":"dataflow-graph/1","nodes":[{"id":"a"}],"edges":[{"src":"a","dst":"zz"}]})"),
      {"u.json", "edges[0].dst", "unknown node 'zz'"});
  expectBadInput(
      graph("d.json",
            R"({"format":"dataflow-graph/1","nodes":[{"id":"a"},{"id":"a"}],"edges":[]})"),
      {"d.json", "nodes[1]", "duplicate node id 'a'"});
  expectBadInput(graph("c.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a"},{"id":"b"}],
      "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"a"}]})"),
                 {"c.json", "cycle", "'a'", "'b'"});
  expectBadInput(
      graph("n.json",
            R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":-3}],"edges":[]})"),
      {"n.json", "nodes[0].flops", "negative"});
  expectBadInput(
      graph("i.json",
            R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":1e400}],"edges":[]})"),
      {"i.json", "not finite"});
  expectBadInput(
      graph("nan.json",
            R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":NaN}],"edges":[]})"),
      {"nan.json", "malformed JSON"});
  expectBadInput("place --devices 3 --graph " + g4, {"ok.json", "'a'.compute_us", "3 devices"});
  expectBadInput(graph("e.json", ""), {"e.json", "file is empty"});
  expectBadInput(graph("b.bin", std::string("\x7f"
                                            "ELF\x02\x01\x01\0\0\0",
                                            10)),
                 {"b.bin", "binary data"});
  {
    std::ofstream big(path("big.json"), std::ios::binary);
    std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 100; ++i) big << chunk;
  }
  expectBadInput("place --devices 2 --graph " + path("big.json"), {"big.json", "larger than"});
  expectBadInput("place --devices 2 --graph " + path("missing.json"),
                 {"missing.json", "no such file"});
  // The Doppler text format.
  expectBadInput(
      "place --devices 2 --graph " + doppler::testing::testData("malformed/bad_cost.txt"),
      {"bad_cost.txt", "line 7", "compute cost", "'3.5'"});
  expectBadInput("graph info --graph " + doppler::testing::testData("malformed/short.txt"),
                 {"short.txt", "line 8", "expected 4 node cost lines"});
  // Assignments.
  expectBadInput(
      "simulate --devices 2 --graph " + g4 + " --assignment " + write("a1.json", R"({"a": 0})"),
      {"a1.json", "node 'b' has no device"});
  expectBadInput("simulate --devices 2 --graph " + g4 + " --assignment " +
                     write("a2.json", R"({"a": 0, "b": 5})"),
                 {"a2.json", "b", "device 5", "does not exist"});
  expectBadInput("simulate --devices 2 --graph " + g4 + " --assignment " +
                     write("a3.json", R"({"a": 0, "b": 1, "q": 1})"),
                 {"a3.json", "unknown node 'q'"});
  // Devices, methods, parameters, options.
  expectBadInput(
      "place --graph " + g4 + " --devices " +
          write(
              "dv.json",
              R"({"format":"device-set/1","devices":[{"tflops":0}],"links":{"bandwidth_gbps":1}})"),
      {"dv.json", "devices[0].tflops"});
  expectBadInput("place --graph " + g4 + " --devices 2 --method nope",
                 {"--method", "unknown method 'nope'"});
  expectBadInput("place --graph " + g4 + " --devices 2 --param zz=1", {"zz"});
  expectBadInput("place --graph " + g4 + " --devices 2 --cost-model fast", {"cost model 'fast'"});
  expectBadInput("place --graph " + g4 + " --devices 0", {"--devices"});
  expectBadInput("place --graph " + g4 + " --devices 2 --bogus", {"bogus"});
  expectBadInput("place --graph " + g4, {"--devices"});
  expectBadInput("graph generate chainmm --param blocks=0", {"blocks"});
}

// `graph generate --fixed-costs`: the paper files' convention for a generated graph, with every
// edge RATIO times its producer's fixed compute time, whatever the links.
TEST_F(Cli, GenerateInThePapersCostConvention) {
  const std::string gen = "graph generate llama-block -p heads=8 -p seq=256 ";
  ASSERT_EQ(run(gen + "--out " + path("plain.json")).status, 0);
  Result f = run(gen + "--fixed-costs 4 -d 8xV100-NVLink --out " + path("fixed.json"));
  ASSERT_EQ(f.status, 0) << f.err;
  ASSERT_EQ(run(gen + "--fixed-costs 1 -d 8xV100-NVLink --out " + path("one.json")).status, 0);
  const json plain = json::parse(slurp(path("plain.json")));
  const json fixed = json::parse(slurp(path("fixed.json")));
  const json one = json::parse(slurp(path("one.json")));
  ASSERT_EQ(fixed["nodes"].size(), plain["nodes"].size());
  ASSERT_EQ(fixed["edges"].size(), plain["edges"].size());
  std::map<std::string, double> compute;
  int working = 0;
  for (size_t i = 0; i < fixed["nodes"].size(); ++i) {
    const json& n = fixed["nodes"][i];
    EXPECT_EQ(n["id"], plain["nodes"][i]["id"]);
    EXPECT_EQ(n.value("flops", 0.0), plain["nodes"][i].value("flops", 0.0));
    ASSERT_TRUE(n["compute_us"].is_number()) << n["id"];  // one time, on every device
    compute[n["id"]] = n["compute_us"];
    if (n.value("flops", 0.0) > 0) {
      EXPECT_GT(compute[n["id"]], 0) << n["id"];
      ++working;
    }
  }
  EXPECT_GT(working, 10);
  for (size_t i = 0; i < fixed["edges"].size(); ++i) {
    const json& e = fixed["edges"][i];
    EXPECT_DOUBLE_EQ(e["transfer_us"].get<double>(), 4 * compute[e["src"]]);
    EXPECT_DOUBLE_EQ(one["edges"][i]["transfer_us"].get<double>(), compute[e["src"]]);
  }
  expectBadInput(gen + "--fixed-costs 0", {"--fixed-costs", "above 0"});
  expectBadInput(gen + "--fixed-costs -2", {"--fixed-costs", "above 0"});
  expectBadInput(gen + "--fixed-costs nan", {"--fixed-costs"});
  expectBadInput(gen + "-d 4", {"--devices", "only with --fixed-costs"});
  expectBadInput(gen + "--fixed-costs 4 -d 4xNope", {"4xNope"});
}

// Several commands given the same --out at once: each writes its own temporary file and renames
// it into place, so every one succeeds and the file is one of their outputs whole (with one
// shared "x.tmp" they truncated each other's and the losers' renames failed).
TEST_F(Cli, ConcurrentWritersOfOneOutputEachLeaveAWholeFile) {
  fs::create_directories(path("out"));
  const std::string target = path("out/g.json");
  std::string script = "cd " + path("out") + " && for i in 2 3 4 5 6 2 3 4 5 6 2 3; do " +
                       std::string(DOPPLER_CLI) +
                       " graph generate ffnn -p layers=$i --out g.json 2>err$i-$$-$RANDOM & "
                       "done; wait";
  for (int round = 0; round < 5; ++round) {
    ASSERT_EQ(std::system(("bash -c '" + script + "'").c_str()), 0);
    std::set<int> sizes;
    for (int layers = 2; layers <= 6; ++layers) {
      const json g =
          json::parse(run("graph generate ffnn -p layers=" + std::to_string(layers)).out);
      sizes.insert(static_cast<int>(g["nodes"].size()));
    }
    const json written = json::parse(slurp(target));  // whole: it parses
    EXPECT_TRUE(sizes.count(static_cast<int>(written["nodes"].size())));
    for (const auto& f : fs::directory_iterator(path("out"))) {
      const std::string name = f.path().filename().string();
      if (name == "g.json") continue;
      EXPECT_EQ(name.rfind("err", 0), 0u) << "left behind: " << name;
      EXPECT_EQ(fs::file_size(f.path()), 0u) << name << ": " << slurp(f.path().string());
      fs::remove(f.path());
    }
  }
}

TEST_F(Cli, FailedWriteKeepsThePreviousFile) {
  const std::string out = write("result.json", "previous");
  // The output's directory vanishes: the write fails cleanly, nothing is half-written.
  Result r = run("graph generate chainmm --out " + path("nodir/x.json"));
  EXPECT_EQ(r.status, 2);
  EXPECT_NE(r.err.find("cannot write"), std::string::npos) << r.err;
  // A failing command never touches an existing output.
  Result bad = run("graph generate chainmm --param blocks=0 --out " + out);
  EXPECT_EQ(bad.status, 2);
  EXPECT_EQ(slurp(out), "previous");
  Result good = run("graph generate chainmm --out " + out);
  EXPECT_EQ(good.status, 0);
  EXPECT_NE(slurp(out).find("dataflow-graph/1"), std::string::npos);
}

// --- The run store from the command line ---------------------------------------------------------

TEST_F(Cli, PlaceRecordsItsRunInTheDefaultSession) {
  const std::string g = kChain;
  Result text = run("place --graph " + g + " --devices 4 --method critical-path");
  ASSERT_EQ(text.status, 0) << text.err;
  const std::string db = path("xdg-data") + "/doppler-studio/runs.sqlite";
  EXPECT_NE(text.out.find("run 1 recorded in " + db + "\n"), std::string::npos) << text.out;
  EXPECT_TRUE(fs::exists(db));
  Result p = run("place --graph " + g + " --devices 4 --method heft --json");
  ASSERT_EQ(p.status, 0) << p.err;
  const json pj = json::parse(p.out);
  EXPECT_EQ(pj["run_id"], 2);

  Result list = run("runs list --json");
  ASSERT_EQ(list.status, 0) << list.err;
  const json lj = json::parse(list.out);
  EXPECT_EQ(lj["db"], db);
  ASSERT_EQ(lj["runs"].size(), 2u);
  const json& r = lj["runs"][1];
  EXPECT_EQ(r["id"], 2);
  EXPECT_EQ(r["kind"], "place");
  EXPECT_EQ(r["method"], "heft");
  EXPECT_EQ(r["status"], "finished");
  EXPECT_EQ(r["seed"], 1);
  EXPECT_EQ(r["graph"]["nodes"], kChainNodes);
  EXPECT_EQ(r["devices"]["count"], 4);
  EXPECT_DOUBLE_EQ(r["figures"]["makespan_us"].get<double>(), pj["makespan_us"].get<double>());
  EXPECT_DOUBLE_EQ(r["figures"]["lower_bound_us"].get<double>(),
                   pj["lower_bound_us"].get<double>());
  EXPECT_EQ(r["params"]["graph_file"], fs::absolute(g).lexically_normal().string());

  Result show = run("runs show 2 --json");
  ASSERT_EQ(show.status, 0) << show.err;
  const json sj = json::parse(show.out);
  EXPECT_EQ(sj["placement"]["nodes"], kChainNodes);
  EXPECT_EQ(sj["placement"]["decisions"], kChainNodes);  // the list scheduler's decision order
  ASSERT_EQ(sj["timelines"].size(), 2u);                 // simulated, and HEFT's own plan
  EXPECT_EQ(sj["timelines"][0]["label"], "simulated");
  EXPECT_EQ(sj["timelines"][0]["nodes"], kChainNodes);
  Result showText = run("runs show 2");
  EXPECT_NE(showText.out.find("run 2  place  heft  finished"), std::string::npos) << showText.out;
}

TEST_F(Cli, NoRecordLeavesNoTrace) {
  Result p = run("place --graph " + kChain + " --devices 4 --no-record --json --db " +
                 path("never.sqlite"));
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_FALSE(json::parse(p.out).contains("run_id"));
  EXPECT_FALSE(fs::exists(path("never.sqlite")));
  EXPECT_FALSE(fs::exists(path("xdg-data")));
}

TEST_F(Cli, CompareNamesTheNodesThatMoved) {
  const std::string g = kChain, db = " --db " + path("runs.sqlite");
  Result a = run("place --graph " + g + " --devices 4 --method critical-path --json" + db);
  Result b = run("place --graph " + g + " --devices 4 --method heft --json" + db);
  ASSERT_EQ(a.status, 0) << a.err;
  ASSERT_EQ(b.status, 0) << b.err;
  const json aj = json::parse(a.out), bj = json::parse(b.out);
  std::set<std::string> expected;
  for (auto& [node, dev] : aj["assignment"].items())
    if (bj["assignment"][node] != dev) expected.insert(node);
  ASSERT_FALSE(expected.empty());
  const std::string ids =
      std::to_string(aj["run_id"].get<int>()) + " " + std::to_string(bj["run_id"].get<int>());

  Result c = run("runs compare " + ids + " --json" + db);
  ASSERT_EQ(c.status, 0) << c.err;
  const json cj = json::parse(c.out);
  ASSERT_EQ(cj["placement_diffs"].size(), 1u);
  const json& d = cj["placement_diffs"][0];
  EXPECT_TRUE(d["same_graph"].get<bool>());
  EXPECT_EQ(d["compared"], aj["assignment"].size());
  std::set<std::string> moved;
  for (const json& m : d["moved"]) {
    moved.insert(m["node"].get<std::string>());
    EXPECT_EQ(m["from"], aj["assignment"][m["node"].get<std::string>()]);
    EXPECT_EQ(m["to"], bj["assignment"][m["node"].get<std::string>()]);
  }
  EXPECT_EQ(moved, expected);
  bool sawMakespan = false;
  for (const json& row : cj["summary"]["rows"])
    if (row["name"] == "makespan_us") {
      sawMakespan = true;
      EXPECT_DOUBLE_EQ(row["values"][0].get<double>(), aj["makespan_us"].get<double>());
      EXPECT_DOUBLE_EQ(row["values"][1].get<double>(), bj["makespan_us"].get<double>());
    }
  EXPECT_TRUE(sawMakespan);

  Result text = run("runs compare " + ids + db);
  ASSERT_EQ(text.status, 0) << text.err;
  EXPECT_NE(text.out.find(std::to_string(expected.size()) + " of " +
                          std::to_string(aj["assignment"].size()) + " nodes moved"),
            std::string::npos)
      << text.out;
  EXPECT_NE(text.out.find("critical-path"), std::string::npos);
}

TEST_F(Cli, ExportWritesCsvAndJson) {
  const std::string db = " --db " + path("runs.sqlite");
  Result p = run("place --graph " + kChain + " --devices 4 --method etf --json" + db);
  ASSERT_EQ(p.status, 0) << p.err;
  const json pj = json::parse(p.out);
  const std::string id = std::to_string(pj["run_id"].get<int>());

  Result e =
      run("runs export " + id + " --format csv --table placement --out " + path("p.csv") + db);
  ASSERT_EQ(e.status, 0) << e.err;
  std::istringstream csv(slurp(path("p.csv")));
  std::string line;
  std::getline(csv, line);
  EXPECT_EQ(line, "run_id,node,node_index,device,decision_step");
  std::size_t rows = 0;
  while (std::getline(csv, line)) {
    ++rows;
    std::vector<std::string> f;
    std::stringstream ls(line);
    for (std::string x; std::getline(ls, x, ',');) f.push_back(x);
    ASSERT_GE(f.size(), 4u) << line;
    EXPECT_EQ(f[0], id);
    EXPECT_EQ(std::stoi(f[3]), pj["assignment"][f[1]].get<int>()) << line;
  }
  EXPECT_EQ(rows, pj["assignment"].size());

  Result t =
      run("runs export " + id + " --table timeline --out " + path("t.csv") + db);  // csv from .csv
  ASSERT_EQ(t.status, 0) << t.err;
  std::istringstream tcsv(slurp(path("t.csv")));
  std::size_t simulated = 0;
  while (std::getline(tcsv, line))
    simulated += line.find("," + std::string("simulated") + ",") != std::string::npos;
  EXPECT_EQ(simulated, pj["schedule"].size());  // ETF's own plan ("planned") is there too

  Result j = run("runs export " + id + " --format json --out " + path("e.json") + db);
  ASSERT_EQ(j.status, 0) << j.err;
  const json ej = json::parse(slurp(path("e.json")));
  EXPECT_EQ(ej["format"], "doppler-runs/1");
  const json& r = ej["runs"][0];
  EXPECT_EQ(r["placement"]["nodes"].size(), pj["assignment"].size());
  EXPECT_EQ(r["timelines"][0]["schedule"].size(), pj["schedule"].size());
  EXPECT_EQ(r["graph_json"]["format"], "dataflow-graph/1");
  EXPECT_EQ(r["device_set_json"]["format"], "device-set/1");
  expectBadInput("runs export " + id + " --format xml" + db, {"--format", "xml"});
  expectBadInput("runs export 99" + db, {"run 99", "no such run"});
}

TEST_F(Cli, SimulateRecordsItsTimeline) {
  const std::string g = kFfnn, db = " --db " + path("runs.sqlite");
  Result p = run("place --graph " + g + " --devices 4 --method heft --no-record --json");
  ASSERT_EQ(p.status, 0) << p.err;
  const std::string a = write("placed.json", p.out);
  Result s = run("simulate --graph " + g + " --devices 4 --assignment " + a +
                 " --cost-model links --json" + db);
  ASSERT_EQ(s.status, 0) << s.err;
  const json sj = json::parse(s.out);
  EXPECT_EQ(sj["run_id"], 1);
  Result show = run("runs show 1 --json" + db);
  ASSERT_EQ(show.status, 0) << show.err;
  const json r = json::parse(show.out);
  EXPECT_EQ(r["kind"], "simulate");
  EXPECT_EQ(r["params"]["cost_model"], "links");
  ASSERT_EQ(r["timelines"].size(), 1u);
  EXPECT_EQ(r["timelines"][0]["nodes"], sj["schedule"].size());
  EXPECT_EQ(r["timelines"][0]["transfers"], sj["transfers"].size());
  EXPECT_DOUBLE_EQ(r["figures"]["makespan_us"].get<double>(), sj["makespan_us"].get<double>());
  Result text = run("simulate --graph " + g + " --devices 4 --assignment " + a + db);
  EXPECT_NE(text.out.find("run 2 recorded in " + path("runs.sqlite")), std::string::npos)
      << text.out;
}

TEST_F(Cli, TagFilterAndDelete) {
  const std::string db = " --db " + path("runs.sqlite"), g = kChain;
  for (const char* m : {"round-robin", "critical-path", "heft"})
    ASSERT_EQ(run("place --graph " + g + " --devices 4 --method " + std::string(m) + db).status, 0);
  Result t = run("runs tag 2 best meeting" + db);
  ASSERT_EQ(t.status, 0) << t.err;
  EXPECT_EQ(t.out, "run 2 tags: best, meeting\n");
  Result byTag = run("runs list --tag best --json" + db);
  ASSERT_EQ(json::parse(byTag.out)["runs"].size(), 1u);
  EXPECT_EQ(json::parse(byTag.out)["runs"][0]["id"], 2);
  Result byMethod = run("runs list --method heft --kind place --json" + db);
  ASSERT_EQ(json::parse(byMethod.out)["runs"].size(), 1u);
  EXPECT_EQ(json::parse(byMethod.out)["runs"][0]["id"], 3);
  ASSERT_EQ(run("runs tag 2 meeting --remove" + db).out, "run 2 tags: best\n");
  Result d = run("runs delete 1 2" + db);
  ASSERT_EQ(d.status, 0) << d.err;
  EXPECT_EQ(d.out, "deleted run 1\ndeleted run 2\n");
  Result left = run("runs list --json" + db);
  ASSERT_EQ(json::parse(left.out)["runs"].size(), 1u);
  expectBadInput("runs show 2" + db, {"run 2", "no such run"});
  expectBadInput("runs delete 3 7" + db, {"run 7", "no such run"});
  EXPECT_EQ(json::parse(run("runs list --json" + db).out)["runs"].size(), 1u);  // all or none
  expectBadInput("runs list --kind dance" + db, {"unknown run kind 'dance'"});
  expectBadInput("runs list --db " + path("typo.sqlite"), {"typo.sqlite", "no such file"});
  EXPECT_FALSE(fs::exists(path("typo.sqlite")));
}

// A --db that cannot hold runs: exit 2 with one line naming it, and the file is byte-identical.
// A file name that is not UTF-8 (Linux allows any bytes) cannot go into JSON as it is: the run is
// still recorded and exported, the bad byte written as U+FFFD (it was "the run was not
// recorded: [json.exception.type_error.316] invalid UTF-8 byte").
TEST_F(Cli, AFileNameThatIsNotUtf8IsRecordedAndExported) {
  const std::string graph = path("bad\xff.json"), db = path("runs.sqlite");
  write("bad\xff.json", slurp(kChain));
  const auto placed = run("place --graph '" + graph + "' --devices 2 --json --db " + db);
  ASSERT_EQ(placed.status, 0) << placed.err;
  const auto exported = run("runs export 1 --db " + db);
  ASSERT_EQ(exported.status, 0) << exported.err;
  EXPECT_NE(exported.out.find("bad\xEF\xBF\xBD.json"), std::string::npos) << exported.out;
  EXPECT_TRUE(nlohmann::json::accept(exported.out));
}

TEST_F(Cli, BadDatabaseIsRefusedAndLeftUnchanged) {
  const std::string place = "place --graph " + kChain + " --devices 4 --db ";
  std::string garbage(5000, '\0');
  for (std::size_t i = 0; i < garbage.size(); ++i)
    garbage[i] = static_cast<char>((i * 7919 + 13) % 251);
  const std::string g = write("garbage.sqlite", garbage);
  expectBadInput(place + g, {"garbage.sqlite", "not an SQLite database"});
  expectBadInput("runs list --db " + g, {"garbage.sqlite", "not an SQLite database"});
  EXPECT_EQ(slurp(g), garbage);

  const std::string newer = path("newer.sqlite");
  { doppler::sessions::RunStore s(newer); }
  {
    doppler::sessions::Db raw(newer, SQLITE_OPEN_READWRITE);
    raw.exec("PRAGMA user_version = 99");
  }
  const std::string newerBytes = slurp(newer);
  expectBadInput(place + newer, {"newer.sqlite", "newer Doppler Studio", "schema version 99"});
  EXPECT_EQ(slurp(newer), newerBytes);

  // A real session cut short.
  ASSERT_EQ(run(place + path("whole.sqlite")).status, 0);
  const std::string cut = write("cut.sqlite", slurp(path("whole.sqlite")).substr(0, 6000));
  expectBadInput(place + cut, {"cut.sqlite", "damaged", "truncated"});
  EXPECT_EQ(slurp(cut).size(), 6000u);

  // Places where no file can be created: under a regular file, in a missing directory, in /proc.
  expectBadInput(place + g + "/runs.sqlite",
                 {"garbage.sqlite/runs.sqlite", "cannot create", "not a directory"});
  expectBadInput(place + path("missing/runs.sqlite"), {"missing/runs.sqlite", "cannot create"});
  expectBadInput(place + "/proc/doppler-runs.sqlite",
                 {"/proc/doppler-runs.sqlite", "cannot create"});
  EXPECT_EQ(slurp(g), garbage);
}

}  // namespace
