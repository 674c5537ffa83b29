//! Seed margins: every Kalah game ends with one (30–18 is not 25–23), and a colour-swapped
//! pair's summed margin cancels most of the opening's value. This module turns the margins of a
//! run's pairs into the answers the arena gives in Elo: a sequential test (`arena sprt --model
//! margin`) and an estimate with its interval.
//!
//! **The link.** Hypotheses stay in Elo, which is about the expected *score*; the margins are
//! tied to it by a fitted model, the normal shift link: a game's margin from the test bot's
//! view is `X = δ ± a + U`, `+a` when the test moves first, `U ~ N(0, σ²)` the same for both
//! colours, `δ` the strength difference in seeds. The expected score of a game is
//! `P(X > 0) + ½·P(X = 0)`, which with margins on a lattice of step `g` (2 in Kalah: the seeds
//! are shared out) is `P(X + J > 0)` for `J` uniform on `(−g/2, g/2)`; so `σ²` is the margins'
//! variance plus `g²/12`, and the test's expected score per game is
//!
//! ```text
//! s(δ) = ½ [Φ((δ + a)/σ) + Φ((δ − a)/σ)]
//! ```
//!
//! `a` is the mean of `(x₁ − x₂)/2` over pairs (`x₁` the test's margin moving first, `x₂`
//! moving second), `δ̂` the mean of `(x₁ + x₂)/2`, `σ²` the pooled variance of the residuals
//! `x₁ − δ̂ − a`, `x₂ − δ̂ + a` (`2N − 2` degrees of freedom) plus `g²/12`. An Elo hypothesis
//! `E` becomes the mean pair margin `2·s⁻¹(score(E))`. Where the link holds, the mean margin
//! measures the same strength as the score with less noise. It fails where the shape of the
//! margins is not normal near zero, or not the same for both bots: a bot that plays for safety
//! (many narrow wins, a few heavy losses) scores more than its mean margin says. [`check`]
//! compares the score the link predicts from the margins with the score played, on the run's
//! own pairs. `docs/statistics.md` §5a derives all of it and gives the measured error rates.

use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

use crate::sprt::{mle_expected, EloEstimate, SprtError, SprtResult, SprtStatus};
use crate::{elo_to_score, normal_cdf, normal_quantile, NELO_PER_T};

/// The score of one game from its margin: 1 won, ½ drawn, 0 lost.
pub fn game_score(margin: f64) -> f64 {
    if margin > 0.0 {
        1.0
    } else if margin < 0.0 {
        0.0
    } else {
        0.5
    }
}

/// One colour-swapped pair from the test bot's view: its margin (its seeds minus the other's)
/// in the game it moved first and in the game it moved second.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginPair {
    pub first: f64,
    pub second: f64,
}

impl MarginPair {
    /// The summed margin of the pair.
    pub fn sum(&self) -> f64 {
        self.first + self.second
    }

    /// The test bot's mean score per game in the pair.
    pub fn score(&self) -> f64 {
        (game_score(self.first) + game_score(self.second)) / 2.0
    }

    /// The first mover's mean score per game in the pair.
    pub fn first_mover_score(&self) -> f64 {
        (game_score(self.first) + 1.0 - game_score(self.second)) / 2.0
    }
}

