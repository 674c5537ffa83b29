//! `arena sprt --base PLAYER --test PLAYER --elo0 E0 --elo1 E1`: plays game pairs between two bots
//! until the pentanomial GSPRT reaches a decision, for regression tests in CI. The test itself
//! is `mancala_arena::session::sprt`; this file reads the flags and prints.
//!
//! Exit codes (so scripts can gate on them): 0 H1 accepted (the test is at least elo1 better),
//! 3 H0 accepted (at most elo0 better), 4 inconclusive (max pairs reached), 1 error, 2 usage.

use std::io::Write;
use std::process::ExitCode;

use anyhow::{bail, Result};
use mancala_arena::plan::physical_cores;
use mancala_arena::plan::players::read_player;
use mancala_arena::rating::margin::EloKind;
use mancala_arena::rating::sprt::SprtModel;
use mancala_arena::session::sprt::{self, Hypotheses, MarginModel, PairDone, BASE, TEST};
use mancala_arena::vocab::{Format, GameFlags};

use super::output::OutputFlags;
use super::progress::Console;

#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum Model {
    /// Logistic Elo (fishtest's and cutechess's classic bounds).
    #[default]
    Logistic,
    /// Normalized Elo (fishtest's default since 2022; independent of the draw rate).
    Normalized,
    /// The seed margins of each pair, tied to Elo by a fitted link (docs/statistics.md §5a):
    /// fewer pairs where the link holds; the hypotheses in the Elo of --margin-elo.
    Margin,
}

/// The Elo `--model margin`'s hypotheses are in.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default)]
pub enum MarginElo {
    /// Logistic Elo of the expected score.
    #[default]
    Logistic,
    /// Normalized Elo (fishtest's pentanomial nElo, σ from the run's pairs).
    Normalized,
}

#[derive(clap::Args, Debug)]
pub struct SprtArgs {
    /// The reference bot, in the player words (docs/players.md): a bundled name (`hard`), the
    /// words of `run --bot` (`cmd="./hard-main" option.Hash=64`, `protocol=kgp`...), or a bare
    /// command line (`./hard-main`).
    #[arg(long, num_args = 1.., value_name = "PLAYER", required = true)]
    pub base: Vec<String>,
    /// The candidate bot, in the player words, as --base.
    #[arg(long, num_args = 1.., value_name = "PLAYER", required = true)]
    pub test: Vec<String>,
    /// An option for the base bot, NAME=VALUE (repeatable; shorthand for option.NAME=VALUE).
    #[arg(long = "base-option", value_name = "NAME=VALUE")]
    pub base_options: Vec<String>,
    /// An option for the test bot, NAME=VALUE (repeatable; shorthand for option.NAME=VALUE).
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
    /// With --model margin: the Elo --elo0 and --elo1 are in.
    #[arg(long, value_enum, default_value_t = MarginElo::Logistic)]
    pub margin_elo: MarginElo,
    /// With --model margin: each game's margin counts at most this many seeds either way
    /// [default: a third of the ruleset's seeds, 16 in Kalah(6,4); `inf`: no clip]. The tails
    /// do not move with strength; the clip keeps the test's error rates (docs/statistics.md).
    #[arg(long, value_name = "SEEDS")]
    pub margin_clip: Option<f64>,
    /// Stop, inconclusive, after this many game pairs.
    #[arg(long, default_value_t = 20_000)]
    pub max_pairs: u32,
    /// Run seed: the openings and the bots' per-game seeds are a function of it [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    #[command(flatten)]
    pub game: GameFlags,
    #[command(flatten)]
    pub output: OutputFlags,
}

pub fn run(args: &SprtArgs) -> Result<ExitCode> {
    if let Some(clip) = args.margin_clip {
        if !matches!(args.model, Model::Margin) {
            bail!("--margin-clip is for --model margin");
        }
        if clip.is_nan() || clip <= 0.0 {
            bail!("--margin-clip {clip}: the clip must be above 0 seeds (inf: none)");
        }
    }
    let test = Hypotheses {
        elo0: args.elo0,
        elo1: args.elo1,
        alpha: args.alpha,
        beta: args.beta,
        model: match args.model {
            Model::Normalized => SprtModel::Normalized,
            _ => SprtModel::Logistic,
        },
        margin: matches!(args.model, Model::Margin).then_some(MarginModel {
            kind: match args.margin_elo {
                MarginElo::Logistic => EloKind::Logistic,
                MarginElo::Normalized => EloKind::Normalized,
            },
            clip: args.margin_clip,
        }),
    };
    let bounds = test.sprt()?.decide(0.0);
    let game = args.game.settings_with_suite()?;
    let players = vec![
        read_player("--base", &args.base, &[])?
            .with_options("--base-option", &args.base_options)?
            .spec(Some(BASE))?,
        read_player("--test", &args.test, &[])?
            .with_options("--test-option", &args.test_options)?
            .spec(Some(TEST))?,
    ];
    let out = args.output.out_or_default("sprt");
    let mut plan = game.plan(
        "sprt",
        players,
        Format::RoundRobin,
        args.max_pairs,
        args.seed.unwrap_or(1),
        out,
    )?;
    plan.concurrency = plan.concurrency.min(physical_cores().max(1) * 4);
    let dir = plan.out.clone();
    eprintln!(
        "SPRT base vs test: H0 elo {} / H1 elo {} ({}), alpha {} beta {}, bounds [{:.3}, {:.3}], at most {} pairs; results in {}",
        args.elo0,
        args.elo1,
        match args.model {
            Model::Margin => format!("margin model, {:?} Elo", args.margin_elo),
            m => format!("{m:?}"),
        },
        args.alpha,
        args.beta,
        bounds.lower,
        bounds.upper,
        args.max_pairs,
        dir.display()
    );
    let quiet = args.output.quiet;
    let mut on_pair = |done: &PairDone<'_>| {
        if let Some(err) = done.trace_error {
            eprintln!("cannot write sprt.csv: {err:#}");
        }
        if quiet {
            return;
        }
        let (p, s) = (done.penta, done.status);
        eprintln!(
            "pairs {:>5}  penta [{} {} {} {} {}]  LLR {:+.3}  [{:.3}, {:.3}]",
            p.pairs(),
            p.ll,
            p.ld,
            p.dd_wl,
            p.wd,
            p.ww,
            s.llr,
            s.lower,
            s.upper
        );
        let _ = std::io::stderr().flush();
    };
    let mut console = Console::new(false, None);
    let end = sprt::play(
        plan,
        &test,
        !args.output.no_plots,
        &mut on_pair,
        &mut [&mut console],
    )?;
    super::plot::say_finished(&dir, &end.finished, false)?;
    if let Some(check) = &end.link_check {
        eprintln!("{}", check.describe());
    }
    let (code, verdict) = end.verdict();
    outln!("{}", end.verdict_line(verdict))?;
    Ok(ExitCode::from(code))
}
