#!/usr/bin/env bash
# The studio as a user's screen sees it: on an X server of the given size (Xvfb, no window
# manager), with a fresh home, starts doppler-studio (optionally with --present or other
# arguments), waits for it to settle, and prints the least size the window asks the window
# manager for (WM_NORMAL_HINTS), the window's size, and saves a screenshot of the screen.
# Needs xvfb, x11-utils, x11-apps and netpbm (apt-get install xvfb x11-utils x11-apps netpbm).
#   scripts/experiments/xvfb_window_fit.sh 1366x768 out.png [studio arguments...]
set -euo pipefail
cd "$(dirname "$0")/../.."
size="${1:?screen size, e.g. 1366x768}"
out="${2:?screenshot file (.png)}"
shift 2
studio=build/release/app/studio/doppler-studio
home=$(mktemp -d)
display=:$((90 + RANDOM % 100))
Xvfb "$display" -screen 0 "${size}x24" -nolisten tcp >/dev/null 2>&1 &
xvfb=$!
trap 'kill "$studio_pid" "$xvfb" 2>/dev/null || true; rm -rf "$home"' EXIT
sleep 1
HOME="$home" XDG_CONFIG_HOME="$home/.config" XDG_DATA_HOME="$home/.local/share" \
  DISPLAY="$display" QT_QPA_PLATFORM=xcb "$studio" "$@" >/dev/null 2>&1 &
studio_pid=$!
# The first start copies the demo session and lays the graph out: a few seconds.
for _ in $(seq 1 60); do
  id=$(DISPLAY="$display" xwininfo -root -tree 2>/dev/null |
    awk '/"doppler-studio"/ {print $1; exit}')
  [[ -n "${id:-}" ]] && break
  sleep 0.5
done
[[ -n "${id:-}" ]] || { echo "no studio window on $display" >&2; exit 1; }
sleep 8
echo "screen $size"
DISPLAY="$display" xprop -id "$id" WM_NORMAL_HINTS | sed -n 's/^\s*program specified minimum size: /least size asked for: /p'
DISPLAY="$display" xwininfo -id "$id" | awk '/Width:/ {w=$2} /Height:/ {h=$2} END {print "window size: " w "x" h}'
DISPLAY="$display" xwd -root -silent | xwdtopnm 2>/dev/null | pnmtopng > "$out"
echo "screenshot $out"
