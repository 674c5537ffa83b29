//! The sequential probability ratio test used to stop a match as soon as the answer is clear:
//! H0 "the Elo difference is `elo0`" against H1 "it is `elo1`".
//!
//! The log-likelihood ratio is Van den Bergh's generalized LLR (GSPRT) over the empirical
//! trinomial (W/D/L) or pentanomial (game-pair) distribution, exactly as fishtest
//! (`server/fishtest/stats/LLRcalc.py`: `LLR_logistic`, `LLR_normalized`) and fastchess
//! (`app/src/matchmaking/sprt/sprt.cpp`) compute it:
//!
//! * for each hypothesis the maximum-likelihood distribution `p` over the observed outcome
//!   values subject to the hypothesis (mean score `s`, or t-value `(μ − ½)/σ = t`) is found
//!   (Van den Bergh, "Comments on normalized Elo", Proposition 1.1 and §4.1: `p_i = p̂_i/(1 + θ·φ_i)`
//!   with θ the root of the secular equation `Σ p̂_i φ_i/(1 + θ φ_i) = 0`);
//! * `LLR = N · Σ p̂_i (ln p1_i − ln p0_i)`.
//!
//! Zero counts are replaced by 1e-3 before anything is computed (fishtest `regularize`).
//! Wald's bounds are `ln(β/(1−α))` and `ln((1−β)/α)`. Formulas and sources:
//! `docs/statistics.md`.

use super::pairwise::{PentaCounts, Wdl};
use super::{elo_to_score, NELO_PER_T};
use serde::{Deserialize, Serialize};
use std::collections::HashMap;

/// Which Elo the hypotheses are stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub enum SprtModel {
    /// Logistic Elo: score `1/(1 + 10^(−elo/400))`.
    Logistic,
    /// Normalized Elo: `t = (μ − ½)/σ_game`, `nElo = t · 800/ln 10`.
    Normalized,
}

impl SprtModel {
    /// The name written as `sprt.json`'s `model` (and accepted by `arena sprt --model`).
    pub fn as_str(self) -> &'static str {
        match self {
            SprtModel::Logistic => "logistic",
            SprtModel::Normalized => "normalized",
        }
    }
}

/// The decision so far.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum SprtResult {
    /// Neither bound reached.
    Continue,
    /// LLR ≤ lower bound.
    AcceptH0,
    /// LLR ≥ upper bound.
    AcceptH1,
}

/// The test's state for some counts (cutechess `Sprt::Status`).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct SprtStatus {
    /// The decision.
    pub result: SprtResult,
    /// Log-likelihood ratio.
    pub llr: f64,
    /// `ln(β/(1−α))`.
    pub lower: f64,
    /// `ln((1−β)/α)`.
    pub upper: f64,
}

impl SprtResult {
    /// The decision in words, for a regression test between a base and a test bot testing H0
    /// "`elo0` better" against H1 "`elo1` better". The words follow the bounds: accepting H1 of
    /// a non-regression test (`elo0 < elo1 <= 0`) says the test bot is not weaker, not that it is
    /// stronger (a new user read "stronger" for an unchanged build), and accepting its H0 is a
    /// regression.
    pub fn verdict(self, elo0: f64, elo1: f64) -> &'static str {
        match self {
            SprtResult::AcceptH1 if elo1 > 0.0 => "H1 accepted: the test bot is stronger",
            SprtResult::AcceptH1 => "H1 accepted: no regression, the test bot is not weaker",
            SprtResult::AcceptH0 if elo0 < 0.0 => "H0 accepted: regression, the test bot is weaker",
            SprtResult::AcceptH0 => "H0 accepted: the test bot is not stronger",
            SprtResult::Continue => "inconclusive: no bound was reached",
        }
    }
}

/// The tested bot's Elo over the other with its interval: the one estimate `arena sprt` gives
/// in its verdict line, `sprt.json`, `sprt.csv`, the report and the dashboard. `None` is an
/// unbounded value (a sweep has no point and no end on its side), as in `pairwise.csv`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct EloEstimate {
    /// Logistic Elo.
    pub elo: Option<f64>,
    /// The interval's ends.
    pub low: Option<f64>,
    pub high: Option<f64>,
    /// Its confidence level.
    pub level: f64,
}

