//! The harness's own cost (issue 20): the arena's and the bots' CPU time per sow against a bare
//! C pipe round trip measured in the same moments, wall time per sow at concurrency 1 and 2
//! against the same run's round trip, and time forfeits at 10 ms per sow.
//!
//! `cargo bench --bench harness` (needs `cargo build --release --workspace` first for the arena
//! and the bots, and a C compiler for `benches/c/pingpong.c`). Set `HARNESS_WINDOWS` (default 5),
//! `HARNESS_GAMES` (the forfeit run, default 10,000 games) and `HARNESS_ARENA` (another build's
//! `arena` binary, with its bundled bots beside it, to measure it the same way).
//!
//! Method: `arena run` with the bundled random bot (it answers at once) plays a long match at
//! concurrency 1 in a process of its own. The benchmark samples, over windows of 4 s, the CPU
//! time (`/proc/PID/task/*/schedstat`, nanoseconds, every thread) of the arena and of its bots,
//! and the sows finished (from `games.csv`); between windows it stops the arena (`SIGSTOP`; the
//! bots wait in `read`) and runs the C ping-pong for 2 s, so each ratio compares figures taken
//! moments apart on a machine whose syscall and wake-up costs drift.

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use mancala_arena::engine::{parent_of, FaultKind};
use mancala_arena::engine::{BotSpec, Program};
use mancala_arena::run_folder::games::read_games;
use mancala_arena::run_folder::Termination;
use mancala_arena::session::Session;
use mancala_arena::tournament::config::{OpeningSource, RunConfig, TimeControl};
use mancala_arena::tournament::runner::RunMode;
use mancala_arena::tournament::schedule::Format;
use mancala_arena::vocab::RunPlan;

fn release_dir() -> PathBuf {
    let exe = std::env::current_exe().expect("bench executable");
    // target/release/deps/harness-xxxx → target/release
    exe.parent()
        .and_then(|p| p.parent())
        .expect("target dir")
        .to_path_buf()
}

/// One C ping-pong sample: round trips, wall seconds, CPU seconds of both processes.
struct PingPong {
    trips: f64,
    wall: f64,
    cpu: f64,
}

impl PingPong {
    fn cpu_us(&self) -> f64 {
        self.cpu / self.trips * 1e6
    }
    fn wall_us(&self) -> f64 {
        self.wall / self.trips * 1e6
    }
}

/// Builds `benches/c/pingpong.c` with the system compiler; `None` (and the reason printed) if
/// there is none.
fn build_pingpong() -> Option<PathBuf> {
    let source = Path::new(env!("CARGO_MANIFEST_DIR")).join("benches/c/pingpong.c");
    let out = release_dir().join("pingpong");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    match Command::new(&cc)
        .arg("-O2")
        .arg("-o")
        .arg(&out)
        .arg(&source)
        .status()
    {
        Ok(s) if s.success() => Some(out),
        other => {
            println!(
                "skipped the C round trip: `{cc}` could not build {} ({other:?})",
                source.display()
            );
            None
        }
    }
}

fn pingpong(bin: &Path, seconds: f64) -> PingPong {
    let out = Command::new(bin)
        .arg(seconds.to_string())
        .output()
        .expect("pingpong");
    let text = String::from_utf8_lossy(&out.stdout);
    let f: Vec<f64> = text
        .split_whitespace()
        .map(|w| w.parse().expect("a number"))
        .collect();
    assert_eq!(f.len(), 4, "pingpong printed `{text}`");
    PingPong {
        trips: f[0],
        wall: f[1],
        cpu: f[2] + f[3],
    }
}

/// Nanoseconds of CPU time used so far by every thread of `pid` (0 once it is gone).
fn cpu_ns(pid: u32) -> u64 {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return 0;
    };
    tasks
        .flatten()
        .filter_map(|t| std::fs::read_to_string(t.path().join("schedstat")).ok())
        .filter_map(|s| s.split_whitespace().next()?.parse::<u64>().ok())
        .sum()
}

/// The processes whose parent is `pid`: the arena's bots.
fn children(pid: u32) -> Vec<u32> {
    std::fs::read_dir("/proc")
        .expect("/proc")
        .flatten()
        .filter_map(|entry| entry.file_name().to_str()?.parse::<u32>().ok())
        .filter(|&child| parent_of(child) == Some(pid))
        .collect()
}

/// Sows of the games finished so far in a run folder.
fn sows_done(dir: &Path) -> u64 {
    read_games(dir)
        .map(|rows| rows.iter().map(|r| u64::from(r.sows)).sum())
        .unwrap_or(0)
}

/// A long `arena run` of two instant bots in a process of its own.
struct ArenaRun {
    child: Child,
    dir: PathBuf,
}

impl ArenaRun {
    fn start(concurrency: usize) -> ArenaRun {
        let arena = std::env::var_os("HARNESS_ARENA")
            .map_or_else(|| release_dir().join("arena"), PathBuf::from);
        assert!(
            arena.exists(),
            "build first: cargo build --release --workspace"
        );
        let dir = std::env::temp_dir().join(format!(
            "arena-bench-cpu-{concurrency}-{}",
            std::process::id()
        ));
        let _ = std::fs::remove_dir_all(&dir);
        let child = Command::new(arena)
            .args([
                "run",
                "--bot",
                "name=a",
                "bundled=random",
                "--bot",
                "name=b",
                "bundled=random",
            ])
            .args([
                "--pairs",
                "1000000",
                "--concurrency",
                &concurrency.to_string(),
                "--quiet",
            ])
            .arg("--out")
            .arg(&dir)
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .expect("arena run");
        let run = ArenaRun { child, dir };
        let started = Instant::now();
        while sows_done(&run.dir) == 0 {
            assert!(
                started.elapsed() < Duration::from_secs(30),
                "the arena run did not start"
            );
            std::thread::sleep(Duration::from_millis(100));
        }
        run
    }

