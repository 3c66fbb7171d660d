#include "sqlite_db.h"

#include <cerrno>
#include <cstring>

#include "core/common/input_error.h"

namespace doppler::sessions {

void throwSqlite(sqlite3* db, int rc, const std::string& file, const std::string& where) {
  const std::string msg = db ? sqlite3_errmsg(db) : sqlite3_errstr(rc);
  const int sysErr = db ? sqlite3_system_errno(db) : 0;
  const std::string os = sysErr ? std::string(" (") + std::strerror(sysErr) + ")" : "";
  std::string what;
  switch (rc & 0xff) {
    case SQLITE_NOTADB:
      what = "not an SQLite database";
      break;
    case SQLITE_CORRUPT:
      what = "the database is damaged (" + msg + ")";
      break;
    case SQLITE_BUSY:
    case SQLITE_LOCKED:
      what = "the database is busy: another process held its lock too long (" + msg + ")";
      break;
    case SQLITE_FULL:
      what = "cannot write: disk full";
      break;
    case SQLITE_READONLY:
    case SQLITE_PERM:
      what = "cannot write: the database is read-only (" + msg + ")";
      break;
    case SQLITE_CANTOPEN:
      what = "cannot open" + (sysErr ? std::string(": ") + std::strerror(sysErr) : ": " + msg);
      break;
    case SQLITE_IOERR:
      // A write failing for want of room is worded as SQLITE_FULL is, and as the CLI's own
      // outputs word it: one cause, one wording.
      if (sysErr == ENOSPC || sysErr == EFBIG || sysErr == EDQUOT)
        what = "cannot write: disk full";
      else
        what = "I/O error (" + msg + ")" + os;
      break;
    default:
      what = msg;
  }
  throw InputError(file, where, what);
}

// --- Stmt ---------------------------------------------------------------------------------------

Stmt::Stmt(sqlite3* db, std::string_view sql, std::string file) : db_(db), file_(std::move(file)) {
  int rc = sqlite3_prepare_v3(db, sql.data(), static_cast<int>(sql.size()),
                              SQLITE_PREPARE_PERSISTENT, &s_, nullptr);
  if (rc != SQLITE_OK) throwSqlite(db, rc, file_, "");
}

Stmt::~Stmt() {
  sqlite3_finalize(s_);
}

Stmt::Stmt(Stmt&& o) noexcept : s_(o.s_), db_(o.db_), file_(std::move(o.file_)) {
  o.s_ = nullptr;
}

Stmt& Stmt::operator=(Stmt&& o) noexcept {
  if (this != &o) {
    sqlite3_finalize(s_);
    s_ = o.s_;
    db_ = o.db_;
    file_ = std::move(o.file_);
    o.s_ = nullptr;
  }
  return *this;
}

#define DOPPLER_CHECK_BIND(call)                            \
  do {                                                      \
    int rc_ = (call);                                       \
    if (rc_ != SQLITE_OK) throwSqlite(db_, rc_, file_, ""); \
  } while (0)

Stmt& Stmt::bind(int i, int64_t v) {
  DOPPLER_CHECK_BIND(sqlite3_bind_int64(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, double v) {
  DOPPLER_CHECK_BIND(sqlite3_bind_double(s_, i, v));
  return *this;
}
Stmt& Stmt::bind(int i, std::string_view v) {
  // An empty view may have a null data(): SQLite would bind NULL, not an empty text.
  DOPPLER_CHECK_BIND(sqlite3_bind_text64(s_, i, v.data() ? v.data() : "", v.size(),
                                         SQLITE_TRANSIENT, SQLITE_UTF8));
  return *this;
}
Stmt& Stmt::bind(int i, std::optional<int64_t> v) {
  return v ? bind(i, *v) : bindNull(i);
}
Stmt& Stmt::bind(int i, std::optional<double> v) {
  return v ? bind(i, *v) : bindNull(i);
}
Stmt& Stmt::bindNull(int i) {
  DOPPLER_CHECK_BIND(sqlite3_bind_null(s_, i));
  return *this;
}
Stmt& Stmt::bindBlob(int i, const void* data, std::size_t bytes) {
  DOPPLER_CHECK_BIND(sqlite3_bind_blob64(s_, i, bytes ? data : "", bytes, SQLITE_TRANSIENT));
  return *this;
}
#undef DOPPLER_CHECK_BIND

bool Stmt::step() {
  int rc = sqlite3_step(s_);
  if (rc == SQLITE_ROW) return true;
  if (rc == SQLITE_DONE) return false;
  // Reset first so the statement does not keep a read transaction open while the error unwinds.
  sqlite3_reset(s_);
  throwSqlite(db_, rc, file_, "");
}

void Stmt::run() {
  while (step()) {
  }
  sqlite3_reset(s_);
}

void Stmt::reset() {
  sqlite3_reset(s_);
  sqlite3_clear_bindings(s_);
}

bool Stmt::isNull(int col) const {
  return sqlite3_column_type(s_, col) == SQLITE_NULL;
}
int64_t Stmt::int64(int col) const {
  return sqlite3_column_int64(s_, col);
}
double Stmt::real(int col) const {
  return sqlite3_column_double(s_, col);
}
std::string Stmt::text(int col) const {
  const unsigned char* p = sqlite3_column_text(s_, col);
  return p ? std::string(reinterpret_cast<const char*>(p), sqlite3_column_bytes(s_, col))
           : std::string();
}
std::string Stmt::blob(int col) const {
  const void* p = sqlite3_column_blob(s_, col);
  return p ? std::string(static_cast<const char*>(p), sqlite3_column_bytes(s_, col))
           : std::string();
}
std::optional<int64_t> Stmt::optInt64(int col) const {
  if (isNull(col)) return std::nullopt;
  return int64(col);
}
std::optional<double> Stmt::optReal(int col) const {
  if (isNull(col)) return std::nullopt;
  return real(col);
}

// --- Db -----------------------------------------------------------------------------------------

Db::Db(const std::string& path, int flags, std::string name)
    : file_(name.empty() ? path : std::move(name)) {
  int rc = sqlite3_open_v2(path.c_str(), &db_, flags | SQLITE_OPEN_EXRESCODE, nullptr);
  if (rc != SQLITE_OK) {
    try {
      throwSqlite(db_, rc, file_, "");
    } catch (...) {
      sqlite3_close_v2(db_);
      db_ = nullptr;
      throw;
    }
  }
}

Db::~Db() {
  close();
}

void Db::close() {
  if (db_) sqlite3_close_v2(db_);
  db_ = nullptr;
}

Db::Db(Db&& o) noexcept : db_(o.db_), file_(std::move(o.file_)) {
  o.db_ = nullptr;
}

Db& Db::operator=(Db&& o) noexcept {
  if (this != &o) {
    close();
    db_ = o.db_;
    file_ = std::move(o.file_);
    o.db_ = nullptr;
  }
  return *this;
}

void Db::exec(std::string_view sql, const std::string& where) {
  const std::string s(sql);
  int rc = sqlite3_exec(db_, s.c_str(), nullptr, nullptr, nullptr);
  if (rc != SQLITE_OK) throwSqlite(db_, rc, file_, where);
}

Stmt Db::prepare(std::string_view sql) const {
  return Stmt(db_, sql, file_);
}

int64_t Db::queryInt(std::string_view sql) const {
  Stmt s = prepare(sql);
  int64_t v = s.step() ? s.int64(0) : 0;
  s.reset();
  return v;
}

std::string Db::queryText(std::string_view sql) const {
  Stmt s = prepare(sql);
  std::string v = s.step() ? s.text(0) : std::string();
  s.reset();
  return v;
}

// --- Transaction --------------------------------------------------------------------------------

Transaction::Transaction(Db& db, bool immediate) : db_(db) {
  db_.exec(immediate ? "BEGIN IMMEDIATE" : "BEGIN");
}

Transaction::~Transaction() {
  if (!done_) sqlite3_exec(db_.get(), "ROLLBACK", nullptr, nullptr, nullptr);
}

void Transaction::commit() {
  db_.exec("COMMIT");
  done_ = true;
}

}  // namespace doppler::sessions
