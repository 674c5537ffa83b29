//! The rating pipeline at the size of a big run: 100 players, 1,000,000 games (500,000
//! colour-swapped pairs between random players), 1000 posterior draws, everything
//! `rating::analyse` does (fit, intervals, LOS, pairwise table, ladder).
//!
//! `cargo run --release -p mancala-rating --example rate_million [PLAYERS] [GAMES] [SAMPLES]`
//!
//! Prints the wall time of each stage and the total. Deterministic data (seeded), so runs on
//! different code compare the same work.

use std::time::Instant;

use mancala_rating::fit::probabilities;
use mancala_rating::{analyse, GameTable, Outcome, RatedGame, RatingConfig};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn main() {
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("a number"))
        .collect();
    let players = args.first().copied().unwrap_or(100);
    let games = args.get(1).copied().unwrap_or(1_000_000);
    let samples = args.get(2).copied().unwrap_or(1000);
    let truth: Vec<f64> = (0..players).map(|i| 10.0 * i as f64).collect();
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let t0 = Instant::now();
    let mut g = Vec::with_capacity(games);
    for pair in 0..(games / 2) as u64 {
        let a = rng.gen_range(0..players);
        let b = (a + rng.gen_range(1..players)) % players;
        for (first, second) in [(a, b), (b, a)] {
            let [w, d, _] = probabilities(truth[first] - truth[second] + 35.0, 0.2);
            let u: f64 = rng.gen();
            let outcome = if u < w {
                Outcome::Win
            } else if u < w + d {
                Outcome::Draw
            } else {
                Outcome::Loss
            };
            g.push(RatedGame {
                pair,
                first,
                second,
                outcome,
            });
        }
    }
    let simulated = t0.elapsed().as_secs_f64();
    let names: Vec<String> = (0..players).map(|i| format!("p{i}")).collect();
    let t1 = Instant::now();
    let table = GameTable::new(players, &g).expect("table");
    let aggregated = t1.elapsed().as_secs_f64();
    let config = RatingConfig {
        bootstrap: samples,
        ..RatingConfig::default()
    };
    let t2 = Instant::now();
    let report = analyse(&names, &g, &config, &mut rng).expect("analyse");
    let analysed = t2.elapsed().as_secs_f64();
    let boot = report
        .boot
        .as_ref()
        .map_or((0, 0), |b| (b.samples, b.failed));
    println!(
        "{players} players, {} games, {samples} resamples: simulate {simulated:.2}s (not counted), \
         table alone {aggregated:.2}s, analyse (table + fit + intervals + pairwise + ladder) {analysed:.2}s; \
         {} resamples fitted, {} failed; {} cores",
        g.len(),
        boot.0,
        boot.1,
        std::thread::available_parallelism().map_or(1, |n| n.get())
    );
    let _ = table;
}
