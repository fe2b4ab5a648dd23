#!/usr/bin/env bash
# The main job: installs dependencies (the Fashion-MNIST data among them),
# builds examples/fashion_mnist.cpp and trains its MLP on the CPU.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release
cmake --build build --target fashion_mnist -j"$(nproc)"
./build/examples/fashion_mnist --epochs 5
