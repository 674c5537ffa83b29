//! Everything the arena says about a set of games, in one pure call: the joint fit, its bootstrap,
//! LOS between every two players, the first-mover advantage, the pairwise table and the site's
//! ladder. [`analyse`] returns numbers; the arena's `report/` formats them and `run_folder/`
//! writes them (`ratings.csv`, `pairwise.csv`, `ladder.csv`, `summary.json`).

use std::collections::HashSet;

use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::bootstrap::{bootstrap, BootstrapConfig, BootstrapSummary, IntervalMethod};
use crate::fit::{fit, Anchor, FitConfig, Ratings};
use crate::ladder::{run_ladder, LadderConfig, LadderTrack};
use crate::pairwise::{pairwise_table, PairwiseEntry};
use crate::posterior::{posterior, Diagnostics};
use crate::rows::{pairwise_rows, rating_rows, PairwiseRow, RatingRow};
use crate::{normal_cdf, GameTable, RatedGame, RatingError};

/// How to rate.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingConfig {
    /// Where the scale is pinned (default: the pool's mean is 1200).
    pub anchor: Anchor,
    /// Confidence level of every interval, in (0, 1).
    pub level: f64,
    /// Samples of the intervals (posterior draws or bootstrap resamples over game pairs);
    /// fewer than 2: normal (sandwich) intervals only.
    pub bootstrap: usize,
    /// Where the intervals' samples come from (default: the posterior).
    pub intervals: IntervalMethod,
    /// The site ladder's K-factor.
    pub k: f64,
    /// Virtual draws per player (BayesElo's prior; 0: the plain maximum-likelihood fit).
    pub prior: f64,
}

impl Default for RatingConfig {
    fn default() -> Self {
        RatingConfig {
            anchor: Anchor::default(),
            level: 0.95,
            bootstrap: 1000,
            intervals: IntervalMethod::default(),
            k: 32.0,
            prior: 2.0,
        }
    }
}

/// The first mover's advantage with its interval (bootstrap if run, else normal).
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct FirstMove {
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Share of points the first player scored over all games.
    pub first_player_score: f64,
}

/// What [`analyse`] found.
#[derive(Clone, Debug)]
pub struct RatingReport {
    pub names: Vec<String>,
    pub games: usize,
    pub game_pairs: usize,
    pub config: RatingConfig,
    pub ratings: Ratings,
    pub boot: Option<BootstrapSummary>,
    /// The sampler's diagnostics when the intervals came from the posterior.
    pub posterior: Option<Diagnostics>,
    /// `ratings.csv`'s rows, best first.
    pub rows: Vec<RatingRow>,
    pub first_move: FirstMove,
    /// `los[i][j]`: probability that player i is stronger than player j (bootstrap, else
    /// normal), players in `names` order.
    pub los: Vec<Vec<f64>>,
    pub pairwise: Vec<PairwiseEntry>,
    /// `pairwise.csv`'s rows.
    pub pairwise_rows: Vec<PairwiseRow>,
    /// The site ladder per player, in `names` order.
    pub ladder: Vec<LadderTrack>,
    /// The fit's warnings, in words (with player names).
    pub warnings: Vec<String>,
}

/// Rates `games` among `names` (game player indices point into it). `rng` draws the bootstrap
/// resamples; the same stream gives the same intervals.
pub fn analyse(
    names: &[String],
    games: &[RatedGame],
    config: &RatingConfig,
    rng: &mut ChaCha8Rng,
) -> Result<RatingReport, RatingError> {
    let table = GameTable::new(names.len(), games)?;
    let fit_config = FitConfig {
        anchor: config.anchor.clone(),
        level: config.level,
        prior: config.prior,
        ..FitConfig::default()
    };
    let ratings = fit(&table, &fit_config).map_err(|e| match e {
        RatingError::NoFiniteFit { groups, .. } => RatingError::NoFiniteFit {
            groups,
            names: names.to_vec(),
        },
        e => e,
    })?;
    let mut warnings: Vec<String> = ratings.warnings.iter().map(|w| w.describe(names)).collect();
    let (boot, diagnostics) = match config.intervals {
        _ if config.bootstrap < 2 => (None, None),
        IntervalMethod::Posterior => {
            let (summary, d) = posterior(
                &table,
                &ratings,
                &fit_config,
                config.bootstrap,
                config.level,
                0,
                rng,
            )?;
            if d.divergent > 0 || d.r_hat > 1.05 {
                warnings.push(format!(
                    "the posterior sampler did not settle ({} divergent transitions, R-hat {:.3}): the intervals may be off",
                    d.divergent, d.r_hat
                ));
            }
            (Some(summary), Some(d))
        }
        IntervalMethod::Bootstrap => {
            let summary = bootstrap(
                &table,
                &ratings,
                &fit_config,
                &BootstrapConfig {
                    samples: config.bootstrap,
                    level: config.level,
                    threads: 0,
                },
                rng,
            )?;
            if summary.failed > 0 {
                warnings.push(format!(
                    "{} of {} bootstrap resamples had no finite fit and were left out: the intervals are too narrow where a resample swept an encounter; use the posterior intervals or a prior above 0",
                    summary.failed,
                    config.bootstrap
                ));
            }
            (Some(summary), None)
        }
    };
    let pairwise = pairwise_table(&table, config.level);
    let ladder = run_ladder(names.len(), games, &LadderConfig::new(1200.0, config.k)?)?;

    let adv = &ratings.advantage;
    let (ci_low, ci_high) = boot.as_ref().map_or((adv.ci_low, adv.ci_high), |b| {
        (b.advantage.low, b.advantage.high)
    });
    let first_points: f64 = games.iter().map(|g| g.outcome.score()).sum();
    let first_move = FirstMove {
        elo: adv.value,
        ci_low,
        ci_high,
        first_player_score: first_points / games.len().max(1) as f64,
    };
    let n = names.len();
    let los = match &boot {
        Some(b) => b.los.clone(),
        None => (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if i == j {
                            0.5
                        } else {
                            normal_cdf(ratings.diff(i, j) / ratings.diff_se(i, j).max(1e-9))
                        }
                    })
                    .collect()
            })
            .collect(),
    };
    // Where the posterior ran, `pairwise.csv`'s LOS is its joint one (fastchess's formula says
    // 1.000 after a 2-pair sweep, `docs/statistics.md` §4).
    let mut rows_pairwise = pairwise_rows(names, &pairwise)?;
    if diagnostics.is_some() {
        for (row, e) in rows_pairwise.iter_mut().zip(&pairwise) {
            row.los = Some(los[e.player][e.opponent]);
        }
    }
    let pairs: HashSet<u64> = games.iter().map(|g| g.pair).collect();
    Ok(RatingReport {
        names: names.to_vec(),
        games: games.len(),
        game_pairs: pairs.len(),
        config: config.clone(),
        rows: rating_rows(names, &ratings, boot.as_ref())?,
        first_move,
        los,
        pairwise_rows: rows_pairwise,
        pairwise,
        ladder,
        warnings,
        ratings,
        boot,
        posterior: diagnostics,
    })
}

impl RatingReport {
    /// The rating row of player `name`, if it was rated.
    pub fn row(&self, name: &str) -> Option<&RatingRow> {
        self.rows.iter().find(|r| r.name == name)
    }
}
