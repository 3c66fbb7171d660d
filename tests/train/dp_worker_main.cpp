// dp_worker: one data-parallel worker for tests/train/distributed_test.cpp (real processes on
// loopback). It trains a small MLP on a fixed regression data set split into equal shares:
//
//   dp_worker --rank R --world-size W --master HOST:PORT --steps K --optimizer sgd|adam --out FILE
//       worker R of W takes share R; gradients are averaged by all-reduce before every update.
//       Ranks other than 0 start from different weights, so broadcastParameters() must fix that.
//       --die-at-step S / --hang-at-step S: SIGKILL / SIGSTOP itself before step S's all-reduce
//       (only rank V with --victim V). "%r" in FILE stands for the rank (LocalWorkers gives every
//       worker the same arguments).
//   dp_worker --reference shares|full --shares W --steps K --optimizer sgd|adam --out FILE
//       one process, no group: the mean of the W shares' gradients ("shares"), or the gradient
//       of the loss over all the data at once ("full").
//   dp_worker --rank R --world-size W --master HOST:PORT --bench N [--floats F]
//       times N all-reduces of F floats (default 200,000) and prints them (rank 0).
//
// FILE gets the mean loss of every step, then every parameter value, one per line ("%.9g" reads
// back as the same float). Exit status: 0, 2 for bad arguments, 1 for a failed group.
#include <signal.h>
#include <torch/torch.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "core/common/input_error.h"
#include "core/train/distributed.h"

namespace {

using doppler::InputError;
using namespace doppler::train;

constexpr int kRows = 64;
constexpr int kInputs = 8;
constexpr int kSeed = 7;

struct Args {
  std::map<std::string, std::string> values;
  std::string get(const std::string& name, const std::string& fallback = "") const {
    auto it = values.find(name);
    return it == values.end() ? fallback : it->second;
  }
  int integer(const std::string& name, int fallback) const {
    const std::string v = get(name);
    if (v.empty()) return fallback;
    try {
      return std::stoi(v);
    } catch (const std::exception&) {
      throw InputError("", name, "not a number: '" + v + "'");
    }
  }
};

Args parse(int argc, char** argv) {
  Args args;
  for (int i = 1; i < argc; ++i) {
    const std::string name = argv[i];
    if (name.rfind("--", 0) != 0 || i + 1 >= argc)
      throw InputError("", name, "expected --option value");
    args.values[name] = argv[++i];
  }
  return args;
}

torch::nn::Sequential makeModel(int seed) {
  torch::manual_seed(seed);
  return torch::nn::Sequential(torch::nn::Linear(kInputs, 16), torch::nn::Tanh(),
                               torch::nn::Linear(16, 1));
}

// The same data in every process: rows [share * n, (share + 1) * n) are share `share`.
std::pair<torch::Tensor, torch::Tensor> makeData() {
  torch::manual_seed(kSeed + 1);
  torch::Tensor x = torch::randn({kRows, kInputs});
  torch::Tensor y = torch::sin(x.sum(1, true)) + 0.1 * torch::randn({kRows, 1});
  return {x, y};
}

std::unique_ptr<torch::optim::Optimizer> makeOptimizer(const std::string& name,
                                                       torch::nn::Sequential& model) {
  if (name == "sgd")
    return std::make_unique<torch::optim::SGD>(model->parameters(),
                                               torch::optim::SGDOptions(0.1).momentum(0.9));
  if (name == "adam")
    return std::make_unique<torch::optim::Adam>(model->parameters(),
                                                torch::optim::AdamOptions(0.01));
  throw InputError("", "--optimizer", "sgd or adam, got '" + name + "'");
}

void writeResult(const std::string& path, const std::vector<double>& losses,
                 torch::nn::Sequential& model) {
  std::FILE* out = std::fopen(path.c_str(), "w");
  if (!out) throw std::runtime_error("cannot write " + path);
  for (double loss : losses) std::fprintf(out, "loss %.17g\n", loss);
  for (const torch::Tensor& p : model->parameters()) {
    torch::Tensor flat = p.detach().reshape({-1}).contiguous();
    const float* values = flat.data_ptr<float>();
    for (int64_t i = 0; i < flat.numel(); ++i) std::fprintf(out, "param %.9g\n", values[i]);
  }
  std::fclose(out);
}

// One process, no group: the reference runs.
int reference(const Args& args) {
  const std::string mode = args.get("--reference");
  const int shares = args.integer("--shares", 2);
  const int steps = args.integer("--steps", 5);
  auto model = makeModel(kSeed);
  auto optimizer = makeOptimizer(args.get("--optimizer", "sgd"), model);
  auto [x, y] = makeData();
  const int rows = kRows / shares;
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    optimizer->zero_grad();
    if (mode == "full") {
      torch::Tensor loss = torch::mse_loss(model->forward(x), y);
      loss.backward();
      losses.push_back(loss.item<double>());
    } else if (mode == "shares") {
      // Each share's gradient on its own, summed in share order, then divided: what the group
      // computes (for two workers a + b does not depend on who adds).
      std::vector<torch::Tensor> sum;
      double lossSum = 0;
      for (int share = 0; share < shares; ++share) {
        model->zero_grad();
        torch::Tensor loss = torch::mse_loss(model->forward(x.narrow(0, share * rows, rows)),
                                             y.narrow(0, share * rows, rows));
        loss.backward();
        lossSum += loss.item<double>();
        const auto params = model->parameters();
        for (size_t i = 0; i < params.size(); ++i) {
          if (share == 0)
            sum.push_back(params[i].grad().clone());
          else
            sum[i] = sum[i] + params[i].grad();
        }
      }
      const auto params = model->parameters();
      for (size_t i = 0; i < params.size(); ++i)
        params[i].mutable_grad() = sum[i].div(static_cast<double>(shares));
      losses.push_back(lossSum / shares);
    } else {
      throw InputError("", "--reference", "shares or full, got '" + mode + "'");
    }
    optimizer->step();
  }
  writeResult(args.get("--out"), losses, model);
  return 0;
}

