//! `arena analyse DIR | FILE.pgn...`: the mistake meter. Replays every game of a results folder,
//! or of PGN files (the arena's export or any program's, movetext in pit numbers), with the exact
//! solver and reports, per player and per game, the share of their sows that lose value against
//! perfect play, the seeds lost (the exact analogue of chess's average centipawn loss), two
//! accuracy figures and the costliest sows, and mistakes against rating in brackets; into the
//! folder's `analysis*.csv` files and a terminal table, then redraws the folder's report (which
//! shows them). PGN games are first written as a results folder (`--out`) so that the report,
//! its game viewer and `arena serve` read them as any run.
//!
//! A sow's *loss* is `v(best) - v(played)` from the mover's view, both exact. Opening sows (the
//! run's `opening`, not chosen by the players) and `swap` are not counted. Each position gets a
//! node budget; a position the solver cannot prove within it is counted as *unproven* and left
//! out of the rates, and the table says how many there were.
//! Oware and Congkak, which no exact solver fits, are judged by a deep search instead, and every
//! table says those losses are estimates. Each position of a game is proven once (the next
//! sow's position is the one this sow leads to); worker threads take games as they free up and
//! share one TT, the mapped database and the value cache (positions proven before, by any
//! program), so the costly first positions of a set of games are proven once.

use std::collections::{BTreeSet, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use mancala_arena::report::rate::{rate_dir, RateOptions};
use mancala_arena::rules::{Move, Position, Ruleset, Side};
use mancala_arena::run_folder::analysis::{
    write_analysis, Analysis, ANALYSIS_BRACKETS_CSV, ANALYSIS_CSV,
};
use mancala_arena::run_folder::games::{has_games, read_records, GameRecord, ResultsWriter};
use mancala_arena::run_folder::mistakes::{
    bracket_rows, game_rows, player_rows, worst_sows, JudgedGame, JudgedSow, Verdict,
};
use mancala_arena::run_folder::pgn_games::{mark_written_from_pgn, pgn_record};
use mancala_arena::run_folder::pgn_in::read_pgn;
use mancala_arena::run_folder::ratings::RatingsFile;
use mancala_arena::run_folder::{check_new_folder, not_a_run_folder};
use mancala_arena::solver::{BoardSpec, SBoard, Solver, ValueCache};

use super::solve::database;

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
    /// How many of each player's costliest sows to list.
    #[arg(long, default_value_t = 5)]
    pub worst: usize,
    /// Node budget per position; positions not proven within it are reported as unproven.
    #[arg(long, default_value_t = 20_000_000)]
    pub nodes: u64,
    /// Endgame database size (seeds in the pits); default as `arena solve` (cached).
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
        eprintln!("levels' ratings from {}", file.source());
        levels.extend(file.players);
    }
    let started = Instant::now();
    let (mut games, skipped_games, nodes, times) = judge(&records, args)?;
    for g in &mut games {
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
        players: player_rows(&games, args.nodes),
        games: game_rows(&games),
        worst: worst_sows(&games, args.worst),
        brackets: bracket_rows(&games, &levels, args.bracket),
    };
    write_analysis(&dir, &analysis)?;
    print_tables(&analysis)?;
    outln!(
        "{} games in {:.1}s, {nodes} solver nodes{}; wrote {} and the other analysis*.csv files",
        records.len() - skipped_games,
        started.elapsed().as_secs_f64(),
        if skipped_games > 0 {
            format!(", {skipped_games} non-Kalah games skipped")
        } else {
            String::new()
        },
        dir.join(ANALYSIS_CSV).display()
    )?;
    outln!("{}", times.describe())?;
    if !args.no_report {
        // The report shows the mistake meter next to the ratings; a folder that cannot be
        // rated (e.g. one player only) keeps its analysis files and says why there is no report.
        let opts = RateOptions::default();
        match rated.unwrap_or_else(|| rate_dir(&dir, &opts)) {
            Ok(rated) => {
                super::rate::say_warnings(&rated);
                super::plot::report(&dir, &rated, &opts, true)?
            }
            Err(e) => eprintln!("no report: {e:#}"),
        }
    }
    Ok(())
}

