#pragma once
// Where the fleet map puts each region, and how a link or flow between two regions is drawn.
// Longitude and latitude: equirectangular, longitude scaled by the cosine of the mean latitude,
// centred so that the seam (the map's left and right edge) falls in the widest stretch of
// longitude without a region. A world that spans the globe (the intercontinental one) has links
// whose short way crosses the seam (San Jose to Tokyo over the Pacific): those are drawn as two
// parts that leave through the edges, never as a line across the whole map the long way round.
// Planar topologies are drawn as given.
#include <QLineF>
#include <QPointF>
#include <QRectF>
#include <vector>

#include "core/fleet/world/world.h"

namespace doppler::views {

struct MapProjection {
  std::vector<QPointF> points;  // the regions in projected units, y up
  QRectF bounds;                // what the map shows (the whole seam-to-seam width if any wraps)
  double seam = 0;              // x of the right edge (the left is -seam); 0: nothing wraps

  // The drawn parts of the line from region a to region b: one, or two through the seam (the
  // first from a to the edge, the second from the opposite edge to b).
  std::vector<QLineF> parts(int a, int b) const;
  bool wraps(int a, int b) const;
};

MapProjection projectWorld(const fleet::World& world);

}  // namespace doppler::views
