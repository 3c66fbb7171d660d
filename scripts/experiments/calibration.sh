#!/usr/bin/env bash
# How far the simulator is from real executions on this machine, before and after calibration:
# the mean absolute percentage error between the scaled simulated makespan and the measured one
# (`doppler exec --kernels torch`, median of --repeat runs) over heuristic and random assignments
# of the four generated paper workloads on two local devices (CPU cores stand in for GPUs).
# "Before" simulates with device set `2` (P100 defaults), "after" with the device set
# `doppler calibrate --devices local` fits. The kernels do not depend on the device set (the size
# factor is the graph's own, sized for --target-ms), so each assignment runs under both and its
# measured makespan is the mean of the two medians. Markdown on stdout.
#   scripts/experiments/calibration.sh [build-dir] [random-per-graph]   (build/release, 9)
# 4 graphs x (4 heuristics + 9 random) = 52 assignments. Measurements on a shared machine are
# noisy: other processes take the devices' cores.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
randoms="${2:-9}"
doppler="${DOPPLER:-$build/app/doppler}"
if [[ ! -x "$doppler" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice ninja -C "$build" -j1 doppler doppler_torch >/dev/null
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
devices=2
"$doppler" calibrate --devices "$devices" --out "$tmp/fitted.json" >&2
rows="$tmp/rows.tsv"
: >"$rows"
run() {  # graph assignment label
  local before after
  before=$("$doppler" exec -g "$1" -d "$devices" -a "$2" --kernels torch --no-verify --no-record --json)
  after=$("$doppler" exec -g "$1" -d "$tmp/fitted.json" -a "$2" --kernels torch --no-verify \
    --no-record --json)
  python3 - "$3" "$before" "$after" >>"$rows" <<'PY'
import json, sys
b, a = json.loads(sys.argv[2]), json.loads(sys.argv[3])
measured = (b["measured_makespan_us"] + a["measured_makespan_us"]) / 2
print("\t".join([sys.argv[1], f"{measured:.0f}", f"{b['scaled_simulated_makespan_us']:.0f}",
                 f"{a['scaled_simulated_makespan_us']:.0f}"]))
PY
}
for kind in chainmm ffnn llama-block llama-layer; do
  g="$tmp/$kind.json"
  "$doppler" graph generate "$kind" --out "$g"
  for method in critical-path heft cpop etf; do
    "$doppler" place -g "$g" -d "$devices" --method "$method" --no-record --json -o "$tmp/p.json"
    run "$g" "$tmp/p.json" "$kind $method"
  done
  for ((i = 0; i < randoms; i++)); do
    python3 - "$g" "$i" "$devices" >"$tmp/r.json" <<'PY'
import json, random, sys
g = json.load(open(sys.argv[1]))
rng = random.Random(1000 + int(sys.argv[2]))
print(json.dumps([rng.randrange(int(sys.argv[3])) for _ in g["nodes"]]))
PY
    run "$g" "$tmp/r.json" "$kind random$i"
  done
done
python3 - "$rows" "$tmp/fitted.json" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
fitted = json.load(open(sys.argv[2]))
print("| assignment | measured ms | simulated ms, set `2` | simulated ms, fitted |")
print("|---|---:|---:|---:|")
err_b, err_a = [], []
for label, m, b, a in rows:
    m, b, a = float(m), float(b), float(a)
    err_b.append(abs(b - m) / m)
    err_a.append(abs(a - m) / m)
    print(f"| {label} | {m / 1e3:.1f} | {b / 1e3:.2f} | {a / 1e3:.1f} |")
print()
print(f"Assignments: {len(rows)}. MAPE before calibration (device set `2`): "
      f"{100 * sum(err_b) / len(err_b):.1f}%; after (fitted): {100 * sum(err_a) / len(err_a):.1f}%.")
d = fitted["devices"]
print("Fitted: " + ", ".join(f"{x['name']} {x['tflops'] * 1e3:.1f} GFLOP/s, {x['memory_gbps']:.2f} GB/s"
                            for x in d) +
      f"; links {fitted['links']['bandwidth_gbps'][0][1]:.3f} GB/s, "
      f"{fitted['links']['latency_us'][0][1]:.1f} us.")
PY
