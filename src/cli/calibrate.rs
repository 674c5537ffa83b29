//! `arena calibrate --bot CMD --knob option.Noise=0.0..2.0 --targets 1000,1200,1400,1600
//! --reference easy,normal,hard`: finds the knob value at which the bot rates at each target
//! Elo against a fixed reference pool, and writes the table, the curve plot and paste-ready
//! `[[bot]]` definitions.
//!
//! The reference pool is rated once (a round robin among its members, anchored at a mean of
//! 1200 unless `--anchor` says otherwise) or given (`easy=1000,normal=1300`), and then held
//! fixed: every calibration batch is a gauntlet of the candidate at one knob value against the
//! pool, in its own run folder `step-NN-<knob>-<value>/` under the calibration folder, so every
//! game is on disk and can be re-rated. The maths is `mancala_arena::calibrate`.
//!
//! After every step `calibration.json` and `calibration.csv` hold the calibration so far (every
//! point measured, the curve fitted to the games so far, `finished` false), so a calibration
//! that runs for a day can be watched (`arena serve`); the other files are written at the end.
//!
//! The flow: a new calibration reads its flags into a [`CalibrationSetup`] (the candidate as a
//! player spec, the pool with its Elos, the settings) and writes it into the folder before any
//! game; `--resume DIR` reads the one there instead. Both then go on from the setup as read
//! back from the file (so both run on the very same values), replaying whatever is on disk:
//! [`mancala_arena::session::calibration`] says why that gives the same trajectory. Before the
//! first step it prints the budget and the games it expects, and the time as soon as a time per
//! game is known (the pool's round robin, or the first batch).

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use anyhow::{bail, Context, Result};
use mancala_arena::calibrate::matchmaking::{matchmaking, Level as MatchLevel};
use mancala_arena::calibrate::{self, Calibration, Knob, Settings};
use mancala_arena::plan::game::GameSettings;
use mancala_arena::plan::players::read_player;
use mancala_arena::plan::pool::{elos_from_ratings, Reference, ReferencePlayer};
use mancala_arena::report::calibration::{
    matchmaking_text, outcome, table, terminal_source, write_curve, write_matchmaking_plot,
};
use mancala_arena::run_folder::bands::GateTable;
use mancala_arena::run_folder::calibration::{
    bands_toml, read_calibration, write_bands, write_calibration, write_matchmaking_files,
    write_matchmaking_text, write_points, BandsReference, CalibrationSetup, Humans,
    MatchmakingFile, PoolMember, BANDS_TOML, CANDIDATE, REFERENCE_DIR, SETUP_JSON,
};
use mancala_arena::run_folder::ratings::RatingsFile;
use mancala_arena::session::calibration::{pool_elos, rate_pool, Candidate, StepDone, StepPlayer};
use mancala_arena::session::probe::{declared_options, find_declared, refuse_optionless};
use mancala_arena::tournament::events::RunSink;
use mancala_arena::vocab::{shell_word, GameFlags, Program};

use super::output::OutputFlags;
use super::progress::Console;

