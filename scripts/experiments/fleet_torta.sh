#!/usr/bin/env bash
# TORTA's learned method against the baselines (docs/fleet_learn.md): for each topology, train
# the policy (`doppler fleet train`, seeds from 1000), then `fleet compare` every baseline, torta
# and its two ablations on seeds 1..SEEDS of the slot model; then the prediction-accuracy sweep
# on SWEEP_TOPOLOGY (torta, its allocator on the OT plan, and the best baselines under an imposed
# forecast accuracy). Text tables on stdout, progress on stderr; checkpoints kept in OUT.
#   scripts/experiments/fleet_torta.sh [build-dir]      (build/release)
# Environment: TOPOLOGIES ("abilene polska gabriel cost266"), EPISODES (200), SEEDS (5),
# SWEEP_TOPOLOGY (abilene), ACCURACIES ("0.1 0.3 0.5 0.7 0.9 1"), OUT (a temporary folder).
# Every command takes /tmp/doppler-cpu.lock so other builds on the machine wait (quiet timings).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
topologies="${TOPOLOGIES:-abilene polska gabriel cost266}"
episodes="${EPISODES:-200}"
seeds="${SEEDS:-5}"
sweep="${SWEEP_TOPOLOGY:-abilene}"
accuracies="${ACCURACIES:-0.1 0.3 0.5 0.7 0.9 1}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
locked() { flock /tmp/doppler-cpu.lock "$@"; }
log() { echo "fleet_torta: $*" >&2; }

for t in $topologies; do
  log "training $t ($episodes episodes)"
  start=$(date +%s.%N)
  locked "$doppler" fleet train -t "$t" --episodes "$episodes" --out "$out/$t.pt" --no-record \
    >"$out/$t.train.txt" 2>/dev/null
  end=$(date +%s.%N)
  echo "## $t"
  echo
  echo '```'
  cat "$out/$t.train.txt"
  printf 'wall        %.1f s\n\n' "$(echo "$end - $start" | bc)"
  log "comparing on $t ($seeds seeds)"
  locked "$doppler" fleet compare -t "$t" --seeds "$seeds" --policy "$out/$t.pt" \
    --methods local,round-robin,least-loaded,skylb,sdib,ot,ot-smoothed,milp,ot-allocator,torta-routing,torta \
    --no-record 2>/dev/null
  echo '```'
  echo
done

echo "## Prediction accuracy sweep ($sweep, imposed forecast accuracy, $seeds seeds)"
echo
echo '```'
for pa in $accuracies; do
  log "sweep PA $pa"
  echo "PA $pa"
  locked "$doppler" fleet compare -t "$sweep" --seeds "$seeds" --policy "$out/$sweep.pt" \
    --forecast-accuracy "$pa" --methods least-loaded,sdib,ot,milp,ot-allocator,torta --no-record \
    2>/dev/null | tail -n 7
done
echo '```'
log "checkpoints in $out"
