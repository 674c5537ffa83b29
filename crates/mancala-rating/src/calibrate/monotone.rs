//! The smooth monotone Elo curve of `arena calibrate --curve`: Elo against the knob as a
//! Bernstein polynomial with monotone coefficients, fitted by maximum likelihood to every game of
//! the calibration, with its intervals.
//!
//! Why not the calibration's own polynomial ([`super::curve`]): that one only has to be right
//! near the targets, and a cubic may turn back at an end; a bot that reads an Elo off the curve
//! (`option.Elo`) needs one knob value for every Elo in its range, i.e. a monotone curve over
//! the whole range. A Bernstein polynomial `E(u) = Σ_k c_k·C(n,k)·u^k·(1−u)^(n−k)`, `u` the knob
//! mapped to [0, 1], is monotone when its coefficients are, and smooth; the coefficients are
//! parametrised as `c_0` and steps `±exp(η_k)` so that every value of the parameters is a
//! monotone curve and the fit is unconstrained.
//!
//! The likelihood is the calibration's (logistic Elo, draws scored ½, the half first-move
//! advantage `a` as a parameter, opponents held at their Elos). Fisher scoring with step halving
//! (Gauss–Newton for this model); a weak prior keeps every step finite when a segment of the
//! curve is flat (sd 3000 Elo on `c_0` and `a`, sd 2 on each `η_k` around `ln 300`); the
//! covariance is the inverse information at the optimum, and `Var E(x) = gᵀΣg` with `g` the
//! gradient of `E(x)` (delta method). The degree (1 to `max_degree`, at most the number of
//! distinct knob values − 1) and the direction (rising or falling) are chosen by AIC.

use serde::{Deserialize, Serialize};

use super::curve::{invert, log_sigmoid, sigmoid, solve, Observation, C};

/// The prior on `c_0` and on the half advantage: sd in Elo.
const PRIOR_SD: f64 = 3000.0;
/// The prior on each step's log: centre and sd.
const STEP_PRIOR_MEAN: f64 = 5.703_782_474_656_201; // ln 300
const STEP_PRIOR_SD: f64 = 2.0;

/// The fitted monotone curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MonotoneCurve {
    /// The knob range, mapped to u = (x − lo)/(hi − lo).
    pub lo: f64,
    pub hi: f64,
    /// +1 rising with the knob, −1 falling.
    pub direction: f64,
    /// Parameters: `c_0`, `η_1..η_n`, then the half first-move advantage `a`.
    pub theta: Vec<f64>,
    /// Covariance of `theta`.
    pub cov: Vec<Vec<f64>>,
    pub log_lik: f64,
    pub games: usize,
}

/// The Bernstein basis of degree `n` at `u`.
fn basis(n: usize, u: f64) -> Vec<f64> {
    let mut binom = 1.0;
    (0..=n)
        .map(|k| {
            if k > 0 {
                binom = binom * (n - k + 1) as f64 / k as f64;
            }
            binom * u.powi(k as i32) * (1.0 - u).powi((n - k) as i32)
        })
        .collect()
}

impl MonotoneCurve {
    /// The polynomial degree `n`.
    pub fn degree(&self) -> usize {
        self.theta.len() - 2
    }

