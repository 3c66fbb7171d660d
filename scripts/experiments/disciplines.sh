#!/usr/bin/env bash
# Makespans under each execution discipline (fifo, priority, sequence; docs/simulator.md) of
# critical-path, heft, cpop, etf and local-search, on the four generated paper workloads
# (4 identical default devices) and, when found, the Doppler paper's six graphs (4 devices, 8 for
# the two 8gpu graphs). Reference cost model, no noise, seed 1, local search with its default
# budget (5000 evaluations, judged under the discipline it is run with). Markdown on stdout.
#   scripts/experiments/disciplines.sh [build-dir]     (default build/release)
# The paper graphs are read from $DOPPLER_DATA_DIR/doppler-graphs/ (default ../shared/data); the
# table says when they are missing.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
doppler="${DOPPLER:-$build/app/doppler}"
if [[ ! -x "$doppler" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null
  nice ninja -C "$build" -j1 doppler >/dev/null
fi
data_dir="${DOPPLER_DATA_DIR:-../shared/data}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
graphs=()
for kind in chainmm ffnn llama-block llama-layer; do
  "$doppler" graph generate "$kind" --out "$tmp/$kind.json"
  graphs+=("$kind=$tmp/$kind.json=4")
done
missing=()
for f in chain_mm_112nodes.txt ffnn_192nodes.txt transformer_block_215nodes.txt \
  full_transformer_layer_261nodes.txt 8gpu_transformer_block.txt 8gpu_full_transformer.txt; do
  path="$data_dir/doppler-graphs/$f"
  if [[ -f "$path" ]]; then
    devices=4
    [[ "$f" == 8gpu_* ]] && devices=8
    graphs+=("${f%.txt}=$path=$devices")
  else
    missing+=("$f")
  fi
done
python3 - "$doppler" "${graphs[@]}" <<'PY'
import json, subprocess, sys
doppler, cases = sys.argv[1], sys.argv[2:]
methods = ["critical-path", "heft", "cpop", "etf", "local-search"]
disciplines = ["fifo", "priority", "sequence"]
print("| graph | devices | method | planned | fifo | priority | sequence | best |")
print("|---|---:|---|---:|---:|---:|---:|---|")
for case in cases:
    name, path, devices = case.split("=")
    for method in methods:
        row, planned = {}, None
        for d in disciplines:
            out = subprocess.run([doppler, "place", "-g", path, "-d", devices, "-m", method,
                                  "--discipline", d, "--json", "--no-record"],
                                 check=True, capture_output=True, text=True).stdout
            j = json.loads(out)
            row[d] = j["makespan_us"]
            planned = j["planned_makespan_us"]
        best = min(row.values())
        winners = "/".join(d for d in disciplines if row[d] <= best * (1 + 1e-9))
        plan = "%.0f" % planned if planned is not None else "-"
        print("| %s | %s | %s | %s | %s | %s |" % (
            name, devices, method, plan,
            " | ".join("%.0f" % row[d] for d in disciplines), winners))
PY
if ((${#missing[@]})); then
  echo
  echo "Not found in $data_dir/doppler-graphs/: ${missing[*]} (set DOPPLER_DATA_DIR)."
fi
