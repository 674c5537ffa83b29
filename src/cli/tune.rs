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
use mancala_arena::plan::players::read_player;
use mancala_arena::rating::spsa::{parse_params, Schedule};
use mancala_arena::report::plots::{write_figure, TunePlot};
use mancala_arena::run_folder::check_new_folder;
use mancala_arena::run_folder::tune::{
    iteration_dir, write_params, TuneFile, TuneSetup, VerifySetup, TUNED_TOML, TUNED_TXT, TUNE_CSV,
    TUNE_JSON,
};
use mancala_arena::session::probe::{declared_options, find_declared};
use mancala_arena::session::sprt::PairDone;
use mancala_arena::session::tune::{self, declared_params, IterationDone, TuneRun};
use mancala_arena::vocab::{shell_word, GameFlags};

use super::output::OutputFlags;
use super::progress::Console;

/// What a tune's iteration results are read from.
#[derive(clap::ValueEnum, Clone, Copy, Debug, PartialEq, Eq)]
pub enum TuneModel {
    /// Wins − losses.
    Wdl,
    /// The seed margins.
    Margin,
}

#[derive(clap::Args, Debug)]
pub struct TuneArgs {
    /// The tuned bot, in the player words (docs/players.md): a bundled name (`alphabeta`,
    /// `hard`), `cmd="PROGRAM ARGS"` with `option.NAME=VALUE` fixed options, or a bare command
    /// line. Its protocol must be the arena's own: the parameters are options.
    #[arg(long, num_args = 1.., value_name = "PLAYER")]
    pub bot: Option<Vec<String>>,
    /// A fixed option of the bot, NAME=VALUE (repeatable; shorthand for option.NAME=VALUE).
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
    /// Colour-swapped game pairs of θ+ against θ− per iteration (fishtest: 1) [default: 8].
    #[arg(long)]
    pub pairs_per_iteration: Option<u32>,
    /// The result is the mean θ over this last fraction of the iterations (0 = the last θ, as
    /// fishtest) [default: 0.25].
    #[arg(long)]
    pub tail: Option<f64>,
    /// Where each iteration's result comes from: `wdl` (θ+'s wins − losses, fishtest's) or
    /// `margin` (its pairs' seed margins, scaled to wins − losses: fewer pairs for the same
    /// precision where the margins measure strength, docs/tuning.md).
    #[arg(long, value_enum)]
    pub model: Option<TuneModel>,
    /// SPSA α (a_k's decay) [default: 0.602].
    #[arg(long)]
    pub alpha: Option<f64>,
    /// SPSA γ (c_k's decay) [default: 0.101].
    #[arg(long)]
    pub gamma: Option<f64>,
    /// SPSA A as a fraction of the planned pairs [default: 0.1].
    #[arg(long)]
    pub a_ratio: Option<f64>,
    /// Tune seed: every iteration's perturbation, roundings, openings and bot seeds derive from
    /// it [default: 1].
    #[arg(long)]
    pub seed: Option<u64>,
    /// Continue the tune in this folder (after a signal, a crash or kill -9): same trajectory.
    /// The flags that set up a tune are refused with it; --concurrency, the output flags and
    /// the verification's flags apply.
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// Only verify the finished tune in this folder (its verification settings, or the ones
    /// given here).
    #[arg(long, value_name = "DIR", conflicts_with = "resume")]
    pub verify: Option<PathBuf>,
    /// Do not verify at the end.
    #[arg(long, conflicts_with = "verify")]
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
    /// The verification's H0 (Elo of the tuned values over the start values) [default: 0].
    #[arg(long, allow_hyphen_values = true)]
    pub elo0: Option<f64>,
    /// The verification's H1 [default: 5].
    #[arg(long, allow_hyphen_values = true)]
    pub elo1: Option<f64>,
    /// The verification's most game pairs (then inconclusive) [default: 2000].
    #[arg(long)]
    pub verify_max_pairs: Option<u32>,
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

    fn verify_flags_given(&self) -> bool {
        self.verify_time_given()
            || self.elo0.is_some()
            || self.elo1.is_some()
            || self.verify_max_pairs.is_some()
    }

