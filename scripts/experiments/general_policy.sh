#!/usr/bin/env bash
# The general placement policy, first measurements: stage I then stage II across the training
# distribution with data-parallel workers (`doppler train --general`), then zero-shot greedy
# placements (`doppler eval -k 1`) of the four generated paper workloads at their default
# parameters (never in the training distribution) on 4 and 8 default devices, against
# critical-path and HEFT. Markdown on stdout, progress on stderr; checkpoints kept in OUT.
#   scripts/experiments/general_policy.sh [build-dir]      (build/release)
# Environment: WORKERS (2), EPISODES_IL (16000), EPISODES_SIM (16000), BATCH (16), OUT (temporary).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
workers="${WORKERS:-2}"
il="${EPISODES_IL:-16000}"
sim="${EPISODES_SIM:-16000}"
batch="${BATCH:-16}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
log() { echo "general_policy: $*" >&2; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

log "stage I: $il episodes, $workers workers"
"$doppler" train --general --stage imitation --batch "$batch" --episodes "$il" --workers "$workers" \
  --out "$out/general_il.pt" --json 2>/dev/null >"$out/il.json"
log "stage II: $sim episodes"
"$doppler" train --general --stage sim --batch "$batch" --episodes "$sim" --workers "$workers" \
  --from "$out/general_il.pt" --out "$out/general.pt" --json 2>/dev/null >"$out/sim.json"
echo "training: stage I $(field "round(d['train_s'],1)" <"$out/il.json") s, stage II" \
  "$(field "round(d['train_s'],1)" <"$out/sim.json") s ($workers workers)"
echo
echo "| graph | devices | zero-shot greedy | critical-path | HEFT | vs best heuristic |"
echo "|---|---|---|---|---|---|"
for kind in chainmm ffnn llama-block llama-layer; do
  "$doppler" graph generate "$kind" --out "$out/$kind.json" >/dev/null
  for devices in 4 8; do
    p=$("$doppler" eval -P "$out/general.pt" -g "$out/$kind.json" -d "$devices" -k 1 --json \
      --no-record 2>/dev/null | field "d['makespan_us']")
    c=$("$doppler" place -g "$out/$kind.json" -d "$devices" -m critical-path --json --no-record \
      2>/dev/null | field "d['makespan_us']")
    h=$("$doppler" place -g "$out/$kind.json" -d "$devices" -m heft --json --no-record 2>/dev/null |
      field "d['makespan_us']")
    python3 -c "p,c,h=$p,$c,$h; b=min(c,h); print(f'| $kind | $devices | {p/1e3:.1f} ms | {c/1e3:.1f} ms | {h/1e3:.1f} ms | {100*(p/b-1):+.1f}% |')"
  done
done
log "checkpoints in $out"
