//! Intervals from the posterior of the fit: draws of the ratings and the first-mover advantage
//! under the likelihood the fit maximises and its prior (BayesElo's virtual draws), by
//! Hamiltonian Monte Carlo. The arena's default intervals, chosen by measurement
//! (`coverage`, docs/statistics.md §Intervals).
//!
//! Why not the bootstrap: a resample of an encounter that was a sweep is that sweep again, so
//! the pair bootstrap gives a 4–0 encounter an interval of zero width, and a thin spoke or bridge
//! far too narrow an interval (52 % and 69 % coverage). The posterior keeps the uncertainty the
//! data leave: a 4–0 sweep under one virtual draw is a Beta(4.5, 0.5) posterior of the expected
//! score, Jeffreys' interval, whose frequentist coverage is close to nominal (Brown, Cai &
//! DasGupta 2001).
//!
//! Two corrections make the quasi-likelihood (a draw counted as half a win and half a loss) a
//! posterior with the right width, as Ribatet, Cooley & Davison (2012) adjust a composite
//! likelihood by its magnitude: the real games' counts are weighted by
//! `w = dim / tr(H⁻¹ J)`, `H` the quasi-likelihood's information and `J` the variance of the
//! score residuals under the fitted draw law. Without draws `J = H` and `w = 1`; with 70 % draws
//! between equals a game says three times more than a half-win-half-loss would, and `w ≈ 3`.
//!
//! The sampler works in coordinates whitened by the Cholesky factor of the posterior's curvature
//! at the fitted point (`q = q̂ + L⁻ᵀ z`), so that collective directions (two groups joined by one
//! thin bridge, a gauntlet's hub) mix as fast as single players. From [`DIAGONAL_FROM`] free
//! parameters on, that factor (dim² per leapfrog step, dim³ to set up) gives way to a diagonal
//! metric in extended coordinates (every player a coordinate, a Gaussian on each group's mean:
//! `fit::Extended`), the curvature's diagonal at the fitted point, and a step costs one pass
//! over the cells. A large pool's curvature is a sparse graph Laplacian; where its players meet
//! many opponents (a site) the diagonal follows it, where one thin bridge joins two large
//! groups it mixes that direction slowly and R-hat says so. The metric changes the speed, not
//! the posterior (a test draws both on one pool). Four chains, each with its own
//! warm-up that tunes the step size; the chains are the same whatever the number of threads.
//! Divergent transitions (an energy error above 1000) and a potential scale reduction above 1.05
//! are counted and reported.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use crate::bootstrap::{summarise, BootstrapSummary, IntervalMethod};
use crate::fit::{
    draw_probability, expected, fit_cells, softplus, Coordinate, Extended, FitCell, FitConfig,
    Model, Objective, Ratings, ADV_PRIOR_SD,
};
use crate::linalg::{cholesky, cholesky_inverse};
use crate::{check_level, GameTable, RatingError};

/// Chains run for every posterior (fixed, so the draws do not depend on the threads).
const CHAINS: usize = 4;
/// Energy error that marks a divergent transition.
const DIVERGENCE: f64 = 1000.0;
/// From this many free parameters on, the metric is diagonal (module docs): the dense one costs
/// `dim²` per leapfrog step and `dim³` to set up, which at a thousand players was most of
/// `arena rate`'s time.
pub const DIAGONAL_FROM: usize = 150;

/// What the sampler reports besides the draws.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize)]
pub struct Diagnostics {
    /// The weight of the real games (`w` of the module docs).
    pub weight: f64,
    /// Divergent transitions after warm-up.
    pub divergent: usize,
    /// The largest potential scale reduction over the parameters (Gelman & Rubin; 1 is ideal).
    pub r_hat: f64,
    /// Acceptance rate after warm-up.
    pub acceptance: f64,
}

/// `w = dim / tr(H⁻¹ J)` at the raw point `raw`: the quasi-likelihood's information `H` of the
/// real games and the variance `J` of their score under the draw law with parameter `nu`.
/// With the inverse of `H` at hand (`inverse`, large pools) `tr(H⁻¹ J) = Σ_c J_c a_cᵀ H⁻¹ a_c`
/// over the cells, without a solve per parameter.
fn magnitude(
    model: &Model,
    table: &GameTable,
    raw: &[f64],
    nu: f64,
    inverse: Option<&[f64]>,
) -> f64 {
    let layout = &model.layout;
    let m = layout.dim();
    if m == 0 || nu <= 0.0 {
        return 1.0;
    }
    let q = layout.free(raw);
    if let Some(inverse) = inverse {
        let trace: f64 = table
            .cells()
            .iter()
            .map(|c| {
                let n = c.counts.iter().sum::<u64>() as f64;
                let p = expected(layout.x(&q, c.first, c.second));
                let v = n * (p * (1.0 - p) - 0.25 * draw_probability(p, nu)).max(0.0);
                v * layout.quadratic(inverse, c.first, c.second)
            })
            .sum();
        return if trace > 0.0 && trace.is_finite() {
            (m as f64 / trace).clamp(1.0, 100.0)
        } else {
            1.0
        };
    }
    let (mut info, mut var) = (Vec::new(), Vec::new());
    for c in table.cells() {
        let n = c.counts.iter().sum::<u64>() as f64;
        let p = expected(layout.x(&q, c.first, c.second));
        info.push(n * p * (1.0 - p));
        var.push(n * (p * (1.0 - p) - 0.25 * draw_probability(p, nu)).max(0.0));
    }
    let mut h = layout.weighted_outer_sum(table, &info);
    let j = layout.weighted_outer_sum(table, &var);
    // A tiny ridge keeps H invertible where the real games leave a direction free (the
    // advantage when every encounter was played in one colour only).
    for k in 0..m {
        h[k * m + k] += 1e-9;
    }
    let Some(l) = cholesky(&h, m) else {
        return 1.0;
    };
    let mut trace = 0.0;
    let mut col = vec![0.0; m];
    let lt = crate::linalg::transpose(&l, m);
    for k in 0..m {
        col.iter_mut()
            .enumerate()
            .for_each(|(r, x)| *x = j[r * m + k]);
        crate::linalg::cholesky_solve_t(&l, &lt, m, &mut col);
        trace += col[k];
    }
    if trace > 0.0 && trace.is_finite() {
        (m as f64 / trace).clamp(1.0, 100.0)
    } else {
        1.0
    }
}

