//! Head-to-head statistics for every encounter (two players, colours combined): W/D/L,
//! pentanomial counts over game pairs, and the Elo, nElo and LOS estimates that fastchess
//! (`elo_wdl.cpp`, `elo_pentanomial.cpp`) and fishtest (`stat_util.get_elo`) print.
//!
//! Trinomial statistics treat games as independent; pentanomial statistics treat the game
//! PAIR as the unit (both games from the same opening with colours swapped), which accounts
//! for the correlation inside a pair and usually gives a smaller, more honest error. The
//! formulas are in `docs/statistics.md`.

use super::{normal_cdf, normal_quantile, score_to_elo, GameTable, NELO_PER_T};
use serde::Serialize;
use std::collections::HashMap;

/// Win/draw/loss counts from one player's view.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct Wdl {
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
}

/// Pentanomial counts: game pairs by the points the player scored in the pair.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
pub struct PentaCounts {
    /// 0 points (loss, loss).
    pub ll: u64,
    /// ½ point (loss, draw in either order).
    pub ld: u64,
    /// 1 point (draw, draw or win, loss in either order).
    pub dd_wl: u64,
    /// 1½ points (win, draw in either order).
    pub wd: u64,
    /// 2 points (win, win).
    pub ww: u64,
}

/// Score, Elo, nElo and LOS of one player against another, at one confidence level.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct ScoreStats {
    /// Units counted: games (trinomial) or game pairs (pentanomial).
    pub units: u64,
    /// Mean score per game, in [0, 1].
    pub score: f64,
    /// Variance of the per-unit mean score (per game for trinomial, per pair for pentanomial).
    pub variance: f64,
    /// Logistic Elo difference, `−400·log10(1/score − 1)` (score clamped to [0.001, 0.999]).
    pub elo: f64,
    /// Half-width of the Elo interval: `(elo(s⁺) − elo(s⁻)) / 2` with `s± = s ± z·√(var/N)`
    /// (fastchess's and fishtest's figure).
    pub elo_error: f64,
    /// The interval the arena reports (see [`score_interval`]): it never has zero width, where
    /// `elo ± elo_error` collapses to a point on a sweep or a run of draws.
    pub elo_low: f64,
    /// Upper end of the reported interval.
    pub elo_high: f64,
    /// Normalized Elo, `(s − ½)/σ_game · 800/ln 10`; `None` if the variance is 0.
    pub nelo: Option<f64>,
    /// Half-width of the nElo interval; `None` if the variance is 0.
    pub nelo_error: Option<f64>,
    /// Likelihood of superiority, `Φ((s − ½)/√(var/N))`.
    pub los: f64,
    /// Confidence level of the errors.
    pub level: f64,
}

/// Statistics of a discrete score distribution: values `a_k` (mean score per game of a unit),
/// counts `c_k`, `games_per_unit` games per unit.
fn score_stats(
    values: &[f64],
    counts: &[u64],
    games_per_unit: f64,
    level: f64,
) -> Option<ScoreStats> {
    let n: u64 = counts.iter().sum();
    if n == 0 {
        return None;
    }
    let nf = n as f64;
    let s: f64 = values
        .iter()
        .zip(counts)
        .map(|(a, &c)| a * c as f64)
        .sum::<f64>()
        / nf;
    let var: f64 = values
        .iter()
        .zip(counts)
        .map(|(a, &c)| c as f64 * (a - s).powi(2))
        .sum::<f64>()
        / nf;
    let z = normal_quantile(0.5 + level / 2.0);
    let sd_mean = (var / nf).sqrt();
    let (lo, hi) = (s - z * sd_mean, s + z * sd_mean);
    let elo_error = (score_to_elo(hi) - score_to_elo(lo)) / 2.0;
    let (low, high) = score_interval(s, var, nf, games_per_unit, z);
    let (nelo, nelo_error) = if var > 0.0 {
        let sigma_game = (games_per_unit * var).sqrt();
        (
            Some((s - 0.5) / sigma_game * NELO_PER_T),
            Some(z * sd_mean / sigma_game * NELO_PER_T),
        )
    } else {
        (None, None)
    };
    let los = if sd_mean > 0.0 {
        normal_cdf((s - 0.5) / sd_mean)
    } else if s > 0.5 {
        1.0
    } else if s < 0.5 {
        0.0
    } else {
        0.5
    };
    Some(ScoreStats {
        units: n,
        score: s,
        variance: var,
        elo: score_to_elo(s),
        elo_error,
        elo_low: unclamped_elo(low),
        elo_high: unclamped_elo(high),
        nelo,
        nelo_error,
        los,
        level,
    })
}

/// The Elo of a score without `score_to_elo`'s clamp: an interval end at a score of 0 or 1 is
/// −∞ or +∞, and an end beyond the clamp keeps its width (100 pairs all lost gave a point).
fn unclamped_elo(t: f64) -> f64 {
    -400.0 * (1.0 / t - 1.0).log10()
}

