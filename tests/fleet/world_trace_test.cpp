// The Azure trace reader: the shipped files with their published sizes, any line ending, and
// malformed rows reported with their line.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.h"
#include "core/fleet/world/demand.h"
#include "core/fleet/world/trace_reader.h"
#include "tests/fleet/world_test_files.h"

namespace {

using doppler::InputError;
using namespace doppler::fleet;
using doppler::testing::asCrlfWithoutFinalNewline;
using doppler::testing::asLf;
using doppler::testing::shippedTraceFile;
using doppler::testing::slurp;

TEST(FleetTrace, ShippedTracesReadWithTheirPublishedSizes) {
  const Trace conv = loadTrace("conv");
  EXPECT_EQ(conv.name, "conv");
  ASSERT_EQ(conv.requests.size(), 19366u);
  // First row "2023-11-16 18:15:46.6805900,374,44"; last "2023-11-16 19:14:08.4025270,197,183".
  EXPECT_EQ(conv.requests.front().context_tokens, 374);
  EXPECT_EQ(conv.requests.front().generated_tokens, 44);
  EXPECT_EQ(conv.requests.back().context_tokens, 197);
  EXPECT_NEAR(conv.span_s, (19 * 3600 + 14 * 60 + 8.402527) - (18 * 3600 + 15 * 60 + 46.68059),
              1e-5);
  EXPECT_NEAR(conv.startHourUtc(), 18 + 15 / 60.0 + 46.68059 / 3600, 1e-9);
  for (size_t i = 1; i < conv.requests.size(); ++i)
    ASSERT_LE(conv.requests[i - 1].arrival_s, conv.requests[i].arrival_s);
  EXPECT_EQ(loadTrace("code").requests.size(), 8819u);
}

TEST(FleetTrace, TheSyntheticDefaultsAreTheConversationTracesFit) {
  const Trace conv = loadTrace("conv");
  std::vector<double> context, generated;
  for (const TraceRequest& r : conv.requests)
    context.push_back(r.context_tokens), generated.push_back(r.generated_tokens);
  const SyntheticOptions defaults;
  const LogNormal c = fitLogNormal(context), g = fitLogNormal(generated);
  EXPECT_NEAR(c.mu, defaults.context.mu, 1e-4);
  EXPECT_NEAR(c.sigma, defaults.context.sigma, 1e-4);
  EXPECT_NEAR(g.mu, defaults.generated.mu, 1e-4);
  EXPECT_NEAR(g.sigma, defaults.generated.sigma, 1e-4);
  EXPECT_NEAR(defaults.mean_rate_per_s, conv.requests.size() / conv.span_s, 1e-3);
}

TEST(FleetTrace, LineEndingsAndFinalNewlineDoNotMatter) {
  const std::string original = slurp(shippedTraceFile("code"));
  ASSERT_NE(original.find("\r\n"), std::string::npos);  // shipped as CRLF
  ASSERT_NE(original.back(), '\n');                     // without a final newline
  const Trace a = parseTrace(original);
  const Trace lf = parseTrace(asLf(original));
  const Trace crlf = parseTrace(asCrlfWithoutFinalNewline(asLf(original)) + "\r\n\r\n");
  for (const Trace* other : {&lf, &crlf}) {
    ASSERT_EQ(a.requests.size(), other->requests.size());
    EXPECT_EQ(a.start_epoch_s, other->start_epoch_s);
    EXPECT_EQ(a.requests.back().arrival_s, other->requests.back().arrival_s);
    EXPECT_EQ(a.requests.back().generated_tokens, other->requests.back().generated_tokens);
  }
}

TEST(FleetTrace, TimestampsParseToEpochSeconds) {
  double t = 0;
  ASSERT_TRUE(parseTimestamp("1970-01-01 00:00:00", t));
  EXPECT_EQ(t, 0.0);
  // 2023-11-16 is day 19,677 since 1970-01-01.
  ASSERT_TRUE(parseTimestamp("2023-11-16 18:15:46.6805900", t));
  EXPECT_NEAR(t, 19677 * 86400.0 + 18 * 3600 + 15 * 60 + 46.68059, 1e-6);
  ASSERT_TRUE(parseTimestamp("2024-02-29T23:59:59.5", t));
  for (const char* bad : {"2023-11-16", "2023-13-01 00:00:00", "2023-02-29 00:00:00",
                          "2023-11-16 24:00:00", "2023-11-16 18:15:46.", "2023/11/16 18:15:46",
                          "2023-11-16 18:15:46.68x", "2023-11-16 18:15:46.6805900000000"})
    EXPECT_FALSE(parseTimestamp(bad, t)) << bad;
}

void expectError(const std::string& text, const std::string& where, const std::string& what) {
  doppler::testing::expectInputError([&] { parseTrace(text, "t.csv"); }, "t.csv", where, what);
}

TEST(FleetTrace, MalformedRowsNameTheirLine) {
  const std::string header = "TIMESTAMP,ContextTokens,GeneratedTokens\r\n";
  const std::string row = "2023-11-16 18:15:46.6805900,374,44\r\n";
  expectError("time,ctx,gen\r\n" + row, "line 1", "expected the header");
  expectError(header + row + "2023-11-16 18:15:47.0,12\r\n", "line 3", "expected 3 fields");
  expectError(header + row + "2023-11-16 18:15:47.0,1,2,3\r\n", "line 3", "expected 3 fields");
  expectError(header + row + "yesterday,1,2\r\n", "line 3", "bad timestamp \"yesterday\"");
  expectError(header + row + "2023-11-16 18:15:47.0,-4,2\r\n", "line 3", "bad ContextTokens");
  expectError(header + row + "2023-11-16 18:15:47.0,4,2.5\r\n", "line 3", "bad GeneratedTokens");
  expectError(header + row + "2023-11-16 18:15:47.0,4,", "line 3", "bad GeneratedTokens");
  expectError(header, "line 1", "no requests");
  expectError("\r\n\r\n", "line 1", "no header");
}

TEST(FleetTrace, RowsOutOfOrderAreSorted) {
  const Trace t = parseTrace(
      "TIMESTAMP,ContextTokens,GeneratedTokens\n2023-11-16 18:00:10,2,20\n"
      "2023-11-16 18:00:00,1,10\n2023-11-16 18:00:05,3,30");
  ASSERT_EQ(t.requests.size(), 3u);
  EXPECT_EQ(t.requests[0].context_tokens, 1);
  EXPECT_EQ(t.requests[1].context_tokens, 3);
  EXPECT_EQ(t.requests[2].arrival_s, 10.0);
  EXPECT_EQ(t.span_s, 10.0);
}

}  // namespace
