#!/usr/bin/env python3
"""The general placement policy against the heuristics and local search, per graph.

For every graph: zero-shot greedy and best-of-16 placements of a general policy that never saw
the graph (`doppler eval`), critical-path, HEFT, local search with 5,000 and 500,000 evaluations
(`doppler place`), and the policy fine-tuned on the graph by stage II (`doppler train --from`).
Graphs: the Doppler paper's four graphs on 4 devices and its two 8-GPU graphs on 8 (read from
$DOPPLER_DATA_DIR/doppler-graphs, default ../shared/data; skipped when absent), and generated
graphs whose parameters lie outside the training distribution (core/train/training_distribution.cpp),
on 8 devices and on 12 (outside its 2 to 8 devices).

Then the fine-tuning goal on FINETUNE_GRAPHS: stage II from the general policy against a fresh
start (stage I, 500 episodes, then stage II), episodes until the training run's best and greedy
placements reach local-search-5000.

  scripts/experiments/general_policy_eval.py [build-dir]
Environment: POLICY (resources/data/policies/general.pt), FT_EPISODES (fine-tuned column, 1000),
GOAL_EPISODES (fine-tuning goal, 4000), GOAL_GRAPHS (its graphs, CHAINMM,LLAMA-BLOCK), OUT
(temporary directory), ROWS (comma-separated row names to run, default all). Markdown on stdout, progress on stderr.
"""
import json
import os
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
BUILD = sys.argv[1] if len(sys.argv) > 1 else os.path.join(ROOT, "build/release")
DOPPLER = os.environ.get("DOPPLER", os.path.join(BUILD, "app/doppler"))
POLICY = os.environ.get("POLICY", os.path.join(ROOT, "resources/data/policies/general.pt"))
DATA = os.environ.get("DOPPLER_DATA_DIR", os.path.join(ROOT, "..", "shared", "data"))
FT_EPISODES = int(os.environ.get("FT_EPISODES", "1000"))
GOAL_EPISODES = int(os.environ.get("GOAL_EPISODES", "4000"))
OUT = os.environ.get("OUT") or tempfile.mkdtemp(prefix="general-eval-")
ROWS = [r for r in os.environ.get("ROWS", "").split(",") if r]
os.makedirs(OUT, exist_ok=True)

PAPER = [  # name, file, devices
    ("CHAINMM", "chain_mm_112nodes.txt", 4),
    ("FFNN", "ffnn_192nodes.txt", 4),
    ("LLAMA-BLOCK", "transformer_block_215nodes.txt", 4),
    ("LLAMA-LAYER", "full_transformer_layer_261nodes.txt", 4),
    ("8GPU-BLOCK", "8gpu_transformer_block.txt", 8),
    ("8GPU-LAYER", "8gpu_full_transformer.txt", 8),
]
# Each outside the training ranges in the parameters named (blocks 2-4 and n <= 24576; layers
# 2-6 and shards 2-4; heads 16-40, seq <= 4096, head_shards 2 or 4, ffn_hidden <= 16384).
GENERATED = [
    ("chainmm-ood", "chainmm", ["blocks=5", "n=32768"], 8),
    ("ffnn-ood", "ffnn", ["layers=8", "shards=5", "hidden=24576"], 8),
    ("llama-block-ood", "llama-block",
     ["heads=64", "d_model=8192", "seq=8192", "head_shards=8", "batch=2", "batch_shards=2"], 8),
    ("llama-layer-ood", "llama-layer",
     ["heads=48", "d_model=6144", "seq=8192", "head_shards=6", "batch=2", "batch_shards=2",
      "ffn_hidden=24576"], 8),
    ("llama-layer-ood-12", "llama-layer",
     ["heads=48", "d_model=6144", "seq=8192", "head_shards=6", "batch=2", "batch_shards=2",
      "ffn_hidden=24576"], 12),
]
FINETUNE_GRAPHS = os.environ.get("GOAL_GRAPHS", "CHAINMM,LLAMA-BLOCK").split(",")


def log(*a):
    print("general_policy_eval:", *a, file=sys.stderr, flush=True)


def doppler(*args):
    t0 = time.perf_counter()
    r = subprocess.run([DOPPLER, *args, "--json", "--no-record"], capture_output=True, text=True)
    if r.returncode != 0:
        raise SystemExit(f"doppler {' '.join(args)} failed ({r.returncode}): {r.stderr.strip()}")
    return json.loads(r.stdout), time.perf_counter() - t0


def place(graph, devices, method, *extra):
    return doppler("place", "-g", graph, "-d", str(devices), "-m", method, *extra)


def generate(name, kind, params):
    """The generated graph `kind` with `params` as OUT/name.json (written once); a parameter
    starting with "--" is an option of `graph generate` (--fixed-costs=4)."""
    path = os.path.join(OUT, f"{name}.json")
    if not os.path.exists(path):
        args = [DOPPLER, "graph", "generate", kind, "--out", path]
        for p in params:
            args += [p] if p.startswith("--") else ["-p", p]
        subprocess.run(args, check=True, capture_output=True)
    return path


def graphs():
    rows = []
    for name, f, d in PAPER:
        path = os.path.join(DATA, "doppler-graphs", f)
        if os.path.exists(path):
            rows.append((name, path, d))
        else:
            log(f"{path} not found: {name} skipped")
    for name, kind, params, d in GENERATED:
        rows.append((name, generate(name.replace("-12", ""), kind, params), d))
    return [r for r in rows if not ROWS or r[0] in ROWS]