    /// The verification's settings: `recorded` (a tune's own) or the defaults (the tune's games
    /// `game` at its time control, H0 0, H1 5, 2000 pairs), with the flags given in their place.
    fn verify_setup(&self, game: &GameFlags, recorded: Option<&VerifySetup>) -> VerifySetup {
        let mut v = recorded.cloned().unwrap_or_else(|| VerifySetup {
            game: game.clone(),
            elo0: 0.0,
            elo1: 5.0,
            alpha: 0.05,
            beta: 0.05,
            max_pairs: 2000,
        });
        if self.verify_time_given() {
            v.game.movetime = self.verify_movetime;
            v.game.tc = self.verify_tc.clone();
            v.game.depth = self.verify_depth;
            v.game.nodes = self.verify_nodes;
        }
        v.game.concurrency = None;
        v.elo0 = self.elo0.unwrap_or(v.elo0);
        v.elo1 = self.elo1.unwrap_or(v.elo1);
        v.max_pairs = self.verify_max_pairs.unwrap_or(v.max_pairs);
        v
    }

    /// The flags that set up a tune, given with `--resume` or `--verify` (which go on as the
    /// tune's `tune.json` says): each with the value given and the tune's own.
    fn setup_flags_given(&self, s: &TuneSetup, dir: &std::path::Path) -> Vec<String> {
        fn opt<T: ToString>(v: &Option<T>) -> String {
            v.as_ref().map_or_else(|| "none".to_string(), T::to_string)
        }
        let g = &self.game;
        let names: Vec<&str> = s.params.iter().map(|p| p.name.as_str()).collect();
        let given = [
            (
                "--bot",
                self.bot.as_ref().map(|w| w.join(" ")),
                s.bot.clone(),
            ),
            (
                "--bot-option",
                (!self.bot_options.is_empty()).then(|| self.bot_options.join(" ")),
                if s.bot_options.is_empty() {
                    "none".to_string()
                } else {
                    s.bot_options.join(" ")
                },
            ),
            (
                "--params",
                self.params.as_ref().map(|p| p.display().to_string()),
                names.join(","),
            ),
            (
                "--tune-options",
                (!self.tune_options.is_empty()).then(|| self.tune_options.join(",")),
                names.join(","),
            ),
            (
                "--iterations",
                self.iterations.map(|v| v.to_string()),
                s.iterations.to_string(),
            ),
            (
                "--pairs-per-iteration",
                self.pairs_per_iteration.map(|v| v.to_string()),
                s.pairs_per_iteration.to_string(),
            ),
            (
                "--tail",
                self.tail.map(|v| v.to_string()),
                s.tail.to_string(),
            ),
            (
                "--alpha",
                self.alpha.map(|v| v.to_string()),
                s.schedule.alpha.to_string(),
            ),
            (
                "--gamma",
                self.gamma.map(|v| v.to_string()),
                s.schedule.gamma.to_string(),
            ),
            (
                "--a-ratio",
                self.a_ratio.map(|v| v.to_string()),
                s.schedule.a_ratio.to_string(),
            ),
            (
                "--seed",
                self.seed.map(|v| v.to_string()),
                s.seed.to_string(),
            ),
            (
                "--model",
                self.model.map(|m| {
                    match m {
                        TuneModel::Wdl => "wdl",
                        TuneModel::Margin => "margin",
                    }
                    .to_string()
                }),
                s.model.clone(),
            ),
            ("--rules", g.rules.clone(), opt(&s.game.rules)),
            (
                "--opening-plies",
                g.opening_plies.map(|v| v.to_string()),
                opt(&s.game.opening_plies),
            ),
            (
                "--openings",
                g.openings.as_ref().map(|p| p.display().to_string()),
                opt(&s.game.openings.as_ref().map(|p| p.display())),
            ),
            (
                "--movetime",
                g.movetime.map(|v| v.to_string()),
                opt(&s.game.movetime),
            ),
            ("--tc", g.tc.clone(), opt(&s.game.tc)),
            (
                "--depth",
                g.depth.map(|v| v.to_string()),
                opt(&s.game.depth),
            ),
            (
                "--nodes",
                g.nodes.map(|v| v.to_string()),
                opt(&s.game.nodes),
            ),
            (
                "--out",
                self.output.out.as_ref().map(|p| p.display().to_string()),
                dir.display().to_string(),
            ),
        ];
        given
            .into_iter()
            .filter_map(|(flag, given, saved)| {
                Some(format!("{flag} {} (the tune's: {saved})", given?))
            })
            .collect()
    }
}

