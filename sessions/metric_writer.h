#pragma once
// Batched metric appends for a run: a trainer logs thousands of points a second, each costing a
// buffer push; points reach the database in one transaction per batch, through one prepared
// statement. A batch is committed when `batch_rows` points are buffered or the oldest buffered
// point is `batch_interval` old, whichever comes first, and on flush() and destruction.
//
// A reader on another connection (the studio) sees each batch as soon as it commits (WAL mode).
// If the process is killed, every committed batch survives and a batch is never half there:
// the store's rows are always a prefix of what was appended, in whole batches.
//
// Thread safety: append() and flush() may be called from one writer thread while the background
// flusher commits aged points; readers use their own RunStore.
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <thread>
#include <unordered_map>
#include <vector>

#include "sessions/run_store.h"

namespace doppler::sessions {

struct MetricWriterOptions {
  std::size_t batch_rows = 1000;
  // 0 disables the time trigger (then only batch_rows, flush() and destruction commit).
  std::chrono::milliseconds batch_interval{250};
  // A thread that commits aged points even when no append() comes to notice their age.
  bool background_flush = true;
  // Called after each commit with the total rows committed so far (on the committing thread).
  std::function<void(int64_t committed_rows)> on_commit;
};

class MetricWriter {
 public:
  MetricWriter(RunStore& store, int64_t run, MetricWriterOptions options = {});
  // Commits what is buffered. Errors are swallowed here (destructors must not throw): call
  // flush() first to see them.
  ~MetricWriter();
  MetricWriter(const MetricWriter&) = delete;
  MetricWriter& operator=(const MetricWriter&) = delete;

  // A handle for a series name, to skip the name lookup in hot loops.
  int series(std::string_view name);
  // A later point for the same (series, step) replaces the earlier one.
  void append(int series, int64_t step, double value);
  void append(std::string_view name, int64_t step, double value) {
    append(series(name), step, value);
  }
  // Commits everything buffered now. Rethrows an error the background flusher met.
  void flush();

  int64_t committedRows() const;
  std::size_t bufferedRows() const;
  int64_t run() const { return run_; }

 private:
  struct Point {
    int series;
    int64_t step;
    double value;
  };
  void commit();  // takes the buffer and writes it in one transaction
  void flusherLoop();
  void rethrowBackgroundError();

  RunStore& store_;
  const int64_t run_;
  const MetricWriterOptions opt_;

  mutable std::mutex mu_;  // buffer, names, error, stop flag
  std::condition_variable wake_;
  std::vector<Point> buffer_;
  std::chrono::steady_clock::time_point oldest_;
  std::vector<std::string> names_;
  std::unordered_map<std::string, int> index_;
  std::exception_ptr backgroundError_;
  bool stop_ = false;

  mutable std::mutex commitMu_;     // one commit at a time, in order
  std::vector<int64_t> seriesIds_;  // by handle; 0 until created in the database
  int64_t committed_ = 0;
  Stmt insert_;  // prepared once, on the store's connection
  std::thread flusher_;
};

}  // namespace doppler::sessions
