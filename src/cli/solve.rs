//! `arena solve --rules SPEC [--position STATE] [--moves M...]`: the perfect-play margin for
//! the side to move and every optimal move, with the search's nodes, time and database size.
//! One core; see docs/solved.md for the method and measured figures.

use std::io::Write;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Instant;

use anyhow::{anyhow, bail};
use clap::Args;
use mancala_arena::rules::{Move, Position, Ruleset};
use mancala_arena::solver::{db, BoardSpec, Db, Solver};

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
    /// Default: the largest with at most 560 M entries (22 seeds for 6 pits, 28 for 5; never
    /// more than the game's seeds), built once and cached (docs/solved.md).
    #[arg(long)]
    pub db_seeds: Option<usize>,
    /// Transposition table size in MiB.
    #[arg(long, default_value_t = 1024)]
    pub tt_mib: usize,
    /// Deepest iterative-deepening pass (sows) before the exact search (0 = none, the default:
    /// with enhanced transposition cutoffs they cost more nodes than they save).
    #[arg(long, default_value_t = 0)]
    pub id_depth: u8,
    /// MTD(f)'s first test value (the mover's future gain): a close guess saves null-window
    /// passes, e.g. `--guess 10` to prove a published value with two passes. Any guess gives the
    /// same, exact answer.
    #[arg(long, default_value_t = 0, allow_hyphen_values = true)]
    pub guess: i32,
    /// Search threads sharing the TT (default: one per core).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Do not read or write the database cache folder (build in memory).
    #[arg(long)]
    pub no_db_cache: bool,
    /// Stop once the value is proven: skip finding every optimal move (on Kalah(6,5) that
    /// takes more searches, each a proof that a move is worse).
    #[arg(long)]
    pub value_only: bool,
}

pub fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let spec = BoardSpec::from_ruleset(&args.rules).map_err(|e| anyhow!(e))?;
    let mut pos = match &args.position {
        Some(state) => Position::from_state(args.rules, state)?,
        None => Position::new(args.rules),
    };
    for &mv in &args.moves {
        pos.play(mv)?;
    }
    let Some((board, diff)) = spec.board_of(pos.board()) else {
        bail!("nothing to solve: the game is over, or `swap` is legal (pie rule)");
    };
    let mut out = std::io::stdout().lock();
    let total = 2 * args.rules.pits() * args.rules.seeds() as usize;
    let k = args
        .db_seeds
        .unwrap_or_else(|| db::solve_db_seeds(spec.pits, total));
    let db = load_db(spec, k, !args.no_db_cache);
    if let Some((db, dir)) = &db {
        writeln!(
            out,
            "database  seeds<={k}  entries {}  ({:.1} MiB)  {} in {:.2}s{}",
            db.bytes(),
            db.bytes() as f64 / (1 << 20) as f64,
            if db.loaded { "loaded" } else { "built" },
            db.build_time.as_secs_f64(),
            dir.as_ref()
                .map(|d| format!("  cache {}", d.display()))
                .unwrap_or_default()
        )?;
    }
    let db = db.map(|(db, _)| db);
    let mut solver = Solver::new(spec, args.tt_mib, db);
    solver.set_id_depth(args.id_depth);
    solver.set_threads(
        args.threads
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get())),
    );
    let started = Instant::now();
    let value = solver
        .solve(&board, args.guess, &mut |_| false)
        .expect("never aborted");
    let (value_secs, value_nodes) = (started.elapsed().as_secs_f64(), solver.nodes);
    let next = if args.value_only {
        ""
    } else {
        "; now every optimal move"
    };
    writeln!(
        out,
        "solved    value {value:+} in {value_secs:.3}s, {value_nodes} nodes{next}"
    )?;
    let best = if args.value_only {
        Vec::new()
    } else {
        solver
            .best_moves(&board, value, &mut |_| false)
            .expect("never aborted")
            .1
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
    if args.value_only {
        writeln!(out, "best      (not searched: --value-only)")?;
    } else {
        writeln!(out, "best      {}", moves.join(" "))?;
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

/// The endgame database of `k` seeds for `spec` (none for `k = 0`), from the cache folder when
/// `cache` and it is there, else built (saying so on stderr: it can take a minute) and saved.
/// Also returns the cache folder used.
pub fn load_db(spec: BoardSpec, k: usize, cache: bool) -> Option<(Arc<Db>, Option<PathBuf>)> {
    if k == 0 {
        return None;
    }
    let dir = if cache { db::default_dir() } else { None };
    let cached = dir
        .as_ref()
        .is_some_and(|d| d.join(Db::file_name(&spec, k)).exists());
    if !cached {
        eprintln!(
            "building the endgame database for {} with up to {k} seeds ({:.0} MiB){}",
            spec.tag(),
            db::db_entries(spec.pits, k) as f64 / (1 << 20) as f64,
            dir.as_ref()
                .map(|d| format!("; it is kept in {} for next time", d.display()))
                .unwrap_or_default()
        );
    }
    let db = Db::load_or_build(spec, k, dir.as_deref());
    Some((Arc::new(db), dir))
}
