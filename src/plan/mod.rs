//! From what was typed to what will be played: the players' language ([`players`]) and the
//! defaults every game-playing command shares (the run folder's name, the concurrency, a
//! gauntlet's challengers). The CLI's clap structs and the TOML files feed these.

pub mod game;
pub mod players;
pub mod pool;
pub mod tournament_file;

use std::path::PathBuf;

use anyhow::{Context, Result};

use crate::vocab::{BotSpec, Format};

/// `results/<name>-<timestamp>/`.
pub fn default_out(name: &str) -> PathBuf {
    PathBuf::from("results").join(format!(
        "{name}-{}",
        chrono::Local::now().format("%Y%m%d-%H%M%S")
    ))
}

/// A gauntlet of the named players (by index) against the rest.
pub fn gauntlet(players: &[BotSpec], names: &[String]) -> Result<Format> {
    let mut challengers = Vec::new();
    for name in names {
        let idx = players
            .iter()
            .position(|p| &p.name == name)
            .with_context(|| format!("--gauntlet: no player is named `{name}`"))?;
        challengers.push(idx);
    }
    Ok(Format::Gauntlet { challengers })
}

/// Physical cores (not hyperthreads), as the default concurrency: two bots share a game but only
/// one thinks at a time.
pub fn physical_cores() -> usize {
    let from_cpuinfo = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|text| {
            let mut cores = std::collections::HashSet::new();
            let mut physical = None;
            for line in text.lines() {
                let mut parts = line.splitn(2, ':');
                let key = parts.next().unwrap_or("").trim();
                let value = parts.next().unwrap_or("").trim().to_string();
                match key {
                    "physical id" => physical = Some(value),
                    "core id" => {
                        cores.insert((physical.clone(), value));
                    }
                    _ => {}
                }
            }
            (!cores.is_empty()).then_some(cores.len())
        });
    from_cpuinfo.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}
