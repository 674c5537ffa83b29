//! What the Elo certificate (`bands.elo.example.toml`, docs/regression-testing.md) costs: the
//! gate's games for the four settings `Elo=800/1100/1400/1700` against the site's levels
//! (easy 897.78, normal 1261.08, hard 1685.44), each level simulated at a true Elo (`gate::sim`),
//! for a band `±TOLERANCE` and a margin, with the share of runs that pass, and the games against
//! each reference player (the costly ones are against Hard and of the strongest setting).
//!
//! `cargo run --release -p mancala-rating --example elo_gate_cost -- [TOLERANCE] [MARGIN] [OFFSET]
//! [RUNS] [MAX_PAIRS]`: OFFSET puts every level's truth that far from its target (Elo).

use mancala_rating::gate::sim::{run, SimLevel};
use mancala_rating::gate::{Band, GateSettings, LevelGate, Verdict};

fn main() {
    let arg = |i: usize, default: f64| -> f64 {
        std::env::args()
            .nth(i)
            .and_then(|a| a.parse().ok())
            .unwrap_or(default)
    };
    let tolerance = arg(1, 40.0);
    let margin = arg(2, tolerance / 2.0);
    let offset = arg(3, 0.0);
    let runs = arg(4, 400.0) as usize;
    let max_pairs = arg(5, 300.0) as u32;
    let pool = [897.78, 1261.08, 1685.44];
    let targets = [800.0, 1100.0, 1400.0, 1700.0];
    let settings = GateSettings {
        margin: Some(margin),
        first_move_advantage: 20.0,
        ..GateSettings::default()
    };
    println!(
        "band ±{tolerance}, margin {margin}, truth = target {offset:+}, {runs} runs, at most {max_pairs} pairs per reference player"
    );
    println!(
        "level   pass   fail  undecided  mean games  (per reference player: pairs)  p90 games"
    );
    for (i, &target) in targets.iter().enumerate() {
        let band = Band {
            elo: target,
            tolerance,
        };
        let mut games: Vec<u64> = Vec::with_capacity(runs);
        let (mut pass, mut fail, mut undecided) = (0, 0, 0);
        for r in 0..runs {
            let mut gate = LevelGate::new(band, &pool, &settings, targets.len()).unwrap();
            let mut level = SimLevel::new(target + offset, pool.to_vec(), (i * 100_000 + r) as u64);
            level.first_move_advantage = 20.0;
            level.draw_share = 0.1;
            let (verdict, pairs) = run(&mut gate, &mut level, max_pairs);
            match verdict {
                Verdict::Inside => pass += 1,
                Verdict::Below | Verdict::Above => fail += 1,
                Verdict::Undecided => undecided += 1,
            }
            games.push(2 * pairs);
        }
        games.sort_unstable();
        let mean = games.iter().sum::<u64>() as f64 / runs as f64;
        println!(
            "{target:>5}  {:>5.3}  {:>5.3}  {:>9}  {mean:>10.0}  ({:>6.0})  {:>9}",
            pass as f64 / runs as f64,
            fail as f64 / runs as f64,
            undecided,
            mean / 2.0 / pool.len() as f64,
            games[runs * 9 / 10]
        );
    }
}
