#!/usr/bin/env bash
# The main job: installs what is missing, builds, and opens Doppler Studio on its demo (a LLaMA
# attention block placed on 4 GPUs: graph, timeline, heuristic tuner) when a display is available
# ($DISPLAY or $WAYLAND_DISPLAY). Without one (a headless box, CI) it runs `doppler demo`: the four
# paper workloads placed with every method on 4 devices, as a comparison table.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
if [[ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]]; then
  scripts/build.sh release doppler-studio
  exec build/release/app/studio/doppler-studio --demo "$@"
fi
scripts/build.sh release doppler
exec build/release/app/doppler demo "$@"
