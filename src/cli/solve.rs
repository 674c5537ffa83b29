//! `arena solve --rules SPEC [--position STATE] [--moves M...]`: the perfect-play margin for
//! the side to move and every optimal move, with the search's nodes, time and database size;
//! `--split DEPTH --plan DIR`, `--plan DIR --shard I/N`, `--plan DIR --merge`: one solve as
//! independent subproblems for a cluster's array jobs (scripts/slurm/solve.sh), merged into the
//! root's exact value. The setup (database, TT, threads, first guess) is chosen from the machine
//! and the cache (`mancala_solver::auto`) and opened by `mancala_solver::open`; the plan folder
//! is `run_folder::split_plan`'s. See docs/solved.md for the method and measured figures.

use std::io::Write;
use std::path::PathBuf;
use std::time::Instant;

use anyhow::{anyhow, bail};
use clap::Args;
use mancala_arena::rules::{Move, Position, Ruleset};
use mancala_arena::run_folder::split_plan::{board, key_hex, LeafResult, Plan, Progress};
use mancala_arena::solver::auto::Setup;
use mancala_arena::solver::{db, open, setup_here, BoardSpec, Purpose, Solver};

use super::flags::parse_shard;
use super::solver_console::SolverConsole;

#[derive(Clone, Debug, Args)]
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

/// The split solve's flags.
#[derive(Clone, Debug, Args)]
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

/// The setup of a solve of `rules` (see `mancala_solver::auto`): the machine, the cache, and
/// the flags that fix a part of it. `at_start`: solving the start position.
fn setup(args: &SolveArgs, rules: &Ruleset, at_start: bool) -> anyhow::Result<(BoardSpec, Setup)> {
    let spec = BoardSpec::from_ruleset(rules).map_err(|e| anyhow!(e))?;
    let cache = !args.no_db_cache;
    let (mut setup, cached) = setup_here(&spec, rules.seeds(), at_start, Purpose::Solve, cache);
    if let Some(k) = args.db_seeds {
        setup = setup.with_db_seeds(&spec, k, &cached);
        setup.resume_from(db::default_dir().filter(|_| cache).as_deref(), &spec);
    }
    if let Some(t) = args.tt_mib {
        setup.tt_mib = t;
    }
    if let Some(t) = args.threads {
        setup.threads = t;
    }
    Ok((spec, setup))
}

