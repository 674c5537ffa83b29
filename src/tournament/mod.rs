//! Tournaments: the seeded schedule of colour-swapped game pairs, the referee loop, concurrency,
//! results appended as games finish, and resume. See docs/tournament.md.

pub mod check_driver;
pub mod dispatch;
pub mod events;
pub mod merge;
pub mod pool;
pub mod referee;
pub mod runner;
#[cfg(test)]
pub(crate) mod scripted;

/// The run's vocabulary moved to [`crate::vocab`]; these paths stay for scripts and benches.
pub use crate::vocab::{config, schedule};
