#!/usr/bin/env bash
# The project's test command (README): builds every binary (the tests spawn real bot processes)
# and runs the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --workspace --bins
cargo test --workspace --no-fail-fast
