#!/usr/bin/env bash
# The main job: installs what is missing, builds, and runs the demo (the four paper workloads
# placed with every method on 4 devices, as a comparison table).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release doppler
exec build/release/app/doppler demo "$@"
