#!/usr/bin/env bash
# TORTA on demand it never saw (issue 37, docs/fleet_learn.md "Held-out evaluation"). Trains one
# policy per service on the calendar demand (training days Mon-Wed and Sat, the first half of the
# trace), then compares it with every baseline and ot-allocator, seeds 1..SEEDS of the slot model,
# on cases training never drew from:
#   a  held-out days, same service: Thu 14:00, Fri 02:00 and Sun 14:00 UTC, the trace's 2nd half
#   b  the other service: the conv policy on code demand (code profile)
#   c  a 3x spike for an hour in the busiest region, 2 h into the Thursday horizon
#   d  the busiest region's servers gone for an hour, 2 h in (its queue rerouted)
#   e  the 24-hour day from Thu 00:00
#   and, for reference, the tiled horizon the policy used to be trained and scored on, and load 0.9.
# Prints one markdown row per case: TORTA and the best baseline (by mean response), their paired
# per-seed difference (mean and 95% CI half-width over seeds), ot-allocator's, and fallbacks; then
# the routing table: every routing under torta's predictor and allocator (OT, least-loaded, SkyLB,
# SDIB "+allocator", torta without its predictor) against torta, paired.
#   scripts/experiments/fleet_heldout.sh [build-dir]      (build/release)
# Environment: TOPOLOGY (abilene), EPISODES (200), SEEDS (5), OUT (a temporary folder);
# TABLE_ONLY=1 prints the table again from OUT's JSON without running anything.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
topology="${TOPOLOGY:-abilene}"
episodes="${EPISODES:-200}"
seeds="${SEEDS:-5}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
log() { echo "fleet_heldout: $*" >&2; }
baselines=local,round-robin,least-loaded,skylb,sdib,ot,ot-smoothed,milp
allocated=least-loaded+allocator,skylb+allocator,sdib+allocator,torta-no-predictor

if [ -z "${TABLE_ONLY:-}" ]; then
train() {  # name, extra options
  log "training $1 ($episodes episodes)"
  "$doppler" fleet train -t "$topology" --episodes "$episodes" --out "$out/$1.pt" --no-record \
    "${@:2}" >"$out/$1.train.txt" 2>/dev/null
}
train conv
train code --trace code
train tiled --horizon tile