#[derive(clap::Args, Debug)]
pub struct CalibrateArgs {
    /// The candidate bot, in the player words (docs/players.md): a bundled name (`alphabeta`),
    /// `cmd="PROGRAM ARGS"` with `option.NAME=VALUE` fixed options, or a bare command line. Its
    /// protocol must be the arena's own: the knob is an option.
    #[arg(long, num_args = 1.., value_name = "PLAYER", required_unless_present = "resume")]
    pub bot: Vec<String>,
    /// A fixed option for the candidate, NAME=VALUE (repeatable; shorthand for
    /// option.NAME=VALUE), e.g. Level=hard.
    #[arg(long = "bot-option", value_name = "NAME=VALUE")]
    pub bot_options: Vec<String>,
    /// The knob: option.NAME=LO..HI; whole-number ends (1..8) make it an integer knob.
    #[arg(long, required_unless_present = "resume")]
    pub knob: Option<String>,
    /// Target Elos on the pool's scale.
    #[arg(long, value_delimiter = ',', default_value = "1000,1200,1400,1600")]
    pub targets: Vec<f64>,
    /// Reference pool of bundled players (random, greedy, easy, normal, hard, mcts): `easy,normal,hard`
    /// rates them against each other first; `easy=1000,normal=1300` gives their Elos.
    #[arg(long, value_delimiter = ',')]
    pub reference: Vec<String>,
    /// A reference player of your own, in the player words (docs/players.md) with its Elo if
    /// known: `name=N cmd="PROGRAM ARGS" [option.K=V ...] [protocol=kgp] [elo=E]`, as separate
    /// words or one string split like a shell; repeatable.
    #[arg(long = "reference-bot", num_args = 1.., value_name = "PLAYER", action = clap::ArgAction::Append)]
    pub reference_bots: Vec<String>,
    /// The `--reference-bot` values grouped by occurrence (filled by `cli::with_grouped_values`).
    #[arg(skip)]
    pub reference_bot_groups: Vec<Vec<String>>,
    /// Game pairs per encounter of the reference round robin.
    #[arg(long, default_value_t = 20)]
    pub reference_pairs: u32,
    /// Pin one reference player's Elo (NAME=ELO) when rating the pool; default: the pool's mean is 1200.
    #[arg(long)]
    pub anchor: Option<String>,
    /// Take the reference players' Elos from a rating (a `ratings.csv`, or a ratings folder
    /// holding one, as `arena rate` writes), by name: the site's human scale. A typed Elo
    /// (`easy=1000`, `elo=`) wins over the file's.
    #[arg(long, value_name = "PATH")]
    pub reference_ratings: Option<PathBuf>,
    /// The humans' ratings for `matchmaking.csv` (a `ratings.csv` or a folder holding one)
    /// [default: the --reference-ratings file]; its humans are its players other than the
    /// reference pool and --not-human.
    #[arg(long, value_name = "PATH")]
    pub humans: Option<PathBuf>,
    /// Players of the humans' file that are not humans (other bots), left out of the table.
    #[arg(long = "not-human", value_delimiter = ',', value_name = "NAME")]
    pub not_human: Vec<String>,
    /// The width of the matchmaking table's rating brackets (Elo).
    #[arg(long, default_value_t = 50.0)]
    pub bracket: f64,
    /// The calibrated level's name in the matchmaking table [default: the bot's file name and
    /// its fixed options].
    #[arg(long, value_name = "NAME")]
    pub level_name: Option<String>,
    /// Stop when every target's interval half-width is at most this (Elo). The cost goes with
    /// its inverse square: ±25 takes about 740 games a target, ±75 about 80 (docs/calibrate.md).
    #[arg(long, default_value_t = 25.0)]
    pub tolerance: f64,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Stop, unconverged, after this many calibration games.
    #[arg(long, default_value_t = 3000)]
    pub max_games: usize,
    /// Highest degree of the fitted curve.
    #[arg(long, default_value_t = 3)]
    pub max_degree: usize,
    /// Evenly spaced knob values played first.
    #[arg(long, default_value_t = 3)]
    pub initial_points: usize,
    /// Game pairs per reference player in a batch: at least.
    #[arg(long, default_value_t = 1)]
    pub min_pairs: u32,
    /// ... and at most.
    #[arg(long, default_value_t = 4)]
    pub max_pairs: u32,
    /// Run seed: the reference round robin's and every step's openings and the bots' per-game
    /// seeds are a function of it
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The tolerance of each level's band in the `bands.toml` written for `arena gate` (Elo).
    #[arg(long, default_value_t = 50.0)]
    pub band_tolerance: f64,
    /// Go on with the calibration in this folder (after Ctrl-C, a crash or kill -9): the steps
    /// played are read from disk, the interrupted one is finished, and the calibration goes on
    /// as an uninterrupted one would. Only --concurrency, --quiet, --no-plots,
    /// --handshake-timeout and the --curve flags may be given with it: the rest is the
    /// calibration's own (its calibration-setup.json).
    #[arg(long, value_name = "DIR")]
    pub resume: Option<PathBuf>,
    /// How long a bot may take for the handshake and each `isready`, in ms [default: 10000]:
    /// Hard and the strongest Elo settings build their endgame database at `newgame`, which
    /// takes far longer than its 0.4 s of CPU on a crowded machine.
    #[arg(long, value_parser = mancala_arena::vocab::game_flags::millis, value_name = "MS")]
    pub handshake_timeout: Option<u64>,
    /// Also fit one smooth monotone Elo curve over the knob's whole range to every game and
    /// write it to PATH, in the format the alpha-beta bot's option.EloCurve reads (and as
    /// elo-curve.txt in the folder; docs/calibrate.md, "An Elo curve").
    #[arg(long, value_name = "PATH")]
    pub curve: Option<PathBuf>,
    /// The Elo curve's highest degree (Bernstein; chosen by AIC up to this).
    #[arg(long, default_value_t = 4, requires = "curve")]
    pub curve_degree: usize,
    /// Another calibration folder of the same knob whose games join the curve's fit, each
    /// against its own pool at its Elos (e.g. the weak settings calibrated against the weak
    /// levels only); repeatable. It must have played the same rules and openings.
    #[arg(long = "curve-with", value_name = "DIR", requires = "curve")]
    pub curve_with: Vec<PathBuf>,
    #[command(flatten)]
    pub game: GameFlags,
    #[command(flatten)]
    pub output: OutputFlags,
    /// The arguments given on the command line, by id (filled by `cli::with_grouped_values`):
    /// `--resume` refuses those that set a calibration up.
    #[arg(skip)]
    pub given: Vec<String>,
}

