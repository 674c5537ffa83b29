//! The harness's own cost (issue 4): how much time the arena adds per sow beyond a bare pipe
//! round trip, games per second at concurrency 1 and 2 with instant bots, and time forfeits at
//! 10 ms per sow.
//!
//! `cargo bench --bench harness` (needs `cargo build --release --workspace` first for the bots).
//! Set `HARNESS_GAMES` to change the size of the forfeit run (default 10,000 games).
//!
//! The arena's turnaround is measured from the bots' side: this binary re-runs itself as a
//! minimal single-threaded bot (`ARENA_BENCH_BOT=1`) that logs, on a monotonic clock shared by all
//! processes, when it wrote each `bestmove` and when the next `go` arrived. The gap from one
//! bot's `bestmove` to the next `go` either bot receives is the arena's cost per sow (two pipe
//! transfers, reading, refereeing, writing), the quantity the issue compares with a bare round
//! trip (also two pipe transfers).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use mancala_arena::engine::FaultKind;
use mancala_arena::engine::{BotSpec, Program};
use mancala_arena::run_folder::games::read_games;
use mancala_arena::run_folder::Termination;
use mancala_arena::tournament::config::{OpeningSource, RunConfig, TimeControl};
use mancala_arena::tournament::runner::{run, RunMode, RunPlan};
use mancala_arena::tournament::schedule::Format;

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("bench executable");
    // target/release/deps/harness-xxxx → target/release
    exe.parent()
        .and_then(|p| p.parent())
        .expect("target dir")
        .to_path_buf()
}

