//! `arena tune --bot CMD --params FILE --iterations N`: SPSA over a bot's numeric options as
//! fishtest and OpenBench run it, then an SPRT of the tuned values against the start values
//! (docs/tuning.md). The tune itself is `mancala_arena::session::tune`; this file reads the flags,
//! prints and writes nothing of its own but through `run_folder::tune`.
//!
//! Exit codes: 0 the tune verified (H1) or was not verified (`--no-verify`), 3 the verification
//! accepted H0 (the tune did not verify), 4 the verification was inconclusive, 1 error, 2 usage.

use std::io::Write;
use std::path::PathBuf;
use std::process::ExitCode;

use anyhow::{bail, Context, Result};
use mancala_arena::rating::spsa::{parse_params, Schedule};
use mancala_arena::report::plots::{write_figure, TunePlot};
use mancala_arena::run_folder::check_new_folder;
use mancala_arena::run_folder::tune::{
    write_params, TuneFile, TuneSetup, VerifySetup, TUNED_TOML, TUNED_TXT, TUNE_CSV,
};
use mancala_arena::session::sprt::PairDone;
use mancala_arena::session::tune::{self, declared_params, IterationDone, TuneRun};
use mancala_arena::vocab::GameFlags;

use super::output::OutputFlags;
use super::progress::Console;

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// The tuned bot's command line (e.g. target/release/mancala-alphabeta).
    #[arg(long)]
    pub bot: Option<String>,
    /// A fixed option of the bot, NAME=VALUE (repeatable), e.g. Level=hard.
    #[arg(long = "bot-option", value_name = "NAME=VALUE")]
    pub bot_options: Vec<String>,
    /// Parameters file: lines `name, start, min, max, c_end, r_end` (fishtest) or
    /// `name, int|float, start, min, max, c_end, r_end` (OpenBench); `#` comments.
    #[arg(long, conflicts_with = "tune_options")]
    pub params: Option<PathBuf>,
    /// Tune these spin options of the bot from its own declarations (default, min, max), with
    /// c_end = (max − min)/20 and r_end 0.002: `EvalCapture,EvalMobility`.
    #[arg(long, value_delimiter = ',')]
    pub tune_options: Vec<String>,
    /// SPSA iterations.
    #[arg(long)]
    pub iterations: Option<u64>,
    /// Colour-swapped game pairs of θ+ against θ− per iteration (fishtest: 1).
    #[arg(long, default_value_t = 8)]
    pub pairs_per_iteration: u32,
    /// The result is the mean θ over this last fraction of the iterations (0 = the last θ, as
    /// fishtest).
    #[arg(long, default_value_t = 0.25)]
    pub tail: f64,
    /// SPSA α (a_k's decay).
    #[arg(long, default_value_t = 0.602)]
    pub alpha: f64,
    /// SPSA γ (c_k's decay).
    #[arg(long, default_value_t = 0.101)]
    pub gamma: f64,
    /// SPSA A as a fraction of the planned pairs.
    #[arg(long, default_value_t = 0.1)]
    pub a_ratio: f64,
    /// Tune seed: every iteration's perturbation, roundings, openings and bot seeds derive from
    /// it.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Continue the tune in this folder (after a signal, a crash or kill -9): same trajectory.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Only verify the finished tune in this folder (its verification settings, or the ones
    /// given here).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub verify: Option<PathBuf>,
    /// Do not verify at the end.
    #[arg(long)]
    pub no_verify: bool,
    /// The verification's time per sow in ms [default: the tune's time control].
    #[arg(long)]
    pub verify_movetime: Option<u64>,
    /// The verification's game clock `base+inc` in seconds.
    #[arg(long)]
    pub verify_tc: Option<String>,
    /// The verification's `go depth`.
    #[arg(long)]
    pub verify_depth: Option<u32>,
    /// The verification's `go nodes`.
    #[arg(long)]
    pub verify_nodes: Option<u64>,
    /// The verification's H0 (Elo of the tuned values over the start values).
    #[arg(long, default_value_t = 0.0, allow_hyphen_values = true)]
    pub elo0: f64,
    /// The verification's H1.
    #[arg(long, default_value_t = 5.0, allow_hyphen_values = true)]
    pub elo1: f64,
    /// The verification's most game pairs (then inconclusive).
    #[arg(long, default_value_t = 2000)]
    pub verify_max_pairs: u32,
    #[command(flatten)]
    pub game: GameFlags,
    #[command(flatten)]
    pub output: OutputFlags,
}

