//! Simulated sequential tests on margins, for the benchmark of `docs/statistics.md` §5a and the
//! tests: pairs drawn from recorded pairs of real games (resampled with replacement) or from the
//! normal link itself, the same pairs fed to the margin test and to the pentanomial one.

use rand::Rng;
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use super::{MarginPair, MarginSprt, MarginTally};
use crate::pairwise::PentaCounts;
use crate::sprt::{Sprt, SprtResult};

/// Where a simulated run's pairs come from.
pub trait PairSource {
    fn pair(&mut self, rng: &mut ChaCha8Rng) -> MarginPair;
}

/// Recorded pairs, drawn with replacement.
#[derive(Clone, Debug)]
pub struct Resample {
    pub pairs: Vec<MarginPair>,
}

impl PairSource for Resample {
    fn pair(&mut self, rng: &mut ChaCha8Rng) -> MarginPair {
        self.pairs[rng.gen_range(0..self.pairs.len())]
    }
}

/// The normal link's own model: the opening shifts the first mover's margin by `v ~ N(0,
/// opening_sd²)` in both games of a pair, each game adds `N(0, game_sd²)`, margins are rounded
/// to even numbers and clipped to `±max`.
#[derive(Clone, Copy, Debug)]
pub struct NormalPairs {
    pub delta: f64,
    pub advantage: f64,
    pub opening_sd: f64,
    pub game_sd: f64,
    pub max: f64,
}

impl PairSource for NormalPairs {
    fn pair(&mut self, rng: &mut ChaCha8Rng) -> MarginPair {
        let unit = Normal::new(0.0, 1.0).expect("sd 1");
        let v = self.opening_sd * unit.sample(rng);
        let even = |x: f64| (2.0 * (x / 2.0).round()).clamp(-self.max, self.max);
        MarginPair {
            first: even(self.delta + self.advantage + v + self.game_sd * unit.sample(rng)),
            second: even(self.delta - self.advantage - v + self.game_sd * unit.sample(rng)),
        }
    }
}

/// The test a run uses.
#[derive(Clone, Copy, Debug)]
pub enum Test {
    /// The margin GSPRT.
    Margin(MarginSprt),
    /// The pentanomial GSPRT on the pairs' scores.
    Pentanomial(Sprt),
}

/// How one simulated run ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Run {
    pub result: SprtResult,
    pub pairs: u64,
}

/// Plays pairs from `source` until `test` decides or `max_pairs` are spent.
pub fn run(test: &Test, source: &mut dyn PairSource, max_pairs: u64, rng: &mut ChaCha8Rng) -> Run {
    let mut tally = match test {
        Test::Margin(t) => t.tally(),
        Test::Pentanomial(_) => MarginTally::default(),
    };
    let mut penta = PentaCounts::default();
    for k in 1..=max_pairs {
        let p = source.pair(rng);
        let result = match test {
            Test::Margin(t) => {
                tally.add(p);
                t.status(&tally).status.result
            }
            Test::Pentanomial(t) => {
                penta.add((4.0 * p.score()).round() as u8);
                t.status(&penta).result
            }
        };
        if result != SprtResult::Continue {
            return Run { result, pairs: k };
        }
    }
    Run {
        result: SprtResult::Continue,
        pairs: max_pairs,
    }
}

/// What `runs` runs of one test found: decisions and pairs.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Summary {
    pub runs: u64,
    pub h0: u64,
    pub h1: u64,
    pub undecided: u64,
    /// Pairs per run, sorted.
    pub pairs: Vec<u64>,
}

impl Summary {
    /// Mean pairs per run.
    pub fn mean_pairs(&self) -> f64 {
        self.pairs.iter().sum::<u64>() as f64 / self.pairs.len().max(1) as f64
    }

    /// Median pairs per run.
    pub fn median_pairs(&self) -> f64 {
        let n = self.pairs.len();
        if n == 0 {
            return 0.0;
        }
        if n % 2 == 1 {
            self.pairs[n / 2] as f64
        } else {
            (self.pairs[n / 2 - 1] + self.pairs[n / 2]) as f64 / 2.0
        }
    }
}

/// `runs` runs of `test` on pairs of `source`, run `k` seeded with `seed + k` (so two tests given
/// the same seed see the same pairs in the same order).
pub fn many(
    test: &Test,
    source: &mut dyn PairSource,
    runs: u64,
    max_pairs: u64,
    seed: u64,
) -> Summary {
    use rand::SeedableRng;
    let mut out = Summary {
        runs,
        ..Summary::default()
    };
    for k in 0..runs {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(k));
        let r = run(test, source, max_pairs, &mut rng);
        match r.result {
            SprtResult::AcceptH0 => out.h0 += 1,
            SprtResult::AcceptH1 => out.h1 += 1,
            SprtResult::Continue => out.undecided += 1,
        }
        out.pairs.push(r.pairs);
    }
    out.pairs.sort_unstable();
    out
}

/// Wilson's 95 % interval of a binomial proportion `k/n` (for the error rates' table).
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let (k, n) = (k as f64, n as f64);
    let z = 1.959963984540054;
    let p = k / n;
    let centre = (p + z * z / (2.0 * n)) / (1.0 + z * z / n);
    let half = z * (p * (1.0 - p) / n + z * z / (4.0 * n * n)).sqrt() / (1.0 + z * z / n);
    ((centre - half).max(0.0), (centre + half).min(1.0))
}
