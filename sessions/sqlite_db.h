#pragma once
// A thin RAII layer over the SQLite C API: one connection, prepared statements, transactions.
// Every SQLite error becomes an InputError naming the database file and what was being done, so
// the CLI prints one clear line and exits 2 (a damaged or busy file is the user's to fix).
#include <sqlite3.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace doppler::sessions {

// Throws InputError(file, where, <readable description of rc>).
[[noreturn]] void throwSqlite(sqlite3* db, int rc, const std::string& file,
                              const std::string& where);

class Stmt {
 public:
  Stmt() = default;
  Stmt(sqlite3* db, std::string_view sql, std::string file);
  ~Stmt();
  Stmt(Stmt&& o) noexcept;
  Stmt& operator=(Stmt&& o) noexcept;
  Stmt(const Stmt&) = delete;
  Stmt& operator=(const Stmt&) = delete;

  // Parameters are 1-based, as in SQLite.
  Stmt& bind(int i, int64_t v);
  Stmt& bind(int i, int v) { return bind(i, static_cast<int64_t>(v)); }
  Stmt& bind(int i, double v);
  Stmt& bind(int i, std::string_view v);
  Stmt& bind(int i, const char* v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, const std::string& v) { return bind(i, std::string_view(v)); }
  Stmt& bind(int i, std::optional<int64_t> v);
  Stmt& bind(int i, std::optional<double> v);
  Stmt& bindNull(int i);
  Stmt& bindBlob(int i, const void* data, std::size_t bytes);

  // Steps once: true when a row is available, false when the statement is done.
  bool step();
  // Steps to completion (statements that return no rows).
  void run();
  // Ready for new bindings (keeps the compiled statement: the point of preparing once).
  void reset();

  // Columns are 0-based, as in SQLite.
  bool isNull(int col) const;
  int64_t int64(int col) const;
  int integer(int col) const { return static_cast<int>(int64(col)); }
  double real(int col) const;
  std::string text(int col) const;
  std::string blob(int col) const;
  std::optional<int64_t> optInt64(int col) const;
  std::optional<double> optReal(int col) const;

 private:
  sqlite3_stmt* s_ = nullptr;
  sqlite3* db_ = nullptr;
  std::string file_;
};

class Db {
 public:
  Db() = default;
  // sqlite3_open_v2 with `flags`; throws InputError naming the file (with the OS reason) on
  // failure. `name`: how errors name the file when `path` is a URI (default: `path`).
  Db(const std::string& path, int flags, std::string name = {});
  ~Db();
  Db(Db&& o) noexcept;
  Db& operator=(Db&& o) noexcept;
  Db(const Db&) = delete;
  Db& operator=(const Db&) = delete;

  sqlite3* get() const { return db_; }
  const std::string& file() const { return file_; }
  bool isOpen() const { return db_ != nullptr; }
  void close();

  // Runs one or more statements without results.
  void exec(std::string_view sql, const std::string& where = {});
  Stmt prepare(std::string_view sql) const;
  int64_t lastInsertId() const { return sqlite3_last_insert_rowid(db_); }
  int64_t changes() const { return sqlite3_changes64(db_); }
  // The first column of the first row of a query returning one integer (a PRAGMA, a count).
  int64_t queryInt(std::string_view sql) const;
  std::string queryText(std::string_view sql) const;

 private:
  sqlite3* db_ = nullptr;
  std::string file_;
};

// BEGIN IMMEDIATE (take the write lock up front, so a busy database waits in the busy handler
// instead of failing half-way with SQLITE_BUSY) or a deferred BEGIN for reads; ROLLBACK unless
// commit() was called.
class Transaction {
 public:
  explicit Transaction(Db& db, bool immediate = true);
  ~Transaction();
  void commit();
  Transaction(const Transaction&) = delete;
  Transaction& operator=(const Transaction&) = delete;

 private:
  Db& db_;
  bool done_ = false;
};

}  // namespace doppler::sessions