# The region with the most requests on the default Thursday horizon.
busiest=$("$doppler" fleet world -t "$topology" --json | python3 -c '
import json, sys
regions = json.load(sys.stdin)["regions"]
print(max(range(len(regions)), key=lambda r: regions[r]["requests"]))')

compare() {  # case name, policy, extra options
  log "case $1"
  "$doppler" fleet compare -t "$topology" --seeds "$seeds" --policy "$out/$2.pt" \
    --methods "$baselines,$allocated,ot-allocator,torta" --no-record --json "${@:3}" >"$out/$1.json" 2>/dev/null
  echo "$1" >>"$out/cases.txt"
}
rm -f "$out/cases.txt"
compare "a: Thu 14:00, conv" conv
compare "a: Fri 02:00, conv" conv --start "fri 02:00"
compare "a: Sun 14:00, conv" conv --start "sun 14:00"
compare "a: Thu 14:00, code (code policy)" code --trace code
compare "b: conv policy on code" conv --trace code
compare "c: 3x spike in region $busiest, 1 h" conv --spike "$busiest:2:60:3"
compare "d: region $busiest down for 1 h" conv --outage "$busiest:2:60"
compare "e: 24 h from Thu 00:00" conv --slots 1920 --start "thu 00:00"
compare "load 0.9, Thu 14:00" conv --load 0.9
compare "tiled (trained and scored on it)" tiled --horizon tile
fi

python3 - "$out" <<'EOF'
import json, math, sys
out = sys.argv[1]
baselines = "local round-robin least-loaded skylb sdib ot ot-smoothed milp".split()

def p99(methods, m):  # the mean over seeds of each run's p99 response (older JSON: none)
    return methods[m].get("e2e_p99_s", float("nan"))

def paired(a, b):  # mean and 95% CI half-width (t, n - 1 dof) of a - b, relative to b's mean
    d = [x - y for x, y in zip(a, b)]
    n = len(d)
    m = sum(d) / n
    if n < 2:
        return m, float("nan")
    sd = math.sqrt(sum((x - m) ** 2 for x in d) / (n - 1))
    t = {2: 12.71, 3: 4.30, 4: 3.18, 5: 2.78, 6: 2.57, 7: 2.45, 8: 2.36, 9: 2.31, 10: 2.26}.get(n, 2.0)
    return m, t * sd / math.sqrt(n)

print("| case | held out | torta s | best baseline s | torta vs best (paired) | ot-allocator vs best | torta vs ot-allocator | torta p95 s | p99 torta / best | power torta / best | fallbacks |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for case in open(f"{out}/cases.txt").read().splitlines():
    j = json.load(open(f"{out}/{case}.json"))
    methods = j["methods"]
    best = min(baselines, key=lambda m: methods[m]["mean_response_s"])
    b = methods[best]["per_seed"]["mean_response_s"]
    t = methods["torta"]["per_seed"]["mean_response_s"]
    o = methods["ot-allocator"]["per_seed"]["mean_response_s"]
    bm = sum(b) / len(b)
    dt, ct = paired(t, b)
    do, co = paired(o, b)
    om = sum(o) / len(o)
    dl, cl = paired(t, o)
    held = "yes: " + "; ".join(j.get("policy_differences", [])) if j.get("policy_held_out") else "no"
    print(f"| {case} | {held} | {methods['torta']['mean_response_s']:.3f} | {best} {bm:.3f} | "
          f"{100 * dt / bm:+.1f} ± {100 * ct / bm:.1f}% | {100 * do / bm:+.1f} ± {100 * co / bm:.1f}% | "
          f"{100 * dl / om:+.1f} ± {100 * cl / om:.1f}% | "
          f"{methods['torta']['p95_response_s']:.2f} | "
          f"{p99(methods, 'torta') / p99(methods, best):.2f} | "
          f"{methods['torta']['power_cost'] / methods[best]['power_cost']:.2f} | "
          f"{methods['torta']['fallbacks']:.1f} |")

print()
routings = ["ot-allocator", "least-loaded+allocator", "skylb+allocator", "sdib+allocator",
            "torta-no-predictor"]
print("| case | torta s | " + " | ".join(f"{m} vs torta" for m in routings) + " |")
print("|---|---|" + "---|" * len(routings))
for case in open(f"{out}/cases.txt").read().splitlines():
    methods = json.load(open(f"{out}/{case}.json"))["methods"]
    t = methods["torta"]["per_seed"]["mean_response_s"]
    tm = sum(t) / len(t)
    cells = []
    for m in routings:
        if m not in methods:
            cells.append("–")
            continue
        d, c = paired(methods[m]["per_seed"]["mean_response_s"], t)
        cells.append(f"{100 * d / tm:+.1f} ± {100 * c / tm:.1f}%")
    print(f"| {case} | {tm:.3f} | " + " | ".join(cells) + " |")

# Where requests are served and what the network costs them, on the first case (the held-out
# Thursday): TTFT, SLO attainment, the share served away from home and its round trip.
first = open(f"{out}/cases.txt").read().splitlines()[0]
methods = json.load(open(f"{out}/{first}.json"))["methods"]
print()
print(f"{first}:")
print()
print("| method | response s | TTFT mean s | TTFT p95 s | SLO attainment | served away from home | mean network s | power $ |")
print("|---|---|---|---|---|---|---|---|")
for m in baselines + ["ot-allocator", "torta"]:
    v = methods[m]
    print(f"| {m} | {v['mean_response_s']:.3f} | {v['ttft_mean_s']:.3f} | {v['ttft_p95_s']:.2f} | "
          f"{100 * v['slo_attainment']:.1f}% | {100 * v['cross_region_share']:.1f}% | "
          f"{v['mean_network_s']:.3f} | {v['power_cost']:.2f} |")
EOF
log "checkpoints and JSON in $out"
