//! Where the Hard level errs: plays Hard against Easy and Normal in-process on Kalah(6,4)
//! (two random opening sows, colours alternating), proves every Hard sow with the exact solver
//! and prints Hard's mistake rate and seeds lost per game by seeds left in the pits, with
//! Hard's CPU time per sow. A development tool beside `arena analyse` (which gives the
//! documented figures): it needs no harness and shows *where* the mistakes are.
//!
//! `cargo run --release -p mancala-bots --example hard_mistakes -- GAMES [SEED] [K] [NAME=VALUE]...`
//! (K: the judging database, loaded from the solver's cache folder or built; default 22;
//! `NAME=VALUE`: options for Hard, e.g. `EvalStore=11`; `nodes=N` gives Hard `go nodes N`).

use std::sync::atomic::AtomicU64;
use std::sync::Arc;
use std::time::Duration;

use mancala_bots::alphabeta::AlphaBetaBot;
use mancala_bots::engine_loop::{Bot, Search};
use mancala_protocol::GoLimits;
use mancala_rules::{Move, Position, Ruleset};
use mancala_solver::{db, BoardSpec, Db, Solver};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// CPU time of this thread (Linux: `/proc/thread-self/schedstat`, nanoseconds on the CPU).
fn cpu() -> Duration {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").unwrap_or_default();
    Duration::from_nanos(
        s.split(' ')
            .next()
            .and_then(|n| n.parse().ok())
            .unwrap_or(0),
    )
}

fn bot(level: &str) -> AlphaBetaBot {
    let mut b = AlphaBetaBot::default();
    b.set_option("Level", level).unwrap();
    b
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let games: u64 = args.get(1).map_or(20, |a| a.parse().expect("GAMES"));
    let seed: u64 = args.get(2).map_or(1, |a| a.parse().expect("SEED"));
    let k: usize = args.get(3).map_or(22, |a| a.parse().expect("K"));
    let mut hard_options: Vec<(String, String)> = Vec::new();
    let mut go_nodes = None;
    for a in args.iter().skip(4) {
        let (name, value) = a.split_once('=').expect("NAME=VALUE");
        if name == "nodes" {
            go_nodes = Some(value.parse::<u64>().expect("nodes=N"));
        } else {
            hard_options.push((name.into(), value.into()));
        }
    }
    let ruleset = Ruleset::kalah(6, 4);
    let spec = BoardSpec::from_ruleset(&ruleset).unwrap();
    let judge_db = Arc::new(Db::load_or_build(spec, k, db::default_dir().as_deref()));
    let mut judge = Solver::new(spec, 1024, Some(judge_db));
    // Buckets of seeds left in the pits: 0-7, 8-15, ..., 40-47.
    let mut sows = [0u32; 6];
    let mut mistakes = [0u32; 6];
    let mut lost = [0i64; 6];
    // By Hard's sow number in the game (1, 2, 3, 4, 5+): sows, mistakes.
    let mut by_sow = [[0u32; 2]; 5];
    let (mut unproven, mut hard_cpu, mut hard_moves) = (0u32, Duration::ZERO, 0u32);
    let (mut score, mut max_cpu) = (0.0f64, Duration::ZERO);
    for g in 0..games {
        let opp_level = if g % 4 < 2 { "Easy" } else { "Normal" };
        let hard_south = g % 2 == 0;
        let mut hard = bot("Hard");
        for (name, value) in &hard_options {
            hard.set_option(name, value).unwrap();
        }
        let mut opp = bot(opp_level);
        hard.new_game(ruleset, seed * 1000 + g);
        opp.new_game(ruleset, seed * 1000 + g);
        let mut rng = ChaCha8Rng::seed_from_u64(seed * 7919 + g / 2);
        let mut pos = Position::new(ruleset);
        for _ in 0..2 {
            let mv = *pos.legal_moves().choose(&mut rng).unwrap();
            pos.play(mv).unwrap();
        }
        let mut judged: Vec<(Position, Move)> = Vec::new();
        while !pos.is_over() {
            let south = pos.to_move() == Some(mancala_rules::Side::South);
            let stop = AtomicU64::new(0);
            let mut out = Vec::new();
            let hard_turn = south == hard_south;
            let limits = GoLimits {
                nodes: go_nodes.filter(|_| hard_turn),
                ..GoLimits::default()
            };
            let mut search = Search::new(limits, &stop, &mut out);
            let mv = if hard_turn {
                let t0 = cpu();
                let mv = hard.think(&pos, &mut search);
                let t = cpu() - t0;
                hard_cpu += t;
                max_cpu = max_cpu.max(t);
                hard_moves += 1;
                judged.push((pos.clone(), mv));
                mv
            } else {
                opp.think(&pos, &mut search)
            };
            pos.play(mv).unwrap();
        }
        let south_diff = pos.board().store(mancala_rules::Side::South) as i32
            - pos.board().store(mancala_rules::Side::North) as i32;
        let d = if hard_south { south_diff } else { -south_diff };
        score += if d > 0 {
            1.0
        } else if d == 0 {
            0.5
        } else {
            0.0
        };
        for (nth, (p, mv)) in judged.into_iter().enumerate() {
            let (b, _) = spec.board_of(p.board()).unwrap();
            let bucket = (b.seeds() as usize / 8).min(5);
            let Move::Pit(pit) = mv else { continue };
            judge.reset_nodes();
            let mut abort = |n: u64| n >= 20_000_000;
            let Some(v) = judge.solve(&b, 0, &mut abort) else {
                unproven += 1;
                continue;
            };
            let Some(got) = judge.move_value(&b, pit as usize - 1, v, &mut abort) else {
                unproven += 1;
                continue;
            };
            sows[bucket] += 1;
            by_sow[nth.min(4)][0] += 1;
            by_sow[nth.min(4)][1] += u32::from(got < v);
            if got < v {
                mistakes[bucket] += 1;
                lost[bucket] += i64::from(v - got);
            }
        }
        eprint!(".");
    }
    eprintln!();
    println!("seeds in pits | sows | mistakes | rate | seeds lost / game");
    for i in 0..6 {
        println!(
            "{:>2}-{:<2} | {:>5} | {:>4} | {:>5.1} % | {:.2}",
            i * 8,
            i * 8 + 7,
            sows[i],
            mistakes[i],
            100.0 * f64::from(mistakes[i]) / f64::from(sows[i].max(1)),
            lost[i] as f64 / games as f64
        );
    }
    for (i, [s, m]) in by_sow.iter().enumerate() {
        println!(
            "Hard's sow {}{}: {m} mistakes in {s}",
            i + 1,
            if i == 4 { "+" } else { "" }
        );
    }
    let (s, m): (u32, u32) = (sows.iter().sum(), mistakes.iter().sum());
    let p = f64::from(m) / f64::from(s.max(1));
    println!(
        "all | {s} | {m} | {:.2} % ± {:.2} | {:.2} seeds lost / game | {unproven} unproven",
        100.0 * p,
        100.0 * (p * (1.0 - p) / f64::from(s.max(1))).sqrt(),
        lost.iter().sum::<i64>() as f64 / games as f64
    );
    println!(
        "Hard: score {:.1} / {games}; CPU per sow {:.1} ms mean, {:.1} ms max ({hard_moves} sows)",
        score,
        hard_cpu.as_secs_f64() * 1000.0 / f64::from(hard_moves.max(1)),
        max_cpu.as_secs_f64() * 1000.0
    );
}
