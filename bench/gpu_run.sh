#!/usr/bin/env bash
# One lease of a GPU machine (see bench/RESULTS.md): the CUDA tests, a
# memcheck of the kernels' edge cases, then cuda_bench and PyTorch's figures
# for the same operations. Binaries are built beforehand on a machine with
# nvcc (`cmake --build build-gpu --target test_parity test_cuda_runtime
# test_parity_autograd test_parity_double cuda_bench`) and packed with
# libbenchmark into $BIN by bench/gpu_pack.sh (xz-compressed: what a device
# call carries is limited to 64 MiB); they are unpacked here. A binary that is
# missing is skipped.
#
# Usage: BIN=.devbin OUT=/some/dir bash bench/gpu_run.sh [tests|memcheck|bench|all]
#
# A device call is limited to 10 minutes, so each phase fits one call. Each
# test case runs in a process of its own under a time limit: a kernel that
# faults leaves a sticky error that would fail every later case of the same
# process, and a hang would spend the whole call. `tests` ends with a summary
# line per case (PASS, FAIL rc, TIMEOUT, or FAIL nomatch) in $OUT/summary.txt.
# A device call brings back at most 8 files from $OUT, so the per-case logs
# come back as one archive, $OUT/logs.tar.gz.
set -uo pipefail
BIN="${BIN:-.devbin}"
OUT="${OUT:-/tmp/gpu_run}"
PHASE="${1:-all}"
CASE_LIMIT="${CASE_LIMIT:-120}"
TEST_BINARIES="test_cuda_runtime test_parity test_parity_autograd test_parity_double"
case "$PHASE" in
  tests | memcheck | bench | all) ;;
  *) echo "gpu_run.sh: unknown phase '$PHASE' (tests, memcheck, bench or all)" >&2; exit 2 ;;
esac
mkdir -p "$OUT"
unxz_to() {  # $1: .xz file, $2: destination; python's lzma where xz is missing
  if command -v xz > /dev/null; then
    xz -dc "$1" > "$2"
  else
    python3 -c 'import lzma, shutil, sys; shutil.copyfileobj(lzma.open(sys.argv[1]), open(sys.argv[2], "wb"))' "$1" "$2"
  fi
}
if compgen -G "$BIN/*.xz" > /dev/null; then
  unpacked="$(mktemp -d)"
  for f in "$BIN"/*.xz; do
    unxz_to "$f" "$unpacked/$(basename "${f%.xz}")" || { echo "gpu_run.sh: cannot unpack $f" >&2; exit 1; }
  done
  chmod +x "$unpacked"/*
  BIN="$unpacked"
fi
BIN="$(CDPATH='' cd "$BIN" 2> /dev/null && pwd || echo "$BIN")"
export LD_LIBRARY_PATH="$BIN:/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PATH="$PATH:/usr/local/cuda/bin"  # compute-sanitizer
# The tests read fixtures from the path they were built at.
[ -e /work/main ] || { mkdir -p /work && ln -s "$PWD" /work/main; }

run_cases() {  # $1: test binary; every case alone, summary lines appended
  local t="$1" name filter rc n=0
  [ -x "$BIN/$t" ] || { echo "SKIP    $t: not in $BIN" | tee -a "$OUT/summary.txt"; return; }
  mkdir -p "$OUT/$t"
  # --list-test-cases prints a header, a rule, the names, then a rule and counts.
  if ! "$BIN/$t" --list-test-cases --no-colors=true > "$OUT/$t/list.txt" 2>&1; then
    echo "FAIL list  $t: could not list its cases (log $t/list.txt)" | tee -a "$OUT/summary.txt"
    return
  fi
  sed -n '3,$p' "$OUT/$t/list.txt" | sed '/^=====/,$d' > "$OUT/$t/cases.txt"
  [ -s "$OUT/$t/cases.txt" ] || echo "FAIL list  $t: no cases listed" | tee -a "$OUT/summary.txt"
  while IFS= read -r name; do
    n=$((n + 1))
    # doctest reads "\\" as "\" and splits filters at unescaped commas.
    filter="${name//\\/\\\\}"
    filter="${filter//,/\\,}"
    timeout -k 5 "$CASE_LIMIT" "$BIN/$t" --no-colors=true "--test-case=$filter" > "$OUT/$t/case$n.txt" 2>&1
    rc=$?
    # A filter that matched no case (or several) is a failure of this script.
    [ $rc = 0 ] && ! grep -Eq 'test cases: +1 \| +1 passed' "$OUT/$t/case$n.txt" && rc=nomatch
    case $rc in
      0) echo "PASS    $t: $name" ;;
      124 | 137) echo "TIMEOUT $t: $name (> ${CASE_LIMIT}s or killed, log $t/case$n.txt)" ;;
      *) echo "FAIL $rc  $t: $name (log $t/case$n.txt)" ;;
    esac | tee -a "$OUT/summary.txt"
  done < "$OUT/$t/cases.txt"
}

if [ "$PHASE" = tests ] || [ "$PHASE" = all ]; then
  : > "$OUT/summary.txt"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.memory --format=csv | tee "$OUT/gpu.txt"
  for t in $TEST_BINARIES; do run_cases "$t"; done
  echo "cases: $(grep -c "^PASS" "$OUT/summary.txt") passed, $(grep -Ec "^(FAIL|TIMEOUT)" "$OUT/summary.txt") failed"
fi

if [ "$PHASE" = memcheck ] || [ "$PHASE" = all ]; then
  if command -v compute-sanitizer > /dev/null; then
    memcheck() {  # $1: time limit, $2: log name, then the command
      local limit="$1" log="$2"
      shift 2
      timeout -k 5 "$limit" compute-sanitizer --tool memcheck --error-exitcode 1 "$@" > "$OUT/$log.txt" 2>&1
      echo "$log rc=$?"
      tail -3 "$OUT/$log.txt"
    }
    # Limits that sum to less than one 10-minute call.
    memcheck 300 memcheck "$BIN/test_parity" \
      -tc='*row path*,*reductions*,*multi-tensor*,*at once*,*softmax*,*cat*,*sort*,*scan*,*cum*,*plan cache*'
    memcheck 60 memcheck_runtime "$BIN/test_cuda_runtime" -tc='*pinned*'
    memcheck 180 memcheck_autograd "$BIN/test_parity_autograd"
  else
    echo "memcheck: compute-sanitizer not found, skipped"
  fi
fi

if [ "$PHASE" = bench ] || [ "$PHASE" = all ]; then
  timeout -k 5 400 "$BIN/cuda_bench" --benchmark_counters_tabular=true 2>&1 | tee "$OUT/cuda_bench.txt"
  PYTHONUNBUFFERED=1 timeout -k 5 180 python3 bench/cuda_torch.py 2>&1 | tee "$OUT/cuda_torch.txt"
fi

# The case logs (one folder per test binary, made by run_cases) travel back
# as one archive; nothing else in $OUT is touched.
logs=()
for t in $TEST_BINARIES; do [ -d "$OUT/$t" ] && logs+=("$t"); done
if [ ${#logs[@]} -gt 0 ]; then
  tar -C "$OUT" -czf "$OUT/logs.tar.gz" "${logs[@]}" && (cd "$OUT" && rm -rf "${logs[@]}")
fi
