//! `arena sprt --base CMD --test CMD --elo0 E0 --elo1 E1`: plays game pairs between two bots
//! until the pentanomial GSPRT reaches a decision, for regression tests in CI.
//!
//! Exit codes (so scripts can gate on them): 0 H1 accepted (the test is at least elo1 better),
//! 3 H0 accepted (at most elo0 better), 4 inconclusive (max pairs reached), 1 error, 2 usage.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::Result;
use mancala_arena::rating::sprt::{PairTracker, Sprt, SprtModel, SprtResult, SprtStatus};
use mancala_arena::run_folder::sprt::{SprtFile, SprtTrace};
use mancala_arena::run_folder::{GameRecord, RunKind};
use mancala_arena::session::{Finish, Session};
use mancala_arena::tournament::events::{OnGame, Steer};
use mancala_arena::tournament::runner::{RunMode, RunPlan};
use mancala_arena::vocab::{Format, RunConfig};

use super::progress::Console;

use super::tournament::{command_spec, default_out, physical_cores, GameFlags};

pub const EXIT_H1: u8 = 0;
pub const EXIT_H0: u8 = 3;
pub const EXIT_INCONCLUSIVE: u8 = 4;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum Model {
    /// Logistic Elo (fishtest's and cutechess's classic bounds).
    #[default]
    Logistic,
    /// Normalized Elo (fishtest's default since 2022; independent of the draw rate).
    Normalized,
}

#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    /// The reference bot's command line.
    #[arg(long)]
    pub base: String,
    /// The candidate bot's command line.
    #[arg(long)]
    pub test: String,
    /// An option for the base bot, NAME=VALUE (repeatable).
    #[arg(long = "base-option", value_name = "NAME=VALUE")]
    pub base_options: Vec<String>,
    /// An option for the test bot, NAME=VALUE (repeatable).
    #[arg(long = "test-option", value_name = "NAME=VALUE")]
    pub test_options: Vec<String>,
    /// H0: the test is `elo0` better than the base (Elo of the chosen model).
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: f64,
    /// H1: the test is `elo1` better.
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: f64,
    /// Type I error: accepting H1 when H0 holds.
    #[arg(long, default_value_t = 0.05)]
    pub alpha: f64,
    /// Type II error: accepting H0 when H1 holds.
    #[arg(long, default_value_t = 0.05)]
    pub beta: f64,
    #[arg(long, value_enum, default_value_t = Model::Logistic)]
    pub model: Model,
    /// Stop, inconclusive, after this many game pairs.
    #[arg(long, default_value_t = 20_000)]
    pub max_pairs: u32,
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub game: GameFlags,
    /// Run folder [default: results/sprt-<timestamp>/].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Do not rate the folder and draw its plots, report.html and summary.md at the end.
    #[arg(long)]
    pub no_plots: bool,
    #[arg(long, short)]
    pub quiet: bool,
}

pub fn run(args: &SprtArgs) -> Result<ExitCode> {
    let model = match args.model {
        Model::Logistic => SprtModel::Logistic,
        Model::Normalized => SprtModel::Normalized,
    };
    let sprt = Sprt::new(args.elo0, args.elo1, args.alpha, args.beta, model)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let game = args.game.settings_with_suite()?;
    let config = RunConfig {
        name: "sprt".to_string(),
        rules: game.rules,
        players: vec![
            command_spec("base", &args.base, &args.base_options)?,
            command_spec("test", &args.test, &args.test_options)?,
        ],
        format: Format::RoundRobin,
        pairs: args.max_pairs,
        openings: game.openings,
        seed: args.seed.unwrap_or(1),
        time: game.time,
        adjudicate: false,
        max_start_failures: 3,
    };
    config.validate().map_err(anyhow::Error::msg)?;
    let plan = RunPlan {
        config,
        concurrency: game.concurrency.min(physical_cores().max(1) * 4),
        out: args.out.clone().unwrap_or_else(|| default_out("sprt")),
    };
    let dir = plan.out.clone();
    eprintln!(
        "SPRT base vs test: H0 elo {} / H1 elo {} ({:?}), alpha {} beta {}, bounds [{:.3}, {:.3}], at most {} pairs; results in {}",
        args.elo0,
        args.elo1,
        args.model,
        args.alpha,
        args.beta,
        sprt.decide(0.0).lower,
        sprt.decide(0.0).upper,
        args.max_pairs,
        dir.display()
    );
    if mancala_arena::run_folder::holds_run(&dir) {
        anyhow::bail!(
            "{} already holds a run: choose another --out",
            dir.display()
        );
    }
    let mode = RunMode {
        kind: RunKind::Sprt,
        ..RunMode::default()
    };
    // The session's lock covers sprt.csv and sprt.json too, written beside the games.
    let session = Session::open(plan, mode)?;
    let mut trace = SprtTrace::create(&dir)?;
    let mut tracker = PairTracker::default();
    let mut last: Option<SprtStatus> = None;
    let quiet = args.quiet;
    let mut observer = OnGame(|record: &GameRecord| -> Steer {
        let row = &record.row;
        let points = row.result.score();
        let test_points = if row.first == "test" {
            points
        } else {
            1.0 - points
        };
        if !tracker.add(row.pair_id, test_points) {
            return Steer::Continue;
        }
        let p = tracker.penta();
        let status = sprt.status(&p);
        if let Err(err) = trace.append(&p, &status) {
            eprintln!("cannot write sprt.csv: {err:#}");
        }
        if !quiet {
            eprintln!(
                "pairs {:>5}  penta [{} {} {} {} {}]  LLR {:+.3}  [{:.3}, {:.3}]",
                p.pairs(),
                p.ll,
                p.ld,
                p.dd_wl,
                p.wd,
                p.ww,
                status.llr,
                status.lower,
                status.upper
            );
            let _ = std::io::stderr().flush();
        }
        let result = status.result;
        last = Some(status);
        match result {
            SprtResult::Continue => Steer::Continue,
            SprtResult::AcceptH0 => Steer::Stop("the SPRT accepted H0".to_string()),
            SprtResult::AcceptH1 => Steer::Stop("the SPRT accepted H1".to_string()),
        }
    });
    let mut console = Console::new(false, None);
    let outcome = session.play(&mut [&mut observer, &mut console])?;
    outcome.check(&dir, false, true)?;
    let penta = tracker.penta();
    let status = last.unwrap_or_else(|| sprt.status(&penta));
    SprtFile {
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        model: model.as_str().to_string(),
        pairs: penta.pairs(),
        penta: penta.to_array(),
        status,
    }
    .write(&dir)?;
    let finished = session.finish(outcome, &Finish::sequential_test(!args.no_plots));
    super::plot::say_finished(&dir, &finished, false)?;
    let (verdict, code) = match status.result {
        SprtResult::AcceptH1 => ("H1 accepted: the test bot is stronger", EXIT_H1),
        SprtResult::AcceptH0 => ("H0 accepted: the test bot is not stronger", EXIT_H0),
        SprtResult::Continue => (
            "inconclusive: the maximum number of pairs was reached",
            EXIT_INCONCLUSIVE,
        ),
    };
    outln!(
        "{verdict} (LLR {:+.3}, bounds [{:.3}, {:.3}], {} pairs, penta {:?})",
        status.llr,
        status.lower,
        status.upper,
        penta.pairs(),
        penta.to_array()
    )?;
    Ok(ExitCode::from(code))
}