impl EloEstimate {
    /// An estimate from numbers that may be infinite (an infinite one is unbounded).
    pub fn new(elo: f64, low: f64, high: f64, level: f64) -> EloEstimate {
        let finite = |x: f64| x.is_finite().then_some(x);
        EloEstimate {
            elo: finite(elo),
            low: finite(low),
            high: finite(high),
            level,
        }
    }

    /// The pentanomial estimate: the Elo of the pairs' mean score, in the interval of
    /// `pairwise::score_interval` (the pairwise table's), `None` without pairs.
    pub fn of_pairs(penta: &PentaCounts, level: f64) -> Option<EloEstimate> {
        let st = penta.stats(level)?;
        let sweep = st.score <= 0.0 || st.score >= 1.0;
        let elo = if sweep { f64::INFINITY } else { st.elo };
        Some(EloEstimate::new(elo, st.elo_low, st.elo_high, level))
    }

    /// `+12.3 [-3.1, +27.6] (95 %)`, or `≥ +434 (95 %)` / `≤ -434 (95 %)` for a sweep (the
    /// pairwise table's rendering).
    pub fn describe(&self) -> String {
        let signed = |x: f64| {
            let r = (x * 10.0).round() / 10.0;
            if r == 0.0 {
                "0.0".to_string()
            } else {
                format!("{r:+.1}")
            }
        };
        let pct = format!("{:.0} %", self.level * 100.0);
        match (self.elo, self.low, self.high) {
            (Some(e), Some(l), Some(h)) => {
                format!("{} [{}, {}] ({pct})", signed(e), signed(l), signed(h))
            }
            (_, Some(l), None) => format!("≥ {} ({pct})", signed(l)),
            (_, None, Some(h)) => format!("≤ {} ({pct})", signed(h)),
            (Some(e), _, _) => format!("{} ({pct})", signed(e)),
            _ => "no estimate".to_string(),
        }
    }
}

/// Game pairs as one player (the test bot) sees them, fed one game at a time in any order: a
/// pair's pentanomial count is added when its second game arrives.
#[derive(Debug, Clone, Default)]
pub struct PairTracker {
    /// Pairs with one game in: (the player's half points so far, games seen).
    open: HashMap<u64, (u8, u8)>,
    penta: PentaCounts,
}

impl PairTracker {
    /// Adds a game of pair `pair` in which the player scored `points` (1, 0.5 or 0). Returns
    /// true when it completed its pair (the counts changed).
    pub fn add(&mut self, pair: u64, points: f64) -> bool {
        self.complete(pair, points).is_some()
    }

    /// Like [`PairTracker::add`], returning the player's half points in the pair (0..=4) when
    /// this game completed it.
    pub fn complete(&mut self, pair: u64, points: f64) -> Option<u8> {
        let half = (points * 2.0).round().clamp(0.0, 2.0) as u8;
        let entry = self.open.entry(pair).or_insert((0, 0));
        entry.0 += half;
        entry.1 += 1;
        if entry.1 < 2 {
            return None;
        }
        let total = entry.0;
        self.open.remove(&pair);
        self.penta.add(total);
        Some(total)
    }

    /// The completed pairs' counts.
    pub fn penta(&self) -> PentaCounts {
        self.penta
    }

    /// Pairs waiting for their second game.
    pub fn open_pairs(&self) -> usize {
        self.open.len()
    }
}

/// Invalid SPRT parameters.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum SprtError {
    /// α outside (0, 0.5).
    #[error("alpha {0} must be strictly between 0 and 0.5")]
    Alpha(f64),
    /// β outside (0, 0.5).
    #[error("beta {0} must be strictly between 0 and 0.5")]
    Beta(f64),
    /// elo0 ≥ elo1 or not finite.
    #[error("elo0 ({elo0}) must be less than elo1 ({elo1}), both finite")]
    Bounds {
        /// H0's Elo.
        elo0: f64,
        /// H1's Elo.
        elo1: f64,
    },
}

/// A configured SPRT.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Sprt {
    elo0: f64,
    elo1: f64,
    alpha: f64,
    beta: f64,
    model: SprtModel,
    lower: f64,
    upper: f64,
}

