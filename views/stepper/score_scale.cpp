#include "views/stepper/score_scale.h"

#include <algorithm>
#include <cmath>

#include "views/common/theme.h"

namespace doppler::views {

std::vector<double> barFractions(const std::vector<double>& scores, bool higherBetter) {
  std::vector<double> out(scores.size(), 1.0);
  if (scores.empty()) return out;
  const auto [lo, hi] = std::minmax_element(scores.begin(), scores.end());
  const double best = higherBetter ? *hi : *lo, worst = higherBetter ? *lo : *hi;
  if (higherBetter && *lo >= 0 && best > 0) {
    for (size_t i = 0; i < scores.size(); ++i) out[i] = std::max(scores[i] / best, 0.02);
    return out;
  }
  if (!higherBetter && best > 0) {
    // Times: a finish 5% later gets a bar 5% shorter, not the shortest one.
    for (size_t i = 0; i < scores.size(); ++i) out[i] = std::max(best / scores[i], 0.02);
    return out;
  }
  const double span = std::abs(best - worst);
  if (!(span > 0)) return out;
  for (size_t i = 0; i < scores.size(); ++i) out[i] = 1.0 - 0.9 * std::abs(scores[i] - best) / span;
  return out;
}

bool scoreIsTime(const std::string& meaning) {
  return meaning.find("(us)") != std::string::npos;
}

QString formatScore(double score, const std::string& meaning) {
  if (scoreIsTime(meaning)) return formatDuration(score);
  if (std::abs(score) >= 100) return QString::number(score, 'f', 0);
  if (std::abs(score) >= 0.1 || score == 0) return QString::number(score, 'f', 2);
  return QString::number(score, 'g', 2);
}

int tiedAtBest(const std::vector<double>& scores, bool higherBetter) {
  if (scores.empty()) return 0;
  const double best = higherBetter ? *std::max_element(scores.begin(), scores.end())
                                   : *std::min_element(scores.begin(), scores.end());
  const double tol = 1e-9 * std::abs(best);
  return static_cast<int>(std::count_if(scores.begin(), scores.end(),
                                        [&](double s) { return std::abs(s - best) <= tol; }));
}

QString scoreMeaning(const std::string& meaning) {
  // A time's values carry their own unit ("4.62 ms"); a unit in the heading would contradict it.
  QString text = QString::fromStdString(meaning);
  text.remove(QStringLiteral(" (us)"));
  text.remove(QStringLiteral("(us)"));
  return text;
}

QString scoreCaption(const std::string& meaning, bool higherBetter) {
  QString text = scoreMeaning(meaning);
  if (text.isEmpty()) text = QStringLiteral("score");
  return higherBetter ? QStringLiteral("%1, higher first").arg(text)
                      : QStringLiteral("%1, lower first").arg(text);
}

QColor stepAccent() {
  return Theme::isDark() ? QColor(0x5c, 0xa8, 0xff) : QColor(0x1c, 0x6a, 0xd6);
}

QColor stepAccentTint(int alpha) {
  QColor c = stepAccent();
  c.setAlpha(alpha);
  return c;
}

}  // namespace doppler::views
