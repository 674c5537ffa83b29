//! Bootstrap confidence intervals, rank probabilities and the likelihood-of-superiority
//! matrix for the joint fit.
//!
//! The resampling unit is the GAME PAIR (all games sharing a `pair` id), drawn with
//! replacement as many times as there are pairs, so the correlation between the two games
//! of a colour-swapped pair (same opening) is kept. Each resample is refitted with Newton's
//! method warm-started from the point estimate (a handful of iterations), and anchored like
//! the point estimate. Intervals are percentile intervals (Efron & Tibshirani 1993, §13.3)
//! with linearly interpolated quantiles (Hyndman & Fan type 7).
//!
//! Randomness comes from the caller's [`ChaCha8Rng`]; the same stream gives the same result.

use super::fit::{anchored, float_counts, FitConfig, Objective, Ratings};
use super::{check_level, GameTable, RatingError, ELO_SCALE};
use rand::Rng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

/// Settings of the bootstrap.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct BootstrapConfig {
    /// Number of resamples, ≥ 2. Default 1000.
    pub samples: usize,
    /// Interval level in (0, 1). Default 0.95.
    pub level: f64,
}

impl Default for BootstrapConfig {
    fn default() -> Self {
        BootstrapConfig {
            samples: 1000,
            level: 0.95,
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

/// What the bootstrap found.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct BootstrapSummary {
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
    /// `differences[i][j]`: percentile interval of `elo_i − elo_j`.
    pub differences: Vec<Vec<Interval>>,
    /// Percentile interval of the first-mover advantage (Elo).
    pub advantage: Interval,
    /// Percentile interval of Davidson's ν.
    pub draw_nu: Interval,
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

/// Resamples game pairs `config.samples` times and refits each.
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
    if point.raw.len() != n + 2 {
        return Err(RatingError::InvalidConfig(
            "the point estimate does not belong to this table".into(),
        ));
    }
    let obj = Objective {
        n,
        cells: table.cells(),
        use_adv: fit_config.first_move_advantage,
        prior_games: fit_config.prior_games,
    };
    let units = table.units();
    let base = float_counts(table);
    let mut counts = vec![[0.0f64; 3]; base.len()];
    let unit_type = table.unit_type();
    let mut type_draws = vec![0u32; table.unit_types()];
    // samples[b * n + i]
    let mut elo_samples: Vec<f64> = Vec::with_capacity(config.samples * n);
    let mut adv = Vec::with_capacity(config.samples);
    let mut nu = Vec::with_capacity(config.samples);
    let mut failed = 0;
    let mut p = point.raw.clone();
    for _ in 0..config.samples {
        counts.iter_mut().for_each(|c| *c = [0.0; 3]);
        type_draws.iter_mut().for_each(|c| *c = 0);
        for _ in 0..units {
            type_draws[unit_type[rng.gen_range(0..units)] as usize] += 1;
        }
        for (t, &k) in type_draws.iter().enumerate() {
            if k > 0 {
                for &(c, o) in table.type_games(t) {
                    counts[c as usize][o as usize] += k as f64;
                }
            }
        }
        p.copy_from_slice(&point.raw);
        match obj.maximize(&counts, &mut p) {
            Ok(_) => {
                elo_samples.extend(anchored(&p, n, fit_config.anchor));
                adv.push(p[n] / ELO_SCALE);
                nu.push(p[n + 1].exp());
            }
            Err(_) => failed += 1,
        }
    }
    let b = adv.len();
    if b < 2 {
        return Err(RatingError::NoConvergence { iterations: 0 });
    }
    let mut ratings = Vec::with_capacity(n);
    let mut se = Vec::with_capacity(n);
    let mut column = vec![0.0; b];
    for i in 0..n {
        for (s, x) in column.iter_mut().enumerate() {
            *x = elo_samples[s * n + i];
        }
        let mean = column.iter().sum::<f64>() / b as f64;
        let var = column.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (b - 1) as f64;
        se.push(var.sqrt());
        ratings.push(interval(&mut column, config.level));
    }
    let mut differences = vec![
        vec![
            Interval {
                low: 0.0,
                high: 0.0
            };
            n
        ];
        n
    ];
    let mut los = vec![vec![0.5; n]; n];
    for i in 0..n {
        for j in i + 1..n {
            let mut wins = 0.0;
            for (s, x) in column.iter_mut().enumerate() {
                *x = elo_samples[s * n + i] - elo_samples[s * n + j];
                wins += if *x > 0.0 {
                    1.0
                } else if *x == 0.0 {
                    0.5
                } else {
                    0.0
                };
            }
            let iv = interval(&mut column, config.level);
            differences[i][j] = iv;
            differences[j][i] = Interval {
                low: -iv.high,
                high: -iv.low,
            };
            los[i][j] = wins / b as f64;
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
        samples: b,
        failed,
        level: config.level,
        ratings,
        se,
        differences,
        advantage: interval(&mut adv, config.level),
        draw_nu: interval(&mut nu, config.level),
        rank_probabilities,
        los,
    })
}