/// The solver of `setup`, from the cache folder unless `--no-db-cache`, saying on stderr what
/// it builds, and on stdout the database line.
fn solver(args: &SolveArgs, spec: BoardSpec, setup: &Setup) -> anyhow::Result<Solver> {
    let dir = db::default_dir().filter(|_| !args.no_db_cache);
    let console = SolverConsole::new();
    let values = !args.no_value_cache;
    let solver = open(spec, setup, dir.as_deref(), values, &|o| console.event(&o));
    if let Some(db) = solver.db() {
        outln!(
            "database  seeds<={}  entries {}  ({:.1} MiB)  {} in {:.2}s{}",
            setup.db_seeds,
            db.bytes(),
            db.bytes() as f64 / (1 << 20) as f64,
            match (db.loaded, db.is_mapped() && db.loaded) {
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
    Ok(solver)
}

/// The position to solve: `--position` (else the start) after `--moves`.
fn root_position(args: &SolveArgs) -> anyhow::Result<Position> {
    let mut pos = match &args.position {
        Some(state) => Position::from_state(args.rules, state)?,
        None => Position::new(args.rules),
    };
    for &mv in &args.moves {
        pos.play(mv)?;
    }
    Ok(pos)
}

pub fn run(args: &SolveArgs) -> anyhow::Result<()> {
    if let Some(dir) = args.split.plan.clone() {
        let s = &args.split;
        return match (s.split, &s.shard, s.merge) {
            (Some(depth), None, false) => plan(args, dir, depth),
            (None, Some(shard), false) => solve_shard(args, dir, shard),
            (None, None, true) => merge(dir),
            _ => bail!(
                "--plan {}: say what to do with it: --split DEPTH, --shard I/N or --merge",
                dir.display()
            ),
        };
    }
    let pos = root_position(args)?;
    let at_start = args.position.is_none() && args.moves.is_empty();
    let (spec, mut setup) = setup(args, &args.rules, at_start)?;
    // Before any work: a position the solver does not value is refused with the reason.
    let (board, diff) = spec.solver_board(pos.board())?;
    if let Some(g) = args.guess {
        (setup.guess, setup.guess_from) = (g, "--guess");
    }
    setup.all_best = (setup.all_best || args.all_best) && !args.value_only;
    outln!("setup     {}", setup.describe(&spec))?;
    if args.dry_run {
        return Ok(());
    }
    let mut solver = solver(args, spec, &setup)?;
    solver.set_id_depth(args.id_depth);
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
    let source = if solver.values().is_some_and(|v| v.from_book(&board)) {
        "the Kalah(6,5) openings book: proven offline"
    } else {
        "the value cache: proven before"
    };
    let from = if cached {
        format!(" from {source} (--no-value-cache proves it again)")
    } else {
        String::new()
    };
    outln!("solved    value {value:+} in {value_secs:.3}s, {value_nodes} nodes{from}{next}")?;
    if !mancala_arena::solver::board::plausible(&spec, board.seeds(), value) {
        bail!(
            "the value {value:+} cannot be true of a position with {} seeds in play{}: not printed",
            board.seeds(),
            if cached {
                format!(" (it came from {source})")
            } else {
                String::new()
            }
        );
    }
    let best = if setup.all_best {
        solver
            .best_moves(&board, value, &mut |_| false)
            .expect("never aborted")
            .1
    } else {
        solver
            .optimal_move(&board, value, &mut |_| false)
            .into_iter()
            .collect()
    };
    let secs = started.elapsed().as_secs_f64();
    let side = pos.to_move().expect("not over");
    let moves: Vec<String> = best.iter().map(|i| (i + 1).to_string()).collect();
    let mut out = std::io::stdout().lock();
    writeln!(out, "rules     {}", args.rules)?;
    writeln!(out, "to move   {side}  (store difference so far {diff:+})")?;
    if cached {
        writeln!(
            out,
            "value     {value:+}  (from {source}; --no-value-cache proves it again)"
        )?;
    } else {
        writeln!(
            out,
            "value     {value:+}  (seeds the mover gains from here with perfect play)"
        )?;
    }
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
            moves.first().map_or("?", String::as_str)
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
    drop(out);
    files_written(&solver)
}

/// The end of a solve: what the solver's files came to. A database whose entries failed the
/// value check is named (the value was searched around them and not cached); a database or a
/// value cache that could not be written is an error naming it (a non-zero exit, after the
/// answer).
fn files_written(solver: &Solver) -> anyhow::Result<()> {
    let mut failed = Vec::new();
    if let Some(db) = solver.db() {
        if db.bad_reads() > 0 {
            eprintln!(
                "database {}: {} entries cannot be true (damaged in place?): searched instead,                  and the value not cached; delete the file to have it rebuilt",
                db.path().map_or("(in memory)".into(), |p| p.display().to_string()),
                db.bad_reads()
            );
        }
        if let Some(why) = &db.not_kept {
            failed.push(format!("database {why}"));
        }
    }
    if let Some(values) = solver.values() {
        if let Err(e) = values.flush() {
            failed.push(format!("value cache not written: {e}"));
        }
    }
    if failed.is_empty() {
        Ok(())
    } else {
        bail!("{}", failed.join("; "))
    }
}

/// `--split DEPTH --plan DIR`: writes the plan.
fn plan(args: &SolveArgs, dir: PathBuf, depth: usize) -> anyhow::Result<()> {
    let pos = root_position(args)?;
    let at_start = args.position.is_none() && args.moves.is_empty();
    let (_, setup) = setup(args, &args.rules, at_start)?;
    let guess = args.guess.or(setup.known_guess());
    let plan = Plan::create(&dir, args.rules, pos, depth, guess, args.db_seeds)?;
    let split = &plan.split;
    let seeds: Vec<i32> = split.leaves.iter().map(|l| l.board.seeds()).collect();
    outln!(
        "plan      {} subproblems {depth} sows below the root ({}..={} seeds in the pits), window ({}, {}) at the root{}",
        split.leaves.len(),
        seeds.iter().min().unwrap_or(&0),
        seeds.iter().max().unwrap_or(&0),
        split.alpha,
        split.beta,
        guess.map_or(" (no guess: every subproblem exact)".into(), |g| format!(" around the guess {g:+}"))
    )?;
    outln!(
        "next      arena solve --plan {0} --shard I/N  (for I in 0..N), then arena solve --plan {0} --merge;\n          on Slurm: scripts/slurm/solve.sh {0} N",
        dir.display()
    )?;
    Ok(())
}

/// `--plan DIR --shard I/N`: solves leaves `I, I + N, ...` in rounds of node budgets growing
/// 4× a round: cheap subproblems first, whose results (this shard's and the others', read from
/// the folder) spare the siblings they make unneeded. An unfinished subproblem keeps its proven
/// bounds in the TT.
fn solve_shard(args: &SolveArgs, dir: PathBuf, shard: &str) -> anyhow::Result<()> {
    let (index, count) = parse_shard(shard)?;
    let plan = Plan::load(&dir)?;
    let args_db = SolveArgs {
        db_seeds: args.db_seeds.or(plan.file.db_seeds),
        ..args.clone()
    };
    let (spec, setup) = setup(&args_db, &plan.rules, false)?;
    let split = &plan.split;
    let mine: Vec<usize> = (index as usize..split.leaves.len())
        .step_by(count as usize)
        .collect();
    outln!(
        "shard     {index}/{count}: {} of {} subproblems; {}",
        mine.len(),
        split.leaves.len(),
        setup.describe(&spec)
    )?;
    let mut solver = solver(&args_db, spec, &setup)?;
    let started = Instant::now();
    let mut budget: u64 = 1 << 20;
    let mut solved = 0;
    // Nodes and seconds of each subproblem's unfinished rounds, added to its result.
    let mut spent = std::collections::HashMap::<usize, (u64, f64)>::new();
    let mut progress = Progress::new(&plan);
    loop {
        let mut open = 0;
        progress.read(&plan, true)?;
        for &i in &mine {
            progress.read(&plan, false)?;
            if !progress.needed(&plan, i) {
                continue;
            }
            open += 1;
            let leaf = &split.leaves[i];
            let (before, t) = (solver.nodes, Instant::now());
            let limit = before + budget;
            let Some((lo, hi)) = solver.bounds_within(
                &leaf.board,
                leaf.alpha,
                leaf.beta,
                leaf.alpha + 1,
                &mut |n| n > limit,
            ) else {
                let e = spent.entry(i).or_default();
                e.0 += solver.nodes - before;
                e.1 += t.elapsed().as_secs_f64();
                continue;
            };
            let (n0, s0) = spent.get(&i).copied().unwrap_or_default();
            let r = LeafResult {
                leaf: i,
                key: key_hex(&leaf.board),
                lo,
                hi,
                nodes: n0 + solver.nodes - before,
                secs: s0 + t.elapsed().as_secs_f64(),
                // Stamped with the plan by `write_leaf`.
                ..LeafResult::default()
            };
            plan.write_leaf(&r)?;
            progress.record(i, (lo, hi));
            solved += 1;
            outln!(
                "leaf      {i}  seeds {}  window ({}, {})  -> [{lo}, {hi}]  {} nodes  {:.2}s  (budget {budget})",
                leaf.board.seeds(),
                leaf.alpha,
                leaf.beta,
                r.nodes,
                r.secs
            )?;
        }
        if open == 0 {
            break;
        }
        budget = budget.saturating_mul(4);
    }
    progress.read(&plan, true)?;
    let skipped = mine
        .iter()
        .filter(|&&i| progress.results()[i].is_none())
        .count();
    outln!(
        "done      {solved} solved here, {skipped} not needed; {} nodes in {:.1}s",
        solver.nodes,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// `--plan DIR --merge`: the root's value from the solved subproblems, into `result.json`.
fn merge(dir: PathBuf) -> anyhow::Result<()> {
    let plan = Plan::load(&dir)?;
    let split = &plan.split;
    let (mut nodes, mut secs, mut longest, mut solved) = (0u64, 0f64, 0f64, 0);
    let mut results = Vec::new();
    for i in 0..split.leaves.len() {
        let r = plan.read_leaf(i)?;
        if let Some(r) = &r {
            nodes += r.nodes;
            secs += r.secs;
            longest = longest.max(r.secs);
            solved += 1;
        }
        results.push(r.map(|r| (r.lo, r.hi)));
    }
    let (lo, hi) = split.merge(&results);
    if !split.root_decided((lo, hi)) {
        let missing: Vec<String> = (0..split.leaves.len())
            .filter(|&i| split.needed(&results)[i])
            .map(|i| i.to_string())
            .collect();
        bail!(
            "{}: {} of {} subproblems are still needed: {}{} (run the shards that hold them)",
            dir.join("leaves").display(),
            missing.len(),
            split.leaves.len(),
            missing[..missing.len().min(20)].join(" "),
            if missing.len() > 20 { " ..." } else { "" }
        );
    }
    let (_, diff) = board(&plan.spec, &plan.position)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "rules     {}", plan.rules)?;
    writeln!(
        out,
        "split     {} subproblems {} sows deep, {solved} solved (the rest not needed); {nodes} nodes, {secs:.1}s of solving in all, the longest {longest:.1}s",
        split.leaves.len(),
        plan.file.depth
    )?;
    let guess = plan.file.guess.unwrap_or(0);
    let value = if lo == hi {
        writeln!(
            out,
            "value     {lo:+}  (exact, merged from the subproblems)"
        )?;
        writeln!(
            out,
            "margin    {:+}  (final store difference, mover's view)",
            diff + lo
        )?;
        Some(lo)
    } else if lo >= split.beta {
        writeln!(
            out,
            "value     >= {lo:+}  (the guess {guess:+} was too low: plan again with --guess {lo})"
        )?;
        None
    } else {
        writeln!(
            out,
            "value     <= {hi:+}  (the guess {guess:+} was too high: plan again with --guess {hi})"
        )?;
        None
    };
    plan.write_result(&serde_json::json!({
        "rules": plan.file.rules, "position": plan.file.position, "lo": lo, "hi": hi,
        "value": value, "margin": value.map(|v| v + diff),
        "subproblems": split.leaves.len(), "solved": solved, "nodes": nodes,
        "solve_secs": secs,
    }))
}
