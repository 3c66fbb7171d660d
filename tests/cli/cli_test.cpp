// The `doppler` command line as scripts use it: real processes, real files, exit codes.
#include <gtest/gtest.h>
#include <sys/wait.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kCli = DOPPLER_CLI;
const std::string kGraphs = std::string(DOPPLER_SHARED_DATA) + "/doppler-graphs/";

struct Result {
  int status = -1;
  std::string out, err;
};

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() /
           ("doppler_cli_" + std::to_string(::getpid()) + "_" +
            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  std::string write(const std::string& name, const std::string& text) const {
    std::ofstream(path(name), std::ios::binary) << text;
    return path(name);
  }
  static std::string slurp(const std::string& p) {
    std::ifstream in(p, std::ios::binary);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
  }
  // Runs the CLI with a time limit so a hang fails the test instead of blocking it.
  Result run(const std::string& args) const {
    const std::string out = path("stdout"), err = path("stderr");
    std::string cmd = "timeout 300 " + kCli + " " + args + " >" + out + " 2>" + err + " </dev/null";
    int raw = std::system(cmd.c_str());
    Result r;
    r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
    r.out = slurp(out);
    r.err = slurp(err);
    return r;
  }
  // Expects exit status 2 and exactly one line on stderr containing every fragment.
  void expectBadInput(const std::string& args, const std::vector<std::string>& fragments) const {
    Result r = run(args);
    EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
    EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
    for (const auto& f : fragments) EXPECT_NE(r.err.find(f), std::string::npos) << "missing '" << f << "' in: " << r.err;
    EXPECT_TRUE(r.out.empty()) << r.out;
  }

  fs::path dir_;
};

TEST_F(Cli, PlaceJsonHasTheContractFields) {
  Result r = run("place --graph " + kGraphs + "chain_mm_112nodes.txt --devices 4 --method critical-path --json");
  ASSERT_EQ(r.status, 0) << r.err;
  json j = json::parse(r.out);
  EXPECT_EQ(j["method"], "critical-path");
  EXPECT_GT(j["makespan_us"].get<double>(), 0);
  EXPECT_TRUE(j["planned_makespan_us"].is_number());
  EXPECT_LE(j["lower_bound_us"].get<double>(), j["makespan_us"].get<double>());
  EXPECT_EQ(j["assignment"].size(), 76u);
  EXPECT_EQ(j["schedule"].size(), 76u);
  for (auto& s : j["schedule"]) {
    EXPECT_TRUE(s.contains("node") && s.contains("device") && s.contains("start_us") && s.contains("finish_us"));
    EXPECT_LE(s["finish_us"].get<double>(), j["makespan_us"].get<double>());
  }
}

TEST_F(Cli, SimulatingAPlacementReproducesItsMakespan) {
  Result p = run("place --graph " + kGraphs + "ffnn_192nodes.txt --devices 4 --method heft --json");
  ASSERT_EQ(p.status, 0) << p.err;
  const std::string a = write("placed.json", p.out);  // the place output is accepted as an assignment
  Result s = run("simulate --graph " + kGraphs + "ffnn_192nodes.txt --devices 4 --assignment " + a + " --json");
  ASSERT_EQ(s.status, 0) << s.err;
  json pj = json::parse(p.out), sj = json::parse(s.out);
  EXPECT_DOUBLE_EQ(pj["makespan_us"].get<double>(), sj["makespan_us"].get<double>());
  EXPECT_EQ(sj["utilization"].size(), 4u);
  EXPECT_TRUE(sj["transfers"].is_array());
  EXPECT_GT(sj["transfers"].size(), 0u);
}

TEST_F(Cli, SeededLocalSearchIsReproducible) {
  const std::string args =
      "place --graph " + kGraphs + "chain_mm_112nodes.txt --devices 4 --method local-search --budget 300 --seed 9 --json";
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
  Result conv = run("graph convert --graph " + kGraphs + "chain_mm_112nodes.txt --out " + path("chain.json"));
  ASSERT_EQ(conv.status, 0) << conv.err;
  Result info2 = run("graph info --graph " + path("chain.json") + " --json");
  EXPECT_EQ(json::parse(info2.out)["nodes"], 76);
  Result t = run("export-trace --graph " + path("chain.json") + " --devices 4 --method heft --out " + path("t.json"));
  ASSERT_EQ(t.status, 0) << t.err;
  json tj = json::parse(slurp(path("t.json")));
  EXPECT_GT(tj["traceEvents"].size(), 76u);
  Result dev = run("devices show 8xV100-NVLink --out " + path("v100.json"));
  ASSERT_EQ(dev.status, 0) << dev.err;
  Result p = run("place --graph " + path("block.json") + " --devices " + path("v100.json") + " --method etf --json");
  ASSERT_EQ(p.status, 0) << p.err;
  EXPECT_EQ(json::parse(p.out)["device_count"], 8);
}

