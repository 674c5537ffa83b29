//! The Elo-vs-knob curve: a polynomial in the (rescaled) knob fitted by maximum likelihood to
//! every game at every evaluated knob value at once, with the opponents' Elos held fixed.
//!
//! Why one joint fit instead of rating each knob value on its own: neighbouring knob values
//! carry information about each other (the curve is smooth), so a target's Elo at its knob is
//! pinned down by games played near it, not only at it. That borrowing is what lets the
//! calibration stop with fewer games than rating a grid of points one by one.
//!
//! Model (the same logistic Elo as `rating::fit`, draws scored ½): for a game of the candidate
//! at knob `x` against an opponent of fixed Elo `R`, with `s = +1` when the candidate moves
//! first and `-1` otherwise, the candidate's expected score is
//! `σ(c·(E(x) + s·a − R))`, `c = ln 10 / 400`, `E(x) = Σ_j θ_j t^j`, `t` the knob mapped to
//! [-1, 1], and `a` half the first-move advantage. Newton's method on the log-likelihood (plus a
//! very weak Gaussian prior that only matters when the data cannot bound a coefficient); the
//! inverse of the negative Hessian is the covariance, and `Var E(x) = φ(x)ᵀ Σ φ(x)` (delta
//! method). The degree (1..=max) is chosen by AIC among those the distinct knob values support.

use serde::{Deserialize, Serialize};

/// `ln 10 / 400`: Elo to natural-log odds.
pub const C: f64 = std::f64::consts::LN_10 / 400.0;

/// The prior's standard deviation on every curve coefficient and on the advantage, in Elo: wide
/// enough never to matter when the data say anything.
const PRIOR_SD: f64 = 3000.0;

/// One game of the candidate, from the candidate's side.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Observation {
    /// The knob value the candidate played with.
    pub x: f64,
    /// Index into the reference pool.
    pub opponent: usize,
    /// The candidate moved first.
    pub candidate_first: bool,
    /// The candidate's points: 1, 0.5 or 0.
    pub score: f64,
}

/// The fitted curve.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Curve {
    /// Knob range used for the rescaling `t = 2(x − lo)/(hi − lo) − 1`.
    pub lo: f64,
    pub hi: f64,
    /// Coefficients θ_0..θ_d (Elo) then the half first-move advantage `a` (Elo).
    pub beta: Vec<f64>,
    /// Covariance of `beta`.
    pub cov: Vec<Vec<f64>>,
    /// Polynomial degree d.
    pub degree: usize,
    pub log_lik: f64,
    pub games: usize,
}

impl Curve {
    fn t(&self, x: f64) -> f64 {
        to_t(x, self.lo, self.hi)
    }

    fn phi(&self, x: f64) -> Vec<f64> {
        let t = self.t(x);
        (0..=self.degree).map(|j| t.powi(j as i32)).collect()
    }

    /// The fitted Elo at knob `x`.
    pub fn elo(&self, x: f64) -> f64 {
        self.phi(x).iter().zip(&self.beta).map(|(p, b)| p * b).sum()
    }

    /// The standard error of the fitted Elo at `x`.
    pub fn se(&self, x: f64) -> f64 {
        let phi = self.phi(x);
        let mut v = 0.0;
        for (i, pi) in phi.iter().enumerate() {
            for (j, pj) in phi.iter().enumerate() {
                v += pi * self.cov[i][j] * pj;
            }
        }
        v.max(0.0).sqrt()
    }

    /// The first-move advantage (first minus second, Elo) the fit found.
    pub fn advantage(&self) -> f64 {
        2.0 * self.beta[self.degree + 1]
    }

