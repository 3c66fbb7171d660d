// DataParallelGroup on c10d: a TCPStore for the rendezvous, ProcessGroupGloo for the collectives
// (Debian's LibTorch 1.13 has both in libtorch_cpu; the Gloo headers come from libgloo-dev).
#include "core/train/distributed.h"

#include <arpa/inet.h>
#include <glog/logging.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <torch/torch.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <torch/csrc/distributed/c10d/ProcessGroupGloo.hpp>
#include <torch/csrc/distributed/c10d/TCPStore.hpp>

#include "core/common/input_error.h"

#ifndef USE_C10D_GLOO
#error "distributed.cpp needs USE_C10D_GLOO (and USE_DISTRIBUTED): see core/train/CMakeLists.txt"
#endif

namespace doppler::train {

namespace {

// c10d's and Gloo's messages: the first line only (c10::Error appends a backtrace), without
// Gloo's "[./gloo/transport/tcp/pair.cc:589] " source location.
std::string oneLine(const std::string& message) {
  std::string line = message.substr(0, message.find('\n'));
  if (!line.empty() && line[0] == '[') {
    const auto close = line.find("] ");
    if (close != std::string::npos && line.find(".cc:") < close) line = line.substr(close + 2);
  }
  return line;
}

std::string seconds(double s) {
  std::ostringstream out;
  out << s << " s";
  return out.str();
}

bool isLoopback(const std::string& host) {
  return host == "localhost" || host == "::1" || host.rfind("127.", 0) == 0;
}

}  // namespace

struct DataParallelGroup::Impl {
  DistConfig config;
  c10::intrusive_ptr<c10d::TCPStore> store;
  c10::intrusive_ptr<c10d::ProcessGroupGloo> group;
  // After a failed collective the group's peers are out of step for good: later calls fail at
  // once, with the first failure's reason, instead of waiting for another timeout.
  std::string failure;

  std::string who() const {
    return "rank " + std::to_string(config.rank) + " of " + std::to_string(config.world_size);
  }

  // Runs one collective to completion. Gloo bounds each of its waits by the options' timeout,
  // and a peer whose process ended closes its sockets, so wait() returns or throws.
  template <class Start>
  void run(const std::string& what, Start&& start) {
    if (!failure.empty())
      throw DistributedError(who() + ": " + what + " not attempted: the group failed earlier (" +
                             failure + ")");
    try {
      c10::intrusive_ptr<c10d::Work> work = start();
      work->wait();
    } catch (const std::exception& e) {
      failure = what + ": " + oneLine(e.what());
      throw DistributedError(who() + ": " + what + " failed: " + oneLine(e.what()) +
                             " (a worker died, hung or became unreachable; collectives time out "
                             "after " +
                             seconds(config.timeout_s) + ")");
    }
  }

  // Flattens same-dtype tensors into one buffer, runs `op` on it, copies the result back.
  template <class Op>
  void flattened(std::vector<at::Tensor>& tensors, Op&& op) {
    torch::NoGradGuard noGrad;
    std::map<c10::ScalarType, std::vector<size_t>> byType;
    for (size_t i = 0; i < tensors.size(); ++i) byType[tensors[i].scalar_type()].push_back(i);
    for (auto& [type, indices] : byType) {
      std::vector<at::Tensor> parts;
      for (size_t i : indices) parts.push_back(tensors[i].detach().reshape({-1}));
      at::Tensor flat = torch::cat(parts).contiguous();
      op(flat);
      int64_t offset = 0;
      for (size_t i : indices) {
        const int64_t n = tensors[i].numel();
        tensors[i].copy_(flat.narrow(0, offset, n).view_as(tensors[i]));
        offset += n;
      }
    }
  }

