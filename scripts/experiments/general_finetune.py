#!/usr/bin/env python3
"""Fine-tuning the general policy on one graph against a fresh start, over seeds.

The goal is for stage II from the general policy to reach local-search-5000 in at most a fifth
of the episodes a fresh start needs. Single runs swing by several percent from seed to seed, so
this runs each stage II recipe with several seeds, from the general policy (GENERAL_EPISODES) and
from a fresh start (stage I, 500 episodes, then FRESH_EPISODES of stage II with the same recipe),
and reports for each run the first episode at which its best sampled placement comes within each
tolerance of LS-5000's makespan.

  scripts/experiments/general_finetune.py [build-dir]
Environment:
  POLICY            the general policy (resources/data/policies/general.pt)
  GRAPH, DEVICES    the graph (the paper's LLAMA-BLOCK from $DOPPLER_DATA_DIR, default
                    ../shared/data) and its devices (4)
  SEEDS             comma-separated seeds (1,2,3)
  GENERAL_EPISODES  stage II episodes from the general policy (6400)
  FRESH_EPISODES    stage II episodes of a fresh start (32000)
  RECIPES           NAME=OPTIONS pairs separated by ';' (stage II's defaults, and its defaults
                    before 2026-12-02: "earlier")
  TOLERANCES        comma-separated fractions above LS-5000 (0,0.001,0.005)
  OUT               directory for the runs' JSON and checkpoints (a temporary one)
Markdown on stdout, progress on stderr. Every run is a separate `doppler train` process.
"""
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/release")
DOPPLER = os.environ.get("DOPPLER", os.path.join(BUILD, "app/doppler"))
POLICY = os.environ.get("POLICY", os.path.join(ROOT, "resources/data/policies/general.pt"))
DATA = os.environ.get("DOPPLER_DATA_DIR", os.path.join(ROOT, "..", "shared", "data"))
GRAPH = os.environ.get("GRAPH",
                       os.path.join(DATA, "doppler-graphs", "transformer_block_215nodes.txt"))
DEVICES = os.environ.get("DEVICES", "4")
SEEDS = [int(s) for s in os.environ.get("SEEDS", "1,2,3").split(",") if s]
GENERAL_EPISODES = int(os.environ.get("GENERAL_EPISODES", "6400"))
FRESH_EPISODES = int(os.environ.get("FRESH_EPISODES", "32000"))
RECIPES = [r.split("=", 1) for r in os.environ.get(
    "RECIPES", "defaults=;earlier=--guided 0.5 --epsilon 0.2 --epsilon-final 0 --entropy 0.01 "
    "--entropy-final 0").split(";")
    if r]
TOLERANCES = [float(t) for t in os.environ.get("TOLERANCES", "0,0.001,0.005").split(",") if t]
OUT = os.environ.get("OUT") or tempfile.mkdtemp(prefix="general-finetune-")
os.makedirs(OUT, exist_ok=True)


def log(*a):
    print("general_finetune:", *a, file=sys.stderr, flush=True)


def fail(message):
    """Bad input or a failed run: the reason on stderr, exit status 2."""
    print(f"general_finetune: {message}", file=sys.stderr)
    sys.exit(2)


def doppler(*args):
    r = subprocess.run([DOPPLER, *args, "--json", "--no-record"], capture_output=True, text=True)
    if r.returncode != 0:
        fail(f"doppler {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout)


def stage2(tag, start, episodes, seed, options):
    out = os.path.join(OUT, f"{tag}.pt")
    j = doppler("train", "-g", GRAPH, "-d", DEVICES, "--stage", "sim", "--episodes",
                str(episodes), "--seed", str(seed), "--from", start, "--out", out, *options)
    json.dump(j, open(os.path.join(OUT, f"{tag}.json"), "w"))
    return j


def first_within(curve, target, tolerance):
    """The first stage II episode (before distillation) whose best placement is within
    `tolerance` of `target`; None if none is."""
    for p in curve:
        v = p.get("best_makespan_us")
        if v is not None and p.get("distill_update", 0) == 0 and v <= target * (1 + tolerance) * (
                1 + 1e-9):
            return p["episode"]
    return None


def main():
    if not os.path.exists(GRAPH):
        fail(f"{GRAPH} not found (set GRAPH, or DOPPLER_DATA_DIR to a folder with "
             "doppler-graphs/)")
    target = doppler("place", "-g", GRAPH, "-d", DEVICES, "-m", "local-search", "--budget",
                     "5000")["makespan_us"]
    log(f"LS-5000: {target / 1e3:.2f} ms")
    rows = []
    for seed in SEEDS:
        il = os.path.join(OUT, f"imitation-{seed}.pt")
        doppler("train", "-g", GRAPH, "-d", DEVICES, "--stage", "imitation", "--seed", str(seed),
                "--out", il)
        for name, options in RECIPES:
            opts = options.split()
            for start, path, episodes in (("general", POLICY, GENERAL_EPISODES),
                                          ("fresh", il, FRESH_EPISODES)):
                log(f"{name}, {start}, seed {seed}")
                j = stage2(f"{name}-{start}-{seed}", path, episodes, seed, opts)
                rows.append((name, start, seed, episodes, j["best_makespan_us"],
                             [first_within(j["curve"], target, t) for t in TOLERANCES],
                             j["seconds"]))
    print(f"LS-5000 on {os.path.basename(GRAPH)} ({DEVICES} devices): {target / 1e3:.2f} ms. "
          "Each cell: the first stage II episode whose best placement is within the tolerance "
          "of it (a fresh start's 500 episodes of stage I not counted).\n")
    tol = " | ".join(f"within {100 * t:g}%" for t in TOLERANCES)
    print(f"| recipe | start | seed | episodes | best | {tol} | s |")
    print("|---|---|---|---|---|" + "---|" * len(TOLERANCES) + "---|")
    for name, start, seed, episodes, best, firsts, secs in rows:
        cells = " | ".join("never" if f is None else str(f) for f in firsts)
        print(f"| {name} | {start} | {seed} | {episodes} | {best / 1e3:.2f} | {cells} | "
              f"{secs:.0f} |")
    log(f"files in {OUT}")


main()
