#pragma once
// Network topologies for the fleet: the regions (nodes) and the links between them, read from
// the SNDlib native format (resources/data/topologies, docs/fleet.md) or from TopoHub's
// node-link JSON. A node is a GPU region; links carry requests served away from home.
#include <string>
#include <string_view>
#include <vector>

namespace doppler::fleet {

// SNDlib gives longitude and latitude in degrees; the Gabriel graph (TopoHub) planar kilometres.
enum class Coordinates { LonLat, PlanarKm };

struct TopologyNode {
  std::string name;
  double x = 0, y = 0;  // longitude, latitude (degrees) or x, y (km)
};

struct TopologyLink {
  std::string name;
  int a = 0, b = 0;  // node indices, undirected
};

struct Topology {
  std::string name;
  Coordinates coordinates = Coordinates::LonLat;
  std::vector<TopologyNode> nodes;
  std::vector<TopologyLink> links;

  int nodeCount() const { return static_cast<int>(nodes.size()); }
  // Links at each node (parallel links count once each).
  std::vector<int> degrees() const;
  // Great-circle (LonLat) or Euclidean (PlanarKm) distance between two nodes, in km.
  double distanceKm(int a, int b) const;
};

// Great-circle distance (haversine) on a sphere of the mean Earth radius, 6371.0088 km (IUGG
// mean radius R1, Moritz, "Geodetic Reference System 1980", J. Geodesy 74, 2000), in km.
double haversineKm(double lon1, double lat1, double lon2, double lat2);

// Parses an SNDlib native network file (NODES and LINKS sections; META, DEMANDS and
// ADMISSIBLE_PATHS are skipped) or, when the text starts with '{', a TopoHub node-link JSON
// (planar km). LF or CRLF line endings, with or without a final newline. A comment line
// containing "PLANAR" before NODES marks planar km coordinates (as gabriel.txt has); otherwise
// coordinates must be valid longitudes and latitudes. Throws InputError(file, "line N", what) on
// a missing section, a bad number, a duplicate node or link, a link to an unknown node or to
// itself, and on a disconnected graph (a region that cannot reach another cannot route).
Topology parseTopology(std::string_view text, const std::string& file = {},
                       const std::string& name = {});

// Reads a topology file (name: the file's stem).
Topology readTopologyFile(const std::string& path);

// The shipped topologies by name (abilene, polska, cost266, gabriel, germany50,
// intercontinental), else a path.
Topology loadTopology(const std::string& nameOrPath);
const std::vector<std::string>& shippedTopologies();

// The shipped data folder: the installed copy beside the executable (<prefix>/share/doppler-studio/
// data from <prefix>/bin), else the checkout's resources/data (a program in the build tree).
std::string resourcesDir();

}  // namespace doppler::fleet
