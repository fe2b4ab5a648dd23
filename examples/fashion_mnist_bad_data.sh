#!/usr/bin/env bash
# examples/fashion_mnist's reader on damaged files: each case must fail with
# exit code 2 and the message given (DESIGN 3.8: a corrupt or truncated file is
# an error, never a crash). Usage: fashion_mnist_bad_data.sh BINARY DATA_DIR
set -euo pipefail
binary="$1" data="$2"
for f in t10k-images-idx3-ubyte.gz t10k-labels-idx1-ubyte.gz; do
  [ -r "$data/$f" ] || { echo "no $data/$f: apt-get install dataset-fashion-mnist"; exit 1; }
done
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
gunzip -c "$data/t10k-images-idx3-ubyte.gz" > "$work/images"
gunzip -c "$data/t10k-labels-idx1-ubyte.gz" > "$work/labels"
# A valid training split of one blank image (label 5), so that each case
# reaches the damaged test split without loading 60000 images.
{ printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x1c\x00\x00\x00\x1c'; head -c 784 /dev/zero; } |
  gzip -c > "$work/train-images-idx3-ubyte.gz"
printf '\x00\x00\x08\x01\x00\x00\x00\x01\x05' | gzip -c > "$work/train-labels-idx1-ubyte.gz"
failures=0

# expect NAME PATTERN [ARGS...]: run on $work and check the exit code and message.
expect() {
  local name="$1" pattern="$2" rc=0 out
  shift 2
  out="$("$binary" --data "$work" "$@" 2>&1)" || rc=$?
  if [ "$rc" -eq 2 ] && grep -q -- "$pattern" <<<"$out"; then
    echo "ok: $name"
  else
    echo "FAILED: $name: exit $rc, output: $out"
    failures=$((failures + 1))
  fi
}
# put IMAGES LABELS: install the test split from the two raw files given.
put() {
  gzip -c "$1" > "$work/t10k-images-idx3-ubyte.gz"
  gzip -c "$2" > "$work/t10k-labels-idx1-ubyte.gz"
}

put "$work/images" "$work/labels"
head -c 100000 "$work/t10k-images-idx3-ubyte.gz" > "$work/cut" && mv "$work/cut" "$work/t10k-images-idx3-ubyte.gz"
expect "truncated gzip stream" "^fashion_mnist: $work/t10k-images-idx3-ubyte.gz: unexpected end of file$"

head -c 1000000 "$work/images" > "$work/short"
put "$work/short" "$work/labels"
expect "payload shorter than its header" "holds 999984 bytes of data, its header says 7840000"

head -c 5000 "$work/labels" > "$work/few"
put "$work/images" "$work/few"
expect "fewer labels than images" "holds 4992 bytes of data, its header says 10000"

printf '\x00\x00\x08\x01\x00\x00\x00\x05\x00\x01\x02\x03\x04' > "$work/five"
put "$work/images" "$work/five"
expect "label count differs from image count" "10000 images but 5 labels"

printf '\x00\x00\x08\x01\x00\x00\x00\x01\x0c' > "$work/label12"
{ printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x1c\x00\x00\x00\x1c'; head -c 784 /dev/zero; } > "$work/one"
put "$work/one" "$work/label12"
expect "label out of range" "holds label 12"

put "$work/labels" "$work/labels"
expect "labels where images belong" "is not an IDX file of unsigned bytes with 3 dimensions"

{ printf '\x00\x00\x08\x03\x00\x00\x00\x01\x00\x00\x00\x20\x00\x00\x00\x1c'; head -c 896 /dev/zero; } > "$work/wide"
put "$work/wide" "$work/label12"
expect "images of the wrong size" "dimension 1 is 32, expected 28"

printf '\x00\x00\x08\x03\x00\x00\x00\x00\x00\x00\x00\x1c\x00\x00\x00\x1c' > "$work/none"
printf '\x00\x00\x08\x01\x00\x00\x00\x00' > "$work/no_labels"
put "$work/none" "$work/no_labels"
expect "an empty split" "t10k-images-idx3-ubyte.gz holds no images"

put "$work/images" "$work/labels"
expect "a flag that is not a number" "--epochs expects a number, got '2x'" --epochs 2x
expect "an unknown flag" "unknown argument '--help'" --help

rm "$work"/t10k-*
expect "missing file" "cannot open $work/t10k-images-idx3-ubyte.gz"

exit $((failures > 0))
