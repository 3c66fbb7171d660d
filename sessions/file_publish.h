#pragma once
// Puts a finished file in place without ever replacing one that is there. A new session is built
// under a temporary name beside its path and appears at the path only complete (schema, WAL
// mode): processes that start together on a missing session never see a half-made one, and a
// creator that fails or loses the race removes only its own temporary file, never the session
// another process is already writing.
#include <string>

#include "core/common/temporary_name.h"  // temporarySibling: the name to build the file under

namespace doppler::sessions {

// Moves `from` to `to` unless `to` exists. Returns true if `from` is now at `to`; false if `to`
// already existed (it is left as it was, and `from` is removed). Throws InputError naming `to`
// with the OS's reason when neither is possible.
bool publishWithoutReplacing(const std::string& from, const std::string& to);

// Removes `path` and the -wal, -shm and -journal files SQLite may have made beside it.
void removeDatabaseFiles(const std::string& path);

}  // namespace doppler::sessions
