//! `arena solve --split DEPTH --plan DIR`, `--plan DIR --shard I/N`, `--plan DIR --merge`: one
//! solve as independent subproblems for a cluster's array jobs (scripts/slurm/solve.sh), merged
//! into the root's exact value (`mancala_solver::split` has the method and why it is exact).
//!
//! The folder: `plan.json` (the rules, the root position, the depth and the guess; every step
//! rebuilds the same split from it), `leaves/N.json` (one per solved leaf, written whole under
//! a temporary name, so a killed or requeued shard resumes where it stopped), `result.json`
//! (the merge's). A shard takes leaves `I, I + N, ...` (any N works with the same folder), in
//! rounds of growing node budgets, and skips those the results so far (all shards') make
//! unneeded.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

use anyhow::{bail, Context};
use serde::{Deserialize, Serialize};

use mancala_arena::rules::{Position, Ruleset};
use mancala_arena::solver::split::{Leaf, Split};
use mancala_arena::solver::{BoardSpec, Purpose, SBoard, Solver};

use super::solve::{load_db, root_position, setup, SolveArgs};
use super::tournament::parse_shard;

/// `plan.json`.
#[derive(Debug, Serialize, Deserialize)]
struct PlanFile {
    rules: String,
    /// The root position (docs/position.md).
    position: String,
    depth: usize,
    /// The root value the window is around (`None`: every subproblem exact).
    guess: Option<i32>,
    /// The database every shard uses (`None`: each shard's default setup).
    db_seeds: Option<usize>,
    leaves: usize,
    /// The root's pit vector, hex: a check that every step rebuilt the same split.
    root: String,
}

/// `leaves/N.json`: a subproblem's proven bounds, from its mover's view.
#[derive(Debug, Serialize, Deserialize)]
struct LeafResult {
    leaf: usize,
    key: String,
    lo: i32,
    hi: i32,
    nodes: u64,
    secs: f64,
}

pub fn run(args: &SolveArgs) -> anyhow::Result<()> {
    let s = &args.split;
    let dir = s.plan.as_deref().expect("active() checked");
    match (s.split, &s.shard, s.merge) {
        (Some(depth), None, false) => plan(args, dir, depth),
        (None, Some(shard), false) => solve_shard(args, dir, shard),
        (None, None, true) => merge(dir),
        _ => bail!(
            "--plan {}: say what to do with it: --split DEPTH, --shard I/N or --merge",
            dir.display()
        ),
    }
}

fn key_hex(b: &SBoard) -> String {
    format!("{:032x}", b.key())
}

/// The solver board of `pos` and its store difference so far.
fn board(spec: &BoardSpec, pos: &Position) -> anyhow::Result<(SBoard, i32)> {
    spec.board_of(pos.board())
        .context("nothing to solve: the game is over, or `swap` is legal (pie rule)")
}

fn plan(args: &SolveArgs, dir: &Path, depth: usize) -> anyhow::Result<()> {
    let pos = root_position(args)?;
    let at_start = args.position.is_none() && args.moves.is_empty();
    let (spec, setup) = setup(&args.rules, at_start, Purpose::Solve, args.db_seeds, true)?;
    let (root, _) = board(&spec, &pos)?;
    let guess = args.guess.or(setup.known_guess());
    let split = Split::new(&spec, root, depth, guess);
    if dir.join("plan.json").exists() {
        bail!(
            "{}: already holds a plan; use another folder, or delete it to start over",
            dir.display()
        );
    }
    std::fs::create_dir_all(dir.join("leaves"))
        .with_context(|| format!("cannot create {}", dir.display()))?;
    let file = PlanFile {
        rules: args.rules.to_string(),
        position: pos.to_state_string(),
        depth,
        guess,
        db_seeds: args.db_seeds,
        leaves: split.leaves.len(),
        root: key_hex(&root),
    };
    write_json(&dir.join("plan.json"), &file)?;
    let seeds: Vec<i32> = split.leaves.iter().map(|l| l.board.seeds()).collect();
    println!(
        "plan      {} subproblems {depth} sows below the root ({}..={} seeds in the pits), window ({}, {}) at the root{}",
        split.leaves.len(),
        seeds.iter().min().unwrap_or(&0),
        seeds.iter().max().unwrap_or(&0),
        split.alpha,
        split.beta,
        guess.map_or(" (no guess: every subproblem exact)".into(), |g| format!(" around the guess {g:+}"))
    );
    println!(
        "next      arena solve --plan {0} --shard I/N  (for I in 0..N), then arena solve --plan {0} --merge;\n          on Slurm: scripts/slurm/solve.sh {0} N",
        dir.display()
    );
    Ok(())
}

/// The plan in `dir` and the split it describes, rebuilt and checked.
fn load_plan(dir: &Path) -> anyhow::Result<(PlanFile, Ruleset, BoardSpec, Position, Split)> {
    let path = dir.join("plan.json");
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("{}: no plan (make one with --split DEPTH)", path.display()))?;
    let file: PlanFile =
        serde_json::from_str(&text).with_context(|| format!("{}: not a plan", path.display()))?;
    let rules: Ruleset = file
        .rules
        .parse()
        .map_err(|e| anyhow::anyhow!("{}: rules: {e}", path.display()))?;
    let spec = BoardSpec::from_ruleset(&rules).map_err(anyhow::Error::msg)?;
    let pos = Position::from_state(rules, &file.position)
        .with_context(|| format!("{}: position", path.display()))?;
    let (root, _) = board(&spec, &pos)?;
    let split = Split::new(&spec, root, file.depth, file.guess);
    if key_hex(&root) != file.root || split.leaves.len() != file.leaves {
        bail!(
            "{}: this arena splits the plan into {} subproblems at root {}, the plan says {} at {}",
            path.display(),
            split.leaves.len(),
            key_hex(&root),
            file.leaves,
            file.root
        );
    }
    Ok((file, rules, spec, pos, split))
}

