//! Bootstrap confidence intervals, rank probabilities and the likelihood-of-superiority
//! matrix for the joint fit.
//!
//! Stratified by encounter, on sufficient statistics: every encounter keeps its number of
//! colour-swapped game pairs, drawn from the encounter's own pairs with replacement. Drawing
//! `P` pairs with replacement from an encounter is drawing its 3×3 table of (result with the
//! first player first, result with the other first) from a multinomial with the observed
//! frequencies, so each resample costs one multinomial per encounter, not one draw per game.
//! Games outside a pair (an odd game) are resampled the same way per ordered cell (a trinomial).
//! Keeping the pair together keeps the correlation of its two games (same opening); keeping
//! each encounter's size keeps the design of the schedule (a round robin stays a round robin).
//! Each resample is refitted with Newton's method warm-started from the point estimate and
//! anchored like it. Intervals are percentile intervals (Efron & Tibshirani 1993, §13.3) with
//! linearly interpolated quantiles (Hyndman & Fan type 7).
//!
//! Randomness comes from the caller's [`ChaCha8Rng`]: one seed per resample is drawn from it
//! first, so the result is the same whatever the number of threads.

use super::fit::{anchored, Anchor, FitConfig, Model, Ratings};
use super::{check_level, GameTable, RatingError, ELO_SCALE};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Binomial, Distribution};
use serde::Serialize;

/// Settings of the bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapConfig {
    /// Number of resamples, ≥ 2. Default 1000.
    pub samples: usize,
    /// Interval level in (0, 1). Default 0.95.
    pub level: f64,
    /// Worker threads; 0: one per core.
    pub threads: usize,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            samples: 1000,
            level: 0.95,
            threads: 0,
        }
    }
}

/// A two-sided interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Interval {
    /// Lower end.
    pub low: f64,
    /// Upper end.
    pub high: f64,
}

impl Interval {
    /// Whether `x` lies in `[low, high]`.
    pub fn contains(&self, x: f64) -> bool {
        self.low <= x && x <= self.high
    }
}

/// How the intervals were drawn.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum IntervalMethod {
    /// Draws from the posterior of the fit ([`crate::posterior`]): the default.
    #[default]
    Posterior,
    /// The pair bootstrap of this module.
    Bootstrap,
}

impl IntervalMethod {
    /// The name `--intervals` takes and `summary.json` writes.
    pub fn as_str(self) -> &'static str {
        match self {
            IntervalMethod::Posterior => "posterior",
            IntervalMethod::Bootstrap => "bootstrap",
        }
    }
}

impl std::str::FromStr for IntervalMethod {
    type Err = RatingError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "posterior" => Ok(IntervalMethod::Posterior),
            "bootstrap" => Ok(IntervalMethod::Bootstrap),
            _ => Err(RatingError::InvalidConfig(format!(
                "unknown interval method `{s}`: posterior or bootstrap"
            ))),
        }
    }
}

/// What the bootstrap (or the posterior's draws) found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapSummary {
    /// Where the samples came from.
    pub method: IntervalMethod,
    /// Resamples that were fitted.
    pub samples: usize,
    /// Resamples whose fit failed (not used).
    pub failed: usize,
    /// Interval level.
    pub level: f64,
    /// Percentile interval per player rating (anchored).
    pub ratings: Vec<Interval>,
    /// Bootstrap standard deviation per player rating.
    pub se: Vec<f64>,
    /// The anchored Elo draws, player by player (`draws[i * samples + s]`): what
    /// [`BootstrapSummary::difference`] reads. Kept rather than every pair's interval, which
    /// took a sort per pair (minutes and n² intervals for a thousand players).
    #[serde(skip)]
    draws: Vec<f64>,
    /// Percentile interval of the first-mover advantage (Elo).
    pub advantage: Interval,
    /// `rank_probabilities[i][r]`: probability that player `i` has rank `r` (0 = best).
    pub rank_probabilities: Vec<Vec<f64>>,
    /// `los[i][j]`: bootstrap probability that `elo_i > elo_j` (ties count half).
    pub los: Vec<Vec<f64>>,
}