/// Sums over pairs from which the link, the test and the check are read, updated one pair at a
/// time (a million pairs cost no more memory than one: the summed margins are counted by value).
/// The test reads each game's margin clipped to `±clip` seeds (see [`MarginTally::new`]).
#[derive(Debug, Clone, PartialEq)]
pub struct MarginTally {
    clip: f64,
    pairs: u64,
    /// Σ x₁, Σ x₂, Σ x₁², Σ x₂², Σ x₁x₂.
    s1: f64,
    s2: f64,
    s11: f64,
    s22: f64,
    s12: f64,
    /// Σ x₁³, Σ x₁⁴, Σ x₂³, Σ x₂⁴ (the residuals' fourth moment, for the link's kurtosis).
    s111: f64,
    s1111: f64,
    s222: f64,
    s2222: f64,
    /// Pair scores y (test) and f (first mover): Σ y, Σ y², Σ y·C, Σ f, Σ f², Σ f·(x₁ − x₂);
    /// C the pair's clipped sum, Σ C, Σ C².
    y: f64,
    yy: f64,
    yc: f64,
    c: f64,
    cc: f64,
    f: f64,
    ff: f64,
    fg: f64,
    /// Clipped summed margins by value (seeds, integers in practice).
    sums: BTreeMap<i64, u64>,
    /// All margins share their parity (a lattice of step 2), or not (step 1).
    parity: Option<i64>,
    mixed_parity: bool,
    /// The shape of the link fitted on these pairs.
    shape: LinkShape,
}

/// The shape of the link's `U`: normal, or normal with the margins' own kurtosis (a
/// Gram–Charlier term). The score per seed of mean margin is the density of `U` at zero, and a
/// margin with lighter tails than a normal (random play's: excess kurtosis about −0.3) has less
/// of it than a normal of the same spread (`φ(0)/σ·(1 + κ/8)`): so each seed of margin is worth
/// less score than the normal link says, and an Elo gap more seeds. Measured, it is off on the
/// one known gap (a weaker Easy's margins do not move as a shift of their law): not the
/// default (`docs/statistics.md` §5a).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LinkShape {
    /// `U ~ N(0, σ²)`.
    #[default]
    Normal,
    /// `U` with the normal's Gram–Charlier density `φ(z)(1 + κ/24·He₄(z))`, `κ` the residuals'
    /// excess kurtosis (the lattice's uniform included, clamped to [`KURTOSIS_RANGE`]).
    Kurtosis,
}

/// The excess kurtosis the link takes, at most: outside it the Gram–Charlier density goes
/// negative where the test looks (beyond about three spreads for −0.6, near zero above 4).
pub const KURTOSIS_RANGE: (f64, f64) = (-0.6, 3.0);

impl Default for MarginTally {
    /// No clipping.
    fn default() -> Self {
        MarginTally::new(f64::INFINITY)
    }
}

impl MarginTally {
    /// An empty tally whose test reads each game's margin clipped to `±clip` seeds.
    pub fn new(clip: f64) -> MarginTally {
        MarginTally {
            clip: clip.abs(),
            pairs: 0,
            s1: 0.0,
            s2: 0.0,
            s11: 0.0,
            s22: 0.0,
            s12: 0.0,
            s111: 0.0,
            s1111: 0.0,
            s222: 0.0,
            s2222: 0.0,
            y: 0.0,
            yy: 0.0,
            yc: 0.0,
            c: 0.0,
            cc: 0.0,
            f: 0.0,
            ff: 0.0,
            fg: 0.0,
            sums: BTreeMap::new(),
            parity: None,
            mixed_parity: false,
            shape: LinkShape::Normal,
        }
    }

    /// The same tally fitting a link of `shape`.
    pub fn with_shape(mut self, shape: LinkShape) -> MarginTally {
        self.shape = shape;
        self
    }

    /// The clip of each game's margin (seeds).
    pub fn clip(&self) -> f64 {
        self.clip
    }