def finetune(graph, devices, tag, episodes, start):
    """Stage II from `start` (None: a fresh stage I first); the training JSON."""
    frm = []
    if start is None:
        il = os.path.join(OUT, f"{tag}-il.pt")
        doppler("train", "--graph", graph, "--devices", str(devices), "--stage", "imitation",
                "--out", il)
        frm = ["--from", il]
    else:
        frm = ["--from", start]
    out = os.path.join(OUT, f"{tag}.pt")
    j, secs = doppler("train", "--graph", graph, "--devices", str(devices), "--stage", "sim",
                      "--episodes", str(episodes), "--out", out, *frm)
    j["wall_s"] = secs
    return j, out


def first_reaching(curve, key, target):
    for p in curve:
        v = p.get(key)
        if v is not None and p.get("distill_update", 0) == 0 and v <= target * (1 + 1e-9):
            return p["episode"]
    return None


def ms(us):
    return f"{us / 1e3:.2f}"


def main():
    table = []
    for name, path, d in graphs():
        log(name)
        row = {"graph": name, "devices": d}
        z, _ = doppler("eval", "-P", POLICY, "-g", path, "-d", str(d), "-k", "1")
        row["nodes"] = len(z["assignment"])
        row["greedy"], row["place_ms"] = z["makespan_us"], z["placement_ms"]
        row["best16"] = doppler("eval", "-P", POLICY, "-g", path, "-d", str(d), "-k", "16")[0][
            "makespan_us"]
        row["cp"] = place(path, d, "critical-path")[0]["makespan_us"]
        row["heft"] = place(path, d, "heft")[0]["makespan_us"]
        row["ls5k"] = place(path, d, "local-search", "--budget", "5000")[0]["makespan_us"]
        ls, secs = place(path, d, "local-search", "--budget", "500000")
        row["ls500k"], row["ls500k_s"] = ls["makespan_us"], secs
        tag = name.lower()
        ft, ckpt = finetune(path, d, f"{tag}-ft", FT_EPISODES, POLICY)
        row["ft"] = doppler("eval", "-P", ckpt, "-g", path, "-d", str(d), "-k", "1")[0][
            "makespan_us"]
        row["ft_s"] = ft["wall_s"]
        table.append(row)

    print(f"Policy: {os.path.relpath(POLICY, ROOT)}. Makespans in ms (simulated, reference cost "
          f"model); fine-tuned: stage II for {FT_EPISODES} episodes from the general policy.\n")
    print("| graph | nodes | devices | zero-shot greedy | best of 16 | critical-path | HEFT | "
          "LS-5000 | LS-500k | fine-tuned | greedy vs best heuristic | greedy vs LS-500k | "
          "placement ms | LS-500k s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for r in table:
        h = min(r["cp"], r["heft"])
        print(f"| {r['graph']} | {r['nodes']} | {r['devices']} | {ms(r['greedy'])} | "
              f"{ms(r['best16'])} | {ms(r['cp'])} | {ms(r['heft'])} | {ms(r['ls5k'])} | "
              f"{ms(r['ls500k'])} | {ms(r['ft'])} | {100 * (r['greedy'] / h - 1):+.1f}% | "
              f"{100 * (r['greedy'] / r['ls500k'] - 1):+.1f}% | {r['place_ms']:.1f} | "
              f"{r['ls500k_s']:.1f} |")
    if table:
        gap = sum(r["greedy"] / r["ls500k"] for r in table) / len(table)
        gap16 = sum(r["best16"] / r["ls500k"] for r in table) / len(table)
        beats = sum(r["greedy"] < min(r["cp"], r["heft"]) for r in table)
        print(f"\nMean greedy / LS-500k: {gap:.3f}; best of 16 / LS-500k: {gap16:.3f}. Greedy "
              f"beats both heuristics on {beats} of {len(table)} graphs.")
    json.dump(table, open(os.path.join(OUT, "table.json"), "w"), indent=1)

    rows = {r[0]: r for r in graphs()}
    goal = []
    for name in FINETUNE_GRAPHS:
        if name not in rows:
            continue
        _, path, d = rows[name]
        log(f"fine-tuning goal: {name}")
        target = place(path, d, "local-search", "--budget", "5000")[0]["makespan_us"]
        res = {"graph": name, "ls5k": target}
        for label, start in (("general", POLICY), ("fresh", None)):
            j, _ = finetune(path, d, f"{name.lower()}-goal-{label}", GOAL_EPISODES, start)
            res[label] = {
                "best": first_reaching(j.get("curve", []), "best_makespan_us", target),
                "greedy": first_reaching(j.get("curve", []), "greedy_makespan_us", target),
                "final_greedy": j["greedy_makespan_us"],
                "wall_s": j["wall_s"],
            }
        goal.append(res)
    if goal:
        print(f"\nFine-tuning (stage II, up to {GOAL_EPISODES} episodes; the fresh start adds "
              "500 episodes of stage I): the first episode at which the run's best sampled "
              "placement, and its greedy evaluation (every 50 episodes), reach LS-5000.\n")
        print("| graph | LS-5000 | from general: best | greedy | final greedy | fresh: best | "
              "greedy | final greedy |")
        print("|---|---|---|---|---|---|---|---|")
        for g in goal:
            a, b = g["general"], g["fresh"]
            n = lambda x: "never" if x is None else str(x)
            print(f"| {g['graph']} | {ms(g['ls5k'])} | {n(a['best'])} | {n(a['greedy'])} | "
                  f"{ms(a['final_greedy'])} | {n(b['best'])} | {n(b['greedy'])} | "
                  f"{ms(b['final_greedy'])} |")
        json.dump(goal, open(os.path.join(OUT, "finetune.json"), "w"), indent=1)
    log(f"files in {OUT}")


if __name__ == "__main__":  # general_policy_search.py imports the rows
    main()