TEST_F(Cli, HelpEverywhere) {
  for (const char* sub : {"", "place", "simulate", "graph", "graph generate", "export-trace", "demo", "methods"}) {
    Result r = run(std::string(sub) + " --help");
    EXPECT_EQ(r.status, 0) << sub;
    EXPECT_NE(r.out.find("Usage"), std::string::npos) << sub;
  }
}

TEST_F(Cli, BadInputGetsOneClearLineAndStatusTwo) {
  const std::string g4 = write("ok.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a","compute_us":[1,2]},
    {"id":"b","compute_us":1}],"edges":[{"src":"a","dst":"b","transfer_us":3}]})");
  auto graph = [&](const std::string& name, const std::string& text) {
    return "place --devices 2 --graph " + write(name, text);
  };
  expectBadInput(graph("m.json", "{\"format\": \"dataflow-graph/1\", \n\"nodes\": [}"), {"m.json", "line 2", "malformed JSON"});
  expectBadInput(graph("u.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a"}],"edges":[{"src":"a","dst":"zz"}]})"),
                 {"u.json", "edges[0].dst", "unknown node 'zz'"});
  expectBadInput(graph("d.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a"},{"id":"a"}],"edges":[]})"),
                 {"d.json", "nodes[1]", "duplicate node id 'a'"});
  expectBadInput(graph("c.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a"},{"id":"b"}],
      "edges":[{"src":"a","dst":"b"},{"src":"b","dst":"a"}]})"),
                 {"c.json", "cycle", "'a'", "'b'"});
  expectBadInput(graph("n.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":-3}],"edges":[]})"),
                 {"n.json", "nodes[0].flops", "negative"});
  expectBadInput(graph("i.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":1e400}],"edges":[]})"),
                 {"i.json", "not finite"});
  expectBadInput(graph("nan.json", R"({"format":"dataflow-graph/1","nodes":[{"id":"a","flops":NaN}],"edges":[]})"),
                 {"nan.json", "malformed JSON"});
  expectBadInput("place --devices 3 --graph " + g4, {"ok.json", "'a'.compute_us", "3 devices"});
  expectBadInput(graph("e.json", ""), {"e.json", "file is empty"});
  expectBadInput(graph("b.bin", std::string("\x7f" "ELF\x02\x01\x01\0\0\0", 10)), {"b.bin", "binary data"});
  {
    std::ofstream big(path("big.json"), std::ios::binary);
    std::string chunk(1 << 20, ' ');
    for (int i = 0; i < 100; ++i) big << chunk;
  }
  expectBadInput("place --devices 2 --graph " + path("big.json"), {"big.json", "larger than"});
  expectBadInput("place --devices 2 --graph " + path("missing.json"), {"missing.json", "no such file"});
  // Assignments.
  expectBadInput("simulate --devices 2 --graph " + g4 + " --assignment " + write("a1.json", R"({"a": 0})"),
                 {"a1.json", "node 'b' has no device"});
  expectBadInput("simulate --devices 2 --graph " + g4 + " --assignment " + write("a2.json", R"({"a": 0, "b": 5})"),
                 {"a2.json", "b", "device 5", "does not exist"});
  expectBadInput("simulate --devices 2 --graph " + g4 + " --assignment " + write("a3.json", R"({"a": 0, "b": 1, "q": 1})"),
                 {"a3.json", "unknown node 'q'"});
  // Devices, methods, parameters, options.
  expectBadInput("place --graph " + g4 + " --devices " + write("dv.json", R"({"format":"device-set/1","devices":[{"tflops":0}],"links":{"bandwidth_gbps":1}})"),
                 {"dv.json", "devices[0].tflops"});
  expectBadInput("place --graph " + g4 + " --devices 2 --method nope", {"--method", "unknown method 'nope'"});
  expectBadInput("place --graph " + g4 + " --devices 2 --param zz=1", {"zz"});
  expectBadInput("place --graph " + g4 + " --devices 2 --cost-model fast", {"cost model 'fast'"});
  expectBadInput("place --graph " + g4 + " --devices 0", {"--devices"});
  expectBadInput("place --graph " + g4 + " --devices 2 --bogus", {"bogus"});
  expectBadInput("place --graph " + g4, {"--devices"});
  expectBadInput("graph generate chainmm --param blocks=0", {"blocks"});
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

}  // namespace