/// The flags `--resume` takes: they do not change the calibration's trajectory.
const RESUME_FLAGS: [&str; 8] = [
    "resume",
    "concurrency",
    "quiet",
    "no_plots",
    "handshake_timeout",
    "curve",
    "curve_degree",
    "curve_with",
];

/// The reference pool as the flags give it, each player's Elo typed, from `ratings`
/// (`--reference-ratings`) or, if neither, to be rated by a round robin; with where the Elos came
/// from when a ratings file gave any.
fn references(
    args: &CalibrateArgs,
    ratings: Option<&RatingsFile>,
) -> Result<(Vec<Reference>, Option<String>)> {
    let mut refs = Vec::new();
    for entry in &args.reference {
        let (name, elo) = match entry.split_once('=') {
            Some((n, e)) => (
                n.trim(),
                Some(
                    e.trim()
                        .parse::<f64>()
                        .with_context(|| format!("--reference `{entry}`: `{e}` is not an Elo"))?,
                ),
            ),
            None => (entry.trim(), None),
        };
        refs.push(
            Reference::bundled(name, elo)
                .context("--reference (use --reference-bot for other players)")?,
        );
    }
    for words in &args.reference_bot_groups {
        let read = read_player("--reference-bot", words, &["elo"])?;
        if read.table.name.is_empty() {
            bail!("--reference-bot `{}` needs name=NAME", words.join(" "));
        }
        let elo = match read.extra.last() {
            Some((_, e)) => Some(
                e.parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .with_context(|| format!("--reference-bot: elo=`{e}` is not an Elo"))?,
            ),
            None => None,
        };
        let spec = read.spec(None)?;
        refs.push(Reference {
            name: spec.name.clone(),
            player: ReferencePlayer::Bot(spec),
            elo,
        });
    }
    if refs.is_empty() {
        bail!("--reference: give the reference pool (e.g. easy,normal,hard)");
    }
    if refs.iter().any(|r| r.name == CANDIDATE) {
        bail!("a reference player may not be named `{CANDIDATE}`");
    }
    let source = ratings
        .map(|file| elos_from_ratings(&mut refs, file).context("--reference-ratings"))
        .transpose()?;
    let given = refs.iter().filter(|r| r.elo.is_some()).count();
    if given != 0 && given != refs.len() {
        bail!(
            "give every reference player an Elo, or none (then they are rated against each other)"
        );
    }
    if given == 0 && refs.len() < 2 {
        bail!(
            "a single reference player needs an Elo (NAME=ELO): there is nobody to rate it against"
        );
    }
    Ok((refs, source))
}

/// `--anchor NAME=ELO`.
fn parse_anchor(text: &str) -> Result<(String, f64)> {
    let (n, e) = text
        .split_once('=')
        .with_context(|| format!("--anchor `{text}`: expected NAME=ELO"))?;
    let elo = e
        .parse::<f64>()
        .ok()
        .filter(|v| v.is_finite())
        .with_context(|| format!("--anchor `{text}`: `{e}` is not an Elo"))?;
    Ok((n.to_string(), elo))
}

/// The pool's Elos: given, or from a round robin among its members (its table printed); with the
/// wall time per game of that round robin when it was played now (a first guess at the pace).
fn pool(
    setup: &CalibrationSetup,
    game: &GameSettings,
    refs: &[Reference],
    dir: &Path,
    quiet: bool,
) -> Result<(Vec<f64>, Option<Duration>)> {
    if refs.iter().all(|r| r.elo.is_some()) {
        return Ok((refs.iter().map(|r| r.elo.expect("checked")).collect(), None));
    }
    let anchor = setup.anchor.as_deref().map(parse_anchor).transpose()?;
    if !quiet {
        eprintln!(
            "rating the reference pool: round robin, {} pairs per encounter, in {}",
            setup.reference_pairs,
            dir.join(REFERENCE_DIR).display()
        );
    }
    let started = Instant::now();
    let (rated, replayed) = rate_pool(
        refs,
        game,
        setup.reference_pairs,
        setup.seed,
        anchor,
        dir,
        &mut [&mut Console::new(false, None)],
    )?;
    let games = rated.report.games.max(1);
    let pace = (!replayed).then(|| started.elapsed() / games as u32);
    super::say::say_warnings(&rated);
    if !quiet {
        eprint!("{}", rated.table);
    }
    Ok((pool_elos(refs, &rated)?, pace))
}

