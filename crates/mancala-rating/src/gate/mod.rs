//! The strength gate (`arena gate`): is each level of a bot still inside the Elo band it was
//! calibrated to, against a reference pool whose Elos are held fixed?
//!
//! A level with band `elo ± tolerance` plays colour-swapped game pairs against the pool. Its
//! expected score in a game against opponent `j` (Elo `R_j`) is `E(R − R_j + h)` moving first
//! and `E(R − R_j − h)` moving second (`E` the logistic curve of `docs/statistics.md` §1, `h`
//! the first-move advantage as the reports print it), so the expected mean score of a pair is
//! `s_j(R) = ½[E(R − R_j + h) + E(R − R_j − h)]`, the model of `arena calibrate`'s curve.
//!
//! Each band edge gets its own sequential test (two one-sided SPRTs, Sobel & Wald 1949), with an
//! indifference margin `δ` either side of the edge:
//!
//! * the lower edge `lo`: "outside" `R = lo − δ` against "inside" `R = lo + δ`;
//! * the upper edge `hi`: "outside" `R = hi + δ` against "inside" `R = hi − δ`.
//!
//! The log-likelihood ratio of each is the GSPRT of [`crate::sprt`] (fishtest's `LLR_logistic`
//! over the empirical pentanomial distribution) summed over the opponents: each opponent's pairs
//! are one stratum with its own expected score under each hypothesis. A test stops for good when
//! it crosses a Wald bound. The level is *below* or *above* as soon as one edge is proven
//! outside, *inside* once both edges are proven inside, undecided until then.
//!
//! Error rates ([`GateSettings`]): `alpha` bounds the chance that a level lying outside its band
//! by at least `δ` passes (its edge's test wrongly accepts "inside"); `beta` bounds the chance
//! that the gate fails although every level lies inside by at least `δ`, split evenly over the
//! `2L` edge tests of `L` levels (Bonferroni). Inside the indifference zones either answer is
//! acceptable. The simulated error rates are in `docs/statistics.md` §8 and in this module's
//! tests.

use serde::{Deserialize, Serialize};

use crate::pairwise::PentaCounts;
use crate::sprt::llr_scores;
use crate::{elo_to_score, normal_quantile, ELO_SCALE};

/// A level's band on the pool's scale: `elo ± tolerance`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Band {
    /// The Elo the level was calibrated to.
    pub elo: f64,
    /// Half the band's width.
    pub tolerance: f64,
}

impl Band {
    /// The lower edge.
    pub fn lo(&self) -> f64 {
        self.elo - self.tolerance
    }

    /// The upper edge.
    pub fn hi(&self) -> f64 {
        self.elo + self.tolerance
    }
}

/// The error rates and the indifference margin of a gate.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct GateSettings {
    /// The chance that a level outside its band by at least the margin passes.
    pub alpha: f64,
    /// The chance that the gate fails although every level is inside its band by at least the
    /// margin (for the whole gate: each of the `2L` edge tests gets `beta / 2L`).
    pub beta: f64,
    /// The indifference margin δ in Elo; `None`: half of each level's tolerance.
    pub margin: Option<f64>,
    /// The first-move advantage `h` in Elo (a first mover is expected to score `E(h)` against an
    /// equal opponent), as the reports print it.
    pub first_move_advantage: f64,
}

impl Default for GateSettings {
    fn default() -> Self {
        GateSettings {
            alpha: 0.05,
            beta: 0.05,
            margin: None,
            first_move_advantage: 0.0,
        }
    }
}

/// Invalid gate parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum GateError {
    /// α or β outside (0, 0.5).
    #[error("alpha ({alpha}) and beta ({beta}) must be strictly between 0 and 0.5")]
    ErrorRates {
        /// The α given.
        alpha: f64,
        /// The β given.
        beta: f64,
    },
    /// A tolerance that is not positive, or an Elo that is not finite.
    #[error("band {elo} ± {tolerance}: the Elo must be finite and the tolerance positive")]
    Band {
        /// The band's Elo.
        elo: f64,
        /// Its tolerance.
        tolerance: f64,
    },
    /// The margin must be positive and at most the tolerance, or the two edges' "inside"
    /// hypotheses would cross.
    #[error("margin {margin} must be positive and at most the tolerance {tolerance}")]
    Margin {
        /// The margin.
        margin: f64,
        /// The band's tolerance.
        tolerance: f64,
    },
    /// No reference players, or one whose Elo is not finite.
    #[error("the reference pool must hold at least one player, every Elo finite")]
    Pool,
    /// No levels.
    #[error("a gate needs at least one level")]
    NoLevels,
}

