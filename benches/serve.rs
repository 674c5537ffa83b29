//! What watching costs (issue 17): the arena's time per sow for instant bots with and without a
//! dashboard open on the run, and `arena serve`'s memory on a run folder of 100,000 games.
//!
//! `cargo build --release --workspace && cargo bench --bench serve` (it runs
//! `target/release/arena` and the bundled random bot). `SERVE_BENCH_PAIRS` sets the size of the
//! timed runs (default 400 pairs, 800 games), `SERVE_BENCH_GAMES` the size of the big folder
//! (default 100,000).
//!
//! "A dashboard open" is what a browser showing the run page does: `arena serve` on the results
//! folder, and a client asking `/api/run` every second (the page's poll) and `/api/runs` every
//! two seconds (the runs page's), each request a new connection. The runs are played with and
//! without it, alternately, three times each; the figures are medians. Memory is the server's
//! resident set (VmRSS) and its peak (VmHWM) from /proc after it has shown the big run's page
//! (every game read, rated with the bootstrap) and a game of it.

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use mancala_arena::engine::{BotSpec, Program};
use mancala_arena::rating::Outcome;
use mancala_arena::rules::{Position, Ruleset, Side};
use mancala_arena::run_folder::games::{read_games, GameRecord, GameRow, ResultsWriter};
use mancala_arena::run_folder::{RunFile, RunKind};
use mancala_arena::session::Session;
use mancala_arena::tournament::config::{OpeningSource, RunConfig, TimeControl};
use mancala_arena::tournament::runner::RunMode;
use mancala_arena::tournament::schedule::{pairings, Format};
use mancala_arena::vocab::RunPlan;

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("bench executable");
    exe.parent()
        .and_then(|p| p.parent())
        .expect("target dir")
        .to_path_buf()
}

fn config(players: usize, pairs: u32) -> RunConfig {
    let random = release_dir().join("mancala-random");
    assert!(
        random.exists() && release_dir().join("arena").exists(),
        "build first: cargo build --release --workspace"
    );
    RunConfig {
        name: "bench".into(),
        rules: Ruleset::default(),
        players: (0..players)
            .map(|i| BotSpec {
                name: format!("random-{i}"),
                program: Program::Exec {
                    program: random.clone(),
                    args: vec![],
                },
                dir: None,
                options: vec![],
                protocol: Default::default(),
                sandbox: false,
                memory: None,
                time_by: None,
                kgp_missing_move: Default::default(),
            })
            .collect(),
        format: Format::RoundRobin,
        pairs,
        openings: OpeningSource::Random { plies: 2 },
        seed: 1,
        time: TimeControl::default(),
        adjudicate: false,
        max_start_failures: 3,
    }
}

