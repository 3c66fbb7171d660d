#!/usr/bin/env bash
# Builds the libFuzzer targets (clang, ASan+UBSan) and runs each for a bounded time.
# Usage: scripts/fuzz.sh [seconds per target, default 60]. Findings land in build/fuzz/findings/.
# DOPPLER_FUZZ_RUNS=N runs each target for N inputs instead (the seconds then cap each run).
set -euo pipefail
cd "$(dirname "$0")/.."
secs="${1:-60}"
DOPPLER_FUZZ_DEPS=1 scripts/install-deps.sh
out=build/fuzz/work
mkdir -p "$out" build/fuzz/findings
# Seed corpora: the repository's own text graphs (tests/data, malformed ones included), the paper
# graphs when the data folder has them ($DOPPLER_DATA_DIR, else ../shared/data), and the formats'
# own examples; for the fleet, the shipped topologies and the first lines of the shipped traces
# (fuzz_fleet_world reads a topology when the first byte is even, a trace when it is odd: "0" and
# "1" prefix the seeds) and small transport problems.
# DOPPLER_FUZZ_TARGETS picks some (e.g. "session fleet_world"); the seeds need make_onnx_model
# and doppler itself.
targets="${DOPPLER_FUZZ_TARGETS:-graph_json doppler_text device_set assignment fleet_ot fleet_world fleet_events onnx policy_weights session}"
wants() { [[ " $targets " == *" $1 "* ]]; }
scripts/build.sh fuzz $(for t in $targets; do printf 'fuzz_%s ' "$t"; done) \
  $(wants onnx && echo make_onnx_model) doppler
for target in graph_json doppler_text device_set assignment fleet_ot fleet_world fleet_events onnx policy_weights session; do
  mkdir -p "$out/corpus_$target"
