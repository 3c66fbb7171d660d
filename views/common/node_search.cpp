#include "views/common/node_search.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace doppler::views {

std::vector<int> findNodes(const DataflowGraph& graph, const QString& text) {
  std::vector<int> found;
  const std::string needle = text.trimmed().toLower().toStdString();
  if (needle.empty()) return found;
  auto lower = [](std::string s) {
    std::transform(s.begin(), s.end(), s.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
  };
  for (int v = 0; v < graph.nodeCount(); ++v)
    if (lower(graph.node(v).id).find(needle) != std::string::npos ||
        lower(graph.node(v).op) == needle)
      found.push_back(v);
  return found;
}

}  // namespace doppler::views
