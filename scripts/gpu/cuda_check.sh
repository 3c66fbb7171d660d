#!/usr/bin/env bash
# The CUDA backend on a machine with an NVIDIA GPU, in one go (docs/exec.md, "CUDA backend"):
#   1. configures a fresh headless build (-DDOPPLER_GUI=OFF -DDOPPLER_TORCH=OFF -DDOPPLER_CUDA=ON),
#   2. builds only what it needs (doppler, cuda_exec_tests),
#   3. runs the CUDA tests (ctest -R cuda): none may skip on a machine with a GPU,
#   4. generates the four paper workloads, places each with critical-path and executes the
#      placement with the CUDA kernels (--repeat 5; outputs checked against one device), and runs
#      the same graph on one device for comparison.
# Everything it writes goes to $OUT when set (else ./cuda-check-<time>): summary.txt, env.txt,
# build.log, ctest.log, results.json and outputs.tar.gz (every graph, placement and exec output).
# About 3-6 minutes on 16 cores, most of it the build. Works from a bare clone (no ../shared).
#
#   scripts/gpu/cuda_check.sh                    # two logical devices per GPU when there is one
#   DEVICES=4 scripts/gpu/cuda_check.sh          # the device set for place and exec (-d)
#   BUILD_DIR=build/gpu scripts/gpu/cuda_check.sh   # reuse (and keep) a build folder
#   JOBS=8 REPEAT=3 scripts/gpu/cuda_check.sh
#   PREBUILT=gpu-prebuilt.tar.xz scripts/gpu/cuda_check.sh   # binaries packed elsewhere
#
# PREBUILT (made by scripts/gpu/pack_prebuilt.sh on a machine that builds the project) skips the
# build where the project's -dev packages are missing: its doppler and cuda_exec_tests run with
# the libraries packed beside them, and the tests run directly (less the CLI ones, whose doppler
# path is compiled in: step 4 runs that CLI). When they do not run here, the script builds.
#
# Exit status: 0 when everything passed; 1 when a step failed (the summary says which); 2 when a
# tool is missing; 3 when the GPU tests skipped (the CUDA runtime sees no GPU: see ctest.log).
# It builds from source, so the machine needs the build dependencies of a headless build
# (scripts/install-deps.sh's packages less Qt and LibTorch) and the CUDA toolkit.
set -uo pipefail

repo="$(cd "$(dirname "$0")/../.." && pwd)"
out="${OUT:-$PWD/cuda-check-$(date +%Y%m%d-%H%M%S)}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
work="$(mktemp -d "${TMPDIR:-/tmp}/doppler-cuda-check.XXXXXX")"
build="${BUILD_DIR:-$work/build}"
jobs="${JOBS:-$(nproc)}"
repeat="${REPEAT:-5}"
summary="$out/summary.txt"
status=0

say() { echo "$*" | tee -a "$summary"; }
fail() {
  say "FAILED: $*"
  ((status != 0)) || status=1
}

: >"$summary"
say "Doppler CUDA check, $(date -u +%Y-%m-%dT%H:%M:%SZ), commit $(git -C "$repo" rev-parse --short HEAD 2>/dev/null || echo '?')"

[[ -d /usr/local/cuda/bin ]] && export PATH="$PATH:/usr/local/cuda/bin"
# cuBLAS is opened at run time by soname: the toolkit's, else the one Python's wheels carry.
if [[ -e /usr/local/cuda/lib64/libcublas.so.13 ]]; then
  export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
elif wheel=$(python3 -c 'import nvidia.cublas as c, os; print(os.path.join(list(c.__path__)[0], "lib"))' 2>/dev/null); then
  export LD_LIBRARY_PATH="$wheel${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
fi