fn leaf_path(dir: &Path, i: usize) -> PathBuf {
    dir.join("leaves").join(format!("{i}.json"))
}

/// The stored result of leaf `i`, checked against the leaf (`Ok(None)`: not solved yet).
fn read_leaf(dir: &Path, i: usize, leaf: &Leaf) -> anyhow::Result<Option<LeafResult>> {
    let path = leaf_path(dir, i);
    let Ok(text) = std::fs::read_to_string(&path) else {
        return Ok(None);
    };
    let r: LeafResult = serde_json::from_str(&text)
        .with_context(|| format!("{}: not a subproblem's result", path.display()))?;
    if r.leaf != i || r.key != key_hex(&leaf.board) || !Split::decided(leaf, (r.lo, r.hi)) {
        bail!(
            "{}: does not answer subproblem {i} of this plan (position {}, window ({}, {}))",
            path.display(),
            key_hex(&leaf.board),
            leaf.alpha,
            leaf.beta
        );
    }
    Ok(Some(r))
}

fn solve_shard(args: &SolveArgs, dir: &Path, shard: &str) -> anyhow::Result<()> {
    let (index, count) = parse_shard(shard)?;
    let (file, rules, _, _, split) = load_plan(dir)?;
    let (spec, mut setup) = setup(
        &rules,
        false,
        Purpose::Solve,
        args.db_seeds.or(file.db_seeds),
        !args.no_db_cache,
    )?;
    if let Some(t) = args.tt_mib {
        setup.tt_mib = t;
    }
    if let Some(t) = args.threads {
        setup.threads = t;
    }
    let mine: Vec<usize> = (index as usize..split.leaves.len())
        .step_by(count as usize)
        .collect();
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "shard     {index}/{count}: {} of {} subproblems; {}",
        mine.len(),
        split.leaves.len(),
        setup.describe(&spec)
    )?;
    let db = load_db(spec, &setup, !args.no_db_cache).map(|(db, _)| db);
    let mut solver = Solver::new(spec, setup.tt_mib, db);
    solver.set_threads(setup.threads);
    let started = Instant::now();
    // Rounds with a node budget growing 4× per round: cheap subproblems are solved first, and
    // their results (this shard's and the others', read from the folder) spare the siblings
    // they make unneeded. An unfinished subproblem keeps its proven bounds in the TT.
    let mut budget: u64 = 1 << 20;
    let mut solved = 0;
    // Nodes and seconds of each subproblem's unfinished rounds, added to its result.
    let mut spent = std::collections::HashMap::<usize, (u64, f64)>::new();
    loop {
        let mut open = 0;
        for &i in &mine {
            let results = read_results(dir, &split)?;
            if !split.needed(&results)[i] {
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
            };
            write_json(&leaf_path(dir, i), &r)?;
            solved += 1;
            writeln!(
                out,
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
    let results = read_results(dir, &split)?;
    let skipped = mine.iter().filter(|&&i| results[i].is_none()).count();
    writeln!(
        out,
        "done      {solved} solved here, {skipped} not needed; {} nodes in {:.1}s",
        solver.nodes,
        started.elapsed().as_secs_f64()
    )?;
    Ok(())
}

/// Every leaf's stored result so far.
fn read_results(dir: &Path, split: &Split) -> anyhow::Result<Vec<Option<(i32, i32)>>> {
    split
        .leaves
        .iter()
        .enumerate()
        .map(|(i, leaf)| Ok(read_leaf(dir, i, leaf)?.map(|r| (r.lo, r.hi))))
        .collect()
}

fn merge(dir: &Path) -> anyhow::Result<()> {
    let (file, rules, spec, pos, split) = load_plan(dir)?;
    let (mut nodes, mut secs, mut longest, mut solved) = (0u64, 0f64, 0f64, 0);
    let mut results = Vec::new();
    for (i, leaf) in split.leaves.iter().enumerate() {
        let r = read_leaf(dir, i, leaf)?;
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
    let (_, diff) = board(&spec, &pos)?;
    let mut out = std::io::stdout().lock();
    writeln!(out, "rules     {rules}")?;
    writeln!(
        out,
        "split     {} subproblems {} sows deep, {solved} solved (the rest not needed); {nodes} nodes, {secs:.1}s of solving in all, the longest {longest:.1}s",
        split.leaves.len(),
        file.depth
    )?;
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
            "value     >= {lo:+}  (the guess {:+} was too low: plan again with --guess {lo})",
            file.guess.unwrap_or(0)
        )?;
        None
    } else {
        writeln!(
            out,
            "value     <= {hi:+}  (the guess {:+} was too high: plan again with --guess {hi})",
            file.guess.unwrap_or(0)
        )?;
        None
    };
    write_json(
        &dir.join("result.json"),
        &serde_json::json!({
            "rules": file.rules, "position": file.position, "lo": lo, "hi": hi,
            "value": value, "margin": value.map(|v| v + diff),
            "subproblems": split.leaves.len(), "solved": solved, "nodes": nodes,
            "solve_secs": secs,
        }),
    )
}

/// Writes `value` as JSON to `path` under a temporary name, then renames it.
fn write_json<T: Serialize>(path: &Path, value: &T) -> anyhow::Result<()> {
    let tmp = path.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, serde_json::to_string_pretty(value)? + "\n")
        .with_context(|| format!("cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}