    /// Adds a pair.
    pub fn add(&mut self, p: MarginPair) {
        let (x1, x2) = (p.first, p.second);
        let w = self.clip;
        let clipped = x1.clamp(-w, w) + x2.clamp(-w, w);
        self.pairs += 1;
        self.s1 += x1;
        self.s2 += x2;
        self.s11 += x1 * x1;
        self.s22 += x2 * x2;
        self.s12 += x1 * x2;
        self.s111 += x1 * x1 * x1;
        self.s1111 += x1 * x1 * x1 * x1;
        self.s222 += x2 * x2 * x2;
        self.s2222 += x2 * x2 * x2 * x2;
        let (y, f) = (p.score(), p.first_mover_score());
        self.y += y;
        self.yy += y * y;
        self.yc += y * clipped;
        self.c += clipped;
        self.cc += clipped * clipped;
        self.f += f;
        self.ff += f * f;
        self.fg += f * (x1 - x2);
        *self.sums.entry(clipped.round() as i64).or_insert(0) += 1;
        for x in [x1, x2] {
            let parity = (x.round() as i64).rem_euclid(2);
            match self.parity {
                None => self.parity = Some(parity),
                Some(q) if q != parity => self.mixed_parity = true,
                Some(_) => {}
            }
        }
    }

    /// Pairs added.
    pub fn pairs(&self) -> u64 {
        self.pairs
    }

    /// The lattice step of the margins: 2 when they all share a parity (Kalah, Oware: a fixed
    /// number of seeds is shared out), else 1.
    pub fn step(&self) -> f64 {
        if self.mixed_parity {
            1.0
        } else {
            2.0
        }
    }

    /// Mean clipped summed margin per pair.
    pub fn mean_sum(&self) -> f64 {
        self.c / self.pairs.max(1) as f64
    }

    /// Variance of the clipped summed margin over pairs (divisor N − 1).
    pub fn var_sum(&self) -> f64 {
        let n = self.pairs as f64;
        if n < 2.0 {
            return 0.0;
        }
        ((self.cc - self.c * self.c / n) / (n - 1.0)).max(0.0)
    }

    /// The test bot's mean score per game.
    pub fn score(&self) -> f64 {
        self.y / self.pairs.max(1) as f64
    }

    /// The first movers' mean score per game.
    pub fn first_mover_score(&self) -> f64 {
        self.f / self.pairs.max(1) as f64
    }

    /// Standard deviation of the pair mean score (the pentanomial's per-pair σ).
    pub fn pair_score_sd(&self) -> f64 {
        let n = self.pairs as f64;
        if n < 2.0 {
            return 0.0;
        }
        ((self.yy - self.y * self.y / n) / (n - 1.0))
            .max(0.0)
            .sqrt()
    }

    /// The clipped summed margins by value, with their counts.
    pub fn sums(&self) -> &BTreeMap<i64, u64> {
        &self.sums
    }

    /// The normal shift link fitted on the pairs so far (`None` before two pairs).
    pub fn link(&self) -> Option<Link> {
        let n = self.pairs as f64;
        if n < 2.0 {
            return None;
        }
        let advantage = (self.s1 - self.s2) / (2.0 * n);
        let delta = (self.s1 + self.s2) / (2.0 * n);
        // Σ (x₁ − δ − a)² + (x₂ − δ + a)² with δ + a = mean x₁ and δ − a = mean x₂.
        let ss = (self.s11 - self.s1 * self.s1 / n) + (self.s22 - self.s2 * self.s2 / n);
        let step = self.step();
        let resid_var = (ss / (2.0 * n - 2.0)).max(0.0);
        let var = resid_var + step * step / 12.0;
        let kurtosis = match self.shape {
            LinkShape::Normal => 0.0,
            LinkShape::Kurtosis => {
                // Σ (x − m)⁴ per colour from the power sums; then the lattice's uniform
                // J on (−g/2, g/2) added: E(U + J)⁴ = m₄ + 6·m₂·g²/12 + g⁴/80.
                let central4 = |s1: f64, s2: f64, s3: f64, s4: f64| {
                    let m = s1 / n;
                    s4 - 4.0 * m * s3 + 6.0 * m * m * s2 - 3.0 * m * m * m * s1
                };
                let m4 = (central4(self.s1, self.s11, self.s111, self.s1111)
                    + central4(self.s2, self.s22, self.s222, self.s2222))
                    / (2.0 * n);
                let g2 = step * step;
                let m4 = m4 + 6.0 * resid_var * g2 / 12.0 + g2 * g2 / 80.0;
                (m4 / (var * var) - 3.0).clamp(KURTOSIS_RANGE.0, KURTOSIS_RANGE.1)
            }
        };
        let mut link = Link {
            advantage,
            delta,
            sd: var.sqrt(),
            kurtosis,
            step,
            clip: self.clip,
            pairs: self.pairs,
        };
        // With clipping, δ̂ is where the link expects the clipped sums' mean.
        if self.clip.is_finite() {
            link.delta = link.delta_for_sum(self.mean_sum());
        }
        Some(link)
    }
}

