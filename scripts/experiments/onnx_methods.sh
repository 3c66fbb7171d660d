#!/usr/bin/env bash
# Places an imported ONNX model with every method and prints a table: makespan, ratio to the lower
# bound, and wall time. Usage:
#   scripts/experiments/onnx_methods.sh MODEL.onnx DEVICES [--dim NAME=VALUE ...]
#   scripts/experiments/onnx_methods.sh block.onnx 4xP100-PCIe --dim batch=8 --dim seq=512
set -euo pipefail
cd "$(dirname "$0")/../.."
model="$1"
devices="$2"
shift 2
doppler="${DOPPLER:-build/release/app/doppler}"
tmp=$(mktemp)
trap 'rm -f "$tmp"' EXIT
printf '%-15s %14s %8s %9s\n' method makespan_us ratio wall_s
for method in $("$doppler" methods | grep -v '^ '); do
  start=$(date +%s.%N)
  "$doppler" place -g "$model" "$@" -d "$devices" --method "$method" --json --no-record >"$tmp"
  end=$(date +%s.%N)
  python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
print("%-15s %14.1f %8.3f %9.2f" % (sys.argv[2], j["makespan_us"], j["makespan_us"] / j["lower_bound_us"],
                                   float(sys.argv[4]) - float(sys.argv[3])))' "$tmp" "$method" "$start" "$end"
done