/// Virtual units (`V`) of the variance's prior in [`score_interval`].
const VIRTUAL_UNITS: f64 = 3.0;

/// The score interval the arena reports: Wilson's (the scores `t` with
/// `|s − t| ≤ z·√(v(t)/N)`), with the variance `v(t)` of a unit at mean score `t` taken as the
/// observed variance pooled with `V = 3` virtual units of independent decisive games,
/// `v(t) = (N·var + V·t(1 − t)/g) / (N + V)` (`g` games per unit). With many units it is the
/// normal interval fastchess prints; with few it stays open where the data are thin: one pair
/// won twice gives a score in [0.41, 1], not the point 1. `V` was chosen by measured coverage
/// (2 left encounters of one pair at 92.6 % on the site design, 3 gives 93.8 %). Coverage on synthetic data:
/// docs/statistics.md §Intervals.
pub fn score_interval(s: f64, var: f64, n: f64, games_per_unit: f64, z: f64) -> (f64, f64) {
    let (a, b) = (n * var, VIRTUAL_UNITS / games_per_unit);
    // v(t)/N = (a + b·t(1 − t)) / (N (N + V)); (s − t)² = z²·v(t)/N is a quadratic in t.
    let k = z * z / (n * (n + VIRTUAL_UNITS));
    // (1 + k b) t² − (2s + k b) t + (s² − k a) = 0.
    let (qa, qb, qc) = (1.0 + k * b, -(2.0 * s + k * b), s * s - k * a);
    let disc = (qb * qb - 4.0 * qa * qc).max(0.0).sqrt();
    // At a score of 1 (0) the upper (lower) root is 1 (0) exactly; rounding put it a hair
    // below, a finite +5880 Elo after 7 pairs won where 6 gave +∞ (issue 45).
    let low = if s <= 0.0 {
        0.0
    } else {
        (-qb - disc) / (2.0 * qa)
    };
    let high = if s >= 1.0 {
        1.0
    } else {
        (-qb + disc) / (2.0 * qa)
    };
    (low.clamp(0.0, 1.0), high.clamp(0.0, 1.0))
}

impl Wdl {
    /// Games.
    pub fn games(&self) -> u64 {
        self.wins + self.draws + self.losses
    }

    /// The other player's view.
    pub fn flipped(&self) -> Wdl {
        Wdl {
            wins: self.losses,
            draws: self.draws,
            losses: self.wins,
        }
    }

    /// Draws / games, `None` without games.
    pub fn draw_ratio(&self) -> Option<f64> {
        (self.games() > 0).then(|| self.draws as f64 / self.games() as f64)
    }

    /// Trinomial statistics (games independent), `None` without games.
    pub fn stats(&self, level: f64) -> Option<ScoreStats> {
        score_stats(
            &[0.0, 0.5, 1.0],
            &[self.losses, self.draws, self.wins],
            1.0,
            level,
        )
    }
}

impl PentaCounts {
    /// Builds counts in fishtest order `[LL, LD, DD+WL, WD, WW]`.
    pub fn from_array(c: [u64; 5]) -> PentaCounts {
        PentaCounts {
            ll: c[0],
            ld: c[1],
            dd_wl: c[2],
            wd: c[3],
            ww: c[4],
        }
    }

    /// Counts in fishtest order `[LL, LD, DD+WL, WD, WW]`.
    pub fn to_array(&self) -> [u64; 5] {
        [self.ll, self.ld, self.dd_wl, self.wd, self.ww]
    }

    /// Game pairs.
    pub fn pairs(&self) -> u64 {
        self.to_array().iter().sum()
    }

    /// The other player's view.
    pub fn flipped(&self) -> PentaCounts {
        PentaCounts {
            ll: self.ww,
            ld: self.wd,
            dd_wl: self.dd_wl,
            wd: self.ld,
            ww: self.ll,
        }
    }

    /// Adds one pair in which the player scored `half_points` half points (0..=4).
    pub fn add(&mut self, half_points: u8) {
        self.add_n(half_points, 1);
    }

    /// Adds `k` pairs in which the player scored `half_points` half points (0..=4) each.
    pub fn add_n(&mut self, half_points: u8, k: u64) {
        match half_points {
            0 => self.ll += k,
            1 => self.ld += k,
            2 => self.dd_wl += k,
            3 => self.wd += k,
            _ => self.ww += k,
        }
    }

    /// Pentanomial statistics (game pairs independent), `None` without pairs.
    pub fn stats(&self, level: f64) -> Option<ScoreStats> {
        score_stats(&[0.0, 0.25, 0.5, 0.75, 1.0], &self.to_array(), 2.0, level)
    }
}