/// `--resume` goes on as the calibration's setup says: every other flag given that sets a
/// calibration up is refused, by name, before anything is read or played.
fn refuse_setup_flags(args: &CalibrateArgs, dir: &Path) -> Result<()> {
    let command = <super::Cli as clap::CommandFactory>::command();
    let sub = command.find_subcommand("calibrate");
    // The flag of an argument's id (the ids of the flattened groups are no flags).
    let flag = |id: &str| {
        sub.and_then(|c| c.get_arguments().find(|a| a.get_id() == id))
            .and_then(|a| a.get_long())
            .map(|long| format!("--{long}"))
    };
    let given: Vec<String> = args
        .given
        .iter()
        .filter(|id| !RESUME_FLAGS.contains(&id.as_str()))
        .filter_map(|id| flag(id))
        .collect();
    if !given.is_empty() {
        bail!(
            "--resume goes on with the calibration as {} says: {} would be ignored; drop {} \
             (--concurrency, --quiet, --no-plots, --handshake-timeout and --curve... may be given)",
            dir.join(SETUP_JSON).display(),
            given.join(", "),
            if given.len() == 1 { "it" } else { "them" }
        );
    }
    Ok(())
}

/// A new calibration must not start in a calibration's folder: an unfinished one is offered
/// `--resume`, a finished one is not (a resume would only replay it).
fn refuse_a_calibration_in(dir: &Path) -> Result<()> {
    if CalibrationSetup::read(dir)?.is_none() {
        return Ok(());
    }
    let word = shell_word(dir);
    if read_calibration(dir)?.is_some_and(|c| c.finished) {
        bail!(
            "{} holds a finished calibration: choose another --out (`arena gate {}` checks its levels)",
            dir.display(),
            shell_word(&dir.join(BANDS_TOML))
        );
    }
    bail!(
        "{} holds a calibration that did not finish: `arena calibrate --resume {word}` goes on with it, or choose another --out",
        dir.display()
    );
}

/// A new calibration's setup from the flags: everything checked, the humans' ratings read and
/// the bot asked what it declares (the knob must be its option) before any game. The folder is
/// made for that probe; a calibration refused here leaves no new folder behind.
fn new_setup(args: &CalibrateArgs, dir: &Path) -> Result<CalibrationSetup> {
    let knob_text = args
        .knob
        .as_deref()
        .context("--knob: the option to calibrate")?;
    let knob = Knob::parse(knob_text).map_err(anyhow::Error::msg)?;
    let candidate = read_player("--bot", &args.bot, &[])?
        .with_options("--bot-option", &args.bot_options)?
        .spec(Some(CANDIDATE))?;
    refuse_optionless(&candidate, "a calibration's knob")?;
    let ratings = args
        .reference_ratings
        .as_deref()
        .map(RatingsFile::read)
        .transpose()
        .context("--reference-ratings")?;
    let (refs, reference_source) = references(args, ratings.as_ref())?;
    // The humans of the matchmaking table: read now, so that a bad file stops before any game.
    let humans = humans(args, ratings.as_ref(), &refs)?;
    if !(args.bracket > 0.0 && args.bracket.is_finite()) {
        bail!("--bracket must be a positive number of Elo");
    }
    if !(args.level > 0.0 && args.level < 1.0) || args.tolerance <= 0.0 {
        bail!("--level must be in (0, 1) and --tolerance positive");
    }
    if args.band_tolerance.is_nan() || args.band_tolerance <= 0.0 {
        bail!("--band-tolerance must be positive");
    }
    args.game.settings()?;
    let settings = Settings {
        targets: args.targets.clone(),
        tolerance: args.tolerance,
        level: args.level,
        max_games: args.max_games,
        max_degree: args.max_degree,
        initial_points: args.initial_points,
        min_pairs: args.min_pairs,
        max_pairs: args.max_pairs.max(args.min_pairs),
    };
    let pool = refs
        .iter()
        .map(|r| PoolMember {
            name: r.name.clone(),
            bot: match &r.player {
                ReferencePlayer::Bundled { .. } => None,
                ReferencePlayer::Bot(spec) => Some(spec.clone()),
            },
            elo: r.elo,
        })
        .collect();
    let fresh = !dir.exists();
    std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
    // The bot is asked once what it declares, before any game: the knob must be its option.
    let declared = declared_options(&candidate, "a calibration's knob", dir)
        .and_then(|declared| find_declared(&declared, &knob.name, "--knob").map(|_| ()));
    if let Err(e) = declared {
        if fresh {
            let _ = std::fs::remove_dir_all(dir);
        }
        return Err(e);
    }
    Ok(CalibrationSetup {
        candidate,
        knob,
        settings,
        pool,
        reference_source,
        reference_pairs: args.reference_pairs,
        anchor: args.anchor.clone(),
        humans,
        bracket: args.bracket,
        level_name: args.level_name.clone(),
        band_tolerance: args.band_tolerance,
        seed: args.seed,
        // The openings file by its absolute path: a resume may start in another folder.
        game: GameFlags {
            openings: args
                .game
                .openings
                .as_ref()
                .map(|p| std::path::absolute(p).unwrap_or_else(|_| p.clone())),
            ..args.game.clone()
        },
    })
}

