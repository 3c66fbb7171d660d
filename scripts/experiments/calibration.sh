#!/usr/bin/env bash
# How far the simulator is from real executions on this machine, before and after calibration:
# the mean absolute percentage error between the scaled simulated makespan and the measured one
# (`doppler exec --kernels torch`, median of --repeat runs) over heuristic and random assignments
# of the four generated paper workloads on two local devices (CPU cores stand in for GPUs).
# "Before" simulates with device set `2` (P100 defaults); "sweep" with the device set
# `doppler calibrate --devices 2` fits from its generic sweep of kernel shapes; "graphs" with the
# one it fits when it also profiles the four workloads' own kernels (--graph, at the size exec
# gives them). The kernels do not depend on the device set (the size factor is the graph's own,
# sized for --target-ms), so each assignment runs under all three and its measured makespan is the
# mean of the three medians. Markdown on stdout.
#   scripts/experiments/calibration.sh [build-dir] [random-per-graph]   (build/release, 9)
# 4 graphs x (4 heuristics + 9 random) = 52 assignments. Measurements on a shared machine are
# noisy: other processes take the devices' cores (the load average is printed before and after).
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
kinds=(chainmm ffnn llama-block llama-layer)
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
graphs=()
for kind in "${kinds[@]}"; do
  "$doppler" graph generate "$kind" --out "$tmp/$kind.json"
  graphs+=(--graph "$tmp/$kind.json")
done
"$doppler" calibrate --devices "$devices" --out "$tmp/sweep.json" >&2
"$doppler" calibrate --devices "$devices" "${graphs[@]}" --out "$tmp/fitted.json" >&2
rows="$tmp/rows.tsv"
: >"$rows"
run() {  # graph assignment label
  local before sweep after
  before=$("$doppler" exec -g "$1" -d "$devices" -a "$2" --kernels torch --no-verify --no-record --json)
  sweep=$("$doppler" exec -g "$1" -d "$tmp/sweep.json" -a "$2" --kernels torch --no-verify \
    --no-record --json)
  after=$("$doppler" exec -g "$1" -d "$tmp/fitted.json" -a "$2" --kernels torch --no-verify \
    --no-record --json)
  python3 - "$3" "$before" "$sweep" "$after" >>"$rows" <<'PY'
import json, sys
runs = [json.loads(a) for a in sys.argv[2:]]
measured = sum(r["measured_makespan_us"] for r in runs) / len(runs)
print("\t".join([sys.argv[1], f"{measured:.0f}"] +
                [f"{r['scaled_simulated_makespan_us']:.0f}" for r in runs]))
PY
}
for kind in "${kinds[@]}"; do
  g="$tmp/$kind.json"
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
load_after=$(cut -d' ' -f1-3 /proc/loadavg)
python3 - "$rows" "$tmp/sweep.json" "$tmp/fitted.json" "$load_before" "$load_after" <<'PY'
import json, sys
rows = [l.rstrip("\n").split("\t") for l in open(sys.argv[1]) if l.strip()]
print("| assignment | measured ms | simulated ms, set `2` | simulated ms, sweep | simulated ms, graphs |")
print("|---|---:|---:|---:|---:|")
errors = [[], [], []]
for label, m, *sims in rows:
    m, sims = float(m), [float(x) for x in sims]
    for e, s in zip(errors, sims):
        e.append(abs(s - m) / m)
    print(f"| {label} | {m / 1e3:.1f} | {sims[0] / 1e3:.2f} | {sims[1] / 1e3:.1f} | {sims[2] / 1e3:.1f} |")
mape = [100 * sum(e) / len(e) for e in errors]
print()
print(f"Assignments: {len(rows)}. MAPE before calibration (device set `2`): {mape[0]:.1f}%; "
      f"after, generic sweep: {mape[1]:.1f}%; after, sweep and the workloads' kernels (--graph): "
      f"{mape[2]:.1f}%.")
for name, file in (("sweep", sys.argv[2]), ("graphs", sys.argv[3])):
    f = json.load(open(file))
    d = f["devices"]
    print(f"Fitted ({name}): " + ", ".join(
        f"{x['name']} matmul {x['ops']['matmul']['tflops'] * 1e3:.1f} GFLOP/s"
        + (f" / {x['ops']['matmul']['memory_gbps']:.2f} GB/s" if 'memory_gbps' in x['ops']['matmul'] else "")
        + f", softmax {x['ops']['softmax']['overhead_us']:.1f} us + {x['ops']['softmax']['memory_gbps']:.1f} GB/s"
        for x in d) +
        f"; links {f['links']['bandwidth_gbps'][0][1]:.2f} GB/s, {f['links']['latency_us'][0][1]:.1f} us.")
print(f"Load average (1, 5, 15 min) before: {sys.argv[4]}; after: {sys.argv[5]}.")
PY
