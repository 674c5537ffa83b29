//! `run.json`: the exact configuration of a run, the arena version, the start time and the
//! command line: enough to rerun it, resume it or merge its shards.
//!
//! # Format
//! A pretty-printed JSON object: `arena_version`, `kind` (see [`RunKind`]; files written before
//! it existed read as `tournament`), `started` (RFC 3339), `command` (the argv words), `shard`
//! (`[index, count]`, only for a shard), `log_cap` (the bytes of stderr kept per player, so that a
//! resume that does not repeat `--log-cap`, as a requeued Slurm task's, keeps the run's) and
//! `config`, the
//! [`RunConfig`](crate::vocab::config::RunConfig) serialised field by field.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use crate::vocab::config::RunConfig;

pub const RUN_JSON: &str = "run.json";

/// Which command played a run folder, for the dashboard and the reader: the games are the same
/// kind of games whatever the command.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RunKind {
    /// `arena run`.
    #[default]
    Tournament,
    /// `arena sprt` (the folder also holds `sprt.csv` and, once decided, `sprt.json`).
    Sprt,
    /// `arena calibrate`'s round robin rating the reference pool (`reference/`).
    CalibrationReference,
    /// One batch of `arena calibrate` (`step-NN-...`): the candidate at one knob value.
    CalibrationStep,
    /// `arena merge`'s output.
    Merge,
    /// `arena gate` (the folder also holds `gate.json` once the gate ended).
    Gate,
    /// One iteration of `arena tune` (`iter-NNNN/`): θ+ against θ−.
    TuneIteration,
    /// Games read from PGN (`arena analyse FILE.pgn`'s folder): never in a `run.json` (no bots
    /// ran, the folder has none); the dashboard's word for such a folder.
    Pgn,
}

impl RunKind {
    /// The word in `run.json`.
    pub fn as_str(self) -> &'static str {
        match self {
            RunKind::Tournament => "tournament",
            RunKind::Sprt => "sprt",
            RunKind::CalibrationReference => "calibration-reference",
            RunKind::CalibrationStep => "calibration-step",
            RunKind::Merge => "merge",
            RunKind::Gate => "gate",
            RunKind::TuneIteration => "tune-iteration",
            RunKind::Pgn => "pgn",
        }
    }
}

/// What `run.json` holds.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct RunFile {
    pub arena_version: String,
    #[serde(default)]
    pub kind: RunKind,
    pub started: String,
    pub command: Vec<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub shard: Option<(u64, u64)>,
    /// `--log-cap` in bytes (absent in files written before it was kept: the default then).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub log_cap: Option<u64>,
    pub config: RunConfig,
}

impl RunFile {
    /// A run of `kind` starting now, by this process's command line.
    pub fn new(kind: RunKind, config: RunConfig, shard: Option<(u64, u64)>) -> RunFile {
        RunFile {
            arena_version: env!("CARGO_PKG_VERSION").to_string(),
            kind,
            started: chrono::Local::now().to_rfc3339(),
            command: std::env::args().collect(),
            shard,
            log_cap: None,
            config,
        }
    }

    pub fn read(dir: &Path) -> Result<RunFile> {
        let path = dir.join(RUN_JSON);
        let text = super::files::read_text_at_most(&path, super::MAX_JSON)?;
        serde_json::from_str(&text)
            .with_context(|| format!("{} is not a valid run file", path.display()))
    }

    /// `run.json` as written, pretty-printed again (for the report's configuration section).
    pub fn read_text(dir: &Path) -> Option<String> {
        let text = super::files::read_text_at_most(&dir.join(RUN_JSON), super::MAX_JSON).ok()?;
        let value: serde_json::Value = serde_json::from_str(&text).ok()?;
        serde_json::to_string_pretty(&value).ok()
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        let path = dir.join(RUN_JSON);
        super::files::write(&path, serde_json::to_string_pretty(self)? + "\n")?;
        Ok(())
    }

    /// Whether `dir` already holds a run (a `run.json`).
    pub fn exists(dir: &Path) -> bool {
        // A link or a FIFO of that name counts: it is refused when read, never overwritten.
        std::fs::symlink_metadata(dir.join(RUN_JSON)).is_ok()
    }
}
