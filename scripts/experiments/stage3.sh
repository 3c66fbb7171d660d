#!/usr/bin/env bash
# Stage III against the heuristics on real executions: for the four generated paper workloads on
# two local CPU devices (cores standing in for GPUs), the measured makespans of critical-path,
# local-search (its best simulated placement, then executed), the policy after stage II and the
# policy after stage III (its served placement: the best it measured), each executed under the
# fifo, priority and sequence disciplines. Markdown on stdout, progress on stderr.
#
# Everything is placed and trained on the work the executor does: each graph is scaled as
# `doppler exec --kernels torch` sizes it for --target-ms (`graph convert --work-factor`), and the
# simulator uses the device set `doppler calibrate --graph` fits on this machine for each graph. Budgets are cut to fit a
# 2-core machine (stage II: $EPISODES_SIM episodes instead of 12,000-32,000).
#   scripts/experiments/stage3.sh [build-dir]      (build/release)
# Environment: EPISODES_SIM (3000), EPISODES_REAL (120), REPEAT (5), KINDS ("chainmm ffnn
# llama-block llama-layer"). Measurements on a shared machine are noisy: run it alone.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
episodesSim="${EPISODES_SIM:-3000}"
episodesReal="${EPISODES_REAL:-120}"
repeat="${REPEAT:-5}"
kinds="${KINDS:-chainmm ffnn llama-block llama-layer}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
log() { echo "stage3: $*" >&2; }
json() { python3 -c "import json,sys; print(json.load(open(sys.argv[1]))$2)" "$1"; }

rows="$tmp/rows.tsv"
: >"$rows"
for kind in $kinds; do
  g0="$tmp/$kind-0.json"
  g="$tmp/$kind.json"
  "$doppler" graph generate "$kind" --out "$g0"
  # The simulator fitted to this machine's kernels at the size exec runs this graph
  # (calibration_note.md: 7% MAPE this way).
  devices="$tmp/fitted-$kind.json"
  "$doppler" calibrate --devices 2 --graph "$g0" --out "$devices" >&2
  # The size factor exec picks for this graph on two cores, then the graph at that size.
  "$doppler" place -g "$g0" -d "$devices" --method critical-path --no-record --json -o "$tmp/p0.json"
  "$doppler" exec -g "$g0" -d "$devices" -a "$tmp/p0.json" --kernels torch --repeat 1 \
    --no-verify --no-record --json >"$tmp/x0.json"
  factor=$(json "$tmp/x0.json" '["size_factor"]')
  "$doppler" graph convert -g "$g0" --work-factor "$factor" --out "$g"
  log "$kind: size factor $factor"

  "$doppler" place -g "$g" -d "$devices" --method critical-path --no-record --json -o "$tmp/cp.json"
  "$doppler" place -g "$g" -d "$devices" --method local-search --budget 20000 --no-record --json \
    -o "$tmp/ls.json"
  log "$kind: stage I"
  "$doppler" train -g "$g" -d "$devices" --stage imitation --out "$tmp/il.pt" --no-record >/dev/null
  log "$kind: stage II ($episodesSim episodes)"
  "$doppler" train -g "$g" -d "$devices" --stage sim --episodes "$episodesSim" --from "$tmp/il.pt" \
    --out "$tmp/sim.pt" --no-record --json >"$tmp/sim.json"
  "$doppler" eval --policy "$tmp/sim.pt" -g "$g" -d "$devices" --no-record --json -o "$tmp/s2.json"
  log "$kind: stage III ($episodesReal episodes)"
  "$doppler" train -g "$g" -d "$devices" --stage real --episodes "$episodesReal" \
    --from "$tmp/sim.pt" --kernels torch --size-factor 1 --out "$tmp/real.pt" --no-record \
    --json >"$tmp/real.json"
  python3 -c "import json,sys; json.dump(json.load(open(sys.argv[1]))['served'], open(sys.argv[2], 'w'))" \
    "$tmp/real.json" "$tmp/s3.json"
  rollbacks=$(json "$tmp/real.json" '["rollbacks"]')
  seconds=$(json "$tmp/real.json" '["seconds"]')
  expected=$(json "$tmp/real.json" '["expected_improvement"]["percent"]')
  for discipline in fifo priority sequence; do
    line="$kind	$discipline"
    for p in cp ls s2 s3; do
      "$doppler" exec -g "$g" -d "$devices" -a "$tmp/$p.json" --kernels torch --size-factor 1 \
        --discipline "$discipline" --repeat "$repeat" --no-verify --no-record \
        --json >"$tmp/x.json"
      line="$line	$(json "$tmp/x.json" '["measured_makespan_us"]')"
      line="$line	$(json "$tmp/x.json" '["scaled_simulated_makespan_us"]')"
    done
    echo "$line	$rollbacks	$seconds	$expected" >>"$rows"
  done
done

python3 - "$rows" <<'PY'
import sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print("Measured makespans in ms (median of the repeats; simulated in brackets), two CPU devices.\n")
print("| workload | discipline | critical-path | local-search | policy, stage II | policy, stage III "
      "| III vs CP | II vs CP, simulated | rollbacks | stage III s |")
print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
ratios = []
for r in rows:
    kind, disc = r[0], r[1]
    m = [float(r[2 + 2 * i]) for i in range(4)]
    s = [float(r[3 + 2 * i]) for i in range(4)]
    ratios.append(m[3] / m[0])
    cells = [f"{m[i] / 1e3:.1f} ({s[i] / 1e3:.1f})" for i in range(4)]
    print(f"| {kind} | {disc} | " + " | ".join(cells) +
          f" | {(m[3] / m[0] - 1) * 100:+.1f}% | {-float(r[12]):+.1f}% | {r[10]} |"
          f" {float(r[11]):.0f} |")
import math
print(f"\nStage III's served placement over critical-path, geometric mean over {len(ratios)} rows: "
      f"{math.exp(sum(map(math.log, ratios)) / len(ratios)):.3f}")
PY
