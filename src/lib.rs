//! mancala-arena: plays mancala bots against each other and rates them.
//!
//! The pure parts are crates of their own, re-exported here under their old names:
//! [`rules`] (`mancala-rules`: game logic), [`protocol`] (`mancala-protocol`: the line protocol),
//! [`solver`] (`mancala-solver`: exact Kalah values) and [`rating`] (`mancala-rating`: Elo,
//! intervals, SPRT, calibration maths). This crate is the harness around them, in layers that
//! import only downwards (tests/layers.rs checks it): `vocab` (the run's vocabulary: openings,
//! time controls, players, the plan, the schedule, fault kinds), `sys` (the system calls) and
//! `valuer` (a position's value: exact where the solver fits, else estimated) →
//! `engine` (bot processes), `run_folder` (every results-folder file), `openings` →
//! `tournament` (the referee, the runner and its event stream), `report` (tables and plots),
//! `plan` (from what was typed to what will be played: game settings, players, the tournament
//! file, reference pools) → `session` (the one path every game-playing command runs on, with
//! the SPRT, the gate and the calibration's steps), `judge` (every sow of a set of games
//! against perfect play: the mistake meter), `serve` (the live dashboard). The `arena` CLI sits
//! above them all, in the binary: it reads flags and prints.

// The harness needs Unix: process groups, signals, `poll(2)` (src/sys; on Linux also epoll,
// eventfd, pidfds and /proc). Say so at once rather than fail deep in the build elsewhere.
#[cfg(not(unix))]
compile_error!(
    "the mancala-arena harness builds on Unix only (Linux, macOS, the BSDs; README, \"Platforms\"); \
     the crates under crates/ and the bundled bots (mancala-bots) build wherever Rust does"
);

pub use mancala_protocol as protocol;
pub use mancala_rating as rating;
pub use mancala_rules as rules;
pub use mancala_solver as solver;

/// The calibration maths lives in the rating crate.
pub use mancala_rating::calibrate;

pub mod engine;
pub mod judge;
pub mod openings;
pub mod plan;
pub mod report;
pub mod run_folder;
pub mod serve;
pub mod session;
pub mod sys;
pub mod tournament;
pub mod valuer;
pub mod vocab;
