#!/usr/bin/env bash
# The dashboard screenshots of docs/dashboard.md and the README (docs/img/dashboard-*.png), taken
# with Debian's headless Chromium from real runs of the bundled bots: a finished tournament of the
# levels, an SPRT, an interrupted run (Ctrl-C) and one still playing while the pictures are taken.
# Needs `cargo build --release --workspace` and /usr/bin/chromium. About two minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
arena=target/release/arena
work=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$work"' EXIT
root=$work/results
mkdir -p "$root"

"$arena" run --quiet --name levels --out "$root/levels" --pairs 2 --movetime 100 --seed 7 >/dev/null
"$arena" sprt --quiet --base target/release/mancala-random --test target/release/mancala-greedy \
  --elo0 0 --elo1 100 --max-pairs 40 --movetime 100 --out "$root/sprt-greedy" >/dev/null || true
# Interrupted: Ctrl-C after a few games.
"$arena" run --quiet --out "$root/interrupted" --pairs 20 --movetime 50 --concurrency 1 \
  --bot name=mcts bundled=mcts --bot name=random bundled=random >/dev/null 2>&1 &
sleep 6; kill -INT $! ; wait $! || true
# Running while the pictures are taken.
"$arena" run --quiet --out "$root/live" --pairs 40 --movetime 60 --concurrency 1 \
  --bot name=mcts bundled=mcts --bot name=hard bundled=alphabeta option.Level=hard \
  --bot name=random bundled=random >/dev/null 2>&1 &
"$arena" serve "$root" --bind 127.0.0.1:0 >"$work/serve.out" 2>/dev/null &
sleep 8
addr=$(sed -n 's|listening on http://\(.*\)/|\1|p' "$work/serve.out")
game=$(awk -F, 'NR == 6 { print $1 }' "$root/levels/games.csv")

shot() { # URL FILE WIDTH HEIGHT
  chromium --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
    --disable-background-networking --disable-component-update --disable-sync \
    --user-data-dir="$work/profile" --hide-scrollbars --virtual-time-budget=4000 \
    --window-size="$3,$4" --screenshot="$2" "$1" 2>/dev/null
}
shot "http://$addr/" docs/img/dashboard-runs.png 1100 520
shot "http://$addr/run?id=levels" docs/img/dashboard-run.png 1100 1500
shot "http://$addr/game?run=levels&id=$game#ply=17" docs/img/dashboard-viewer.png 1000 760
ls -l docs/img/dashboard-*.png
