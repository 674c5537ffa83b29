#!/usr/bin/env bash
# The CI regression test of docs/regression-testing.md as a plain shell script:
#   1. builds the old bots (a git ref, default origin/main) and the new ones (this checkout),
#      unless OLD and NEW are given;
#   2. arena sprt: the new build's level against the old build's ("no weaker?");
#   3. arena gate: every level of the new build against a pool of the old build's bundled bots
#      ("still inside its calibrated band?");
#   4. arena gate on ELO_BANDS: the new build's Elo settings (option.Elo) against the old build's
#      levels held at their Elos on the site's human scale ("does Elo=1400 still play at 1400?");
#   5. leaves the results folders (report.html, summary.md, sprt.json, gate.json) in OUT.
# Exit 0 when neither test found a regression, 1 when one did (exit 3) or a command failed;
# an undecided test (exit 4) is reported and fails only with STRICT=1.
#
# Environment (all optional):
#   BASE_REF   the old build's git ref [origin/main]
#   OLD        a folder holding the old build's `arena` and bundled bots (skips building them)
#   NEW        the new build's alpha-beta bot (skips building it)
#   BANDS      the bands file [bands.example.toml]
#   ELO_BANDS  the Elo settings' bands file [bands.elo.example.toml]; empty skips that gate
#   ELO_ARGS   more arguments of that gate [] (e.g. --handshake-timeout 120000 on a crowded machine)
#   OUT        where the results folders go [regression-report]
#   WORK       where the builds go [.regression-work]
#   SPRT_LEVEL the level the SPRT compares [normal]
#   SPRT_ARGS  arguments of arena sprt [--elo0 -20 --elo1 0 --max-pairs 4000]
#   GATE_ARGS  more arguments of arena gate []
#   STRICT     1: an undecided test fails the build too
set -uo pipefail
cd "$(dirname "$0")/.."
BASE_REF=${BASE_REF:-origin/main}
BANDS=${BANDS:-bands.example.toml}
ELO_BANDS=${ELO_BANDS-bands.elo.example.toml}
ELO_ARGS=${ELO_ARGS:-}
OUT=${OUT:-regression-report}
WORK=${WORK:-.regression-work}
SPRT_LEVEL=${SPRT_LEVEL:-normal}
SPRT_ARGS=${SPRT_ARGS:---elo0 -20 --elo1 0 --max-pairs 4000}
GATE_ARGS=${GATE_ARGS:-}
STRICT=${STRICT:-0}

build() { # source-folder target-folder
  (cd "$1" && CARGO_TARGET_DIR="$2" cargo build --release --workspace --bins --quiet)
}

if [ -z "${OLD:-}" ]; then
  echo "== building the old bots ($BASE_REF)"
  rm -rf "$WORK/old-src"
  git worktree add --detach --force "$WORK/old-src" "$BASE_REF" >/dev/null || exit 1
  build "$WORK/old-src" "$PWD/$WORK/old-target" || exit 1
  git worktree remove --force "$WORK/old-src"
  OLD=$WORK/old-target/release
fi
if [ -z "${NEW:-}" ]; then
  echo "== building the new bots (this checkout)"
  build . "$PWD/$WORK/new-target" || exit 1
  NEW=$WORK/new-target/release/mancala-alphabeta
fi
rm -rf "$OUT"
mkdir -p "$OUT"

words() {
  case $1 in
    0) echo "passed" ;;
    3) echo "REGRESSION" ;;
    4) echo "undecided (budget spent)" ;;
    *) echo "error" ;;
  esac
}

echo "== arena sprt: new $SPRT_LEVEL against old $SPRT_LEVEL"
# shellcheck disable=SC2086 # SPRT_ARGS holds several arguments
"$OLD/arena" sprt --quiet --base "$OLD/mancala-alphabeta" --test "$NEW" \
  --base-option "Level=$SPRT_LEVEL" --test-option "Level=$SPRT_LEVEL" \
  $SPRT_ARGS --out "$OUT/sprt"
sprt=$?

echo "== arena gate: the new levels against the old pool ($BANDS)"
# shellcheck disable=SC2086
"$OLD/arena" gate "$BANDS" --quiet --bot "$NEW" $GATE_ARGS --out "$OUT/gate"
gate=$?

codes="$sprt $gate"
if [ -n "$ELO_BANDS" ]; then
  echo "== arena gate: the new Elo settings against the old levels ($ELO_BANDS)"
  # shellcheck disable=SC2086
  "$OLD/arena" gate "$ELO_BANDS" --quiet --bot "$NEW" $ELO_ARGS $GATE_ARGS --out "$OUT/gate-elo"
  elo=$?
  codes="$codes $elo"
fi

echo "sprt: exit $sprt, $(words $sprt)"
echo "gate: exit $gate, $(words $gate)"
[ -n "$ELO_BANDS" ] && echo "elo gate: exit $elo, $(words $elo)"
status=0
for code in $codes; do
  case $code in
    0) ;;
    4) [ "$STRICT" = 1 ] && status=1 ;;
    *) status=1 ;;
  esac
done
exit $status
