#include "views/fleet/map_projection.h"

#include <algorithm>
#include <cmath>

namespace doppler::views {

bool MapProjection::wraps(int a, int b) const {
  return seam > 0 && std::abs(points[a].x() - points[b].x()) > seam;
}

std::vector<QLineF> MapProjection::parts(int a, int b) const {
  const QPointF pa = points[a], pb = points[b];
  if (!wraps(a, b)) return {QLineF(pa, pb)};
  // The short way: from a out through its nearer edge, in again through the other.
  const double edgeA = pa.x() < 0 ? -seam : seam;
  const double toEdge = std::abs(edgeA - pa.x()), fromEdge = std::abs(-edgeA - pb.x());
  const double t = toEdge / std::max(1e-12, toEdge + fromEdge);
  const double y = pa.y() + (pb.y() - pa.y()) * t;
  return {QLineF(pa, QPointF(edgeA, y)), QLineF(QPointF(-edgeA, y), pb)};
}

MapProjection projectWorld(const fleet::World& w) {
  MapProjection m;
  const int n = w.regionCount();
  if (n == 0) return m;
  const bool lonLat = w.coordinates == fleet::Coordinates::LonLat;
  double meanLat = 0;
  for (const fleet::Region& r : w.regions) meanLat += r.y / n;
  const double k = lonLat ? std::cos(meanLat * M_PI / 180.0) : 1.0;
  double centre = 0;
  if (lonLat) {
    // The seam goes in the middle of the widest gap between neighbouring longitudes (around the
    // globe), so it crosses as few links as it can; the map is centred opposite.
    std::vector<double> lons;
    for (const fleet::Region& r : w.regions) lons.push_back(r.x);
    std::sort(lons.begin(), lons.end());
    double widest = lons.front() + 360.0 - lons.back(), seamAt = lons.back() + widest / 2;
    for (size_t i = 1; i < lons.size(); ++i)
      if (lons[i] - lons[i - 1] > widest) {
        widest = lons[i] - lons[i - 1];
        seamAt = lons[i - 1] + widest / 2;
      }
    centre = seamAt - 180.0;
  }
  for (const fleet::Region& r : w.regions) {
    double x = r.x - centre;
    if (lonLat) x = std::remainder(x, 360.0);  // into [-180, 180]
    m.points.emplace_back(x * k, r.y);
  }
  double x0 = INFINITY, x1 = -INFINITY, y0 = INFINITY, y1 = -INFINITY;
  for (const QPointF& p : m.points) {
    x0 = std::min(x0, p.x());
    x1 = std::max(x1, p.x());
    y0 = std::min(y0, p.y());
    y1 = std::max(y1, p.y());
  }
  if (lonLat) {
    m.seam = 180.0 * k;
    bool any = false;
    for (const fleet::TopologyLink& l : w.links) any = any || m.wraps(l.a, l.b);
    if (any) {
      x0 = -m.seam, x1 = m.seam;  // the edges are the seam
    } else {
      m.seam = 0;
    }
  }
  const double pad = 1e-6 + 0.02 * std::max(x1 - x0, y1 - y0);
  m.bounds = QRectF(QPointF(x0 - (m.seam > 0 ? 0 : pad), y0 - pad),
                    QPointF(x1 + (m.seam > 0 ? 0 : pad), y1 + pad));
  return m;
}

}  // namespace doppler::views
