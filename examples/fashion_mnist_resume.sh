#!/usr/bin/env bash
# Resuming from a --checkpoint file continues training as if uninterrupted:
# two epochs straight and one epoch + checkpoint + --resume for the second
# must print the same second epoch (loss and test accuracy; the time aside).
# Usage: fashion_mnist_resume.sh FASHION_MNIST_BINARY SCRATCH_DIR
set -euo pipefail
bin=$1
dir=$2
mkdir -p "$dir"
common=(--epochs 2 --train-images 10000)
second_epoch() { grep '^epoch 2 ' | sed 's/: [0-9.]* s,/:/'; }
straight=$("$bin" "${common[@]}" | second_epoch)
"$bin" --epochs 1 --train-images 10000 --checkpoint "$dir/fashion_mnist_ckpt.pt" > /dev/null
resumed=$("$bin" "${common[@]}" --resume "$dir/fashion_mnist_ckpt.pt" | second_epoch)
echo "straight: $straight"
echo "resumed:  $resumed"
[[ -n "$straight" && "$straight" == "$resumed" ]]