/// The normal shift link (module docs): margins in seeds, scores per game.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct Link {
    /// `a`: the first mover's margin advantage (seeds).
    pub advantage: f64,
    /// `δ̂`: the test bot's mean margin per game, colours averaged (seeds).
    pub delta: f64,
    /// `σ`: the spread of a game's margin around `δ ± a`, the lattice's `g²/12` included.
    pub sd: f64,
    /// `κ`: the excess kurtosis of `U` the link takes (0: normal; see [`LinkShape`]).
    #[serde(default)]
    pub kurtosis: f64,
    /// `g`: the lattice step of the margins.
    pub step: f64,
    /// Each game's margin is clipped to `±clip` seeds before it is summed (∞: not clipped).
    pub clip: f64,
    /// Pairs it was fitted on.
    pub pairs: u64,
}

impl Link {
    /// `U/σ`'s distribution function: `Φ(z) − φ(z)·κ/24·He₃(z)` (Gram–Charlier; `Φ` at κ = 0).
    fn cdf(&self, z: f64) -> f64 {
        normal_cdf(z) - std_normal_density(z) * self.kurtosis / 24.0 * (z * z * z - 3.0 * z)
    }

    /// `U/σ`'s density: `φ(z)(1 + κ/24·He₄(z))`.
    fn density(&self, z: f64) -> f64 {
        let z2 = z * z;
        std_normal_density(z) * (1.0 + self.kurtosis / 24.0 * (z2 * z2 - 6.0 * z2 + 3.0))
    }

    /// `∫ z·density(z) dz`: `−φ(z)(1 + κ/24·(z⁴ − 2z² − 1))`.
    fn first_moment(&self, z: f64) -> f64 {
        let z2 = z * z;
        -std_normal_density(z) * (1.0 + self.kurtosis / 24.0 * (z2 * z2 - 2.0 * z2 - 1.0))
    }

    /// The expected clipped margin of one game whose margin is `mu + U`.
    fn clipped_mean(&self, mu: f64) -> f64 {
        let (w, s) = (self.clip, self.sd);
        if !w.is_finite() {
            return mu;
        }
        let (lo, hi) = ((-w - mu) / s, (w - mu) / s);
        -w * self.cdf(lo)
            + w * (1.0 - self.cdf(hi))
            + mu * (self.cdf(hi) - self.cdf(lo))
            + s * (self.first_moment(hi) - self.first_moment(lo))
    }

    /// The expected clipped summed margin of a pair at a mean margin of `delta`.
    pub fn pair_sum(&self, delta: f64) -> f64 {
        self.clipped_mean(delta + self.advantage) + self.clipped_mean(delta - self.advantage)
    }

