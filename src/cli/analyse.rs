//! `arena analyse DIR | FILE.pgn...`: the mistake meter. Judges every sow a player chose in a
//! results folder, or in PGN files (the arena's export or any program's, movetext in pit
//! numbers, written as a results folder with `--out` so that the report, its game viewer and
//! `arena serve` read them as any run), against perfect play, and reports per player and per
//! game the share of their sows that lose value, the seeds lost (the exact analogue of chess's
//! average centipawn loss), two accuracy figures, the costliest sows and mistakes against
//! rating in brackets: into the folder's `analysis*.csv` files and a terminal table, then
//! redraws the folder's report (which shows them). The judging is `mancala_arena::judge`'s;
//! this file reads the flags and prints.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::bail;
use clap::Args;
use mancala_arena::judge::input::{nothing_to_judge, pgn_to_folder, with_sows, Tags};
use mancala_arena::judge::{judge, JudgeEvent, JudgeOptions};
use mancala_arena::report::rate::{rate_dir, RateOptions};
use mancala_arena::rules::Ruleset;
use mancala_arena::run_folder::analysis::{
    write_analysis, Analysis, ANALYSIS_BRACKETS_CSV, ANALYSIS_CSV,
};
use mancala_arena::run_folder::games::read_records;
use mancala_arena::run_folder::mistakes::{bracket_rows, game_rows, player_rows, worst_sows};
use mancala_arena::run_folder::not_a_run_folder;
use mancala_arena::run_folder::ratings::RatingsFile;
use mancala_arena::solver::auto::DbSource;
use mancala_arena::solver::db::db_entries;

use super::flags::{check_pgn_paths, default_out};
use super::say::{report, say_warnings};
use super::solver_console::{duration, SolverConsole};

#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// A results folder (its games.jsonl), or PGN files and folders of *.pgn.
    #[arg(required = true)]
    pub paths: Vec<PathBuf>,
    /// PGN input: the folder the games and the analysis are written to (default NAME-analysis
    /// here, NAME the first file's name); it must not hold a run yet.
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// PGN input: the games' ruleset (docs/rules.md), instead of their Variant tags.
    #[arg(long)]
    pub rules: Option<Ruleset>,
    /// A player (a bot level) drawn at its own rating in the mistakes-against-rating table
    /// rather than pooled into a bracket; repeatable. Every player of a results folder is one.
    #[arg(long = "level", value_name = "NAME")]
    pub levels: Vec<String>,
    /// A ratings.csv (or a folder holding one: a results folder, an `arena rate` output) whose
    /// players are levels at its Elos, before any Elo tag: put a run's bots beside the people
    /// of a PGN file, on the scale of that rating.
    #[arg(long, value_name = "PATH")]
    pub ratings: Option<PathBuf>,
    /// The width of the rating brackets, in Elo.
    #[arg(long, default_value_t = 100.0)]
    pub bracket: f64,
    /// Levels whose mistakes to set beside those of the people rated where each is rated: the
    /// seeds lost per sow of both, printed and drawn (mistake-profile.svg/png; docs/bots.md,
    /// "Mistakes like a human's"). Comma-separated level names.
    #[arg(long, value_delimiter = ',', value_name = "LEVEL")]
    pub profile: Vec<String>,
    /// How many of each player's costliest sows to list.
    #[arg(long, default_value_t = 5)]
    pub worst: usize,
    /// Node budget per position; positions not proven within it are reported as unproven.
    #[arg(long, default_value_t = 20_000_000)]
    pub nodes: u64,
    /// Endgame database size (seeds in the pits). Default: the one worth building for the
    /// games given on this machine (the least expected build + search time; the first line
    /// says which, and the time it expects; docs/solved.md).
    #[arg(long)]
    pub db_seeds: Option<usize>,
    /// Do not redraw report.html / summary.md (which show the mistake meter). Redrawing them
    /// re-rates a results folder with the default options, as `arena plot` does.
    #[arg(long)]
    pub no_report: bool,
    /// Worker threads (default: one per core); games are dealt out in turn.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (one per ruleset, shared by the threads).
    #[arg(long, default_value_t = 2048)]
    pub tt_mib: usize,
    /// Games no exact solver fits (Oware, Congkak): judge their sows by the alpha-beta search
    /// to this many turns, an estimate labelled as such in every table; 0 skips those games.
    #[arg(long, default_value_t = 12)]
    pub estimate_depth: u32,
    /// Neither read nor add to the value cache (positions proven before, kept beside the
    /// databases; docs/solved.md): every position is proven afresh.
    #[arg(long)]
    pub no_value_cache: bool,
}

