#!/usr/bin/env bash
# Installs what is missing, builds everything (release preset), and runs every test with CTest.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
scripts/build.sh release
cd build/release
ctest --output-on-failure -j2 --timeout 900
