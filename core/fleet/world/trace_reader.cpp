#include "core/fleet/world/trace_reader.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <filesystem>

#include "core/common/input_error.h"
#include "core/fleet/world/topology.h"
#include "core/graph/graph_io.h"

namespace doppler::fleet {

namespace {

bool digits(std::string_view s, size_t pos, size_t count, int& out) {
  if (pos + count > s.size()) return false;
  out = 0;
  for (size_t i = pos; i < pos + count; ++i) {
    if (s[i] < '0' || s[i] > '9') return false;
    out = out * 10 + (s[i] - '0');
  }
  return true;
}

// Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant, "chrono-Compatible Low-Level
// Date Algorithms", days_from_civil).
long long daysFromCivil(int y, int m, int d) {
  y -= m <= 2;
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const unsigned yoe = static_cast<unsigned>(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + static_cast<long long>(doe) - 719468;
}

int daysInMonth(int y, int m) {
  static const int days[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
  return m == 2 && leap ? 29 : days[m - 1];
}

bool parseCount(std::string_view s, int& out) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  if (s.empty()) return false;
  auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && ptr == s.data() + s.size() && out >= 0;
}

std::string lowerTrim(std::string_view s) {
  std::string out;
  for (char c : s)
    if (c != ' ' && c != '\t')
      out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

}  // namespace

double Trace::startHourUtc() const {
  const double secondsOfDay = std::fmod(start_epoch_s, 86400.0);
  return (secondsOfDay < 0 ? secondsOfDay + 86400.0 : secondsOfDay) / 3600.0;
}

bool parseTimestamp(std::string_view s, double& epoch_s) {
  int y = 0, mo = 0, d = 0, h = 0, mi = 0, sec = 0;
  if (s.size() < 19 || !digits(s, 0, 4, y) || s[4] != '-' || !digits(s, 5, 2, mo) || s[7] != '-' ||
      !digits(s, 8, 2, d) || (s[10] != ' ' && s[10] != 'T') || !digits(s, 11, 2, h) ||
      s[13] != ':' || !digits(s, 14, 2, mi) || s[16] != ':' || !digits(s, 17, 2, sec))
    return false;
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || sec > 60)
    return false;
  double fraction = 0;
  if (s.size() > 19) {
    if (s[19] != '.' || s.size() == 20 || s.size() > 29) return false;
    double scale = 0.1;
    for (size_t i = 20; i < s.size(); ++i, scale /= 10) {
      if (s[i] < '0' || s[i] > '9') return false;
      fraction += (s[i] - '0') * scale;
    }
  }
  epoch_s = static_cast<double>(daysFromCivil(y, mo, d)) * 86400.0 + h * 3600.0 + mi * 60.0 + sec +
            fraction;
  return true;
}

Trace parseTrace(std::string_view text, const std::string& file, const std::string& name) {
  Trace trace;
  trace.name = name;
  // ~40 bytes a row: reserve once instead of growing through ~15 reallocations.
  trace.requests.reserve(text.size() / 36 + 1);
  std::vector<double> epochs;
  epochs.reserve(text.size() / 36 + 1);
  size_t lineNo = 0, pos = 0;
  bool sawHeader = false;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(pos, end - pos);
    pos = end + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    if (lineNo == 1 && line.size() >= 3 && line.substr(0, 3) == "\xEF\xBB\xBF")
      line.remove_prefix(3);
    if (line.find_first_not_of(" \t") == std::string_view::npos) continue;
    const std::string where = "line " + std::to_string(lineNo);
    if (!sawHeader) {
      if (lowerTrim(line) != "timestamp,contexttokens,generatedtokens")
        throw InputError(file, where,
                         "expected the header TIMESTAMP,ContextTokens,GeneratedTokens");
      sawHeader = true;
      continue;
    }
    const size_t c1 = line.find(',');
    const size_t c2 = c1 == std::string_view::npos ? c1 : line.find(',', c1 + 1);
    if (c2 == std::string_view::npos || line.find(',', c2 + 1) != std::string_view::npos)
      throw InputError(file, where, "expected 3 fields TIMESTAMP,ContextTokens,GeneratedTokens");
    double epoch = 0;
    std::string_view stamp = line.substr(0, c1);
    while (!stamp.empty() && stamp.back() == ' ') stamp.remove_suffix(1);
    if (!parseTimestamp(stamp, epoch))
      throw InputError(
          file, where,
          "bad timestamp \"" + std::string(stamp) + "\" (expected YYYY-MM-DD HH:MM:SS.fraction)");
    TraceRequest request;
    if (!parseCount(line.substr(c1 + 1, c2 - c1 - 1), request.context_tokens))
      throw InputError(file, where,
                       "bad ContextTokens \"" + std::string(line.substr(c1 + 1, c2 - c1 - 1)) +
                           "\" (a non-negative integer)");
    if (!parseCount(line.substr(c2 + 1), request.generated_tokens))
      throw InputError(file, where,
                       "bad GeneratedTokens \"" + std::string(line.substr(c2 + 1)) +
                           "\" (a non-negative integer)");
    epochs.push_back(epoch);
    trace.requests.push_back(request);
  }
  if (!sawHeader) throw InputError(file, "line 1", "empty trace: no header");
  if (trace.requests.empty())
    throw InputError(file, "line " + std::to_string(lineNo), "the trace has no requests");
  if (!std::is_sorted(epochs.begin(), epochs.end())) {
    std::vector<size_t> order(epochs.size());
    for (size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(),
                     [&](size_t a, size_t b) { return epochs[a] < epochs[b]; });
    std::vector<TraceRequest> sorted;
    std::vector<double> sortedEpochs;
    sorted.reserve(order.size());
    sortedEpochs.reserve(order.size());
    for (size_t i : order) sorted.push_back(trace.requests[i]), sortedEpochs.push_back(epochs[i]);
    trace.requests.swap(sorted);
    epochs.swap(sortedEpochs);
  }
  // Demand is the trace's requests over its span: several requests at one instant give no rate
  // (an infinite one), so they are refused here, naming the instant, not later as a demand of
  // "inf requests".
  if (epochs.size() > 1 && epochs.back() == epochs.front())
    throw InputError(file, "TIMESTAMP",
                     "all " + std::to_string(epochs.size()) +
                         " requests arrive at the same instant: a trace must span some time to "
                         "give a request rate");
  trace.start_epoch_s = epochs.front();
  for (size_t i = 0; i < epochs.size(); ++i) trace.requests[i].arrival_s = epochs[i] - epochs[0];
  trace.span_s = epochs.back() - epochs.front();
  return trace;
}

Trace readTraceFile(const std::string& path) {
  const std::string text = readTextFile(path, 512u << 20);
  return parseTrace(text, path, std::filesystem::path(path).stem().string());
}

Trace loadTrace(const std::string& nameOrPath) {
  if (nameOrPath == "conv" || nameOrPath == "code") {
    Trace trace =
        readTraceFile(resourcesDir() + "/traces/AzureLLMInferenceTrace_" + nameOrPath + ".csv");
    trace.name = nameOrPath;
    return trace;
  }
  std::error_code ec;
  if (!std::filesystem::exists(nameOrPath, ec))
    throw InputError(nameOrPath, "", "no such file, and not a shipped trace (conv, code)");
  return readTraceFile(nameOrPath);
}

}  // namespace doppler::fleet
