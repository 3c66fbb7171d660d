#!/usr/bin/env bash
# Tail latency from the request-level model beside the slot model's (docs/fleet_learn.md, "Tail
# latency under the request-level model"). Takes the folder of a fleet_heldout.sh run (its conv
# policy and its slot-model JSON), runs the same comparisons with --fidelity request for the
# held-out Thursday, the spike and the 24-hour day, and prints per method the mean, p95 and p99
# response of both models, then torta against the best baseline under the request model, paired.
#   OUT=/tmp/fh scripts/experiments/fleet_tail.sh [build-dir]      (build/release)
# Environment: OUT (required: fleet_heldout.sh's folder), TOPOLOGY (abilene), SEEDS (5),
# CASES ("a c e"); TABLE_ONLY=1 prints the tables again from OUT/request without running.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
topology="${TOPOLOGY:-abilene}"
seeds="${SEEDS:-5}"
out="${OUT:?OUT must name a fleet_heldout.sh folder}"
cases="${CASES:-a c e}"
methods=least-loaded,ot,sdib,skylb,ot-allocator,torta
mkdir -p "$out/request"
if [ -z "${TABLE_ONLY:-}" ]; then
  while IFS= read -r name; do
    letter="${name%%:*}"
    [[ " $cases " == *" $letter "* ]] || continue
    case "$name" in
      "a: Thu 14:00, conv") extra=() ;;
      c:*) region="${name#*region }"; extra=(--spike "${region%%,*}:2:60:3") ;;
      e:*) extra=(--slots 1920 --start "thu 00:00") ;;
      *) continue ;;
    esac
    echo "fleet_tail: $name" >&2
    "$doppler" fleet compare -t "$topology" --seeds "$seeds" --policy "$out/conv.pt" \
      --fidelity request --methods "$methods" --no-record --json "${extra[@]}" \
      >"$out/request/$name.json" 2>/dev/null
  done <"$out/cases.txt"
fi
python3 - "$out" <<'PY'
import glob, json, os, sys
sys.path.insert(0, "scripts/experiments")
from paired_stats import paired_text as paired
out = sys.argv[1]

for path in sorted(glob.glob(os.path.join(out, "request", "*.json"))):
    case = os.path.basename(path)[:-5]
    request = json.load(open(path))["methods"]
    slot = json.load(open(os.path.join(out, case + ".json")))["methods"]
    print(f"\n{case}:\n")
    print("| method | mean slot / request s | p95 slot / request s | p99 slot / request s | request p99 / slot p99 |")
    print("|---|---|---|---|---|")
    for m, r in request.items():
        s = slot[m]
        print(f"| {m} | {s['mean_response_s']:.2f} / {r['mean_response_s']:.2f} | "
              f"{s['e2e_p95_s']:.1f} / {r['e2e_p95_s']:.1f} | {s['e2e_p99_s']:.1f} / {r['e2e_p99_s']:.1f} | "
              f"{r['e2e_p99_s'] / s['e2e_p99_s']:.2f} |")
    baselines = [m for m in request if m not in ("torta", "ot-allocator")]
    best = min(baselines, key=lambda m: request[m]["mean_response_s"])
    t = request["torta"]["per_seed"]
    b = request[best]["per_seed"]
    print(f"\nrequest model, torta against {best} (best baseline by mean), paired: mean "
          f"{paired(t['mean_response_s'], b['mean_response_s'])}, p99 "
          f"{paired(t['e2e_p99_s'], b['e2e_p99_s'])}; against ot-allocator: mean "
          f"{paired(t['mean_response_s'], request['ot-allocator']['per_seed']['mean_response_s'])}, p99 "
          f"{paired(t['e2e_p99_s'], request['ot-allocator']['per_seed']['e2e_p99_s'])}")
PY