/// The reference pool of a setup, as the games need it.
fn setup_references(setup: &CalibrationSetup) -> Result<Vec<Reference>> {
    setup
        .pool
        .iter()
        .map(|m| match &m.bot {
            None => Reference::bundled(&m.name, m.elo),
            Some(spec) => Ok(Reference {
                name: m.name.clone(),
                player: ReferencePlayer::Bot(spec.clone()),
                elo: m.elo,
            }),
        })
        .collect()
}

/// A time in words: `45 s`, `12 min`, `2 h 05 min`.
fn duration_words(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=119 => format!("{s} s"),
        120..=5999 => format!("{} min", (s + 30) / 60),
        _ => format!("{} h {:02} min", s / 3600, (s % 3600 + 30) / 60),
    }
}

/// The time the games ahead take at `pace` a game: for the expected ones and for the budget.
fn time_words(pace: Duration, expected: usize, budget: usize, done: usize) -> String {
    let left = |games: usize| duration_words(pace * games.saturating_sub(done) as u32);
    if expected < budget {
        format!(
            "about {} for the expected games, at most {} for the budget",
            left(expected),
            left(budget)
        )
    } else {
        format!("about {} for the budget", left(budget))
    }
}

pub fn run(args: &CalibrateArgs) -> Result<()> {
    if let Some(path) = &args.curve {
        super::calibrate_curve::check_path(path, &args.curve_with)?;
    }
    let (dir, resumed) = match &args.resume {
        Some(dir) => {
            refuse_setup_flags(args, dir)?;
            if !dir.exists() {
                bail!(
                    "{} does not exist: --resume takes the folder of a calibration",
                    dir.display()
                );
            }
            (dir.clone(), true)
        }
        None => {
            let dir = args.output.out_or_default("calibrate");
            refuse_a_calibration_in(&dir)?;
            new_setup(args, &dir)?.write(&dir)?;
            (dir, false)
        }
    };
    // Both a new calibration and a resume go on from the setup as the file holds it.
    let mut setup = CalibrationSetup::read(&dir)?.with_context(|| {
        format!(
            "{} holds no {SETUP_JSON}: not the folder of a calibration (or of one started before calibrations could be resumed)",
            dir.display()
        )
    })?;
    if args.game.concurrency.is_some() {
        setup.game.concurrency = args.game.concurrency;
    }
    calibrate_in(&setup, &dir, resumed, args)
}

