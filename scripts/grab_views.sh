#!/usr/bin/env bash
# Opens Doppler Studio offscreen on the demo, waits for the Graphviz layout and the placement, and
# saves PNGs of every view and of the whole window: as opened, with a selection and a time range,
# after a tuner change, as clean exports, with the shortcut overlay, in the dark theme, in
# presentation mode and after a bad file. Usage: scripts/grab_views.sh [DIR] (default
# build/release/grabs). docs/screenshots/ holds a reviewed set.
set -euo pipefail
cd "$(dirname "$0")/.."
out="${1:-build/release/grabs}"
scripts/install-deps.sh
scripts/build.sh release doppler-studio
QT_QPA_PLATFORM=offscreen build/release/app/studio/doppler-studio --grab "$out" 2> >(grep -v propagateSizeHints >&2)
echo "Saved in $out"
