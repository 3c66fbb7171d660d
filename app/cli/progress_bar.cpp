#include "progress_bar.h"

#include <unistd.h>

#include <cstdio>

namespace doppler::cli {

ProgressBar::ProgressBar(std::string label)
    : label_(std::move(label)),
      enabled_(isatty(STDERR_FILENO) == 1),
      start_(std::chrono::steady_clock::now()) {}

ProgressBar::~ProgressBar() {
  finish();
}

void ProgressBar::update(long done, long total, const std::string& detail) {
  if (!enabled_) return;
  auto now = std::chrono::steady_clock::now();
  // Appear only after a second of work, then redraw at most ten times a second.
  if (now - start_ < std::chrono::seconds(1)) return;
  if (drawn_ && now - lastDraw_ < std::chrono::milliseconds(100) && done < total) return;
  lastDraw_ = now;
  drawn_ = true;
  const int width = 30;
  double frac = total > 0 ? static_cast<double>(done) / total : 0;
  if (frac > 1) frac = 1;
  int filled = static_cast<int>(frac * width);
  std::string bar(filled, '#');
  bar += std::string(width - filled, '-');
  double secs = std::chrono::duration<double>(now - start_).count();
  std::fprintf(stderr, "\r%s [%s] %3.0f%% %ld/%ld %.1fs %s\x1b[K", label_.c_str(), bar.c_str(),
               frac * 100, done, total, secs, detail.c_str());
  std::fflush(stderr);
}

void ProgressBar::finish() {
  if (enabled_ && drawn_) {
    std::fprintf(stderr, "\n");
    drawn_ = false;
  }
}

}  // namespace doppler::cli
