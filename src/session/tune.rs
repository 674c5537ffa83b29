//! A tune on sessions (`arena tune`): SPSA over a bot's numeric options
//! (`rating::spsa`), one session per iteration in its own run folder `iter-NNNN/` under the tune
//! folder, where θ+ and θ− play colour-swapped pairs from the arena's seeded openings, then an
//! optional verification SPRT of the tuned values against the start values in `verify/`.
//!
//! The trajectory is a function of the seed and the games on disk only: iteration `i` draws its
//! perturbation (δ and the stochastic roundings) from a generator seeded by (seed, i) and plays
//! with the run seed `seed + 1 + i`; its update uses its completed pairs as `games.csv` holds
//! them. So a resume (after a signal or a `kill -9`) replays the finished iterations from their
//! folders without playing, resumes the interrupted one (its missing games, with the same
//! per-game seeds), and goes on: with deterministic bots (fixed depth or nodes) the trajectory is
//! the one an uninterrupted tune would have had. Nothing here prints.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use super::probe::find_declared;
use super::sprt::{self as sprt_session, Hypotheses, PairDone, BASE, TEST};
use super::Session;
use crate::plan::game::GameSettings;
use crate::protocol::{OptionDecl, OptionKind};
use crate::rating::margin::ResultScale;
use crate::rating::sprt::{SprtModel, SprtResult};
use crate::rating::spsa::{sim::iteration_rng, tail_mean, Param, Perturbation, Spsa};
use crate::run_folder::games::{read_games, GameRow};
use crate::run_folder::margins::{max_margin, pairs_of};
use crate::run_folder::tune::{
    iteration_dir, write_tuned, TuneFile, TuneSetup, TuneStep, VerifyOutcome, MINUS, PLUS,
    VERIFY_DIR,
};
use crate::run_folder::{holds_run, RunFile, RunKind};
use crate::tournament::events::{OnGame, RunSink, Steer};
use crate::tournament::runner::RunMode;
use crate::vocab::{BotSpec, Format, RunPlan};

/// The bot with its fixed options and the parameters at `values`, named `name`.
pub fn spec_at(setup: &TuneSetup, name: &str, values: &[f64]) -> Result<BotSpec> {
    let mut spec = setup.player()?;
    spec.name = name.to_string();
    spec.options
        .retain(|(k, _)| !setup.params.iter().any(|p| p.name.eq_ignore_ascii_case(k)));
    spec.options.extend(
        setup
            .params
            .iter()
            .zip(values)
            .map(|(p, v)| (p.name.clone(), p.format(*v))),
    );
    Ok(spec)
}

/// The result a bot gets: θ (the mean of the trajectory's tail when asked), integers rounded.
pub fn tuned_values(setup: &TuneSetup, steps: &[TuneStep]) -> Vec<f64> {
    let trajectory: Vec<Vec<f64>> = steps.iter().map(|s| s.theta.clone()).collect();
    let theta = tail_mean(&trajectory, setup.tail)
        .unwrap_or_else(|| setup.params.iter().map(|p| p.start).collect());
    setup
        .params
        .iter()
        .zip(theta)
        .map(|(p, x)| if p.integer { p.clip(x.round()) } else { x })
        .collect()
}

/// θ+'s completed pairs and wins − losses among `rows` (players [`PLUS`] and [`MINUS`]): a pair
/// counts once both its games are in.
pub fn pair_result(rows: &[GameRow]) -> (u64, f64) {
    let mut pairs: BTreeMap<u64, Vec<f64>> = BTreeMap::new();
    for row in rows {
        let first = row.result.score();
        let plus = if row.first == PLUS {
            first
        } else {
            1.0 - first
        };
        pairs.entry(row.pair_id).or_default().push(plus);
    }
    let mut n = 0;
    let mut result = 0.0;
    for games in pairs.values().filter(|g| g.len() == 2) {
        n += 1;
        result += 2.0 * (games[0] + games[1]) - 2.0;
    }
    (n, result)
}

