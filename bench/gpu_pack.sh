#!/usr/bin/env bash
# Packs the GPU binaries of a CUDA build for a device call (bench/gpu_run.sh).
# What travels to the GPU machine is limited to 64 MiB, source tree included,
# and the binaries alone are about 140 MB (test_parity is 65 MB), so each one
# goes xz-compressed (about 8x smaller) with the libbenchmark it links;
# gpu_run.sh unpacks them on the GPU machine.
#
# Usage: bash bench/gpu_pack.sh BUILD_DIR [DEST]   (DEST defaults to .devbin)
# Build first, for example:
#   cmake --build BUILD_DIR --target test_cuda_runtime test_parity \
#     test_parity_autograd test_parity_double cuda_bench
# then call the device with carry [".devbin"] and
#   BIN=.devbin OUT=$OUT bash bench/gpu_run.sh tests   (then memcheck, bench)
set -euo pipefail
BUILD="${1:?usage: gpu_pack.sh BUILD_DIR [DEST]}"
DEST="${2:-.devbin}"
LIMIT=$((48 * 1024 * 1024))  # leaves 16 MiB for the source tree
BINARIES="tests/test_cuda_runtime tests/test_parity tests/test_parity_autograd
  tests/test_parity_double bench/cuda_bench"

for b in $BINARIES; do
  [ -x "$BUILD/$b" ] || { echo "gpu_pack.sh: $BUILD/$b is not built" >&2; exit 1; }
done
libbenchmark="$(ldd "$BUILD/bench/cuda_bench" | awk '/libbenchmark/ { print $3; exit }')"
[ -f "$libbenchmark" ] || { echo "gpu_pack.sh: libbenchmark of cuda_bench not found ('$libbenchmark')" >&2; exit 1; }

rm -rf "$DEST"
mkdir -p "$DEST"
for b in $BINARIES "$libbenchmark"; do
  case "$b" in /*) src="$b" ;; *) src="$BUILD/$b" ;; esac
  xz -T0 -6 -c "$src" > "$DEST/$(basename "$b").xz"
done
total="$(du -cb "$DEST" | tail -1 | cut -f1)"
ls -l "$DEST"
echo "gpu_pack.sh: $total bytes in $DEST (limit $LIMIT)"
[ "$total" -le "$LIMIT" ] || { echo "gpu_pack.sh: too large to carry" >&2; exit 1; }
