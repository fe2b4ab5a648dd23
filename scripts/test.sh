#!/usr/bin/env bash
# The test command. Installs dependencies, then:
#  0. clang-format: every C++ file must already be formatted (.clang-format).
#  1. g++ 12, Release, -march=native: every test, example and benchmark; runs the tests.
#  2. clang 14 with ASan+UBSan, baseline x86-64 (SSE2 packets): the tests again.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh clang libclang-rt-14-dev clang-format
git ls-files -z '*.hpp' '*.cpp' '*.cu' '*.cuh' | xargs -0 clang-format --dry-run --Werror
jobs="$(nproc)"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER=g++
cmake --build build -j"$jobs"
ctest --test-dir build --output-on-failure -j"$jobs"
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_COMPILER=clang++ -DTENSORLIB_SANITIZE=ON \
      -DTENSORLIB_BUILD_BENCHMARKS=OFF -DTENSORLIB_BUILD_EXAMPLES=OFF
cmake --build build-asan -j"$jobs"
ctest --test-dir build-asan --output-on-failure -j"$jobs"
