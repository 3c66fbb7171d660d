#!/usr/bin/env bash
# Trains a general placement policy by the shipped one's recipe (resources/data/policies/general.pt;
# a one-go run gives a weaker policy than that checkpoint, see general_policy_note.md): stage I then
# stage II across the training distribution with data-parallel workers (`doppler train
# --general`), prints the training curve, and measures the worker speed-up (stage II episodes per
# second with 1 and with 2 workers, side by side). The per-graph table against the heuristics and
# local search is general_policy_eval.py's. Markdown on stdout, progress on stderr; checkpoints
# and the runs' JSON kept in OUT.
#   scripts/experiments/general_policy.sh [build-dir]      (build/release)
# Environment: WORKERS (2), EPISODES_IL (16000), BATCH (16), OUT (temporary), SPEEDUP_EPISODES
# (3200; 0 skips the speed-up), SIM_PHASES: stage II as the shipped policy had it, phases of
# EPISODES:TEACHER_START:TEACHER_BUDGET:AVERAGE[:DEVICE_FEATURES[:FIXED_COSTS[:LR[:JOIN]]]], each
# resumed from the one before (see the default below; DEVICE_FEATURES 18 widens the policy to the
# join look-ahead, 0 or absent keeps it; JOIN 1 adds --teacher-join).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
workers="${WORKERS:-2}"
il="${EPISODES_IL:-16000}"
phases="${SIM_PHASES:-512000:critical-path:2000:0 96000:both:2000:0 64000:both:2000:0.998 32000:own:10000:0.998 192000:own:10000:0.998:18 96000:own:10000:0.998:18:0.3 48000:own:10000:0.9995:18:0.3:3e-5 128000:own:10000:0.998:0:0.3:0:1}"
batch="${BATCH:-16}"
speedup="${SPEEDUP_EPISODES:-3200}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
log() { echo "general_policy: $*" >&2; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

log "stage I: $il episodes, $workers workers"
"$doppler" train --general --stage imitation --batch "$batch" --episodes "$il" --workers "$workers" \
  --out "$out/general_il.pt" --json --no-record 2>/dev/null >"$out/il.json"
from="$out/general_il.pt"
k=0
for phase in $phases; do
  IFS=: read -r episodes teacher budget average features fixed lr join <<<"$phase"
  k=$((k + 1))
  extra=()
  if [[ -n "${features:-}" && "$features" != 0 ]]; then extra+=(--device-features "$features"); fi
  if [[ -n "${fixed:-}" && "$fixed" != 0 ]]; then extra+=(--fixed-costs "$fixed"); fi
  if [[ -n "${lr:-}" && "$lr" != 0 ]]; then extra+=(--lr "$lr"); fi
  if [[ "${join:-0}" == 1 ]]; then extra+=(--teacher-join); fi
  log "stage II, phase $k: $episodes episodes, teacher from $teacher ($budget evaluations), average $average ${extra[*]}"
  "$doppler" train --general --stage sim --batch "$batch" --episodes "$episodes" --workers "$workers" \
    --teacher-start "$teacher" --teacher-budget "$budget" --average "$average" "${extra[@]}" \
    --from "$from" --out "$out/general.pt" --json --no-record 2>/dev/null >"$out/sim$k.json"
  from="$out/general.pt"
done
# The weights that place (resources/data/policies/general.weights beside general.pt).
"$doppler" policy export "$out/general.pt" --out "$out/general.weights"
# One curve over the phases, and their summed time, as one run's JSON.
python3 - "$out" "$k" <<'PY'
import json, sys
out, n = sys.argv[1], int(sys.argv[2])
runs = [json.load(open(f"{out}/sim{k}.json")) for k in range(1, n + 1)]
merged = runs[-1]
merged["curve"] = [p for r in runs for p in r["curve"]]
merged["train_s"] = sum(r["train_s"] for r in runs)
json.dump(merged, open(f"{out}/sim.json", "w"))
PY
echo "Training: stage I $(field "round(d['train_s'],1)" <"$out/il.json") s, stage II" \
  "$(field "round(d['train_s'],1)" <"$out/sim.json") s ($workers workers, batch $batch)."
echo
echo "Training curve: the batch's makespan over critical-path's on the same graphs (stage I:"
echo "greedy episodes; stage II: sampled ones), and the loss, averaged over tenths of each stage."
echo
echo "| stage | episodes | mean ratio | loss |"
echo "|---|---|---|---|"
for stage in il sim; do
  python3 - "$out/$stage.json" "$stage" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
c = d["curve"]
n = max(1, len(c) // 10)
for i in range(0, len(c), n):
    w = c[i:i + n]
    print(f"| {'I' if sys.argv[2] == 'il' else 'II'} | {w[-1]['episodes']} | "
          f"{sum(p['mean_ratio'] for p in w) / len(w):.4f} | {sum(p['loss'] for p in w) / len(w):.3f} |")
PY
done

if ((speedup > 0)); then
  echo
  echo "Worker speed-up (stage II from the stage I checkpoint, $speedup episodes, batch $batch):"
  echo
  echo "| workers | seconds | episodes/s |"
  echo "|---|---|---|"
  for w in 1 2 1 2; do
    s=$("$doppler" train --general --stage sim --batch "$batch" --episodes "$speedup" --workers "$w" \
      --from "$out/general_il.pt" --out "$out/speed.pt" --json --no-record 2>/dev/null |
      field "round(d['train_s'],2)")
    python3 -c "print(f'| $w | $s | {$speedup/$s:.0f} |')"
  done
fi
log "checkpoints in $out (the shipped policy: general.pt, and general.weights exported from it)"