pub fn run(args: &AnalyseArgs) -> anyhow::Result<()> {
    if !(args.bracket > 0.0 && args.bracket.is_finite()) {
        bail!("--bracket {}: the width must be above 0", args.bracket);
    }
    let (dir, tags) = input_folder(args)?;
    let records = read_records(&dir)?;
    if records.is_empty() {
        bail!("{}: no games (games.jsonl missing or empty)", dir.display());
    }
    let total = records.len();
    let (records, without_sows) = with_sows(records);
    if records.is_empty() {
        bail!(nothing_to_judge(&dir.display().to_string(), total));
    }
    if without_sows > 0 {
        eprintln!(
            "warning: {without_sows} of the {total} games have no sow by a player (no moves \
             after the opening): left out, nothing to judge in them"
        );
    }
    // A results folder's players are bots at the folder's ratings: its ratings.csv as last
    // written (perhaps anchored by `arena rate`, so it is read, not rewritten), or a fresh
    // rating when it has none. PGN players have the ratings of their Elo tags, game by game; a
    // --ratings file's players (levels) have its.
    let mut levels: HashMap<String, f64> = HashMap::new();
    let mut rated = None;
    if tags.is_none() {
        match RatingsFile::read(&dir) {
            Ok(file) => levels.extend(file.players),
            Err(_) => {
                let fresh = rate_dir(&dir, &RateOptions::default());
                if let Ok(r) = &fresh {
                    levels.extend(
                        r.summary
                            .ratings
                            .iter()
                            .map(|row| (row.name.clone(), row.elo)),
                    );
                }
                rated = Some(fresh);
            }
        }
    }
    if let Some(path) = &args.ratings {
        let file = RatingsFile::read(path)?;
        eprintln!(
            "levels' ratings from {}",
            mancala_arena::report::calibration::terminal_source(&file.source())
        );
        levels.extend(file.players);
    }
    let started = Instant::now();
    let opts = JudgeOptions {
        nodes: args.nodes,
        threads: args
            .threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
        estimate_depth: args.estimate_depth,
        tt_mib: Some(args.tt_mib),
        db_seeds: args.db_seeds,
        value_cache: !args.no_value_cache,
    };
    let console = SolverConsole::new();
    let mut judged = judge(&records, &opts, &|e| say(&console, &e, started))?;
    for g in &mut judged.games {
        let tagged = tags
            .as_ref()
            .and_then(|t| t.get(&g.game_id).copied())
            .unwrap_or([None, None]);
        for ((rating, player), tag) in g.ratings.iter_mut().zip(&g.players).zip(tagged) {
            *rating = levels.get(player).copied().or(tag);
        }
    }
    let levels: BTreeSet<String> = levels
        .into_keys()
        .chain(args.levels.iter().cloned())
        .collect();
    let analysis = Analysis {
        players: player_rows(&judged.games, args.nodes),
        games: game_rows(&judged.games),
        worst: worst_sows(&judged.games, args.worst),
        brackets: bracket_rows(&judged.games, &levels, args.bracket),
    };
    write_analysis(&dir, &analysis)?;
    print_tables(&analysis)?;
    super::analyse_profile::write(&dir, &judged.games, &levels, args.bracket, &args.profile)?;
    let mut left_out = Vec::new();
    if judged.skipped_games > 0 {
        left_out.push(format!("{} non-Kalah games skipped", judged.skipped_games));
    }
    for (why, n) in &judged.unmodelled {
        left_out.push(format!("{n} games skipped: {why}"));
    }
    if without_sows > 0 {
        left_out.push(format!("{without_sows} games without a sow left out"));
    }
    outln!(
        "{} games in {:.1}s, {} solver nodes{}; wrote {} and the other analysis*.csv files",
        records.len() - judged.skipped_games - judged.unmodelled.values().sum::<usize>(),
        started.elapsed().as_secs_f64(),
        judged.nodes,
        left_out
            .iter()
            .map(|s| format!(", {s}"))
            .collect::<String>(),
        dir.join(ANALYSIS_CSV).display()
    )?;
    outln!("{}", judged.times.describe())?;
    if !args.no_report {
        // The report shows the mistake meter next to the ratings; a folder that cannot be
        // rated (e.g. one player only) keeps its analysis files and says why there is no report.
        let opts = RateOptions::default();
        match rated.unwrap_or_else(|| rate_dir(&dir, &opts)) {
            Ok(rated) => {
                say_warnings(&rated);
                report(&dir, &rated, &opts, true)?
            }
            Err(e) => eprintln!("no report: {e:#}"),
        }
    }
    Ok(())
}

