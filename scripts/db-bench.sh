#!/usr/bin/env bash
# The database build's benchmark (docs/solved.md, "Database cache folder"): builds Kalah(6,4)'s
# board rules' database up to K seeds (default 28) in memory from nothing, on every core, under
# /usr/bin/time -v, and prints nanoseconds of CPU per entry for each level and for the whole
# database up to it (the 24-, 26- and 28-seed lines are the ones docs/solved.md keeps), then
# the wall and CPU time and the peak memory. Needs memory for the table: K = 28 5.2 GiB.
# Usage: scripts/db-bench.sh [K] [THREADS]
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release -p mancala-solver --example db_bench >/dev/null
k=${1:-28}
threads=${2:-$(nproc)}
/usr/bin/time -v target/release/examples/db_bench kalah "$k" "$threads" 2>"${TMPDIR:-/tmp}/db-bench.$$" |
    sed -E 's/^ +(24|26|28) /&<- /'
grep -E 'Elapsed \(wall|User time|System time|Maximum resident' "${TMPDIR:-/tmp}/db-bench.$$" | sed 's/^\t//'
rm -f "${TMPDIR:-/tmp}/db-bench.$$"
