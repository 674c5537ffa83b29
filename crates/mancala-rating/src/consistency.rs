//! Are shards (or workers, or machines) telling the same story? A chi-squared test of each
//! shard's points against what the joint fit of all shards predicts, in the spirit of
//! fishtest's per-worker residuals: a broken machine (a slow core forfeiting on time, a bad
//! binary) shows up as a shard that scores far from the model.
//!
//! For shard `s`, `z_s = (O_s − E_s) / √V_s`, where `O_s` is the first players' points in its
//! games, `E_s` their sum of expected scores under the fitted model and `V_s` the sum of the
//! per-game score variances. `Σ z_s²` is compared with a χ² distribution with `S − 1` degrees of
//! freedom (the model was fitted on the same games, so one degree is used up: an approximation,
//! conservative for our purpose). Formulas in docs/statistics.md.

use serde::Serialize;
use statrs::distribution::{ChiSquared, ContinuousCDF};

use super::fit::Ratings;
use super::RatedGame;

/// One shard's residual.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ShardResidual {
    pub shard: usize,
    pub games: usize,
    pub observed: f64,
    pub expected: f64,
    pub z: f64,
}

/// The test over all shards.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Consistency {
    pub shards: Vec<ShardResidual>,
    pub chi2: f64,
    pub df: usize,
    /// P(χ² ≥ observed) if all shards follow the same model; tiny means a shard is off.
    pub p_value: f64,
}

/// Tests `games_by_shard` (each a list of games of one shard) against `ratings`, a fit of all
/// of them together. Shards without games are skipped.
pub fn shard_consistency(games_by_shard: &[Vec<RatedGame>], ratings: &Ratings) -> Consistency {
    let mut shards = Vec::new();
    for (s, games) in games_by_shard.iter().enumerate() {
        if games.is_empty() {
            continue;
        }
        let (mut observed, mut expected, mut variance) = (0.0, 0.0, 0.0);
        for g in games {
            let [w, d, _] = ratings.predict(g.first, g.second);
            let e = w + 0.5 * d;
            observed += g.outcome.score();
            expected += e;
            variance += w + 0.25 * d - e * e;
        }
        let z = if variance > 0.0 {
            (observed - expected) / variance.sqrt()
        } else {
            0.0
        };
        shards.push(ShardResidual {
            shard: s,
            games: games.len(),
            observed,
            expected,
            z,
        });
    }
    let chi2: f64 = shards.iter().map(|r| r.z * r.z).sum();
    let df = shards.len().saturating_sub(1);
    let p_value = if df == 0 {
        1.0
    } else {
        ChiSquared::new(df as f64)
            .map(|c| 1.0 - c.cdf(chi2))
            .unwrap_or(f64::NAN)
    };
    Consistency {
        shards,
        chi2,
        df,
        p_value,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::{fit, FitConfig};
    use crate::{GameTable, Outcome};
    use rand::{Rng, SeedableRng};

    fn simulate(seed: u64, shards: usize, broken: Option<usize>) -> Consistency {
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
        let strength = [0.0, 100.0, 200.0];
        let mut by_shard = vec![Vec::new(); shards];
        let mut all = Vec::new();
        for pair in 0..3000u64 {
            let (a, b) = ((pair % 3) as usize, ((pair + 1) % 3) as usize);
            let s = (pair as usize) % shards;
            for (first, second) in [(a, b), (b, a)] {
                let mut p = 1.0 / (1.0 + 10f64.powf((strength[second] - strength[first]) / 400.0));
                if broken == Some(s) {
                    // A broken machine: the first player forfeits a fifth of its games.
                    p *= 0.8;
                }
                let outcome = if rng.gen::<f64>() < p {
                    Outcome::Win
                } else {
                    Outcome::Loss
                };
                let g = RatedGame {
                    pair,
                    first,
                    second,
                    outcome,
                };
                by_shard[s].push(g);
                all.push(g);
            }
        }
        let ratings = fit(&GameTable::new(3, &all).unwrap(), &FitConfig::default()).unwrap();
        shard_consistency(&by_shard, &ratings)
    }

    #[test]
    fn healthy_shards_pass_and_a_broken_one_is_flagged() {
        let healthy = simulate(1, 4, None);
        assert!(healthy.p_value > 0.01, "{healthy:?}");
        let broken = simulate(1, 4, Some(2));
        assert!(broken.p_value < 1e-6, "{broken:?}");
        let worst = broken
            .shards
            .iter()
            .max_by(|a, b| a.z.abs().total_cmp(&b.z.abs()))
            .unwrap();
        assert_eq!(worst.shard, 2);
    }
}
