#!/usr/bin/env bash
# Trains the shipped general placement policy (resources/data/policies/general.pt): stage I then
# stage II across the training distribution with data-parallel workers (`doppler train
# --general`), prints the training curve, and measures the worker speed-up (stage II episodes per
# second with 1 and with 2 workers, side by side). The per-graph table against the heuristics and
# local search is general_policy_eval.py's. Markdown on stdout, progress on stderr; checkpoints
# and the runs' JSON kept in OUT.
#   scripts/experiments/general_policy.sh [build-dir]      (build/release)
# Environment: WORKERS (2), EPISODES_IL (16000), EPISODES_SIM (512000), BATCH (16), TEACHER_START
# (both), AVERAGE (0.998), OUT (temporary), SPEEDUP_EPISODES (3200; 0 skips the speed-up).
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
workers="${WORKERS:-2}"
il="${EPISODES_IL:-16000}"
sim="${EPISODES_SIM:-512000}"
batch="${BATCH:-16}"
speedup="${SPEEDUP_EPISODES:-3200}"
teacher="${TEACHER_START:-both}"
average="${AVERAGE:-0.998}"
out="${OUT:-$(mktemp -d)}"
mkdir -p "$out"
log() { echo "general_policy: $*" >&2; }
field() { python3 -c "import json,sys; d=json.load(sys.stdin); print($1)"; }

log "stage I: $il episodes, $workers workers"
"$doppler" train --general --stage imitation --batch "$batch" --episodes "$il" --workers "$workers" \
  --out "$out/general_il.pt" --json --no-record 2>/dev/null >"$out/il.json"
log "stage II: $sim episodes (teacher from $teacher, weights averaged with decay $average)"
"$doppler" train --general --stage sim --batch "$batch" --episodes "$sim" --workers "$workers" \
  --teacher-start "$teacher" --average "$average" \
  --from "$out/general_il.pt" --out "$out/general.pt" --json --no-record 2>/dev/null >"$out/sim.json"
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
log "checkpoints in $out (the shipped policy: general.pt)"
