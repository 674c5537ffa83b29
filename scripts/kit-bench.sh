#!/usr/bin/env bash
# The bot kits' cost per sow as the arena measures it (issue 16): the Python and JavaScript
# kits' random examples and the bundled Rust random bot, in one run, each driven by the arena's
# own engine code and timed from `go` to `bestmove` (examples/kit_speed.rs says how).
#
#   scripts/kit-bench.sh [GAMES] [RULES]     # default 100 games of kalah per bot
#
# PROFILE=debug uses the debug build (default release). A benchmark, not a test: the figures
# depend on the machine and its load; compare the medians, which load spikes hardly move.
set -euo pipefail
cd "$(dirname "$0")/.."
profile=${PROFILE:-release}
flag=--release
[ "$profile" = release ] || flag=
echo "python3 $(python3 -c 'import sys; print(sys.version.split()[0])'), node $(node --version), $profile build, load: $(cut -d' ' -f1-3 /proc/loadavg 2>/dev/null || echo '?')"
cargo build -q $flag --workspace --bins
cargo run -q $flag --example kit_speed -- "${1:-100}" "${2:-kalah}"
