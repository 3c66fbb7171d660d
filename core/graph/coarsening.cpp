// Coarsening (coarsening.h): one grouping order, intervals of it merged in phases, and the coarse
// graph built from a partition. The rules (order, phases, costs, ids) are in docs/formats.md,
// "Groups (coarsened graphs)".
#include "core/graph/coarsening.h"

#include <algorithm>
#include <cstdint>
#include <functional>
#include <memory>
#include <queue>
#include <tuple>
#include <unordered_map>
#include <unordered_set>

#include "core/common/input_error.h"

namespace doppler {
namespace {

// Name scopes deeper than this count as their ancestor at this depth (see the trie below).
constexpr int kMaxScopeDepth = 32;

// Name scopes as a trie; index 0 is the root (no scope).
struct ScopeTrie {
  std::vector<int> parent{-1};
  std::vector<int> depth{0};
  std::vector<std::string> name{""};
  std::unordered_map<std::string, int> children;  // "parent index" '\x1f' name -> child

  int child(int p, const std::string& n) {
    std::string key = std::to_string(p);
    key += '\x1f';
    key += n;
    auto [it, inserted] = children.emplace(std::move(key), static_cast<int>(parent.size()));
    if (inserted) {
      parent.push_back(p);
      depth.push_back(depth[p] + 1);
      name.push_back(n);
    }
    return it->second;
  }
  int ancestorAt(int s, int d) const {
    while (depth[s] > d) s = parent[s];
    return s;
  }
  bool isUnder(int s, int top) const {
    return depth[s] >= depth[top] && ancestorAt(s, depth[top]) == top;
  }
  int common(int a, int b) const {
    while (depth[a] > depth[b]) a = parent[a];
    while (depth[b] > depth[a]) b = parent[b];
    while (a != b) {
      a = parent[a];
      b = parent[b];
    }
    return a;
  }
  std::string path(int s) const {
    std::vector<int> chain;
    for (; s > 0; s = parent[s]) chain.push_back(s);
    std::string out;
    for (auto it = chain.rbegin(); it != chain.rend(); ++it) out += "/" + name[*it];
    return out;
  }
};

// What the order, the merge phases and the ids need to know about the fine graph.
struct Analysis {
  ScopeTrie trie;
  std::vector<int> scope;         // effective scope: an attached input takes its consumer's
  std::vector<int> consumerOf;    // attached input ("input", no producer, one consumer) -> consumer
  std::vector<int> soleProducer;  // the only non-attached producer of a node, else -1
  std::vector<int> soleConsumer;  // the only consumer of a node, else -1
};

Analysis analyse(const DataflowGraph& g) {
  const int n = g.nodeCount();
  Analysis a;
  a.scope.assign(n, 0);
  a.consumerOf.assign(n, -1);
  a.soleProducer.assign(n, -1);
  a.soleConsumer.assign(n, -1);
  for (int node = 0; node < n; ++node) {
    int consumer = -1;
    for (int e : g.outEdges(node)) {
      const int dst = g.edge(e).dst;
      consumer = (consumer == -1 || consumer == dst) ? dst : -2;
    }
    if (consumer >= 0) a.soleConsumer[node] = consumer;
    if (consumer >= 0 && g.inEdges(node).empty() && g.node(node).op == "input")
      a.consumerOf[node] = consumer;
  }
  for (int node = 0; node < n; ++node) {
    int producer = -1;
    for (int e : g.inEdges(node)) {
      const int src = g.edge(e).src;
      if (a.consumerOf[src] >= 0) continue;
      producer = (producer == -1 || producer == src) ? src : -2;
    }
    if (producer >= 0) a.soleProducer[node] = producer;
    // Scopes deeper than kMaxScopeDepth count as their ancestor at that depth: real exports nest
    // a few levels, and the merge phase costs depth squared per cut.
    int s = 0, level = 0;
    for (const std::string& part : scopeOf(g.node(node).id))
      if (level++ < kMaxScopeDepth) s = a.trie.child(s, part);
    a.scope[node] = s;
  }
  for (int node = 0; node < n; ++node)
    if (a.consumerOf[node] >= 0) a.scope[node] = a.scope[a.consumerOf[node]];
  return a;
}

// A topological order in which chains and scopes are contiguous: after a node, the next is a ready
// node sharing the deepest scope with it, the chain successor first, else the lowest index.
// Attached inputs are emitted right before their consumer.
std::vector<int> groupingOrder(const DataflowGraph& g, const Analysis& a) {
  const int n = g.nodeCount();
  const ScopeTrie& trie = a.trie;
  std::vector<int> pending(n, 0);
  std::vector<std::vector<int>> inputsOf(n);
  for (int node = 0; node < n; ++node) {
    if (a.consumerOf[node] >= 0) {
      inputsOf[a.consumerOf[node]].push_back(node);
      continue;
    }
    for (int e : g.inEdges(node))
      if (a.consumerOf[g.edge(e).src] < 0) ++pending[node];
  }
  using MinHeap = std::priority_queue<int, std::vector<int>, std::greater<int>>;
  std::vector<MinHeap> ready(trie.parent.size());  // per scope: ready nodes in its subtree
  std::vector<char> emitted(n, 0);
  auto makeReady = [&](int node) {
    for (int s = a.scope[node]; s >= 0; s = trie.parent[s]) ready[s].push(node);
  };
  for (int node = 0; node < n; ++node)
    if (a.consumerOf[node] < 0 && pending[node] == 0) makeReady(node);

  std::vector<int> order;
  order.reserve(n);
  std::vector<int> chainNext;  // successors of the last node that it alone made ready
  int last = -1;
  while (static_cast<int>(order.size()) < n) {
    int next = -1;
    for (int s = last < 0 ? 0 : a.scope[last]; s >= 0; s = trie.parent[s]) {
      MinHeap& heap = ready[s];
      while (!heap.empty() && emitted[heap.top()]) heap.pop();
      if (heap.empty()) continue;
      for (int c : chainNext)
        if (!emitted[c] && trie.isUnder(a.scope[c], s) && (next < 0 || c < next)) next = c;
      if (next < 0) next = heap.top();
      break;
    }
    if (next < 0) break;  // a cycle; the caller has checked for one
    for (int input : inputsOf[next]) {
      order.push_back(input);
      emitted[input] = 1;
    }
    order.push_back(next);
    emitted[next] = 1;
    chainNext.clear();
    for (int e : g.outEdges(next)) {
      const int dst = g.edge(e).dst;
      if (--pending[dst] == 0) {
        makeReady(dst);
        if (a.soleProducer[dst] == next) chainNext.push_back(dst);
      }
    }
    last = next;
  }
  return order;
}

// Intervals of the order as a linked list of their start positions.
class Intervals {
 public:
  Intervals(const ScopeTrie& trie, const std::vector<int>& order, const std::vector<int>& scope)
      : trie_(trie), n_(static_cast<int>(order.size())), count_(n_) {
    next_.resize(n_);
    prev_.resize(n_);
    size_.assign(n_, 1);
    scope_.resize(n_);
    alive_.assign(n_, 1);
    for (int p = 0; p < n_; ++p) {
      next_[p] = p + 1;
      prev_[p] = p - 1;
      scope_[p] = scope[order[p]];
    }
  }
  int count() const { return count_; }
  int positions() const { return n_; }
  // Cuts are interval starts after the first.
  std::vector<int> cuts() const {
    std::vector<int> out;
    for (int p = n_ > 0 ? next_[0] : 0; p < n_; p = next_[p]) out.push_back(p);
    return out;
  }
  int left(int cut) const { return prev_[cut]; }
  int scope(int start) const { return scope_[start]; }
  int size(int start) const { return size_[start]; }
  int end(int start) const { return next_[start]; }
  void merge(int cut) {
    const int l = prev_[cut];
    size_[l] += size_[cut];
    scope_[l] = trie_.common(scope_[l], scope_[cut]);
    next_[l] = next_[cut];
    if (next_[cut] < n_) prev_[next_[cut]] = l;
    alive_[cut] = 0;
    --count_;
  }

