//! Tournaments: the seeded schedule of colour-swapped game pairs, the referee loop, concurrency,
//! results appended as games finish, and resume. See docs/tournament.md.

pub mod config;
pub mod dispatch;
pub mod merge;
pub mod pool;
pub mod progress;
pub mod referee;
pub mod runner;
pub mod schedule;
#[cfg(test)]
pub(crate) mod scripted;
