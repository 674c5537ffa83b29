//! A calibration's games on sessions (`arena calibrate`): the reference pool's round robin,
//! rated once, and per step a gauntlet of the candidate at one knob value against the pool, each
//! in its own run folder under the calibration folder (`reference/`, `step-NN-<knob>-<value>/`),
//! so every game is on disk and can be re-rated. The search over the knob is
//! `rating::calibrate`'s; [`StepPlayer`] is the [`Player`] it asks for games.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::Session;
use crate::calibrate::{Knob, Observation, Player};
use crate::plan::game::GameSettings;
use crate::plan::gauntlet;
use crate::plan::pool::{specs, Reference};
use crate::report::rate::{rate_dir, RateOptions, Rated};
use crate::run_folder::calibration::{CANDIDATE, REFERENCE_DIR, STEP_PREFIX};
use crate::run_folder::games::{GameRecord, GameRow};
use crate::run_folder::RunKind;
use crate::tournament::events::{OnGame, RunSink, Steer};
use crate::vocab::{BotSpec, Format, RunPlan};

/// The bot being calibrated, named [`CANDIDATE`], with its fixed options.
#[derive(Clone, Debug)]
pub struct Candidate {
    pub spec: BotSpec,
}

impl Candidate {
    /// The candidate at knob value `x`, with its fixed options (a fixed value of the knob itself
    /// gives way to `x`).
    pub fn at(&self, knob: &Knob, x: f64) -> Result<BotSpec> {
        let mut spec = self.spec.clone();
        spec.name = CANDIDATE.to_string();
        spec.options.retain(|(k, _)| *k != knob.name);
        spec.options.push((knob.name.clone(), knob.format(x)));
        Ok(spec)
    }
}

/// Plays one tournament of the calibration (`kind`: the reference pool or a step) to its end,
/// with `observer` (if any) and then `sinks` for its events, and returns its folder.
fn play(
    plan: RunPlan,
    kind: RunKind,
    observer: Option<&mut dyn RunSink>,
    sinks: &mut [&mut dyn RunSink],
) -> Result<PathBuf> {
    let session = Session::open_new(plan, kind)?;
    let outcome = match observer {
        Some(observer) => session.play_after(observer, sinks)?,
        None => session.play(sinks)?,
    };
    outcome.check(session.dir(), false, false)?;
    Ok(session.dir().to_path_buf())
}

/// The pool's round robin, `pairs` per encounter, in `dir/reference/`, rated with `anchor` (or a
/// mean of 1200): the rating, whose rows hold every member's Elo.
pub fn rate_pool(
    refs: &[Reference],
    game: &GameSettings,
    pairs: u32,
    seed: u64,
    anchor: Option<(String, f64)>,
    dir: &Path,
    sinks: &mut [&mut dyn RunSink],
) -> Result<Rated> {
    let plan = game.plan(
        "calibrate",
        specs(refs)?,
        Format::RoundRobin,
        pairs,
        seed,
        dir.join(REFERENCE_DIR),
    )?;
    let ref_dir = play(plan, RunKind::CalibrationReference, None, sinks)?;
    let opts = RateOptions {
        anchor,
        bootstrap: 0,
        ..RateOptions::default()
    };
    rate_dir(&ref_dir, &opts)
}

/// Each member's Elo in `rated`, in the pool's order.
pub fn pool_elos(refs: &[Reference], rated: &Rated) -> Result<Vec<f64>> {
    refs.iter()
        .map(|r| {
            rated
                .report
                .row(&r.name)
                .map(|row| row.elo)
                .with_context(|| format!("the reference run did not rate `{}`", r.name))
        })
        .collect()
}

/// One step as the caller is told it: the knob value in words, and the games' count and points.
pub struct StepDone<'a> {
    pub step: usize,
    pub value: &'a str,
    pub games: usize,
    pub points: f64,
}

/// Real games for the calibration: each batch a gauntlet of the candidate against the pool in
/// the step's own folder under `dir`, seeded `seed + 1 + step`.
pub struct StepPlayer<'a> {
    pub candidate: &'a Candidate,
    pub knob: &'a Knob,
    pub refs: &'a [Reference],
    pub game: &'a GameSettings,
    pub seed: u64,
    pub dir: &'a Path,
    pub on_step: &'a mut dyn FnMut(&StepDone<'_>),
    /// Sinks of every step's events (the CLI's warnings).
    pub sinks: &'a mut [&'a mut dyn RunSink],
}

impl StepPlayer<'_> {
    /// Plays the step into `out`; returns its games in game-id order.
    fn play_step(&mut self, step: usize, x: f64, pairs: u32, out: PathBuf) -> Result<Vec<GameRow>> {
        let mut players = vec![self.candidate.at(self.knob, x)?];
        players.extend(specs(self.refs)?);
        let format = gauntlet(&players, &[CANDIDATE.to_string()])?;
        let seed = self.seed.wrapping_add(1 + step as u64);
        let plan = self
            .game
            .plan("calibrate", players, format, pairs, seed, out)?;
        let mut rows = Vec::new();
        let mut collect = OnGame(|record: &GameRecord| {
            rows.push(record.row.clone());
            Steer::Continue
        });
        play(
            plan,
            RunKind::CalibrationStep,
            Some(&mut collect),
            self.sinks,
        )?;
        // In game order, not the order they finished in: the search's fit adds them up in
        // this order, and a sum of floats depends on it.
        rows.sort_by_key(|r| r.game_id);
        Ok(rows)
    }
}

impl Player for StepPlayer<'_> {
    fn play(&mut self, step: usize, x: f64, pairs: u32) -> Result<Vec<Observation>, String> {
        let value = self.knob.format(x);
        let out = self.dir.join(format!(
            "{STEP_PREFIX}{step:02}-{}-{value}",
            self.knob.name.to_lowercase()
        ));
        let rows = self
            .play_step(step, x, pairs, out)
            .map_err(|e| format!("{e:#}"))?;
        let mut games = Vec::new();
        for row in rows {
            let first_points = row.result.score();
            let candidate_first = row.first == CANDIDATE;
            let other = if candidate_first {
                &row.second
            } else {
                &row.first
            };
            let Some(opponent) = self.refs.iter().position(|r| &r.name == other) else {
                continue;
            };
            games.push(Observation {
                x,
                opponent,
                candidate_first,
                score: if candidate_first {
                    first_points
                } else {
                    1.0 - first_points
                },
            });
        }
        (self.on_step)(&StepDone {
            step,
            value: &value,
            games: games.len(),
            points: games.iter().map(|g| g.score).sum(),
        });
        Ok(games)
    }
}
