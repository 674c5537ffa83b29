#!/usr/bin/env bash
# `arena rate` at a site's size (docs/ratings.md, "Large pools"): generates a PGN of GAMES games
# among PLAYERS players (default 10,000 among 1,000: 1.6 MB), rates it with the release build
# under /usr/bin/time -v and prints the wall and CPU time, the peak memory and the size of each
# file written. The games are drawn from a fixed seed: each game between two players picked at
# random, colours at random, the result drawn from the players' true Elos (normal, mean 1200,
# SD 200) with a 10% draw share; WhiteElo/BlackElo tags carry the true Elos (for --anchor-tags).
# Usage: scripts/rate-bench.sh [PLAYERS] [GAMES] [arena rate flags...]
#        scripts/rate-bench.sh --pgn PLAYERS GAMES >FILE   (only write the PGN)
set -euo pipefail
cd "$(dirname "$0")/.."

# The PGN on stdout. MINSTD's generator, in awk's doubles (products stay below 2^53), so every
# awk draws the same games.
generate() {
    awk -v players="$1" -v games="$2" 'BEGIN {
        s = 20261204
        for (i = 0; i < players; i++) {
            # Sum of 12 uniforms: close enough to a normal for a benchmark.
            z = -6; for (k = 0; k < 12; k++) z += u()
            elo[i] = int(1200 + 200 * z)
        }
        for (g = 1; g <= games; g++) {
            w = int(u() * players); b = int(u() * (players - 1)); if (b >= w) b++
            pw = 1 / (1 + 10 ^ ((elo[b] - elo[w]) / 400))
            r = u()
            result = r < 0.1 ? "1/2-1/2" : (r - 0.1 < 0.9 * pw ? "1-0" : "0-1")
            printf "[Event \"site\"]\n[Site \"site\"]\n[Date \"2026.%02d.%02d\"]\n[Round \"%d\"]\n", 1 + int(g * 12 / (games + 1)), 1 + g % 28, g
            printf "[White \"player%04d\"]\n[Black \"player%04d\"]\n[Result \"%s\"]\n", w, b, result
            printf "[WhiteElo \"%d\"]\n[BlackElo \"%d\"]\n\n%s\n\n", elo[w], elo[b], result
        }
    }
    function u() { s = (s * 48271) % 2147483647; return s / 2147483647 }'
}

if [[ ${1:-} == --pgn ]]; then
    generate "${2:?players}" "${3:?games}"
    exit 0
fi
players=${1:-1000}
games=${2:-10000}
shift 2 || shift $#
cargo build --release -p mancala-arena --bin arena >/dev/null
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
generate "$players" "$games" >"$dir/site.pgn"
echo "load average $(cut -d' ' -f1-3 /proc/loadavg), $(nproc) cores; $games games among $players players, $(du -h "$dir/site.pgn" | cut -f1) of PGN"
/usr/bin/time -v target/release/arena rate "$dir/site.pgn" --out "$dir/out" "$@" \
    >"$dir/stdout" 2>"$dir/stderr" || { cat "$dir/stderr"; exit 1; }
echo "terminal: $(wc -l <"$dir/stdout") lines"
grep -E 'Elapsed \(wall|User time|System time|Maximum resident' "$dir/stderr" | sed 's/^\t//'
echo "files: $(du -sh "$dir/out" | cut -f1) in all"
(cd "$dir/out" && find . -type f -printf '%s\t%P\n' | sort -rn | awk -F'\t' '{ printf "  %10d  %s\n", $1, $2 }')