    fn u(&self, x: f64) -> f64 {
        ((x - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0)
    }

    /// The Bernstein coefficients `c_0..c_n` (Elo).
    pub fn coefficients(&self) -> Vec<f64> {
        coefficients(&self.theta, self.direction)
    }

    /// The fitted Elo at `x`.
    pub fn elo(&self, x: f64) -> f64 {
        let b = basis(self.degree(), self.u(x));
        b.iter().zip(self.coefficients()).map(|(b, c)| b * c).sum()
    }

    /// The standard error of the fitted Elo at `x`.
    pub fn se(&self, x: f64) -> f64 {
        let g = elo_gradient(&self.theta, self.direction, self.u(x));
        let mut v = 0.0;
        for (i, gi) in g.iter().enumerate() {
            for (j, gj) in g.iter().enumerate() {
                v += gi * self.cov[i][j] * gj;
            }
        }
        v.max(0.0).sqrt()
    }

    /// The knob value where the curve is at `elo`, and whether it gets there inside the range
    /// (else the nearer end).
    pub fn knob_for(&self, elo: f64) -> (f64, bool) {
        let (weak, strong) = if self.direction > 0.0 {
            (self.lo, self.hi)
        } else {
            (self.hi, self.lo)
        };
        if elo <= self.elo(weak) {
            return (weak, false);
        }
        if elo >= self.elo(strong) {
            return (strong, false);
        }
        let (mut a, mut b) = (weak, strong);
        for _ in 0..60 {
            let m = 0.5 * (a + b);
            if self.elo(m) < elo {
                a = m;
            } else {
                b = m;
            }
        }
        (0.5 * (a + b), true)
    }

    /// The first-move advantage the fit found (first minus second, Elo).
    pub fn advantage(&self) -> f64 {
        2.0 * self.theta[self.theta.len() - 1]
    }
}

fn coefficients(theta: &[f64], direction: f64) -> Vec<f64> {
    let n = theta.len() - 2;
    let mut c = Vec::with_capacity(n + 1);
    c.push(theta[0]);
    for k in 1..=n {
        c.push(c[k - 1] + direction * theta[k].exp());
    }
    c
}

/// `∂E(u)/∂θ` for the curve parameters (`c_0`, `η_1..η_n`, and 0 for `a`).
fn elo_gradient(theta: &[f64], direction: f64, u: f64) -> Vec<f64> {
    let n = theta.len() - 2;
    let b = basis(n, u);
    let mut g = vec![0.0; n + 2];
    g[0] = 1.0;
    // E = c_0 + Σ_k b_k Σ_{i ≤ k} ±exp(η_i): η_i weighs Σ_{k ≥ i} b_k.
    let mut tail = 0.0;
    for i in (1..=n).rev() {
        tail += b[i];
        g[i] = direction * theta[i].exp() * tail;
    }
    g
}

/// Why no monotone curve could be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MonotoneError {
    #[error("no games to fit")]
    NoGames,
    #[error("the games were all at one knob value: a curve needs at least two")]
    OneValue,
    #[error("the fit's information matrix is singular")]
    Singular,
}

