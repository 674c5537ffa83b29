//! The session every game-playing command runs on (`arena run`, `sprt`, `gate`, `calibrate`):
//! one path from a checked plan to a finished folder, so that no command writes its own.
//!
//! [`Session::open`] checks the folder (a new run's must be absent or empty, a resume's must hold
//! a run), takes its lock, makes this process the reaper of its bots' orphans and builds the
//! runtime; [`Session::play`] plays the plan with the sinks it is given (the command's observers
//! and its messages) after the results writer; [`Session::finish`] rates the folder and draws its
//! report, and [`Finished`] says what happened for the CLI to render. Nothing here prints.

pub mod calibration;
pub mod gate;
mod order;
pub mod probe;
pub mod sprt;
pub mod tune;

use std::path::Path;

use anyhow::{bail, Context, Result};

use crate::report::documents::{write_report, ReportOptions, ReportOutcome};
use crate::report::rate::{rate_dir, RateOptions, Rated};
use crate::run_folder::files::{self, FileError};
use crate::run_folder::games;
use crate::run_folder::lock::RunLock;
use crate::run_folder::logs::logs_dir;
use crate::run_folder::{check_new_folder, holds_run, RunFile, RunKind};
use crate::tournament::events::RunSink;
use crate::tournament::runner::{self, RunMode, RunOutcome};
use crate::vocab::RunPlan;

/// A run folder locked for one plan, with the runtime that plays it.
pub struct Session {
    plan: RunPlan,
    mode: RunMode,
    runtime: tokio::runtime::Runtime,
    _lock: RunLock,
    /// The folder was made for this run (absent or empty before): it goes again if the run
    /// stops before its first game, so that no half-made folder is left behind.
    fresh: bool,
}

/// How a session ends: whether to rate the folder, with which options, and whether to draw the
/// report (figures, `report.html`, `summary.md`).
#[derive(Clone, Debug, Default)]
pub struct Finish {
    /// `None`: no ratings and no report (a calibration step, rated by its caller).
    pub rating: Option<RateOptions>,
    pub report: bool,
}

impl Finish {
    /// The end of an SPRT or a gate when `report`: rated with a few hundred bootstrap samples
    /// (plenty for two players or a gauntlet, and quick), and the report drawn; otherwise
    /// neither.
    pub fn sequential_test(report: bool) -> Finish {
        Finish {
            rating: report.then(|| RateOptions {
                bootstrap: 300,
                ..RateOptions::default()
            }),
            report,
        }
    }
}

/// What a session did, for the CLI to say.
pub struct Finished {
    pub outcome: RunOutcome,
    /// The ratings, or why there are none (`None` when not asked or nothing was played).
    pub rated: Option<Result<Rated>>,
    /// The report, or why it could not be drawn (`None` when not asked).
    pub report: Option<Result<ReportOutcome>>,
}

impl Session {
    /// Checks and locks `plan.out` for `mode` (a new run's folder is created), makes this
    /// process the subreaper of its bots and builds the runtime.
    pub fn open(plan: RunPlan, mode: RunMode) -> Result<Session> {
        plan.config.validate().map_err(anyhow::Error::msg)?;
        if plan.concurrency == 0 {
            bail!("--concurrency must be at least 1");
        }
        let dir = &plan.out;
        if !mode.resume {
            check_new_folder(dir)?;
        }
        let fresh = !mode.resume && std::fs::read_dir(dir).map_or(true, |mut d| d.next().is_none());
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        // The bots' logs go into a real folder of the run's: not a file of that name (which
        // would stop the run with a word for the wrong path), not a link out of the folder.
        let logs = logs_dir(dir);
        match files::is_folder(&logs) {
            Ok(true) => {}
            Ok(false) => std::fs::create_dir(&logs)
                .with_context(|| format!("cannot create {}", logs.display()))?,
            Err(FileError::NotRegular { what, .. }) => bail!(
                "{} is {what}, not a folder: the run keeps its bots' stderr logs there; move it away",
                logs.display()
            ),
            Err(e) => return Err(e.into()),
        }
        let lock = RunLock::acquire(dir)?;
        // Bots that double-fork are re-parented to this process, so that they can be killed
        // and reaped when their bot's life ends; a bot costs several descriptors.
        let open_files = crate::sys::prepare_process();
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .map_err(|e| runner::arena_trouble("building its runtime", &e, open_files))?;
        Ok(Session {
            plan,
            mode,
            runtime,
            _lock: lock,
            fresh,
        })
    }

    /// [`Session::open`] for a new run of `kind` that cannot be resumed (an SPRT, a gate, a
    /// calibration's runs): a folder that holds a run is refused. The lock covers the files the
    /// command writes beside the games.
    pub fn open_new(plan: RunPlan, kind: RunKind) -> Result<Session> {
        if holds_run(&plan.out) {
            bail!(
                "{} already holds a run: choose another --out",
                plan.out.display()
            );
        }
        let mode = RunMode {
            kind,
            ..RunMode::default()
        };
        Session::open(plan, mode)
    }

    pub fn dir(&self) -> &Path {
        &self.plan.out
    }

    pub fn plan(&self) -> &RunPlan {
        &self.plan
    }

    /// Plays the plan; every event goes to the results writer, then to `sinks` in order.
    /// A run that stops before its first game (a bot that cannot start) in a folder made for
    /// it takes the folder with it (`run.json` is written before the first game).
    pub fn play(&self, sinks: &mut [&mut dyn RunSink]) -> Result<RunOutcome> {
        let played = self
            .runtime
            .block_on(runner::play(&self.plan, &self.mode, sinks));
        if played.is_err() && self.fresh && !RunFile::exists(self.dir()) {
            let _ = std::fs::remove_dir_all(self.dir());
        }
        played
    }

    /// [`Session::play`] with the command's own observer first, then `sinks`.
    pub fn play_after<'s>(
        &self,
        observer: &'s mut dyn RunSink,
        sinks: &'s mut [&mut dyn RunSink],
    ) -> Result<RunOutcome> {
        let mut all: Vec<&mut dyn RunSink> = vec![observer];
        for sink in sinks.iter_mut() {
            all.push(&mut **sink);
        }
        self.play(&mut all)
    }

    /// Rates the folder and draws its report as `finish` asks, after `outcome`. A folder
    /// without a finished game is not rated.
    pub fn finish(&self, outcome: RunOutcome, finish: &Finish) -> Finished {
        let dir = self.dir();
        let rated = finish.rating.as_ref().and_then(|opts| {
            let any = outcome.played > 0 || outcome.skipped > 0 || games::has_games(dir);
            any.then(|| rate_dir(dir, opts))
        });
        let report = match (&rated, &finish.rating) {
            (Some(Ok(rated)), Some(opts)) if finish.report => {
                Some(write_report(dir, rated, opts, &ReportOptions { png: true }))
            }
            _ => None,
        };
        Finished {
            outcome,
            rated,
            report,
        }
    }
}
