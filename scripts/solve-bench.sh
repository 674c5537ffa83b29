#!/usr/bin/env bash
# The solver's benchmark (docs/solved.md "Measured"): solves known positions with the release
# build and prints one line each (value, nodes, time). Databases come from the cache folder
# ($MANCALA_SOLVER_DB, docs/solved.md) and are built there on first use, which is timed too.
# Usage: scripts/solve-bench.sh [quick|full|6x5]   (full adds Kalah(6,4) with K = 18 and 20;
# 6x5 runs the documented Kalah(6,5) commands instead: standard and empty capture, K = 24,
# timed with /usr/bin/time -v; building each K = 24 database the first time takes 8 to 11
# minutes of both cores, then the search takes much longer, see docs/solved.md)
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p mancala-arena --bin arena >/dev/null
mode=${1:-quick}
if [ "$mode" = 6x5 ]; then
    for rules in kalah:seeds=5 kalah:seeds=5,empty_capture=true; do
        guess=10
        [ "$rules" = kalah:seeds=5 ] || guess=12
        SOLVER_TRACE=1 /usr/bin/time -v target/release/arena solve --rules "$rules" \
            --db-seeds 24 --tt-mib 8192 --threads 2 --guess "$guess" --value-only
    done
    exit 0
fi
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