    /// The mean margin at which the expected clipped pair sum is `sum` (bisection).
    pub fn delta_for_sum(&self, sum: f64) -> f64 {
        let span = 40.0 * self.sd + self.advantage.abs();
        let (mut lo, mut hi) = (-span, span);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.pair_sum(mid) < sum {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// The test bot's expected score per game at a mean margin of `delta` seeds.
    pub fn score(&self, delta: f64) -> f64 {
        let (a, s) = (self.advantage, self.sd);
        0.5 * (self.cdf((delta + a) / s) + self.cdf((delta - a) / s))
    }

    /// `ds/dδ`.
    pub fn slope(&self, delta: f64) -> f64 {
        let (a, s) = (self.advantage, self.sd);
        0.5 * (self.density((delta + a) / s) + self.density((delta - a) / s)) / s
    }

    /// The first mover's expected score per game when the test bot's mean margin is `delta`.
    pub fn first_mover_score(&self, delta: f64) -> f64 {
        let (a, s) = (self.advantage, self.sd);
        0.5 * (self.cdf((a + delta) / s) + self.cdf((a - delta) / s))
    }

    /// The mean margin per game at which the test bot's expected score is `score` (bisection;
    /// `s` increases with `δ`).
    pub fn delta_for_score(&self, score: f64) -> f64 {
        let score = score.clamp(1e-9, 1.0 - 1e-9);
        let span = 40.0 * self.sd + self.advantage.abs();
        let (mut lo, mut hi) = (-span, span);
        for _ in 0..200 {
            let mid = 0.5 * (lo + hi);
            if self.score(mid) < score {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    }

    /// The logistic Elo of the expected score at mean margin `delta`.
    pub fn elo(&self, delta: f64) -> f64 {
        unclamped_elo(self.score(delta))
    }

    /// Elo per seed of mean margin at `δ = 0` (for the reports: how the link scales).
    pub fn elo_per_seed(&self) -> f64 {
        let s = self.score(0.0);
        self.slope(0.0) * 400.0 / std::f64::consts::LN_10 / (s * (1.0 - s))
    }
}

/// The standard normal density.
fn std_normal_density(z: f64) -> f64 {
    (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
}

/// `−400·log10(1/s − 1)` without `score_to_elo`'s clamp.
fn unclamped_elo(s: f64) -> f64 {
    -400.0 * (1.0 / s - 1.0).log10()
}

/// Which Elo the hypotheses are stated in.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum EloKind {
    /// Logistic Elo of the expected score per game.
    Logistic,
    /// Normalized Elo: `(s − ½)/σ_game · 800/ln 10`, `σ_game = √2·σ_pair` (fishtest's
    /// pentanomial normalized Elo, σ from the run's pairs).
    Normalized,
}

impl EloKind {
    /// The expected score per game for an Elo of this kind, given the pairs so far.
    pub fn score(self, elo: f64, tally: &MarginTally) -> f64 {
        match self {
            EloKind::Logistic => elo_to_score(elo),
            EloKind::Normalized => {
                0.5 + elo / NELO_PER_T * std::f64::consts::SQRT_2 * tally.pair_score_sd()
            }
        }
    }
}

/// The margin GSPRT: H0 "the test bot is `elo0` better" against H1 "`elo1` better", with the
/// Elo mapped to the mean summed margin by the link fitted on the pairs so far, and the
/// log-likelihood ratio of the empirical distribution of the summed margins (Van den Bergh's
/// generalized LLR, as [`crate::sprt`] computes it for the pentanomial, over the observed
/// values instead of five; the ruleset's most extreme sums get fishtest's 1e-3 regularising
/// count so that every mean is reachable).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct MarginSprt {
    elo0: f64,
    elo1: f64,
    kind: EloKind,
    /// The largest margin of one game (the ruleset's seeds).
    max_margin: f64,
    /// Each game's margin is clipped to `±clip` seeds (∞: not clipped).
    clip: f64,
    /// The link's shape.
    shape: LinkShape,
    lower: f64,
    upper: f64,
}

/// Where a margin test stands after some pairs.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginStatus {
    pub status: SprtStatus,
    /// The mean summed margin per pair under H0 and H1 (seeds), `None` before the link exists.
    pub sum0: Option<f64>,
    pub sum1: Option<f64>,
}

impl MarginSprt {
    /// A test of `elo0` against `elo1` (`kind` Elo) at error rates `alpha`, `beta`, for games
    /// whose margins lie in `±max_margin` seeds.
    pub fn new(
        elo0: f64,
        elo1: f64,
        alpha: f64,
        beta: f64,
        kind: EloKind,
        max_margin: f64,
    ) -> Result<MarginSprt, SprtError> {
        let sprt =
            crate::sprt::Sprt::new(elo0, elo1, alpha, beta, crate::sprt::SprtModel::Logistic)?;
        Ok(MarginSprt {
            elo0,
            elo1,
            kind,
            max_margin: max_margin.abs().max(1.0),
            clip: f64::INFINITY,
            shape: LinkShape::Normal,
            lower: sprt.lower(),
            upper: sprt.upper(),
        })
    }

    /// The same test reading each game's margin clipped to `±clip` seeds.
    pub fn with_clip(mut self, clip: f64) -> MarginSprt {
        self.clip = clip.abs();
        self
    }

    /// The same test with a link of `shape`.
    pub fn with_shape(mut self, shape: LinkShape) -> MarginSprt {
        self.shape = shape;
        self
    }

    /// An empty tally for this test (its clip and link shape).
    pub fn tally(&self) -> MarginTally {
        MarginTally::new(self.clip).with_shape(self.shape)
    }

    /// `(elo0, elo1)`.
    pub fn elo_bounds(&self) -> (f64, f64) {
        (self.elo0, self.elo1)
    }

    /// The hypotheses as mean summed margins per pair, from the link of `tally`.
    pub fn sums(&self, tally: &MarginTally) -> Option<(f64, f64)> {
        let link = tally.link()?;
        let bound = self.bound(tally);
        let to_sum = |elo: f64| {
            let s = self.kind.score(elo, tally);
            link.pair_sum(link.delta_for_score(s)).clamp(-bound, bound)
        };
        Some((to_sum(self.elo0), to_sum(self.elo1)))
    }

    /// The largest clipped pair sum there can be.
    fn bound(&self, tally: &MarginTally) -> f64 {
        2.0 * self.max_margin.min(tally.clip())
    }

    /// The log-likelihood ratio of the pairs in `tally` (0 before the link exists).
    pub fn llr(&self, tally: &MarginTally) -> f64 {
        match self.sums(tally) {
            Some((m0, m1)) => llr_means(tally.sums(), self.bound(tally), m0, m1),
            None => 0.0,
        }
    }

    /// The decision after the pairs in `tally`.
    pub fn status(&self, tally: &MarginTally) -> MarginStatus {
        let sums = self.sums(tally);
        let llr = sums.map_or(0.0, |(m0, m1)| {
            llr_means(tally.sums(), self.bound(tally), m0, m1)
        });
        let result = if llr >= self.upper {
            SprtResult::AcceptH1
        } else if llr <= self.lower {
            SprtResult::AcceptH0
        } else {
            SprtResult::Continue
        };
        MarginStatus {
            status: SprtStatus {
                result,
                llr,
                lower: self.lower,
                upper: self.upper,
            },
            sum0: sums.map(|s| s.0),
            sum1: sums.map(|s| s.1),
        }
    }
}

/// The generalized LLR of "the mean is `m1`" against "it is `m0`" for values counted in
/// `counts`, the extremes `±bound` regularised with a count of 1e-3 where absent.
pub fn llr_means(counts: &BTreeMap<i64, u64>, bound: f64, m0: f64, m1: f64) -> f64 {
    let mut values: Vec<f64> = Vec::with_capacity(counts.len() + 2);
    let mut weights: Vec<f64> = Vec::with_capacity(counts.len() + 2);
    let (lo, hi) = (-bound.round() as i64, bound.round() as i64);
    if !counts.contains_key(&lo) {
        values.push(lo as f64);
        weights.push(1e-3);
    }
    for (&v, &c) in counts {
        values.push(v as f64);
        weights.push(c as f64);
    }
    if !counts.contains_key(&hi) {
        values.push(hi as f64);
        weights.push(1e-3);
    }
    let n: f64 = weights.iter().sum();
    let phat: Vec<f64> = weights.iter().map(|w| w / n).collect();
    match (
        mle_expected(&values, &phat, m0),
        mle_expected(&values, &phat, m1),
    ) {
        (Some(p0), Some(p1)) => {
            n * phat
                .iter()
                .zip(p0.iter().zip(&p1))
                .map(|(q, (a, b))| q * (b.ln() - a.ln()))
                .sum::<f64>()
        }
        _ => 0.0,
    }
}

/// The goodness-of-fit check of the link on the run's own pairs: the scores it predicts from the
/// margins against the scores played, each difference in standard errors (`z`; per-pair
/// influence of the fitted margin included, the link's spread taken as known).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct LinkCheck {
    pub pairs: u64,
    /// The test bot's score per game, played and predicted.
    pub score: f64,
    pub predicted_score: f64,
    pub z_score: f64,
    /// The first movers' score per game, played and predicted.
    pub first_mover_score: f64,
    pub predicted_first_mover_score: f64,
    pub z_first_mover: f64,
}

impl LinkCheck {
    /// Beyond this many standard errors the link is said not to fit.
    pub const LIMIT: f64 = 3.0;

