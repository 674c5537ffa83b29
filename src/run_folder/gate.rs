//! `gate.json`: what `arena gate` decided, written when it ends: the settings, the reference
//! pool with its fixed Elos, and per level its band, its two edge tests, its estimate and its
//! verdict (the types of [`crate::rating::gate`]).
//!
//! # Format
//! `settings` (`alpha`, `beta`, `margin` or null for half of each tolerance,
//! `first_move_advantage`), `confidence` (of the estimates' intervals), `max_pairs` (the budget:
//! pairs per level and reference player), `pool` (`name`, `elo` in the run's naming, `ref-NAME`),
//! `levels` (`name` and the [`LevelStatus`] fields: `band`, `margin`, `verdict`
//! `inside`/`below`/`above`/`undecided`, `pairs`, `penta` per reference player, `lower` and
//! `upper` edge tests with `outside`, `inside`, `llr`, `lower`, `upper`, `state`,
//! `decided_after`, and `estimate` with `elo`, `se`, `ci_low`, `ci_high`, `at_limit`), the
//! gate's `verdict` (`pass`, `fail`, `undecided`) and the `exit_code` it gave; `reference_source`
//! (where the pool's Elos came from, in words: the bands file's `reference_source` and
//! `reference_ratings`) when the bands file says.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::rating::gate::{GateSettings, GateVerdict, LevelStatus};

pub const GATE_JSON: &str = "gate.json";

/// A reference player as the gate used it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolMember {
    pub name: String,
    pub elo: f64,
}

/// One level's result.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateLevel {
    pub name: String,
    #[serde(flatten)]
    pub status: LevelStatus,
}

/// What `gate.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateFile {
    pub settings: GateSettings,
    pub confidence: f64,
    pub max_pairs: u32,
    pub pool: Vec<PoolMember>,
    pub levels: Vec<GateLevel>,
    /// Where the pool's Elos came from, if the bands file said (files from before it: none).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_source: Option<String>,
    pub verdict: GateVerdict,
    pub exit_code: u8,
}

impl GateFile {
    /// The folder's `gate.json`, `None` if it has none.
    pub fn read(dir: &Path) -> Result<Option<GateFile>> {
        super::read_json(dir, GATE_JSON)
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        super::write_json(dir, GATE_JSON, self)
    }
}
