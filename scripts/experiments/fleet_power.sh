#!/usr/bin/env bash
# Power against response time (docs/fleet_learn.md, "Power against response"): trains one torta
# policy per pair of power weights (the reward's --power-weight and the OT layer's
# --ot-power-weight), 200 episodes each on the calendar demand, then compares each with
# least-loaded, ot, skylb and ot-allocator on the held-out Thursday (seeds 1..SEEDS, slot model).
# Prints one markdown row per pair: torta's mean response and power cost, paired per seed against
# least-loaded (the best baseline by response) and SkyLB (the paper's reference), and
# ot-allocator's figures under the same OT cost.
#   scripts/experiments/fleet_power.sh [build-dir]      (build/release)
# Environment: TOPOLOGY (abilene), EPISODES (200), SEEDS (5), OUT (a temporary folder),
# PAIRS ("OT_WEIGHT:REWARD_WEIGHT ..."); TABLE_ONLY=1 prints the table again from OUT's JSON.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
topology="${TOPOLOGY:-abilene}"
episodes="${EPISODES:-200}"
seeds="${SEEDS:-5}"
out="${OUT:-$(mktemp -d)}"
pairs="${PAIRS:-0:0.05 0:0.2 0:0.4 0:0.7 0:1 1:0.05 1:1 5:0.05}"
mkdir -p "$out"
if [ -z "${TABLE_ONLY:-}" ]; then
  for pair in $pairs; do
    ot="${pair%%:*}" reward="${pair##*:}"
    echo "fleet_power: OT power weight $ot, reward power weight $reward" >&2
    "$doppler" fleet train -t "$topology" --episodes "$episodes" --out "$out/$pair.pt" \
      --ot-power-weight "$ot" --power-weight "$reward" --no-record >"$out/$pair.train.txt" 2>/dev/null
    "$doppler" fleet compare -t "$topology" --seeds "$seeds" --policy "$out/$pair.pt" \
      --methods least-loaded,ot,skylb,ot-allocator,torta --no-record --json >"$out/$pair.json" 2>/dev/null
  done
fi
python3 - "$out" $pairs <<'PY'
import json, os, sys
sys.path.insert(0, "scripts/experiments")
from paired_stats import paired_text as paired
out, pairs = sys.argv[1], sys.argv[2:]

print("| OT power weight | reward power weight | torta s | torta power $ | response vs least-loaded "
      "| power vs least-loaded | power vs skylb | ot-allocator s | ot-allocator power $ |")
print("|---|---|---|---|---|---|---|---|---|")
first = None
for pair in pairs:
    path = os.path.join(out, pair + ".json")
    if not os.path.exists(path):
        continue
    m = json.load(open(path))["methods"]
    first = first or m
    t, ll, sk = (m[k]["per_seed"] for k in ("torta", "least-loaded", "skylb"))
    ot, reward = pair.split(":")
    print(f"| {ot} | {reward} | {m['torta']['mean_response_s']:.3f} | {m['torta']['power_cost']:.2f} "
          f"| {paired(t['mean_response_s'], ll['mean_response_s'])} "
          f"| {paired(t['power_cost'], ll['power_cost'])} | {paired(t['power_cost'], sk['power_cost'])} "
          f"| {m['ot-allocator']['mean_response_s']:.3f} | {m['ot-allocator']['power_cost']:.2f} |")
if first:
    print()
    print("| baseline | response s | power $ | energy kWh |")
    print("|---|---|---|---|")
    for b in ("least-loaded", "ot", "skylb"):
        print(f"| {b} | {first[b]['mean_response_s']:.3f} | {first[b]['power_cost']:.2f} | {first[b]['energy_kwh']:.1f} |")
PY
echo "fleet_power: checkpoints and JSON in $out" >&2
