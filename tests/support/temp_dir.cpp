#include "tests/support/temp_dir.h"

#include <unistd.h>

#include <cctype>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <vector>

namespace doppler::testing {
namespace {

std::string currentTestName() {
  const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
  if (!info) return "doppler_test";
  return std::string("doppler_") + info->test_suite_name() + "_" + info->name();
}

}  // namespace

std::string slurp(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

void spit(const std::string& path, const std::string& bytes) {
  std::ofstream(path, std::ios::binary | std::ios::trunc) << bytes;
}

TempDir::TempDir(const std::string& prefix) {
  std::string name = prefix.substr(0, 120);
  for (char& c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '-' && c != '_') c = '_';
  std::string templ = (std::filesystem::temp_directory_path() / (name + "_XXXXXX")).string();
  std::vector<char> buf(templ.begin(), templ.end());
  buf.push_back('\0');
  if (!::mkdtemp(buf.data())) throw std::runtime_error("mkdtemp failed for " + templ);
  dir_ = buf.data();
}

TempDir::~TempDir() {
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string TempDir::write(const std::string& name, const std::string& bytes) const {
  spit(path(name), bytes);
  return path(name);
}

TempDirTest::TempDirTest() : tmp_(currentTestName()) {}

}  // namespace doppler::testing