/// Says one judging event on stderr: the setup of each ruleset's games in one line (what the
/// database is, whether it is built now and the time expected), the solver's opening, the
/// games judged every 10.
fn say(console: &SolverConsole, e: &JudgeEvent, started: Instant) {
    match e {
        JudgeEvent::Setup {
            rules,
            games,
            setup,
            expected,
        } => {
            let k = setup.db_seeds;
            let mib = |k: usize| db_entries(rules.pits(), k) as f64 / (1 << 20) as f64;
            let db = match setup.db_source {
                DbSource::None => "no endgame database".to_string(),
                DbSource::Cached(c) if c == k => format!("endgame database K={k} cached"),
                DbSource::Cached(c) => format!("endgame database K={k} (in the cached K={c})"),
                DbSource::Build { .. } => format!(
                    "endgame database K={k} ({:.0} MiB) to build{}",
                    mib(k),
                    expected
                        .map(|e| format!(" (about {})", duration(e.build_secs)))
                        .unwrap_or_default()
                ),
            };
            let why = match expected {
                Some(e) => format!(
                    "; then about {} of search: about {} in all, the least for {games} games on \
                     this machine (--db-seeds to choose)",
                    duration(e.search_secs),
                    duration(e.build_secs + e.search_secs)
                ),
                None => " (--db-seeds)".to_string(),
            };
            eprintln!("analyse   {games} games of {rules}: {db}{why}");
        }
        JudgeEvent::Solver(o) => console.event(o),
        JudgeEvent::Game { done, total } => {
            if done % 10 == 0 || done == total {
                eprintln!(
                    "analysed {done}/{total} games ({:.0}s)",
                    started.elapsed().as_secs_f64()
                );
            }
        }
        JudgeEvent::ValuesKept { path, kept } => match kept {
            Ok(n) if *n > 0 => eprintln!(
                "values    {n} new proven positions kept in {}",
                path.display()
            ),
            Ok(_) => {}
            Err(e) => eprintln!("values    not kept ({e}) in {}", path.display()),
        },
    }
}

