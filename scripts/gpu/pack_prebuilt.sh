#!/usr/bin/env bash
# Packs what scripts/gpu/cuda_check.sh needs from a CUDA build made here into one archive, for a
# GPU machine that cannot build the project (no network, none of its -dev packages):
#   doppler, cuda_exec_tests, and the shared libraries they load that are not the C and C++
#   runtimes (SQLite, OpenSSL's libcrypto, protobuf, ONNX, CBC, LAPACK, OpenBLAS, ...).
# The CUDA runtime is linked in statically and cuBLAS is opened from the machine's toolkit, so
# no CUDA library is packed.
#
#   scripts/gpu/pack_prebuilt.sh build/cuda gpu-prebuilt.tar.xz   # about 15 MB
#   PREBUILT=gpu-prebuilt.tar.xz scripts/gpu/cuda_check.sh         # there
set -euo pipefail

build="${1:?usage: pack_prebuilt.sh BUILD_DIR ARCHIVE.tar.xz}"
archive="${2:?usage: pack_prebuilt.sh BUILD_DIR ARCHIVE.tar.xz}"
for f in app/doppler tests/cuda_exec_tests; do
  [[ -x "$build/$f" ]] || { echo "missing $build/$f: build doppler and cuda_exec_tests first" >&2; exit 2; }
done
grep -q 'cuda_kernels' "$build/build.ninja" || { echo "$build was configured without CUDA" >&2; exit 2; }

stage="$(mktemp -d)"
trap 'rm -rf "$stage"' EXIT
mkdir -p "$stage/prebuilt/lib"
cp "$build/app/doppler" "$build/tests/cuda_exec_tests" "$stage/prebuilt/"
# Every library either binary loads, less the C/C++ runtimes the GPU machine has its own of.
ldd "$build/app/doppler" "$build/tests/cuda_exec_tests" |
  awk '/=> \// {print $3}' | sort -u |
  grep -vE '/(libc|libm|libdl|librt|libpthread|libstdc\+\+|libgcc_s|ld-linux[^/]*)\.so' |
  while read -r lib; do cp -L "$lib" "$stage/prebuilt/lib/"; done
git -C "$(dirname "$0")/../.." rev-parse HEAD >"$stage/prebuilt/COMMIT" 2>/dev/null || true
tar -cJf "$archive" -C "$stage" prebuilt
echo "$archive: $(du -h "$archive" | cut -f1) ($(find "$stage/prebuilt/lib" -type f | wc -l) libraries)"
