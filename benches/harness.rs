//! The harness's own cost (issue 4): how much time the arena adds per sow beyond a bare pipe
//! round trip, games per second at concurrency 1 and 2 with instant bots, and time forfeits at
//! 10 ms per sow.
//!
//! `cargo bench --bench harness` (needs `cargo build --release --workspace` first for the bots).
//! Set `HARNESS_GAMES` to change the size of the forfeit run (default 10,000 games).

use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Command, Stdio};
use std::time::Instant;

use mancala_arena::engine::{BotSpec, Program};
use mancala_arena::tournament::config::{OpeningSource, RunConfig, TimeControl};
use mancala_arena::tournament::results::read_games;
use mancala_arena::tournament::runner::{run, RunOptions};
use mancala_arena::tournament::schedule::Format;

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("bench executable");
    // target/release/deps/harness-xxxx → target/release
    exe.parent()
        .and_then(|p| p.parent())
        .expect("target dir")
        .to_path_buf()
}

/// Mean round trip of one line through `cat` over pipes (blocking I/O, no async runtime).
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
    let started = Instant::now();
    for _ in 0..lines {
        stdin.write_all(msg).unwrap();
        stdin.flush().unwrap();
        line.clear();
        stdout.read_line(&mut line).unwrap();
    }
    let us = started.elapsed().as_secs_f64() * 1e6 / lines as f64;
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
    };
    RunConfig {
        name: "bench".into(),
        rules: "kalah".into(),
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
        bootstrap: 0,
    }
}

/// Plays the run and returns (games, sows, wall seconds, time forfeits).
fn play(cfg: &RunConfig, concurrency: usize) -> (usize, u64, f64, usize) {
    let dir = std::env::temp_dir().join(format!(
        "arena-bench-{}-{concurrency}-{}",
        std::process::id(),
        cfg.pairs
    ));
    let _ = std::fs::remove_dir_all(&dir);
    let opts = RunOptions {
        dir: dir.clone(),
        concurrency,
        resume: false,
        shard: None,
        progress: false,
    };
    let rt = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .unwrap();
    let started = Instant::now();
    rt.block_on(run(cfg, &opts)).expect("run");
    let wall = started.elapsed().as_secs_f64();
    let rows = read_games(&dir).unwrap();
    let sows: u64 = rows.iter().map(|r| u64::from(r.sows)).sum();
    let timeouts = rows.iter().filter(|r| r.termination == "timeout").count();
    let _ = std::fs::remove_dir_all(&dir);
    (rows.len(), sows, wall, timeouts)
}

fn main() {
    mancala_arena::engine::become_subreaper();
    let rtt = pipe_round_trip_us(20_000);
    println!("bare pipe round trip (cat, blocking): {rtt:.1} us");
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