  // Removes candidate cuts until at most `limit` intervals remain: all of them when that does not
  // overshoot, else the ones joining the smallest neighbours first. Counts removals by kind.
  void removeCuts(const std::vector<int>& cuts, const std::vector<int>& kinds, int limit,
                  std::vector<int>& removedByKind) {
    if (count_ <= limit || cuts.empty()) return;
    if (count_ - static_cast<int>(cuts.size()) >= limit) {
      for (size_t i = 0; i < cuts.size(); ++i) {
        merge(cuts[i]);
        ++removedByKind[kinds[i]];
      }
      return;
    }
    using Item = std::tuple<int64_t, int, int>;  // combined size, cut, index into cuts
    std::priority_queue<Item, std::vector<Item>, std::greater<Item>> heap;
    for (size_t i = 0; i < cuts.size(); ++i)
      heap.emplace(size_[prev_[cuts[i]]] + size_[cuts[i]], cuts[i], static_cast<int>(i));
    while (count_ > limit && !heap.empty()) {
      auto [key, cut, i] = heap.top();
      heap.pop();
      const int64_t now = size_[prev_[cut]] + size_[cut];
      if (now != key) {  // a neighbour grew since: queue it again with its new size
        heap.emplace(now, cut, i);
        continue;
      }
      merge(cut);
      ++removedByKind[kinds[i]];
    }
  }

