#!/usr/bin/env bash
# Installs a build into a temporary prefix, moves the build folder away, and runs the installed
# programs from there: `doppler demo`, `doppler place --method doppler` and `doppler-studio
# --grab`. Under strace, it fails if an installed program so much as looks at a path in this
# checkout (the source tree, the build tree inside it): an installed program finds what it ships
# relative to itself. scripts/test.sh runs it after the tests. Usage: scripts/install-check.sh
# [build folder, default build/release].
set -euo pipefail
cd "$(dirname "$0")/.."
src=$(pwd -P)
build=$(realpath "${1:-build/release}")
[[ -f "$build/CMakeCache.txt" ]] || { echo "install-check: $build is not a build folder" >&2; exit 2; }
work=$(mktemp -d)
prefix=$work/prefix
moved="$build.moved-by-install-check"
restore() {
  if [[ -d "$moved" ]]; then mv "$moved" "$build"; fi
  rm -rf "$work"
}
trap restore EXIT

cmake --install "$build" --prefix "$prefix" >"$work/install.log"
mv "$build" "$moved"

# Every program runs from an empty folder with its own home, so nothing is found by accident.
mkdir -p "$work/run" "$work/home"
cd "$work/run"
traced() {  # traced NAME PROGRAM ARGS...: runs it under strace, failing on its exit status
  local name=$1
  shift
  HOME=$work/home XDG_DATA_HOME=$work/home/data XDG_CONFIG_HOME=$work/home/config \
    DOPPLER_DATA_DIR=$work/no-paper-data QT_QPA_PLATFORM=offscreen \
    strace -f -qq --seccomp-bpf -e trace=%file -o "$work/$name.strace" "$@" >"$work/$name.out" 2>"$work/$name.err" || {
    echo "install-check: $name failed (exit $?):" >&2
    tail -5 "$work/$name.err" >&2
    exit 1
  }
}
traced demo "$prefix/bin/doppler" demo
traced generate "$prefix/bin/doppler" graph generate llama-block -o "$work/block.json"
traced place "$prefix/bin/doppler" place -g "$work/block.json" -d 4 --method doppler --json --no-record
grep -q '"makespan_us"' "$work/place.out" || { echo "install-check: place printed no makespan" >&2; exit 1; }
if [[ -x "$prefix/bin/doppler-studio" ]]; then
  traced studio "$prefix/bin/doppler-studio" --demo --fresh --grab "$work/grabs"
  count=$(find "$work/grabs" -name '*.png' | wc -l)
  ((count > 0)) || { echo "install-check: the studio saved no picture" >&2; exit 1; }
fi

looked=$(grep -h -F "\"$src/" "$work"/*.strace | head -5 || true)
if [[ -n "$looked" ]]; then
  echo "install-check: an installed program looked into the checkout ($src):" >&2
  echo "$looked" >&2
  exit 1
fi
echo "install-check: doppler demo, place --method doppler$([[ -x "$prefix/bin/doppler-studio" ]] && echo " and doppler-studio --grab ($count pictures)") ran from $prefix with the build folder moved away; none looked into $src"
