#!/usr/bin/env bash
# examples/fashion_mnist's reader on damaged files: each case must fail with
# exit code 2 and the message given (DESIGN 3.8: a corrupt or truncated file is
# an error, never a crash). Usage: fashion_mnist_bad_data.sh BINARY DATA_DIR
set -euo pipefail
binary="$1" data="$2"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
ln -s "$data"/train-*.gz "$work"/
gunzip -c "$data/t10k-images-idx3-ubyte.gz" > "$work/images"
gunzip -c "$data/t10k-labels-idx1-ubyte.gz" > "$work/labels"
failures=0

# expect NAME PATTERN: run on $work and check the exit code and message.
expect() {
  local rc=0 out
  out="$("$binary" --data "$work" 2>&1)" || rc=$?
  if [ "$rc" -eq 2 ] && grep -q -- "$2" <<<"$out"; then
    echo "ok: $1"
  else
    echo "FAILED: $1: exit $rc, output: $out"
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
expect "truncated gzip stream" "t10k-images-idx3-ubyte.gz: unexpected end of file"

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

rm "$work"/t10k-*
expect "missing file" "cannot open $work/t10k-images-idx3-ubyte.gz"

exit $((failures > 0))
