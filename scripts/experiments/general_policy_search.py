#!/usr/bin/env python3
"""The shipped general policy as a start for local search, against critical-path's start.

For each graph of the issue table (general_policy_eval.py's rows): the policy's greedy placement,
then local search from it (`doppler place -m local-search -p start=doppler`) and from
critical-path (the default start) with the same budgets and seeds, and local search with 500,000
evaluations from critical-path as the reference. Reports the mean over seeds of each budget's
makespan, the mean ratio to the reference over the graphs, and per graph the smallest budget
from each start that comes within TOLERANCE of the reference.

  scripts/experiments/general_policy_search.py [build-dir]
Environment: BUDGETS (500,2000,5000,10000,20000,50000), SEEDS (1,2,3), TOLERANCE (0.05),
ROWS and OUT as general_policy_eval.py reads them. Markdown on stdout, progress on stderr.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import general_policy_eval as ev  # noqa: E402  (the rows, and how doppler is run)

BUDGETS = [int(b) for b in os.environ.get("BUDGETS", "500,2000,5000,10000,20000,50000").split(",")]
SEEDS = [int(s) for s in os.environ.get("SEEDS", "1,2,3").split(",")]
TOLERANCE = float(os.environ.get("TOLERANCE", "0.05"))
STARTS = ["critical-path", "doppler"]


def main():
    rows = []
    for name, path, d in ev.graphs():
        ev.log(name)
        policy, policy_s = ev.place(path, d, "doppler")
        ref, ref_s = ev.place(path, d, "local-search", "--budget", "500000")
        row = {"graph": name, "policy": policy["makespan_us"], "ref": ref["makespan_us"],
               "ref_s": ref_s}
        for start in STARTS:
            for b in BUDGETS:
                runs = [ev.place(path, d, "local-search", "-p", f"start={start}", "--budget",
                                 str(b), "--seed", str(s)) for s in SEEDS]
                row[(start, b)] = statistics.mean(j["makespan_us"] for j, _ in runs)
                row[(start, b, "s")] = statistics.mean(t for _, t in runs)
        rows.append(row)

    print(f"Mean makespan over seeds {','.join(map(str, SEEDS))} / LS-500k from critical-path, "
          "averaged over the graphs (local search's evaluations in the header):\n")
    print("| start | greedy (no search) | " + " | ".join(f"{b:,}" for b in BUDGETS) + " |")
    print("|---|---|" + "---|" * len(BUDGETS))
    for start in STARTS:
        cells = [statistics.mean(r[(start, b)] / r["ref"] for r in rows) for b in BUDGETS]
        first = statistics.mean(r["policy"] / r["ref"] for r in rows) if start == "doppler" else None
        print(f"| {start} | {'' if first is None else f'{first:.3f}'} | " +
              " | ".join(f"{c:.3f}" for c in cells) + " |")
    print(f"\nPer graph, in ms: the policy, LS-500k, and for each start the makespan at each budget; "
          f"last, the smallest budget within {TOLERANCE:.0%} of LS-500k (critical-path / doppler).\n")
    print("| graph | policy | LS-500k | " + " | ".join(f"cp {b:,} | doppler {b:,}" for b in BUDGETS) +
          " | within |")
    print("|---|---|---|" + "---|---|" * len(BUDGETS) + "---|")
    for r in rows:
        def reach(start):
            for b in BUDGETS:
                if r[(start, b)] <= r["ref"] * (1 + TOLERANCE):
                    return f"{b:,}"
            return "none"
        cells = " | ".join(f"{ev.ms(r[('critical-path', b)])} | {ev.ms(r[('doppler', b)])}"
                           for b in BUDGETS)
        print(f"| {r['graph']} | {ev.ms(r['policy'])} | {ev.ms(r['ref'])} | {cells} | "
              f"{reach('critical-path')} / {reach('doppler')} |")
    times = [f"LS-500k {statistics.mean(r['ref_s'] for r in rows):.2f} s"]
    times += [f"{start} + LS-{b:,} {statistics.mean(r[(start, b, 's')] for r in rows):.2f} s"
              for start in STARTS for b in BUDGETS]
    print("\nWall time of one `doppler place` process (module and checkpoint loading included), "
          "mean over the graphs and seeds: " + "; ".join(times) + ".")


if __name__ == "__main__":
    main()