/// Each game's players' Elo tags (first, second), by game id.
type Tags = HashMap<u64, [Option<f64>; 2]>;

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
    super::rate::check_pgn_paths(&args.paths, "analyse")?;
    let mut tags = Tags::new();
    let mut records = Vec::new();
    let mut unfinished = 0;
    let read = read_pgn(&args.paths)?;
    for w in &read.warnings {
        eprintln!("warning: {w}");
    }
    for game in read.games {
        let id = records.len() as u64;
        match pgn_record(&game, id, args.rules)? {
            Some(r) => {
                tags.insert(id, r.elos);
                records.push(r.record);
            }
            None => unfinished += 1,
        }
    }
    if unfinished > 0 {
        eprintln!("warning: {unfinished} unfinished game(s) (Result \"*\") skipped");
    }
    if records.is_empty() {
        bail!("no finished games in the PGN given");
    }
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| super::rate::default_out(&args.paths[0], "analysis"));
    if has_games(&out) {
        bail!(
            "{} already holds games: give another --out, or remove it to analyse afresh",
            out.display()
        );
    }
    check_new_folder(&out)?;
    std::fs::create_dir_all(&out)
        .with_context(|| format!("cannot create the folder {}", out.display()))?;
    let mut writer = ResultsWriter::open(&out)?;
    for r in &records {
        writer.append(r)?;
    }
    drop(writer);
    mark_written_from_pgn(&out)?;
    eprintln!("{} PGN games written to {}", records.len(), out.display());
    Ok((out, Some(tags)))
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
        writeln!(
            out,
            "{:<16} {:>6} {:>7} {:>9} {:>9} {:>9.1}% {:>13.2} {:>6} {:>8.1}% {:>8.1}%",
            r.player,
            r.games,
            r.sows,
            r.unproven,
            r.mistakes,
            r.mistake_rate * 100.0,
            r.seeds_lost_per_game,
            r.worst_loss,
            r.accuracy * 100.0,
            r.weighted_accuracy * 100.0
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
            writeln!(
                out,
                "{:<16} {:>7.0} {:>6} {:>7} {:>8.1}% ({:.1}) {:>13.2}",
                b.group,
                b.rating,
                b.games,
                b.proven,
                b.mistake_rate * 100.0,
                b.mistake_rate_se * 100.0,
                b.seeds_lost_per_game
            )?;
        }
    }
    Ok(())
}

/// Judges every sow of `records` on worker threads; the games in game-id order, how many were
/// skipped (not Kalah, with `--estimate-depth 0`), the solver nodes spent and the time each sow
/// took.
fn judge(
    records: &[GameRecord],
    args: &AnalyseArgs,
) -> anyhow::Result<(Vec<JudgedGame>, usize, u64, SowTimes)> {
    let started = Instant::now();
    // One solver per ruleset (its database loaded or built once, its TT and value cache), whose
    // tables every worker shares: a position one worker proves, the others find.
    let mut solvers: HashMap<BoardSpec, Solver> = HashMap::new();
    for rec in records {
        let ruleset = rec.row.rules;
        if let Ok(spec) = BoardSpec::from_ruleset(&ruleset) {
            solvers.entry(spec).or_insert_with(|| {
                let mut solver = Solver::new(spec, args.tt_mib, database(&ruleset, args.db_seeds));
                if let Some(values) = value_cache(&spec, args.no_value_cache) {
                    solver.set_values(values);
                }
                solver
            });
        }
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, records.len());
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let progress = || {
        let n = done.fetch_add(1, Relaxed) + 1;
        if n % 10 == 0 {
            eprintln!(
                "analysed {n}/{} games ({:.0}s)",
                records.len(),
                started.elapsed().as_secs_f64()
            );
        }
    };
    // Each worker takes the next game not yet taken; the values are exact whoever proves them.
    let parts: Vec<anyhow::Result<Part>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (solvers, next, progress) = (&solvers, &next, &progress);
                let games = std::iter::from_fn(move || records.get(next.fetch_add(1, Relaxed)));
                scope.spawn(move || analyse_games(games, solvers, args, progress))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("analysis worker panicked"))
            .collect()
    });
    let (mut games, mut skipped_games, mut nodes) = (Vec::new(), 0, 0);
    let mut times = SowTimes::default();
    for part in parts {
        let part = part?;
        skipped_games += part.skipped_games;
        nodes += part.nodes;
        games.extend(part.games);
        times.0.extend(part.times.0);
    }
    for values in solvers.values().filter_map(|s| s.values()) {
        match values.flush() {
            Ok(n) if n > 0 => eprintln!(
                "values    {n} new proven positions kept in {}",
                values.path().display()
            ),
            Ok(_) => {}
            Err(e) => eprintln!("values    not kept ({e}) in {}", values.path().display()),
        }
    }
    games.sort_by_key(|g| g.game_id);
    Ok((games, skipped_games, nodes, times))
}