/// One encounter, from `player`'s view.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairwiseEntry {
    /// The row player.
    pub player: usize,
    /// The opponent.
    pub opponent: usize,
    /// All games between the two, colours combined.
    pub wdl: Wdl,
    /// Draws / games.
    pub draw_ratio: Option<f64>,
    /// Pairs of exactly two colour-swapped games between the two.
    pub penta: PentaCounts,
    /// Trinomial statistics at `level`.
    pub trinomial: Option<ScoreStats>,
    /// Pentanomial statistics at `level`, `None` without complete pairs.
    pub pentanomial: Option<ScoreStats>,
    /// Confidence level of the intervals.
    pub level: f64,
}

/// Every encounter with at least one game, row player the lower index, sorted by
/// `(player, opponent)`, with intervals at `level` (fastchess and fishtest print 95%).
pub fn pairwise_table(table: &GameTable, level: f64) -> Vec<PairwiseEntry> {
    let mut wdl: HashMap<(usize, usize), Wdl> = HashMap::new();
    for c in table.cells() {
        let (a, b) = (c.first.min(c.second), c.first.max(c.second));
        let e = wdl.entry((a, b)).or_default();
        let [w, d, l] = c.counts;
        if c.first == a {
            e.wins += w;
            e.losses += l;
        } else {
            e.wins += l;
            e.losses += w;
        }
        e.draws += d;
    }
    let mut penta: HashMap<(usize, usize), PentaCounts> = HashMap::new();
    for block in table.blocks() {
        let cell = &table.cells()[block.cell_ab];
        let (a, b) = (cell.first, cell.second);
        let p = if a < b {
            block.penta()
        } else {
            block.penta().flipped()
        };
        let e = penta.entry((a.min(b), a.max(b))).or_default();
        for (k, n) in p.to_array().into_iter().enumerate() {
            e.add_n(k as u8, n);
        }
    }
    let mut keys: Vec<(usize, usize)> = wdl.keys().copied().collect();
    keys.sort_unstable();
    keys.into_iter()
        .map(|(a, b)| {
            let w = wdl[&(a, b)];
            let p = penta.get(&(a, b)).copied().unwrap_or_default();
            PairwiseEntry {
                player: a,
                opponent: b,
                wdl: w,
                draw_ratio: w.draw_ratio(),
                penta: p,
                trinomial: w.stats(level),
                pentanomial: p.stats(level),
                level,
            }
        })
        .collect()
}

impl PairwiseEntry {
    /// The same encounter from the opponent's view.
    pub fn flipped(&self) -> PairwiseEntry {
        let w = self.wdl.flipped();
        let p = self.penta.flipped();
        PairwiseEntry {
            player: self.opponent,
            opponent: self.player,
            wdl: w,
            draw_ratio: self.draw_ratio,
            penta: p,
            trinomial: w.stats(self.level),
            pentanomial: p.stats(self.level),
            level: self.level,
        }
    }
}

#[cfg(test)]
mod interval_tests {
    use super::*;

    #[test]
    fn one_pair_won_twice_is_not_a_point() {
        let mut p = PentaCounts::default();
        p.add(4);
        let st = p.stats(0.95).unwrap();
        assert_eq!(st.elo_error, 0.0, "fastchess's figure collapses");
        let (low, high) = score_interval(1.0, 0.0, 1.0, 2.0, 1.959964);
        // By hand (N = 1, V = 3, g = 2): k = z²/4, b = 3/2, (1 + kb)t² − (2 + kb)t + 1 = 0,
        // t = 1/(1 + kb) or 1.
        let kb = 1.959964f64.powi(2) / 4.0 * 1.5;
        assert!((low - 1.0 / (1.0 + kb)).abs() < 1e-9, "{low}");
        assert!((high - 1.0).abs() < 1e-9, "{high}");
        assert!(st.elo_high - st.elo_low > 500.0);
        assert_eq!(st.elo_high, f64::INFINITY);
    }

    #[test]
    fn a_hundred_pairs_lost_is_not_a_point_either() {
        let st = PentaCounts::from_array([100, 0, 0, 0, 0])
            .stats(0.95)
            .unwrap();
        assert_eq!(st.elo_low, f64::NEG_INFINITY);
        assert!(
            st.elo_high > -1400.0 && st.elo_high < -1000.0,
            "{}",
            st.elo_high
        );
    }

    #[test]
    fn with_many_pairs_the_interval_is_fastchess_s() {
        let p = PentaCounts::from_array([40, 120, 300, 150, 60]);
        let st = p.stats(0.95).unwrap();
        let half = (st.elo_high - st.elo_low) / 2.0;
        assert!(
            (half - st.elo_error).abs() < 0.5,
            "{half} vs {}",
            st.elo_error
        );
        assert!((st.elo_low + st.elo_high) / 2.0 - st.elo < 0.5);
    }
}
