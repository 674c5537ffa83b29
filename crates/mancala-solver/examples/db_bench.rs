//! The database build's benchmark (docs/solved.md, "Database cache folder"): builds the levels
//! of one ruleset's database from nothing, in memory (the cache folder is not touched), and
//! prints for every level and for the whole database up to each level the entries, wall time,
//! CPU time (user + system, every thread) and nanoseconds of CPU per entry:
//! `cargo run --release -p mancala-solver --example db_bench -- RULES K [THREADS]`
//! (scripts/db-bench.sh runs it for K = 28 and marks the 24-, 26- and 28-seed lines).

use std::sync::Mutex;
use std::time::{Duration, Instant};

use mancala_rules::Ruleset;
use mancala_solver::{db, BoardSpec, Db};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: db_bench RULES K [THREADS]");
        std::process::exit(2);
    }
    let rules: Ruleset = args[0].parse().expect("rules");
    let k: usize = args[1].parse().expect("K");
    let threads = args.get(2).map_or_else(
        || std::thread::available_parallelism().map_or(1, |n| n.get()),
        |t| t.parse().expect("threads"),
    );
    let spec = BoardSpec::from_ruleset(&rules).expect("Kalah rules");
    let m = 2 * spec.pits;
    // Cumulative entries at the end of each level: a level is done when `done` reaches it.
    let ends: Vec<u64> = (0..=k)
        .scan(0u64, |sum, j| {
            *sum += db::level_size(j, m) as u64;
            Some(*sum)
        })
        .collect();
    println!(
        "{rules}: levels 0..={k} on {threads} threads; load average {}",
        load()
    );
    println!(
        "{:>5} {:>14} {:>9} {:>9} {:>8}   {:>14} {:>9} {:>9} {:>8}",
        "level",
        "entries",
        "wall s",
        "cpu s",
        "ns/entry",
        "db entries",
        "wall s",
        "cpu s",
        "ns/entry"
    );
    let (wall0, cpu0) = (Instant::now(), cpu_time());
    // (next level to report, wall and CPU at the end of the last one reported)
    let state = Mutex::new((1usize, wall0, cpu0));
    let progress = |done: u64, _todo: u64| {
        let mut s = state.lock().expect("state");
        // Blocks of level j finish in any order, but level j + 1 starts only after all of them.
        while s.0 <= k && done + ends[0] >= ends[s.0] {
            let (wall, cpu) = (Instant::now(), cpu_time());
            let j = s.0;
            let entries = ends[j] - ends[j - 1];
            let line = |n: u64, w: Duration, c: Duration| {
                format!(
                    "{n:>14} {:>9.2} {:>9.2} {:>8.1}",
                    w.as_secs_f64(),
                    c.as_secs_f64(),
                    c.as_secs_f64() * 1e9 / n as f64
                )
            };
            println!(
                "{j:>5} {}   {}",
                line(entries, wall - s.1, cpu - s.2),
                line(ends[j], wall - wall0, cpu - cpu0)
            );
            *s = (j + 1, wall, cpu);
        }
    };
    let db = Db::empty(spec).extend(k, threads, &progress);
    println!(
        "built K = {k}: {} entries in {:.1}s wall, {:.1}s CPU; load average {}",
        db.bytes(),
        wall0.elapsed().as_secs_f64(),
        (cpu_time() - cpu0).as_secs_f64(),
        load()
    );
}

/// This process's CPU time (user + system, every thread).
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

fn load() -> String {
    std::fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_default()
}
