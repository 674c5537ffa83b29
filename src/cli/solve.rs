//! `arena solve --rules SPEC [--position STATE] [--moves M...]`: the perfect-play margin for
//! the side to move and every optimal move, with the search's nodes, time and database size.
//! The setup (database, TT, threads, first guess) is chosen from the machine and the cache
//! ([`setup`], shared with `arena analyse`); `--split` / `--shard` / `--merge` are in
//! `solve_split.rs`. See docs/solved.md for the method and measured figures.

use std::io::{IsTerminal, Write};
use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use mancala_arena::rules::{Move, Position, Ruleset};
use mancala_arena::solver::auto::{self, DbSource};
use mancala_arena::solver::{db, setup_here, BoardSpec, Db, Purpose, Setup, Solver, ValueCache};

#[derive(Debug, Args)]
pub struct SolveArgs {
    /// The ruleset (Kalah only), e.g. `kalah:pits=6,seeds=5,empty_capture=true`.
    #[arg(long = "rules", default_value = "kalah")]
    pub rules: Ruleset,
    /// Start from this position string (docs/position.md) instead of the start position.
    #[arg(long)]
    pub position: Option<String>,
    /// Moves to play first (after `--position`), e.g. `--moves 3 6`.
    #[arg(long, num_args = 1..)]
    pub moves: Vec<Move>,
    /// Endgame database: positions with at most this many seeds in the pits (0 = none).
    /// Default: chosen from the machine's memory, the game and the cache (the `setup` line
    /// says which; docs/solved.md), built once and cached.
    #[arg(long)]
    pub db_seeds: Option<usize>,
    /// Transposition table size in MiB (default: the memory share the database leaves).
    #[arg(long)]
    pub tt_mib: Option<usize>,
    /// Deepest iterative-deepening pass (sows) before the exact search (0 = none, the default:
    /// with enhanced transposition cutoffs they cost more nodes than they save).
    #[arg(long, default_value_t = 0)]
    pub id_depth: u8,
    /// MTD(f)'s first test value (the mover's future gain). Default: the published value of a
    /// known start position, else 0. Any guess gives the same, exact answer.
    #[arg(long, allow_hyphen_values = true)]
    pub guess: Option<i32>,
    /// Search threads sharing the TT (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Do not read or write the database cache folder (build in memory).
    #[arg(long)]
    pub no_db_cache: bool,
    /// Prove the value afresh: do not answer from, or add to, the value cache (positions
    /// proven before by any program, kept in the database folder). Benchmarks use it.
    #[arg(long)]
    pub no_value_cache: bool,
    /// Stop once the value is proven (and one optimal move checked): skip proving every other
    /// move worse. The default from the start of games with more than 48 seeds.
    #[arg(long, conflicts_with = "all_best")]
    pub value_only: bool,
    /// Find every optimal move, whatever the game's size.
    #[arg(long)]
    pub all_best: bool,
    /// Print the setup line (which database, TT, threads and guess the solve would take, and
    /// whether the database must be built) and stop.
    #[arg(long)]
    pub dry_run: bool,
    #[command(flatten)]
    pub split: SplitArgs,
}

/// The split solve's flags (`super::solve_split` runs them).
#[derive(Debug, Args)]
pub struct SplitArgs {
    /// Split the solve DEPTH sows below the root into independent subproblems, written to
    /// `--plan DIR` (docs/solved.md, "Split solves").
    #[arg(long, value_name = "DEPTH", requires = "plan")]
    pub split: Option<usize>,
    /// The split solve's folder.
    #[arg(long, value_name = "DIR")]
    pub plan: Option<PathBuf>,
    /// Solve shard I of N of the plan's subproblems (0 <= I < N), e.g.
    /// `--shard $SLURM_ARRAY_TASK_ID/$N`.
    #[arg(long, value_name = "I/N", requires = "plan", conflicts_with_all = ["split", "merge"])]
    pub shard: Option<String>,
    /// Merge the solved subproblems into the root's value.
    #[arg(long, requires = "plan", conflicts_with = "split")]
    pub merge: bool,
}

impl SplitArgs {
    pub fn active(&self) -> bool {
        self.plan.is_some()
    }
}