impl TuneArgs {
    fn verify_time_given(&self) -> bool {
        self.verify_movetime.is_some()
            || self.verify_tc.is_some()
            || self.verify_depth.is_some()
            || self.verify_nodes.is_some()
    }

    /// The verification's settings: the tune's games with the verification's time control.
    fn verify_setup(&self, game: &GameFlags) -> VerifySetup {
        let mut vgame = game.clone();
        if self.verify_time_given() {
            vgame.movetime = self.verify_movetime;
            vgame.tc = self.verify_tc.clone();
            vgame.depth = self.verify_depth;
            vgame.nodes = self.verify_nodes;
        }
        vgame.concurrency = None;
        VerifySetup {
            game: vgame,
            elo0: self.elo0,
            elo1: self.elo1,
            alpha: 0.05,
            beta: 0.05,
            max_pairs: self.verify_max_pairs,
        }
    }
}

/// A new tune's setup from the flags (the folder is made for `--tune-options`' probe).
fn new_setup(args: &TuneArgs, dir: &std::path::Path) -> Result<TuneSetup> {
    let bot = args
        .bot
        .clone()
        .context("--bot: the tuned bot's command line")?;
    let iterations = args
        .iterations
        .context("--iterations: how many SPSA iterations")?;
    if iterations == 0 || args.pairs_per_iteration == 0 {
        bail!("--iterations and --pairs-per-iteration must be at least 1");
    }
    if !(0.0..=1.0).contains(&args.tail) {
        bail!("--tail is a fraction of the iterations, 0 to 1");
    }
    let params = match (&args.params, args.tune_options.is_empty()) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            parse_params(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?
        }
        (None, false) => {
            std::fs::create_dir_all(dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            declared_params(&bot, &args.bot_options, &args.tune_options, dir)?
        }
        (None, true) => bail!("--params FILE or --tune-options NAME,...: what to tune"),
    };
    let mut game = args.game.clone();
    game.concurrency = None;
    let verify = (!args.no_verify).then(|| args.verify_setup(&game));
    Ok(TuneSetup {
        bot,
        bot_options: args.bot_options.clone(),
        params,
        iterations,
        pairs_per_iteration: args.pairs_per_iteration,
        schedule: Schedule {
            alpha: args.alpha,
            gamma: args.gamma,
            a_ratio: args.a_ratio,
            pairs: iterations * u64::from(args.pairs_per_iteration),
        },
        tail: args.tail,
        seed: args.seed,
        game,
        verify,
    })
}

/// Draws `trajectory.svg` and `trajectory.png` (the parameters over the pairs, normalised as
/// fishtest's chart) into the tune folder; a figure not drawn is a warning, not an error.
fn write_trajectory(dir: &std::path::Path, file: &TuneFile, quiet: bool) -> Result<()> {
    let missing = match TunePlot::new(file) {
        Ok(plot) => write_figure(dir, &plot)
            .with_context(|| format!("cannot write the trajectory plot into {}", dir.display()))?,
        Err(why) => vec![format!("no trajectory plot: {why}")],
    };
    if !quiet {
        for m in missing {
            eprintln!("warning: {m}");
        }
    }
    Ok(())
}

