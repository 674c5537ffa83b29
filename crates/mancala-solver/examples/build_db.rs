//! Builds (or extends) the endgame database of one ruleset in the cache folder, ahead of a
//! solve: `cargo run --release -p mancala-solver --example build_db -- RULES K [THREADS]`.
//! Starts from the largest smaller database cached (its levels are a prefix), prints its
//! progress every 5 % and the build time; `arena solve` then loads the file.

use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::time::Instant;

use mancala_rules::Ruleset;
use mancala_solver::{db, BoardSpec, Db};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: build_db RULES K [THREADS]");
        std::process::exit(2);
    }
    let rules: Ruleset = args[0].parse().expect("rules");
    let k: usize = args[1].parse().expect("K");
    let threads = args.get(2).map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t.parse().expect("threads"),
    );
    let spec = BoardSpec::from_ruleset(&rules).expect("Kalah rules");
    let dir = db::default_dir().expect("a cache folder");
    let started = Instant::now();
    let shown = AtomicU64::new(0);
    let progress = |done: u64, todo: u64| {
        let pct = done * 20 / todo.max(1);
        if shown.fetch_max(pct, Relaxed) < pct {
            eprintln!("{:>3} %  {:.0}s", pct * 5, started.elapsed().as_secs_f64());
        }
    };
    let db = Db::load_or_build_with(spec, k, Some(&dir), threads, &progress);
    println!(
        "k{k} {} entries {} {} in {:.1}s ({})",
        spec.tag(),
        db.bytes(),
        if db.loaded { "loaded" } else { "built" },
        db.build_time.as_secs_f64(),
        dir.display()
    );
}