    fn pid(&self) -> u32 {
        self.child.id()
    }

    fn signal(&self, signal: libc::c_int) {
        // SAFETY: kill(2) on our own child; no memory is involved.
        unsafe { libc::kill(self.pid() as libc::pid_t, signal) };
    }

    /// CPU used over `window` by the arena and by its bots, and the sows finished meanwhile.
    fn window(&self, window: Duration) -> (f64, f64, u64, f64) {
        let bots = children(self.pid());
        let bots_cpu = || bots.iter().map(|&b| cpu_ns(b)).sum::<u64>();
        let (a0, b0, s0, t0) = (
            cpu_ns(self.pid()),
            bots_cpu(),
            sows_done(&self.dir),
            Instant::now(),
        );
        std::thread::sleep(window);
        let (a1, b1, s1) = (cpu_ns(self.pid()), bots_cpu(), sows_done(&self.dir));
        let wall = t0.elapsed().as_secs_f64();
        (
            (a1 - a0) as f64 * 1e-9,
            (b1 - b0) as f64 * 1e-9,
            s1 - s0,
            wall,
        )
    }
}

impl Drop for ArenaRun {
    fn drop(&mut self) {
        self.signal(libc::SIGCONT);
        self.signal(libc::SIGTERM);
        let _ = self.child.wait();
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

/// The CPU windows at concurrency 1, each followed by a C ping-pong.
fn cpu_per_sow(pingpong_bin: Option<&Path>, windows: usize) {
    println!("CPU per sow, concurrency 1, instant bundled random bots; each line one 4 s window, then 2 s of C ping-pong with the arena stopped:");
    let arena = ArenaRun::start(1);
    let mut ratios = Vec::new();
    for _ in 0..windows {
        let (arena_cpu, bots_cpu, sows, wall) = arena.window(Duration::from_secs(4));
        let (a, b, w) = (
            arena_cpu / sows as f64 * 1e6,
            bots_cpu / sows as f64 * 1e6,
            wall / sows as f64 * 1e6,
        );
        let Some(bin) = pingpong_bin else {
            println!(
                "  {sows} sows: arena {a:.2} us CPU/sow, bots {b:.2} us CPU/go, wall {w:.2} us/sow"
            );
            continue;
        };
        arena.signal(libc::SIGSTOP);
        let c = pingpong(bin, 2.0);
        arena.signal(libc::SIGCONT);
        let (rt_cpu, rt_wall) = (c.cpu_us(), c.wall_us());
        ratios.push((a / rt_cpu, b / rt_cpu, w / rt_wall));
        println!(
            "  {sows} sows: arena {a:.2} us CPU/sow = {:.2}x, bots {b:.2} us CPU/go = {:.2}x the C round trip's {rt_cpu:.2} us CPU (both processes); wall {w:.2} us/sow = {:.2}x its {rt_wall:.2} us",
            a / rt_cpu,
            b / rt_cpu,
            w / rt_wall
        );
    }
    if !ratios.is_empty() {
        let median = |f: fn(&(f64, f64, f64)) -> f64| {
            let mut v: Vec<f64> = ratios.iter().map(f).collect();
            v.sort_by(f64::total_cmp);
            v[v.len() / 2]
        };
        println!(
            "  median of {} windows: arena {:.2}x, bots {:.2}x the round trip's CPU; wall {:.2}x its wall",
            ratios.len(),
            median(|r| r.0),
            median(|r| r.1),
            median(|r| r.2)
        );
    }
}

/// Wall time per sow at `concurrency` against the round trip measured just after.
fn wall_per_sow(pingpong_bin: Option<&Path>, concurrency: usize) {
    let arena = ArenaRun::start(concurrency);
    let (_, _, sows, wall) = arena.window(Duration::from_secs(4));
    drop(arena);
    let per_sow = wall / sows as f64 * 1e6;
    let per_worker = per_sow * concurrency as f64;
    let rt = pingpong_bin.map(|bin| pingpong(bin, 2.0).wall_us());
    let vs = |us: f64| {
        rt.map_or(String::new(), |rt| {
            format!(" = {:.2}x the round trip's {rt:.2} us", us / rt)
        })
    };
    println!(
        "concurrency {concurrency}: {sows} sows in {wall:.1} s: {per_sow:.2} us wall per sow{}; {per_worker:.2} us per sow per worker{}",
        vs(per_sow),
        vs(per_worker)
    );
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
        sandbox: false,
        memory: None,
        time_by: None,
        kgp_missing_move: Default::default(),
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
    let started = Instant::now();
    Session::open(plan, RunMode::default())
        .and_then(|session| session.play(&mut []))
        .expect("run");
    (dir, started.elapsed().as_secs_f64())
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

fn main() {
    mancala_arena::engine::become_subreaper();
    let pingpong_bin = build_pingpong();
    let windows = std::env::var("HARNESS_WINDOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(5);
    cpu_per_sow(pingpong_bin.as_deref(), windows);
    for concurrency in [1, 2] {
        wall_per_sow(pingpong_bin.as_deref(), concurrency);
    }
    let games: u32 = std::env::var("HARNESS_GAMES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(10_000);
    let (played, _, wall, timeouts) = play(&config(games / 2, Some(10)), 2);
    println!("{played} games at 10 ms per sow (margin 0), concurrency 2: {timeouts} time forfeits, {wall:.1} s");
}