done
cp tests/data/*.txt "$out/corpus_doppler_text/"
for f in tests/data/malformed/*.txt; do cp "$f" "$out/corpus_doppler_text/malformed_$(basename "$f")"; done
data_dir="${DOPPLER_DATA_DIR:-../shared/data}"
if compgen -G "$data_dir/doppler-graphs/*.txt" >/dev/null; then
  cp "$data_dir"/doppler-graphs/*.txt "$out/corpus_doppler_text/"
else
  echo "note: no paper graphs in $data_dir/doppler-graphs/ (set DOPPLER_DATA_DIR): seeding the text corpus from tests/data only"
fi
cp resources/graphs/*.json "$out/corpus_graph_json/" 2>/dev/null || true
cp resources/devices/*.json "$out/corpus_device_set/" 2>/dev/null || true
echo '{"assignment": {"a": 0, "b": 1, "c": 2}}' >"$out/corpus_assignment/seed1.json"
echo '[0, 1, 2]' >"$out/corpus_assignment/seed2.json"
echo '{"format":"dataflow-graph/1","nodes":[{"id":"a","flops":2e12,"compute_us":[1,2]},{"id":"b"}],"edges":[{"src":"a","dst":"b","bytes":4e8,"transfer_us":3}]}' \
  >"$out/corpus_graph_json/seed.json"
echo '{"format":"device-set/1","devices":[{"name":"g","tflops":9.3,"memory_gb":16},{"tflops":1}],"links":{"bandwidth_gbps":[[0,1],[1,0]],"latency_us":5}}' \
  >"$out/corpus_device_set/seed.json"
for f in resources/data/topologies/*; do
  { printf '0'; cat "$f"; } >"$out/corpus_fleet_world/topology_$(basename "$f")"
done
for f in resources/data/traces/*.csv; do
  { printf '1'; head -n 40 "$f"; } >"$out/corpus_fleet_world/trace_$(basename "$f")"
done
echo '{"a": [0.2, 0.5, 0.3], "b": [0.3, 0.3, 0.4], "cost": [[0, 1, 2], [1, 0, 1], [2, 1, 0]]}' \
  >"$out/corpus_fleet_ot/seed1.json"
echo '{"a": [1, 2], "b": [2.5, 1, 0.5], "cost": [[0.5, 3, 1e3], [0, 2, 7]]}' >"$out/corpus_fleet_ot/seed2.json"
echo '{"a": [1], "b": [4, 0], "cost": [[1, 0]], "note": "unbalanced"}' >"$out/corpus_fleet_ot/seed3.json"
# Fleet specs: the first byte picks the reader (0 spike, 1 outage, 2 week time, 3 profile or part).
printf '\x00B:2:15:3' >"$out/corpus_fleet_events/spike"
printf '\x001:0.5:60:0' >"$out/corpus_fleet_events/spike_index"
printf '\x01C:1:60' >"$out/corpus_fleet_events/outage"
printf '\x02thu 14:00' >"$out/corpus_fleet_events/start"
printf '\x02Sunday 23:59' >"$out/corpus_fleet_events/start_long"
printf '\x03code' >"$out/corpus_fleet_events/profile"
printf '\x03held-out' >"$out/corpus_fleet_events/part"
# Policy weights: a tiny architecture's (tests/data/policies; the shipped one is larger than
# -max_len).
cp tests/data/policies/tiny.weights "$out/corpus_policy_weights/"
# ONNX: small models of each kind (an MLP, a Conv net, transformer blocks with fixed, dynamic and
# external-data shapes).
if wants onnx; then
  make_model=build/fuzz/tests/fuzz/make_onnx_model
  $make_model --mlp --small --out "$out/corpus_onnx/mlp.onnx"
  $make_model --conv --out "$out/corpus_onnx/conv.onnx"
  $make_model --layers 1 --d-model 8 --heads 2 --seq 4 --out "$out/corpus_onnx/block.onnx"
  $make_model --layers 2 --d-model 8 --heads 2 --dynamic --out "$out/corpus_onnx/dynamic.onnx"
  $make_model --layers 1 --d-model 8 --heads 2 --external --out "$out/corpus_onnx/external.onnx"
fi
# Sessions: a small real one (a search with its timeline and curve, a heuristic placement, a
# note) and the same after a second placement, so the stored records are real ones to mutate.
doppler=build/fuzz/app/doppler
rm -f "$out/seed.sqlite"
echo '{"format":"dataflow-graph/1","nodes":[{"id":"a","compute_us":5},{"id":"b","compute_us":7},{"id":"c","compute_us":3}],"edges":[{"src":"a","dst":"b","transfer_us":2},{"src":"a","dst":"c","transfer_us":4}]}' \
  >"$out/seed_graph.json"
$doppler place -g "$out/seed_graph.json" -d 2 -m local-search --budget 50 --db "$out/seed.sqlite" >/dev/null
$doppler place -g "$out/seed_graph.json" -d 2 -m heft --db "$out/seed.sqlite" >/dev/null
$doppler runs note 1 "a seed" --db "$out/seed.sqlite" >/dev/null
cp "$out/seed.sqlite" "$out/corpus_session/seed.sqlite"
cp tests/data/sessions/*.sqlite "$out/corpus_session/"  # findings, kept as regression tests
status=0
for target in $targets; do
  echo "== fuzz_$target for ${secs}s"
  log="$out/fuzz_$target.log"
  max_len=65536
  [ "$target" = session ] && max_len=131072  # a session of two runs is about 100 KiB
  limit=(-max_total_time="$secs")
  [[ -n "${DOPPLER_FUZZ_RUNS:-}" ]] && limit+=(-runs="$DOPPLER_FUZZ_RUNS")
  if ! build/fuzz/tests/fuzz/fuzz_$target "${limit[@]}" -timeout=10 -rss_limit_mb=2048 -max_len=$max_len \
      -artifact_prefix=build/fuzz/findings/ "$out/corpus_$target" >"$log" 2>&1; then
    echo "   FINDING: see $log and build/fuzz/findings/"
    status=1
  fi
  grep -E "^#[0-9]+.*(DONE|pulse)" "$log" | tail -1 || true
  grep -E "Done [0-9]+ runs" "$log" || true
done
exit $status