/// The setup of a solve of `rules` (see `mancala_solver::auto`): the machine, the cache, and
/// what the caller fixed (`db_seeds`). `at_start`: solving the start position.
pub fn setup(
    rules: &Ruleset,
    at_start: bool,
    purpose: Purpose,
    db_seeds: Option<usize>,
    cache: bool,
) -> anyhow::Result<(BoardSpec, Setup)> {
    let spec = BoardSpec::from_ruleset(rules).map_err(|e| anyhow!(e))?;
    let (mut setup, cached) = setup_here(&spec, rules.seeds(), at_start, purpose, cache);
    if let Some(k) = db_seeds {
        setup.db_seeds = k;
        setup.db_source = match cached.iter().copied().find(|&c| c >= k) {
            _ if k == 0 => DbSource::None,
            Some(c) => DbSource::Cached(c),
            None => DbSource::Build {
                from: cached.iter().copied().rfind(|&c| c < k),
            },
        };
    }
    Ok((spec, setup))
}

/// The position to solve: `--position` (else the start) after `--moves`.
pub fn root_position(args: &SolveArgs) -> anyhow::Result<Position> {
    let mut pos = match &args.position {
        Some(state) => Position::from_state(args.rules, state)?,
        None => Position::new(args.rules),
    };
    for &mv in &args.moves {
        pos.play(mv)?;
    }
    Ok(pos)
}

/// The database `arena analyse` and `arena openings` use for `rules`: the default setup's, or
/// K = `db_seeds` (`None`: no database, or rules the solver does not handle).
pub fn database(rules: &Ruleset, db_seeds: Option<usize>) -> Option<Arc<Db>> {
    let (spec, setup) = setup(rules, false, Purpose::Analyse, db_seeds, true).ok()?;
    load_db(spec, &setup, true).map(|(db, _)| db)
}

pub fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let pos = root_position(args)?;
    let at_start = args.position.is_none() && args.moves.is_empty();
    let (spec, mut setup) = setup(
        &args.rules,
        at_start,
        Purpose::Solve,
        args.db_seeds,
        !args.no_db_cache,
    )?;
    let Some((board, diff)) = spec.board_of(pos.board()) else {
        bail!("nothing to solve: the game is over, or `swap` is legal (pie rule)");
    };
    if let Some(t) = args.tt_mib {
        setup.tt_mib = t;
    }
    if let Some(t) = args.threads {
        setup.threads = t;
    }
    if let Some(g) = args.guess {
        (setup.guess, setup.guess_from) = (g, "--guess");
    }
    setup.all_best = (setup.all_best || args.all_best) && !args.value_only;
    let mut out = std::io::stdout().lock();
    writeln!(out, "setup     {}", setup.describe(&spec))?;
    if args.dry_run {
        return Ok(());
    }
    let db = load_db(spec, &setup, !args.no_db_cache);
    if let Some((db, dir)) = &db {
        writeln!(
            out,
            "database  seeds<={}  entries {}  ({:.1} MiB)  {} in {:.2}s{}",
            setup.db_seeds,
            db.bytes(),
            db.bytes() as f64 / (1 << 20) as f64,
            match (db.loaded, db.is_mapped()) {
                (true, true) => "mapped",
                (true, false) => "copied into memory",
                (false, _) => "built",
            },
            db.build_time.as_secs_f64(),
            dir.as_ref()
                .map(|d| format!("  cache {}", d.display()))
                .unwrap_or_default()
        )?;
    }
    let db = db.map(|(db, _)| db);
    let mut solver = Solver::new(spec, setup.tt_mib, db);
    solver.set_id_depth(args.id_depth);
    solver.set_threads(setup.threads);
    let values = (!args.no_value_cache && !args.no_db_cache)
        .then(|| ValueCache::open_default(&spec))
        .flatten();
    if let Some(values) = values {
        solver.set_values(Arc::new(values));
    }
    let started = Instant::now();
    let value = solver
        .solve(&board, setup.guess, &mut |_| false)
        .expect("never aborted");
    let (value_secs, value_nodes) = (started.elapsed().as_secs_f64(), solver.nodes);
    let next = if setup.all_best {
        "; now every optimal move"
    } else {
        ""
    };
    let cached = solver.values().and_then(|v| v.get(&board)).is_some() && value_nodes == 0;
    let from = if cached {
        " from the value cache (proven before; --no-value-cache proves it again)".to_string()
    } else {
        String::new()
    };
    writeln!(
        out,
        "solved    value {value:+} in {value_secs:.3}s, {value_nodes} nodes{from}{next}"
    )?;
    let best = if setup.all_best {
        solver
            .best_moves(&board, value, &mut |_| false)
            .expect("never aborted")
            .1
    } else {
        // The proof's move at the root, checked (cheap: the TT holds its bound), or the one
        // the value cache kept with the value.
        solver
            .tt_move(&board)
            .filter(|&i| solver.move_at_least(&board, i, value, &mut |_| false) == Some(true))
            .or_else(|| solver.cached_best(&board))
            .into_iter()
            .collect()
    };
    let secs = started.elapsed().as_secs_f64();
    let side = pos.to_move().expect("not over");
    let moves: Vec<String> = best.iter().map(|i| (i + 1).to_string()).collect();
    writeln!(out, "rules     {}", args.rules)?;
    writeln!(out, "to move   {side}  (store difference so far {diff:+})")?;
    writeln!(
        out,
        "value     {value:+}  (seeds the mover gains from here with perfect play)"
    )?;
    writeln!(
        out,
        "margin    {:+}  (final store difference, mover's view)",
        diff + value
    )?;
    if setup.all_best {
        writeln!(out, "best      {}", moves.join(" "))?;
    } else {
        writeln!(
            out,
            "best      {}  (one optimal move; --all-best finds every one)",
            if moves.is_empty() { "?" } else { &moves[0] }
        )?;
    }
    writeln!(
        out,
        "nodes     {}  time {secs:.3}s  nps {:.0}  db hits {}  tt {} MiB",
        solver.nodes,
        solver.nodes as f64 / secs.max(1e-9),
        solver.db_hits,
        solver.tt_bytes() >> 20
    )?;
    Ok(())
}