/// The log posterior in whitened coordinates and its gradient.
struct Target<'a> {
    model: &'a Model,
    objective: Objective,
    cells: &'a [FitCell],
    metric: Metric,
    /// Number of whitened coordinates.
    dim: usize,
    /// The free parameters at the last [`Target::position`] or evaluation.
    q: Vec<f64>,
    grad_q: Vec<f64>,
}

/// How whitened coordinates map to the free parameters.
#[derive(Clone)]
enum Metric {
    /// `q = centre + C z`, `C` the lower Cholesky factor of the metric (the posterior covariance
    /// as far as it is known), row-major `m × m`.
    Dense {
        centre: Vec<f64>,
        c: Vec<f64>,
        m: usize,
    },
    /// Large pools: the extended coordinates `φ = centre + S z`, `S` diagonal.
    Diagonal(Box<Diagonal>),
}

/// The diagonal metric: in the extended coordinates of [`Extended`] (every player of a group
/// without an anchor a coordinate, a Gaussian on the group's mean), `S = D^(−½)`, `D` the
/// diagonal of the posterior's curvature at the fitted point. A rating fit's curvature is a
/// weighted graph Laplacian (one row per player, an entry per encounter) plus the mean's
/// precision: its diagonal follows each player's information, which is what sets its scale.
#[derive(Clone)]
struct Diagonal {
    ext: Extended,
    centre: Vec<f64>,
    scale: Vec<f64>,
    /// Per group of `ext.groups`: the precision of the Gaussian on its mean.
    tau: Vec<f64>,
    /// The coordinates, then the fixed anchors' values (constants the cells read).
    phi: Vec<f64>,
    grad_phi: Vec<f64>,
    /// `Q`'s cells in coordinates (`None` with the draw law, which takes `Layout::eval_parts`).
    flat: Option<Vec<FlatCell>>,
    adv: Option<usize>,
}

/// A cell of `Q` in [`Diagonal`]'s coordinates: `x = φ_first − φ_second (+ φ_adv)`.
#[derive(Clone, Copy)]
struct FlatCell {
    first: u32,
    second: u32,
    n: f64,
    s: f64,
}

impl Diagonal {
    /// The metric at the free parameters `q` (the fit's point).
    fn new(model: &Model, objective: Objective, cells: &[FitCell], q: &[f64]) -> Diagonal {
        let layout = &model.layout;
        let ext = layout.extended();
        let (m, dim) = (layout.dim(), ext.dim);
        let mut fixed = Vec::new();
        let index: Vec<Option<usize>> = ext
            .player
            .iter()
            .map(|c| match *c {
                Coordinate::Free(k) => Some(k),
                Coordinate::Fixed(v) => {
                    fixed.push(v);
                    Some(dim + fixed.len() - 1)
                }
                Coordinate::None => None,
            })
            .collect();
        // The centre: `q`, each group's held player where the group's mean is 0.
        let mut phi = vec![0.0; dim];
        phi[..m].copy_from_slice(q);
        for members in &ext.groups {
            let held = -members[1..].iter().map(|&k| q[k]).sum::<f64>() / members.len() as f64;
            phi[members[0]] = held;
            for &k in &members[1..] {
                phi[k] += held;
            }
        }
        let adv = layout.advantage();
        let mut curvature = vec![0.0; dim + fixed.len()];
        for c in cells.iter().filter(|c| c.n > 0.0) {
            let w = objective.information(c, layout.x(q, c.first, c.second));
            for k in [index[c.first], index[c.second], adv].into_iter().flatten() {
                curvature[k] += w;
            }
        }
        for &(k, _, precision) in layout.penalties() {
            curvature[k] += precision;
        }
        if let Some(k) = adv {
            curvature[k] += 1.0 / (ADV_PRIOR_SD * ADV_PRIOR_SD);
        }
        // The mean's precision: the sum of the members' curvatures makes the direction that
        // moves the whole group of unit scale in whitened coordinates, as the others are.
        let tau: Vec<f64> = ext
            .groups
            .iter()
            .map(|members| members.iter().map(|&k| curvature[k]).sum())
            .collect();
        for (members, t) in ext.groups.iter().zip(&tau) {
            let len = members.len() as f64;
            for &k in members {
                curvature[k] += t / (len * len);
            }
        }
        let scale = curvature[..dim]
            .iter()
            .map(|&d| {
                if d > 0.0 && d.is_finite() {
                    1.0 / d.sqrt()
                } else {
                    1.0
                }
            })
            .collect();
        let flat = matches!(objective, Objective::ExpectedScore).then(|| {
            cells
                .iter()
                .filter(|c| c.n > 0.0)
                .filter_map(|c| {
                    Some(FlatCell {
                        first: index[c.first]? as u32,
                        second: index[c.second]? as u32,
                        n: c.n,
                        s: c.s,
                    })
                })
                .collect()
        });
        let centre = phi.clone();
        phi.extend(fixed);
        Diagonal {
            ext,
            grad_phi: vec![0.0; phi.len()],
            centre,
            scale,
            tau,
            phi,
            flat,
            adv,
        }
    }