impl Sprt {
    /// A test of `elo0` against `elo1` with error rates `alpha` (false H1) and `beta`
    /// (false H0).
    ///
    /// ```
    /// use mancala_rating::sprt::{Sprt, SprtModel};
    /// let t = Sprt::new(0.0, 5.0, 0.05, 0.05, SprtModel::Logistic).unwrap();
    /// assert!((t.upper() - 19f64.ln()).abs() < 1e-12);
    /// assert!(Sprt::new(5.0, 0.0, 0.05, 0.05, SprtModel::Logistic).is_err());
    /// ```
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        model: SprtModel,
    ) -> Result<Sprt, SprtError> {
        if !(alpha > 0.0 && alpha < 0.5) {
            return Err(SprtError::Alpha(alpha));
        }
        if !(beta > 0.0 && beta < 0.5) {
            return Err(SprtError::Beta(beta));
        }
        if !(elo0.is_finite() && elo1.is_finite() && elo0 < elo1) {
            return Err(SprtError::Bounds { elo0, elo1 });
        }
        Ok(Sprt {
            elo0,
            elo1,
            alpha,
            beta,
            model,
            lower: (beta / (1.0 - alpha)).ln(),
            upper: ((1.0 - beta) / alpha).ln(),
        })
    }

    /// Lower bound `ln(β/(1−α))`.
    pub fn lower(&self) -> f64 {
        self.lower
    }

    /// Upper bound `ln((1−β)/α)`.
    pub fn upper(&self) -> f64 {
        self.upper
    }

    /// `(elo0, elo1)`.
    pub fn elo_bounds(&self) -> (f64, f64) {
        (self.elo0, self.elo1)
    }

    /// `(alpha, beta)`.
    pub fn error_rates(&self) -> (f64, f64) {
        (self.alpha, self.beta)
    }

    /// The model.
    pub fn model(&self) -> SprtModel {
        self.model
    }

    /// LLR from pentanomial counts (game pairs, from the tested player's view).
    pub fn llr(&self, penta: &PentaCounts) -> f64 {
        let c = penta.to_array().map(|x| x as f64);
        self.llr_counts(&c)
    }

    /// LLR from W/D/L counts (games treated as independent).
    pub fn llr_wdl(&self, wdl: &Wdl) -> f64 {
        self.llr_counts(&[wdl.losses as f64, wdl.draws as f64, wdl.wins as f64])
    }

    fn llr_counts(&self, c: &[f64]) -> f64 {
        match self.model {
            SprtModel::Logistic => llr_logistic(self.elo0, self.elo1, c),
            SprtModel::Normalized => llr_normalized(self.elo0, self.elo1, c),
        }
    }

    /// Status for pentanomial counts.
    pub fn status(&self, penta: &PentaCounts) -> SprtStatus {
        self.decide(self.llr(penta))
    }

    /// Status for W/D/L counts.
    pub fn status_wdl(&self, wdl: &Wdl) -> SprtStatus {
        self.decide(self.llr_wdl(wdl))
    }

    /// Status for a given LLR.
    pub fn decide(&self, llr: f64) -> SprtStatus {
        let result = if llr >= self.upper {
            SprtResult::AcceptH1
        } else if llr <= self.lower {
            SprtResult::AcceptH0
        } else {
            SprtResult::Continue
        };
        SprtStatus {
            result,
            llr,
            lower: self.lower,
            upper: self.upper,
        }
    }
}

/// The regularised empirical distribution of counts ordered by outcome value: values
/// `i/(k−1)`, probabilities; and the (regularised) total `N`.
fn to_pdf(counts: &[f64]) -> (f64, Vec<f64>, Vec<f64>) {
    let reg: Vec<f64> = counts
        .iter()
        .map(|&c| if c == 0.0 { 1e-3 } else { c })
        .collect();
    let n: f64 = reg.iter().sum();
    let k = counts.len();
    let values = (0..k).map(|i| i as f64 / (k - 1) as f64).collect();
    (n, values, reg.iter().map(|c| c / n).collect())
}

