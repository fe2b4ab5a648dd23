#!/usr/bin/env bash
# Installs the Debian packages the build needs, if any are missing.
# Extra package names can be passed as arguments.
set -euo pipefail
packages=(cmake g++ make ninja-build doctest-dev libbenchmark-dev pkg-config libblas-dev python3-venv zlib1g-dev
          dataset-fashion-mnist "$@")
missing=()
for p in "${packages[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing+=("$p")
done
if ((${#missing[@]})); then
  sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  $sudo apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi
