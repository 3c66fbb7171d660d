#!/usr/bin/env python3
"""Draws bench/anytime_bench's table as small multiples: makespan / LS-500k against wall time,
one panel per graph, for local search from critical-path, local search from critical-path
(earliest-join) and `doppler` (decode=search). Plain SVG, no plotting library.

  build/release/bench/anytime_bench > anytime.md
  scripts/experiments/anytime_plot.py anytime.md docs/figures/anytime.svg
"""
import math
import re
import sys

SERIES = [  # column label in the table, legend, colour (ColorBrewer Dark2)
    ("LS from critical-path", "local search from critical-path", "#d95f02"),
    ("LS from CP-join", "local search from critical-path (earliest-join)", "#7570b3"),
    ("doppler (search)", "doppler (decode=search)", "#1b9e77"),
]


def parse(path):
    rows = [l.rstrip("\n") for l in open(path) if l.startswith("|")]
    header = [c.strip() for c in rows[0].strip("|").split("|")]
    graphs = []
    for line in rows[2:]:
        cells = [c.strip() for c in line.strip("|").split("|")]
        if cells[0].startswith("**"):
            continue
        graphs.append(dict(zip(header, cells)))
    times = sorted({float(m.group(1)) for h in header for m in [re.search(r"@ (\d+) ms", h)] if m})
    return graphs, times


def main():
    src, out = sys.argv[1], sys.argv[2]
    graphs, times = parse(src)
    cols, w, h, pad = 4, 270, 165, 42
    rows = math.ceil(len(graphs) / cols)
    width, height = cols * w + 20, rows * h + 70
    lx = lambda t: (math.log10(t) - math.log10(times[0])) / (math.log10(times[-1]) - math.log10(times[0]))
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
           f'font-family="sans-serif" font-size="11">',
           f'<rect width="{width}" height="{height}" fill="white"/>']
    for i, g in enumerate(graphs):
        ox, oy = 10 + (i % cols) * w, 10 + (i // cols) * h
        values = [float(g[f"{label} @ {t:.0f} ms"]) for label, _, _ in SERIES for t in times]
        lo, hi = 1.0, max(1.01, max(values))
        hi = 1.0 + math.ceil((hi - 1.0) * 50) / 50  # a 2% grid
        px = lambda t: ox + pad + lx(t) * (w - pad - 34)
        py = lambda v: oy + 24 + (hi - v) / (hi - lo) * (h - 64)
        svg.append(f'<text x="{ox + pad}" y="{oy + 14}"><tspan font-weight="bold">{g["graph"]}'
                   f'</tspan> · {g["nodes"]} nodes · {g["GPUs"]} GPUs</text>')
        for v in (lo, (lo + hi) / 2, hi):
            svg.append(f'<line x1="{px(times[0])}" x2="{px(times[-1])}" y1="{py(v):.1f}" '
                       f'y2="{py(v):.1f}" stroke="#ddd"/>')
            svg.append(f'<text x="{ox + pad - 6}" y="{py(v) + 4:.1f}" text-anchor="end">{v:.2f}</text>')
        for t in times:
            svg.append(f'<text x="{px(t):.1f}" y="{oy + h - 24}" text-anchor="middle">'
                       f'{t:.0f} ms</text>')
        for label, _, colour in SERIES:
            pts = " ".join(f"{px(t):.1f},{py(float(g[f'{label} @ {t:.0f} ms'])):.1f}" for t in times)
            svg.append(f'<polyline points="{pts}" fill="none" stroke="{colour}" stroke-width="2"/>')
            for t in times:
                v = float(g[f"{label} @ {t:.0f} ms"])
                svg.append(f'<circle cx="{px(t):.1f}" cy="{py(v):.1f}" r="2.5" fill="{colour}"/>')
    ly = rows * h + 30
    x = 10
    for _, legend, colour in SERIES:
        svg.append(f'<line x1="{x}" x2="{x + 20}" y1="{ly}" y2="{ly}" stroke="{colour}" stroke-width="2"/>')
        svg.append(f'<text x="{x + 24}" y="{ly + 4}">{legend}</text>')
        x += 24 + 7 * len(legend) + 20
    svg.append(f'<text x="10" y="{ly + 22}">makespan / LS-500k (lower is better) against each '
               f'method\'s wall time, one thread, mean of 3 seeds (bench/anytime_bench); '
               f'where lines coincide, the last drawn (doppler) covers the others</text>')
    svg.append("</svg>")
    open(out, "w").write("\n".join(svg) + "\n")


if __name__ == "__main__":
    main()
