#include "views/common/node_details.h"

#include <QCoreApplication>

#include "views/common/theme.h"

namespace doppler::views {
namespace {

QString esc(const std::string& s) {
  return QString::fromStdString(s).toHtmlEscaped();
}

QString headerAndCosts(const PlacementSnapshot& s, int v) {
  const DataflowGraph& g = *s.graph;
  const Node& node = g.node(v);
  const NodeSpan& span = s.sim.schedule.nodes[v];
  QString html = QStringLiteral("<b>%1</b> &nbsp;<span style='color:gray'>%2</span><br>")
                     .arg(esc(node.id), node.op.empty() ? QStringLiteral("(no op)") : esc(node.op));
  html += QStringLiteral("<table cellspacing=0 cellpadding=1>");
  auto row = [&](const QString& k, const QString& val) {
    html += QStringLiteral("<tr><td style='color:gray'>%1&nbsp;</td><td>%2</td></tr>").arg(k, val);
  };
  if (node.flops > 0) row(QStringLiteral("FLOPs"), formatFlops(node.flops));
  if (node.output_bytes > 0) row(QStringLiteral("output"), formatBytes(node.output_bytes));
  row(QStringLiteral("device"), deviceName(s, span.device));
  row(QStringLiteral("start"), formatTime(span.start_us));
  row(QStringLiteral("finish"), formatTime(span.finish_us));
  row(QStringLiteral("ran for"), formatDuration(span.finish_us - span.start_us));
  QString per;
  const int devices = s.costs->devices();
  const int shown = std::min(devices, 8);
  for (int d = 0; d < shown; ++d) {
    if (d) per += QStringLiteral(", ");
    const QString t = formatDuration(s.costs->compute(v, d));
    per += d == span.device ? QStringLiteral("<b>%1</b>").arg(t) : t;
  }
  if (shown < devices) per += QStringLiteral(", …");
  row(QStringLiteral("compute per device"), per);
  html += QStringLiteral("</table>");
  return html;
}

}  // namespace

QString deviceName(const PlacementSnapshot& s, int device) {
  if (!s.devices || device < 0 || device >= s.devices->size()) return QStringLiteral("?");
  const std::string& name = s.devices->devices[device].name;
  return name.empty() ? QStringLiteral("dev%1").arg(device) : QString::fromStdString(name);
}

QString nodeLabel(const DataflowGraph& g, int node) {
  const Node& n = g.node(node);
  return QString::fromStdString(n.op.empty() ? n.id : n.op);
}

QString nodeTooltipHtml(const PlacementSnapshot& s, int node) {
  if (!s.graph || node < 0 || node >= s.graph->nodeCount()) return {};
  return headerAndCosts(s, node);
}

QString nodeDetailsHtml(const PlacementSnapshot& s, int v) {
  if (!s.graph || v < 0 || v >= s.graph->nodeCount()) return {};
  const DataflowGraph& g = *s.graph;
  QString html = headerAndCosts(s, v);
  std::vector<const TransferSpan*> byEdge(g.edgeCount(), nullptr);
  for (const TransferSpan& t : s.sim.schedule.transfers)
    if (t.edge >= 0 && t.edge < g.edgeCount()) byEdge[t.edge] = &t;
  auto edgeList = [&](const QString& title, std::span<const int> edges, bool in) {
    if (edges.empty()) return;
    html += QStringLiteral("<p><b>%1</b> (%2)<br>").arg(title).arg(edges.size());
    int shown = 0;
    for (int e : edges) {
      if (++shown > 12) {
        html += QStringLiteral("…<br>");
        break;
      }
      const int other = in ? g.edge(e).src : g.edge(e).dst;
      html += esc(g.node(other).id);
      if (const TransferSpan* t = byEdge[e])
        html += QStringLiteral(" &nbsp;<span style='color:gray'>%1→%2, %3</span>")
                    .arg(deviceName(s, t->src_device), deviceName(s, t->dst_device),
                         formatDuration(t->finish_us - t->start_us));
      else
        html += QStringLiteral(" &nbsp;<span style='color:gray'>same device</span>");
      html += QStringLiteral("<br>");
    }
    html += QStringLiteral("</p>");
  };
  edgeList(QStringLiteral("Inputs"), g.inEdges(v), true);
  edgeList(QStringLiteral("Outputs"), g.outEdges(v), false);
  return html;
}

QString noNodeSelectedHtml() {
  return QCoreApplication::translate(
      "NodeDetails",
      "<p style='color:gray'>Click a node in the graph or a bar in the timeline to see what it is, "
      "where and when it ran, and its transfers.</p>");
}

}  // namespace doppler::views