/// Median round trip of one line through `cat` over pipes (blocking I/O, no async runtime).
fn pipe_round_trip_us(lines: usize) -> f64 {
    let mut child = Command::new("cat")
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()
        .expect("cat");
    let mut stdin = child.stdin.take().expect("stdin");
    let mut stdout = BufReader::new(child.stdout.take().expect("stdout"));
    let mut line = String::new();
    let msg = b"position startpos moves 3 6 1 2 4 5 6 1 2 3\n";
    // Warm up.
    for _ in 0..100 {
        stdin.write_all(msg).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    // The median of single round trips: robust to the other load on a shared machine, like the
    // median turnaround it is compared with.
    let mut samples = Vec::with_capacity(lines);
    for _ in 0..lines {
        let started = Instant::now();
        stdin.write_all(msg).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
        samples.push(started.elapsed().as_secs_f64() * 1e6);
    }
    samples.sort_by(f64::total_cmp);
    let us = samples[lines / 2];
    drop(stdin);
    let _ = child.wait();
    us
}

fn config(pairs: u32, movetime: Option<u64>) -> RunConfig {
    let random = release_dir().join("mancala-random");
    assert!(
        random.exists(),
        "build the bots first: cargo build --release --workspace"
    );
    let bot = |name: &str| BotSpec {
        name: name.to_string(),
        program: Program::Exec {
            program: random.clone(),
            args: vec![],
        },
        dir: None,
        options: vec![],
        protocol: Default::default(),
    };
    RunConfig {
        name: "bench".into(),
        rules: Default::default(),
        players: vec![bot("a"), bot("b")],
        format: Format::RoundRobin,
        pairs,
        openings: OpeningSource::Random { plies: 2 },
        seed: 1,
        time: TimeControl {
            movetime_ms: movetime,
            margin_ms: 0,
            ..TimeControl::default()
        },
        adjudicate: false,
        max_start_failures: 3,
    }
}

/// Plays the run into a fresh temporary folder; returns the folder and the wall time.
fn play_in(cfg: &RunConfig, concurrency: usize, tag: &str) -> (std::path::PathBuf, f64) {
    let dir = std::env::temp_dir().join(format!("arena-bench-{tag}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let plan = RunPlan {
        config: cfg.clone(),
        concurrency,
        out: dir.clone(),
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    rt.block_on(run(&plan, &RunMode::default())).expect("run");
    (dir, started.elapsed().as_secs_f64())
}

/// Plays the run and returns its logs folder (kept for the caller).
fn play_keep_logs(cfg: &RunConfig, concurrency: usize) -> std::path::PathBuf {
    play_in(cfg, concurrency, "logs").0.join("logs")
}

/// Plays the run and returns (games, sows, wall seconds, time forfeits).
fn play(cfg: &RunConfig, concurrency: usize) -> (usize, u64, f64, usize) {
    let (dir, wall) = play_in(cfg, concurrency, &format!("{concurrency}-{}", cfg.pairs));
    let rows = read_games(&dir).unwrap();
    let sows: u64 = rows.iter().map(|r| u64::from(r.sows)).sum();
    let timeouts = rows
        .iter()
        .filter(|r| r.termination == Termination::Forfeit(FaultKind::Timeout))
        .count();
    let _ = std::fs::remove_dir_all(&dir);
    (rows.len(), sows, wall, timeouts)
}

/// Nanoseconds on CLOCK_MONOTONIC, comparable across processes.
fn now_ns() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: clock_gettime writes into the timespec we own.
    unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64
}

/// The minimal bot: blocking reads on one thread, the first legal move, timestamps on stderr.
fn null_bot() {
    use mancala_arena::rules::{Move, Position, Ruleset};
    let stdin = std::io::stdin();
    let mut out = std::io::stdout().lock();
    let mut err = std::io::stderr().lock();
    let mut ruleset = Ruleset::default();
    let mut pos = Position::new(ruleset);
    // Kept in memory and written at the end: writing to stderr per sow would wake the arena
    // (which drains the bot's stderr) in the middle of the measurement.
    let mut stamps: Vec<(u64, u64)> = Vec::new();
    let mut flush_stamps = |stamps: &mut Vec<(u64, u64)>| {
        for (g, b) in stamps.drain(..) {
            writeln!(err, "G {g}\nB {b}").unwrap();
        }
    };
    for line in stdin.lock().lines() {
        let Ok(line) = line else { break };
        let mut words = line.split_whitespace();
        match words.next() {
            Some("mancala") => writeln!(out, "id name null\nmancalaok").unwrap(),
            Some("isready") => writeln!(out, "readyok").unwrap(),
            Some("newgame") => {
                ruleset = words
                    .next()
                    .and_then(|r| r.parse().ok())
                    .unwrap_or_default()
            }
            Some("position") => {
                pos = Position::new(ruleset);
                for w in words.skip(2) {
                    if let Ok(mv) = w.parse::<Move>() {
                        pos.play_unchecked(mv);
                    }
                }
            }
            Some("go") => {
                let got_go = now_ns();
                let mv = pos.legal_moves()[0];
                // Stamped before the write: the pipe transfer belongs to the turnaround.
                let answered = now_ns();
                writeln!(out, "bestmove {mv}").unwrap();
                out.flush().unwrap();
                stamps.push((got_go, answered));
                continue;
            }
            Some("quit") => break,
            _ => {}
        }
        out.flush().unwrap();
    }
    flush_stamps(&mut stamps);
}

/// Turnarounds (µs) from the bots' logs: each `bestmove` to the next `go` of either bot.
fn turnarounds(logs: &std::path::Path) -> Vec<f64> {
    let mut events: Vec<(u64, bool)> = Vec::new();
    for entry in std::fs::read_dir(logs).unwrap() {
        let text = std::fs::read_to_string(entry.unwrap().path()).unwrap();
        for line in text.lines() {
            // A bot killed while writing its stamps leaves a torn last line: skip it.
            if let Some((kind, Ok(t))) = line.split_once(' ').map(|(k, t)| (k, t.parse())) {
                events.push((t, kind == "B"));
            }
        }
    }
    events.sort();
    events
        .windows(2)
        .filter(|w| w[0].1 && !w[1].1)
        .map(|w| (w[1].0 - w[0].0) as f64 / 1000.0)
        .collect()
}

fn main() {
    if std::env::var_os("ARENA_BENCH_BOT").is_some() {
        null_bot();
        return;
    }
    mancala_arena::engine::become_subreaper();
    let rtt = pipe_round_trip_us(20_000);
    println!("bare pipe round trip (cat, blocking), median: {rtt:.1} us");
    let mut cfg = config(500, None);
    let me = std::env::current_exe().unwrap();
    for p in &mut cfg.players {
        p.program = Program::Shell {
            command: format!("ARENA_BENCH_BOT=1 exec {}", me.display()),
        };
    }
    let logs = play_keep_logs(&cfg, 1);
    let mut t = turnarounds(&logs);
    let _ = std::fs::remove_dir_all(logs.parent().expect("run folder"));
    t.sort_by(f64::total_cmp);
    let median = t[t.len() / 2];
    println!(
        "arena turnaround per sow (bestmove written -> next go read, {} sows, concurrency 1): median {median:.1} us, p90 {:.1} us = {:.2}x the bare round trip",
        t.len(),
        t[t.len() * 9 / 10],
        median / rtt
    );
    for concurrency in [1, 2] {
        let (games, sows, wall, _) = play(&config(500, None), concurrency);
        let per_sow_us = wall * 1e6 / sows as f64 * concurrency as f64;
        println!(
            "concurrency {concurrency}: {games} games, {sows} sows in {wall:.2} s = {:.0} games/s; {per_sow_us:.1} us per sow per worker ({:.2}x the bare round trip)",
            games as f64 / wall,
            per_sow_us / rtt
        );
    }
    let games: u32 = std::env::var("HARNESS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let (played, _, wall, timeouts) = play(&config(games / 2, Some(10)), 2);
    println!("{played} games at 10 ms per sow (margin 0), concurrency 2: {timeouts} time forfeits, {wall:.1} s");
}
