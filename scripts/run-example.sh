#!/usr/bin/env bash
# The main job: installs dependencies, builds the example program and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build --target basics -j"$(nproc)"
./build/examples/basics
