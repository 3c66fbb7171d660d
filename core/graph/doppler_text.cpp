// The Doppler reference implementation's text format (docs/formats.md):
//   line 1: total node count N (input nodes included)
//   line 2: ids of the input nodes (dropped: the scheduled graph has N - k nodes, ids 0..N-k-1)
//   line 3: edge sources; line 4: edge destinations (pairwise)
//   then one line per scheduled node: compute_cost,communication_cost [op word]
// Costs become microseconds by `scale`; a cross-device edge u->v costs comm(u) x scale.
#include <cctype>
#include <cmath>
#include <string>
#include <vector>

#include "core/common/input_error.h"
#include "core/graph/graph_io.h"

namespace doppler {
namespace {

struct Line {
  int number;  // 1-based
  std::string_view text;
};

std::vector<Line> splitLines(std::string_view text) {
  std::vector<Line> lines;
  int number = 0;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string_view::npos) end = text.size();
    std::string_view l = text.substr(pos, end - pos);
    if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
    lines.push_back({++number, l});
    if (end == text.size()) break;
    pos = end + 1;
  }
  return lines;
}

bool isSeparator(char c) {
  return c == ',' || c == ' ' || c == '\t';
}

// Splits a line into tokens at commas and blanks.
std::vector<std::string_view> tokens(std::string_view l) {
  std::vector<std::string_view> out;
  size_t i = 0;
  while (i < l.size()) {
    while (i < l.size() && isSeparator(l[i])) ++i;
    size_t j = i;
    while (j < l.size() && !isSeparator(l[j])) ++j;
    if (j > i) out.push_back(l.substr(i, j - i));
    i = j;
  }
  return out;
}

std::string show(std::string_view t) {
  std::string s;
  for (char c : t.substr(0, 40)) s += std::isprint(static_cast<unsigned char>(c)) ? c : '?';
  return s;
}

// A non-negative integer token (costs and ids are integers in every shipped file).
double nonNegativeNumber(std::string_view t, const Line& l, const char* what) {
  bool digits = !t.empty();
  for (char c : t) digits = digits && std::isdigit(static_cast<unsigned char>(c));
  if (!digits) {
    if (!t.empty() && t[0] == '-')
      throw InputError("", "line " + std::to_string(l.number),
                       std::string(what) + " is negative: '" + show(t) + "'");
    throw InputError(
        "", "line " + std::to_string(l.number),
        std::string("expected a non-negative integer ") + what + ", found '" + show(t) + "'");
  }
  if (t.size() > 30)
    throw InputError("", "line " + std::to_string(l.number), std::string(what) + " is too large");
  return std::stod(std::string(t));
}

long index(std::string_view t, const Line& l, const char* what, long limit) {
  double x = nonNegativeNumber(t, l, what);
  if (x >= static_cast<double>(limit))
    throw InputError("", "line " + std::to_string(l.number),
                     std::string(what) + " " + show(t) + " is out of range (must be below " +
                         std::to_string(limit) + ")");
  return static_cast<long>(x);
}

}  // namespace

DataflowGraph parseDopplerText(std::string_view text, double scale, const std::string& file) {
  try {
    if (!std::isfinite(scale) || scale <= 0)
      throw InputError("", "--scale", "must be a finite positive number");
    std::vector<Line> lines = splitLines(text);
    // Drop trailing blank lines; keep numbering of the rest.
    while (!lines.empty() && tokens(lines.back().text).empty()) lines.pop_back();
    if (lines.size() < 4)
      throw InputError(
          "", "line " + std::to_string(lines.size() + 1),
          "Doppler text graph ends early: expected node count, input ids, edge sources and edge "
          "destinations on lines 1-4");
    auto head = tokens(lines[0].text);
    if (head.size() != 1)
      throw InputError("", "line 1",
                       "expected exactly one number (the total node count), found " +
                           std::to_string(head.size()) + " tokens");
    const long total = index(head[0], lines[0], "node count", 10'000'001);
    auto inputs = tokens(lines[1].text);
    for (auto t : inputs) index(t, lines[1], "input id", total);
    const long n = total - static_cast<long>(inputs.size());
    if (n <= 0)
      throw InputError("", "line 2",
                       std::to_string(inputs.size()) +
                           " input ids leave no node to schedule out of " + std::to_string(total));
    auto srcs = tokens(lines[2].text);
    auto dsts = tokens(lines[3].text);
    if (srcs.size() != dsts.size())
      throw InputError("", "line 4",
                       "has " + std::to_string(dsts.size()) + " edge destinations but line 3 has " +
                           std::to_string(srcs.size()) + " edge sources");
    if (lines.size() - 4 != static_cast<size_t>(n))
      throw InputError("",
                       "line " + std::to_string(lines.size() < 5 + static_cast<size_t>(n)
                                                    ? lines.back().number + 1
                                                    : 5 + n),
                       "expected " + std::to_string(n) + " node cost lines (" +
                           std::to_string(total) + " nodes less " + std::to_string(inputs.size()) +
                           " inputs), found " + std::to_string(lines.size() - 4));
    DataflowGraph g;
    g.name = "doppler-text";
    std::vector<double> comm(n);
    for (long v = 0; v < n; ++v) {
      const Line& l = lines[4 + v];
      auto t = tokens(l.text);
      if (t.size() < 2 || t.size() > 3)
        throw InputError("", "line " + std::to_string(l.number),
                         "expected 'compute_cost,communication_cost[,op]', found " +
                             std::to_string(t.size()) + " fields");
      Node node;
      node.id = std::to_string(v);
      double comp = nonNegativeNumber(t[0], l, "compute cost");
      comm[v] = nonNegativeNumber(t[1], l, "communication cost");
      if (t.size() == 3) {
        for (char c : t[2])
          if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-')
            throw InputError("", "line " + std::to_string(l.number),
                             "op word '" + show(t[2]) + "' has odd characters");
        node.op = std::string(t[2]);
      }
      node.flops = comp;
      node.compute_us = {comp * scale};
      g.addNode(std::move(node));
    }
    for (size_t i = 0; i < srcs.size(); ++i) {
      long s = index(srcs[i], lines[2], "edge source", n);
      long d = index(dsts[i], lines[3], "edge destination", n);
      if (s == d)
        throw InputError("", "lines 3-4, edge " + std::to_string(i + 1),
                         "self loop on node " + std::to_string(s));
      Edge e;
      e.src = static_cast<int>(s);
      e.dst = static_cast<int>(d);
      e.transfer_us = comm[s] * scale;
      g.addEdge(e);
    }
    g.topologicalOrder();
    return g;
  } catch (const InputError& e) {
    throw e.inFile(file);
  }
}

}  // namespace doppler
