#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset), runs every test with CTest, then
# installs the build into a temporary prefix and runs the installed programs from it
# (scripts/install-check.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
(cd build/release && ctest --output-on-failure -j2 --timeout 900)
scripts/install-check.sh build/release