/// Where one edge's test stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EdgeState {
    /// Neither bound reached.
    Open,
    /// Proven on the band's side of the edge.
    Inside,
    /// Proven outside the band beyond this edge.
    Outside,
}

/// One edge's SPRT: "outside by δ" (H0) against "inside by δ" (H1).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct EdgeTest {
    /// The level's Elo under H0 (outside the band by the margin).
    pub outside: f64,
    /// The level's Elo under H1 (inside the band by the margin).
    pub inside: f64,
    /// `ln L(inside) / L(outside)`: positive toward inside.
    pub llr: f64,
    /// `ln(β_e / (1 − α))`: proven outside at or below.
    pub lower: f64,
    /// `ln((1 − β_e) / α)`: proven inside at or above.
    pub upper: f64,
    pub state: EdgeState,
    /// The pairs the level had played when this test was decided.
    pub decided_after: Option<u64>,
}

impl EdgeTest {
    fn new(outside: f64, inside: f64, alpha: f64, beta_edge: f64) -> EdgeTest {
        EdgeTest {
            outside,
            inside,
            llr: 0.0,
            lower: (beta_edge / (1.0 - alpha)).ln(),
            upper: ((1.0 - beta_edge) / alpha).ln(),
            state: EdgeState::Open,
            decided_after: None,
        }
    }

    fn decide(&mut self, llr: f64, pairs: u64) {
        self.llr = llr;
        self.state = if llr >= self.upper {
            EdgeState::Inside
        } else if llr <= self.lower {
            EdgeState::Outside
        } else {
            return;
        };
        self.decided_after = Some(pairs);
    }
}

/// The decision about one level.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Not proven either way yet.
    Undecided,
    /// Both edges proven inside.
    Inside,
    /// Proven below the band.
    Below,
    /// Proven above the band.
    Above,
}

impl Verdict {
    /// Inside, below or above: the level needs no more games.
    pub fn is_decided(self) -> bool {
        self != Verdict::Undecided
    }

    /// Proven outside the band.
    pub fn is_outside(self) -> bool {
        matches!(self, Verdict::Below | Verdict::Above)
    }

    /// One word for tables.
    pub fn word(self) -> &'static str {
        match self {
            Verdict::Undecided => "undecided",
            Verdict::Inside => "inside",
            Verdict::Below => "below",
            Verdict::Above => "above",
        }
    }
}

/// The decision about a whole gate.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum GateVerdict {
    /// Every level is inside its band.
    Pass,
    /// Some level is proven outside its band.
    Fail,
    /// Some level is undecided and none is outside.
    Undecided,
}

impl GateVerdict {
    /// The gate's verdict from its levels' verdicts.
    pub fn of(levels: &[Verdict]) -> GateVerdict {
        if levels.iter().any(|v| v.is_outside()) {
            GateVerdict::Fail
        } else if levels.iter().all(|&v| v == Verdict::Inside) {
            GateVerdict::Pass
        } else {
            GateVerdict::Undecided
        }
    }
}

/// The level's Elo against the fixed pool, from its pairs: the root of "expected points =
/// points" (the logistic quasi-likelihood), with a sandwich standard error over pairs.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Estimate {
    pub elo: f64,
    pub se: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The estimate is at the end of the search range (the level won or lost every pair): the
    /// interval is not meaningful there.
    pub at_limit: bool,
}