/// θ+'s completed pairs and the iteration's result from their seed margins (`--model
/// margin`): `scale` counts every game so far, these included, and turns the clipped summed
/// margins (a third of the ruleset's seeds) into wins − losses.
pub fn margin_pair_result(rows: &[GameRow], scale: &mut ResultScale) -> Result<(u64, f64)> {
    let pairs = pairs_of(rows, PLUS)?;
    let clip = rows.first().map_or(16.0, |r| max_margin(r) / 3.0);
    for &p in &pairs {
        scale.add(p, clip);
    }
    Ok((pairs.len() as u64, scale.result(&pairs, clip)))
}

/// One iteration as the caller is told it (after its update).
pub struct IterationDone<'a> {
    pub step: &'a TuneStep,
    pub params: &'a [Param],
    /// Replayed from its folder without playing (a resume).
    pub replayed: bool,
    /// Its forfeits by reason (`crash`, `timeout`, ...), and its games.
    pub forfeits: &'a Forfeits,
}

/// An iteration's forfeits: how many games ended by each fault (`games.csv`'s `termination`),
/// and how many games there were.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Forfeits {
    pub by_reason: BTreeMap<String, u64>,
    pub games: u64,
}

impl Forfeits {
    /// The forfeits among `rows`.
    pub fn of(rows: &[GameRow]) -> Forfeits {
        let mut by_reason = BTreeMap::new();
        for row in rows.iter().filter(|r| r.forfeit.is_some()) {
            *by_reason.entry(row.termination.to_string()).or_insert(0) += 1;
        }
        Forfeits {
            by_reason,
            games: rows.len() as u64,
        }
    }

    pub fn total(&self) -> u64 {
        self.by_reason.values().sum()
    }

    /// More than half the games were forfeits: the results say how the bot fails, not how
    /// strong θ+ and θ− are, and a tune must not move on them.
    pub fn dominate(&self) -> bool {
        2 * self.total() > self.games
    }

    /// `12 of 16 games (crash 11, timeout 1)`.
    pub fn words(&self) -> String {
        let reasons: Vec<String> = self
            .by_reason
            .iter()
            .map(|(reason, n)| format!("{reason} {n}"))
            .collect();
        format!(
            "{} of {} games ({})",
            self.total(),
            self.games,
            reasons.join(", ")
        )
    }
}

/// Everything [`run`] needs besides the setup.
pub struct TuneRun<'a> {
    pub dir: &'a Path,
    /// Games played at once (not part of the trajectory).
    pub concurrency: Option<usize>,
    pub on_iteration: &'a mut dyn FnMut(&IterationDone<'_>),
    /// Sinks of every iteration's events (the CLI's progress and warnings).
    pub sinks: &'a mut [&'a mut dyn RunSink],
}

fn settings(setup: &TuneSetup, concurrency: Option<usize>) -> Result<GameSettings> {
    let mut game = setup.game.settings_with_suite()?;
    if let Some(c) = concurrency {
        game.concurrency = c;
    }
    Ok(game)
}

/// Plays (or replays from disk) iteration `it` with `pert` into its folder; its games.
fn play_iteration(
    setup: &TuneSetup,
    run: &mut TuneRun<'_>,
    game: &GameSettings,
    it: u64,
    pert: &Perturbation,
) -> Result<(Vec<GameRow>, bool)> {
    let out = iteration_dir(run.dir, it);
    let players = vec![
        spec_at(setup, PLUS, &pert.plus)?,
        spec_at(setup, MINUS, &pert.minus)?,
    ];
    let seed = setup.seed.wrapping_add(1 + it);
    let plan = game.plan_batch(
        "tune",
        players,
        Format::RoundRobin,
        setup.pairs_per_iteration,
        seed,
        out.clone(),
    )?;
    let resume = holds_run(&out);
    if resume {
        let recorded = RunFile::read(&out)?.config;
        if recorded.players != plan.config.players || recorded.seed != plan.config.seed {
            bail!(
                "{} was played with other players or another seed than this tune's iteration {it} \
                 would be: the folder is not this tune's (or the tune's setup changed)",
                out.display()
            );
        }
        let rows = read_games(&out)?;
        if rows.len() as u64 >= 2 * u64::from(setup.pairs_per_iteration) {
            return Ok((rows, true));
        }
    }
    let session = if resume {
        let plan = RunPlan {
            config: RunFile::read(&out)?.config,
            ..plan
        };
        let mode = RunMode {
            resume: true,
            kind: RunKind::TuneIteration,
            ..RunMode::default()
        };
        Session::open(plan, mode)?
    } else {
        Session::open_new(plan, RunKind::TuneIteration)?
    };
    let mut observe = OnGame(|_: &crate::run_folder::games::GameRecord| Steer::Continue);
    let outcome = session.play_after(&mut observe, run.sinks)?;
    if let Some(signal) = outcome.interrupted() {
        bail!(
            "interrupted ({signal}) in iteration {it}: resume with `arena tune --resume {}`",
            run.dir.display()
        );
    }
    outcome.check(&out, false, false)?;
    Ok((read_games(&out)?, false))
}