/// `arena serve ROOT` on a free port; the process and its address.
fn start_server(root: &Path) -> (Child, String) {
    let mut child = Command::new(release_dir().join("arena"))
        .args([
            "serve",
            &root.display().to_string(),
            "--bind",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("arena serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .trim_start_matches("listening on http://")
        .trim_end_matches('/')
        .to_string();
    (child, addr)
}

/// One GET; the response's length (0 if the server did not answer).
fn get(addr: &str, target: &str) -> usize {
    let Ok(mut s) = TcpStream::connect(addr) else {
        return 0;
    };
    let _ = write!(
        s,
        "GET {target} HTTP/1.1\r\nHost: {addr}\r\nConnection: close\r\n\r\n"
    );
    let mut out = Vec::new();
    let _ = s.read_to_end(&mut out);
    out.len()
}

/// Plays `pairs` pairs of two instant random bots into `root/run`, with or without a watcher;
/// returns µs per sow.
fn timed_run(root: &Path, pairs: u32, watch: bool) -> f64 {
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root).unwrap();
    let server = watch.then(|| start_server(root));
    let stop = Arc::new(AtomicBool::new(false));
    let poller = server.as_ref().map(|(_, addr)| {
        let (addr, stop) = (addr.clone(), stop.clone());
        std::thread::spawn(move || {
            let mut tick = 0u64;
            while !stop.load(Ordering::Relaxed) {
                get(&addr, "/api/run?id=run&v=0");
                if tick % 2 == 0 {
                    get(&addr, "/api/runs");
                }
                tick += 1;
                std::thread::sleep(Duration::from_secs(1));
            }
        })
    });
    let plan = RunPlan {
        config: config(2, pairs),
        concurrency: 1,
        out: root.join("run"),
    };
    let started = Instant::now();
    Session::open(plan.clone(), RunMode::default())
        .and_then(|session| session.play(&mut []))
        .expect("run");
    let wall = started.elapsed().as_secs_f64();
    stop.store(true, Ordering::Relaxed);
    if let Some(p) = poller {
        p.join().unwrap();
    }
    if let Some((mut child, _)) = server {
        let _ = child.kill();
        let _ = child.wait();
    }
    let sows: u64 = read_games(&plan.out)
        .unwrap()
        .iter()
        .map(|r| u64::from(r.sows))
        .sum();
    wall * 1e6 / sows as f64
}

/// A finished run folder of `games` random games among 10 players, written directly.
fn big_folder(dir: &Path, games: usize) -> usize {
    let _ = std::fs::remove_dir_all(dir);
    std::fs::create_dir_all(dir).unwrap();
    let players = 10;
    let pairs = games.div_ceil(players * (players - 1)) as u32;
    let cfg = config(players, pairs);
    RunFile::new(RunKind::Tournament, cfg.clone(), None)
        .write(dir)
        .unwrap();
    let mut writer = ResultsWriter::open(dir).unwrap();
    let mut rng = ChaCha8Rng::seed_from_u64(7);
    let rules = Ruleset::default();
    let schedule = pairings(players, &cfg.format, pairs);
    for g in &schedule {
        let mut pos = Position::new(rules);
        let mut moves = Vec::new();
        let mut movers = Vec::new();
        while let Some(side) = pos.to_move() {
            let legal: Vec<_> = pos.legal_moves().iter().copied().collect();
            let mv = *legal.choose(&mut rng).unwrap();
            pos.play_unchecked(mv);
            moves.push(mv);
            movers.push(u8::from(side == Side::North));
        }
        let r = pos.result().unwrap();
        let (a, b) = (r.score.south, r.score.north);
        let think_ms: Vec<u64> = moves.iter().map(|_| rng.gen_range(0..30)).collect();
        let row = GameRow {
            game_id: g.game_id,
            pair_id: g.pair_id,
            round: g.round,
            first: cfg.players[g.first].name.clone(),
            second: cfg.players[g.second].name.clone(),
            rules,
            result: match a.cmp(&b) {
                std::cmp::Ordering::Greater => Outcome::Win,
                std::cmp::Ordering::Less => Outcome::Loss,
                std::cmp::Ordering::Equal => Outcome::Draw,
            },
            score_first: a,
            score_second: b,
            sows: moves.len() as u32,
            detail: r.end.as_str().to_string(),
            wall_ms: think_ms.iter().sum(),
            ..GameRow::blank()
        };
        writer
            .append(&GameRecord {
                row,
                moves,
                think_ms,
                movers,
                cpu_ms: Vec::new(),
                random: Vec::new(),
            })
            .unwrap();
    }
    schedule.len()
}

fn proc_kib(pid: u32, key: &str) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap()
        .lines()
        .find_map(|l| l.strip_prefix(key))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or(0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    mancala_arena::engine::become_subreaper();
    let env = |k: &str, d: usize| {
        std::env::var(k)
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(d)
    };
    let tmp = std::env::temp_dir().join(format!("arena-bench-serve-{}", std::process::id()));
    let pairs = env("SERVE_BENCH_PAIRS", 400) as u32;
    let (mut without, mut with) = (Vec::new(), Vec::new());
    for _ in 0..3 {
        without.push(timed_run(&tmp.join("quiet"), pairs, false));
        with.push(timed_run(&tmp.join("watched"), pairs, true));
    }
    let (a, b) = (median(without.clone()), median(with.clone()));
    println!(
        "time per sow, 2 instant random bots, {} games at concurrency 1 (median of 3): \
         without a dashboard {a:.1} us, with one open {b:.1} us ({:+.1}%); runs {:?} / {:?}",
        2 * pairs,
        100.0 * (b - a) / a,
        without
            .iter()
            .map(|x| format!("{x:.1}"))
            .collect::<Vec<_>>(),
        with.iter().map(|x| format!("{x:.1}")).collect::<Vec<_>>()
    );

    let games = env("SERVE_BENCH_GAMES", 100_000);
    let root = tmp.join("big-root");
    let made = Instant::now();
    let n = big_folder(&root.join("big"), games);
    let size = |f: &str| std::fs::metadata(root.join("big").join(f)).map_or(0, |m| m.len());
    println!(
        "synthetic folder: {n} games, games.csv {:.1} MB, games.jsonl {:.1} MB (written in {:.1} s)",
        size("games.csv") as f64 / 1e6,
        size("games.jsonl") as f64 / 1e6,
        made.elapsed().as_secs_f64()
    );
    let (mut child, addr) = start_server(&root);
    let pid = child.id();
    println!("server idle: VmRSS {} KiB", proc_kib(pid, "VmRSS:"));
    let t = Instant::now();
    let bytes = get(&addr, "/run?id=big");
    println!(
        "first run page (reads {n} games, rates them with the bootstrap): {:.2} s, {bytes} bytes",
        t.elapsed().as_secs_f64()
    );
    let t = Instant::now();
    get(&addr, "/run?id=big");
    println!(
        "run page again (cached): {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    let t = Instant::now();
    get(&addr, "/api/run?id=big&v=0");
    println!("its poll: {:.1} ms", t.elapsed().as_secs_f64() * 1e3);
    let t = Instant::now();
    get(&addr, &format!("/game?run=big&id={}", n - 1));
    println!(
        "a game in the viewer: {:.1} ms",
        t.elapsed().as_secs_f64() * 1e3
    );
    println!(
        "server memory on {n} games: VmRSS {:.1} MiB, peak VmHWM {:.1} MiB",
        proc_kib(pid, "VmRSS:") as f64 / 1024.0,
        proc_kib(pid, "VmHWM:") as f64 / 1024.0
    );
    let _ = child.kill();
    let _ = child.wait();
    let _ = std::fs::remove_dir_all(&tmp);
}
