#!/usr/bin/env bash
# Reproduces the dual policy's note: results table against critical-path, HEFT, local-search-5000
# and the lower bound on the four paper graphs (4 devices, reference cost model), the dual-policy
# ablation, zero-shot transfer from LLAMA-BLOCK, the training curve, and the speed figures.
# Single-threaded LibTorch per training. With two or more cores the graphs are split over two
# processes (CHAINMM + LLAMA-LAYER, FFNN + LLAMA-BLOCK), each printing its own tables; 34 minutes
# on the 2-core development machine.
#   scripts/experiments/policy_experiments.sh [build-dir] [extra policy_experiments options]
# Results: stdout (markdown) and <build-dir>/policy_experiments*.json.
# The paper graphs are not in the repository: they are read from $DOPPLER_DATA_DIR/doppler-graphs/
# (default ../shared/data, as the build's DOPPLER_DEFAULT_DATA_DIR); without them the script says
# so and exits with status 0.
set -euo pipefail
cd "$(dirname "$0")/../.."
build="${1:-build/release}"
shift || true
data_dir="${DOPPLER_DATA_DIR:-../shared/data}"
missing=()
for f in chain_mm_112nodes.txt ffnn_192nodes.txt transformer_block_215nodes.txt \
  full_transformer_layer_261nodes.txt 8gpu_transformer_block.txt 8gpu_full_transformer.txt; do
  [[ -f "$data_dir/doppler-graphs/$f" ]] || missing+=("doppler-graphs/$f")
done
if ((${#missing[@]})); then
  list=$(printf '%s, ' "${missing[@]}")
  echo "policy_experiments.sh: the Doppler paper graphs (${list%, }) were not found in $data_dir:" \
    "set DOPPLER_DATA_DIR=DIR, where DIR/doppler-graphs/ holds the files of" \
    "github.com/xinyuyao/Doppler's compute_graph/" >&2
  exit 0
fi
DOPPLER_DATA_DIR=$(cd "$data_dir" && pwd)
export DOPPLER_DATA_DIR
if [[ ! -d "$build" ]]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOPPLER_BENCHMARKS=ON >/dev/null
fi
nice ninja -C "$build" -j1 policy_experiments policy_bench doppler >/dev/null

echo "## Speed (LLAMA-LAYER, 229 nodes, 4 devices; ms per episode, 1 = threads, 4 = episodes per update)"
echo
echo '```'
"$build/bench/policy_bench" --benchmark_min_time=2 --benchmark_filter='BM_(GreedyEpisode/1|TrainEpisode(Imitation|Sim)/1/)' 2>/dev/null |
  grep -E '^BM_|^Benchmark'
echo '```'
echo
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
if (($(nproc) >= 2)); then
  "$build/bench/policy_experiments" --seeds 3 --graphs CHAINMM,LLAMA-LAYER \
    --json "$build/policy_experiments_a.json" "$@" >"$tmp/a.md" &
  "$build/bench/policy_experiments" --seeds 3 --graphs FFNN,LLAMA-BLOCK \
    --json "$build/policy_experiments_b.json" "$@" >"$tmp/b.md"
  wait
  echo "# CHAINMM and LLAMA-LAYER"
  echo
  cat "$tmp/a.md"
  echo "# FFNN and LLAMA-BLOCK (and zero-shot transfer from LLAMA-BLOCK)"
  echo
  cat "$tmp/b.md"
else
  "$build/bench/policy_experiments" --seeds 3 --json "$build/policy_experiments.json" "$@"
fi

# Stage I + II on CHAINMM through the command line, timed end to end.
graph="$DOPPLER_DATA_DIR/doppler-graphs/chain_mm_112nodes.txt"
start=$(date +%s.%N)
"$build/app/doppler" train --graph "$graph" --devices 4 --stage imitation --out "$tmp/il.pt" --no-record >/dev/null
"$build/app/doppler" train --graph "$graph" --devices 4 --stage sim --episodes 12000 --from "$tmp/il.pt" \
  --out "$tmp/sim.pt" --no-record >/dev/null
end=$(date +%s.%N)
echo "## CHAINMM stage I (500 episodes) + stage II (12000 episodes) through \`doppler train\`: $(echo "$end - $start" | bc) s"
"$build/app/doppler" eval --policy "$tmp/sim.pt" --graph "$graph" --devices 4 --json --no-record |
  python3 -c 'import json,sys; j=json.load(sys.stdin); print("greedy makespan %.0f us, %.3f x lower bound" % (j["makespan_us"], j["makespan_us"]/j["lower_bound_us"]))'
