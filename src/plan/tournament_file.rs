//! The tournament file (`arena run FILE.toml`; tournament.example.toml): the game settings of
//! [`GameFlags`] (the flags' and the bands file's too), the run's own keys and `[[bot]]` tables. A key no field
//! takes is refused by name (`deny_unknown_fields` does not work with `flatten`).

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};
use serde::Deserialize;

use crate::run_folder::bands::refuse_unknown;
use crate::vocab::{FileBot, GameFlags};

/// A tournament file as written; every key is optional, and the flags of `arena run` override
/// it.
#[derive(Debug, Default, Deserialize)]
pub struct TournamentFile {
    pub name: Option<String>,
    #[serde(flatten)]
    pub game: GameFlags,
    pub format: Option<String>,
    pub gauntlet: Option<Vec<String>>,
    pub pairs: Option<u32>,
    pub seed: Option<u64>,
    pub margin: Option<u64>,
    pub handshake_timeout: Option<u64>,
    pub adjudicate: Option<bool>,
    pub out: Option<PathBuf>,
    pub max_start_failures: Option<u32>,
    #[serde(default)]
    pub bot: Vec<FileBot>,
    #[serde(flatten)]
    unknown: toml::Table,
}

impl TournamentFile {
    /// Reads and checks the file at `path`, and returns it with its folder (what its relative
    /// paths are relative to).
    pub fn read(path: &Path) -> Result<(TournamentFile, PathBuf)> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let file = toml::from_str::<TournamentFile>(&text)
            .map_err(anyhow::Error::from)
            .and_then(|f| refuse_unknown(&f.unknown).map(|()| f))
            .with_context(|| format!("{} is not a valid tournament file", path.display()))?;
        Ok((
            file,
            path.parent().map(Path::to_path_buf).unwrap_or_default(),
        ))
    }
}
