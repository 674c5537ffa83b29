//! Rules engine speed on one core, for before/after comparisons that criterion makes slow:
//! `cargo run --release --example rules_speed -- [RULESET] [PLAYOUTS] [PERFT_DEPTH] [REPEATS]`
//! (defaults `kalah 1000000 9 5`). Pin it to one core (`taskset -c 1`) and read the best and
//! median of the repeats: other processes on the machine only ever make a run slower.
//!
//! Playouts: from the start position, pick uniformly among `legal_moves()` with a xorshift64
//! generator (what a bot's random playout does, without a heavyweight RNG), play until the end.
//! Perft: `rules::perft`, every leaf played (no bulk counting). Both are deterministic, so the
//! same binary under `valgrind --tool=callgrind` gives repeatable instruction counts.
//!
//! Each rate is given twice: per wall-clock second, and per second of this thread's CPU time
//! (`CLOCK_THREAD_CPUTIME_ID`). On a loaded machine the core is shared and the wall rate drops;
//! the CPU-time rate only counts the time the thread actually ran, so it stays close to the
//! unloaded figure (cache pollution by the other processes aside).

use std::hint::black_box;
use std::time::Instant;

use mancala_arena::rules::{perft, Position, Ruleset, Side};

/// xorshift64; `below(n)` by multiply-shift (no division).
struct Xorshift(u64);

impl Xorshift {
    #[inline(always)]
    fn below(&mut self, n: usize) -> usize {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (((self.0 >> 32) * n as u64) >> 32) as usize
    }
}

/// Plays one random game; returns its sow count.
fn playout(start: &Position, rng: &mut Xorshift) -> u32 {
    let mut p = start.clone();
    while !p.is_over() {
        let moves = p.legal_moves();
        p.play_unchecked(moves[rng.below(moves.len())]);
    }
    black_box(p.store(Side::South));
    p.sows()
}

/// Seconds of CPU time this thread has used.
fn thread_cpu_secs() -> f64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec.
    unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    ts.tv_sec as f64 + ts.tv_nsec as f64 * 1e-9
}

/// Runs `f` (which returns how many items it did) and returns (items/wall s, items/CPU s).
fn rate(f: impl FnOnce() -> u64) -> (f64, f64) {
    let (t, c) = (Instant::now(), thread_cpu_secs());
    let items = f() as f64;
    (
        items / t.elapsed().as_secs_f64(),
        items / (thread_cpu_secs() - c),
    )
}

fn summary(name: &str, unit: &str, runs: &[(f64, f64)]) {
    let wall = runs.iter().map(|r| r.0).collect();
    let cpu = runs.iter().map(|r| r.1).collect();
    line(&format!("{name} wall"), unit, wall);
    line(&format!("{name} cpu "), unit, cpu);
}

fn line(name: &str, unit: &str, mut rates: Vec<f64>) {
    rates.sort_by(|a, b| b.partial_cmp(a).unwrap());
    let best = rates[0];
    let median = rates[rates.len() / 2];
    let all: Vec<String> = rates.iter().map(|r| format!("{:.2}", r / 1e6)).collect();
    println!(
        "{name}: best {:.3} M{unit}/s, median {:.3} M{unit}/s  (all: {})",
        best / 1e6,
        median / 1e6,
        all.join(" ")
    );
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let rules: Ruleset = args
        .first()
        .map_or("kalah", String::as_str)
        .parse()
        .expect("ruleset");
    let playouts: u64 = args.get(1).map_or(1_000_000, |s| s.parse().unwrap());
    let depth: u32 = args.get(2).map_or(9, |s| s.parse().unwrap());
    let repeats: usize = args.get(3).map_or(5, |s| s.parse().unwrap());
    let start = Position::new(rules);
    println!("{rules}: {playouts} playouts, perft {depth}, {repeats} repeats");

    let mut runs = Vec::new();
    let mut rng = Xorshift(0x9E37_79B9_7F4A_7C15);
    let mut sows = 0u64;
    for _ in 0..repeats {
        runs.push(rate(|| {
            for _ in 0..playouts {
                sows += playout(black_box(&start), &mut rng) as u64;
            }
            playouts
        }));
    }
    if playouts > 0 {
        let per = sows as f64 / (playouts * repeats as u64) as f64;
        summary(&format!("playouts ({per:.1} sows each)"), "", &runs);
    }

    let mut runs = Vec::new();
    let mut nodes = 0;
    for _ in 0..repeats {
        runs.push(rate(|| {
            nodes = perft(black_box(&start), depth);
            nodes
        }));
    }
    if depth > 0 {
        summary(&format!("perft {depth} ({nodes} leaves)"), " nodes", &runs);
    }
}
