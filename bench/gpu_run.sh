#!/usr/bin/env bash
# One lease of a GPU machine (see bench/RESULTS.md): the CUDA tests, a
# memcheck of the kernels' edge cases, then cuda_bench and PyTorch's figures
# for the same operations, in one run. Binaries are built beforehand on a
# machine with nvcc (`cmake --build build-gpu --target test_parity
# test_cuda_runtime test_parity_autograd test_parity_double cuda_bench`) and copied with
# libbenchmark into $BIN (a binary that is missing is skipped).
# Usage: BIN=.devbin OUT=/some/dir bash bench/gpu_run.sh
set -uo pipefail
BIN="${BIN:-.devbin}"
OUT="${OUT:-/tmp/gpu_run}"
mkdir -p "$OUT"
export LD_LIBRARY_PATH="$PWD/$BIN:/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}"
# The tests read fixtures from the path they were built at.
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv | tee "$OUT/gpu.txt"
for t in test_cuda_runtime test_parity test_parity_autograd test_parity_double; do
  [ -x "$BIN/$t" ] || { echo "$t: not in $BIN, skipped"; continue; }
  "$BIN/$t" 2>&1 | tee "$OUT/$t.txt" | tail -3
done
if command -v compute-sanitizer > /dev/null; then
  compute-sanitizer --tool memcheck --error-exitcode 1 "$BIN/test_parity" \
    -tc='*row path*,*reductions*,*multi-tensor*,*at once*,*softmax*,*cat*' > "$OUT/memcheck.txt" 2>&1
  echo "memcheck rc=$?"; tail -3 "$OUT/memcheck.txt"
  compute-sanitizer --tool memcheck --error-exitcode 1 "$BIN/test_cuda_runtime" -tc='*pinned*' \
    > "$OUT/memcheck_runtime.txt" 2>&1
  echo "memcheck runtime rc=$?"; tail -3 "$OUT/memcheck_runtime.txt"
  compute-sanitizer --tool memcheck --error-exitcode 1 "$BIN/test_parity_autograd" > "$OUT/memcheck_autograd.txt" 2>&1
  echo "memcheck autograd rc=$?"; tail -3 "$OUT/memcheck_autograd.txt"
fi
"$BIN/cuda_bench" --benchmark_counters_tabular=true 2>&1 | tee "$OUT/cuda_bench.txt"
PYTHONUNBUFFERED=1 python3 bench/cuda_torch.py 2>&1 | tee "$OUT/cuda_torch.txt"
