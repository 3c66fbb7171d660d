#!/usr/bin/env bash
# Installs the Debian packages Doppler Studio needs, only those that are missing.
# Idempotent: a second run installs nothing and touches no package list.
set -euo pipefail

packages=(
  build-essential cmake ninja-build ccache pkg-config
  # .ci/run checks formatting against .clang-format (scripts/check-format.sh).
  clang-format
  nlohmann-json3-dev libcli11-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  # The run store (sessions/): SQLite, and OpenSSL's libcrypto for SHA-256 content hashes.
  libsqlite3-dev libssl-dev
  # ONNX import (core/graph): the ONNX protobuf classes and shape inference.
  libonnx-dev libprotobuf-dev
  # LibTorch (core/policy, core/train) and OpenBLAS: without libopenblas0-pthread, Debian's
  # LibTorch runs matrix products on the generic reference BLAS (~20x slower).
  libtorch-dev libopenblas0-pthread
  # Placing with a policy without LibTorch (core/policy/network_forward.cpp): CBLAS's header and
  # libblas.so, which is OpenBLAS once libopenblas0-pthread is installed.
  libblas-dev
  # core/train/distributed.cpp: the Gloo headers that c10d's ProcessGroupGloo.hpp includes.
  libgloo-dev
  # core/fleet: LEMON's network simplex for exact optimal transport (core/fleet/ot), and CBC for
  # the per-slot MILP baseline a later fleet part adds.
  liblemon-dev coinor-libcbc-dev
  # The studio (views/, app/studio): Qt 6 Widgets, Charts (needs the OpenGL dev package), Svg and
  # Test; Graphviz for graph layout; a font so offscreen grabs and tests render text.
  qt6-base-dev qt6-charts-dev qt6-svg-dev libqt6opengl6-dev libgraphviz-dev graphviz
  fonts-dejavu-core
  # Validators for resources/ (CTest resources.desktop_file and resources.metainfo).
  desktop-file-utils appstream
  # scripts/install-check.sh: whether an installed program looks into the checkout.
  strace
)
# The fuzz targets need clang with libFuzzer (scripts/fuzz.sh asks for them).
if [[ "${DOPPLER_FUZZ_DEPS:-0}" == 1 ]]; then
  packages+=(clang libclang-rt-14-dev)
fi

# scripts/package.sh: the Debian package's library dependencies (dpkg-shlibdeps) and its check.
if [[ "${DOPPLER_PACKAGE_DEPS:-0}" == 1 ]]; then
  packages+=(dpkg-dev lintian fakeroot file)
fi

# scripts/export_onnx.py exports PyTorch models to ONNX (Debian's PyTorch is CPU-only, ~400 MB).
if [[ "${DOPPLER_ONNX_EXPORT:-0}" == 1 ]]; then
  packages+=(python3-torch python3-onnx)
fi

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]} == 0)); then
  exit 0
fi

echo "Installing: ${missing[*]}" >&2
SUDO=""
if [[ $(id -u) != 0 ]]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
