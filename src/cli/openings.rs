//! `arena openings --rules SPEC --plies K --count N [--value LO..HI] [--seed S] [--out FILE]`:
//! writes an openings file (the format `--openings` reads) of distinct positions reached by K
//! sows, each labelled with its value, the first mover's final store margin with best play:
//! exact from the solver on Kalah, from a fixed-depth alpha-beta search on other rulesets (the
//! header says which). Keeps the values in `LO..HI`, balanced over the values found. The maths
//! and the file format are `mancala_arena::openings`.

use std::path::PathBuf;
use std::time::Instant;

use anyhow::{bail, Context, Result};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use mancala_arena::openings::{
    self, default_db_seeds, describe, format_value, positions, value_all, Selection,
};
use mancala_arena::rules::Ruleset;
use mancala_arena::solver::{check_rules, db, open, setup_here, BoardSpec, Purpose, Solver};
use mancala_arena::valuer::{Method, Valuer};

use super::solver_console::SolverConsole;

/// More move lists than this are not walked (K = 9 on Kalah(6,4) is 2.7 M).
const WALK_LIMIT: u64 = 20_000_000;

#[derive(clap::Args, Debug)]
pub struct OpeningsArgs {
    /// The ruleset, e.g. `kalah`, `kalah:pits=6,seeds=5`, `oware`.
    #[arg(long, default_value = "kalah")]
    pub rules: Ruleset,
    /// Sows from the start (extra-turn sows count).
    #[arg(long)]
    pub plies: u32,
    /// Openings in the suite.
    #[arg(long)]
    pub count: usize,
    /// Keep only values in LO..HI (the first mover's final margin in seeds), e.g. `-2..2`.
    #[arg(long, value_name = "LO..HI", allow_hyphen_values = true)]
    pub value: Option<String>,
    /// The order in which candidates are valued and kept.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// The openings file to write [default: stdout].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Value at most this many candidates (the suite may then be smaller or less balanced).
    #[arg(long)]
    pub max_evaluate: Option<usize>,
    /// Value with the alpha-beta search even where the solver could (Kalah).
    #[arg(long)]
    pub search: bool,
    /// Search depth in turns for the search values.
    #[arg(long, default_value_t = 12)]
    pub depth: u32,
    /// Exact values: endgame database of this many seeds [default: the `arena solve` default].
    #[arg(long)]
    pub db_seeds: Option<usize>,
    /// Exact values: at most this many solver nodes per position (unproven ones are left out).
    #[arg(long, default_value_t = 500_000_000)]
    pub nodes: u64,
    /// Transposition table, MiB (one, shared by the threads; the search's own table of an
    /// estimate is at most 256 MiB per thread).
    #[arg(long, default_value_t = 512)]
    pub tt_mib: usize,
    /// Positions valued at once [default: one per core].
    #[arg(long)]
    pub threads: Option<usize>,
    /// No progress output (the count of positions, the values kept so far, where the suite went)
    #[arg(long, short)]
    pub quiet: bool,
}

/// `LO..HI` as two numbers.
fn parse_range(text: &str) -> Result<(f64, f64)> {
    let (lo, hi) = text
        .split_once("..")
        .with_context(|| format!("--value `{text}`: expected LO..HI, e.g. -2..2"))?;
    let num = |s: &str| -> Result<f64> {
        s.trim()
            .parse::<f64>()
            .with_context(|| format!("--value `{text}`: `{s}` is not a number"))
    };
    let (lo, hi) = (num(lo)?, num(hi)?);
    if lo > hi {
        bail!("--value `{text}`: LO is above HI");
    }
    Ok((lo, hi))
}