impl BootstrapSummary {
    /// P(player `i` is rank 1).
    pub fn p_first(&self, i: usize) -> f64 {
        self.rank_probabilities[i][0]
    }

    /// Percentile interval of `elo_i − elo_j` over the draws.
    pub fn difference(&self, i: usize, j: usize) -> Interval {
        let b = self.samples;
        let (x, y) = (
            &self.draws[i * b..(i + 1) * b],
            &self.draws[j * b..(j + 1) * b],
        );
        let mut d: Vec<f64> = x.iter().zip(y).map(|(a, c)| a - c).collect();
        interval(&mut d, self.level)
    }
}

/// The `q`-quantile of sorted data, linear interpolation (type 7).
pub(crate) fn quantile_sorted(sorted: &[f64], q: f64) -> f64 {
    if sorted.is_empty() {
        return f64::NAN;
    }
    let h = (sorted.len() - 1) as f64 * q;
    let lo = h.floor() as usize;
    let hi = h.ceil() as usize;
    sorted[lo] + (h - lo as f64) * (sorted[hi] - sorted[lo])
}

fn interval(values: &mut [f64], level: f64) -> Interval {
    values.sort_by(f64::total_cmp);
    Interval {
        low: quantile_sorted(values, 0.5 - level / 2.0),
        high: quantile_sorted(values, 0.5 + level / 2.0),
    }
}

/// Draws `n` items from categories of weights `weights` (summing to `total`): the multinomial
/// as a chain of binomials. Adds each category's count to `out`.
fn multinomial(n: u64, weights: &[u64], total: u64, rng: &mut ChaCha8Rng, out: &mut [u64]) {
    let (mut left, mut mass) = (n, total);
    for (k, &w) in weights.iter().enumerate() {
        if left == 0 || mass == 0 {
            break;
        }
        let x = if w == mass {
            left
        } else if w == 0 {
            0
        } else {
            Binomial::new(left, w as f64 / mass as f64).map_or(0, |b| b.sample(rng))
        };
        out[k] += x;
        left -= x;
        mass -= w;
    }
}

/// Strata smaller than this are pooled into one (see [`resample`]).
const MIN_STRATUM: u64 = 3;

/// One resample's W/D/L counts per cell (parallel to `table.cells()`).
///
/// The strata are the encounters' pairs and each cell's loose games. Rao and Wu's rescaling: a
/// stratum of `n` units is resampled as `n − 1` draws, each weighted `n/(n − 1)`; drawing all `n`
/// would give it only `(n − 1)/n` of its variance, a quarter too little at 4 pairs per
/// encounter. Strata of fewer than [`MIN_STRATUM`] units (one or two pairs: a single draw of
/// one pair, doubled, is too coarse to say anything) are pooled into one stratum.
fn resample(table: &GameTable, rng: &mut ChaCha8Rng) -> Vec<[f64; 3]> {
    let mut counts = vec![[0.0f64; 3]; table.cells().len()];
    // Where each category of the pooled stratum goes: (cell, outcome) for a loose game, two of
    // them for a pair.
    let mut pooled_weights: Vec<u64> = Vec::new();
    let mut pooled_to: Vec<[(usize, usize); 2]> = Vec::new();
    let mut drawn = [0u64; 9];
    for (c, loose) in table.loose().iter().enumerate() {
        let n: u64 = loose.iter().sum();
        if n >= MIN_STRATUM {
            let weight = rescaled(n, loose, rng, &mut drawn[..3]);
            for (k, &x) in drawn[..3].iter().enumerate() {
                counts[c][k] += weight * x as f64;
            }
        } else if n > 0 {
            pooled_weights.extend_from_slice(loose);
            pooled_to.extend((0..3).map(|k| [(c, k), (usize::MAX, 0)]));
        }
    }
    for block in table.blocks() {
        let weights: Vec<u64> = block.joint.iter().flatten().copied().collect();
        let to = |k: usize| [(block.cell_ab, k / 3), (block.cell_ba, k % 3)];
        if block.pairs() >= MIN_STRATUM {
            let weight = rescaled(block.pairs(), &weights, rng, &mut drawn);
            for (k, &x) in drawn.iter().enumerate() {
                for (c, o) in to(k) {
                    counts[c][o] += weight * x as f64;
                }
            }
        } else {
            pooled_weights.extend_from_slice(&weights);
            pooled_to.extend((0..9).map(to));
        }
    }
    let n: u64 = pooled_weights.iter().sum();
    if n > 0 {
        let mut drawn = vec![0u64; pooled_weights.len()];
        let weight = rescaled(n, &pooled_weights, rng, &mut drawn);
        for (k, &x) in drawn.iter().enumerate() {
            for (c, o) in pooled_to[k] {
                if c != usize::MAX {
                    counts[c][o] += weight * x as f64;
                }
            }
        }
    }
    counts
}