    /// The knob value in `[lo, hi]` whose fitted Elo is `target`: the crossing nearest `near`
    /// (if given) when the curve crosses more than once; when it never crosses, the end of the
    /// range whose Elo is nearest the target, with `reachable = false`.
    pub fn inverse(&self, target: f64, near: Option<f64>) -> Inverse {
        const N: usize = 2000;
        let xs: Vec<f64> = (0..=N)
            .map(|i| self.lo + (self.hi - self.lo) * i as f64 / N as f64)
            .collect();
        let es: Vec<f64> = xs.iter().map(|&x| self.elo(x) - target).collect();
        let mut crossings = Vec::new();
        for i in 0..N {
            if es[i] == 0.0 {
                crossings.push(xs[i]);
            } else if es[i].signum() != es[i + 1].signum() && es[i + 1] != 0.0 {
                // Bisection inside the grid cell.
                let (mut a, mut b) = (xs[i], xs[i + 1]);
                let fa = es[i];
                for _ in 0..50 {
                    let m = 0.5 * (a + b);
                    let fm = self.elo(m) - target;
                    if fm.signum() == fa.signum() {
                        a = m;
                    } else {
                        b = m;
                    }
                }
                crossings.push(0.5 * (a + b));
            }
        }
        if es[N] == 0.0 {
            crossings.push(xs[N]);
        }
        if crossings.is_empty() {
            let x = if es[0].abs() <= es[N].abs() {
                self.lo
            } else {
                self.hi
            };
            return Inverse {
                x,
                reachable: false,
            };
        }
        let near = near.unwrap_or(0.5 * (self.lo + self.hi));
        let x = crossings
            .into_iter()
            .min_by(|a, b| (a - near).abs().total_cmp(&(b - near).abs()))
            .expect("not empty");
        Inverse { x, reachable: true }
    }
}

/// Where the curve meets a target.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Inverse {
    pub x: f64,
    /// False when the curve does not reach the target inside the knob range (`x` is then the
    /// nearer end).
    pub reachable: bool,
}

pub(crate) fn to_t(x: f64, lo: f64, hi: f64) -> f64 {
    if hi > lo {
        2.0 * (x - lo) / (hi - lo) - 1.0
    } else {
        0.0
    }
}

/// Why no curve could be fitted.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum CurveError {
    #[error("no games to fit")]
    NoGames,
    #[error("the fit's information matrix is singular")]
    Singular,
}

/// Fits the curve of degree up to `max_degree` (chosen by AIC among the degrees the number of
/// distinct knob values allows) to `obs` against opponents of Elo `opponents`.
pub fn fit_curve(
    obs: &[Observation],
    opponents: &[f64],
    lo: f64,
    hi: f64,
    max_degree: usize,
) -> Result<Curve, CurveError> {
    if obs.is_empty() {
        return Err(CurveError::NoGames);
    }
    let mut xs: Vec<f64> = obs.iter().map(|o| o.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    let top = max_degree.min(xs.len().saturating_sub(1));
    let mut best: Option<(f64, Curve)> = None;
    for degree in 0..=top {
        // Degree 0 only when there is one knob value: a flat curve says nothing about slope.
        if degree == 0 && top > 0 {
            continue;
        }
        let curve = fit_degree(obs, opponents, lo, hi, degree)?;
        let aic = -2.0 * curve.log_lik + 2.0 * (degree + 2) as f64;
        if best.as_ref().map_or(true, |(b, _)| aic < *b) {
            best = Some((aic, curve));
        }
    }
    Ok(best.expect("at least one degree").1)
}

/// Maximum-likelihood fit of a fixed degree.
pub fn fit_degree(
    obs: &[Observation],
    opponents: &[f64],
    lo: f64,
    hi: f64,
    degree: usize,
) -> Result<Curve, CurveError> {
    let k = degree + 2;
    let mean_opp = opponents.iter().sum::<f64>() / opponents.len().max(1) as f64;
    let mut beta = vec![0.0; k];
    beta[0] = mean_opp;
    // Prior: θ_0 centred on the pool mean, everything else on 0.
    let prior_mean = beta.clone();
    let features = |o: &Observation| -> Vec<f64> {
        let t = to_t(o.x, lo, hi);
        let mut z: Vec<f64> = (0..=degree).map(|j| t.powi(j as i32)).collect();
        z.push(if o.candidate_first { 1.0 } else { -1.0 });
        z
    };
    // Games with the same knob, opponent and colours share their likelihood term: fit the
    // groups (points, games) instead of the games, which keeps each fit cheap.
    let mut groups: Vec<(Vec<f64>, f64, f64, f64)> = Vec::new(); // features, opp Elo, points, games
    let mut index: std::collections::HashMap<(u64, usize, bool), usize> =
        std::collections::HashMap::new();
    for o in obs {
        let key = (o.x.to_bits(), o.opponent, o.candidate_first);
        let i = *index.entry(key).or_insert_with(|| {
            groups.push((features(o), opponents[o.opponent], 0.0, 0.0));
            groups.len() - 1
        });
        groups[i].2 += o.score;
        groups[i].3 += 1.0;
    }
    let log_post = |beta: &[f64]| -> (f64, f64) {
        let mut ll = 0.0;
        for (z, r, points, games) in &groups {
            let eta = C * (dot(z, beta) - r);
            ll += points * log_sigmoid(eta) + (games - points) * log_sigmoid(-eta);
        }
        let prior: f64 = beta
            .iter()
            .zip(&prior_mean)
            .map(|(b, m)| -0.5 * ((b - m) / PRIOR_SD).powi(2))
            .sum();
        (ll + prior, ll)
    };
    let (mut current, mut ll) = log_post(&beta);
    let mut info = vec![vec![0.0; k]; k];
    for _ in 0..200 {
        let mut grad = vec![0.0; k];
        info = vec![vec![0.0; k]; k];
        for (z, r, points, games) in &groups {
            let eta = C * (dot(z, &beta) - r);
            let p = sigmoid(eta);
            let w = games * C * C * p * (1.0 - p);
            for i in 0..k {
                grad[i] += C * (points - games * p) * z[i];
                for j in 0..k {
                    info[i][j] += w * z[i] * z[j];
                }
            }
        }
        for i in 0..k {
            grad[i] -= (beta[i] - prior_mean[i]) / (PRIOR_SD * PRIOR_SD);
            info[i][i] += 1.0 / (PRIOR_SD * PRIOR_SD);
        }
        let step = solve(&info, &grad).ok_or(CurveError::Singular)?;
        let mut scale = 1.0;
        let mut improved = false;
        for _ in 0..30 {
            let trial: Vec<f64> = beta.iter().zip(&step).map(|(b, s)| b + scale * s).collect();
            let (post, l) = log_post(&trial);
            if post >= current - 1e-12 {
                let gain = post - current;
                beta = trial;
                current = post;
                ll = l;
                improved = gain > 1e-10;
                break;
            }
            scale *= 0.5;
        }
        if !improved {
            break;
        }
    }
    let cov = invert(&info).ok_or(CurveError::Singular)?;
    Ok(Curve {
        lo,
        hi,
        beta,
        cov,
        degree,
        log_lik: ll,
        games: obs.len(),
    })
}

/// A single setting's Elo against the fixed pool, with its standard error: the one-parameter fit
/// (degree 0) over the games at that setting only. Used for the per-point table.
pub fn point_estimate(obs: &[Observation], opponents: &[f64]) -> Result<(f64, f64), CurveError> {
    let c = fit_degree(obs, opponents, 0.0, 1.0, 0)?;
    Ok((c.beta[0], c.cov[0][0].sqrt()))
}

fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(crate) fn sigmoid(x: f64) -> f64 {
    1.0 / (1.0 + (-x).exp())
}

pub(crate) fn log_sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        -(-x).exp().ln_1p()
    } else {
        x - x.exp().ln_1p()
    }
}

