#pragma once
// The run store's schema and its forward migrations. The schema version lives in
// `PRAGMA user_version`; `PRAGMA application_id` marks the file as a Doppler Studio session, so
// another program's SQLite database is refused instead of being filled with our tables.
#include <cstdint>
#include <span>

#include "sessions/file_check.h"
#include "sessions/sqlite_db.h"

namespace doppler::sessions {

inline constexpr uint32_t kApplicationId = 0x44505354;  // "DPST"

// Migration `version` takes a database from version-1 to `version`. Versions are consecutive
// from 1; a migration is never edited once released, only followed by a new one.
struct Migration {
  int version;
  const char* what;
  const char* sql;
};

std::span<const Migration> builtinMigrations();
// The newest version a list of migrations reaches (0 for an empty list).
int latestVersion(std::span<const Migration> migrations);

// Refusals decided from the raw header alone (before SQLite opens the file): another
// application's database, or a schema newer than `supported`. Throws InputError naming `file`.
void refuseFromHeader(const FileHeader& h, const std::string& file, int supported);

// The same refusals from SQLite's view of an open file: `objects` is the number of entries in
// sqlite_schema; an unmarked file (application_id 0) with any is another program's database.
void checkOwnership(const std::string& file, uint32_t applicationId, int64_t version,
                    int64_t objects, int supported);

// Brings an open read-write database up to the latest version in `migrations`: in one IMMEDIATE
// transaction it re-reads application_id and user_version (another process may have migrated
// meanwhile), refuses a foreign or newer database without writing, applies the missing
// migrations and stamps both pragmas. All or nothing: a failure leaves the file as it was.
void migrate(Db& db, std::span<const Migration> migrations);

// Read-only check of an open database: ours, at exactly the latest version (a read-only handle
// cannot migrate; an older file must be opened writable once). Throws InputError.
void checkVersionReadOnly(Db& db, std::span<const Migration> migrations);

}  // namespace doppler::sessions
