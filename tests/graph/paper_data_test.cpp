// Where the paper graphs are looked for: --data-dir, else $DOPPLER_DATA_DIR, else the compiled-in
// default when it exists; and what is said when they are missing.
#include "core/graph/paper_data.h"

#include <gtest/gtest.h>

#include <filesystem>

#include "tests/support/temp_dir.h"

namespace doppler {
namespace {

namespace fs = std::filesystem;
using Source = DataDir::Source;

class PaperData : public testing::TempDirTest {
 protected:
  // A data folder holding doppler-graphs/<files>.
  std::string dataDir(const std::string& name, const std::vector<std::string>& files) const {
    fs::create_directories(fs::path(path(name)) / kPaperGraphsFolder);
    for (const auto& f : files)
      write(name + "/" + kPaperGraphsFolder + "/" + f, "3\n0\n0\n1\n1,4\n2,8");
    return path(name);
  }
};

TEST_F(PaperData, ExplicitFolderComesFirst) {
  const std::string a = dataDir("a", {}), b = dataDir("b", {}), c = dataDir("c", {});
  DataDir d = findDataDir(a, b.c_str(), c);
  EXPECT_EQ(d.path, a);
  EXPECT_EQ(d.source, Source::Explicit);
  // Even a folder that does not exist: the user asked for it, the message will name it.
  d = findDataDir(path("nowhere"), b.c_str(), c);
  EXPECT_EQ(d.path, path("nowhere"));
  EXPECT_EQ(d.source, Source::Explicit);
}

TEST_F(PaperData, ThenTheEnvironmentThenTheDefault) {
  const std::string b = dataDir("b", {}), c = dataDir("c", {});
  DataDir d = findDataDir("", b.c_str(), c);
  EXPECT_EQ(d.path, b);
  EXPECT_EQ(d.source, Source::Environment);
  d = findDataDir("", path("unset-but-named").c_str(), c);
  EXPECT_EQ(d.source, Source::Environment);
  // Unset or empty: the default.
  for (const char* env : {static_cast<const char*>(nullptr), ""}) {
    d = findDataDir("", env, c);
    EXPECT_EQ(d.path, c);
    EXPECT_EQ(d.source, Source::Default);
  }
}

TEST_F(PaperData, TheDefaultOnlyIfItExists) {
  DataDir d = findDataDir("", nullptr, path("no-such-folder"));
  EXPECT_EQ(d.source, Source::None);
  EXPECT_TRUE(d.path.empty());
  EXPECT_EQ(findDataDir("", nullptr, "").source, Source::None);
  // A plain file is not a folder.
  EXPECT_EQ(findDataDir("", nullptr, write("file", "x")).source, Source::None);
}

TEST_F(PaperData, FindsAFileUnderDopplerGraphs) {
  const std::string dir = dataDir("data", {"ffnn_192nodes.txt"});
  const DataDir d = findDataDir(dir, nullptr, "");
  const PaperGraph p = paperGraph("ffnn_192nodes.txt", d);
  ASSERT_TRUE(p.found()) << p.missing;
  EXPECT_EQ(fs::path(p.path), fs::path(dir) / "doppler-graphs" / "ffnn_192nodes.txt");
  EXPECT_TRUE(fs::exists(p.path));
  EXPECT_EQ(missingPaperGraphs(d, {"ffnn_192nodes.txt", "chain_mm_112nodes.txt"}),
            (std::vector<std::string>{"chain_mm_112nodes.txt"}));
}

TEST_F(PaperData, MissingFilesAreNamedWithHowToProvideThem) {
  const std::string dir = dataDir("data", {"ffnn_192nodes.txt"});
  const PaperGraph p = paperGraph("chain_mm_112nodes.txt", findDataDir(dir, nullptr, ""));
  EXPECT_FALSE(p.found());
  EXPECT_TRUE(p.path.empty());
  for (const std::string& fragment :
       {std::string(
            "the Doppler paper graph doppler-graphs/chain_mm_112nodes.txt was not found in "),
        dir + " (--data-dir)", std::string("pass --data-dir DIR or set DOPPLER_DATA_DIR=DIR")})
    EXPECT_NE(p.missing.find(fragment), std::string::npos) << p.missing;
  EXPECT_EQ(p.missing.find('\n'), std::string::npos);

  // Several, from the environment, for a test (no option to offer).
  const DataDir env = findDataDir("", path("nowhere").c_str(), "");
  const std::string m = missingPaperGraphsMessage(env, missingPaperGraphs(env, paperGraphFiles()),
                                                  DataDirHint::Environment);
  EXPECT_NE(m.find("the Doppler paper graphs (doppler-graphs/chain_mm_112nodes.txt, "
                   "doppler-graphs/ffnn_192nodes.txt, "),
            std::string::npos)
      << m;
  EXPECT_NE(m.find(path("nowhere") + " (DOPPLER_DATA_DIR), a folder that does not exist"),
            std::string::npos)
      << m;
  EXPECT_EQ(m.find("--data-dir"), std::string::npos) << m;
  EXPECT_NE(m.find("set DOPPLER_DATA_DIR=DIR"), std::string::npos) << m;

  // No folder at all.
  const DataDir none = findDataDir("", nullptr, path("gone"));
  EXPECT_NE(paperGraph("ffnn_192nodes.txt", none).missing.find("no data folder"),
            std::string::npos);
}

TEST(PaperDataFiles, SixFilesInTheReadmeOrder) {
  ASSERT_EQ(paperGraphFiles().size(), 6u);
  EXPECT_EQ(paperGraphFiles().front(), "chain_mm_112nodes.txt");
  EXPECT_EQ(paperGraphFiles().back(), "8gpu_full_transformer.txt");
}

}  // namespace
}  // namespace doppler
