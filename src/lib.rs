//! mancala-arena: plays mancala bots against each other and rates them.
//!
//! The crate is layered the way data flows (see `docs/design.md`):
//! [`rules`] (pure game logic) → [`protocol`] (the line protocol) → `engine` (bot processes) →
//! `tournament` (schedule, referee, results on disk) → [`rating`] (Elo, intervals, SPRT) →
//! `report` (tables and plots). `rules` and `rating` never do I/O.

pub mod calibrate;
pub mod engine;
pub mod protocol;
pub mod rating;
pub mod report;
pub mod rules;
pub mod solver;
pub mod tournament;