/// The endgame database of `setup` (none for K = 0), from the cache folder when `cache` and
/// it is there (mapped, or copied into memory when `setup.db_in_memory`), else built (saying so
/// on stderr with the expected time, and a progress bar on a terminal) and saved. Also returns
/// the cache folder used.
pub fn load_db(spec: BoardSpec, setup: &Setup, cache: bool) -> Option<(Arc<Db>, Option<PathBuf>)> {
    let k = setup.db_seeds;
    if k == 0 {
        return None;
    }
    let dir = if cache { db::default_dir() } else { None };
    let building = match setup.db_source {
        DbSource::Build { from } => Some(from),
        _ if dir.is_none() => Some(None),
        _ => None,
    };
    let bar = building.map(|from| {
        let from = from.filter(|_| dir.is_some());
        eprintln!(
            "building the endgame database for {} with up to {k} seeds ({:.0} MiB{}); expected \
             about {:.0}s on {} threads{}",
            spec.tag(),
            db::db_entries(spec.pits, k) as f64 / (1 << 20) as f64,
            from.map(|f| format!(", extending the cached K = {f}"))
                .unwrap_or_default(),
            auto::build_secs(spec.pits, from, k, setup.build_threads),
            setup.build_threads,
            dir.as_ref()
                .map(|d| format!("; it is kept in {} for next time", d.display()))
                .unwrap_or_default()
        );
        BuildProgress::new()
    });
    let progress = |done: u64, todo: u64| {
        if let Some(bar) = &bar {
            bar.update(done, todo);
        }
    };
    let db = Db::load_or_build_with(spec, k, dir.as_deref(), setup.build_threads, &progress);
    let db = if setup.db_in_memory {
        db.into_memory()
    } else {
        db
    };
    if let Some(bar) = &bar {
        bar.finish();
    }
    Some((Arc::new(db), dir))
}

/// The database build's progress on stderr: a bar with ETA on a terminal, else a line every
/// 10 %.
struct BuildProgress {
    bar: Option<ProgressBar>,
    said: AtomicU64,
    started: Instant,
}

impl BuildProgress {
    fn new() -> BuildProgress {
        let bar = std::io::stderr().is_terminal().then(|| {
            let bar = ProgressBar::new(0);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {percent:>3}% of the database  {elapsed_precise} ETA {eta}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar
        });
        BuildProgress {
            bar,
            said: AtomicU64::new(0),
            started: Instant::now(),
        }
    }

    fn update(&self, done: u64, todo: u64) {
        if let Some(bar) = &self.bar {
            bar.set_length(todo);
            bar.set_position(done);
        } else {
            let tenth = done * 10 / todo.max(1);
            if self.said.fetch_max(tenth, Relaxed) < tenth {
                eprintln!(
                    "database {:>3} %  {:.0}s",
                    tenth * 10,
                    self.started.elapsed().as_secs_f64()
                );
            }
        }
    }

    fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish_and_clear();
        }
        eprintln!(
            "database built in {:.1}s",
            self.started.elapsed().as_secs_f64()
        );
    }
}
