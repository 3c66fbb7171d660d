#pragma once
// A one-line progress bar on stderr for work longer than a second; silent when stderr is not a
// terminal (scripts, CI, pipes) so machine output stays clean.
#include <chrono>
#include <string>

namespace doppler::cli {

class ProgressBar {
 public:
  explicit ProgressBar(std::string label);
  ~ProgressBar();
  void update(long done, long total, const std::string& detail = {});
  void finish();

 private:
  std::string label_;
  bool enabled_;
  bool drawn_ = false;
  std::chrono::steady_clock::time_point start_, lastDraw_;
};

}  // namespace doppler::cli
