#!/usr/bin/env python3
"""Writes the small Doppler-format graphs of tests/data (see README.md there).

Hand-designed workloads, not derived from any other file: run from anywhere,
  python3 tests/data/make_graphs.py
rewrites every .txt of tests/data byte for byte the same (the tests pin their counts).

Costs are in the format's units: compute = the op's FLOPs, communication = the bytes of the
node's float32 output x a per-graph link factor (how slow the link is: 250 for the diamonds, where
spreading over devices pays, 2000 for the two larger graphs, where a transfer costs one or two
matmuls, as in the paper's graphs, so that the list schedulers leave room to local search).
"""
import os

HERE = os.path.dirname(os.path.abspath(__file__))


class Graph:
    def __init__(self):
        self.costs = []  # (compute, communication, op word or None)
        self.edges = []

    def node(self, compute, comm, op=None):
        self.costs.append((int(compute), int(comm), op))
        return len(self.costs) - 1

    def edge(self, src, dst):
        self.edges.append((src, dst))

    def text(self, inputs, sep=", ", trailing=True, final_newline=False, op_words=False):
        """Line 1 the total node count (inputs included), line 2 the input ids, lines 3-4 the
        edge sources and destinations, then one `compute,communication[,op]` line per node."""
        def row(values):
            s = sep.join(str(v) for v in values)
            return s + (sep if trailing and values else "")

        lines = [str(len(self.costs) + len(inputs)), row(inputs),
                 row([s for s, _ in self.edges]), row([d for _, d in self.edges])]
        for comp, comm, op in self.costs:
            lines.append(f"{comp},{comm}" + (f",{op}" if op_words and op else ""))
        return "\n".join(lines) + ("\n" if final_newline else "")


def out_bytes(rows, cols, link):
    """Communication cost of a float32 rows x cols output: its bytes x `link` (how slow the link
    is, in the format's units per byte)."""
    return 4 * rows * cols * link


def diamonds():
    """12 nodes: a chain of three diamonds (a -> {b, c} -> d) and a two-node tail."""
    g = Graph()
    link = 250
    t = 1024
    mm, add = 2 * t ** 3, t * t
    comm = out_bytes(t, t, link)
    src = g.node(add, comm, "load")
    prev = src
    for k in range(3):
        left = g.node(mm * (k + 1), comm, "matmul")
        right = g.node(mm * (3 - k), comm, "matmul")
        join = g.node(add, comm, "add")
        for side in (left, right):
            g.edge(prev, side)
            g.edge(side, join)
        prev = join
    soft = g.node(5 * add, comm, "softmax")
    g.edge(prev, soft)
    loss = g.node(add, out_bytes(1, 1, link), "loss")
    g.edge(soft, loss)
    assert len(g.costs) == 12
    return g


def chain_mm():
    """40 nodes: two independent branches, each a load and three stages of a 2x2-tiled matrix
    product X <- X W (four tile matmuls, two tile sums a stage), joined by two combine nodes."""
    g = Graph()
    link = 2000
    t = 1536
    mm, add = 2 * t ** 3, t * t
    comm = out_bytes(t, t, link)
    results = []
    for branch in range(2):
        load = g.node(add, comm)
        tiles = [load, load]
        for stage in range(3):
            partial = [[g.node(mm, comm) for k in range(2)] for i in range(2)]
            sums = []
            for i in range(2):
                s = g.node(add, comm)
                for k in range(2):
                    g.edge(tiles[k], partial[i][k])
                    g.edge(partial[i][k], s)
                sums.append(s)
            tiles = sums
        results.append(tiles)
    for i in range(2):
        c = g.node(mm, comm)
        g.edge(results[0][i], c)
        g.edge(results[1][i], c)
    assert len(g.costs) == 40
    return g


def ffnn():
    """60 nodes: an input split over four batch shards ("towers"), six layers a tower (matmul,
    relu), the towers mixing pairwise after layers 1, 3 and 5 (0-1 and 2-3, then 0-2 and 1-3, then
    0-1 and 2-3: one node a pair, feeding both towers), and a head (concat, logits matmul, bias
    add, softmax, loss)."""
    g = Graph()
    link = 2000
    batch, hidden, towers = 1024, 2048, 4
    rows = batch // towers
    x = g.node(batch * hidden, out_bytes(batch, hidden, link))
    inputs = [x] * towers
    pairs = [[(0, 1), (2, 3)], [(0, 2), (1, 3)], [(0, 1), (2, 3)]]
    for layer in range(6):
        relus = []
        for t in range(towers):
            m = g.node(2 * rows * hidden * hidden, out_bytes(rows, hidden, link))
            g.edge(inputs[t], m)
            r = g.node(rows * hidden, out_bytes(rows, hidden, link))
            g.edge(m, r)
            relus.append(r)
        inputs = relus
        if layer % 2 == 0:
            for a, b in pairs[layer // 2]:
                mix = g.node(2 * rows * hidden, out_bytes(rows, hidden, link))
                g.edge(relus[a], mix)
                g.edge(relus[b], mix)
                inputs[a] = inputs[b] = mix
    concat = g.node(batch * hidden, out_bytes(batch, hidden, link))
    for r in inputs:
        g.edge(r, concat)
    classes = 1000
    logits = g.node(2 * batch * hidden * classes, out_bytes(batch, classes, link))
    g.edge(concat, logits)
    bias = g.node(batch * classes, out_bytes(batch, classes, link))
    g.edge(logits, bias)
    soft = g.node(5 * batch * classes, out_bytes(batch, classes, link))
    g.edge(bias, soft)
    loss = g.node(batch * classes, out_bytes(1, 1, link))
    g.edge(soft, loss)
    assert len(g.costs) == 60, len(g.costs)
    return g


# Malformed files: each breaks one rule of the format at a known line (the tests name it).
MALFORMED = {
    # line 7: a cost that is not an integer
    "bad_cost.txt": "5\n0\n0, 1, 2\n1, 2, 3\n10,40\n20,80\n3.5,14\n40,160\n",
    # 4 nodes to schedule (6 less 2 inputs) but 3 cost lines
    "short.txt": "6\n0, 1\n0, 1\n1, 2\n10,40\n20,80\n30,120\n",
    # line 4: two destinations for three sources
    "edge_mismatch.txt": "4\n0\n0, 1, 0\n1, 2\n10,40\n20,80\n30,120\n",
    # edges 0 -> 1 -> 2 -> 0
    "cycle.txt": "4\n0\n0, 1, 2\n1, 2, 0\n10,40\n20,80\n30,120\n",
}


def main():
    files = {
        "diamonds_12nodes.txt": diamonds().text([0, 1], final_newline=True, op_words=True),
        "chain_mm_40nodes.txt": chain_mm().text([0, 1, 2, 3]),
        "ffnn_60nodes.txt": ffnn().text([0, 1, 2, 3, 30, 31]),
    }
    for name, text in files.items():
        with open(os.path.join(HERE, name), "w", newline="") as f:
            f.write(text)
    os.makedirs(os.path.join(HERE, "malformed"), exist_ok=True)
    for name, text in MALFORMED.items():
        with open(os.path.join(HERE, "malformed", name), "w", newline="") as f:
            f.write(text)


if __name__ == "__main__":
    main()
