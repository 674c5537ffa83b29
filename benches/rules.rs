//! Rules engine speed, one core: random playouts from the start position per second, and perft
//! nodes per second (every leaf is played, no bulk counting), for each ruleset.
//!
//! `cargo bench --bench rules`. Throughput is reported in elements: playouts for the playout
//! benches, leaf nodes for perft. Each perft bench asserts its count.

use criterion::{black_box, criterion_group, criterion_main, Criterion, Throughput};
use mancala_arena::rules::{perft, Position, Ruleset};
use rand::{Rng, SeedableRng};
use rand_xoshiro_like::Xorshift;

/// A tiny xorshift generator so the benchmark measures the rules, not the RNG.
mod rand_xoshiro_like {
    pub struct Xorshift(pub u64);
    impl Xorshift {
        #[inline(always)]
        pub fn below(&mut self, n: usize) -> usize {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            (((self.0 >> 32) * n as u64) >> 32) as usize
        }
    }
}

fn playout(start: &Position, rng: &mut Xorshift) -> u32 {
    let mut p = start.clone();
    while !p.is_over() {
        let moves = p.legal_moves();
        p.play_unchecked(moves[rng.below(moves.len())]);
    }
    p.store(mancala_arena::rules::Side::South)
}

fn benches(c: &mut Criterion) {
    let seed: u64 = rand_chacha::ChaCha8Rng::seed_from_u64(1).gen::<u64>() | 1;
    for (spec, depth, nodes) in [
        ("kalah", 9, 2_763_490u64),
        ("kalah:pits=4,seeds=3", 10, 0),
        ("oware", 7, 0),
        ("congkak", 6, 0),
    ] {
        let r: Ruleset = spec.parse().unwrap();
        let start = Position::new(r);
        let mut g = c.benchmark_group(spec.replace([':', ',', '='], "_"));
        g.throughput(Throughput::Elements(1000));
        let mut rng = Xorshift(seed);
        g.bench_function("1000_random_playouts", |b| {
            b.iter(|| {
                let mut acc = 0u32;
                for _ in 0..1000 {
                    acc = acc.wrapping_add(playout(black_box(&start), &mut rng));
                }
                acc
            })
        });
        let count = perft(&start, depth);
        if nodes != 0 {
            assert_eq!(count, nodes);
        }
        g.throughput(Throughput::Elements(count));
        g.sample_size(10);
        g.bench_function(format!("perft_{depth}"), |b| {
            b.iter(|| perft(black_box(&start), depth))
        });
        g.finish();
    }
}

criterion_group!(rules, benches);
criterion_main!(rules);