/// Draws a stratum of `n` units with category counts `weights` into `drawn` (overwritten), as
/// `n − 1` draws when `n ≥ 2`; returns the weight of each drawn unit.
fn rescaled(n: u64, weights: &[u64], rng: &mut ChaCha8Rng, drawn: &mut [u64]) -> f64 {
    drawn.fill(0);
    if n >= 2 {
        multinomial(n - 1, weights, n, rng, drawn);
        n as f64 / (n - 1) as f64
    } else {
        multinomial(n, weights, n, rng, drawn);
        1.0
    }
}

/// Resamples `config.samples` times and refits each.
///
/// `point` must be the result of [`super::fit::fit`] on the same `table` with `fit_config`.
pub fn bootstrap(
    table: &GameTable,
    point: &Ratings,
    fit_config: &FitConfig,
    config: &BootstrapConfig,
    rng: &mut ChaCha8Rng,
) -> Result<BootstrapSummary, RatingError> {
    let n = table.players();
    fit_config.validate(n)?;
    check_level(config.level)?;
    if config.samples < 2 {
        return Err(RatingError::InvalidConfig(format!(
            "bootstrap needs at least 2 samples, got {}",
            config.samples
        )));
    }
    if point.raw.len() != n + 1 {
        return Err(RatingError::InvalidConfig(
            "the point estimate does not belong to this table".into(),
        ));
    }
    let model = Model::new(table, fit_config);
    let seeds: Vec<u64> = (0..config.samples).map(|_| rng.gen()).collect();
    let threads = match config.threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    }
    .clamp(1, config.samples);
    // Each worker takes every `threads`-th resample; results are put back in resample order.
    let fits: Vec<Option<Vec<f64>>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                let (model, seeds) = (&model, &seeds);
                scope.spawn(move || {
                    seeds
                        .iter()
                        .skip(w)
                        .step_by(threads)
                        .map(|&seed| {
                            let counts = resample(table, &mut ChaCha8Rng::seed_from_u64(seed));
                            model.refit(table, &counts, &point.raw).ok()
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let parts: Vec<Vec<Option<Vec<f64>>>> = workers
            .into_iter()
            .map(|h| h.join().unwrap_or_default())
            .collect();
        (0..config.samples)
            .map(|k| parts[k % threads].get(k / threads).cloned().flatten())
            .collect()
    });
    summarise(
        &fits,
        n,
        &fit_config.anchor,
        config.level,
        IntervalMethod::Bootstrap,
    )
}

/// Percentile intervals, standard deviations, LOS and rank probabilities from draws of the raw
/// parameters (`None`: a draw that failed, counted and left out), anchored with `anchor`.
pub(crate) fn summarise(
    fits: &[Option<Vec<f64>>],
    n: usize,
    anchor: &Anchor,
    level: f64,
    method: IntervalMethod,
) -> Result<BootstrapSummary, RatingError> {
    // samples[b * n + i]
    let mut elo_samples: Vec<f64> = Vec::with_capacity(fits.len() * n);
    let mut adv = Vec::with_capacity(fits.len());
    let mut failed = 0;
    for raw in fits {
        match raw {
            Some(raw) => {
                elo_samples.extend(anchored(raw, n, anchor));
                adv.push(raw[n] / ELO_SCALE);
            }
            None => failed += 1,
        }
    }
    let b = adv.len();
    if b < 2 {
        return Err(RatingError::NoConvergence { iterations: 0 });
    }
    // Player-major, so that each player's draws (and each pair's) are contiguous.
    let mut draws = vec![0.0; n * b];
    for (s, row) in elo_samples.chunks_exact(n).enumerate() {
        for (i, &x) in row.iter().enumerate() {
            draws[i * b + s] = x;
        }
    }
    let mut ratings = Vec::with_capacity(n);
    let mut se = Vec::with_capacity(n);
    let mut column = vec![0.0; b];
    for i in 0..n {
        column.copy_from_slice(&draws[i * b..(i + 1) * b]);
        let mean = column.iter().sum::<f64>() / b as f64;
        let var = column.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (b - 1) as f64;
        se.push(var.sqrt());
        ratings.push(interval(&mut column, level));
    }
    // LOS of every pair (summary.json holds the matrix): a count per pair, no sort.
    let mut los = vec![vec![0.5; n]; n];
    for i in 0..n {
        let x = &draws[i * b..(i + 1) * b];
        for j in i + 1..n {
            let y = &draws[j * b..(j + 1) * b];
            let halves: u64 = x
                .iter()
                .zip(y)
                .map(|(a, c)| 2 * u64::from(a > c) + u64::from(a == c))
                .sum();
            los[i][j] = halves as f64 / (2 * b) as f64;
            los[j][i] = 1.0 - los[i][j];
        }
    }
    let mut rank_counts = vec![vec![0usize; n]; n];
    let mut idx: Vec<usize> = (0..n).collect();
    for s in 0..b {
        let row = &elo_samples[s * n..(s + 1) * n];
        idx.sort_by(|&x, &y| row[y].total_cmp(&row[x]).then(x.cmp(&y)));
        for (r, &i) in idx.iter().enumerate() {
            rank_counts[i][r] += 1;
        }
    }
    let rank_probabilities = rank_counts
        .into_iter()
        .map(|row| row.into_iter().map(|c| c as f64 / b as f64).collect())
        .collect();
    Ok(BootstrapSummary {
        method,
        samples: b,
        failed,
        level,
        ratings,
        se,
        draws,
        advantage: interval(&mut adv, level),
        rank_probabilities,
        los,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::fit;
    use crate::{Outcome, RatedGame};

    #[test]
    fn a_resample_without_a_finite_fit_is_counted_not_followed_to_infinity() {
        // A hub plays a balanced encounter with one spoke and three pairs with another, which
        // scores one point: a resample that leaves that point out has no maximum-likelihood fit.
        let mut games = Vec::new();
        let mut pair = 0;
        let mut add = |first, second, outcome| {
            games.push(RatedGame {
                pair: pair / 2,
                first,
                second,
                outcome,
            });
            pair += 1;
        };
        for k in 0..40 {
            let o = if k % 3 == 0 {
                Outcome::Draw
            } else if k % 2 == 0 {
                Outcome::Win
            } else {
                Outcome::Loss
            };
            add(0, 1, o);
            add(1, 0, o);
        }
        for k in 0..3 {
            add(0, 2, Outcome::Win);
            add(2, 0, if k == 0 { Outcome::Win } else { Outcome::Loss });
        }
        let table = GameTable::new(3, &games).unwrap();
        let config = FitConfig {
            prior: 0.0,
            ..FitConfig::default()
        };
        let point = fit(&table, &config).unwrap();
        let b = bootstrap(
            &table,
            &point,
            &config,
            &BootstrapConfig {
                samples: 400,
                threads: 1,
                ..BootstrapConfig::default()
            },
            &mut ChaCha8Rng::seed_from_u64(4),
        )
        .unwrap();
        assert!(b.failed > 50, "{} failed", b.failed);
        assert_eq!(b.samples + b.failed, 400);
        for iv in &b.ratings {
            assert!(iv.low > -1000.0 && iv.high < 3400.0, "{iv:?}");
        }
    }
}