/// Root of the secular equation `Σ p_i φ_i/(1 + x φ_i) = 0` on `(−1/max φ, −1/min φ)`, where
/// the left side decreases from +∞ to −∞. `None` if `φ` does not take both signs.
fn secular(phi: &[f64], p: &[f64]) -> Option<f64> {
    let v = phi.iter().copied().fold(f64::INFINITY, f64::min);
    let w = phi.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    if !(v < 0.0 && w > 0.0) {
        return None;
    }
    let f = |x: f64| -> f64 { phi.iter().zip(p).map(|(a, q)| q * a / (1.0 + x * a)).sum() };
    let (mut lo, mut hi) = (-1.0 / w, -1.0 / v);
    for _ in 0..200 {
        let mid = 0.5 * (lo + hi);
        if mid <= lo || mid >= hi {
            break;
        }
        if f(mid) > 0.0 {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    Some(0.5 * (lo + hi))
}

fn mean_var(values: &[f64], p: &[f64]) -> (f64, f64) {
    let mu: f64 = values.iter().zip(p).map(|(a, q)| a * q).sum();
    let var: f64 = values
        .iter()
        .zip(p)
        .map(|(a, q)| q * (a - mu).powi(2))
        .sum();
    (mu, var)
}

/// Maximum-likelihood distribution on `values` with mean `s` given empirical `phat`
/// (fishtest `MLE_expected`).
pub(crate) fn mle_expected(values: &[f64], phat: &[f64], s: f64) -> Option<Vec<f64>> {
    let phi: Vec<f64> = values.iter().map(|a| a - s).collect();
    let x = secular(&phi, phat)?;
    Some(
        phat.iter()
            .zip(&phi)
            .map(|(q, f)| q / (1.0 + x * f))
            .collect(),
    )
}

/// Maximum-likelihood distribution with t-value `(μ − reference)/σ = t` (fishtest
/// `MLE_t_value`: fixed-point iteration from the uniform distribution).
fn mle_t_value(values: &[f64], phat: &[f64], reference: f64, t: f64) -> Option<Vec<f64>> {
    let k = values.len();
    let mut p = vec![1.0 / k as f64; k];
    for _ in 0..100 {
        let (mu, var) = mean_var(values, &p);
        let sigma = var.sqrt();
        let phi: Vec<f64> = values
            .iter()
            .map(|a| a - reference - t * sigma * (1.0 + ((mu - a) / sigma).powi(2)) / 2.0)
            .collect();
        let x = secular(&phi, phat)?;
        let next: Vec<f64> = phat
            .iter()
            .zip(&phi)
            .map(|(q, f)| q / (1.0 + x * f))
            .collect();
        let diff = next
            .iter()
            .zip(&p)
            .fold(0.0f64, |m, (a, b)| m.max((a - b).abs()));
        p = next;
        if diff < 1e-12 {
            break;
        }
    }
    Some(p)
}

fn llr_from(phat: &[f64], n: f64, p0: &[f64], p1: &[f64]) -> f64 {
    n * phat
        .iter()
        .zip(p0.iter().zip(p1))
        .map(|(q, (a, b))| q * (b.ln() - a.ln()))
        .sum::<f64>()
}

/// fishtest `LLR_logistic`: GSPRT LLR for logistic Elo `elo0` vs `elo1`. `counts` are
/// `[L, D, W]` (3) or `[LL, LD, DD+WL, WD, WW]` (5).
pub fn llr_logistic(elo0: f64, elo1: f64, counts: &[f64]) -> f64 {
    llr_scores(elo_to_score(elo0), elo_to_score(elo1), counts)
}

/// The GSPRT LLR of "the mean score per game is `s1`" against "it is `s0`" (the engine of
/// [`llr_logistic`], for hypotheses that are not a single Elo difference: the gate's games
/// against opponents of several strengths, `rating::gate`). `counts` as for [`llr_logistic`].
pub fn llr_scores(s0: f64, s1: f64, counts: &[f64]) -> f64 {
    let (n, values, phat) = to_pdf(counts);
    match (
        mle_expected(&values, &phat, s0),
        mle_expected(&values, &phat, s1),
    ) {
        (Some(p0), Some(p1)) => llr_from(&phat, n, &p0, &p1),
        _ => llr_normal_approx(s0, s1, counts),
    }
}

/// fishtest `LLR_normalized`: GSPRT LLR for normalized Elo `nelo0` vs `nelo1` (per game).
/// For pentanomial counts the per-pair t-value is `√2` times the per-game one.
/// Falls back to fishtest's `LLR_normalized_alt` if a constrained MLE does not exist.
pub fn llr_normalized(nelo0: f64, nelo1: f64, counts: &[f64]) -> f64 {
    let (n, values, phat) = to_pdf(counts);
    let scale = if counts.len() == 5 {
        std::f64::consts::SQRT_2
    } else {
        1.0
    };
    let (t0, t1) = (scale * nelo0 / NELO_PER_T, scale * nelo1 / NELO_PER_T);
    match (
        mle_t_value(&values, &phat, 0.5, t0),
        mle_t_value(&values, &phat, 0.5, t1),
    ) {
        (Some(p0), Some(p1)) => llr_from(&phat, n, &p0, &p1),
        _ => llr_normalized_alt(nelo0, nelo1, counts),
    }
}

/// fishtest `LLR_normalized_alt` (Van den Bergh, "Comments on normalized Elo" §4.2):
/// `games/2 · ln((1 + (t − t0)²)/(1 + (t − t1)²))` with per-game t-values.
pub fn llr_normalized_alt(nelo0: f64, nelo1: f64, counts: &[f64]) -> f64 {
    let (n, values, phat) = to_pdf(counts);
    let (mu, var) = mean_var(&values, &phat);
    let (sigma_pg, games) = if counts.len() == 5 {
        ((2.0 * var).sqrt(), 2.0 * n)
    } else {
        (var.sqrt(), n)
    };
    let (t0, t1) = (nelo0 / NELO_PER_T, nelo1 / NELO_PER_T);
    let t = (mu - 0.5) / sigma_pg;
    games / 2.0 * ((1.0 + (t - t0).powi(2)) / (1.0 + (t - t1).powi(2))).ln()
}

/// fishtest `LLR_alt2` times N (Van den Bergh, "GSPRT approximation"): the Brownian
/// approximation `N·(s1 − s0)(2s̄ − s0 − s1)/(2σ²)`, with `s̄`, `σ²` the empirical mean and
/// variance of the per-unit score.
pub fn llr_normal_approx(s0: f64, s1: f64, counts: &[f64]) -> f64 {
    let (n, values, phat) = to_pdf(counts);
    let (s, var) = mean_var(&values, &phat);
    n * (s1 - s0) * (2.0 * s - s0 - s1) / var / 2.0
}

#[cfg(test)]
mod pair_tracker_tests {
    use super::*;

    #[test]
    fn the_verdict_words_follow_the_hypotheses() {
        // A gain test (0, 5) and a non-regression test (-20, 0), as fishtest words them.
        assert_eq!(
            SprtResult::AcceptH1.verdict(0.0, 5.0),
            "H1 accepted: the test bot is stronger"
        );
        assert_eq!(
            SprtResult::AcceptH0.verdict(0.0, 5.0),
            "H0 accepted: the test bot is not stronger"
        );
        assert_eq!(
            SprtResult::AcceptH1.verdict(-20.0, 0.0),
            "H1 accepted: no regression, the test bot is not weaker"
        );
        assert_eq!(
            SprtResult::AcceptH0.verdict(-20.0, 0.0),
            "H0 accepted: regression, the test bot is weaker"
        );
    }

    #[test]
    fn model_names_are_the_file_words() {
        // `sprt.json` has always held these words (docs: `logistic` or `normalized`).
        assert_eq!(SprtModel::Logistic.as_str(), "logistic");
        assert_eq!(SprtModel::Normalized.as_str(), "normalized");
    }

    #[test]
    fn pairs_count_when_their_second_game_arrives_in_any_order() {
        let mut t = PairTracker::default();
        // Pair 0: win and draw (1.5 points); pair 1: two losses; pair 2: one game only.
        assert!(!t.add(0, 1.0));
        assert!(!t.add(1, 0.0));
        assert!(!t.add(2, 0.5));
        assert!(t.add(0, 0.5));
        assert!(t.add(1, 0.0));
        assert_eq!(t.penta().to_array(), [1, 0, 0, 1, 0]);
        assert_eq!(t.open_pairs(), 1);
        // A pair id seen again after it closed starts a new pair.
        assert!(!t.add(0, 1.0));
        assert!(t.add(0, 1.0));
        assert_eq!(t.penta().to_array(), [1, 0, 0, 1, 1]);
    }
}
