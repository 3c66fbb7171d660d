#!/usr/bin/env python3
"""Critical-path with the earliest-join device rule (`-p device_rule=earliest-join`) against
critical-path, HEFT and LS-500k, on the three sets general_policy_compare.py scores checkpoints on
(val, the evaluation table, the generated defaults). Per set: the mean makespan / LS-500k and wins
against the best of critical-path and HEFT (a tie is not a win); then every row. The baselines
are cached in OUT as general_policy_compare.py caches them (reuse it with OUT=...).

  scripts/experiments/join_rule_compare.py [build-dir]
Markdown on stdout, progress on stderr.
"""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import general_policy_compare as cmp  # noqa: E402  (the sets and the cached baselines)
import general_policy_eval as ev  # noqa: E402  (how doppler is run)


def main():
    rs = cmp.rows()
    base = cmp.baselines(rs)
    join = {}
    for name, path, d, _ in rs:
        ev.log(f"earliest-join: {name}")
        join[name] = ev.place(path, d, "critical-path", "-p",
                              "device_rule=earliest-join")[0]["makespan_us"]
    print("| set | critical-path | HEFT | critical-path, earliest-join | wins |")
    print("|---|---|---|---|---|")
    for group in ("val", "table", "gen"):
        names = [r[0] for r in rs if r[3] == group]

        def gap(f):
            return sum(f(n) / base[n]["ls500k"] for n in names) / len(names)
        wins = sum(join[n] < min(base[n]["critical-path"], base[n]["heft"]) for n in names)
        print(f"| {group} | {gap(lambda n: base[n]['critical-path']):.3f} | "
              f"{gap(lambda n: base[n]['heft']):.3f} | {gap(lambda n: join[n]):.3f} | "
              f"{wins}/{len(names)} |")
    print()
    print("| set | graph | devices | critical-path | HEFT | earliest-join | LS-500k |")
    print("|---|---|---|---|---|---|---|")
    for name, _, d, group in rs:
        b = base[name]
        print(f"| {group} | {name} | {d} | {ev.ms(b['critical-path'])} | {ev.ms(b['heft'])} | "
              f"{ev.ms(join[name])} | {ev.ms(b['ls500k'])} |")


if __name__ == "__main__":
    main()
