#!/usr/bin/env bash
# Rules engine against a plain C floor: `arena perft --rules kalah` and benches/c/kalah_perft.c
# (Kalah(6,4), array board, one seed at a time), same depths, same node counts, in one run.
#
#   scripts/perft-vs-c.sh [DEPTH] [RUNS]      (defaults: 10, 10)
#
# Builds the arena in release mode and the C program with `gcc -O3 -march=native`, checks that
# both print the same node count at every depth 1..DEPTH, then times both whole processes
# (hyperfine if installed, else RUNS interleaved runs with the best and median wall times), and,
# if valgrind is installed, counts their instructions under callgrind (repeatable on a loaded
# machine, unlike wall time). Prints the ratio C / arena for both (above 1: the arena is faster).
# CARGO_TARGET_DIR is honoured; ARENA=path skips the cargo build; NO_CALLGRIND=1 skips callgrind.
set -euo pipefail
cd "$(dirname "$0")/.."
depth="${1:-10}"
runs="${2:-10}"
target="${CARGO_TARGET_DIR:-target}"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [[ -z "${ARENA:-}" ]]; then
    cargo build --release --quiet --bin arena
    ARENA="$target/release/arena"
fi
gcc -O3 -march=native -Wall -Wextra -o "$work/kalah_perft" benches/c/kalah_perft.c
C="$work/kalah_perft"

# Node counts, depth by depth.
"$ARENA" perft --rules kalah --depth "$depth" | awk '/^depth/ {print $2, $4}' >"$work/arena.txt"
"$C" "$depth" | awk '/^depth/ {print $2, $4}' >"$work/c.txt"
if ! diff -u "$work/c.txt" "$work/arena.txt"; then
    echo "perft-vs-c: node counts differ (left: C, right: arena)" >&2
    exit 1
fi
echo "node counts agree at depths 1..$depth:"
awk '{printf "%s %s; ", $1, $2} END {print ""}' "$work/arena.txt"

# Wall time of the whole process (all depths 1..DEPTH).
arena_cmd="$ARENA perft --rules kalah --depth $depth"
c_cmd="$C $depth"
if command -v hyperfine >/dev/null; then
    hyperfine -N --warmup 2 --runs "$runs" --export-json "$work/h.json" \
        -n arena "$arena_cmd" -n C "$c_cmd" >&2
    python3 - "$work/h.json" <<'PY'
import json, sys
r = {x["command"]: x for x in json.load(open(sys.argv[1]))["results"]}
a, c = r["arena"], r["C"]
print(f"wall (hyperfine, {len(a['times'])} runs): arena median {a['median']:.3f}s min {a['min']:.3f}s"
      f" user {a['user']:.3f}s; C median {c['median']:.3f}s min {c['min']:.3f}s user {c['user']:.3f}s")
print(f"ratio C/arena: median {c['median']/a['median']:.2f}x, min {c['min']/a['min']:.2f}x,"
      f" user {c['user']/a['user']:.2f}x")
PY
else
    for _ in $(seq "$runs"); do
        /usr/bin/time -f "%e %U" -a -o "$work/arena.t" $arena_cmd >/dev/null
        /usr/bin/time -f "%e %U" -a -o "$work/c.t" $c_cmd >/dev/null
    done
    stat() { sort -n "$1" | awk '{t[NR]=$1} END {printf "best %.3fs median %.3fs", t[1], t[int((NR+1)/2)]}'; }
    echo "wall ($runs interleaved runs): arena $(stat "$work/arena.t"); C $(stat "$work/c.t")"
fi

# Instruction counts (deterministic).
if [[ -z "${NO_CALLGRIND:-}" ]] && command -v valgrind >/dev/null; then
    irefs() {
        valgrind --tool=callgrind --callgrind-out-file=/dev/null "$@" 2>&1 >/dev/null |
            awk '/refs:/ {gsub(",", "", $NF); print $NF}'
    }
    ia="$(irefs $arena_cmd)"
    ic="$(irefs $c_cmd)"
    awk -v a="$ia" -v c="$ic" 'BEGIN {
        printf "instructions (callgrind): arena %.3fG, C %.3fG, ratio C/arena %.2fx\n", a/1e9, c/1e9, c/a }'
fi
