// Topologies: the shipped SNDlib and TopoHub files read with the sizes resources/data/README.md
// gives, line endings do not matter, and malformed files name the line and the problem.
#include <gtest/gtest.h>

#include <cmath>

#include "core/common/input_error.h"
#include "core/fleet/world/topology.h"
#include "tests/fleet/world_test_files.h"

namespace {

using doppler::InputError;
using namespace doppler::fleet;
using doppler::testing::asCrlfWithoutFinalNewline;
using doppler::testing::asLf;
using doppler::testing::shippedTopologyFile;
using doppler::testing::slurp;

struct Size {
  const char* name;
  int nodes, links;
  Coordinates coordinates;
};

TEST(FleetTopology, ShippedTopologiesReadWithTheirPublishedSizes) {
  // Sizes from resources/data/README.md.
  for (const Size& s :
       {Size{"abilene", 12, 15, Coordinates::LonLat}, Size{"polska", 12, 18, Coordinates::LonLat},
        Size{"cost266", 37, 57, Coordinates::LonLat},
        Size{"germany50", 50, 88, Coordinates::LonLat},
        Size{"gabriel", 25, 40, Coordinates::PlanarKm},
        Size{"intercontinental", 12, 16, Coordinates::LonLat}}) {
    SCOPED_TRACE(s.name);
    const Topology topo = loadTopology(s.name);
    EXPECT_EQ(topo.name, s.name);
    EXPECT_EQ(topo.nodeCount(), s.nodes);
    EXPECT_EQ(static_cast<int>(topo.links.size()), s.links);
    EXPECT_EQ(topo.coordinates, s.coordinates);
  }
}

TEST(FleetTopology, AbileneNodesKeepTheirCoordinatesAndLinkEnds) {
  const Topology topo = loadTopology("abilene");
  EXPECT_EQ(topo.nodes[0].name, "ATLAM5");
  EXPECT_DOUBLE_EQ(topo.nodes[0].x, -84.3833);
  EXPECT_DOUBLE_EQ(topo.nodes[0].y, 33.75);
  // First link: "ATLAM5_ATLAng ( ATLAng ATLAM5 )".
  EXPECT_EQ(topo.links[0].name, "ATLAM5_ATLAng");
  EXPECT_EQ(topo.nodes[topo.links[0].a].name, "ATLAng");
  EXPECT_EQ(topo.nodes[topo.links[0].b].name, "ATLAM5");
  // Degree sums to twice the links.
  int sum = 0;
  for (int d : topo.degrees()) sum += d;
  EXPECT_EQ(sum, 30);
}

TEST(FleetTopology, GabrielTextAndTopoHubJsonAreTheSameGraph) {
  const Topology text = readTopologyFile(shippedTopologyFile("gabriel.txt"));
  const Topology json = readTopologyFile(shippedTopologyFile("gabriel25_0.json"));
  EXPECT_EQ(json.coordinates, Coordinates::PlanarKm);
  ASSERT_EQ(text.nodeCount(), json.nodeCount());
  ASSERT_EQ(text.links.size(), json.links.size());
  for (int i = 0; i < text.nodeCount(); ++i) {
    EXPECT_EQ(text.nodes[i].name, json.nodes[i].name);
    EXPECT_DOUBLE_EQ(text.nodes[i].x, json.nodes[i].x);
    EXPECT_DOUBLE_EQ(text.nodes[i].y, json.nodes[i].y);
  }
  for (size_t l = 0; l < text.links.size(); ++l) {
    EXPECT_EQ(text.links[l].a, json.links[l].a);
    EXPECT_EQ(text.links[l].b, json.links[l].b);
  }
  // R0-R16: the JSON's "dist" is 127.58 km; Euclid on (188.48, 463.39), (R16's position).
  EXPECT_NEAR(text.distanceKm(text.links[0].a, text.links[0].b), 127.58, 0.01);
}

TEST(FleetTopology, LineEndingsAndFinalNewlineDoNotChangeTheGraph) {
  for (const char* name : {"abilene.txt", "polska.txt", "cost266.txt", "gabriel.txt"}) {
    SCOPED_TRACE(name);
    const std::string original = slurp(shippedTopologyFile(name));
    ASSERT_FALSE(original.empty());
    const Topology a = parseTopology(original, name);
    const Topology crlf = parseTopology(asCrlfWithoutFinalNewline(original), name);
    const Topology lf = parseTopology(asLf(original), name);
    for (const Topology* other : {&crlf, &lf}) {
      ASSERT_EQ(a.nodeCount(), other->nodeCount());
      ASSERT_EQ(a.links.size(), other->links.size());
      EXPECT_EQ(a.coordinates, other->coordinates);
      for (int i = 0; i < a.nodeCount(); ++i) {
        EXPECT_EQ(a.nodes[i].name, other->nodes[i].name);
        EXPECT_EQ(a.nodes[i].x, other->nodes[i].x);
      }
    }
  }
}

TEST(FleetTopology, HaversineMatchesAHandComputedDistance) {
  // ATLAM5 (-84.3833, 33.75) to ATLAng (-85.5, 34.5): spherical law of cosines on R = 6371.0088
  // km gives 132.365 km (computed separately).
  EXPECT_NEAR(haversineKm(-84.3833, 33.75, -85.5, 34.5), 132.365, 0.001);
  // A quarter of the equator: pi/2 * R.
  EXPECT_NEAR(haversineKm(0, 0, 90, 0), 6371.0088 * 3.14159265358979 / 2, 1e-6);
  EXPECT_DOUBLE_EQ(haversineKm(10, 20, 10, 20), 0.0);
}

// A small well-formed file, and variants of it that must fail.
const char* kGood =
    "?SNDlib native format; type: network; version: 1.0\n"
    "NODES (\n"
    "  A ( 10.0 50.0 )\n"
    "  B ( 11.0 50.0 )\n"
    "  C ( 12.0 51.0 )\n"
    ")\n"
    "LINKS (\n"
    "  L1 ( A B ) 10.00 0.00 0.00 0.00 ( 40.00 1.00 )\n"
    "  L2 ( B C ) 10.00 0.00 0.00 0.00 ( )\n"
    ")\n";

void expectError(const std::string& text, const std::string& where, const std::string& what) {
  doppler::testing::expectInputError([&] { parseTopology(text, "t.txt"); }, "t.txt", where, what);
}

std::string replaced(std::string text, const std::string& from, const std::string& to) {
  text.replace(text.find(from), from.size(), to);
  return text;
}

TEST(FleetTopology, AWellFormedSmallFileReads) {
  const Topology topo = parseTopology(kGood, "t.txt", "t");
  EXPECT_EQ(topo.nodeCount(), 3);
  EXPECT_EQ(topo.links.size(), 2u);
  EXPECT_EQ(topo.coordinates, Coordinates::LonLat);
}

TEST(FleetTopology, MalformedFilesNameTheLineAndTheProblem) {
  expectError(replaced(kGood, "10.0 50.0", "1o.0 50.0"), "line 3", "bad number \"1o.0\"");
  expectError(replaced(kGood, "( A B )", "( A Z )"), "line 8", "unknown node Z");
  expectError(replaced(kGood, "  B ( 11.0", "  A ( 11.0"), "line 4", "duplicate node A");
  expectError(replaced(kGood, "L2 ( B C )", "L1 ( B C )"), "line 9", "duplicate link L1");
  expectError(replaced(kGood, "( A B )", "( A A )"), "line 8", "joins node A to itself");
  expectError(replaced(kGood, "  C ( 12.0 51.0 )", "  C ( 12.0 )"), "line 5", "expected a node");
  expectError(replaced(kGood, "10.00 0.00 0.00 0.00 ( )", "10.00 x 0.00 0.00 ( )"), "line 9",
              "bad number \"x\"");
  expectError(replaced(kGood, "  A ( 10.0 50.0 )", "  A ( 190.0 50.0 )"), "line 3",
              "not a longitude/latitude");
  // Disconnected: drop L2, C is alone. The error points at the LINKS section.
  expectError(replaced(kGood, "  L2 ( B C ) 10.00 0.00 0.00 0.00 ( )\n", ""), "line 7",
              "disconnected: node C");
  // Missing sections, an unclosed one, stray text.
  expectError(std::string(kGood).substr(0, std::string(kGood).find("LINKS")), "line 6",
              "no LINKS section");
  expectError("# only a comment\n", "line 1", "no NODES section");
  expectError(std::string(kGood).substr(0, std::string(kGood).size() - 2), "line 7",
              "LINKS is never closed");
  expectError(replaced(kGood, "NODES (", "NODES"), "line 2", "expected a section");
  expectError(replaced(kGood, "  L1", "  ) L1"), "line 8", "holds more than");
}

TEST(FleetTopology, PlanarFilesAreMarkedByAComment) {
  const std::string planar = replaced(kGood, "NODES (", "# x y are PLANAR km\nNODES (");
  EXPECT_EQ(parseTopology(replaced(planar, "10.0 50.0", "400.0 -300.0"), "t.txt").coordinates,
            Coordinates::PlanarKm);
}

TEST(FleetTopology, TopoHubJsonErrorsNameTheJsonPath) {
  try {
    parseTopology(R"({"nodes": [{"name": "a", "pos": [0, 0], "id": 0}], "edges": [)"
                  R"({"source": 0, "target": 7}]})",
                  "t.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.where(), "/edges/0/target");
    EXPECT_NE(e.problem().find("unknown node id 7"), std::string::npos);
  }
}

// A number too large for a double is the JSON library's out_of_range, not its parse_error: an
// InputError naming the file too (it ended the program before).
TEST(FleetTopology, TopoHubJsonWithAnOverflowingNumberIsAnInputError) {
  try {
    parseTopology(R"({"nodes": [{"name": "a", "pos": [1e999999, 0], "id": 0}], "edges": []})",
                  "t.json");
    FAIL();
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "t.json");
    EXPECT_NE(e.problem().find("not valid JSON"), std::string::npos) << e.problem();
  }
}

TEST(FleetTopology, UnknownNamesAndMissingFilesAreInputErrors) {
  EXPECT_THROW(loadTopology("atlantis"), InputError);
  EXPECT_EQ(shippedTopologies().size(), 6u);
}

}  // namespace