/// Runs the tune described by `file.setup` in `run.dir` from its first iteration, replaying
/// what is on disk, to its last; `file` gets every step and is written after each. Returns the
/// tuned values.
pub fn run(file: &mut TuneFile, run: &mut TuneRun<'_>) -> Result<Vec<f64>> {
    let setup = file.setup.clone();
    let game = settings(&setup, run.concurrency)?;
    let mut spsa = Spsa::new(setup.params.clone(), setup.schedule);
    let mut scale = ResultScale::default();
    file.steps.clear();
    for it in 0..setup.iterations {
        let pert = spsa.perturb(&mut iteration_rng(setup.seed, it));
        let (rows, replayed) = play_iteration(&setup, run, &game, it, &pert)?;
        let forfeits = Forfeits::of(&rows);
        if forfeits.dominate() {
            let folder = iteration_dir(run.dir, it);
            bail!(
                "iteration {it}: {} were forfeits, so its results say how the bot fails, not \
                 which θ plays better: the tune stops before θ moves on them. The bot's log is in \
                 {}; fix the bot and tune afresh (or remove {} and resume)",
                forfeits.words(),
                folder.join("logs").display(),
                folder.display()
            );
        }
        let (pairs, result) = if setup.model == "margin" {
            margin_pair_result(&rows, &mut scale)?
        } else {
            pair_result(&rows)
        };
        spsa.update(&pert, pairs, result);
        let step = TuneStep {
            iteration: it,
            pairs: spsa.pairs,
            iteration_pairs: pairs,
            result,
            theta: spsa.theta.clone(),
            c: pert.c.clone(),
            r: pert.r.clone(),
            delta: pert.delta.clone(),
            plus: pert.plus.clone(),
            minus: pert.minus.clone(),
        };
        (run.on_iteration)(&IterationDone {
            step: &step,
            params: &setup.params,
            replayed,
            forfeits: &forfeits,
        });
        file.steps.push(step);
        file.write(run.dir)?;
    }
    let tuned = tuned_values(&setup, &file.steps);
    file.tuned = Some(tuned.clone());
    file.finished = true;
    file.write(run.dir)?;
    let spec = spec_at(&setup, "tuned", &tuned)?;
    write_tuned(run.dir, &setup.params, &tuned, &spec)?;
    Ok(tuned)
}

