#include "metric_writer.h"

#include "core/common/input_error.h"

namespace doppler::sessions {

using Clock = std::chrono::steady_clock;

MetricWriter::MetricWriter(RunStore& store, int64_t run, MetricWriterOptions options)
    : store_(store), run_(run), opt_(std::move(options)) {
  if (store_.readOnly())
    throw InputError(store_.path(), "", "opened read-only: cannot record metrics");
  store_.requireRun(run_);
  {
    auto l = store_.lock();
    insert_ = store_.db().prepare(
        "INSERT OR REPLACE INTO metrics (series_id, step, value) VALUES (?, ?, ?)");
  }
  buffer_.reserve(opt_.batch_rows ? opt_.batch_rows : 1);
  if (opt_.background_flush && opt_.batch_interval.count() > 0)
    flusher_ = std::thread([this] { flusherLoop(); });
}

MetricWriter::~MetricWriter() {
  {
    std::lock_guard l(mu_);
    stop_ = true;
  }
  wake_.notify_all();
  if (flusher_.joinable()) flusher_.join();
  try {
    commit();
  } catch (...) {
  }
  auto l = store_.lock();
  insert_ = Stmt();
}

int MetricWriter::series(std::string_view name) {
  std::lock_guard l(mu_);
  auto it = index_.find(std::string(name));
  if (it != index_.end()) return it->second;
  const int h = static_cast<int>(names_.size());
  names_.emplace_back(name);
  index_.emplace(std::string(name), h);
  return h;
}

void MetricWriter::append(int series, int64_t step, double value) {
  bool full = false;
  {
    std::lock_guard l(mu_);
    if (backgroundError_) {
      std::exception_ptr e = backgroundError_;
      backgroundError_ = nullptr;
      std::rethrow_exception(e);
    }
    if (series < 0 || series >= static_cast<int>(names_.size()))
      throw std::out_of_range("MetricWriter::append: unknown series handle");
    const Clock::time_point now = Clock::now();
    if (buffer_.empty()) {
      oldest_ = now;
      wake_.notify_all();  // the flusher now has a deadline to wait for
    }
    buffer_.push_back({series, step, value});
    full = buffer_.size() >= opt_.batch_rows ||
           (opt_.batch_interval.count() > 0 && now - oldest_ >= opt_.batch_interval);
  }
  if (full) commit();
}

void MetricWriter::flush() {
  rethrowBackgroundError();
  commit();
}

void MetricWriter::rethrowBackgroundError() {
  std::lock_guard l(mu_);
  if (backgroundError_) {
    std::exception_ptr e = backgroundError_;
    backgroundError_ = nullptr;
    std::rethrow_exception(e);
  }
}

int64_t MetricWriter::committedRows() const {
  std::lock_guard l(commitMu_);
  return committed_;
}

std::size_t MetricWriter::bufferedRows() const {
  std::lock_guard l(mu_);
  return buffer_.size();
}

void MetricWriter::commit() {
  std::lock_guard commitLock(commitMu_);
  std::vector<Point> batch;
  std::vector<std::string> names;
  {
    std::lock_guard l(mu_);
    if (buffer_.empty()) return;
    batch.swap(buffer_);
    buffer_.reserve(opt_.batch_rows ? opt_.batch_rows : 1);
    names = names_;
  }
  try {
    auto storeLock = store_.lock();
    Db& db = store_.db();
    Transaction tx(db);
    std::vector<int64_t> ids = seriesIds_;
    ids.resize(names.size(), 0);
    for (const Point& p : batch) {
      if (ids[p.series] != 0) continue;
      Stmt ins = db.prepare("INSERT OR IGNORE INTO series (run_id, name) VALUES (?, ?)");
      ins.bind(1, run_).bind(2, names[p.series]).run();
      Stmt sel = db.prepare("SELECT id FROM series WHERE run_id = ? AND name = ?");
      sel.bind(1, run_).bind(2, names[p.series]);
      sel.step();
      ids[p.series] = sel.int64(0);
    }
    for (const Point& p : batch) {
      insert_.bind(1, ids[p.series]).bind(2, p.step).bind(3, p.value);
      insert_.run();
    }
    tx.commit();
    seriesIds_ = std::move(ids);  // only once committed: a rolled-back series row is not there
  } catch (...) {
    // Put the points back in front of anything appended meanwhile: a later flush retries them.
    std::lock_guard l(mu_);
    batch.insert(batch.end(), buffer_.begin(), buffer_.end());
    buffer_.swap(batch);
    if (!buffer_.empty()) oldest_ = Clock::now();
    throw;
  }
  committed_ += static_cast<int64_t>(batch.size());
  if (opt_.on_commit) opt_.on_commit(committed_);
}

void MetricWriter::flusherLoop() {
  std::unique_lock l(mu_);
  while (!stop_) {
    if (buffer_.empty()) {
      wake_.wait(l);
      continue;
    }
    const Clock::time_point deadline = oldest_ + opt_.batch_interval;
    if (Clock::now() < deadline) {
      wake_.wait_until(l, deadline);
      continue;
    }
    l.unlock();
    try {
      commit();
    } catch (...) {
      l.lock();
      backgroundError_ = std::current_exception();
      // Do not spin on a persistent error: wait for the writer to see it.
      wake_.wait_for(l, opt_.batch_interval);
      continue;
    }
    l.lock();
  }
}

}  // namespace doppler::sessions