/// Plays (or replays, then goes on with) the calibration `setup` in `dir`, prints and writes its
/// results.
fn calibrate_in(
    setup: &CalibrationSetup,
    dir: &Path,
    resumed: bool,
    args: &CalibrateArgs,
) -> Result<()> {
    let output = &args.output;
    let quiet = output.quiet;
    let knob = &setup.knob;
    let settings = &setup.settings;
    let candidate = Candidate {
        spec: setup.candidate.clone(),
    };
    let refs = setup_references(setup)?;
    let mut game = setup.game.settings()?;
    if let Some(ms) = args.handshake_timeout {
        game.time.handshake_ms = ms;
    }
    if resumed && !quiet {
        eprintln!(
            "resuming the calibration in {}: the steps on disk are replayed, the rest played",
            dir.display()
        );
    }
    let rated = refs.iter().any(|r| r.elo.is_none());
    let (pool, pool_pace) = pool(setup, &game, &refs, dir, quiet)?;
    let source = match &setup.reference_source {
        Some(s) => s.clone(),
        None if rated => format!(
            "reference Elos from the pool's round robin in {} ({})",
            dir.join(REFERENCE_DIR).display(),
            match &setup.anchor {
                Some(a) => format!("anchor: {a}"),
                None => "anchor: pool mean = 1200".to_string(),
            }
        ),
        None => "reference Elos typed".to_string(),
    };
    // The cost, before the first step: the budget, the games expected, and the time as soon as
    // a pace is known.
    let expected = calibrate::expected_games(settings, knob.integer);
    let budget = settings.max_games;
    if !quiet {
        let list: Vec<String> = refs
            .iter()
            .zip(&pool)
            .map(|(r, e)| format!("{}={e:.0}", r.name))
            .collect();
        eprintln!(
            "calibrating {} over {}..{} against {} ({}); results in {}",
            knob.name,
            knob.format(knob.lo),
            knob.format(knob.hi),
            list.join(", "),
            terminal_source(&source),
            dir.display()
        );
        let targets = settings.targets.len();
        if expected <= budget {
            eprintln!(
                "budget: at most {budget} games (--max-games); about {expected} expected until all {targets} \
                 targets are within ±{} Elo (a --tolerance twice as wide needs a quarter of that)",
                settings.tolerance
            );
        } else {
            eprintln!(
                "budget: at most {budget} games (--max-games), but about {expected} are needed for all \
                 {targets} targets within ±{} Elo: the budget will stop it first (raise --max-games or \
                 widen --tolerance; docs/calibrate.md#what-it-costs-and-quick-calibrations)",
                settings.tolerance
            );
        }
        match pool_pace {
            Some(pace) => eprintln!(
                "time: {:.2} s a game in the pool's round robin ({} at once): {}",
                pace.as_secs_f64(),
                game.concurrency,
                time_words(pace, expected, budget, 0)
            ),
            None => eprintln!("time: known after the first batch"),
        }
    }
    // The pace of the steps played now, told once: not from a replayed step (it takes no time)
    // nor from the first one played after them (a resume may have found part of it on disk).
    let mut clock = Instant::now();
    let mut told = false;
    let mut after_disk = false;
    let mut done_games = 0;
    let mut on_step = |s: &StepDone<'_>| {
        done_games += s.games;
        let partial = std::mem::replace(&mut after_disk, s.replayed);
        if !quiet {
            eprintln!(
                "step {:>2}: {}={}, {} games, score {:.1}/{}{}",
                s.step,
                knob.name,
                s.value,
                s.games,
                s.points,
                s.games,
                if s.replayed { " (from disk)" } else { "" }
            );
            if !s.replayed && !partial && !told && s.games > 0 {
                let pace = clock.elapsed() / s.games as u32;
                eprintln!(
                    "time: {:.2} s a game ({} at once): {}",
                    pace.as_secs_f64(),
                    game.concurrency,
                    time_words(pace, expected, budget, done_games)
                );
                told = true;
            }
        }
        clock = Instant::now();
    };
    let mut console = Console::new(false, None);
    let mut sinks: [&mut dyn RunSink; 1] = [&mut console];
    let mut player = StepPlayer {
        candidate: &candidate,
        knob,
        refs: &refs,
        game: &game,
        seed: setup.seed,
        dir,
        on_step: &mut on_step,
        sinks: &mut sinks,
    };
    let cal = calibrate::calibrate(knob, &pool, settings, &mut player, |so_far| {
        // The calibration so far, for whoever watches the folder (`arena serve`): a failed write
        // costs only that view, so the calibration goes on.
        if let Err(e) = write_points(dir, so_far) {
            eprintln!("warning: {e:#}");
        }
        // A curve of one knob value is flat: nothing to say yet.
        if !quiet && so_far.curve.degree > 0 {
            let line: Vec<String> = so_far
                .targets
                .iter()
                .map(|r| {
                    format!(
                        "{:.0}→{}{}±{:.0}",
                        r.target,
                        knob.format(r.x),
                        if r.converged { "✓" } else { "" },
                        r.half_width
                    )
                })
                .collect();
            eprintln!("         curve: {}", line.join("  "));
        }
    })
    .map_err(anyhow::Error::msg)?;
    write_outputs(setup, output, &game, &refs, &cal, dir, &source)?;
    out!("{}", table(&cal))?;
    outln!("{}", terminal_source(&source))?;
    if let Some(path) = &args.curve {
        let req = super::calibrate_curve::CurveRequest {
            path,
            with: &args.curve_with,
            max_degree: args.curve_degree,
            no_plots: output.no_plots,
        };
        let made = super::calibrate_curve::write_curve(&req, &cal, &game, &source, dir)?;
        out!("\n{}", terminal_source(&made))?;
    }
    if let Some(humans) = &setup.humans {
        let made = write_matchmaking(setup, output, &cal, humans, &source, dir)?;
        out!("\n{}", terminal_source(&made))?;
    }
    outln!(
        "\n{} calibration games in {} batches ({}); results in {} (bands.toml: the levels for `arena gate`)",
        cal.games,
        cal.steps.len(),
        outcome(&cal),
        dir.display()
    )?;
    Ok(())
}

