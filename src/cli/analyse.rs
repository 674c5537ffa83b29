//! `arena analyse DIR`: the mistake meter. Replays every game of a results folder with the exact
//! solver and reports, per player, the share of their sows that lose value against perfect play
//! and the seeds lost per game (the exact analogue of chess's average centipawn loss), into
//! `DIR/analysis.csv` and a terminal table, then redraws the folder's report (which shows it).
//!
//! A sow's *loss* is `v(best) - v(played)` from the mover's view, both exact. Opening sows (the
//! run's `opening`, not chosen by the players) and `swap` are not counted. Each position gets a
//! node budget; a position the solver cannot prove within it is counted as *unproven* and left
//! out of the rates, and the table says how many there were. Games are dealt to worker threads
//! (one per core); each keeps one solver (TT) per ruleset for all its games, so positions seen
//! again are solved once, and the endgame databases are shared by all threads.

use std::collections::{BTreeMap, HashMap};
use std::io::Write;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{bail, Context};
use clap::Args;
use mancala_arena::report::rate::{rate_dir, RateOptions};
use mancala_arena::rules::Move;
use mancala_arena::run_folder::analysis::{write_analysis, MistakeRow, ANALYSIS_CSV};
use mancala_arena::run_folder::games::{read_records, GameRecord};
use mancala_arena::solver::{BoardSpec, Db, Solver};

use super::solve::database;

#[derive(Debug, Args)]
pub struct AnalyseArgs {
    /// The results folder (its games.jsonl).
    pub dir: PathBuf,
    /// Node budget per position; positions not proven within it are reported as unproven.
    #[arg(long, default_value_t = 20_000_000)]
    pub nodes: u64,
    /// Endgame database size (seeds in the pits); default as `arena solve` (cached).
    #[arg(long)]
    pub db_seeds: Option<usize>,
    /// Do not redraw report.html / summary.md (which show the mistake meter).
    #[arg(long)]
    pub no_report: bool,
    /// Worker threads (default: one per core); games are dealt out in turn.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Transposition table size in MiB (one per ruleset and thread).
    #[arg(long, default_value_t = 1024)]
    pub tt_mib: usize,
}

pub fn run(args: &AnalyseArgs) -> anyhow::Result<()> {
    if let Some(why) = mancala_arena::run_folder::not_a_run_folder(&args.dir) {
        bail!("{why}");
    }
    let records = read_records(&args.dir)?;
    if records.is_empty() {
        bail!(
            "{}: no games (games.jsonl missing or empty)",
            args.dir.display()
        );
    }
    let started = Instant::now();
    // One database per ruleset, loaded (or built) once and shared by the worker threads.
    let mut dbs: HashMap<BoardSpec, Option<Arc<Db>>> = HashMap::new();
    for rec in &records {
        let ruleset = rec.row.rules;
        if let Ok(spec) = BoardSpec::from_ruleset(&ruleset) {
            dbs.entry(spec)
                .or_insert_with(|| database(&ruleset, args.db_seeds));
        }
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .clamp(1, records.len());
    let done = AtomicUsize::new(0);
    let progress = |n: usize| {
        if n % 10 == 0 {
            eprintln!(
                "analysed {n}/{} games ({:.0}s)",
                records.len(),
                started.elapsed().as_secs_f64()
            );
        }
    };
    // Game g goes to worker g mod threads, each with its own TT: the values are exact either
    // way, and a fixed split keeps the unproven counts reproducible for a thread count.
    let parts: Vec<anyhow::Result<Part>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|t| {
                let (dbs, done, progress) = (&dbs, &done, &progress);
                let games = records.iter().skip(t).step_by(threads);
                scope.spawn(move || {
                    analyse_games(games, dbs, args, &mut || {
                        progress(done.fetch_add(1, Relaxed) + 1)
                    })
                })
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("analysis worker panicked"))
            .collect()
    });
    let mut stats: BTreeMap<String, MistakeRow> = BTreeMap::new();
    let (mut skipped_games, mut nodes) = (0, 0);
    for part in parts {
        let part = part?;
        skipped_games += part.skipped_games;
        nodes += part.nodes;
        for (name, st) in part.stats {
            let total = stats.entry(name).or_default();
            total.games += st.games;
            total.sows += st.sows;
            total.proven += st.proven;
            total.mistakes += st.mistakes;
            total.seeds_lost += st.seeds_lost;
            total.worst_loss = total.worst_loss.max(st.worst_loss);
        }
    }
    let rows: Vec<MistakeRow> = stats
        .into_iter()
        .map(|(player, st)| {
            MistakeRow {
                player,
                node_budget: args.nodes,
                ..st
            }
            .finish()
        })
        .collect();
    write_analysis(&args.dir, &rows)?;
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "{:<16} {:>6} {:>7} {:>9} {:>9} {:>11} {:>13} {:>6}",
        "player", "games", "sows", "unproven", "mistakes", "mistake %", "seeds lost/g", "worst"
    )?;
    for r in &rows {
        writeln!(
            out,
            "{:<16} {:>6} {:>7} {:>9} {:>9} {:>10.1}% {:>13.2} {:>6}",
            r.player,
            r.games,
            r.sows,
            r.unproven,
            r.mistakes,
            r.mistake_rate * 100.0,
            r.seeds_lost_per_game,
            r.worst_loss
        )?;
    }
    writeln!(
        out,
        "{} games in {:.1}s, {nodes} solver nodes{}; wrote {}",
        records.len() - skipped_games,
        started.elapsed().as_secs_f64(),
        if skipped_games > 0 {
            format!(", {skipped_games} non-Kalah games skipped")
        } else {
            String::new()
        },
        args.dir.join(ANALYSIS_CSV).display()
    )?;
    drop(out);
    if !args.no_report {
        // The report shows the mistake meter next to the ratings; a folder that cannot be
        // rated (e.g. one player only) keeps its analysis.csv and says why there is no report.
        let opts = RateOptions::default();
        match rate_dir(&args.dir, &opts) {
            Ok(rated) => {
                super::rate::say_warnings(&rated);
                super::plot::report(&args.dir, &rated, &opts, true)?
            }
            Err(e) => eprintln!("no report: {e:#}"),
        }
    }
    Ok(())
}