int bench(DataParallelGroup& group, const Args& args) {
  const int rounds = args.integer("--bench", 20);
  const int floats = args.integer("--floats", 200000);
  std::vector<float> values(floats, static_cast<float>(group.rank() + 1));
  for (int i = 0; i < 3; ++i) group.averageInPlace(values);
  group.barrier();
  std::vector<double> ms;
  for (int i = 0; i < rounds; ++i) {
    const auto start = std::chrono::steady_clock::now();
    group.averageInPlace(values);
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
                     .count());
  }
  std::sort(ms.begin(), ms.end());
  double mean = 0;
  for (double m : ms) mean += m / rounds;
  if (group.rank() == 0)
    std::printf(
        "allreduce+mean of %d floats, %d process(es), %d rounds: median %.3f ms, mean "
        "%.3f ms, min %.3f ms\n",
        floats, group.worldSize(), rounds, ms[ms.size() / 2], mean, ms.front());
  group.barrier();
  return 0;
}

int worker(const Args& args) {
  DistConfig config;
  config.rank = args.integer("--rank", 0);
  config.world_size = args.integer("--world-size", 1);
  const MasterAddress master = parseMasterAddress(args.get("--master", "127.0.0.1:29500"));
  config.master_host = master.host;
  config.master_port = master.port;
  config.timeout_s = args.integer("--timeout", 60);
  auto group = DataParallelGroup::connect(config);
  if (!args.get("--bench").empty()) return bench(*group, args);

  const int steps = args.integer("--steps", 5);
  const bool victim = args.integer("--victim", config.rank) == config.rank;
  const int dieAt = victim ? args.integer("--die-at-step", -1) : -1;
  const int hangAt = victim ? args.integer("--hang-at-step", -1) : -1;
  // Rank 0's weights for everyone: the others start elsewhere on purpose.
  auto model = makeModel(config.rank == 0 ? kSeed : kSeed + 1000 * config.rank);
  group->broadcastParameters(*model);
  auto optimizer = makeOptimizer(args.get("--optimizer", "sgd"), model);
  auto [x, y] = makeData();
  const int rows = kRows / config.world_size;
  const torch::Tensor myX = x.narrow(0, config.rank * rows, rows);
  const torch::Tensor myY = y.narrow(0, config.rank * rows, rows);
  std::vector<double> losses;
  for (int step = 0; step < steps; ++step) {
    optimizer->zero_grad();
    torch::Tensor loss = torch::mse_loss(model->forward(myX), myY);
    loss.backward();
    if (step == dieAt) ::raise(SIGKILL);
    if (step == hangAt) ::raise(SIGSTOP);
    group->averageGradients(*model);
    losses.push_back(group->allreduceSum(loss.item<double>()) / config.world_size);
    optimizer->step();
  }
  group->barrier();
  std::string out = args.get("--out");
  if (const auto at = out.find("%r"); at != std::string::npos)
    out.replace(at, 2, std::to_string(config.rank));
  writeResult(out, losses, model);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  // One intra-op thread: the same kernels and the same sums in every process and every run.
  torch::set_num_threads(1);
  try {
    const Args args = parse(argc, argv);
    return args.get("--reference").empty() ? worker(args) : reference(args);
  } catch (const InputError& e) {
    std::cerr << "dp_worker: " << e.what() << "\n";
    return 2;
  } catch (const std::exception& e) {
    std::cerr << "dp_worker: " << e.what() << "\n";
    return 1;
  }
}
