#pragma once
// A session: one SQLite file holding a team's graphs, device sets and runs, which the studio
// opens and saves (File > Open Session, Save Session As, Recent Sessions) and which can be handed
// to a colleague: every run in it opens as it was. The default session lives in the user's data
// directory (user_paths.h) and is the one the CLI records into.
//
// Session does not touch the recent sessions list itself: the studio calls
// rememberRecentSession() (recent_sessions.h) after a successful open or save, so tools and
// tests that open sessions never disturb the user's menu.
#include <memory>
#include <string>

#include "sessions/run_store.h"

namespace doppler::sessions {

class Session {
 public:
  // An existing session; refuses a missing file and everything RunStore refuses.
  static Session open(const std::string& path, OpenMode mode = OpenMode::ReadWriteExisting);
  // A new, empty session at `path`; refuses if a non-empty file is already there (never
  // overwrites one: the studio asks first, then removes it or saves with saveAs).
  static Session create(const std::string& path);
  static Session openOrCreate(const std::string& path);
  // The default session, created with its directory on first use.
  static Session openDefault();

  const std::string& path() const { return store_->path(); }
  RunStore& store() { return *store_; }

  // A consistent copy of the whole session at `path`, made with SQLite's online backup API (it
  // is safe while other processes write: the copy is one snapshot). The copy is written beside
  // the target and renamed over it, so a failure leaves no half file and an existing target is
  // replaced only by a complete copy. Refuses the session's own file and a target that some
  // program has open with unsaved WAL content.
  void copyTo(const std::string& path);
  // Save Session As: copyTo(path), then continue on the copy (the original stays as it was).
  void saveAs(const std::string& path);

 private:
  explicit Session(std::unique_ptr<RunStore> store) : store_(std::move(store)) {}
  std::unique_ptr<RunStore> store_;
};

}  // namespace doppler::sessions