pub fn run(args: &TuneArgs) -> Result<ExitCode> {
    let (dir, mut file, play) = match (&args.resume, &args.verify) {
        (Some(dir), _) | (None, Some(dir)) => {
            let file = TuneFile::read(dir)?.with_context(|| {
                format!("{} holds no tune.json: not a tune folder", dir.display())
            })?;
            (dir.clone(), file, args.resume.is_some())
        }
        (None, None) => {
            let dir = args.output.out_or_default("tune");
            check_new_folder(&dir)?;
            if dir.join("tune.json").exists() {
                bail!("{} holds a tune: use --resume", dir.display());
            }
            let setup = new_setup(args, &dir)?;
            std::fs::create_dir_all(&dir)
                .with_context(|| format!("cannot create {}", dir.display()))?;
            write_params(&dir, &setup.params)?;
            let file = TuneFile {
                setup,
                steps: Vec::new(),
                finished: false,
                tuned: None,
                verify: None,
            };
            file.write(&dir)?;
            (dir, file, true)
        }
    };
    if args.verify.is_some() && args.verify_time_given() {
        let game = file.setup.game.clone();
        file.setup.verify = Some(args.verify_setup(&game));
    }
    let quiet = args.output.quiet;
    let concurrency = args.game.concurrency;
    if play {
        let s = &file.setup;
        if !quiet {
            eprintln!(
                "tune: {} parameter(s) of {}, {} iteration(s) of {} pair(s), results in {}",
                s.params.len(),
                s.bot,
                s.iterations,
                s.pairs_per_iteration,
                dir.display()
            );
        }
        let mut on_iteration = |done: &IterationDone<'_>| {
            if quiet {
                return;
            }
            let s = done.step;
            let theta: Vec<String> = done
                .params
                .iter()
                .zip(&s.theta)
                .map(|(p, t)| format!("{}={t:.2}", p.name))
                .collect();
            eprintln!(
                "iter {:>5}  pairs {:>6}  result {:+}{}  {}",
                s.iteration,
                s.pairs,
                s.result,
                if done.replayed { " (from disk)" } else { "" },
                theta.join(" ")
            );
            let _ = std::io::stderr().flush();
        };
        let mut console = Console::new(false, None);
        let tuned = tune::run(
            &mut file,
            &mut TuneRun {
                dir: &dir,
                concurrency,
                on_iteration: &mut on_iteration,
                sinks: &mut [&mut console],
            },
        )?;
        outln!("tuned values ({}, {}):", TUNED_TXT, TUNED_TOML)?;
        for (p, v) in file.setup.params.iter().zip(&tuned) {
            outln!(
                "  {} = {} (start {})",
                p.name,
                p.format(*v),
                p.format(p.start)
            )?;
        }
        outln!("trajectory: {}", dir.join(TUNE_CSV).display())?;
        if !args.output.no_plots {
            write_trajectory(&dir, &file, quiet)?;
        }
    }
    if file.setup.verify.is_none() {
        return Ok(ExitCode::SUCCESS);
    }
    let v = file.setup.verify.clone().expect("checked");
    if !quiet {
        eprintln!(
            "verification: SPRT tuned (test) vs start (base), H0 elo {} / H1 elo {}, at most {} pairs",
            v.elo0, v.elo1, v.max_pairs
        );
    }
    let mut on_pair = |done: &PairDone<'_>| {
        if quiet {
            return;
        }
        let (p, s) = (done.penta, done.status);
        if p.pairs() % 50 == 0 {
            eprintln!(
                "verify pairs {:>5}  penta {:?}  LLR {:+.3}  [{:.3}, {:.3}]",
                p.pairs(),
                p.to_array(),
                s.llr,
                s.lower,
                s.upper
            );
        }
    };
    let mut console = Console::new(false, None);
    let out = tune::verify(
        &mut file,
        &dir,
        concurrency,
        !args.output.no_plots,
        &mut on_pair,
        &mut [&mut console],
    )?;
    let elo = match (out.elo, out.elo_error) {
        (Some(e), Some(err)) => format!("{e:+.1} ± {err:.1} Elo (95 %)"),
        _ => "no Elo (no pairs)".to_string(),
    };
    let (code, words) = match out.verdict.as_str() {
        "H1" => (0, "verified: the tuned values are stronger (H1 accepted)"),
        "H0" => (
            3,
            "NOT verified: H0 accepted, the tuned values are not stronger",
        ),
        _ => (
            4,
            "NOT verified: inconclusive, the maximum number of pairs was reached",
        ),
    };
    outln!(
        "{words}: {elo} over {} pairs, LLR {:+.3} [{:.3}, {:.3}]; games in {}",
        out.pairs,
        out.llr,
        out.lower,
        out.upper,
        dir.join(&out.dir).display()
    )?;
    Ok(ExitCode::from(code))
}