{
  echo "## uname"; uname -a
  echo "## nvidia-smi"; nvidia-smi 2>&1 || echo "(nvidia-smi failed)"
  echo "## nvidia-smi topo -m"; nvidia-smi topo -m 2>&1 || true
  echo "## nvcc"; nvcc --version
  echo "## g++"; g++ --version | head -1
  echo "## cmake"; cmake --version | head -1
  echo "## CUDA_VISIBLE_DEVICES=${CUDA_VISIBLE_DEVICES-<unset>}"
} >"$out/env.txt" 2>&1
gpus=$(nvidia-smi -L 2>/dev/null | grep -c '^GPU' || true)
devices="${DEVICES:-$((gpus >= 2 ? gpus : 2))}"
say "GPUs (nvidia-smi): $gpus; device set for place and exec: -d $devices"

# 1-2. The binaries: packed (PREBUILT) when they run here, else configured and built.
start=$SECONDS
prebuilt=0
if [[ -n "${PREBUILT:-}" ]]; then
  mkdir -p "$work/pre"
  if tar -xJf "$PREBUILT" -C "$work/pre" && LD_LIBRARY_PATH="$work/pre/prebuilt/lib:${LD_LIBRARY_PATH:-}" \
    "$work/pre/prebuilt/doppler" --help >"$out/build.log" 2>&1; then
    export LD_LIBRARY_PATH="$work/pre/prebuilt/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    doppler="$work/pre/prebuilt/doppler" tests="$work/pre/prebuilt/cuda_exec_tests"
    prebuilt=1
    say "binaries: $PREBUILT (commit $(cat "$work/pre/prebuilt/COMMIT" 2>/dev/null || echo '?'))"
  else
    say "the binaries in $PREBUILT do not run here ($(tail -1 "$out/build.log")): building"
  fi
fi
if ((!prebuilt)); then
  for tool in cmake ninja g++ nvcc; do
    command -v "$tool" >/dev/null && continue
    say "missing tool: $tool (the CUDA toolkit for nvcc; scripts/install-deps.sh for the rest)"
    exit 2
  done
  if ! {
    cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DDOPPLER_GUI=OFF \
      -DDOPPLER_TORCH=OFF -DDOPPLER_BENCHMARKS=OFF -DDOPPLER_CUDA=ON &&
      ninja -C "$build" -j"$jobs" doppler cuda_exec_tests
  } >>"$out/build.log" 2>&1; then
    fail "configure or build (build.log)"
    tail -30 "$out/build.log" | tee -a "$summary"
    exit 1
  fi
  doppler="$build/app/doppler" tests="$build/tests/cuda_exec_tests"
  say "build: $((SECONDS - start)) s in $build"
fi

# 3. The CUDA tests.
start=$SECONDS
if ((prebuilt)); then
  "$tests" --gtest_filter='-CudaExecCli.*' >"$out/ctest.log" 2>&1 || fail "cuda_exec_tests (ctest.log)"
  grep -E "^\[  (PASSED|FAILED) " "$out/ctest.log" | tee -a "$summary"
else
  (cd "$build" && ctest -R cuda --output-on-failure --timeout 300) >"$out/ctest.log" 2>&1 ||
    fail "ctest -R cuda (ctest.log)"
  grep -E "tests passed|\(Failed\)|\(Timeout\)" "$out/ctest.log" | tee -a "$summary"
fi
# The WithoutAGpu tests skip on a GPU machine by design; the others skipping means the CUDA
# runtime sees no GPU (a driver older than the toolkit, say): the reason is the skip message.
skipped=$(grep -E '\*\*\*Skipped|^\[  SKIPPED \] Cuda' "$out/ctest.log" | grep -v WithoutAGpu | sort -u)
if ((prebuilt)); then
  count=$(grep -oE '^\[  SKIPPED \] [0-9]+' "$out/ctest.log" | grep -oE '[0-9]+$' || echo 0)
else
  count=$(grep -c '\*\*\*Skipped' "$out/ctest.log")
fi
say "skipped: $count (the WithoutAGpu tests skip where there is a GPU)"
if [[ -n "$skipped" ]]; then
  say "GPU tests skipped ($gpus GPU(s) listed by nvidia-smi):"
  "$tests" --gtest_filter='CudaGpu.EveryKernelIsTimedByCudaEvents' 2>&1 |
    grep -m1 "no CUDA device" | tee -a "$summary"
  status=3
