#!/usr/bin/env bash
# Checks the layer map of the README ("Which folder may use which"): a folder may include its own
# headers and those of the folders below it, never one above it. Prints each include that points
# up (file:line, and the two folders) and fails; CTest runs it (tests/CMakeLists.txt).
set -euo pipefail
cd "$(dirname "$0")/.."

# Bottom to top, one rank per line; folders on one line share a rank and may not include each
# other. core/<x> and app/<x> are folders of their own, every other top folder is one. Keep this
# list and the README's map the same.
layers='
core/common
core/graph
core/sim
core/exec core/heuristics
core/pipeline core/policy
core/train
core/fleet
core/torch_module
sessions
views
resources
app/cli app/studio
'

sources() {  # the tracked sources, or every source outside a git checkout (a tarball)
  if git rev-parse --is-inside-work-tree >/dev/null 2>&1; then
    git ls-files -z 'core/*' 'sessions/*' 'views/*' 'resources/*' 'app/*'
  else
    find core sessions views resources app -type f -print0
  fi
}

sources | grep -z -E '\.(h|cpp|cu|cuh)$' | xargs -0 awk -v layers="$layers" '
    function folder(p,   parts, n) {
      n = split(p, parts, "/")
      if ((parts[1] == "core" || parts[1] == "app") && n > 2) return parts[1] "/" parts[2]
      return parts[1]
    }
    BEGIN {
      n = split(layers, lines, "\n")
      r = 0
      for (i = 1; i <= n; ++i) {
        if (lines[i] == "") continue
        m = split(lines[i], names, " ")
        for (j = 1; j <= m; ++j) rank[names[j]] = r
        ++r
      }
    }
    /^[ \t]*#[ \t]*include[ \t]*"/ {
      inc = $0
      sub(/^[^"]*"/, "", inc)
      sub(/".*/, "", inc)
      from = folder(FILENAME)
      to = folder(inc)
      if (!(from in rank) || !(to in rank) || from == to) next
      if (rank[to] >= rank[from]) {
        printf "%s:%d: %s includes %s, from %s, which is not below it\n", FILENAME, FNR, from, inc, to > "/dev/stderr"
        bad = 1
      }
    }
    END { exit bad }
  ' || {
  echo "check-layers: includes point up the layer map (README, \"Which folder may use which\")" >&2
  exit 1
}
echo "check-layers: every include points down the layer map"
