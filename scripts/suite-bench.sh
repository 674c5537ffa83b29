#!/usr/bin/env bash
# The opening-suite benchmark (docs/regression-testing.md, "What a suite buys"): records game
# pairs of the alpha-beta bot's Normal level against a weakened Normal (and against itself) from
# each kind of opening, once and seeded, then resamples them into many simulated SPRTs
# (examples/suite_bench.rs). Needs a release build: cargo build --release --workspace.
#
#   scripts/suite-bench.sh                     # everything (about 10 minutes on 2 idle cores)
#   PAIRS=1000 scripts/suite-bench.sh          # shorter
#   ARENA=target/debug/arena PROFILE=dev scripts/suite-bench.sh   # with the dev build
#
# Kinds: truth (every pair from the start position: the regression as the site's games see it),
# random2 (2 random sows, the old default), balanced and unbalanced (the bundled suites).
set -euo pipefail
cd "$(dirname "$0")/.."
ARENA=${ARENA:-target/release/arena}
OUT=${OUT:-results/suite-bench}
PAIRS=${PAIRS:-4000}
NULL_PAIRS=${NULL_PAIRS:-2000}
WEAK_NOISE=${WEAK_NOISE:-0.7}
RUNS=${RUNS:-2000}
PROFILE=${PROFILE:-release}

play() { # kind name seed test-options... -- opening flags...
  local kind=$1 set=$2 seed=$3 pairs=$4; shift 4
  local test=() flags=()
  while [ "$1" != "--" ]; do test+=("$1"); shift; done
  shift
  flags=("$@")
  local dir="$OUT/$kind-$set"
  if [ -f "$dir/games.csv" ]; then echo "kept $dir"; return; fi
  "$ARENA" run --quiet --no-plots --out "$dir" --pairs "$pairs" --seed "$seed" \
    --concurrency 2 --movetime 5000 "${flags[@]}" \
    --bot name=test bundled=alphabeta option.Level=normal "${test[@]}" \
    --bot name=base bundled=alphabeta option.Level=normal > /dev/null
  echo "played $dir"
}

mkdir -p "$OUT"
weak=(option.Noise="$WEAK_NOISE")
play truth regressed 101 "$PAIRS" "${weak[@]}" -- --opening-plies 0
seed=200
for kind in random2 balanced unbalanced; do
  case $kind in
    random2) flags=(--opening-plies 2) ;;
    *) flags=(--openings "openings/kalah-6x4-$kind.txt") ;;
  esac
  seed=$((seed + 1))
  play "$kind" regressed "$seed" "$PAIRS" "${weak[@]}" -- "${flags[@]}"
  play "$kind" null "$((seed + 50))" "$NULL_PAIRS" -- "${flags[@]}"
done
cargo run --quiet --profile "$PROFILE" --example suite_bench -- "$OUT" "$RUNS"