    /// `φ = centre + S z`.
    fn place(&mut self, z: &[f64]) {
        for (((p, c), s), z) in self
            .phi
            .iter_mut()
            .zip(&self.centre)
            .zip(&self.scale)
            .zip(z)
        {
            *p = c + s * z;
        }
    }

    /// The free parameters at `φ`.
    fn free(&self, q: &mut [f64]) {
        for (k, x) in q.iter_mut().enumerate() {
            *x = self.phi[k] - self.ext.held_of[k].map_or(0.0, |h| self.phi[h]);
        }
    }
}

impl Target<'_> {
    /// The free parameters at `z` into `self.q`.
    fn position(&mut self, z: &[f64]) {
        match &mut self.metric {
            Metric::Dense { centre, c, m } => {
                let m = *m;
                for i in 0..m {
                    let row = &c[i * m..i * m + i + 1];
                    self.q[i] = centre[i] + row.iter().zip(z).map(|(a, b)| a * b).sum::<f64>();
                }
            }
            Metric::Diagonal(d) => {
                d.place(z);
                d.free(&mut self.q);
            }
        }
    }

    /// The log density at `z` (if `value`; else 0, which saves a logarithm per cell on the
    /// inner leapfrog steps), and its gradient in `z` in `grad`.
    fn eval(&mut self, z: &[f64], grad: &mut [f64], value: bool) -> f64 {
        if let Metric::Diagonal(_) = self.metric {
            return self.eval_diagonal(z, grad, value);
        }
        self.position(z);
        let f = self.model.layout.eval_parts(
            self.objective,
            self.cells,
            &self.q,
            value,
            Some(&mut self.grad_q),
            None,
        );
        let Metric::Dense { c, m, .. } = &self.metric else {
            unreachable!("the diagonal metric returned above")
        };
        // The gradient in z: `Cᵀ ∇_q`.
        let m = *m;
        grad.fill(0.0);
        for i in 0..m {
            let g = self.grad_q[i];
            for (k, gk) in grad.iter_mut().enumerate().take(i + 1) {
                *gk += c[i * m + k] * g;
            }
        }
        f
    }

    /// [`Target::eval`] with the diagonal metric: `Q`'s cells read the coordinates directly
    /// (the draw law goes through the free parameters), then the groups' means.
    fn eval_diagonal(&mut self, z: &[f64], grad: &mut [f64], value: bool) -> f64 {
        let Metric::Diagonal(d) = &mut self.metric else {
            unreachable!("called with the diagonal metric")
        };
        d.place(z);
        d.grad_phi.fill(0.0);
        let mut f = 0.0;
        if let Some(flat) = &d.flat {
            let (phi, g) = (&d.phi, &mut d.grad_phi);
            let mut g_adv = 0.0;
            let h = d.adv.map_or(0.0, |k| phi[k]);
            for c in flat {
                let (a, b) = (c.first as usize, c.second as usize);
                let x = phi[a] - phi[b] + h;
                if value {
                    f += c.s * x - c.n * softplus(x);
                }
                let gx = c.s - c.n * expected(x);
                g[a] += gx;
                g[b] -= gx;
                g_adv += gx;
            }
            for &(k, target, precision) in self.model.layout.penalties() {
                let e = phi[k] - target;
                f -= 0.5 * precision * e * e;
                g[k] -= precision * e;
            }
            if let Some(k) = d.adv {
                let v = ADV_PRIOR_SD * ADV_PRIOR_SD;
                f -= 0.5 * phi[k] * phi[k] / v;
                g[k] += g_adv - phi[k] / v;
            }
        } else {
            d.free(&mut self.q);
            f = self.model.layout.eval_parts(
                self.objective,
                self.cells,
                &self.q,
                value,
                Some(&mut self.grad_q),
                None,
            );
            for (k, &gq) in self.grad_q.iter().enumerate() {
                d.grad_phi[k] += gq;
                if let Some(h) = d.ext.held_of[k] {
                    d.grad_phi[h] -= gq;
                }
            }
        }
        for (members, &tau) in d.ext.groups.iter().zip(&d.tau) {
            let len = members.len() as f64;
            let mean = members.iter().map(|&k| d.phi[k]).sum::<f64>() / len;
            f -= 0.5 * tau * mean * mean;
            for &k in members {
                d.grad_phi[k] -= tau * mean / len;
            }
        }
        for ((g, s), gp) in grad.iter_mut().zip(&d.scale).zip(&d.grad_phi) {
            *g = s * gp;
        }
        if value {
            f
        } else {
            0.0
        }
    }

    /// `z` such that `position(z)` is `q` (forward substitution). The diagonal metric is never
    /// adapted: `z` stays.
    fn whiten(&self, q: &[f64], z: &mut [f64]) {
        let Metric::Dense { centre, c, m } = &self.metric else {
            return;
        };
        let m = *m;
        for i in 0..m {
            let mut s = q[i] - centre[i];
            for k in 0..i {
                s -= c[i * m + k] * z[k];
            }
            z[i] = s / c[i * m + i];
        }
    }

    /// A new metric from the draws `window` (free parameters), shrunk towards `fallback` (the
    /// covariance at the mode) as Stan regularises its adapted metric. The diagonal metric
    /// stays as it is.
    fn adapt(&mut self, window: &[Vec<f64>], fallback: &[f64]) {
        let Metric::Dense { c, m, .. } = &mut self.metric else {
            return;
        };
        let (m, k) = (*m, window.len() as f64);
        // A dense covariance needs several draws per parameter; with fewer, the metric at the
        // mode is the better guess (and with many players the posterior is close to normal).
        if window.len() < 4 * m.max(3) {
            return;
        }
        let mut mean = vec![0.0; m];
        for d in window {
            mean.iter_mut().zip(d).for_each(|(a, b)| *a += b / k);
        }
        let mut cov = vec![0.0; m * m];
        for d in window {
            for i in 0..m {
                for j in 0..=i {
                    cov[i * m + j] += (d[i] - mean[i]) * (d[j] - mean[j]) / (k - 1.0);
                }
            }
        }
        let shrink = 5.0 / (k + 5.0);
        for i in 0..m {
            for j in 0..=i {
                let v = (1.0 - shrink) * cov[i * m + j] + shrink * fallback[i * m + j];
                cov[i * m + j] = v;
                cov[j * m + i] = v;
            }
        }
        if let Some(l) = cholesky(&cov, m) {
            *c = l;
        }
    }
}

