#pragma once
// Looks at a database file's bytes before SQLite touches it. Opening a file with SQLite can
// already change it (a WAL checkpoint on close, a new journal mode in the header), so anything
// that must be refused -- not an SQLite file, a truncated one, another application's database, a
// newer schema -- is refused from the raw 100-byte header first, and the file is never written.
#include <cstdint>
#include <string>

namespace doppler::sessions {

struct FileHeader {
  bool exists = false;
  uint64_t size = 0;
  bool has_wal = false;      // a non-empty "-wal" beside it: the header may be stale
  bool has_journal = false;  // a "-journal" beside it: SQLite will roll back on open
  uint32_t page_size = 0;
  uint32_t page_count = 0;        // meaningful only if page_count_valid
  bool page_count_valid = false;  // SQLite's rule: non-zero and change counter == valid-for
  uint32_t user_version = 0;      // the schema version
  uint32_t application_id = 0;
};

// Reads the header of `path`. Throws InputError naming the file when it exists but is not a
// regular file, cannot be read, is not an SQLite database, or is visibly damaged (a header that
// is cut short or impossible, or a file shorter than its header says). A missing or empty file
// is returned with exists = false / size = 0 (an empty file is a new database to SQLite).
FileHeader inspectDatabaseFile(const std::string& path);

}  // namespace doppler::sessions