 private:
  const ScopeTrie& trie_;
  int n_, count_;
  std::vector<int> next_, prev_, size_, scope_;
  std::vector<char> alive_;
};

std::string nodeRef(const DataflowGraph& g, int v) {
  return "nodes[" + std::to_string(v) + "] '" + g.node(v).id + "'";
}

// Sums the members' costs into `out` (rules in docs/formats.md).
void mergeCosts(const DataflowGraph& fine, const std::vector<int>& members, const std::string& id,
                Node& out) {
  int timed = -1, untimed = -1;  // an example of each (untimed: flops only, flops > 0)
  size_t length = 0;
  for (int m : members) {
    const Node& node = fine.node(m);
    out.flops += node.flops;
    out.output_bytes += node.output_bytes;
    out.memory_bytes += node.memory_bytes;
    if (!node.compute_us.empty()) {
      if (node.compute_us.size() > 1) {
        if (length > 1 && node.compute_us.size() != length)
          throw InputError("", nodeRef(fine, m),
                           "cannot merge it into group '" + id + "': it has " +
                               std::to_string(node.compute_us.size()) +
                               " compute_us entries, another member has " + std::to_string(length));
        length = node.compute_us.size();
      }
      if (timed < 0) timed = m;
    } else if (node.flops > 0 && untimed < 0) {
      untimed = m;
    }
  }
  if (timed < 0) return;
  if (untimed >= 0)
    throw InputError("", nodeRef(fine, untimed),
                     "cannot merge it into group '" + id + "': it has flops only and '" +
                         fine.node(timed).id +
                         "' has compute_us, so the group's time would depend on the device "
                         "(give every member compute_us, or none)");
  out.compute_us.assign(std::max<size_t>(length, 1), 0.0);
  for (int m : members) {
    const std::vector<double>& us = fine.node(m).compute_us;
    for (size_t d = 0; d < out.compute_us.size(); ++d)
      out.compute_us[d] += us.empty() ? 0.0 : us.size() == 1 ? us[0] : us[d];
  }
}

// One coarse edge: group A -> group B.
struct Bundle {
  int src = 0, dst = 0;
  int firstEdge = 0;     // lowest fine edge index, for a stable edge order
  double bytes = 0;      // sum over source fine nodes of their largest edge into dst
  double transfer = 0;   // the same for transfer_us
  int timedEdge = -1;    // a fine edge with transfer_us
  int untimedEdge = -1;  // a fine edge with bytes only (bytes > 0)
};

}  // namespace

std::vector<std::string> scopeOf(std::string_view id) {
  std::vector<std::string> parts;
  if (id.find('/') != std::string_view::npos) {
    size_t start = 0;
    for (size_t slash; (slash = id.find('/', start)) != std::string_view::npos; start = slash + 1)
      if (slash > start) parts.emplace_back(id.substr(start, slash - start));
    return parts;  // what follows the last '/' is the node's own name
  }
  if (id.find('.') == std::string_view::npos) return parts;
  size_t start = 0;
  while (start <= id.size()) {
    size_t dot = id.find('.', start);
    if (dot == std::string_view::npos) dot = id.size();
    std::string_view part = id.substr(start, dot - start);
    const bool digits = !part.empty() && std::all_of(part.begin(), part.end(),
                                                     [](char c) { return c >= '0' && c <= '9'; });
    if (digits && !parts.empty())
      parts.back() += "." + std::string(part);
    else if (!part.empty())
      parts.emplace_back(part);
    start = dot + 1;
  }
  if (!parts.empty()) parts.pop_back();
  return parts;
}

DataflowGraph groupGraph(const DataflowGraph& fine, std::vector<int> group_of) {
  const int n = fine.nodeCount();
  if (static_cast<int>(group_of.size()) != n)
    throw InputError("", "groups",
                     "the partition names " + std::to_string(group_of.size()) +
                         " nodes, the fine graph has " + std::to_string(n));
  int k = 0;
  for (int f = 0; f < n; ++f) {
    if (group_of[f] < 0)
      throw InputError("", nodeRef(fine, f), "has no group (" + std::to_string(group_of[f]) + ")");
    k = std::max(k, group_of[f] + 1);
  }
  auto groups = std::make_shared<GraphGroups>();
  groups->members.resize(k);
  for (int f = 0; f < n; ++f) groups->members[group_of[f]].push_back(f);
  for (int i = 0; i < k; ++i)
    if (groups->members[i].empty())
      throw InputError("", "groups[" + std::to_string(i) + "]", "the group has no members");

  const Analysis a = analyse(fine);
  DataflowGraph coarse;
  coarse.name = fine.name;
  // A member is principal unless it is a weight input whose consumer is in the same group.
  auto principal = [&](int m) {
    return a.consumerOf[m] < 0 || group_of[a.consumerOf[m]] != group_of[m];
  };
  // The one principal member of a group (a node with its weights), else -1.
  auto soleMember = [&](const std::vector<int>& members) {
    int only = -1;
    for (int m : members)
      if (principal(m)) {
        if (only >= 0) return -1;
        only = m;
      }
    return only;
  };
  // Ids: a group of one node (with its weights) keeps that node's id; a larger group is named
  // after its common scope (else its first member and how many more), made unique with "#2", ...
  std::unordered_set<std::string> used;
  for (const auto& m : groups->members)
    if (int only = soleMember(m); only >= 0) used.insert(fine.node(only).id);
  std::unordered_map<std::string, int> suffix;
  for (int i = 0; i < k; ++i) {
    const std::vector<int>& members = groups->members[i];
    if (members.size() == 1) {
      coarse.addNode(fine.node(members[0]));
      continue;
    }
    Node node;
    if (const int only = soleMember(members); only >= 0) {
      node.id = fine.node(only).id;
      node.op = fine.node(only).op;
    } else {
      int scope = a.scope[members[0]];
      for (int m : members) scope = a.trie.common(scope, a.scope[m]);
      // A group without a common scope whose members sit in top-level scopes (layers h.1 to h.2,
      // merged as neighbours) is named by their range, "/h.1…h.2"; one with no scope at all
      // after its first member and how many more.
      std::string firstChild, lastChild;
      for (int m : members) {
        const int s = a.scope[m];
        if (a.trie.depth[s] <= a.trie.depth[scope]) continue;
        const std::string& child = a.trie.name[a.trie.ancestorAt(s, a.trie.depth[scope] + 1)];
        if (firstChild.empty()) firstChild = child;
        lastChild = child;
      }
      std::string base;
      if (scope > 0)
        base = a.trie.path(scope);
      else if (!firstChild.empty())
        base = "/" + firstChild + (firstChild == lastChild ? "" : "\u2026" + lastChild);
      else
        base = fine.node(members[0]).id + "+" + std::to_string(members.size() - 1);
      node.id = base;
      for (int& next = suffix.try_emplace(base, 2).first->second; !used.insert(node.id).second;
           ++next)
        node.id = base + "#" + std::to_string(next);
      // The op all principal members share, else "group".
      bool first = true;
      for (int m : members) {
        if (!principal(m)) continue;
        if (first) {
          node.op = fine.node(m).op;
          first = false;
        } else if (fine.node(m).op != node.op) {
          node.op = "group";
          break;
        }
      }
    }
    mergeCosts(fine, members, node.id, node);
    coarse.addNode(std::move(node));
  }

  // Edges: one per (A, B); a source node's tensor counts once per destination group.
  std::vector<Bundle> bundles;
  std::unordered_map<uint64_t, int> bundleOf;
  std::vector<int> stamp(k, -1), firstEdge(k), timedEdge(k), untimedEdge(k);
  std::vector<double> bestBytes(k), bestTransfer(k), sumBytes(k);
  std::vector<int> touched;
  for (int u = 0; u < n; ++u) {
    const int from = group_of[u];
    touched.clear();
    for (int e : fine.outEdges(u)) {
      const Edge& edge = fine.edge(e);
      const int to = group_of[edge.dst];
      if (to == from) continue;
      if (stamp[to] != u) {
        stamp[to] = u;
        touched.push_back(to);
        firstEdge[to] = e;
        timedEdge[to] = untimedEdge[to] = -1;
        bestBytes[to] = bestTransfer[to] = sumBytes[to] = 0;
      }
      firstEdge[to] = std::min(firstEdge[to], e);
      bestBytes[to] = std::max(bestBytes[to], edge.bytes);
      sumBytes[to] += edge.bytes;
      if (edge.transfer_us) {
        bestTransfer[to] = std::max(bestTransfer[to], *edge.transfer_us);
        if (timedEdge[to] < 0) timedEdge[to] = e;
      } else if (edge.bytes > 0 && untimedEdge[to] < 0) {
        untimedEdge[to] = e;
      }
    }
    for (int to : touched) {
      const uint64_t key = static_cast<uint64_t>(from) * static_cast<uint64_t>(k) + to;
      auto [it, inserted] = bundleOf.emplace(key, static_cast<int>(bundles.size()));
      if (inserted) bundles.push_back(Bundle{from, to, firstEdge[to]});
      Bundle& b = bundles[it->second];
      b.firstEdge = std::min(b.firstEdge, firstEdge[to]);
      // One tensor sent to several members travels once (the largest edge); several outputs of
      // one producer (Split into q, k, v) travel each: the sum, capped by what the producer
      // outputs. Without output_bytes only the largest edge is known to travel.
      const double out = fine.node(u).output_bytes;
      b.bytes += out > 0 ? std::max(bestBytes[to], std::min(sumBytes[to], out)) : bestBytes[to];
      b.transfer += bestTransfer[to];
      if (b.timedEdge < 0) b.timedEdge = timedEdge[to];
      if (b.untimedEdge < 0) b.untimedEdge = untimedEdge[to];
    }
  }
  std::sort(bundles.begin(), bundles.end(),
            [](const Bundle& x, const Bundle& y) { return x.firstEdge < y.firstEdge; });
  auto edgeRef = [&](int e) {
    return "edges[" + std::to_string(e) + "] ('" + fine.node(fine.edge(e).src).id + "' -> '" +
           fine.node(fine.edge(e).dst).id + "')";
  };
  for (const Bundle& b : bundles) {
    if (b.timedEdge >= 0 && b.untimedEdge >= 0)
      throw InputError("", edgeRef(b.untimedEdge),
                       "cannot merge it into the edge '" + coarse.node(b.src).id + "' -> '" +
                           coarse.node(b.dst).id + "': it has bytes only and " +
                           edgeRef(b.timedEdge) +
                           " has transfer_us (give every edge transfer_us, or none)");
    Edge edge;
    edge.src = b.src;
    edge.dst = b.dst;
    edge.bytes = b.bytes;
    if (b.timedEdge >= 0) edge.transfer_us = b.transfer;
    coarse.addEdge(edge);
  }

  const std::vector<int> cycle = coarse.findCycle();
  if (!cycle.empty()) {
    std::string names;
    for (int v : cycle) names += "'" + coarse.node(v).id + "' -> ";
    names += "'" + coarse.node(cycle.front()).id + "'";
    throw InputError("", "groups[" + std::to_string(cycle.front()) + "]",
                     "the groups make a cycle: " + names);
  }
  groups->fine = fine;
  groups->fine.groups.reset();
  groups->group_of = std::move(group_of);
  coarse.groups = std::move(groups);
  return coarse;
}

DataflowGraph coarsenGraph(const DataflowGraph& g, int max_nodes, CoarsenStats* stats) {
  if (max_nodes < 1)
    throw InputError("", "max_nodes", "must be at least 1 (is " + std::to_string(max_nodes) + ")");
  const DataflowGraph& fine = g.groups ? g.groups->fine : g;
  CoarsenStats local;
  CoarsenStats& st = stats ? *stats : local;
  st = CoarsenStats{};
  st.fine_nodes = st.coarse_nodes = fine.nodeCount();
  if (fine.nodeCount() <= max_nodes) {
    DataflowGraph same = fine;
    same.groups.reset();
    return same;
  }
  fine.topologicalOrder();  // throws naming a cycle
  const Analysis a = analyse(fine);
  const std::vector<int> order = groupingOrder(fine, a);
  Intervals iv(a.trie, order, a.scope);
  const int n = fine.nodeCount();

  // 1. Weight inputs into their consumer, and chains (u's only consumer is v, v's only producer
  //    is u, same scope).
  {
    enum { kInput, kChain };
    std::vector<int> cuts, kinds;
    for (int p = 1; p < n; ++p) {
      const int u = order[p - 1];
      const int v = a.consumerOf[order[p]] >= 0 ? a.consumerOf[order[p]] : order[p];
      if (a.consumerOf[u] >= 0) {
        if (a.consumerOf[u] == v) {
          cuts.push_back(p);
          kinds.push_back(kInput);
        }
      } else if (a.soleConsumer[u] == v && a.soleProducer[v] == u && a.scope[u] == a.scope[v]) {
        cuts.push_back(p);
        kinds.push_back(kChain);
      }
    }
    std::vector<int> removed(2, 0);
    iv.removeCuts(cuts, kinds, max_nodes, removed);
    st.input_merges = removed[kInput];
    st.chain_merges = removed[kChain];
  }
  // 2. Scopes, deepest first: neighbouring intervals whose common scopes agree to depth d.
  int maxDepth = 0;
  for (int s = 0; s < static_cast<int>(a.trie.depth.size()); ++s)
    maxDepth = std::max(maxDepth, a.trie.depth[s]);
  for (int d = maxDepth; d >= 1 && iv.count() > max_nodes; --d) {
    std::vector<int> cuts;
    for (int p : iv.cuts()) {
      const int l = iv.scope(iv.left(p)), r = iv.scope(p);
      if (a.trie.depth[l] >= d && a.trie.depth[r] >= d &&
          a.trie.ancestorAt(l, d) == a.trie.ancestorAt(r, d))
        cuts.push_back(p);
    }
    std::vector<int> removed(1, 0);
    iv.removeCuts(cuts, std::vector<int>(cuts.size(), 0), max_nodes, removed);
    if (removed[0] > 0) st.scope_depth = d;
    st.scope_merges += removed[0];
  }
  // 3. Neighbouring intervals, the smallest pair first.
  if (iv.count() > max_nodes) {
    const std::vector<int> cuts = iv.cuts();
    std::vector<int> removed(1, 0);
    iv.removeCuts(cuts, std::vector<int>(cuts.size(), 0), max_nodes, removed);
    st.forced_merges = removed[0];
  }

  // Groups numbered in order of their first (lowest-index) member.
  std::vector<int> starts, firstMember;
  for (int p = 0; p < n; p = iv.end(p)) {
    int lowest = n;
    for (int q = p; q < iv.end(p); ++q) lowest = std::min(lowest, order[q]);
    starts.push_back(p);
    firstMember.push_back(lowest);
  }
  std::vector<int> rank(starts.size());
  for (size_t i = 0; i < rank.size(); ++i) rank[i] = static_cast<int>(i);
  std::sort(rank.begin(), rank.end(),
            [&](int x, int y) { return firstMember[x] < firstMember[y]; });
  std::vector<int> group_of(n);
  for (size_t number = 0; number < rank.size(); ++number) {
    const int p = starts[rank[number]];
    for (int q = p; q < iv.end(p); ++q) group_of[order[q]] = static_cast<int>(number);
  }
  DataflowGraph coarse = groupGraph(fine, std::move(group_of));
  st.coarse_nodes = coarse.nodeCount();
  return coarse;
}

DataflowGraph expandGroups(const DataflowGraph& g, std::span<const int> expand) {
  if (!g.groups) throw InputError("", "groups", "the graph has no groups to expand");
  const GraphGroups& groups = *g.groups;
  std::vector<char> open(g.nodeCount(), 0);
  for (int group : expand) {
    if (group < 0 || group >= g.nodeCount())
      throw InputError("", "expand",
                       "no group " + std::to_string(group) + " (the graph has " +
                           std::to_string(g.nodeCount()) + ")");
    open[group] = 1;
  }
  const int n = groups.fine.nodeCount();
  std::vector<int> number(g.nodeCount(), -1), group_of(n);
  int next = 0;
  for (int f = 0; f < n; ++f) {
    const int group = groups.group_of[f];
    if (open[group]) {
      group_of[f] = next++;
    } else {
      if (number[group] < 0) number[group] = next++;
      group_of[f] = number[group];
    }
  }
  return groupGraph(groups.fine, std::move(group_of));
}

}  // namespace doppler