/// The value cache of `spec` in the database folder (docs/solved.md), saying how many values
/// it holds; `None` with `--no-value-cache` or without a cache folder.
pub fn value_cache(spec: &BoardSpec, off: bool) -> Option<Arc<ValueCache>> {
    if off {
        return None;
    }
    let dir = mancala_arena::solver::db::default_dir()?;
    match ValueCache::open(spec, &dir) {
        Ok(values) => {
            let damaged = if values.damaged > 0 {
                format!(" ({} damaged records skipped)", values.damaged)
            } else {
                String::new()
            };
            eprintln!(
                "values    {} proven positions from {}{damaged}",
                values.loaded,
                values.path().display()
            );
            Some(Arc::new(values))
        }
        Err(e) => {
            eprintln!("values    cache not read ({e}); going on without it");
            None
        }
    }
}

/// How long judging each sow took, and whether it was proven: the benchmark's figures
/// (scripts/analyse-bench.sh reads the line [`SowTimes::describe`] prints).
#[derive(Default)]
struct SowTimes(Vec<(std::time::Duration, bool)>);

impl SowTimes {
    /// `sows N, proven P (x %), per sow median M ms, p99 Q ms, max X ms`.
    fn describe(&self) -> String {
        let mut t: Vec<f64> = self.0.iter().map(|(d, _)| d.as_secs_f64() * 1e3).collect();
        t.sort_by(f64::total_cmp);
        let at = |q: f64| {
            t.get(((t.len() as f64 - 1.0) * q).round() as usize)
                .copied()
        };
        let proven = self.0.iter().filter(|(_, p)| *p).count();
        format!(
            "sows {}, proven {proven} ({:.2} %), per sow median {:.2} ms, p99 {:.1} ms, max {:.0} ms",
            t.len(),
            100.0 * proven as f64 / t.len().max(1) as f64,
            at(0.5).unwrap_or(0.0),
            at(0.99).unwrap_or(0.0),
            t.last().copied().unwrap_or(0.0)
        )
    }
}

/// What one worker thread found in its share of the games.
struct Part {
    games: Vec<JudgedGame>,
    skipped_games: usize,
    nodes: u64,
    times: SowTimes,
}

/// Replays `games` with the shared solvers, judging each sow a player chose; calls
/// `game_done` after each game. Ratings are left for the caller.
fn analyse_games<'a>(
    games: impl Iterator<Item = &'a GameRecord>,
    shared: &HashMap<BoardSpec, Solver>,
    args: &AnalyseArgs,
    game_done: &dyn Fn(),
) -> anyhow::Result<Part> {
    let mut solvers: HashMap<BoardSpec, Solver> = HashMap::new();
    let mut judged = Vec::new();
    let mut skipped_games = 0;
    let mut times = SowTimes::default();
    for rec in games {
        let row = &rec.row;
        let Ok(spec) = BoardSpec::from_ruleset(&row.rules) else {
            if args.estimate_depth == 0 {
                skipped_games += 1;
            } else {
                judged.push(estimate_game(rec, args.estimate_depth, &mut times)?);
            }
            game_done();
            continue;
        };
        let solver = solvers
            .entry(spec)
            .or_insert_with(|| shared[&spec].sharing_tables());
        let (mut pos, mut game) = start_game(rec, None)?;
        // The sows after the opening, each with its mover (read_records checked the lengths).
        let skip = row.opening.moves.len();
        for (ply, &mv) in rec.moves.iter().enumerate() {
            let mover = ply.checked_sub(skip).map(|i| rec.movers[i]);
            if let (Some(mover), Move::Pit(k)) = (mover, mv) {
                let board = spec.board_of(pos.board());
                let started = Instant::now();
                let verdict = board
                    .and_then(|(b, _)| sow_verdict(solver, &b, usize::from(k) - 1, args.nodes));
                times.0.push((started.elapsed(), verdict.is_some()));
                game.sows.push(JudgedSow {
                    ply,
                    mover,
                    pit: k,
                    // Only proven sows use it: those have a solver board.
                    seeds: board.map_or(0, |(b, _)| b.seeds() as u32),
                    position: pos.to_state_string(),
                    verdict,
                });
            }
            pos.play(mv)
                .with_context(|| format!("game {}: move {}", row.game_id, ply + 1))?;
        }
        judged.push(game);
        game_done();
    }
    Ok(Part {
        games: judged,
        skipped_games,
        nodes: solvers.values().map(|s| s.nodes).sum(),
        times,
    })
}

/// The position a game starts from (its opening's) and its record with no sow judged yet.
fn start_game(
    rec: &GameRecord,
    estimate_depth: Option<u32>,
) -> anyhow::Result<(Position, JudgedGame)> {
    let row = &rec.row;
    let pos = row
        .opening
        .start(row.rules)
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.game_id))?;
    let game = JudgedGame {
        game_id: row.game_id,
        players: [row.first.clone(), row.second.clone()],
        ratings: [None, None],
        sows: Vec::new(),
        estimate_depth,
    };
    Ok((pos, game))
}

