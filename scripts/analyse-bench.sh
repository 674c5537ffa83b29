#!/usr/bin/env bash
# The mistake meter's benchmark (docs/solved.md "arena analyse"): `arena analyse` with its
# defaults on a fixed set of games, under /usr/bin/time -v. Prints the load, the setup, the
# share of sows proven, the median / 99th-percentile / largest time per sow, the wall and CPU
# time and the peak memory. The databases come from the cache folder (docs/solved.md) and are
# built there on first use; build them first (`arena solve --rules kalah --dry-run` says which).
# Usage: scripts/analyse-bench.sh [GAMES.pgn] [arena analyse flags...]
#   default set: benches/analyse-levels.pgn, 102 Kalah(6,4) games between Easy, Normal and Hard:
#   arena run --rules kalah --pairs 17 --seed 1 --opening-plies 2 --movetime 100
#     --bot name=easy bundled=alphabeta option.Level=easy (and Normal, Hard likewise)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p mancala-arena --bin arena >/dev/null
games=${1:-benches/analyse-levels.pgn}
shift || true
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $games"
/usr/bin/time -v target/release/arena analyse "$games" --out "$out/a" --no-report "$@" \
    >"$out/stdout" 2>"$out/stderr" || { cat "$out/stderr"; exit 1; }
grep -E '^(database|values|sows )' "$out/stdout" "$out/stderr" -h || true
grep -E 'games in ' "$out/stdout"
grep -E 'Elapsed \(wall|User time|System time|Maximum resident' "$out/stderr" | sed 's/^\t//'