/// The verification: an SPRT of `tuned` (test) against the start values (base) with the
/// setup's verification settings, in `verify/` (or `verify-2/`, ... when an earlier one was
/// interrupted: an SPRT folder is not resumed). Its outcome is recorded in `tune.json`.
pub fn verify(
    file: &mut TuneFile,
    dir: &Path,
    concurrency: Option<usize>,
    report: bool,
    on_pair: &mut dyn FnMut(&PairDone<'_>),
    sinks: &mut [&mut dyn RunSink],
) -> Result<VerifyOutcome> {
    let setup = file.setup.clone();
    let v = setup
        .verify
        .clone()
        .context("this tune has no verification settings")?;
    let tuned = file
        .tuned
        .clone()
        .context("the tune has not finished: no tuned values to verify")?;
    let start: Vec<f64> = setup.params.iter().map(|p| p.start).collect();
    let mut game = v.game.settings_with_suite()?;
    if let Some(c) = concurrency {
        game.concurrency = c;
    }
    let players = vec![
        spec_at(&setup, BASE, &start)?,
        spec_at(&setup, TEST, &tuned)?,
    ];
    let out = free_verify_dir(dir);
    let plan = game.plan(
        "tune-verify",
        players,
        Format::RoundRobin,
        v.max_pairs,
        setup.seed.wrapping_add(1 << 32),
        out.clone(),
    )?;
    let test = Hypotheses {
        elo0: v.elo0,
        elo1: v.elo1,
        alpha: v.alpha,
        beta: v.beta,
        model: SprtModel::Logistic,
        margin: None,
    };
    let end = sprt_session::play(plan, &test, report, on_pair, sinks)?;
    let stats = end.penta.stats(0.95);
    let outcome = VerifyOutcome {
        dir: out
            .file_name()
            .map_or_else(|| VERIFY_DIR.to_string(), |n| n.to_string_lossy().into()),
        verdict: match end.status.result {
            SprtResult::AcceptH1 => "H1",
            SprtResult::AcceptH0 => "H0",
            SprtResult::Continue => "inconclusive",
        }
        .to_string(),
        llr: end.status.llr,
        lower: end.status.lower,
        upper: end.status.upper,
        pairs: end.penta.pairs(),
        elo: stats.as_ref().map(|s| s.elo),
        elo_error: stats.as_ref().map(|s| s.elo_error),
    };
    file.verify = Some(outcome.clone());
    file.write(dir)?;
    Ok(outcome)
}

/// `verify/`, or the first `verify-N/` that holds no run yet.
fn free_verify_dir(dir: &Path) -> PathBuf {
    let first = dir.join(VERIFY_DIR);
    if !holds_run(&first) {
        return first;
    }
    (2..)
        .map(|n| dir.join(format!("{VERIFY_DIR}-{n}")))
        .find(|d| !holds_run(d))
        .expect("some number is free")
}

/// The parameters `names` from the bot's own declarations (`declared`, [`declared_options`]):
/// each must be a `spin` option; its default, min and max become start, min and max, with
/// `c_end` = (max − min) / 20 (at least 1) and fishtest's usual `r_end` 0.002.
pub fn declared_params(declared: &[OptionDecl], names: &[String]) -> Result<Vec<Param>> {
    names
        .iter()
        .map(|name| {
            let decl = find_declared(declared, name, "--tune-options")?;
            let OptionKind::Spin { default, min, max } = decl.kind else {
                bail!(
                    "`{}` is not a spin option: give it in a --params file (name, start, min, max, c_end, r_end)",
                    decl.name
                );
            };
            Param {
                name: decl.name.clone(),
                start: default as f64,
                min: min as f64,
                max: max as f64,
                c_end: ((max - min) as f64 / 20.0).max(1.0),
                r_end: 0.002,
                integer: true,
            }
            .checked()
            .map_err(|e| anyhow::anyhow!("{e}"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::Outcome;
    use crate::run_folder::games::Termination;
    use crate::vocab::FaultKind;

    fn row(id: u64, fault: Option<FaultKind>) -> GameRow {
        GameRow {
            game_id: id,
            pair_id: id / 2,
            first: PLUS.into(),
            second: MINUS.into(),
            result: Outcome::Win,
            score_first: 1,
            sows: 3,
            termination: fault.map_or(Termination::Normal, Termination::Forfeit),
            forfeit: fault.map(|_| MINUS.to_string()),
            ..GameRow::blank()
        }
    }

    /// #48 point 16: an iteration's forfeits by reason, and when they dominate (more than half
    /// its games: the tune stops there).
    #[test]
    fn forfeits_are_counted_by_reason_and_dominate_past_half() {
        let crash = Some(FaultKind::Crash);
        let rows = [
            row(0, crash),
            row(1, Some(FaultKind::Timeout)),
            row(2, None),
            row(3, None),
        ];
        let f = Forfeits::of(&rows);
        assert_eq!(f.total(), 2);
        assert!(!f.dominate(), "half is not more than half");
        assert_eq!(f.words(), "2 of 4 games (crash 1, timeout 1)");
        let f = Forfeits::of(&[row(0, crash), row(1, crash), row(2, crash), row(3, None)]);
        assert!(f.dominate());
        assert_eq!(f.words(), "3 of 4 games (crash 3)");
        assert!(!Forfeits::of(&[]).dominate());
    }
}