/// A new tune's setup from the flags (the folder is made for the probe of the bot's options).
fn new_setup(args: &TuneArgs, dir: &std::path::Path) -> Result<TuneSetup> {
    let words = args.bot.as_deref().context("--bot: the tuned bot")?;
    let player = read_player("--bot", words, &[])?
        .with_options("--bot-option", &args.bot_options)?
        .spec(Some("tuned"))?;
    let iterations = args
        .iterations
        .context("--iterations: how many SPSA iterations")?;
    let pairs_per_iteration = args.pairs_per_iteration.unwrap_or(8);
    if iterations == 0 || pairs_per_iteration == 0 {
        bail!("--iterations and --pairs-per-iteration must be at least 1");
    }
    let tail = args.tail.unwrap_or(0.25);
    if !(0.0..=1.0).contains(&tail) {
        bail!("--tail is a fraction of the iterations, 0 to 1");
    }
    let from_file = match (&args.params, args.tune_options.is_empty()) {
        (Some(path), _) => {
            let text = std::fs::read_to_string(path)
                .with_context(|| format!("cannot read {}", path.display()))?;
            Some(parse_params(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?)
        }
        (None, false) => None,
        (None, true) => bail!("--params FILE or --tune-options NAME,...: what to tune"),
    };
    // The bot is asked once what it declares: every parameter must be one of its options.
    let fresh = !dir.exists();
    let params = (|| {
        let declared = declared_options(&player, "a tune", dir)?;
        match from_file {
            Some(params) => {
                for p in &params {
                    find_declared(&declared, &p.name, "--params")?;
                }
                Ok(params)
            }
            None => declared_params(&declared, &args.tune_options),
        }
    })();
    // A tune refused here leaves no folder behind (the probe's log made it).
    if params.is_err() && fresh {
        let _ = std::fs::remove_dir_all(dir);
    }
    let params = params?;
    let mut game = args.game.clone();
    game.concurrency = None;
    let verify = (!args.no_verify).then(|| args.verify_setup(&game, None));
    Ok(TuneSetup {
        bot: player.program.display(),
        bot_options: player.option_words(),
        player: Some(player),
        params,
        iterations,
        pairs_per_iteration,
        schedule: {
            let fishtest = Schedule::fishtest(iterations * u64::from(pairs_per_iteration));
            Schedule {
                alpha: args.alpha.unwrap_or(fishtest.alpha),
                gamma: args.gamma.unwrap_or(fishtest.gamma),
                a_ratio: args.a_ratio.unwrap_or(fishtest.a_ratio),
                ..fishtest
            }
        },
        tail,
        seed: args.seed.unwrap_or(1),
        game,
        verify,
        model: match args.model {
            Some(TuneModel::Margin) => "margin".to_string(),
            _ => "wdl".to_string(),
        },
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
            let mut file = TuneFile::read(dir)?.with_context(|| {
                format!("{} holds no tune.json: not a tune folder", dir.display())
            })?;
            let given = args.setup_flags_given(&file.setup, dir);
            if !given.is_empty() {
                bail!(
                    "{} goes on with the tune as {} says: {} would be ignored; drop {}",
                    if args.resume.is_some() {
                        "--resume"
                    } else {
                        "--verify"
                    },
                    dir.join(TUNE_JSON).display(),
                    given.join(", "),
                    if given.len() == 1 { "it" } else { "them" }
                );
            }
            // The verification is not part of the trajectory: its flags apply (and are
            // recorded), and --verify DIR verifies whatever the tune was set up with.
            if args.no_verify {
                file.setup.verify = None;
            } else if args.verify.is_some()
                || file.setup.verify.is_some()
                || args.verify_flags_given()
            {
                let game = file.setup.game.clone();
                file.setup.verify = Some(args.verify_setup(&game, file.setup.verify.as_ref()));
            }
            (dir.clone(), file, args.resume.is_some())
        }
        (None, None) => {
            let dir = args.output.out_or_default("tune");
            if let Some(tune) = TuneFile::read(&dir)? {
                let word = shell_word(&dir);
                // A finished tune is not offered --resume: it would only replay it.
                if tune.finished {
                    bail!(
                        "{} holds a finished tune: choose another --out (`arena tune --verify {word}` verifies it again)",
                        dir.display()
                    );
                }
                bail!(
                    "{} holds a tune: `arena tune --resume {word}` finishes it",
                    dir.display()
                );
            }
            check_new_folder(&dir)?;
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
            // Forfeits are said even when quiet: a result built on faults is not a result.
            if done.forfeits.total() > 0 {
                eprintln!(
                    "warning: iteration {}: {} were forfeits (see {})",
                    done.step.iteration,
                    done.forfeits.words(),
                    iteration_dir(&dir, done.step.iteration)
                        .join("logs")
                        .display()
                );
            }
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
