//! The game settings every game-playing command shares: the typed ones ([`GameFlags`], the
//! flags and a file's keys) checked into [`GameSettings`], and the one place a [`RunPlan`] is
//! put together from them.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::physical_cores;
use crate::openings;
use crate::rules::Ruleset;
use crate::vocab::schedule::{derive_seed, stream};
use crate::vocab::{
    BotSpec, Clock, Format, GameFlags, OpeningSource, RunConfig, RunPlan, TimeControl,
};

/// The checked game settings of [`GameFlags`].
#[derive(Clone, Debug)]
pub struct GameSettings {
    pub rules: Ruleset,
    pub openings: OpeningSource,
    pub time: TimeControl,
    pub concurrency: usize,
}

impl GameFlags {
    /// Parses and checks the settings, with the defaults for what was not given.
    pub fn settings(&self) -> Result<GameSettings> {
        let rules_text = self.rules.as_deref().unwrap_or("kalah");
        let rules: Ruleset = rules_text
            .parse()
            .map_err(|e| anyhow::anyhow!("--rules `{rules_text}`: {e}"))?;
        let openings = match &self.openings {
            Some(path) => read_openings(rules, path)?,
            None => OpeningSource::Random {
                plies: self.opening_plies.unwrap_or(2),
            },
        };
        let mut time = TimeControl::default();
        if let Some(tc) = &self.tc {
            time.clock = Some(Clock::parse(tc).map_err(anyhow::Error::msg)?);
            time.movetime_ms = self.movetime;
        } else if self.movetime.is_some() {
            time.movetime_ms = self.movetime;
        }
        time.depth = self.depth;
        time.nodes = self.nodes;
        time.time_by = self.time_by.unwrap_or_default();
        if self.concurrency == Some(0) {
            bail!("--concurrency must be at least 1");
        }
        Ok(GameSettings {
            rules,
            openings,
            time,
            concurrency: self.concurrency.unwrap_or_else(physical_cores),
        })
    }

    /// [`GameFlags::settings`], except that on standard Kalah(6,4) the bundled opening suite
    /// replaces random 2-sow openings when neither `--openings` nor `--opening-plies` is given:
    /// the default of `arena sprt` and `arena gate` (docs/regression-testing.md says why).
    pub fn settings_with_suite(&self) -> Result<GameSettings> {
        let mut settings = self.settings()?;
        if self.openings.is_none() && self.opening_plies.is_none() {
            if let Some(suite) = openings::bundled(settings.rules) {
                settings.openings = suite;
            }
        }
        Ok(settings)
    }

    /// The settings as a run played them (`settings`, from these flags), as a file's keys with
    /// `openings` made absolute: what `arena calibrate` writes into its `bands.toml`.
    pub fn as_played(&self, settings: &GameSettings) -> GameFlags {
        let mut table = GameFlags {
            rules: Some(settings.rules.to_string()),
            movetime: self.movetime,
            tc: self.tc.clone(),
            depth: self.depth,
            nodes: self.nodes,
            time_by: self.time_by,
            ..GameFlags::default()
        };
        match &settings.openings {
            OpeningSource::Random { plies } => table.opening_plies = Some(*plies),
            OpeningSource::List { file, .. } => {
                table.openings =
                    Some(std::path::absolute(file).unwrap_or_else(|_| PathBuf::from(file)));
            }
        }
        table
    }
}

impl GameSettings {
    /// The plan of a run named `name`: `players` in `format`, `pairs` game pairs per encounter,
    /// seeded by `seed`, into `out`, under these settings, checked. Games are not adjudicated and
    /// a player is dropped after 3 failed starts in a row, unless the caller says otherwise.
    pub fn plan(
        &self,
        name: &str,
        players: Vec<BotSpec>,
        format: Format,
        pairs: u32,
        seed: u64,
        out: PathBuf,
    ) -> Result<RunPlan> {
        let config = RunConfig {
            name: name.to_string(),
            rules: self.rules,
            players,
            format,
            pairs,
            openings: self.openings.clone(),
            seed,
            time: self.time.clone(),
            adjudicate: false,
            max_start_failures: 3,
        };
        config.validate().map_err(anyhow::Error::msg)?;
        Ok(RunPlan {
            config,
            concurrency: self.concurrency,
            out,
        })
    }
}

impl GameSettings {
    /// The plan of one batch of a longer session (a calibration step, a tuning iteration),
    /// `seed` the batch's own: as [`GameSettings::plan`], except that an openings list starts at
    /// a place drawn from `seed`. A list is used in order and a batch plays a few pairs, so
    /// every batch started at the list's first openings: a calibration of 3,000 games played 4
    /// of the suite's 200, and measured the bot on those alone.
    pub fn plan_batch(
        &self,
        name: &str,
        players: Vec<BotSpec>,
        format: Format,
        pairs: u32,
        seed: u64,
        out: PathBuf,
    ) -> Result<RunPlan> {
        let mut plan = self.plan(name, players, format, pairs, seed, out)?;
        if let OpeningSource::List { openings, .. } = &mut plan.config.openings {
            if !openings.is_empty() {
                let start = derive_seed(seed, stream::OPENINGS, 0) % openings.len() as u64;
                openings.rotate_left(start as usize);
            }
        }
        Ok(plan)
    }
}

/// An openings file (the format of [`crate::openings`]).
fn read_openings(rules: Ruleset, path: &Path) -> Result<OpeningSource> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("cannot read openings file {}", path.display()))?;
    let label = path.display().to_string();
    let openings = openings::parse(rules, &text, &label).map_err(anyhow::Error::msg)?;
    Ok(OpeningSource::List {
        file: label,
        openings,
    })
}
