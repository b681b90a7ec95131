#!/usr/bin/env bash
# Build the Go timing harness (benchmarks/go) against a local checkout of the official
# Battlesnake rules engine, with no module proxy and no network.
#
#   benchmarks/build_go_harness.sh RULES_CHECKOUT [OUTPUT]      (OUTPUT: ./rulesbench)
#   snakewar bench compare --go-harness ./rulesbench
#
# The same builds the states oracle (benchmarks/go_oracle: hand-made states in, the
# official engine's answers out, as tests/data/battlesnake/states holds them):
#   benchmarks/build_go_harness.sh RULES_CHECKOUT ./oracle benchmarks/go_oracle
#   python3 benchmarks/go_oracle/issue28_specs.py | ./oracle > answers.jsonl
#
# RULES_CHECKOUT is a source tree of github.com/BattlesnakeOfficial/rules, e.g.
#   git clone https://github.com/BattlesnakeOfficial/rules /tmp/rules-src
# (the figures in the docs used commit 87e094e, the conformance data's commit).
# Go >= 1.19 is needed (Debian 12: apt-get install golang-go, Go 1.19.8).
#
# Why no download is needed: the harness imports only the packages `rules` and
# `rules/maps`, which import nothing outside the standard library.  The rules module's
# go.mod lists third-party modules (for its CLI and tests), but with module graph
# pruning (go >= 1.17 on both sides) the go command never reads their go.mod files,
# so GOPROXY=off works.  The harness's go.mod is copied to a scratch directory and
# given a replace directive pointing at RULES_CHECKOUT; the repository is not modified.
set -euo pipefail

if (($# < 1 || $# > 3)); then
    echo "usage: $0 RULES_CHECKOUT [OUTPUT] [SOURCE_DIR]" >&2
    exit 2
fi
rules=$(cd "$1" && pwd)
output=$(realpath -m "${2:-rulesbench}")
here=$(cd "${3:-$(dirname "$0")/go}" && pwd)

if [[ ! -f $rules/go.mod ]] || ! grep -q '^module github.com/BattlesnakeOfficial/rules$' "$rules/go.mod"; then
    echo "error: $rules is not a checkout of github.com/BattlesnakeOfficial/rules" >&2
    exit 2
fi
command -v go >/dev/null || { echo "error: go is not installed (apt-get install golang-go)" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
cp "$here/main.go" "$here/go.mod" "$scratch/"
cd "$scratch"
export GOPROXY=off GOSUMDB=off GOFLAGS=-mod=mod GOTOOLCHAIN=local
go mod edit -replace "github.com/BattlesnakeOfficial/rules=$rules"
go build -trimpath -o "$output" .
echo "built $output ($(go version | cut -d' ' -f3), rules at $(git -C "$rules" rev-parse --short HEAD 2>/dev/null || echo "$rules"))"