    /// Both differences within [`LinkCheck::LIMIT`] standard errors.
    pub fn fits(&self) -> bool {
        self.z_score.abs() <= Self::LIMIT && self.z_first_mover.abs() <= Self::LIMIT
    }

    /// The check in words.
    pub fn describe(&self) -> String {
        format!(
            "link check on {} pairs: the test bot scored {:.1}% (the margins say {:.1}%, z {:+.1}), first movers {:.1}% (the margins say {:.1}%, z {:+.1}): {}",
            self.pairs,
            100.0 * self.score,
            100.0 * self.predicted_score,
            self.z_score,
            100.0 * self.first_mover_score,
            100.0 * self.predicted_first_mover_score,
            self.z_first_mover,
            if self.fits() {
                "the link fits"
            } else {
                "THE LINK DOES NOT FIT: the margins do not measure the score here (a bot that plays for safety, or margins not normal near zero); trust the pentanomial model (--model logistic)"
            }
        )
    }
}

/// The check of `tally`'s link (`None` before two pairs).
pub fn check(tally: &MarginTally) -> Option<LinkCheck> {
    let link = tally.link()?;
    let n = tally.pairs as f64;
    // Variance over pairs of u = y − c·D/2 and v = f − c'·(x₁ − x₂)/2 (divisor N − 1).
    let var = |sq: f64, cross: f64, dd: f64, mean_sum: f64, mean_d: f64, c: f64| {
        let u_sum = mean_sum * n - c * mean_d * n / 2.0;
        let u_sq = sq - c * cross + c * c * dd / 4.0;
        ((u_sq - u_sum * u_sum / n) / (n - 1.0)).max(0.0)
    };
    // δ̂ moves by 2/M'(δ) per unit of a pair's clipped sum (M the link's expected pair sum),
    // so the predicted score by c·C/2 with c = 2s'(δ)/M'(δ) (c = s' without clipping).
    let h = 1e-4;
    let m_slope = (link.pair_sum(link.delta + h) - link.pair_sum(link.delta - h)) / (2.0 * h);
    let c = 2.0 * link.slope(link.delta) / m_slope.max(1e-12);
    let var_u = var(
        tally.yy,
        tally.yc,
        tally.cc,
        tally.score(),
        tally.mean_sum(),
        c,
    );
    let a = link.advantage;
    let s = link.sd;
    let c_first =
        0.5 * (link.density((a + link.delta) / s) + link.density((a - link.delta) / s)) / s;
    let gg = tally.s11 + tally.s22 - 2.0 * tally.s12;
    let mean_g = (tally.s1 - tally.s2) / n;
    let var_v = var(
        tally.ff,
        tally.fg,
        gg,
        tally.first_mover_score(),
        mean_g,
        c_first,
    );
    let z = |played: f64, predicted: f64, var: f64| {
        let se = (var / n).sqrt();
        if se > 0.0 {
            (played - predicted) / se
        } else if (played - predicted).abs() < 1e-12 {
            0.0
        } else {
            f64::INFINITY.copysign(played - predicted)
        }
    };
    let predicted_score = link.score(link.delta);
    let predicted_first = link.first_mover_score(link.delta);
    Some(LinkCheck {
        pairs: tally.pairs,
        score: tally.score(),
        predicted_score,
        z_score: z(tally.score(), predicted_score, var_u),
        first_mover_score: tally.first_mover_score(),
        predicted_first_mover_score: predicted_first,
        z_first_mover: z(tally.first_mover_score(), predicted_first, var_v),
    })
}

/// The test bot's Elo from the margins: the link's Elo at the mean margin, the interval the
/// link's Elo at the ends of the mean margin's normal interval (the link's own uncertainty not
/// included). `None` before two pairs.
pub fn estimate(tally: &MarginTally, level: f64) -> Option<EloEstimate> {
    let link = tally.link()?;
    let z = normal_quantile(0.5 + level / 2.0);
    let se = (tally.var_sum() / tally.pairs as f64).sqrt();
    let mean = tally.mean_sum();
    let at = |sum: f64| link.elo(link.delta_for_sum(sum));
    Some(EloEstimate::new(
        link.elo(link.delta),
        at(mean - z * se),
        at(mean + z * se),
        level,
    ))
}

/// SPSA's result per iteration from margins (`arena tune --model margin`): each pair's clipped
/// summed margin of θ+ over θ−, scaled to the units of wins − losses, so that the tune's gains
/// (`r_end`) mean what they mean with W/D/L results. For a small gap `δ` (seeds) a game's
/// expected wins − losses is `2·f(0)·δ` and its expected clipped margin `P(|X| < w)·δ`; with
/// the normal link's `f(0) = φ(0)/σ`, a clipped margin counts `2φ(0)/(σ·P(|X| < w))` games,
/// `σ` and `P(|X| < w)` measured on every game of the tune so far.
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize, Deserialize)]
pub struct ResultScale {
    games: u64,
    sum: f64,
    sum_sq: f64,
    inside: u64,
}

