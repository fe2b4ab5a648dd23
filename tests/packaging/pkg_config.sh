#!/usr/bin/env bash
# The pkg-config consumer: finds the installed tensorlib.pc and compiles
# consumer/main.cpp with a plain compiler command line, then runs it.
# Usage: pkg_config.sh PKG_CONFIG CXX PREFIX VERSION MAIN_CPP WORKDIR
set -euo pipefail
pkg_config=$1 cxx=$2 prefix=$3 version=$4 main=$5 work=$6
export PKG_CONFIG_PATH="$prefix/share/pkgconfig"
"$pkg_config" --validate tensorlib
"$pkg_config" --print-errors --exact-version="$version" tensorlib
rm -rf "$work" && mkdir -p "$work"
# C++20 is the consumer's to ask for: tensorlib.pc does not add -std.
"$cxx" -std=c++20 -O2 -Wall -Wextra -Wpedantic -Wshadow -Werror \
  $("$pkg_config" --cflags tensorlib) "$main" -o "$work/app" $("$pkg_config" --libs tensorlib)
"$work/app"
