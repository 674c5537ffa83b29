//! The run's vocabulary, the bottom layer of the harness: what a run is made of (openings, time
//! controls, players, the schedule and its seed streams, fault kinds), as plain data with its
//! checks. Everything above imports it; it imports only the pure crates (rules, protocol), so
//! `run_folder`, `report` and `serve` can name a run's parts without reaching into `engine` or
//! `tournament` (tests/layers.rs holds the direction).

pub mod config;
pub mod fault;
pub mod game_flags;
pub mod judging;
pub mod player;
pub mod schedule;
pub mod shell;

pub use config::{Clock, Opening, OpeningSource, RunConfig, RunPlan, TimeControl};
pub use fault::FaultKind;
pub use game_flags::GameFlags;
pub use judging::{MissingMove, TimeBy, CPU_WALL_CAP};
pub use player::{BotSpec, FileBot, Program, Protocol};
pub use schedule::{derive_seed, Format, Schedule};
pub use shell::shell_word;
