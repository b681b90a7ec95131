#!/usr/bin/env bash
# Build the official Halite III engine offline, with cmake, against Debian's libraries.
#
#   benchmarks/build_halite_engine.sh HALITE_CHECKOUT [OUTPUT]     (OUTPUT: ./halite)
#   snakewar bench compare --halite-engine ./halite
#
# HALITE_CHECKOUT is a source tree of github.com/HaliteChallenge/Halite-III (only its
# game_engine/ directory is used; the figures in the docs used commit e07f710, the
# conformance data's commit).  Needs g++ (>= 9, C++17), cmake, pkg-config and, on
# Debian 12:  apt-get install libzstd-dev nlohmann-json3-dev libtclap-dev
#
# Why not upstream's game_engine/CMakeLists.txt: it downloads Catch2, nlohmann-json 3.1.2,
# tclap 1.2.2 and zstd 1.3.4 at configure time (and tclap from a SourceForge mirror).
# benchmarks/halite_engine/CMakeLists.txt builds the same sources, unmodified, in
# release mode against the system's copies instead; with them g++ 12 needs no extra
# flag.  The newer zstd only changes the compressed bytes of replays, and the timing
# runs with --no-replay.
set -euo pipefail

if (($# < 1 || $# > 2)); then
    echo "usage: $0 HALITE_CHECKOUT [OUTPUT]" >&2
    exit 2
fi
engine=$(cd "$1" && pwd)/game_engine
output=$(realpath -m "${2:-halite}")
here=$(cd "$(dirname "$0")/halite_engine" && pwd)
[[ -f $engine/main.cpp ]] || { echo "error: $engine/main.cpp not found: not a Halite-III checkout" >&2; exit 2; }

build=$(mktemp -d)
trap 'rm -rf "$build"' EXIT
cmake -S "$here" -B "$build" -DCMAKE_BUILD_TYPE=Release -DHALITE_ENGINE_DIR="$engine" >/dev/null
cmake --build "$build" --parallel "$(nproc)"
cp "$build/halite" "$output"
echo "built $output ($("$output" --version 2>&1 | grep -m1 -o "version: .*" || true))"