fn write_outputs(
    setup: &CalibrationSetup,
    output: &OutputFlags,
    game: &GameSettings,
    refs: &[Reference],
    cal: &Calibration,
    dir: &Path,
    source: &str,
) -> Result<()> {
    let pool: Vec<String> = refs
        .iter()
        .zip(&cal.opponents)
        .map(|(r, e)| format!("{}={e:.0}", r.name))
        .collect();
    write_calibration(
        dir,
        cal,
        &setup.candidate,
        &pool.join(", "),
        &format!("{}\n{source}\n", table(cal)),
        source,
    )?;
    if !output.no_plots {
        for missing in write_curve(dir, cal)? {
            eprintln!("{missing}");
        }
    }
    write_bands(dir, &bands(setup, game, refs, cal, source))?;
    Ok(())
}

/// The humans of the matchmaking table: the players of `--humans` (or of `--reference-ratings`)
/// other than the reference pool, the candidate and `--not-human`; `None` without either file.
fn humans(
    args: &CalibrateArgs,
    ratings: Option<&RatingsFile>,
    refs: &[Reference],
) -> Result<Option<Humans>> {
    let file = match (&args.humans, ratings) {
        (Some(path), ratings) => {
            if ratings.is_none() && !args.output.quiet {
                eprintln!(
                    "note: the humans' ratings ({}) and the pool's Elos must be on one scale: \
                     the matchmaking table reads one on the other",
                    path.display()
                );
            }
            RatingsFile::read(path).context("--humans")?
        }
        (None, Some(file)) => file.clone(),
        (None, None) => {
            if !args.not_human.is_empty() || args.level_name.is_some() {
                bail!("--not-human and --level-name are for the matchmaking table: give --reference-ratings or --humans");
            }
            return Ok(None);
        }
    };
    let mut except: Vec<&str> = refs.iter().map(|r| r.name.as_str()).collect();
    except.push(CANDIDATE);
    except.extend(args.not_human.iter().map(String::as_str));
    for name in &args.not_human {
        if !file.players.iter().any(|(n, _)| n == name) {
            bail!(
                "--not-human `{name}` is not rated in {}",
                file.path.display()
            );
        }
    }
    let players = file.others(&except);
    if players.is_empty() {
        bail!(
            "{} rates no human: every player in it is a reference player or --not-human",
            file.path.display()
        );
    }
    Ok(Some(Humans {
        source: file.source(),
        players,
    }))
}

/// `matchmaking.csv`, `.json`, `.txt` and the figure: per bracket of the humans' ratings the
/// knob value at which a human there is expected to score 50 % against the calibrated bot.
/// Returns the printed table.
fn write_matchmaking(
    setup: &CalibrationSetup,
    output: &OutputFlags,
    cal: &Calibration,
    humans: &Humans,
    source: &str,
    dir: &Path,
) -> Result<String> {
    let (candidate, knob) = (&setup.candidate, &setup.knob);
    let name = setup.level_name.clone().unwrap_or_else(|| {
        let program = match &candidate.program {
            Program::Exec { program, .. } => program
                .file_name()
                .map_or(program.display().to_string(), |f| {
                    f.to_string_lossy().into_owned()
                }),
            Program::Shell { command } => command.clone(),
        };
        std::iter::once(program)
            .chain(
                candidate
                    .options
                    .iter()
                    .filter(|(k, _)| *k != knob.name)
                    .map(|(k, v)| format!("{k}={v}")),
            )
            .collect::<Vec<_>>()
            .join(" ")
    });
    let ratings: Vec<f64> = humans.players.iter().map(|(_, e)| *e).collect();
    let level = MatchLevel {
        name: &name,
        curve: &cal.curve,
        z: cal.z,
        integer: knob.integer,
    };
    let table = matchmaking(&[level], &ratings, setup.bracket).map_err(anyhow::Error::msg)?;
    let file = MatchmakingFile {
        reference_source: source.to_string(),
        humans_source: humans.source.clone(),
        knob: knob.clone(),
        level: cal.settings.level,
        targets: cal.targets.iter().map(|t| (t.target, t.x)).collect(),
        ratings,
        table,
    };
    write_matchmaking_files(dir, &file)?;
    let text = matchmaking_text(&file);
    write_matchmaking_text(dir, &text)?;
    if !output.no_plots {
        for missing in write_matchmaking_plot(dir, &file)? {
            eprintln!("{missing}");
        }
    }
    Ok(text)
}

