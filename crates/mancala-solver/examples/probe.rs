//! Solver experiments on a few positions: `cargo run --release -p mancala-solver --example probe
//! -- RULES K TT_MIB THREADS GUESS SEQ...`, where each SEQ is a comma-separated list of 1-based
//! pits sown from the start (`-` for the start itself). Prints the value, nodes and time per
//! position, and the total: the node counts of docs/solved.md's tables come from here.
//! The database is loaded from (or built into) the cache folder.

use std::sync::Arc;
use std::time::Instant;

use mancala_rules::Ruleset;
use mancala_solver::{db, BoardSpec, Db, Solver};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 6 {
        eprintln!("usage: probe RULES K TT_MIB THREADS GUESS SEQ...");
        std::process::exit(2);
    }
    let rules: Ruleset = args[0].parse().expect("rules");
    let k: usize = args[1].parse().expect("K");
    let tt_mib: usize = args[2].parse().expect("TT MiB");
    let threads: usize = args[3].parse().expect("threads");
    let guess: i32 = args[4].parse().expect("guess");
    let spec = BoardSpec::from_ruleset(&rules).expect("Kalah rules");
    let db = (k > 0).then(|| Arc::new(Db::load_or_build(spec, k, db::default_dir().as_deref())));
    if let Some(db) = &db {
        eprintln!(
            "database k{k} {} in {:.1}s",
            if db.loaded { "loaded" } else { "built" },
            db.build_time.as_secs_f64()
        );
    }
    let (mut total_nodes, started_all) = (0u64, Instant::now());
    for arg in &args[5..] {
        let (seq, g) = match arg.split_once('@') {
            Some((s, g)) => (s, g.parse().expect("guess")),
            None => (arg.as_str(), guess),
        };
        let mut b = spec.start(rules.seeds() as u8);
        let mut gain = 0;
        let mut sign = 1;
        let moves: Vec<Option<usize>> = if let Some(r) = seq.strip_prefix("rand:") {
            // rand:SEED:N: N pseudo-random sows
            let (seed, n) = r.split_once(':').expect("rand:SEED:N");
            let mut x: u64 = seed.parse::<u64>().expect("seed") * 2 + 1;
            (0..n.parse::<usize>().expect("N"))
                .map(|_| {
                    x = x
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    Some((x >> 33) as usize)
                })
                .collect()
        } else if seq == "-" {
            Vec::new()
        } else {
            seq.split(',')
                .map(|m| Some(m.parse::<usize>().expect("pit") - 1))
                .collect()
        };
        {
            let mut path = Vec::new();
            for m in moves {
                let mut i = m.unwrap();
                if seq.starts_with("rand:") {
                    let legal: Vec<usize> = (0..spec.pits).filter(|&j| b.c[j] != 0).collect();
                    i = legal[i % legal.len()];
                    if b.sow(&spec, i).over {
                        break;
                    }
                    path.push((i + 1).to_string());
                }
                assert!(b.c[i] != 0, "{seq}: pit {} is empty", i + 1);
                let s = b.sow(&spec, i);
                assert!(!s.over, "{seq}: game over");
                gain += sign * s.gain;
                if !s.extra {
                    sign = -sign;
                }
                b = s.next;
            }
            if !path.is_empty() {
                eprintln!("{seq} = {}", path.join(","));
            }
        }
        let mut solver = Solver::new(spec, tt_mib, db.clone());
        solver.set_threads(threads);
        let started = Instant::now();
        let max: u64 = std::env::var("PROBE_MAX_NODES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX);
        let v = solver.solve(&b, g, &mut |n| n > max);
        let secs = started.elapsed().as_secs_f64();
        total_nodes += solver.nodes;
        println!(
            "{seq:>14}  seeds {:>2}  value {}  (first mover {})  nodes {:>12}  {secs:>8.2}s",
            b.seeds(),
            v.map_or("aborted".into(), |v| format!("{v:+}")),
            v.map_or("?".into(), |v| format!("{:+}", gain + sign * v)),
            solver.nodes
        );
    }
    println!(
        "total nodes {total_nodes}  {:.2}s",
        started_all.elapsed().as_secs_f64()
    );
}
