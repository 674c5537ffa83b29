#!/usr/bin/env bash
# The solver's benchmark (docs/solved.md "Measured"): solves known positions with the release
# build and prints one line each (value, nodes, time). Databases come from the cache folder
# ($MANCALA_SOLVER_DB, docs/solved.md) and are built there on first use, which is timed too.
# Usage: scripts/solve-bench.sh [quick|full]   (full adds Kalah(6,4) with K = 18 and 20)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p mancala-arena --bin arena >/dev/null
mode=${1:-quick}
run() {
    local label=$1
    shift
    local out
    out=$(target/release/arena solve "$@" 2>&1)
    local db solved total
    db=$(grep '^database' <<<"$out" | sed -E 's/ +/ /g; s/  cache.*//')
    solved=$(grep '^solved' <<<"$out" | sed -E 's/^solved +//')
    total=$(grep '^nodes' <<<"$out" | sed -E 's/ +/ /g')
    printf '%-34s %s | %s | %s\n' "$label" "$solved" "$total" "$db"
}
run "Kalah(6,3)" --rules kalah:seeds=3
run "Kalah(5,4)" --rules kalah:pits=5
run "Kalah(6,4)" --rules kalah
run "Kalah(6,4) empty capture" --rules kalah:empty_capture=true
if [ "$mode" = full ]; then
    run "Kalah(6,4) K=20" --rules kalah --db-seeds 20
    run "Kalah(6,4) K=18" --rules kalah --db-seeds 18
fi
