#!/usr/bin/env bash
# The test command: installs dependencies, builds every test, example and
# benchmark (plus an ASan+UBSan build of the tests), and runs the tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release -DTENSORLIB_SANITIZE=ON
cmake --build build -j"$(nproc)"
ctest --test-dir build --output-on-failure -j"$(nproc)"