/// What one worker thread found in its share of the games.
struct Part {
    stats: BTreeMap<String, MistakeRow>,
    skipped_games: usize,
    nodes: u64,
}

/// Replays `games` with one solver per ruleset (sharing the databases in `dbs`), counting each
/// player's sows, proven sows, mistakes and seeds lost; calls `game_done` after each game.
fn analyse_games<'a>(
    games: impl Iterator<Item = &'a GameRecord>,
    dbs: &HashMap<BoardSpec, Option<Arc<Db>>>,
    args: &AnalyseArgs,
    game_done: &mut dyn FnMut(),
) -> anyhow::Result<Part> {
    let mut solvers: HashMap<BoardSpec, Solver> = HashMap::new();
    let mut stats: BTreeMap<String, MistakeRow> = BTreeMap::new();
    let mut skipped_games = 0;
    for rec in games {
        let row = &rec.row;
        let Ok(spec) = BoardSpec::from_ruleset(&row.rules) else {
            skipped_games += 1;
            game_done();
            continue;
        };
        let solver = solvers
            .entry(spec)
            .or_insert_with(|| Solver::new(spec, args.tt_mib, dbs[&spec].clone()));
        let mut pos = row
            .opening
            .start(row.rules)
            .map_err(|e| anyhow::anyhow!("game {}: {e}", row.game_id))?;
        for name in [&row.first, &row.second] {
            stats.entry(name.clone()).or_default().games += 1;
        }
        // The sows after the opening, each with its mover (read_records checked the lengths).
        let skip = row.opening.moves.len();
        for (ply, &mv) in rec.moves.iter().enumerate() {
            let mover = ply.checked_sub(skip).map(|i| rec.movers[i]);
            if let (Some(mover), Move::Pit(k)) = (mover, mv) {
                let name = if mover == 0 { &row.first } else { &row.second };
                let st = stats.entry(name.clone()).or_default();
                st.sows += 1;
                if let Some((b, _)) = spec.board_of(pos.board()) {
                    if let Some(loss) = sow_loss(solver, &b, k as usize - 1, args.nodes) {
                        st.proven += 1;
                        if loss > 0 {
                            st.mistakes += 1;
                            st.seeds_lost += loss as i64;
                            st.worst_loss = st.worst_loss.max(loss);
                        }
                    }
                }
            }
            pos.play(mv)
                .with_context(|| format!("game {}: move {}", row.game_id, ply + 1))?;
        }
        game_done();
    }
    Ok(Part {
        stats,
        skipped_games,
        nodes: solvers.values().map(|s| s.nodes).sum(),
    })
}

/// The exact loss of sowing pit `i` in `b`, or `None` when the budget ran out.
pub fn sow_loss(
    solver: &mut Solver,
    b: &mancala_arena::solver::SBoard,
    i: usize,
    budget: u64,
) -> Option<i32> {
    let start = solver.nodes;
    let mut abort = |n: u64| n - start > budget;
    let v = solver.solve(b, 0, &mut abort)?;
    if solver.move_at_least(b, i, v, &mut abort)? {
        return Some(0);
    }
    let played = solver.move_value(b, i, v, &mut abort)?;
    Some(v - played)
}