/// A game no exact solver fits (Oware, Congkak), judged by the alpha-beta bot's search to
/// `depth` turns: a sow's loss is the search's value of the position before it minus that of
/// the position after it, both from the mover's view, in whole seeds and at least 0 (the search
/// can misjudge either side of the horizon). The next position's value is the next sow's, so
/// each position is searched once. An estimate: `JudgedGame::estimate_depth` says so.
fn estimate_game(rec: &GameRecord, depth: u32, times: &mut SowTimes) -> anyhow::Result<JudgedGame> {
    let row = &rec.row;
    let (mut pos, mut game) = start_game(rec, Some(depth))?;
    // The value of a position from `side`'s view: the search's, or the final margin.
    let value_for = |pos: &Position, side: Side| -> f64 {
        match pos.to_move() {
            Some(mover) => {
                let v = mancala_bots::value(pos, depth, ESTIMATE_TT_MIB).unwrap_or(0.0);
                if mover == side {
                    v
                } else {
                    -v
                }
            }
            None => {
                let b = pos.board();
                let margin = f64::from(b.store(Side::South)) - f64::from(b.store(Side::North));
                if side == Side::South {
                    margin
                } else {
                    -margin
                }
            }
        }
    };
    let skip = row.opening.moves.len();
    let mut before: Option<f64> = None;
    for (ply, &mv) in rec.moves.iter().enumerate() {
        let side = pos.to_move();
        let mover = ply.checked_sub(skip).map(|i| rec.movers[i]);
        let started = Instant::now();
        let here = match (mover, side) {
            (Some(_), Some(side)) => Some(before.take().unwrap_or_else(|| value_for(&pos, side))),
            _ => None,
        };
        let position = pos.to_state_string();
        let seeds = pos.board().row_sum(Side::South) + pos.board().row_sum(Side::North);
        pos.play(mv)
            .with_context(|| format!("game {}: move {}", row.game_id, ply + 1))?;
        let (Some(mover), Some(side), Some(v), Move::Pit(k)) = (mover, side, here, mv) else {
            before = None;
            continue;
        };
        let after = value_for(&pos, side);
        // The next position's value for its own mover, for the next sow.
        before = pos
            .to_move()
            .map(|next| if next == side { after } else { -after });
        times.0.push((started.elapsed(), true));
        game.sows.push(JudgedSow {
            ply,
            mover,
            pit: k,
            seeds,
            position,
            verdict: Some(Verdict {
                value: v.round() as i32,
                loss: (v - after).round().max(0.0) as i32,
                best: None,
            }),
        });
    }
    Ok(game)
}

/// The search's table for an estimate (MiB): cleared for each position, so small.
const ESTIMATE_TT_MIB: usize = 16;

/// The exact verdict on sowing pit `i` in `b`, or `None` when a search ran out of its budget.
///
/// Why two exact values and no move tests: the loss is `v(b) − (gain ± v(child))`, and the
/// child is the game's next position, which the next sow needs exactly anyway; the TT (or the
/// value cache) answers it there at once. So each position of a game is proven once.
pub fn sow_verdict(solver: &mut Solver, b: &SBoard, i: usize, budget: u64) -> Option<Verdict> {
    let start = solver.nodes;
    let mut abort = |n: u64| n - start > budget;
    let v = solver.solve(b, 0, &mut abort)?;
    let tt_best = solver.tt_move(b).or_else(|| solver.cached_best(b));
    let spec = solver.spec();
    let s = b.sow(&spec, i);
    let played = if s.over {
        s.gain
    } else if s.extra {
        // First guess: the child's value if this sow was optimal.
        s.gain + solver.solve(&s.next, v - s.gain, &mut abort)?
    } else {
        s.gain - solver.solve(&s.next, s.gain - v, &mut abort)?
    };
    let loss = v - played;
    debug_assert!(loss >= 0, "a sow worth more than the position");
    if loss == 0 {
        return Some(Verdict {
            value: v,
            loss,
            best: Some(i as u8 + 1),
        });
    }
    // Positions the database valued have no TT move: find an optimal sow.
    let best = match tt_best.filter(|&m| m != i) {
        Some(m) => Some(m),
        None => (0..spec.pits)
            .filter(|&m| m != i && b.c[m] != 0)
            .find(|&m| solver.move_at_least(b, m, v, &mut abort) == Some(true)),
    };
    Some(Verdict {
        value: v,
        loss,
        best: best.map(|m| m as u8 + 1),
    })
}
