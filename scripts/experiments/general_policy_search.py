#!/usr/bin/env python3
"""The shipped general policy as a start for local search, against the heuristics' starts.

For each graph of the evaluation table (general_policy_eval.py's rows): each start's own placement,
then local search from it (`doppler place -m local-search -p start=START`) with the
same budgets and seeds: the policy (`doppler`), critical-path (the default start) and
critical-path with the earliest-join device rule; and local search with 500,000 evaluations from
critical-path as the reference. Reports the mean over seeds of each budget's makespan, the mean
ratio to the reference over the graphs, and per graph the smallest budget from each start that
comes within TOLERANCE of the reference.

  scripts/experiments/general_policy_search.py [build-dir]
Environment: BUDGETS (500,2000,5000,10000,20000,50000), SEEDS (1,2,3), TOLERANCE (0.05),
STARTS (critical-path,critical-path-join,doppler), ROWS and OUT as general_policy_eval.py reads them. Markdown on stdout, progress on stderr.
"""
import os
import statistics
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import general_policy_eval as ev  # noqa: E402  (the rows, and how doppler is run)

BUDGETS = [int(b) for b in os.environ.get("BUDGETS", "500,2000,5000,10000,20000,50000").split(",")]
SEEDS = [int(s) for s in os.environ.get("SEEDS", "1,2,3").split(",")]
TOLERANCE = float(os.environ.get("TOLERANCE", "0.05"))
STARTS = os.environ.get("STARTS", "critical-path,critical-path-join,doppler").split(",")
SHORT = {"critical-path": "cp", "critical-path-join": "cp-join"}
OWN = {"critical-path-join": ["critical-path", "-p", "device_rule=earliest-join"]}  # no search


def main():
    rows = []
    for name, path, d in ev.graphs():
        ev.log(name)
        ref, ref_s = ev.place(path, d, "local-search", "--budget", "500000")
        row = {"graph": name, "ref": ref["makespan_us"], "ref_s": ref_s}
        for start in STARTS:
            row[start] = ev.place(path, d, *OWN.get(start, [start]))[0]["makespan_us"]
            for b in BUDGETS:
                runs = [ev.place(path, d, "local-search", "-p", f"start={start}", "--budget",
                                 str(b), "--seed", str(s)) for s in SEEDS]
                row[(start, b)] = statistics.mean(j["makespan_us"] for j, _ in runs)
                row[(start, b, "s")] = statistics.mean(t for _, t in runs)
        rows.append(row)

    print(f"Mean makespan over seeds {','.join(map(str, SEEDS))} / LS-500k from critical-path, "
          "averaged over the graphs (local search's evaluations in the header):\n")
    print("| start | no search | " + " | ".join(f"{b:,}" for b in BUDGETS) + " |")
    print("|---|---|" + "---|" * len(BUDGETS))
    for start in STARTS:
        first = statistics.mean(r[start] / r["ref"] for r in rows)
        cells = [statistics.mean(r[(start, b)] / r["ref"] for r in rows) for b in BUDGETS]
        print(f"| {start} | {first:.3f} | " + " | ".join(f"{c:.3f}" for c in cells) + " |")
    names = [SHORT.get(s, s) for s in STARTS]
    print(f"\nPer graph, in ms: LS-500k, and for each start its own placement and the makespan at "
          f"each budget; last, the smallest budget within {TOLERANCE:.0%} of LS-500k "
          f"({' / '.join(names)}).\n")
    heads = [f"{n}" for n in names] + [f"{n} {b:,}" for b in BUDGETS for n in names]
    print("| graph | LS-500k | " + " | ".join(heads) + " | within |")
    print("|---|---|" + "---|" * len(heads) + "---|")
    for r in rows:
        def reach(start):
            for b in BUDGETS:
                if r[(start, b)] <= r["ref"] * (1 + TOLERANCE):
                    return f"{b:,}"
            return "none"
        cells = [ev.ms(r[s]) for s in STARTS] + [ev.ms(r[(s, b)]) for b in BUDGETS for s in STARTS]
        print(f"| {r['graph']} | {ev.ms(r['ref'])} | " + " | ".join(cells) + " | " +
              " / ".join(reach(s) for s in STARTS) + " |")
    times = [f"LS-500k {statistics.mean(r['ref_s'] for r in rows):.2f} s"]
    times += [f"{start} + LS-{b:,} {statistics.mean(r[(start, b, 's')] for r in rows):.2f} s"
              for start in STARTS for b in BUDGETS]
    print("\nWall time of one `doppler place` process (module and checkpoint loading included), "
          "mean over the graphs and seeds: " + "; ".join(times) + ".")


if __name__ == "__main__":
    main()
