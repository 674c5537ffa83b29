#!/usr/bin/env bash
# Strength matches of the bundled bots on Kalah(6,4) (docs/bots.md, "Measured strength"):
# 100 colour-swapped pairs per match, fixed depths/levels (no time pressure: the default 30 s per
# sow is never reached), so the results repeat exactly. Prints each match's score.
# Usage: scripts/strength.sh [MATCH...]   (default: all; MATCH is e.g. hard-normal)
set -euo pipefail
cd "$(dirname "$0")/.."
# B=DIR uses already built binaries from DIR (e.g. a copy, while the tree is being rebuilt).
if [ -z "${B:-}" ]; then
  cargo build --release --workspace -q
  B=target/release
fi
OUT=${OUT:-results/strength}
PAIRS=${PAIRS:-100}
declare -A SPEC=(
  [random]="cmd=$B/mancala-random"
  [greedy]="cmd=$B/mancala-greedy"
  [easy]="cmd=$B/mancala-alphabeta option.Level=easy"
  [normal]="cmd=$B/mancala-alphabeta option.Level=normal"
  [hard]="cmd=$B/mancala-alphabeta option.Level=hard"
  [ab8]="cmd=$B/mancala-alphabeta option.Depth=8"
  [mcts]="cmd=$B/mancala-mcts"
)
MATCHES=("$@")
[ ${#MATCHES[@]} -eq 0 ] && MATCHES=(easy-random normal-easy hard-normal ab8-greedy mcts-greedy)
for m in "${MATCHES[@]}"; do
  a=${m%-*}; b=${m#*-}
  rm -rf "$OUT/$m"
  # shellcheck disable=SC2086
  $B/arena run -q --rules kalah --pairs "$PAIRS" --seed 1 --opening-plies 2 --concurrency 2 \
    --bot name=$a ${SPEC[$a]} --bot name=$b ${SPEC[$b]} --out "$OUT/$m" >/dev/null
  python3 - "$OUT/$m/games.csv" "$a" "$b" <<'PY'
import csv, sys
path, a, b = sys.argv[1:4]
score = {a: 0.0, b: 0.0}; n = 0; w = {a: 0, b: 0}; d = 0
for row in csv.DictReader(open(path)):
    n += 1
    first, second, res = row["first"], row["second"], row["result"]
    if res == "1-0": score[first] += 1; w[first] += 1
    elif res == "0-1": score[second] += 1; w[second] += 1
    else: score[first] += .5; score[second] += .5; d += 1
print(f"{a} vs {b}: {score[a]:g}/{n} = {100*score[a]/max(n,1):.1f}%  (+{w[a]} ={d} -{w[b]})")
PY
done
