#pragma once
// The Azure LLM inference traces 2023 (resources/data/traces; CC BY 4.0): one row per request,
// `TIMESTAMP,ContextTokens,GeneratedTokens`, the arrival time like `2023-11-16 18:15:46.6805900`
// (no time zone; read as UTC).
#include <string>
#include <string_view>
#include <vector>

namespace doppler::fleet {

struct TraceRequest {
  double arrival_s = 0;  // seconds after the trace's first request
  int context_tokens = 0;
  int generated_tokens = 0;
};

struct Trace {
  std::string name;                    // "conv", "code", or the file's stem
  std::vector<TraceRequest> requests;  // in arrival order
  double start_epoch_s = 0;            // the first request, seconds since 1970-01-01 UTC
  double span_s = 0;                   // last arrival - first arrival
  // UTC hour of day of the first request (18.26 for the conversation trace).
  double startHourUtc() const;
};

// Parses a trace. LF or CRLF, with or without a final newline; blank lines are skipped. The
// header must name the three columns; rows out of time order are sorted (stably). Throws
// InputError(file, "line N", what) on a bad header, a wrong field count, a bad timestamp or a
// negative or non-integer token count, and on a trace without rows.
Trace parseTrace(std::string_view text, const std::string& file = {}, const std::string& name = {});
Trace readTraceFile(const std::string& path);
// "conv" or "code" (the shipped traces), else a path.
Trace loadTrace(const std::string& nameOrPath);

// Seconds since 1970-01-01 00:00 UTC of `YYYY-MM-DD HH:MM:SS[.fraction]` (also 'T' between date
// and time); false if malformed.
bool parseTimestamp(std::string_view text, double& epoch_s);

}  // namespace doppler::fleet
