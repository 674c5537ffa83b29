//! Solver experiments on a few positions:
//!
//! - `cargo run --release -p mancala-solver --example probe -- RULES K TT_MIB THREADS GUESS
//!   SEQ...`, where each SEQ is a comma-separated list of 1-based pits sown from the start (`-`
//!   for the start itself, `rand:SEED:N` for N pseudo-random sows, `SEQ@G` for its own guess).
//! - `... --example probe -- --positions FILE K TT_MIB THREADS`: the positions of FILE (lines
//!   `RULES SEQ VALUE`, `#` comments; `benches/solver-positions.txt` is the fixed set of
//!   docs/solved.md), each searched from its known VALUE (so MTD(f) makes exactly the two
//!   passes of a proof, >= VALUE and <= VALUE), each with a fresh TT; a value other than VALUE
//!   is reported as a mismatch.
//!
//! Prints the value, nodes, CPU and wall time per position, and the totals: the node counts of
//! docs/solved.md's tables come from here (with THREADS 1 they are the same run to run). The
//! database is mapped from (or built into) the cache folder.

use std::sync::Arc;
use std::time::{Duration, Instant};

use mancala_rules::Ruleset;
use mancala_solver::{db, BoardSpec, Db, SBoard, Solver};

/// One position to search: where it came from and what to expect.
struct Job {
    label: String,
    rules: Ruleset,
    seq: String,
    guess: i32,
    expect: Option<i32>,
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (jobs, rest) = if args.first().map(String::as_str) == Some("--positions") {
        let Some(file) = args.get(1) else { usage() };
        (read_positions(file), &args[2..])
    } else {
        if args.len() < 6 {
            usage();
        }
        let rules: Ruleset = args[0]
            .parse()
            .unwrap_or_else(|e| fail(&format!("rules: {e}")));
        let guess: i32 = number(&args[4], "GUESS");
        let jobs = args[5..]
            .iter()
            .map(|arg| {
                let (seq, g) = match arg.split_once('@') {
                    Some((s, g)) => (s, number(g, "the guess after @")),
                    None => (arg.as_str(), guess),
                };
                Job {
                    label: seq.to_string(),
                    rules,
                    seq: seq.to_string(),
                    guess: g,
                    expect: None,
                }
            })
            .collect();
        (jobs, &args[1..4])
    };
    if rest.len() < 3 {
        usage();
    }
    let k: usize = number(&rest[0], "K");
    let tt_mib: usize = number(&rest[1], "TT_MIB");
    let threads: usize = number(&rest[2], "THREADS");
    println!(
        "K {k}  tt {tt_mib} MiB  threads {threads}  load average {}",
        std::fs::read_to_string("/proc/loadavg")
            .map(|l| l.split(' ').take(3).collect::<Vec<_>>().join(" "))
            .unwrap_or_default()
    );
    let mut dbs: Vec<Arc<Db>> = Vec::new();
    let (mut total_nodes, mut total_cpu, started_all) = (0u64, Duration::ZERO, Instant::now());
    let mut mismatches = 0;
    for job in &jobs {
        let spec = BoardSpec::from_ruleset(&job.rules)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", job.label)));
        let db = (k > 0).then(|| match dbs.iter().find(|d| d.spec() == spec) {
            Some(d) => Arc::clone(d),
            None => {
                let d = Arc::new(Db::load_or_build(spec, k, db::default_dir().as_deref()));
                eprintln!(
                    "database {} k{k} {} in {:.1}s",
                    spec.tag(),
                    if d.is_mapped() { "mapped" } else { "built" },
                    d.build_time.as_secs_f64()
                );
                dbs.push(Arc::clone(&d));
                d
            }
        });
        let (b, gain, sign) = play(&spec, &job.rules, &job.seq)
            .unwrap_or_else(|e| fail(&format!("{}: {e}", job.label)));
        let mut solver = Solver::new(spec, tt_mib, db);
        solver.set_threads(threads);
        let max: u64 = std::env::var("PROBE_MAX_NODES")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(u64::MAX);
        let (cpu0, started) = (cpu_time(), Instant::now());
        let v = solver.solve(&b, job.guess, &mut |n| n > max);
        let (cpu, secs) = (cpu_time() - cpu0, started.elapsed().as_secs_f64());
        total_nodes += solver.nodes;
        total_cpu += cpu;
        let check = match (job.expect, v) {
            (Some(e), Some(v)) if e != v => {
                mismatches += 1;
                format!("  MISMATCH: expected {e:+}")
            }
            _ => String::new(),
        };
        println!(
            "{:<40}  seeds {:>2}  value {:>8}  (first mover {:>3})  nodes {:>11}  cpu {:>7.2}s  wall {secs:>7.2}s{check}",
            job.label,
            b.seeds(),
            v.map_or("aborted".into(), |v| format!("{v:+}")),
            v.map_or("?".into(), |v| format!("{:+}", gain + sign * v)),
            solver.nodes,
            cpu.as_secs_f64(),
        );
    }
    println!(
        "total {} positions  nodes {total_nodes}  cpu {:.2}s  wall {:.2}s{}",
        jobs.len(),
        total_cpu.as_secs_f64(),
        started_all.elapsed().as_secs_f64(),
        if mismatches > 0 {
            format!("  {mismatches} MISMATCHES")
        } else {
            String::new()
        }
    );
    if mismatches > 0 {
        std::process::exit(1);
    }
}