impl ResultScale {
    /// Adds a pair's two games.
    pub fn add(&mut self, p: MarginPair, clip: f64) {
        for x in [p.first, p.second] {
            self.games += 1;
            self.sum += x;
            self.sum_sq += x * x;
            self.inside += u64::from(x.abs() < clip);
        }
    }

    /// Games counted.
    pub fn games(&self) -> u64 {
        self.games
    }

    /// Wins − losses per seed of clipped margin (`None` before two games).
    pub fn factor(&self) -> Option<f64> {
        let n = self.games as f64;
        if n < 2.0 {
            return None;
        }
        let var = ((self.sum_sq - self.sum * self.sum / n) / (n - 1.0)).max(0.0) + 1.0 / 3.0;
        let inside = (self.inside as f64 / n).max(1.0 / n);
        Some(2.0 / (2.0 * std::f64::consts::PI).sqrt() / var.sqrt() / inside)
    }

    /// The iteration's result: `factor` × the pairs' clipped sums (θ+'s view).
    pub fn result(&self, pairs: &[MarginPair], clip: f64) -> f64 {
        let total: f64 = pairs
            .iter()
            .map(|p| p.first.clamp(-clip, clip) + p.second.clamp(-clip, clip))
            .sum();
        self.factor().map_or(0.0, |f| f * total)
    }
}

pub mod ratings;
pub mod sim;

#[cfg(test)]
mod tests;