/// Everything about one level, for `gate.json` and the report.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelStatus {
    pub band: Band,
    /// The indifference margin δ used.
    pub margin: f64,
    pub verdict: Verdict,
    /// Completed pairs.
    pub pairs: u64,
    /// Pentanomial counts `[LL, LD, DD/WL, WD, WW]` per reference player, the level's view.
    pub penta: Vec<[u64; 5]>,
    pub lower: EdgeTest,
    pub upper: EdgeTest,
    /// At the confidence level asked for; `None` before the first pair.
    pub estimate: Option<Estimate>,
}

/// Half-point values of the pentanomial outcomes as a pair's mean score.
const PAIR_SCORE: [f64; 5] = [0.0, 0.25, 0.5, 0.75, 1.0];

/// How far beyond the pool the estimate is searched, in Elo.
const ESTIMATE_RANGE: f64 = 1200.0;

/// The sequential test of one level.
///
/// ```
/// use mancala_rating::gate::{Band, GateSettings, LevelGate, Verdict};
/// let band = Band { elo: 1000.0, tolerance: 50.0 };
/// let mut gate = LevelGate::new(band, &[1000.0], &GateSettings::default(), 1).unwrap();
/// // Against an opponent of 1000, a level of 1000 draws its pairs on average.
/// for _ in 0..400 {
///     gate.add_pair(0, 1); // loss + draw
///     gate.add_pair(0, 3); // win + draw
///     if gate.verdict().is_decided() { break; }
/// }
/// assert_eq!(gate.verdict(), Verdict::Inside);
/// ```
#[derive(Clone, Debug)]
pub struct LevelGate {
    band: Band,
    margin: f64,
    pool: Vec<f64>,
    advantage: f64,
    penta: Vec<PentaCounts>,
    pairs: u64,
    /// The lower and the upper edge's tests.
    edges: [EdgeTest; 2],
    /// Each opponent's share of each edge test's LLR (the strata), so a new pair recomputes one.
    strata: [Vec<f64>; 2],
}

/// The expected mean score per game of a colour-swapped pair between Elos `r` and `opponent`
/// with first-move advantage `h`.
fn pair_score(r: f64, opponent: f64, h: f64) -> f64 {
    let d = r - opponent;
    0.5 * (elo_to_score(d + h) + elo_to_score(d - h))
}

impl LevelGate {
    /// The test of a level with `band` against `pool` (fixed Elos), one of `levels` levels of
    /// the gate (for the split of β).
    pub fn new(
        band: Band,
        pool: &[f64],
        settings: &GateSettings,
        levels: usize,
    ) -> Result<LevelGate, GateError> {
        let GateSettings { alpha, beta, .. } = *settings;
        if !(alpha > 0.0 && alpha < 0.5 && beta > 0.0 && beta < 0.5) {
            return Err(GateError::ErrorRates { alpha, beta });
        }
        if !(band.elo.is_finite() && band.tolerance.is_finite() && band.tolerance > 0.0) {
            return Err(GateError::Band {
                elo: band.elo,
                tolerance: band.tolerance,
            });
        }
        let margin = settings.margin.unwrap_or(band.tolerance / 2.0);
        if !(margin > 0.0 && margin <= band.tolerance) {
            return Err(GateError::Margin {
                margin,
                tolerance: band.tolerance,
            });
        }
        if pool.is_empty() || pool.iter().any(|r| !r.is_finite()) {
            return Err(GateError::Pool);
        }
        if levels == 0 {
            return Err(GateError::NoLevels);
        }
        let beta_edge = beta / (2 * levels) as f64;
        Ok(LevelGate {
            band,
            margin,
            pool: pool.to_vec(),
            advantage: settings.first_move_advantage,
            penta: vec![PentaCounts::default(); pool.len()],
            pairs: 0,
            edges: [
                EdgeTest::new(band.lo() - margin, band.lo() + margin, alpha, beta_edge),
                EdgeTest::new(band.hi() + margin, band.hi() - margin, alpha, beta_edge),
            ],
            strata: [vec![0.0; pool.len()], vec![0.0; pool.len()]],
        })
    }

    /// The expected mean score per game of a pair against opponent `j` for a level of Elo `r`.
    pub fn pair_score(&self, r: f64, j: usize) -> f64 {
        pair_score(r, self.pool[j], self.advantage)
    }