fn usage() -> ! {
    eprintln!(
        "usage: probe RULES K TT_MIB THREADS GUESS SEQ...\n       probe --positions FILE K TT_MIB THREADS"
    );
    std::process::exit(2);
}

fn fail(msg: &str) -> ! {
    eprintln!("probe: {msg}");
    std::process::exit(2);
}

fn number<T: std::str::FromStr>(s: &str, what: &str) -> T {
    s.parse()
        .unwrap_or_else(|_| fail(&format!("{what}: not a number: {s:?}")))
}

/// This process's CPU time (user + system, every thread).
fn cpu_time() -> Duration {
    let t = rustix::time::clock_gettime(rustix::time::ClockId::ProcessCPUTime);
    Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
}

/// The positions of a `RULES SEQ VALUE` file, with the line as the label.
fn read_positions(path: &str) -> Vec<Job> {
    let text =
        std::fs::read_to_string(path).unwrap_or_else(|e| fail(&format!("reading {path}: {e}")));
    let mut jobs = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let at = format!("{path}:{}", n + 1);
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [rules, seq, value] = fields[..] else {
            fail(&format!("{at}: expected `RULES SEQ VALUE`, got {line:?}"));
        };
        let rules: Ruleset = rules
            .parse()
            .unwrap_or_else(|e| fail(&format!("{at}: rules: {e}")));
        let value: i32 = number(value, &format!("{at}: VALUE"));
        jobs.push(Job {
            label: format!("{} {seq}", fields[0]),
            rules,
            seq: seq.to_string(),
            guess: value,
            expect: Some(value),
        });
    }
    jobs
}

/// The position after `seq` from the start, with the first mover's store difference so far
/// and the sign that turns the mover's value into the first mover's.
fn play(spec: &BoardSpec, rules: &Ruleset, seq: &str) -> Result<(SBoard, i32, i32), String> {
    let mut b = spec.start(rules.seeds() as u8);
    let (mut gain, mut sign) = (0, 1);
    let random = seq.starts_with("rand:");
    let moves: Vec<usize> = if let Some(r) = seq.strip_prefix("rand:") {
        // rand:SEED:N: N pseudo-random sows (an index into the legal ones).
        let (seed, n) = r.split_once(':').ok_or("rand:SEED:N")?;
        let mut x: u64 = seed.parse::<u64>().map_err(|_| "rand: seed")? * 2 + 1;
        (0..n.parse::<usize>().map_err(|_| "rand: N")?)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                (x >> 33) as usize
            })
            .collect()
    } else if seq == "-" {
        Vec::new()
    } else {
        seq.split(',')
            .map(|m| match m.parse::<usize>() {
                Ok(p) if (1..=spec.pits).contains(&p) => Ok(p - 1),
                _ => Err(format!("{m:?} is not a pit 1..{}", spec.pits)),
            })
            .collect::<Result<_, _>>()?
    };
    let mut path = Vec::new();
    for mut i in moves {
        if random {
            let legal: Vec<usize> = (0..spec.pits).filter(|&j| b.c[j] != 0).collect();
            i = legal[i % legal.len()];
            if b.sow(spec, i).over {
                break;
            }
            path.push((i + 1).to_string());
        }
        if b.c[i] == 0 {
            return Err(format!("pit {} is empty", i + 1));
        }
        let s = b.sow(spec, i);
        if s.over {
            return Err(format!("the game is over after sowing pit {}", i + 1));
        }
        gain += sign * s.gain;
        if !s.extra {
            sign = -sign;
        }
        b = s.next;
    }
    if !path.is_empty() {
        eprintln!("{seq} = {}", path.join(","));
    }
    Ok((b, gain, sign))
}
