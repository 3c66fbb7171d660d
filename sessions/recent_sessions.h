#pragma once
// The studio's File > Recent Sessions list: a small text file in the data directory
// (recent-sessions.txt), one absolute path per line, most recent first, at most `kMaxRecent`.
// A text file rather than a table: it belongs to the user, not to any one session, and must
// survive a damaged or deleted default session. Written to a temporary file and renamed, so a
// crash never leaves half a list. Paths whose file has since gone stay listed (the studio shows
// them greyed); forgetRecentSession removes one.
#include <string>
#include <vector>

namespace doppler::sessions {

inline constexpr std::size_t kMaxRecent = 10;

// `dir`: the data directory (default: dataDirectory()). A missing list reads as empty.
std::vector<std::string> recentSessions(const std::string& dir = {});
// Moves (or adds) `path`, made absolute, to the front. Throws InputError if the list cannot be
// written.
void rememberRecentSession(const std::string& path, const std::string& dir = {});
void forgetRecentSession(const std::string& path, const std::string& dir = {});

}  // namespace doppler::sessions
