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
//! thin bridge, a gauntlet's hub) mix as fast as single players. Four chains, each with its own
//! warm-up that tunes the step size; the chains are the same whatever the number of threads.
//! Divergent transitions (an energy error above 1000) and a potential scale reduction above 1.05
//! are counted and reported.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::StandardNormal;

use crate::bootstrap::{summarise, BootstrapSummary, IntervalMethod};
use crate::fit::{
    draw_probability, expected, fit_cells, FitCell, FitConfig, Model, Objective, Ratings,
};
use crate::linalg::{cholesky, cholesky_inverse};
use crate::{check_level, GameTable, RatingError};

/// Chains run for every posterior (fixed, so the draws do not depend on the threads).
const CHAINS: usize = 4;
/// Energy error that marks a divergent transition.
const DIVERGENCE: f64 = 1000.0;

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
fn magnitude(model: &Model, table: &GameTable, raw: &[f64], nu: f64) -> f64 {
    let layout = &model.layout;
    let m = layout.dim();
    if m == 0 || nu <= 0.0 {
        return 1.0;
    }
    let q = layout.free(raw);
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
    centre: Vec<f64>,
    /// Lower Cholesky factor `C` of the metric (the posterior covariance as far as it is known):
    /// `q = centre + C z` (row-major).
    c: Vec<f64>,
    m: usize,
    q: Vec<f64>,
    grad_q: Vec<f64>,
}

impl Target<'_> {
    /// `q = centre + C z`.
    fn position(&mut self, z: &[f64]) {
        let (m, c) = (self.m, &self.c);
        for i in 0..m {
            let row = &c[i * m..i * m + i + 1];
            self.q[i] = self.centre[i] + row.iter().zip(z).map(|(a, b)| a * b).sum::<f64>();
        }
    }

    /// The log density at `z` (if `value`; else 0, which saves a logarithm per cell on the
    /// inner leapfrog steps), and its gradient `Cᵀ ∇_q` in `grad`.
    fn eval(&mut self, z: &[f64], grad: &mut [f64], value: bool) -> f64 {
        self.position(z);
        let f = self.model.layout.eval_parts(
            self.objective,
            self.cells,
            &self.q,
            value,
            Some(&mut self.grad_q),
            None,
        );
        let (m, c) = (self.m, &self.c);
        grad.fill(0.0);
        for i in 0..m {
            let g = self.grad_q[i];
            for (k, gk) in grad.iter_mut().enumerate().take(i + 1) {
                *gk += c[i * m + k] * g;
            }
        }
        f
    }

    /// `z` such that `centre + C z = q` (forward substitution).
    fn whiten(&self, q: &[f64], z: &mut [f64]) {
        let (m, c) = (self.m, &self.c);
        for i in 0..m {
            let mut s = q[i] - self.centre[i];
            for k in 0..i {
                s -= c[i * m + k] * z[k];
            }
            z[i] = s / c[i * m + i];
        }
    }

    /// A new metric from the draws `window` (free parameters), shrunk towards `fallback` (the
    /// covariance at the mode) as Stan regularises its adapted metric.
    fn adapt(&mut self, window: &[Vec<f64>], fallback: &[f64]) {
        let (m, k) = (self.m, window.len() as f64);
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
        if let Some(c) = cholesky(&cov, m) {
            self.c = c;
        }
    }
}

/// Warm-up windows: the step size alone, then metric windows of growing length, then the step
/// size again (Stan's schedule, shortened).
const WINDOWS: [usize; 4] = [50, 100, 200, 50];

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
    draws: usize,
    rng: &mut ChaCha8Rng,
) -> ChainRun {
    let m = target.m;
    let mut z = vec![0.0; m];
    let mut grad = vec![0.0; m];
    let mut logp = target.eval(&z, &mut grad, true);
    let mut eps = 1.0 / (m as f64).powf(0.25);
    let (mut divergent, mut accepted) = (0, 0);
    let mut out = Vec::with_capacity(draws);
    let mut window: Vec<Vec<f64>> = Vec::new();
    let (mut z1, mut g1, mut p) = (vec![0.0; m], vec![0.0; m], vec![0.0; m]);
    let warmup: usize = WINDOWS.iter().sum();
    let mut window_end = WINDOWS[0];
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
        if (1..WINDOWS.len() - 1).contains(&next_window) || next_window == WINDOWS.len() - 1 {
            target.position(&z);
            window.push(target.q.clone());
        }
        if iter + 1 == window_end && next_window < WINDOWS.len() {
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
            window_end += WINDOWS[next_window];
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
    let n = table.players();
    fit_config.validate(n)?;
    check_level(level)?;
    if samples < 2 {
        return Err(RatingError::InvalidConfig(format!(
            "the posterior needs at least 2 draws, got {samples}"
        )));
    }
    let model = Model::for_intervals(table, fit_config, &point.raw);
    let objective = model.objective(point.draw.nu);
    // The draw law's likelihood (the fit with loose anchors) counts draws as they are: no
    // weight for it.
    let weight = match objective {
        Objective::ExpectedScore => magnitude(&model, table, &point.raw, point.draw.nu),
        Objective::DrawLaw(_) => 1.0,
    };
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
    // The centre: the mode of the weighted posterior, from the fit's point.
    let mut centre = layout.free(&point.raw);
    layout.maximize(objective, &cells, &mut centre)?;
    let mut h = vec![0.0; m * m];
    layout.eval(objective, &cells, &centre, None, Some(&mut h));
    let l = cholesky(&h, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
    // The covariance at the mode, H⁻¹: the first metric, and what adapted metrics shrink to.
    let fallback = cholesky_inverse(&l, m);
    let start = cholesky(&fallback, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
    let per_chain = samples.div_ceil(CHAINS);
    let threads = match threads {
        0 => std::thread::available_parallelism().map_or(1, |t| t.get()),
        t => t,
    }
    .clamp(1, CHAINS);
    let results: Vec<ChainRun> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|w| {
                let (model, cells, centre, seeds) = (&model, &cells, &centre, &seeds);
                let (start, fallback) = (&start, &fallback);
                scope.spawn(move || {
                    (w..CHAINS)
                        .step_by(threads)
                        .map(|c| {
                            let mut target = Target {
                                model,
                                objective,
                                cells,
                                centre: centre.clone(),
                                c: start.clone(),
                                m,
                                q: vec![0.0; m],
                                grad_q: vec![0.0; m],
                            };
                            let mut rng = ChaCha8Rng::seed_from_u64(seeds[c]);
                            (c, chain(&mut target, fallback, per_chain, &mut rng))
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
}