/// Fits the monotone curve of degree 1..=`max_degree` and the direction that AIC prefers.
pub fn fit_monotone(
    obs: &[Observation],
    opponents: &[f64],
    lo: f64,
    hi: f64,
    max_degree: usize,
) -> Result<MonotoneCurve, MonotoneError> {
    if obs.is_empty() {
        return Err(MonotoneError::NoGames);
    }
    let mut xs: Vec<f64> = obs.iter().map(|o| o.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    if xs.len() < 2 {
        return Err(MonotoneError::OneValue);
    }
    let top = max_degree.max(1).min(xs.len() - 1);
    let mut best: Option<(f64, MonotoneCurve)> = None;
    for degree in 1..=top {
        for direction in [1.0, -1.0] {
            let Ok(curve) = fit_fixed(obs, opponents, lo, hi, degree, direction) else {
                continue;
            };
            let aic = -2.0 * curve.log_lik + 2.0 * (degree + 2) as f64;
            if best.as_ref().map_or(true, |(b, _)| aic < *b) {
                best = Some((aic, curve));
            }
        }
    }
    best.map(|(_, c)| c).ok_or(MonotoneError::Singular)
}

/// Games grouped by knob value, opponent and colour: (u, side sign, opponent Elo, points, games).
fn groups(obs: &[Observation], opponents: &[f64], lo: f64, hi: f64) -> Vec<[f64; 5]> {
    let mut out: Vec<[f64; 5]> = Vec::new();
    let mut index = std::collections::HashMap::new();
    for o in obs {
        let key = (o.x.to_bits(), o.opponent, o.candidate_first);
        let i = *index.entry(key).or_insert_with(|| {
            let u = ((o.x - lo) / (hi - lo)).clamp(0.0, 1.0);
            let s = if o.candidate_first { 1.0 } else { -1.0 };
            out.push([u, s, opponents[o.opponent], 0.0, 0.0]);
            out.len() - 1
        });
        out[i][3] += o.score;
        out[i][4] += 1.0;
    }
    out
}

/// The fit of one degree and direction.
pub fn fit_fixed(
    obs: &[Observation],
    opponents: &[f64],
    lo: f64,
    hi: f64,
    degree: usize,
    direction: f64,
) -> Result<MonotoneCurve, MonotoneError> {
    let groups = groups(obs, opponents, lo, hi);
    let k = degree + 2;
    let mean_opp = opponents.iter().sum::<f64>() / opponents.len().max(1) as f64;
    // Start: a straight line through the pool's mean, 600 Elo over the range.
    let mut theta = vec![0.0; k];
    theta[0] = mean_opp - direction * 300.0;
    for t in theta.iter_mut().take(degree + 1).skip(1) {
        *t = (600.0 / degree as f64).ln();
    }
    let prior = |theta: &[f64]| -> f64 {
        let mut p = -0.5 * ((theta[0] - mean_opp) / PRIOR_SD).powi(2)
            - 0.5 * (theta[k - 1] / PRIOR_SD).powi(2);
        for &eta in &theta[1..k - 1] {
            p -= 0.5 * ((eta - STEP_PRIOR_MEAN) / STEP_PRIOR_SD).powi(2);
        }
        p
    };
    // The linear predictor's parts for a group: E(u) and its gradient.
    let log_post = |theta: &[f64]| -> (f64, f64) {
        let c = coefficients(theta, direction);
        let a = theta[k - 1];
        let mut ll = 0.0;
        for &[u, s, r, points, games] in &groups {
            let e: f64 = basis(degree, u).iter().zip(&c).map(|(b, c)| b * c).sum();
            let eta = C * (e + s * a - r);
            ll += points * log_sigmoid(eta) + (games - points) * log_sigmoid(-eta);
        }
        (ll + prior(theta), ll)
    };
    let (mut current, mut ll) = log_post(&theta);
    let mut info = vec![vec![0.0; k]; k];
    for _ in 0..500 {
        let c = coefficients(&theta, direction);
        let a = theta[k - 1];
        let mut grad = vec![0.0; k];
        info = vec![vec![0.0; k]; k];
        for &[u, s, r, points, games] in &groups {
            let e: f64 = basis(degree, u).iter().zip(&c).map(|(b, c)| b * c).sum();
            let p = sigmoid(C * (e + s * a - r));
            let mut j = elo_gradient(&theta, direction, u);
            j[k - 1] = s;
            let w = games * C * C * p * (1.0 - p);
            for i in 0..k {
                grad[i] += C * (points - games * p) * j[i];
                for l in 0..k {
                    info[i][l] += w * j[i] * j[l];
                }
            }
        }
        grad[0] -= (theta[0] - mean_opp) / (PRIOR_SD * PRIOR_SD);
        info[0][0] += 1.0 / (PRIOR_SD * PRIOR_SD);
        grad[k - 1] -= theta[k - 1] / (PRIOR_SD * PRIOR_SD);
        info[k - 1][k - 1] += 1.0 / (PRIOR_SD * PRIOR_SD);
        for i in 1..k - 1 {
            grad[i] -= (theta[i] - STEP_PRIOR_MEAN) / (STEP_PRIOR_SD * STEP_PRIOR_SD);
            info[i][i] += 1.0 / (STEP_PRIOR_SD * STEP_PRIOR_SD);
        }
        let step = solve(&info, &grad).ok_or(MonotoneError::Singular)?;
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..40 {
            let trial: Vec<f64> = theta
                .iter()
                .zip(&step)
                .map(|(t, s)| t + scale * s)
                .collect();
            let (post, l) = log_post(&trial);
            if post >= current - 1e-12 {
                improved = post - current > 1e-10;
                theta = trial;
                current = post;
                ll = l;
                break;
            }
            scale *= 0.5;
        }
        if !improved {
            break;
        }
    }
    let cov = invert(&info).ok_or(MonotoneError::Singular)?;
    Ok(MonotoneCurve {
        lo,
        hi,
        direction,
        theta,
        cov,
        log_lik: ll,
        games: obs.len(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::sim::SimulatedPlayer;
    use crate::calibrate::Player;

    /// Games at `xs` (pairs per opponent each) from a simulated player whose true Elo is `truth`.
    fn games(
        truth: impl Fn(f64) -> f64 + 'static,
        pool: &[f64],
        xs: &[f64],
        pairs: u32,
    ) -> Vec<Observation> {
        let mut player = SimulatedPlayer::new(truth, pool.to_vec(), 7);
        let mut obs = Vec::new();
        for (step, &x) in xs.iter().enumerate() {
            obs.extend(player.play(step, x, pairs).unwrap());
        }
        obs
    }

    #[test]
    fn bernstein_gradient_matches_finite_differences() {
        let theta = [800.0, 5.0, 6.2, 4.1, 12.0];
        for u in [0.0, 0.3, 0.77, 1.0] {
            let g = elo_gradient(&theta, 1.0, u);
            let e = |t: &[f64]| -> f64 {
                basis(3, u)
                    .iter()
                    .zip(coefficients(t, 1.0))
                    .map(|(b, c)| b * c)
                    .sum()
            };
            for i in 0..4 {
                let mut up = theta;
                up[i] += 1e-6;
                let fd = (e(&up) - e(&theta)) / 1e-6;
                assert!(
                    (fd - g[i]).abs() < 1e-3 * (1.0 + fd.abs()),
                    "{u} {i}: {fd} {}",
                    g[i]
                );
            }
        }
    }

    #[test]
    fn recovers_a_sigmoid_and_stays_monotone() {
        // A truth flat at both ends: a cubic would turn; the Bernstein fit may not.
        let truth = |x: f64| 600.0 + 1200.0 / (1.0 + (-(x - 10.0) / 2.5).exp());
        let pool = [700.0, 1000.0, 1300.0, 1600.0];
        let xs: Vec<f64> = (0..=10).map(|i| 2.0 * i as f64).collect();
        let obs = games(truth, &pool, &xs, 40);
        let c = fit_monotone(&obs, &pool, 0.0, 20.0, 5).unwrap();
        assert_eq!(c.direction, 1.0);
        let mut last = f64::MIN;
        for i in 0..=200 {
            let x = 0.1 * i as f64;
            let e = c.elo(x);
            assert!(e >= last - 1e-9, "falls at {x}");
            last = e;
        }
        for x in [2.0, 6.0, 10.0, 14.0, 18.0] {
            let (e, se) = (c.elo(x), c.se(x));
            assert!(
                (e - truth(x)).abs() < 3.0 * se + 10.0,
                "{x}: {e:.0} ± {se:.0} vs {:.0}",
                truth(x)
            );
            assert!(se > 0.0 && se < 60.0, "{x}: se {se}");
        }
        // 20 pairs against 4 opponents at 11 values: about half the advantage's prior mean 0.
        assert!(c.advantage().abs() < 60.0, "{}", c.advantage());
    }

    #[test]
    fn a_falling_knob_gets_a_falling_curve() {
        let truth = |x: f64| 1700.0 - 250.0 * x;
        let pool = [900.0, 1250.0, 1650.0];
        let obs = games(truth, &pool, &[0.0, 1.0, 2.0, 3.0, 4.0], 40);
        let c = fit_monotone(&obs, &pool, 0.0, 4.0, 3).unwrap();
        assert_eq!(c.direction, -1.0);
        let co = c.coefficients();
        assert!(co.windows(2).all(|w| w[0] >= w[1]), "{co:?}");
        assert!((c.elo(2.0) - 1200.0).abs() < 3.0 * c.se(2.0) + 10.0);
        let (x, inside) = c.knob_for(c.elo(1.3));
        assert!(inside && (x - 1.3).abs() < 1e-9, "{x}");
        assert_eq!(c.knob_for(5000.0), (0.0, false));
        assert_eq!(c.knob_for(-5000.0), (4.0, false));
    }

    #[test]
    fn one_knob_value_is_not_a_curve() {
        let pool = [1000.0, 1400.0];
        let obs = games(|_| 1200.0, &pool, &[3.0], 5);
        assert_eq!(
            fit_monotone(&obs, &pool, 0.0, 20.0, 3),
            Err(MonotoneError::OneValue)
        );
        assert_eq!(
            fit_monotone(&[], &pool, 0.0, 20.0, 3),
            Err(MonotoneError::NoGames)
        );
    }
}