pub fn run(args: &OpeningsArgs) -> Result<()> {
    if args.count == 0 {
        bail!("--count must be at least 1");
    }
    let started = Instant::now();
    let (lo, hi) = match &args.value {
        Some(text) => parse_range(text)?,
        None => (f64::NEG_INFINITY, f64::INFINITY),
    };
    let rules = args.rules;
    let method = if args.search {
        Method::Estimate { depth: args.depth }
    } else {
        Method::for_ruleset(rules, args.nodes, args.depth)
    };
    let db_seeds = args
        .db_seeds
        .or_else(|| default_db_seeds(rules))
        .unwrap_or(0);
    let mut candidates = positions(rules, args.plies, WALK_LIMIT).map_err(anyhow::Error::msg)?;
    let distinct = candidates.len();
    if distinct == 0 {
        bail!("no position of {rules} is {} sows deep", args.plies);
    }
    candidates.shuffle(&mut ChaCha8Rng::seed_from_u64(args.seed));
    if let Some(max) = args.max_evaluate {
        candidates.truncate(max);
    }
    let threads = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1);
    // One solver (its database, TT and value cache), whose tables every thread shares.
    let solver = match method {
        Method::Exact { .. } => {
            let spec = BoardSpec::from_ruleset(&rules).map_err(anyhow::Error::msg)?;
            let (setup, cached) = setup_here(&spec, rules.seeds(), false, Purpose::Analyse, true);
            let mut setup = setup.with_db_seeds(&spec, db_seeds, &cached);
            setup.resume_from(db::default_dir().as_deref(), &spec);
            setup.tt_mib = args.tt_mib;
            let console = SolverConsole::new();
            let dir = db::default_dir();
            Some(open(spec, &setup, dir.as_deref(), true, &|o| {
                console.event(&o)
            }))
        }
        Method::Estimate { .. } => None,
    };
    let mut valuers: Vec<Valuer> = (0..threads)
        .map(|_| {
            let shared = solver.as_ref().map(Solver::sharing_tables);
            Valuer::new(method, shared, args.tt_mib.min(256))
        })
        .collect();
    if !args.quiet {
        eprintln!(
            "{distinct} distinct positions after {} sows of {rules}; valuing them in a seeded order ({}) on {threads} thread(s)",
            args.plies,
            describe(method, db_seeds)
        );
    }
    // Kalah the solver does not value exactly: say why the values are estimates.
    if let (false, Err(why)) = (args.quiet || args.search, check_rules(&rules)) {
        if rules.kind() == mancala_arena::rules::GameKind::Kalah {
            eprintln!("not exact: {why}; the values are the search's estimates");
        }
    }
    let mut selection = Selection::new(args.count, lo, hi);
    let quiet = args.quiet;
    value_all(rules, &candidates, &mut valuers, 4 * threads, |batch| {
        for (opening, value) in batch {
            selection.offer(opening.clone(), *value);
        }
        if !quiet {
            let counts: Vec<String> = selection
                .counts()
                .iter()
                .map(|(v, n)| format!("{} ×{n}", format_value(*v)))
                .collect();
            eprintln!(
                "valued {:>6}  in range {:>5}: {}  ({:.0} s)",
                selection.seen,
                selection.in_range,
                counts.join(", "),
                started.elapsed().as_secs_f64()
            );
        }
        !selection.is_full()
    });
    let suite = selection.suite();
    if suite.is_empty() {
        bail!(
            "no position among the {} valued has a value in {}",
            selection.valued,
            args.value.as_deref().unwrap_or("any range")
        );
    }
    let mut counts: Vec<(String, usize)> = Vec::new();
    let mut sorted: Vec<f64> = suite.iter().map(|v| v.value).collect();
    sorted.sort_by(f64::total_cmp);
    for v in sorted {
        let label = format_value(v);
        match counts.last_mut() {
            Some((l, n)) if *l == label => *n += 1,
            _ => counts.push((label, 1)),
        }
    }
    let distribution: Vec<String> = counts.iter().map(|(v, n)| format!("{v} ×{n}")).collect();
    let mut command = format!(
        "arena openings --rules {rules} --plies {} --count {}",
        args.plies, args.count
    );
    if let Some(v) = &args.value {
        command.push_str(&format!(" --value {v}"));
    }
    command.push_str(&format!(" --seed {}", args.seed));
    if let Some(max) = args.max_evaluate {
        command.push_str(&format!(" --max-evaluate {max}"));
    }
    if args.search {
        command.push_str(&format!(" --search --depth {}", args.depth));
    }
    let header = vec![
        format!(
            "{command}: {} openings of {} distinct positions {} sows deep ({} valued, {} in range), \
             balanced over the values; value = the first mover's final store margin with best \
             play, {}; mancala-arena {}, {:.0} s on {threads} thread(s)",
            suite.len(),
            distinct,
            args.plies,
            selection.valued,
            selection.in_range,
            describe(method, db_seeds),
            env!("CARGO_PKG_VERSION"),
            started.elapsed().as_secs_f64()
        ),
        format!("values: {}", distribution.join(", ")),
    ];
    let text = openings::write(&header, &suite);
    match &args.out {
        Some(path) => {
            std::fs::write(path, &text)
                .with_context(|| format!("cannot write {}", path.display()))?;
            if !args.quiet {
                eprintln!(
                    "wrote {} openings to {} ({})",
                    suite.len(),
                    path.display(),
                    distribution.join(", ")
                );
            }
        }
        None => out!("{text}")?,
    }
    if suite.len() < args.count {
        eprintln!(
            "only {} openings in range: the suite is smaller than --count {}",
            suite.len(),
            args.count
        );
    }
    Ok(())
}
