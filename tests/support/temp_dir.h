#pragma once
// Temporary folders for tests: a fresh one per object (mkdtemp under the system's temporary
// directory), removed with its contents when the object goes; a fixture that gives each test its
// own; whole-file reads and writes.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

namespace doppler::testing {

// The whole file ("" if it cannot be read), and a whole-file write (truncating).
std::string slurp(const std::string& path);
void spit(const std::string& path, const std::string& bytes);

class TempDir {
 public:
  // <tmp>/<prefix>_XXXXXX; characters other than letters, digits, '-' and '_' become '_'.
  explicit TempDir(const std::string& prefix = "doppler_test");
  ~TempDir();
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;

  const std::filesystem::path& dir() const { return dir_; }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }
  // Writes `bytes` to the file `name` in the folder and returns its path.
  std::string write(const std::string& name, const std::string& bytes) const;

 private:
  std::filesystem::path dir_;
};

// A fixture whose every test has its own folder, named after the test.
class TempDirTest : public ::testing::Test {
 protected:
  TempDirTest();

  const std::filesystem::path& dir() const { return tmp_.dir(); }
  std::string path(const std::string& name) const { return tmp_.path(name); }
  std::string write(const std::string& name, const std::string& bytes) const {
    return tmp_.write(name, bytes);
  }
  static std::string slurp(const std::string& p) { return ::doppler::testing::slurp(p); }
  static void spit(const std::string& p, const std::string& bytes) {
    ::doppler::testing::spit(p, bytes);
  }

 private:
  TempDir tmp_;
};

}  // namespace doppler::testing
