//! The game settings as they are typed, declared once: the flags every game-playing command
//! takes (`--rules`, `--openings`, `--movetime`, ...) and the same keys of a tournament or bands
//! file, which flatten this table into their own. Their checked form is `plan::game`'s.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::judging::TimeBy;

/// Game settings shared by `arena run`, `sprt`, `gate` and `calibrate`, and the game keys of a
/// tournament or bands file; each is optional, and a flag overrides its key.
#[derive(clap::Args, Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameFlags {
    /// Ruleset string, e.g. `kalah`, `kalah:pits=6,seeds=5`, `oware`, `congkak` [default: kalah].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    /// Random legal sows from the start that make each pair's opening [default: 2].
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_plies: Option<u32>,
    /// Openings file: one opening per line (a move list, or a position string [moves ...]).
    // In a file, relative to the file's folder (see `relative_to`).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openings: Option<PathBuf>,
    /// Games played at once [default: the number of physical cores].
    #[arg(long, allow_negative_numbers = true, value_parser = at_least_one::<usize>)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    /// Time per sow in ms, a fresh budget for each sow [default: 30000, the site's clock].
    #[arg(long, allow_negative_numbers = true, value_parser = millis)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movetime: Option<u64>,
    /// Game clock `base+inc` in seconds, e.g. `10+0.1` (replaces the per-sow default).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    /// Pass `go depth D` to the bots (deterministic runs).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    /// Pass `go nodes N` to the bots (deterministic runs).
    #[arg(long)]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
    /// The clock the time limits count: `wall` (from asking to the answer) or `cpu` (each bot's
    /// own CPU time, with a wall-time cap of 4 × the limit: a shared machine's load is not the
    /// bot's) [default: wall]. A player's `time_by=` replaces it for that player.
    #[arg(long, value_name = "wall|cpu")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub time_by: Option<TimeBy>,
}

/// clap's parser of a count that must be at least 1 (`--pairs`, `--concurrency`): its message
/// says what the value must be, for a negative number too (clap would otherwise take `-1` for a
/// flag and suggest `-- -1`, or name the type's whole range). Pure.
pub fn at_least_one<T: std::str::FromStr + PartialEq + From<u8>>(text: &str) -> Result<T, String> {
    match text.trim().parse::<T>() {
        Ok(n) if n != T::from(0) => Ok(n),
        _ => Err("must be a whole number, at least 1".to_string()),
    }
}

/// clap's parser of a time in milliseconds that must be at least 1 (`--movetime`,
/// `--handshake-timeout`). Pure.
pub fn millis(text: &str) -> Result<u64, String> {
    at_least_one::<u64>(text).map_err(|_| {
        "must be a whole number of milliseconds, at least 1 (1000 is one second)".to_string()
    })
}

impl GameFlags {
    /// A file's settings with its `openings` path made relative to the file's folder `base`.
    pub fn relative_to(&self, base: &Path) -> GameFlags {
        GameFlags {
            openings: self.openings.as_ref().map(|p| base.join(p)),
            ..self.clone()
        }
    }

    /// Each setting of `self`, or `file`'s where `self` has none (the flags over a file).
    pub fn or(&self, file: &GameFlags) -> GameFlags {
        GameFlags {
            rules: self.rules.clone().or(file.rules.clone()),
            opening_plies: self.opening_plies.or(file.opening_plies),
            openings: self.openings.clone().or(file.openings.clone()),
            concurrency: self.concurrency.or(file.concurrency),
            movetime: self.movetime.or(file.movetime),
            tc: self.tc.clone().or(file.tc.clone()),
            depth: self.depth.or(file.depth),
            nodes: self.nodes.or(file.nodes),
            time_by: self.time_by.or(file.time_by),
        }
    }
}
