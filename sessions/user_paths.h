#pragma once
// Where a user's Doppler Studio data lives, following the XDG base directory spec:
//   $XDG_DATA_HOME/doppler-studio/            when XDG_DATA_HOME is set to an absolute path
//   $HOME/.local/share/doppler-studio/        otherwise
// It holds the default session (runs.sqlite: the CLI records there unless given --db, and the
// studio opens it at start) and the recent sessions list (recent-sessions.txt).
#include <string>

namespace doppler::sessions {

// Throws InputError if neither XDG_DATA_HOME nor HOME gives a usable location.
std::string dataDirectory();
std::string defaultSessionPath();  // dataDirectory() + "/runs.sqlite"
// Creates the data directory (and its parents) if needed; throws InputError naming it if that
// fails. Returns it.
std::string ensureDataDirectory();

}  // namespace doppler::sessions
