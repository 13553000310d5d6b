#!/usr/bin/env bash
# Configures a two-library project with cmake/layers.cmake three times: as layered (passes), with
# the lower library including a header of the upper one (fails, naming the file), and with the
# lower library linking the upper one (fails). Usage: layer_check_test.sh <cmake> <layers.cmake>
set -euo pipefail
CMAKE=$1
LAYERS=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

fail() { echo "FAIL: $*"; exit 1; }

write_project() { # <low.cc include line> <low deps>
  rm -rf "$work/src" "$work/build"
  mkdir -p "$work/src/low" "$work/src/high"
  cat >"$work/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(layer_fixture LANGUAGES CXX)
add_subdirectory(src)
CMAKE
  cat >"$work/src/CMakeLists.txt" <<CMAKE
include($LAYERS)
set(HPA_SOURCE_ROOT \${CMAKE_CURRENT_SOURCE_DIR})
add_subdirectory(low)
add_subdirectory(high)
hpa_check_layers(LAYERS "hpa_low" "hpa_high")
CMAKE
  echo "hpa_add_library(low DEPS $2)" >"$work/src/low/CMakeLists.txt"
  echo "hpa_add_library(high DEPS hpa_low)" >"$work/src/high/CMakeLists.txt"
  printf '#pragma once\nint low();\n' >"$work/src/low/low.h"
  printf '%s\n#include "low/low.h"\nint low() { return 1; }\n' "$1" >"$work/src/low/low.cc"
  printf '#pragma once\nint high();\n' >"$work/src/high/high.h"
  printf '#include "high/high.h"\n#include "low/low.h"\nint high() { return low(); }\n' >"$work/src/high/high.cc"
}

configure() { "$CMAKE" -S "$work" -B "$work/build" >"$work/out" 2>&1; }

write_project "" ""
configure || { cat "$work/out"; fail "a layered project was refused"; }

write_project '#include "high/high.h"' ""
configure && fail "an upward include was accepted"
grep -q 'low/low.cc includes a header of hpa_high, which hpa_low does not link' "$work/out" ||
  { cat "$work/out"; fail "the upward include was refused without naming it"; }

write_project "" "hpa_high"
configure && fail "an upward link was accepted"
grep -q 'hpa_low links hpa_high, which is not in a lower layer' "$work/out" ||
  { cat "$work/out"; fail "the upward link was refused without naming it"; }

echo "PASS: the layer check refuses an upward include and an upward link"
