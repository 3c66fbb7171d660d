#!/usr/bin/env bash
# Builds the release preset and makes the Debian package, doppler-studio_<version>_amd64.deb, in
# build/release/, then checks it with lintian. Installs the packaging tools when missing
# (dpkg-dev for dpkg-shlibdeps, lintian, fakeroot). Install it with `sudo apt install ./<file>`.
set -euo pipefail
cd "$(dirname "$0")/.."
DOPPLER_PACKAGE_DEPS=1 scripts/install-deps.sh
scripts/build.sh release
(cd build/release && cpack -G DEB)
deb=$(ls -t build/release/doppler-studio_*_amd64.deb | head -1)
echo "package: $deb ($(du -h "$deb" | cut -f1))"
lintian --fail-on error "$deb"
