#include "session.h"

#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>

#include "core/common/input_error.h"
#include "sessions/file_publish.h"
#include "sessions/user_paths.h"

namespace doppler::sessions {
namespace fs = std::filesystem;

Session Session::open(const std::string& path, OpenMode mode) {
  OpenOptions o;
  o.mode = mode == OpenMode::ReadWrite ? OpenMode::ReadWriteExisting : mode;
  return Session(std::make_unique<RunStore>(path, o));
}

Session Session::create(const std::string& path) {
  std::error_code ec;
  if (fs::exists(path, ec) && !(fs::is_regular_file(path, ec) && fs::file_size(path, ec) == 0))
    throw InputError(path, "", "already exists; not overwritten");
  return Session(std::make_unique<RunStore>(path, OpenOptions{}));
}

Session Session::openOrCreate(const std::string& path) {
  return Session(std::make_unique<RunStore>(path, OpenOptions{}));
}

Session Session::openDefault() {
  ensureDataDirectory();
  return openOrCreate(defaultSessionPath());
}

void Session::copyTo(const std::string& target) {
  if (target.empty()) throw InputError("", "save as", "the target path is empty");
  std::error_code ec;
  if (fs::exists(target, ec) && fs::equivalent(target, path(), ec))
    throw InputError(target, "", "is this session's own file");
  // A target with a non-empty WAL is open in some program (or was not closed cleanly): renaming
  // a new file under that WAL would let SQLite replay foreign pages into it.
  struct stat st {};
  if (::stat((target + "-wal").c_str(), &st) == 0 && st.st_size > 0)
    throw InputError(
        target, "", "is in use by another program (it has a write-ahead log); choose another name");

  const fs::path dir =
      fs::path(target).parent_path().empty() ? fs::path(".") : fs::path(target).parent_path();
  if (!fs::is_directory(dir, ec))
    throw InputError(target, "", "cannot write: directory " + dir.string() + " does not exist");
  if (::access(dir.c_str(), W_OK) != 0)
    throw InputError(target, "", "cannot write: directory " + dir.string() + " is not writable");

  const std::string tmp = temporarySibling(target);
  try {
    {
      Db dst(tmp, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
      auto l = store_->lock();
      sqlite3_backup* b = sqlite3_backup_init(dst.get(), "main", store_->db().get(), "main");
      if (!b) throwSqlite(dst.get(), sqlite3_errcode(dst.get()), target, "saving a copy");
      // All pages in one step: one consistent snapshot of the source (WAL readers do not block
      // its writers meanwhile).
      const int rc = sqlite3_backup_step(b, -1);
      sqlite3_backup_finish(b);
      if (rc != SQLITE_DONE) throwSqlite(dst.get(), rc, target, "saving a copy");
      // The copy is a session like any other: WAL mode, and no journal left beside it.
      dst.queryText("PRAGMA journal_mode = WAL");
    }
    fs::rename(tmp, target, ec);
    if (ec) throw InputError(target, "", "cannot write: " + ec.message());
  } catch (...) {
    removeDatabaseFiles(tmp);
    throw;
  }
}

void Session::saveAs(const std::string& target) {
  copyTo(target);
  OpenOptions o;
  o.mode = OpenMode::ReadWriteExisting;
  store_ = std::make_unique<RunStore>(target, o);
}

}  // namespace doppler::sessions
