#pragma once
// One error type for every bad input the project reads: it carries the file, the place in the
// file (a line, a JSON path, a field) and what is wrong, so the CLI can print one clear line and
// exit with status 2.
#include <stdexcept>
#include <string>

namespace doppler {

class InputError : public std::runtime_error {
 public:
  InputError(std::string file, std::string where, std::string what)
      : std::runtime_error(compose(file, where, what)),
        file_(std::move(file)),
        where_(std::move(where)),
        what_(std::move(what)) {}

  const std::string& file() const { return file_; }
  const std::string& where() const { return where_; }
  const std::string& problem() const { return what_; }

  // Same error, attributed to a file (readers parse strings and learn the file name later).
  InputError inFile(const std::string& file) const { return InputError(file, where_, what_); }

 private:
  static std::string compose(const std::string& file, const std::string& where,
                             const std::string& what) {
    std::string s = file.empty() ? std::string("<input>") : file;
    if (!where.empty()) s += ": " + where;
    return s + ": " + what;
  }
  std::string file_, where_, what_;
};

}  // namespace doppler