/// Solves `a·x = b` by Gaussian elimination with partial pivoting (small systems only).
pub(crate) fn solve(a: &[Vec<f64>], b: &[f64]) -> Option<Vec<f64>> {
    let n = b.len();
    let mut m: Vec<Vec<f64>> = a
        .iter()
        .zip(b)
        .map(|(row, &bi)| {
            let mut r = row.clone();
            r.push(bi);
            r
        })
        .collect();
    for col in 0..n {
        let pivot = (col..n).max_by(|&i, &j| m[i][col].abs().total_cmp(&m[j][col].abs()))?;
        if m[pivot][col].abs() < 1e-300 {
            return None;
        }
        m.swap(col, pivot);
        for row in 0..n {
            if row != col {
                let f = m[row][col] / m[col][col];
                if f != 0.0 {
                    let pivot_row = m[col].clone();
                    for (a, p) in m[row].iter_mut().zip(&pivot_row).skip(col) {
                        *a -= f * p;
                    }
                }
            }
        }
    }
    Some((0..n).map(|i| m[i][n] / m[i][i]).collect())
}

/// The inverse of a small matrix (column by column).
pub(crate) fn invert(a: &[Vec<f64>]) -> Option<Vec<Vec<f64>>> {
    let n = a.len();
    let mut cols = Vec::with_capacity(n);
    for j in 0..n {
        let e: Vec<f64> = (0..n).map(|i| if i == j { 1.0 } else { 0.0 }).collect();
        cols.push(solve(a, &e)?);
    }
    Some(
        (0..n)
            .map(|i| (0..n).map(|j| cols[j][i]).collect())
            .collect(),
    )
}
