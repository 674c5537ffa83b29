#!/usr/bin/env bash
# The solver's benchmark (docs/solved.md "Measured"): `arena solve` with its default setup (no
# flags: database, TT, threads and first guess chosen from the machine and the cache) on known
# positions, one line each: value, nodes and search time to the value, and the database (built
# or loaded, and how long that took). Release build; databases come from the cache folder
# ($MANCALA_SOLVER_DB, docs/solved.md) and are built there on first use.
# Usage: scripts/solve-bench.sh [full|6x5|positions [K]]
#   (none)  Kalah(6,4), and Kalah(6,5) if the database its default setup wants is cached
#           (else it says so: building it takes tens of minutes, run the 6x5 mode once)
#   full    also Kalah(6,3), Kalah(5,4), Kalah(6,4) empty capture and Kalah(6,4) with K = 18, 20
#   6x5     Kalah(6,5) with the default command, building its database if needed, under
#           /usr/bin/time -v (CPU time and peak memory), with every MTD(f) pass traced
#   positions [K]  the fixed set benches/solver-positions.txt (the search's work, docs/solved.md
#           "Where the nodes go"): nodes, CPU and wall time per position, one thread (exact
#           node counts), a 1 GiB TT per position, K = 28 unless given
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "${1:-}" = positions ]; then
    cargo build --release -p mancala-solver --example probe >/dev/null
    exec target/release/examples/probe --positions benches/solver-positions.txt "${2:-28}" 1024 1
fi
cargo build --release -p mancala-arena --bin arena >/dev/null
arena=target/release/arena
mode=${1:-}
if [ "$mode" = 6x5 ]; then
    SOLVER_TRACE=1 /usr/bin/time -v "$arena" solve --rules kalah:seeds=5 --no-value-cache
    exit 0
fi
run() {
    local label=$1
    shift
    local out
    out=$("$arena" solve --no-value-cache "$@" 2>&1)
    local db solved
    db=$(grep '^database' <<<"$out" | sed -E 's/ +/ /g; s/  cache.*//; s/^database //; s/ cache .*//')
    solved=$(grep '^solved' <<<"$out" | sed -E 's/^solved +//; s/; now.*//')
    printf '%-30s %s | database %s\n' "$label" "$solved" "${db:-none}"
}
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores"
run "Kalah(6,4)" --rules kalah
if "$arena" solve --rules kalah:seeds=5 --dry-run | grep -q 'to build'; then
    echo "Kalah(6,5)                     skipped: its database is not cached ($("$arena" solve --rules kalah:seeds=5 --dry-run | sed 's/^setup *//; s/;.*//')); run scripts/solve-bench.sh 6x5 once"
else
    run "Kalah(6,5)" --rules kalah:seeds=5
fi
if [ "$mode" = full ]; then
    run "Kalah(6,3)" --rules kalah:seeds=3
    run "Kalah(5,4)" --rules kalah:pits=5
    run "Kalah(6,4) empty capture" --rules kalah:empty_capture=true
    run "Kalah(6,4) K=20" --rules kalah --db-seeds 20
    run "Kalah(6,4) K=18" --rules kalah --db-seeds 18
fi