    /// Adds a completed pair against opponent `j` in which the level scored `half_points`
    /// (0..=4) half points, and updates the tests that are still open. Returns the verdict.
    pub fn add_pair(&mut self, j: usize, half_points: u8) -> Verdict {
        let Some(&opponent) = self.pool.get(j) else {
            return self.verdict();
        };
        self.penta[j].add(half_points.min(4));
        self.pairs += 1;
        let counts = self.penta[j].to_array().map(|c| c as f64);
        for (edge, strata) in self.edges.iter_mut().zip(&mut self.strata) {
            if edge.state != EdgeState::Open {
                continue;
            }
            strata[j] = llr_scores(
                pair_score(edge.outside, opponent, self.advantage),
                pair_score(edge.inside, opponent, self.advantage),
                &counts,
            );
            edge.decide(strata.iter().sum(), self.pairs);
        }
        self.verdict()
    }

    /// The decision so far.
    pub fn verdict(&self) -> Verdict {
        match (self.edges[0].state, self.edges[1].state) {
            (EdgeState::Outside, _) => Verdict::Below,
            (_, EdgeState::Outside) => Verdict::Above,
            (EdgeState::Inside, EdgeState::Inside) => Verdict::Inside,
            _ => Verdict::Undecided,
        }
    }

    /// Completed pairs.
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// The band.
    pub fn band(&self) -> Band {
        self.band
    }

    /// The level's Elo against the pool with a `level` (e.g. 0.95) interval; `None` before the
    /// first pair.
    pub fn estimate(&self, level: f64) -> Option<Estimate> {
        if self.pairs == 0 {
            return None;
        }
        // Expected minus actual points, decreasing in r.
        let excess = |r: f64| -> f64 {
            (0..self.pool.len())
                .map(|j| {
                    let s = self.pair_score(r, j);
                    let c = self.penta[j].to_array();
                    c.iter()
                        .zip(PAIR_SCORE)
                        .map(|(&n, a)| n as f64 * (a - s))
                        .sum::<f64>()
                })
                .sum()
        };
        let min = self.pool.iter().copied().fold(f64::INFINITY, f64::min);
        let max = self.pool.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let (mut lo, mut hi) = (min - ESTIMATE_RANGE, max + ESTIMATE_RANGE);
        let at_limit = excess(lo) <= 0.0 || excess(hi) >= 0.0;
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if excess(mid) > 0.0 {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        let elo = 0.5 * (lo + hi);
        // Sandwich: the pairs' residual variance over the squared slope of the expected points.
        let (mut meat, mut slope) = (0.0, 0.0);
        for j in 0..self.pool.len() {
            let s = self.pair_score(elo, j);
            let c = self.penta[j].to_array();
            meat += c
                .iter()
                .zip(PAIR_SCORE)
                .map(|(&n, a)| n as f64 * (a - s).powi(2))
                .sum::<f64>();
            let d = elo - self.pool[j];
            let deriv = |x: f64| {
                let p = elo_to_score(x);
                ELO_SCALE * p * (1.0 - p)
            };
            slope += self.penta[j].pairs() as f64
                * 0.5
                * (deriv(d + self.advantage) + deriv(d - self.advantage));
        }
        let se = if slope > 0.0 {
            meat.sqrt() / slope
        } else {
            f64::INFINITY
        };
        let z = normal_quantile(0.5 + level / 2.0);
        Some(Estimate {
            elo,
            se,
            ci_low: elo - z * se,
            ci_high: elo + z * se,
            at_limit,
        })
    }

    /// Everything about the level now, with the estimate's interval at `level`.
    pub fn status(&self, level: f64) -> LevelStatus {
        LevelStatus {
            band: self.band,
            margin: self.margin,
            verdict: self.verdict(),
            pairs: self.pairs,
            penta: self.penta.iter().map(PentaCounts::to_array).collect(),
            lower: self.edges[0].clone(),
            upper: self.edges[1].clone(),
            estimate: self.estimate(level),
        }
    }
}

pub mod sim;

#[cfg(test)]
mod tests;