/// Warm-up windows: the step size alone, then metric windows of growing length, then the step
/// size again (Stan's schedule, shortened).
const WINDOWS: [usize; 4] = [50, 100, 200, 50];
/// The diagonal metric's warm-up: the step size alone. Its metric is never adapted (the dense
/// one is not either above 50 parameters: a window holds fewer than 4 draws per parameter), so
/// the dense schedule's metric windows would only restart the step size's tuning; 150
/// iterations tune it as well from the fitted point, which is in the posterior's bulk.
const DIAGONAL_WINDOWS: [usize; 1] = [150];

/// What one chain kept after its warm-up.
#[derive(Default)]
struct ChainRun {
    /// Draws of the raw parameters.
    draws: Vec<Vec<f64>>,
    divergent: usize,
    accepted: usize,
}

/// One chain: the warm-up windows, then `draws` kept draws of the raw parameters.
fn chain(
    target: &mut Target<'_>,
    fallback: &[f64],
    windows: &[usize],
    draws: usize,
    rng: &mut ChaCha8Rng,
) -> ChainRun {
    let m = target.dim;
    let mut z = vec![0.0; m];
    let mut grad = vec![0.0; m];
    let mut logp = target.eval(&z, &mut grad, true);
    let mut eps = 1.0 / (m as f64).powf(0.25);
    let (mut divergent, mut accepted) = (0, 0);
    let mut out = Vec::with_capacity(draws);
    let mut window: Vec<Vec<f64>> = Vec::new();
    let (mut z1, mut g1, mut p) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    let warmup: usize = windows.iter().sum();
    let mut window_end = windows[0];
    let mut next_window = 1;
    let mut tuned = 0usize;
    for iter in 0..warmup + draws {
        // A path of about 1.5 in whitened units, with a jittered step so paths never resonate.
        let step = eps * rng.gen_range(0.8..1.2);
        let steps = ((1.5 / step).ceil() as usize).clamp(1, 64);
        p.iter_mut().for_each(|x| *x = rng.sample(StandardNormal));
        let h0 = -logp + 0.5 * p.iter().map(|x| x * x).sum::<f64>();
        z1.copy_from_slice(&z);
        g1.copy_from_slice(&grad);
        let mut logp1 = logp;
        for s in 0..steps {
            for (pk, gk) in p.iter_mut().zip(&g1) {
                *pk += 0.5 * step * gk;
            }
            for (zk, pk) in z1.iter_mut().zip(&p) {
                *zk += step * pk;
            }
            logp1 = target.eval(&z1, &mut g1, s + 1 == steps);
            if !g1.iter().all(|g| g.is_finite()) {
                logp1 = f64::NEG_INFINITY;
                break;
            }
            for (pk, gk) in p.iter_mut().zip(&g1) {
                *pk += 0.5 * step * gk;
            }
        }
        let h1 = -logp1 + 0.5 * p.iter().map(|x| x * x).sum::<f64>();
        let error = h1 - h0;
        let accept_p = if error.is_finite() {
            (-error).exp().min(1.0)
        } else {
            0.0
        };
        let warm = iter < warmup;
        let diverged = !(error.is_finite() && error < DIVERGENCE);
        if !warm && diverged {
            divergent += 1;
        }
        if rng.gen::<f64>() < accept_p {
            z.copy_from_slice(&z1);
            grad.copy_from_slice(&g1);
            logp = logp1;
            accepted += usize::from(!warm);
        }
        if !warm {
            target.position(&z);
            out.push(target.model.layout.raw(&target.q));
            continue;
        }
        // Robbins–Monro on log ε towards an acceptance of 0.8, shrinking as the window goes on.
        tuned += 1;
        eps *= ((accept_p - 0.8) / (tuned as f64).sqrt()).exp();
        if (1..windows.len() - 1).contains(&next_window) || next_window == windows.len() - 1 {
            target.position(&z);
            window.push(target.q.clone());
        }
        if iter + 1 == window_end && next_window < windows.len() {
            if next_window >= 2 {
                // The end of a metric window: a new metric, the chain's point kept.
                target.position(&z);
                let q = target.q.clone();
                target.adapt(&window, fallback);
                target.whiten(&q, &mut z);
                logp = target.eval(&z, &mut grad, true);
                eps = 1.0 / (m as f64).powf(0.25);
                tuned = 0;
            }
            window.clear();
            window_end += windows[next_window];
            next_window += 1;
        }
    }
    ChainRun {
        draws: out,
        divergent,
        accepted,
    }
}

