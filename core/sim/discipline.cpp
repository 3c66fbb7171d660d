#include "core/sim/discipline.h"

#include "core/common/input_error.h"

namespace doppler {

const char* toString(Discipline d) {
  switch (d) {
    case Discipline::Fifo:
      return "fifo";
    case Discipline::Priority:
      return "priority";
    case Discipline::Sequence:
      return "sequence";
  }
  return "fifo";
}

std::string disciplineNames() {
  return "fifo, priority, sequence";
}

Discipline disciplineFromName(std::string_view name, const std::string& where) {
  for (Discipline d : {Discipline::Fifo, Discipline::Priority, Discipline::Sequence})
    if (name == toString(d)) return d;
  throw InputError(
      "", where,
      "unknown discipline '" + std::string(name) + "' (known: " + disciplineNames() + ")");
}

void validateOrder(std::span<const int> order, int nodes, const std::string& where) {
  if (static_cast<int>(order.size()) != nodes)
    throw InputError(
        "", where,
        "lists " + std::to_string(order.size()) + " nodes, the graph has " + std::to_string(nodes));
  std::vector<int> seen(nodes, -1);
  for (size_t k = 0; k < order.size(); ++k) {
    const int v = order[k];
    const std::string at = where + "[" + std::to_string(k) + "]";
    if (v < 0 || v >= nodes)
      throw InputError("", at, "node index " + std::to_string(v) + " does not exist");
    if (seen[v] >= 0)
      throw InputError("", at,
                       "node " + std::to_string(v) + " is listed twice (also at " + where + "[" +
                           std::to_string(seen[v]) + "])");
    seen[v] = static_cast<int>(k);
  }
}

std::vector<int> orderRanks(std::span<const int> order, int nodes) {
  std::vector<int> rank(nodes, 0);
  for (size_t k = 0; k < order.size(); ++k) rank[order[k]] = static_cast<int>(k);
  return rank;
}

std::vector<std::vector<int>> deviceSequences(const Assignment& a, std::span<const int> order,
                                              int devices) {
  std::vector<std::vector<int>> seq(devices);
  for (const int v : order) seq[a[v]].push_back(v);
  return seq;
}

}  // namespace doppler