/// The results folder to analyse: the one given, or the PGN games written as one into `--out`
/// (with their Elo tags).
fn input_folder(args: &AnalyseArgs) -> anyhow::Result<(PathBuf, Option<Tags>)> {
    if let [one] = args.paths.as_slice() {
        if one.is_dir() && not_a_run_folder(one).is_none() {
            if args.out.is_some() || args.rules.is_some() {
                bail!(
                    "--out and --rules are for PGN input: a results folder is analysed in itself"
                );
            }
            return Ok((one.clone(), None));
        }
    }
    check_pgn_paths(&args.paths, "analyse")?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&args.paths[0], "analysis"));
    let input = pgn_to_folder(&args.paths, args.rules, &out)?;
    for w in &input.warnings {
        eprintln!("warning: {w}");
    }
    if input.unfinished > 0 {
        eprintln!(
            "warning: {} unfinished game(s) (Result \"*\") skipped",
            input.unfinished
        );
    }
    if input.without_sows > 0 {
        eprintln!(
            "warning: {} game(s) without moves (results and tags only) skipped: nothing to judge in them",
            input.without_sows
        );
    }
    eprintln!("{} PGN games written to {}", input.written, out.display());
    Ok((out, Some(input.tags)))
}

/// The per-player table, the costliest sows and the rating table on stdout.
fn print_tables(a: &Analysis) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<16} {:>6} {:>7} {:>9} {:>9} {:>10} {:>13} {:>6} {:>9} {:>9}",
        "player",
        "games",
        "sows",
        "unproven",
        "mistakes",
        "mistake %",
        "seeds lost/g",
        "worst",
        "accuracy",
        "weighted"
    )?;
    for r in &a.players {
        // A player with no proven sow has no rates: `–`, not a 0 that looks measured.
        let measured = r.proven > 0;
        let or_dash = |text: String| if measured { text } else { "–".to_string() };
        writeln!(
            out,
            "{:<16} {:>6} {:>7} {:>9} {:>9} {:>10} {:>13} {:>6} {:>9} {:>9}",
            r.player,
            r.games,
            r.sows,
            r.unproven,
            or_dash(r.mistakes.to_string()),
            or_dash(format!("{:.1}%", r.mistake_rate * 100.0)),
            or_dash(format!("{:.2}", r.seeds_lost_per_game)),
            or_dash(r.worst_loss.to_string()),
            or_dash(format!("{:.1}%", r.accuracy * 100.0)),
            or_dash(format!("{:.1}%", r.weighted_accuracy * 100.0))
        )?;
    }
    for r in a.players.iter().filter(|r| r.judged_by != "exact") {
        writeln!(
            out,
            "  {}: judged by {}, not by the solver: the losses are estimates",
            r.player, r.judged_by
        )?;
    }
    if !a.worst.is_empty() {
        writeln!(out, "\ncostliest sows (position before the sow):")?;
        for w in a.worst.iter().take(10) {
            writeln!(
                out,
                "  -{:<3} {:<16} game {} sow {} pit {} (best {}) value {:+}  {}",
                w.loss,
                w.player,
                w.game_id,
                w.ply + 1,
                w.played,
                w.best.map_or("?".to_string(), |b| b.to_string()),
                w.value,
                w.position
            )?;
        }
    }
    if !a.brackets.is_empty() {
        writeln!(
            out,
            "\nmistakes against rating ({ANALYSIS_BRACKETS_CSV}):\n{:<16} {:>7} {:>6} {:>7} {:>15} {:>13}",
            "group", "rating", "games", "sows", "mistake % (se)", "seeds lost/g"
        )?;
        for b in &a.brackets {
            let (rate, lost) = if b.proven > 0 {
                (
                    format!(
                        "{:.1}% ({:.1})",
                        b.mistake_rate * 100.0,
                        b.mistake_rate_se * 100.0
                    ),
                    format!("{:.2}", b.seeds_lost_per_game),
                )
            } else {
                ("–".to_string(), "–".to_string())
            };
            writeln!(
                out,
                "{:<16} {:>7.0} {:>6} {:>7} {:>15} {:>13}",
                b.group, b.rating, b.games, b.proven, rate, lost
            )?;
        }
    }
    Ok(())
}
