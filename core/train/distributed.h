#pragma once
// Data-parallel training on LibTorch's distributed package (c10d), not a protocol of our own: a
// TCPStore hosted by rank 0 for the rendezvous and a Gloo process group for the collectives.
// Each worker process computes gradients on its own share of the data; averageGradients() makes
// every worker hold the mean of them before the update, so W workers with equal shares take the
// same steps as one process taking all shares with the mean gradient.
//
// A dead or hung peer never hangs the run: joining the group and every collective are bounded by
// DistConfig::timeout_s, and a failure ends in a DistributedError with one line saying which
// rank saw what fail. The group is then unusable (the collectives of c10d cannot be resumed
// after a peer is lost); the caller keeps its last good checkpoint and stops.
//
// No LibTorch header here (each translation unit that includes them costs ~20 s to compile);
// tensors and modules are only forward-declared. distributed.cpp needs USE_C10D_GLOO and
// USE_DISTRIBUTED (core/train/CMakeLists.txt), the gloo headers (libgloo-dev) and libtorch_cpu.
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace at {
class Tensor;
}
namespace torch::nn {
class Module;
}

namespace doppler::train {

// Where a worker joins: rank 0 of world_size hosts the store at master_host:master_port, the
// others connect to it (`--rank R --world-size W --master HOST:PORT`).
struct DistConfig {
  int rank = 0;
  int world_size = 1;
  std::string master_host = "127.0.0.1";
  int master_port = 29500;
  // Bounds the rendezvous and every collective. A peer that died is usually noticed at once
  // (its sockets close); a peer that hangs is noticed after this long.
  double timeout_s = 60;
};

// A collective or the rendezvous failed: a peer died, hung or became unreachable.
class DistributedError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// `--master HOST:PORT` ("127.0.0.1:29500", "node7:29500", "[::1]:29500"). Throws InputError
// naming `option` for anything else (no port, a port outside 1..65535, an empty host).
struct MasterAddress {
  std::string host;
  int port = 0;
};
MasterAddress parseMasterAddress(const std::string& text, const std::string& option = "--master");

// A TCP port on 127.0.0.1 that was free a moment ago (the kernel's pick for port 0), for tests
// and `--workers N` on one machine. Another process may take it before it is used.
int pickFreeLoopbackPort();

class DataParallelGroup {
 public:
  // Joins the group; returns once all world_size workers have joined. Throws InputError for a
  // bad configuration (rank outside 0..world_size-1, port outside 1..65535, timeout <= 0) and
  // DistributedError when the group cannot be formed within the timeout.
  static std::unique_ptr<DataParallelGroup> connect(const DistConfig& config);
  ~DataParallelGroup();
  DataParallelGroup(const DataParallelGroup&) = delete;
  DataParallelGroup& operator=(const DataParallelGroup&) = delete;

  int rank() const;
  int worldSize() const;

  // Replaces each tensor by the mean over the workers of that tensor: the tensors are flattened
  // into one float buffer, summed by one all-reduce, and divided by the world size. All workers
  // must pass tensors of the same shapes and dtype in the same order.
  void averageGradients(std::vector<at::Tensor>& grads);
  // The same over the gradients of the module's parameters (those that require a gradient); a
  // parameter without a gradient counts as zero and gets the averaged gradient.
  void averageGradients(torch::nn::Module& module);
  // Makes every worker's parameters and buffers equal to rank 0's (before the first update).
  void broadcastParameters(torch::nn::Module& module);
  // The element-wise mean over the workers, in place (plain buffers, no LibTorch needed).
  void averageInPlace(std::vector<float>& values);
  // The sum over the workers (statistics: episodes, losses), in double precision.
  double allreduceSum(double value);
  void barrier();

 private:
  struct Impl;
  explicit DataParallelGroup(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace doppler::train
