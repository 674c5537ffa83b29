//! A calibration's games on sessions (`arena calibrate`): the reference pool's round robin,
//! rated once, and per step a gauntlet of the candidate at one knob value against the pool, each
//! in its own run folder under the calibration folder (`reference/`, `step-NN-<knob>-<value>/`),
//! so every game is on disk and can be re-rated. The search over the knob is
//! `rating::calibrate`'s; [`StepPlayer`] is the [`Player`] it asks for games.
//!
//! The trajectory is a function of the setup and the games on disk only: step `k` plays with the
//! run seed `seed + 1 + k` and the knob value the games of the steps before it place, and its
//! games are taken in the order of their ids. So a resume (`arena calibrate --resume`, after a
//! signal or a `kill -9`) replays the finished steps from their folders without playing,
//! finishes the interrupted one (its missing games, with their own seeds) and goes on: with the
//! games on disk, the steps an uninterrupted run would have chosen; with deterministic bots
//! (fixed depth or nodes), the very games and result of an uninterrupted run.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::Session;
use crate::calibrate::{Knob, Observation, Player};
use crate::plan::game::GameSettings;
use crate::plan::gauntlet;
use crate::plan::pool::{specs, Reference};
use crate::report::rate::{rate_dir, RateOptions, Rated};
use crate::run_folder::calibration::{CANDIDATE, REFERENCE_DIR, STEP_PREFIX};
use crate::run_folder::games::{read_games, GameRow};
use crate::run_folder::state::{RecordedState, State};
use crate::run_folder::{holds_run, RunFile, RunKind};
use crate::tournament::events::RunSink;
use crate::tournament::runner::RunMode;
use crate::vocab::{shell_word, BotSpec, Format, RunPlan};

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

/// Plays one tournament of the calibration (`kind`: the reference pool or a step) into
/// `plan.out` to its end, with `sinks` for its events, and says whether it had been played
/// before. A folder that already holds a run (a resume, `--resume` of the calibration in `top`)
/// must hold this one, planned alike (the same players and seed): a finished one is not played
/// again, an unfinished one plays exactly its missing games, with their own seeds. So a
/// calibration cut anywhere, even by `kill -9`, goes on with the games an uninterrupted one
/// would have played.
fn play(plan: RunPlan, kind: RunKind, top: &Path, sinks: &mut [&mut dyn RunSink]) -> Result<bool> {
    let out = plan.out.clone();
    let session = if holds_run(&out) {
        let recorded = RunFile::read(&out)?.config;
        if recorded.players != plan.config.players || recorded.seed != plan.config.seed {
            bail!(
                "{} was played with other players or another seed than this calibration would \
                 play there: it is not this calibration's folder (or its setup changed)",
                out.display()
            );
        }
        if RecordedState::read(&out)?.map(|r| r.state) == Some(State::Finished) {
            return Ok(true);
        }
        let plan = RunPlan {
            config: recorded,
            ..plan
        };
        let mode = RunMode {
            resume: true,
            kind,
            ..RunMode::default()
        };
        Session::open(plan, mode)?
    } else {
        Session::open_new(plan, kind)?
    };
    let outcome = session.play(sinks)?;
    if let Some(signal) = outcome.interrupted() {
        bail!(
            "interrupted ({signal}): the games so far are in {}; `arena calibrate --resume {}` \
             goes on from there",
            out.display(),
            shell_word(top)
        );
    }
    outcome.check(&out, false, false)?;
    Ok(false)
}

/// The pool's round robin, `pairs` per encounter, in `dir/reference/`, rated with `anchor` (or a
/// mean of 1200): the rating, whose rows hold every member's Elo, and whether the round robin
/// had been played before (a resume rates it from disk).
pub fn rate_pool(
    refs: &[Reference],
    game: &GameSettings,
    pairs: u32,
    seed: u64,
    anchor: Option<(String, f64)>,
    dir: &Path,
    sinks: &mut [&mut dyn RunSink],
) -> Result<(Rated, bool)> {
    let plan = game.plan(
        "calibrate",
        specs(refs)?,
        Format::RoundRobin,
        pairs,
        seed,
        dir.join(REFERENCE_DIR),
    )?;
    let ref_dir = plan.out.clone();
    let replayed = play(plan, RunKind::CalibrationReference, dir, sinks)?;
    let opts = RateOptions {
        anchor,
        bootstrap: 0,
        ..RateOptions::default()
    };
    Ok((rate_dir(&ref_dir, &opts)?, replayed))
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
    /// Played before and read from its folder (a resume), not played now.
    pub replayed: bool,
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
    /// Plays the step into `out` (or finds it played); returns its games in the order of their
    /// ids (so pair by pair, whatever order they ended in: the trajectory does not depend on
    /// which game finished first) and whether it had been played before.
    fn play_step(
        &mut self,
        step: usize,
        x: f64,
        pairs: u32,
        out: PathBuf,
    ) -> Result<(Vec<GameRow>, bool)> {
        let mut players = vec![self.candidate.at(self.knob, x)?];
        players.extend(specs(self.refs)?);
        let format = gauntlet(&players, &[CANDIDATE.to_string()])?;
        let seed = self.seed.wrapping_add(1 + step as u64);
        let plan = self
            .game
            .plan_batch("calibrate", players, format, pairs, seed, out.clone())?;
        let replayed = play(plan, RunKind::CalibrationStep, self.dir, self.sinks)?;
        let mut rows = read_games(&out)?;
        rows.sort_by_key(|r| r.game_id);
        Ok((rows, replayed))
    }
}

impl Player for StepPlayer<'_> {
    fn play(&mut self, step: usize, x: f64, pairs: u32) -> Result<Vec<Observation>, String> {
        let value = self.knob.format(x);
        let out = self.dir.join(format!(
            "{STEP_PREFIX}{step:02}-{}-{value}",
            self.knob.name.to_lowercase()
        ));
        let (rows, replayed) = self
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
            replayed,
        });
        Ok(games)
    }
}