/// `bands.toml`: the calibrated settings as the levels of an `arena gate` bands file, against
/// the same pool with the Elos it was held at, with the game settings the calibration played.
fn bands(
    setup: &CalibrationSetup,
    game: &GameSettings,
    refs: &[Reference],
    cal: &Calibration,
    source: &str,
) -> String {
    let pool = refs
        .iter()
        .zip(&cal.opponents)
        .map(|(r, &elo)| BandsReference {
            name: r.name.clone(),
            elo,
            spec: match &r.player {
                ReferencePlayer::Bundled { .. } => None,
                ReferencePlayer::Bot(spec) => Some(spec.clone()),
            },
        })
        .collect::<Vec<_>>();
    let game_table = setup.game.as_played(game);
    let gate = GateTable {
        first_move_advantage: Some((cal.curve.advantage() / 2.0).round()),
        reference_source: Some(source.to_string()),
        ..GateTable::default()
    };
    bands_toml(
        cal,
        &setup.candidate,
        &pool,
        &game_table,
        &gate,
        setup.band_tolerance,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_arena::calibrate::sim::SimulatedPlayer;
    use mancala_arena::vocab::BotSpec;

    fn args(reference: &[&str], bots: &[&str]) -> CalibrateArgs {
        use clap::Parser;
        #[derive(Parser)]
        struct Wrap {
            #[command(flatten)]
            args: CalibrateArgs,
        }
        let mut argv = vec!["calibrate", "--bot", "x", "--knob", "option.Noise=0..1"];
        for r in reference {
            argv.extend(["--reference", r]);
        }
        for b in bots {
            argv.extend(["--reference-bot", b]);
        }
        let mut args = Wrap::parse_from(argv).args;
        args.reference_bot_groups = bots.iter().map(|b| vec![b.to_string()]).collect();
        args
    }

    fn references_of(args: &CalibrateArgs) -> Result<Vec<Reference>> {
        references(args, None).map(|(refs, _)| refs)
    }

    #[test]
    fn reference_pool_given_or_rated() {
        let refs = references_of(&args(&["easy=1000,normal=1300"], &[])).unwrap();
        assert_eq!(refs.len(), 2);
        assert_eq!(
            (refs[1].name.as_str(), refs[1].elo),
            ("normal", Some(1300.0))
        );
        assert!(matches!(
            refs[1].player,
            ReferencePlayer::Bundled {
                bot: "alphabeta",
                options: [("Level", "normal")]
            }
        ));
        let refs = references_of(&args(
            &["easy,normal"],
            &["name=deep cmd='bot --fast' option.Depth=7"],
        ))
        .unwrap();
        assert_eq!(refs.len(), 3);
        assert!(refs.iter().all(|r| r.elo.is_none()));
        let ReferencePlayer::Bot(spec) = &refs[2].player else {
            panic!("--reference-bot is a bot of its own")
        };
        assert_eq!(spec.program.display(), "bot --fast");
        assert_eq!(spec.options, vec![("Depth".to_string(), "7".to_string())]);
        // Some Elos given and some not, an unknown name, a lone unrated player: refused.
        assert!(references_of(&args(&["easy=1000,normal"], &[])).is_err());
        assert!(references_of(&args(&["nosuch"], &[])).is_err());
        assert!(references_of(&args(&["easy"], &[])).is_err());
        assert!(references_of(&args(&[], &[])).is_err());
    }

    #[test]
    fn toml_snippet_parses_as_tournament_bots() {
        let pool = [1000.0, 1400.0];
        let knob = Knob::parse("option.Noise=0..2.0").unwrap();
        let mut player = SimulatedPlayer::new(|x: f64| 1700.0 - 400.0 * x, pool.to_vec(), 1);
        let settings = Settings {
            targets: vec![1200.0, 1500.0],
            tolerance: 60.0,
            ..Settings::default()
        };
        let cal = calibrate::calibrate(&knob, &pool, &settings, &mut player, |_| {}).unwrap();
        let candidate = BotSpec {
            name: CANDIDATE.into(),
            program: Program::from_command_line("target/release/mancala-alphabeta").unwrap(),
            dir: None,
            options: vec![
                ("Level".into(), "hard".into()),
                ("Noise".into(), "9".into()),
            ],
            protocol: Default::default(),
            sandbox: false,
            memory: None,
            time_by: None,
            kgp_missing_move: Default::default(),
        };
        let text = mancala_arena::run_folder::calibration::toml_snippet(
            &cal,
            &candidate,
            "a=1000, b=1400",
        );
        let parsed: toml::Table = toml::from_str(&text).unwrap();
        let bots = parsed["bot"].as_array().unwrap();
        assert_eq!(bots.len(), 2);
        assert_eq!(bots[0]["name"].as_str(), Some("elo-1200"));
        let opts = bots[0]["options"].as_table().unwrap();
        assert_eq!(opts["Level"].as_str(), Some("hard"));
        assert_eq!(
            opts["Noise"].as_str(),
            Some(knob.format(cal.targets[0].x).as_str())
        );
        let table = table(&cal);
        assert!(table.contains("1200") && table.contains("converged"));
    }
}