fi
say "tests: $((SECONDS - start)) s"

# 4. The four paper workloads.
graphs="$work/graphs"
mkdir -p "$graphs"
results="$out/results.json"
echo "[" >"$results"
first=1
field() {  # field FILE NAME: a top-level scalar of the (compact) JSON object doppler prints
  grep -oE "\"$2\": ?[^,}]*" "$1" 2>/dev/null | head -1 | sed -E 's/^"[^"]+": ?//; s/^"(.*)"$/\1/'
}
say ""
say "$(printf '%-12s %-8s %14s %14s %14s %8s %s' graph devices measured_us simulated_us one_device_us match size_factor)"
for kind in chainmm ffnn llama-block llama-layer; do
  g="$graphs/$kind.json" p="$graphs/$kind.place.json" x="$graphs/$kind.exec.json"
  one="$graphs/$kind.exec-1.json"
  start=$SECONDS
  if ! "$doppler" graph generate "$kind" -o "$g" 2>"$graphs/$kind.err"; then
    fail "$kind: graph generate ($(cat "$graphs/$kind.err"))"
    continue
  fi
  if ! "$doppler" place -g "$g" -d "$devices" --method critical-path --json --no-record \
    -o "$p" 2>>"$graphs/$kind.err"; then
    fail "$kind: place ($(tail -1 "$graphs/$kind.err"))"
    continue
  fi
  if ! "$doppler" exec -g "$g" -d "$devices" -a "$p" --kernels cuda --repeat "$repeat" --json \
    --no-record -o "$x" 2>>"$graphs/$kind.err"; then
    fail "$kind: exec ($(tail -1 "$graphs/$kind.err"))"
    continue
  fi
  # The same graph, size factor and kernels on one device (no copies), for comparison.
  factor=$(field "$x" size_factor)
  if ! { "$doppler" place -g "$g" -d 1 --method critical-path --json --no-record \
    -o "$graphs/$kind.place-1.json" 2>>"$graphs/$kind.err" &&
    "$doppler" exec -g "$g" -d 1 -a "$graphs/$kind.place-1.json" --kernels cuda \
      --size-factor "$factor" --repeat "$repeat" --no-verify --json --no-record -o "$one" \
      2>>"$graphs/$kind.err"; }; then
    fail "$kind: exec on one device ($(tail -1 "$graphs/$kind.err"))"
  fi
  match=$(field "$x" outputs_match)
  [[ "$match" == true ]] || fail "$kind: outputs_match is $match"
  say "$(printf '%-12s %-8s %14s %14s %14s %8s %s   (%d s)' "$kind" "$devices" \
    "$(field "$x" measured_makespan_us)" "$(field "$x" scaled_simulated_makespan_us)" \
    "$(field "$one" measured_makespan_us 2>/dev/null)" "$match" "$factor" $((SECONDS - start)))"
  ((first)) || echo "," >>"$results"
  first=0
  {
    echo "{\"graph\": \"$kind\", \"devices\": \"$devices\", \"placement\":"
    cat "$p"
    echo ", \"exec\":"
    cat "$x"
    echo ", \"exec_one_device\":"
    if [[ -s "$one" ]]; then cat "$one"; else echo null; fi
    echo "}"
  } >>"$results"
done
echo "]" >>"$results"
x="$graphs/chainmm.exec.json"
if [[ -s "$x" ]]; then
  say ""
  say "where it ran: $(field "$x" note)"
  say "copies between GPUs: $(field "$x" copy_path); $(grep -oE '"gpus": ?\[[^]]*\]' "$x" | head -1)"
fi
tar -czf "$out/outputs.tar.gz" -C "$work" graphs
rm -rf "$work"  # the graphs (now in outputs.tar.gz) and, without BUILD_DIR, the fresh build
say ""
say "status: $status (outputs in $out)"
exit "$status"
