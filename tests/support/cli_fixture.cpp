#include "tests/support/cli_fixture.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdlib>

namespace doppler::testing {

CliResult CliFixture::run(const std::string& args, const std::string& env) const {
  const std::string out = path("stdout"), err = path("stderr");
  const std::string cmd = "env XDG_DATA_HOME=" + path("xdg-data") + " HOME=" + path("home") + " " +
                          env + " timeout 300 " + std::string(DOPPLER_CLI) + " " + args + " >" +
                          out + " 2>" + err + " </dev/null";
  const int raw = std::system(cmd.c_str());
  CliResult r;
  r.status = WIFEXITED(raw) ? WEXITSTATUS(raw) : -1;
  r.out = slurp(out);
  r.err = slurp(err);
  return r;
}

CliResult CliFixture::expectBadInput(const std::string& args,
                                     const std::vector<std::string>& fragments) const {
  CliResult r = run(args);
  EXPECT_EQ(r.status, 2) << args << "\nstderr: " << r.err;
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << args << "\nstderr: " << r.err;
  for (const auto& f : fragments)
    EXPECT_NE(r.err.find(f), std::string::npos) << "missing '" << f << "' in: " << r.err;
  return r;
}

}  // namespace doppler::testing