/// Gelman–Rubin's potential scale reduction of one parameter over chains of equal length.
fn r_hat(chains: &[Vec<f64>]) -> f64 {
    let k = chains.len() as f64;
    let n = chains[0].len() as f64;
    if n < 2.0 {
        return 1.0;
    }
    let means: Vec<f64> = chains.iter().map(|c| c.iter().sum::<f64>() / n).collect();
    let grand = means.iter().sum::<f64>() / k;
    let b = n / (k - 1.0) * means.iter().map(|m| (m - grand).powi(2)).sum::<f64>();
    let w = chains
        .iter()
        .zip(&means)
        .map(|(c, m)| c.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n - 1.0))
        .sum::<f64>()
        / k;
    if w <= 0.0 {
        return 1.0;
    }
    (((n - 1.0) / n * w + b / n) / w).sqrt()
}

/// Draws `samples` times from the posterior of `point` (the fit of `table` with `fit_config`)
/// and summarises the draws as the bootstrap does: percentile intervals, LOS, rank
/// probabilities.
pub fn posterior(
    table: &GameTable,
    point: &Ratings,
    fit_config: &FitConfig,
    samples: usize,
    level: f64,
    threads: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(BootstrapSummary, Diagnostics), RatingError> {
    posterior_with(
        table,
        point,
        fit_config,
        samples,
        level,
        threads,
        DIAGONAL_FROM,
        rng,
    )
}

/// [`posterior`] with the diagonal metric from `diagonal_from` free parameters on.
#[allow(clippy::too_many_arguments)]
fn posterior_with(
    table: &GameTable,
    point: &Ratings,
    fit_config: &FitConfig,
    samples: usize,
    level: f64,
    threads: usize,
    diagonal_from: usize,
    rng: &mut ChaCha8Rng,
) -> Result<(BootstrapSummary, Diagnostics), RatingError> {
    let n = table.players();
    fit_config.validate(n)?;
    check_level(level)?;
    if samples < 2 {
        return Err(RatingError::InvalidConfig(format!(
            "the posterior needs at least 2 draws, got {samples}"
        )));
    }
    let (model, inverse) = Model::for_intervals(table, fit_config, &point.raw, diagonal_from);
    let objective = model.objective(point.draw.nu);
    // The draw law's likelihood (the fit with loose anchors) counts draws as they are: no
    // weight for it.
    let weight = match objective {
        Objective::ExpectedScore => {
            magnitude(&model, table, &point.raw, point.draw.nu, inverse.as_deref())
        }
        Objective::DrawLaw(_) => 1.0,
    };
    drop(inverse);
    let counts: Vec<[f64; 3]> = table
        .cells()
        .iter()
        .map(|c| c.counts.map(|x| weight * x as f64))
        .collect();
    let cells = fit_cells(table, model.prior(), &counts);
    let layout = &model.layout;
    let m = layout.dim();
    let seeds: Vec<u64> = (0..CHAINS).map(|_| rng.gen()).collect();
    if m == 0 {
        let draws = vec![Some(point.raw.clone()); samples];
        let summary = summarise(
            &draws,
            n,
            &fit_config.anchor,
            level,
            IntervalMethod::Posterior,
        )?;
        return Ok((summary, Diagnostics::default()));
    }
    let (metric, fallback, windows): (Metric, Vec<f64>, &[usize]) = if m >= diagonal_from {
        // The chains start at the fit's point, close to the mode; HMC needs no mode.
        let q = layout.free(&point.raw);
        let d = Diagonal::new(&model, objective, &cells, &q);
        (Metric::Diagonal(Box::new(d)), Vec::new(), &DIAGONAL_WINDOWS)
    } else {
        // The centre: the mode of the weighted posterior, from the fit's point.
        let mut centre = layout.free(&point.raw);
        layout.maximize(objective, &cells, &mut centre)?;
        let mut h = vec![0.0; m * m];
        layout.eval(objective, &cells, &centre, None, Some(&mut h));
        let l = cholesky(&h, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
        // The covariance at the mode, H⁻¹: the first metric, and what adapted metrics shrink
        // to.
        let fallback = cholesky_inverse(&l, m);
        let c = cholesky(&fallback, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
        (Metric::Dense { centre, c, m }, fallback, &WINDOWS)
    };
    let dim = match &metric {
        Metric::Dense { m, .. } => *m,
        Metric::Diagonal(d) => d.ext.dim,
    };
    let per_chain = samples.div_ceil(CHAINS);
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    }
    .clamp(1, CHAINS);
    let results: Vec<ChainRun> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                let (model, cells, metric, seeds) = (&model, &cells, &metric, &seeds);
                let fallback = &fallback;
                scope.spawn(move || {
                    (w..CHAINS)
                        .step_by(threads)
                        .map(|c| {
                            let mut target = Target {
                                model,
                                objective,
                                cells,
                                metric: metric.clone(),
                                dim,
                                q: vec![0.0; m],
                                grad_q: vec![0.0; m],
                            };
                            let mut rng = ChaCha8Rng::seed_from_u64(seeds[c]);
                            let run = chain(&mut target, fallback, windows, per_chain, &mut rng);
                            (c, run)
                        })
                        .collect::<Vec<_>>()
                })
            })
            .collect();
        let mut all: Vec<(usize, ChainRun)> = workers
            .into_iter()
            .flat_map(|h| h.join().unwrap_or_default())
            .collect();
        all.sort_by_key(|(c, _)| *c);
        all.into_iter().map(|(_, r)| r).collect()
    });
    if results.len() != CHAINS {
        return Err(RatingError::NoConvergence { iterations: 0 });
    }
    let divergent = results.iter().map(|r| r.divergent).sum();
    let accepted: usize = results.iter().map(|r| r.accepted).sum();
    let mut worst = 1.0f64;
    for k in 0..=n {
        let per: Vec<Vec<f64>> = results
            .iter()
            .map(|r| r.draws.iter().map(|d| d[k]).collect())
            .collect();
        let r = r_hat(&per);
        if r.is_finite() {
            worst = worst.max(r);
        }
    }
    let draws: Vec<Option<Vec<f64>>> = results
        .into_iter()
        .flat_map(|r| r.draws)
        .take(samples)
        .map(|d| d.iter().all(|x| x.is_finite()).then_some(d))
        .collect();
    let mut summary = summarise(
        &draws,
        n,
        &fit_config.anchor,
        level,
        IntervalMethod::Posterior,
    )?;
    summary.failed += divergent;
    Ok((
        summary,
        Diagnostics {
            weight,
            divergent,
            r_hat: worst,
            acceptance: accepted as f64 / (per_chain * CHAINS) as f64,
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fit::{fit, Anchor};
    use crate::{analyse, Outcome, RatedGame, RatingConfig};
    use statrs::distribution::{Beta, ContinuousCDF};

    /// `wins` of `games` won by player 0 against player 1, colours alternating, no draws.
    fn duel(games: usize, wins: usize) -> Vec<RatedGame> {
        (0..games)
            .map(|k| {
                let won = k < wins;
                let (first, second) = if k % 2 == 0 { (0, 1) } else { (1, 0) };
                let outcome = match (won, first == 0) {
                    (true, true) | (false, false) => Outcome::Win,
                    _ => Outcome::Loss,
                };
                RatedGame {
                    pair: k as u64 / 2,
                    first,
                    second,
                    outcome,
                }
            })
            .collect()
    }

    fn elo_of(e: f64) -> f64 {
        400.0 * (e / (1.0 - e)).log10()
    }

    #[test]
    fn a_duel_s_interval_is_jeffreys_interval() {
        // Two players, no advantage, no draws: the posterior of the expected score is
        // Beta(k + ½, n − k + ½), and player 0 is rated 1200 + d/2.
        let (n, k) = (10, 7);
        let table = GameTable::new(2, &duel(n, k)).unwrap();
        let config = FitConfig {
            first_move_advantage: false,
            prior: 0.0,
            ..FitConfig::default()
        };
        let point = fit(&table, &config).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let (summary, d) = posterior(&table, &point, &config, 8000, 0.95, 2, &mut rng).unwrap();
        assert_eq!(d.weight, 1.0);
        assert_eq!(d.divergent, 0);
        let beta = Beta::new(k as f64 + 0.5, (n - k) as f64 + 0.5).unwrap();
        let low = 1200.0 + elo_of(beta.inverse_cdf(0.025)) / 2.0;
        let high = 1200.0 + elo_of(beta.inverse_cdf(0.975)) / 2.0;
        let got = summary.ratings[0];
        assert!(
            (got.low - low).abs() < 8.0,
            "low {} vs Jeffreys {low}",
            got.low
        );
        assert!(
            (got.high - high).abs() < 12.0,
            "high {} vs Jeffreys {high}",
            got.high
        );
    }

    #[test]
    fn a_sweep_and_a_two_game_encounter_get_intervals_of_real_width() {
        let names = vec!["a".to_string(), "b".to_string()];
        for games in [duel(4, 4), duel(2, 1)] {
            let mut rng = ChaCha8Rng::seed_from_u64(1);
            let r = analyse(&names, &games, &RatingConfig::default(), &mut rng).unwrap();
            for row in &r.rows {
                assert!(row.ci_high - row.ci_low > 150.0, "{row:?}");
                assert!(row.ci_low <= row.elo && row.elo <= row.ci_high, "{row:?}");
            }
            let fm = r.first_move;
            assert!(fm.ci_high - fm.ci_low > 100.0, "{fm:?}");
            let pentanomial = r.pairwise[0].pentanomial.unwrap();
            assert!(pentanomial.elo_high - pentanomial.elo_low > 150.0);
        }
    }

    #[test]
    fn the_draws_do_not_depend_on_the_threads() {
        let mut games = duel(12, 8);
        games.extend(duel(6, 2).into_iter().map(|g| RatedGame {
            pair: g.pair + 100,
            first: g.first + 1,
            second: g.second + 1,
            ..g
        }));
        let table = GameTable::new(3, &games).unwrap();
        let config = FitConfig {
            anchor: Anchor::Player(0, 1500.0),
            ..FitConfig::default()
        };
        let point = fit(&table, &config).unwrap();
        let run = |threads| {
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            posterior(&table, &point, &config, 400, 0.9, threads, &mut rng)
                .unwrap()
                .0
        };
        assert_eq!(run(1), run(3));
        assert_eq!(run(1).ratings[0].low, 1500.0);
    }

    /// `players` players with true Elos from N(0, 200), each playing `pairs` colour-swapped
    /// pairs against random others; results from the draw law (20 % draws between equals) with
    /// a first-mover advantage of 30 Elo. The truth and the games.
    fn known_pool(players: usize, pairs: usize, seed: u64) -> (Vec<f64>, Vec<RatedGame>) {
        use rand_distr::{Distribution, Normal};
        let mut rng = ChaCha8Rng::seed_from_u64(seed);
        let truth: Vec<f64> = (0..players)
            .map(|_| Normal::new(0.0, 200.0).unwrap().sample(&mut rng))
            .collect();
        let mut games = Vec::new();
        for a in 0..players {
            for k in 0..pairs {
                // Player `a` and the next one always meet, so the pool is connected.
                let b = if k == 0 {
                    (a + 1) % players
                } else {
                    (a + rng.gen_range(1..players)) % players
                };
                let pair = games.len() as u64 / 2;
                for (first, second) in [(a, b), (b, a)] {
                    let d = truth[first] - truth[second] + 30.0;
                    games.push(RatedGame {
                        pair,
                        first,
                        second,
                        outcome: crate::coverage::draw_outcome(d, 0.5, &mut rng),
                    });
                }
            }
        }
        (truth, games)
    }

    #[test]
    fn the_diagonal_metric_s_gradient_is_the_slope_of_its_log_density() {
        // With `Q` (its cells read directly) and with the draw law (loose anchors: through
        // `eval_parts`), against central differences of the log density.
        let (_, games) = known_pool(12, 3, 5);
        let table = GameTable::new(12, &games).unwrap();
        let loose = crate::fit::AnchorSet {
            loose: vec![crate::fit::LooseAnchor {
                player: 2,
                elo: 1300.0,
                sd: 100.0,
            }],
            mean: 1200.0,
            ..crate::fit::AnchorSet::default()
        };
        for anchor in [Anchor::default(), Anchor::Set(loose)] {
            let config = FitConfig {
                anchor,
                ..FitConfig::default()
            };
            let point = fit(&table, &config).unwrap();
            let (model, _) = Model::for_intervals(&table, &config, &point.raw, 0);
            let objective = model.objective(point.draw.nu);
            let counts = crate::fit::float_counts(&table);
            let cells = fit_cells(&table, model.prior(), &counts);
            let q = model.layout.free(&point.raw);
            let d = Diagonal::new(&model, objective, &cells, &q);
            let dim = d.ext.dim;
            let m = model.layout.dim();
            let mut target = Target {
                model: &model,
                objective,
                cells: &cells,
                metric: Metric::Diagonal(Box::new(d)),
                dim,
                q: vec![0.0; m],
                grad_q: vec![0.0; m],
            };
            let z: Vec<f64> = (0..dim).map(|k| 0.3 * ((k * 7 % 5) as f64 - 2.0)).collect();
            let mut grad = vec![0.0; dim];
            target.eval(&z, &mut grad, true);
            let mut scratch = vec![0.0; dim];
            for k in 0..dim {
                let h = 1e-5;
                let (mut up, mut down) = (z.clone(), z.clone());
                up[k] += h;
                down[k] -= h;
                let slope = (target.eval(&up, &mut scratch, true)
                    - target.eval(&down, &mut scratch, true))
                    / (2.0 * h);
                assert!(
                    (slope - grad[k]).abs() < 1e-5 * (1.0 + slope.abs()),
                    "{objective:?}, coordinate {k}: {slope} vs {}",
                    grad[k]
                );
            }
        }
    }

    #[test]
    fn the_diagonal_and_the_dense_metric_draw_the_same_posterior() {
        // 40 players with known ratings, 4 pairs each: both metrics sample the same posterior,
        // so their intervals differ by Monte Carlo error only. With 4000 draws an end (a 2.5 %
        // quantile) has a standard error of about 0.04 posterior SD per run at full efficiency,
        // 0.06 for a difference of two runs; the bounds allow for an efficiency of a half.
        let players = 40;
        let (truth, games) = known_pool(players, 4, 11);
        let table = GameTable::new(players, &games).unwrap();
        let config = FitConfig::default();
        let point = fit(&table, &config).unwrap();
        let run = |diagonal_from| {
            let mut rng = ChaCha8Rng::seed_from_u64(21);
            posterior_with(
                &table,
                &point,
                &config,
                4000,
                0.95,
                2,
                diagonal_from,
                &mut rng,
            )
            .unwrap()
        };
        let (dense, d_dense) = run(usize::MAX);
        let (diagonal, d_diagonal) = run(0);
        for d in [d_dense, d_diagonal] {
            assert_eq!(d.divergent, 0, "{d:?}");
            assert!(d.r_hat < 1.05, "{d:?}");
        }
        // The same weight, from solves or from the inverse (rounding apart).
        assert!((d_dense.weight - d_diagonal.weight).abs() < 1e-12 * d_dense.weight);
        let mean = truth.iter().sum::<f64>() / players as f64;
        let (mut gaps, mut worst) = (0.0, 0.0f64);
        for (i, (a, b)) in dense.ratings.iter().zip(&diagonal.ratings).enumerate() {
            let sd = dense.se[i];
            for gap in [(a.low - b.low).abs() / sd, (a.high - b.high).abs() / sd] {
                gaps += gap / (2 * players) as f64;
                worst = worst.max(gap);
            }
            let sd_gap = (dense.se[i] - diagonal.se[i]).abs() / sd;
            assert!(sd_gap < 0.1, "player {i}: SD {sd} vs {}", diagonal.se[i]);
        }
        assert!(gaps < 0.1, "mean gap {gaps} SD");
        assert!(worst < 0.3, "largest gap {worst} SD");
        // Both hold the truth (the pool's mean is 1200) about 95 % of the time.
        for summary in [&dense, &diagonal] {
            let held = held(summary, &truth, mean);
            assert!(held >= 34, "{held} of {players} intervals hold the truth");
        }
    }

    /// How many of the players' intervals hold their true rating (the pool's mean at 1200).
    fn held(summary: &BootstrapSummary, truth: &[f64], mean: f64) -> usize {
        (0..truth.len())
            .filter(|&i| {
                let t = 1200.0 + truth[i] - mean;
                summary.ratings[i].low <= t && t <= summary.ratings[i].high
            })
            .count()
    }

    #[test]
    fn a_pool_past_the_diagonal_threshold_settles_and_holds_the_truth() {
        // 200 players, 3 pairs each: `posterior` itself takes the diagonal metric here.
        let players = 200;
        let (truth, games) = known_pool(players, 3, 17);
        let table = GameTable::new(players, &games).unwrap();
        let config = FitConfig::default();
        let point = fit(&table, &config).unwrap();
        assert!(Model::new(&table, &config).layout.dim() >= DIAGONAL_FROM);
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let (summary, d) = posterior(&table, &point, &config, 1000, 0.95, 2, &mut rng).unwrap();
        assert_eq!(d.divergent, 0, "{d:?}");
        assert!(d.r_hat < 1.05, "{d:?}");
        assert!((0.6..0.95).contains(&d.acceptance), "{d:?}");
        let mean = truth.iter().sum::<f64>() / players as f64;
        let held = held(&summary, &truth, mean);
        // 95 % intervals: 190 expected; the ratings share the pool's mean, so the count varies
        // more than a binomial's ±3, but not down to 180.
        assert!(held >= 180, "{held} of {players} intervals hold the truth");
    }

    #[test]
    fn the_diagonal_metric_s_draws_do_not_depend_on_the_threads() {
        let (_, games) = known_pool(10, 2, 3);
        let table = GameTable::new(10, &games).unwrap();
        let config = FitConfig::default();
        let point = fit(&table, &config).unwrap();
        let run = |threads| {
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            posterior_with(&table, &point, &config, 400, 0.9, threads, 0, &mut rng)
                .unwrap()
                .0
        };
        assert_eq!(run(1), run(3));
    }
}