  void averageFlat(std::vector<at::Tensor>& tensors, const std::string& what) {
    flattened(tensors, [&](at::Tensor& flat) {
      std::vector<at::Tensor> buffer{flat};
      run("all-reduce (" + what + ", " + std::to_string(flat.numel()) + " values)",
          [&] { return group->allreduce(buffer); });
      // Summed, then divided: for two workers a + b is the same in either order, so the mean
      // is bit-for-bit the one a single process computes from both gradients.
      flat.div_(config.world_size);
    });
  }
};

DataParallelGroup::DataParallelGroup(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

DataParallelGroup::~DataParallelGroup() {
  if (!impl_) return;
  // The group before the store it was formed through.
  impl_->group.reset();
  impl_->store.reset();
}

std::unique_ptr<DataParallelGroup> DataParallelGroup::connect(const DistConfig& config) {
  if (config.world_size < 1) throw InputError("", "--world-size", "must be at least 1");
  if (config.rank < 0 || config.rank >= config.world_size)
    throw InputError("", "--rank",
                     "must be from 0 to " + std::to_string(config.world_size - 1) + ", got " +
                         std::to_string(config.rank));
  if (config.master_host.empty()) throw InputError("", "--master", "no host");
  if (config.master_port < 1 || config.master_port > 65535)
    throw InputError("", "--master", "the port must be from 1 to 65535");
  if (!(config.timeout_s > 0) || !std::isfinite(config.timeout_s))
    throw InputError("", "--timeout", "must be a positive number of seconds");
  // c10d logs its socket errors through glog on stderr; every failure here becomes one
  // DistributedError line instead, so glog is kept to fatal messages.
  FLAGS_minloglevel = std::max(FLAGS_minloglevel, 3);
  FLAGS_logtostderr = false;

  // Writing to a socket whose peer died raises SIGPIPE, which would kill this process before
  // Gloo can report the broken connection; a process that trains in a group wants the error.
  struct sigaction current {};
  if (::sigaction(SIGPIPE, nullptr, &current) == 0 && current.sa_handler == SIG_DFL)
    ::signal(SIGPIPE, SIG_IGN);

  auto impl = std::make_unique<Impl>();
  impl->config = config;
  const auto timeout = std::chrono::milliseconds(static_cast<int64_t>(config.timeout_s * 1000));
  const std::string where = config.master_host + ":" + std::to_string(config.master_port);
  try {
    c10d::TCPStoreOptions options;
    options.port = static_cast<std::uint16_t>(config.master_port);
    options.isServer = config.rank == 0;
    options.numWorkers = static_cast<std::size_t>(config.world_size);
    // Not waiting for the workers in the store: that wait ends silently at the timeout, and the
    // Gloo rendezvous below would then wait a second timeout. Gloo's wait alone bounds joining.
    options.waitWorkers = false;
    options.timeout = timeout;
    impl->store = c10::make_intrusive<c10d::TCPStore>(config.master_host, options);

    auto glooOptions = c10d::ProcessGroupGloo::Options::create(timeout);
    // Like PyTorch: GLOO_SOCKET_IFNAME picks the interface; a loopback master keeps the group
    // on loopback (tests, `--workers N`); otherwise the interface of this machine's hostname.
    if (const char* interface = std::getenv("GLOO_SOCKET_IFNAME"); interface && *interface)
      glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForInterface(interface));
    else if (isLoopback(config.master_host))
      glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDeviceForHostname("127.0.0.1"));
    else
      glooOptions->devices.push_back(c10d::ProcessGroupGloo::createDefaultDevice());
    impl->group = c10::make_intrusive<c10d::ProcessGroupGloo>(impl->store, config.rank,
                                                              config.world_size, glooOptions);
  } catch (const std::exception& e) {
    throw DistributedError(impl->who() + ": could not form the group at " + where + " within " +
                           seconds(config.timeout_s) + ": " + oneLine(e.what()));
  }
  return std::unique_ptr<DataParallelGroup>(new DataParallelGroup(std::move(impl)));
}

int DataParallelGroup::rank() const {
  return impl_->config.rank;
}
int DataParallelGroup::worldSize() const {
  return impl_->config.world_size;
}

void DataParallelGroup::averageGradients(std::vector<at::Tensor>& grads) {
  for (const at::Tensor& g : grads)
    if (!g.defined()) throw std::invalid_argument("averageGradients: an undefined tensor");
  impl_->averageFlat(grads, "gradients");
}

void DataParallelGroup::averageGradients(torch::nn::Module& module) {
  std::vector<at::Tensor> grads;
  for (at::Tensor& p : module.parameters()) {
    if (!p.requires_grad()) continue;
    if (!p.grad().defined()) p.mutable_grad() = torch::zeros_like(p);
    grads.push_back(p.grad());
  }
  impl_->averageFlat(grads, "gradients");
}

void DataParallelGroup::broadcastParameters(torch::nn::Module& module) {
  std::vector<at::Tensor> tensors;
  for (const at::Tensor& p : module.parameters()) tensors.push_back(p);
  for (const at::Tensor& b : module.buffers()) tensors.push_back(b);
  impl_->flattened(tensors, [&](at::Tensor& flat) {
    std::vector<at::Tensor> buffer{flat};
    c10d::BroadcastOptions options;
    options.rootRank = 0;
    impl_->run("broadcast (parameters, " + std::to_string(flat.numel()) + " values)",
               [&] { return impl_->group->broadcast(buffer, options); });
  });
}

void DataParallelGroup::averageInPlace(std::vector<float>& values) {
  if (values.empty()) return;
  std::vector<at::Tensor> tensors{
      torch::from_blob(values.data(), {static_cast<int64_t>(values.size())}, torch::kFloat)};
  impl_->averageFlat(tensors, "values");
}

double DataParallelGroup::allreduceSum(double value) {
  std::vector<at::Tensor> buffer{torch::full({1}, value, torch::kFloat64)};
  impl_->run("all-reduce (a statistic)", [&] { return impl_->group->allreduce(buffer); });
  return buffer[0].item<double>();
}

void DataParallelGroup::barrier() {
  impl_->run("barrier", [&] { return impl_->group->barrier(); });
}

}  // namespace doppler::train
