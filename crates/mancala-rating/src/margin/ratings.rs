//! Joint ratings from seed margins (`arena rate --model margin`): each player's strength `μ` in
//! seeds, fitted to every game's clipped margin by the normal link of [`super`], then put on
//! the Elo scale by the link's slope at a gap of zero.
//!
//! **Model.** A game where `i` moved first against `j` ends with margin `X = μ_i − μ_j + a + U`,
//! `U ~ N(0, σ²)`; the fit reads `c = clip(X, ±w)` (as the margin test does), whose expectation
//! under the link is `M(μ_i − μ_j + a)` (`Link::pair_sum`'s one-game term). `σ` is the spread of
//! the unclipped margins around a least-squares fit (plus the lattice's `g²/12`); then
//! `Σ (c − M(x))²` is minimised by Gauss–Newton. The Elo is linear in the strengths:
//! `r_i = κ·μ_i` (anchored), `h = κ·a`, with `κ = (400/ln 10)·4φ(0)/σ`, the Elo of a seed of
//! mean margin at a gap of zero. Where the link holds, a difference `r_i − r_j` is the W/D/L
//! Elo to first order in the gap (the link is normal, the Elo scale logistic: at 300 Elo the
//! W/D/L scale reads about 5 % more).
//!
//! **Intervals.** The sandwich `H⁻¹ J H⁻¹` with the games of a colour-swapped pair summed (as
//! the W/D/L fit's, `docs/statistics.md` §2), each encounter's variance floored at the link's
//! and each player's at what its own games allow under the link (the W/D/L fit's floors, issue
//! 45), and `κ`'s own uncertainty
//! added (`Var(σ̂)/σ² ≈ (m₄/σ⁴ − 1)/(4G)` over `G` games); normal intervals `r ± z·SE`.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

use super::Link;
use crate::linalg::{cholesky, cholesky_inverse, cholesky_solve, congruence};
use crate::{normal_cdf, normal_quantile, RatingError};

/// One game with its margin from the first player's view (seeds).
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginGame {
    pub pair: u64,
    pub first: usize,
    pub second: usize,
    pub margin: f64,
}

/// Where the margin ratings are pinned.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum MarginAnchor {
    /// The mean of every player is this value.
    Mean(f64),
    /// This player is rated this value.
    Player(usize, f64),
}

/// One player's margin rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct MarginRating {
    /// Elo, anchored.
    pub elo: f64,
    pub se: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The strength in seeds of mean margin, centred on the players' mean.
    pub seeds: f64,
    pub games: u64,
}

/// What [`fit`] found.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct MarginRatings {
    pub players: Vec<MarginRating>,
    /// First-mover advantage: Elo, its SE, and in seeds.
    pub advantage: f64,
    pub advantage_se: f64,
    pub advantage_seeds: f64,
    /// `σ` (seeds) and `κ` (Elo per seed of mean margin).
    pub sd: f64,
    pub elo_per_seed: f64,
    /// Each game's margin was clipped to `±clip` seeds.
    pub clip: f64,
    pub level: f64,
}

impl MarginRatings {
    /// `elo_i − elo_j`.
    pub fn diff(&self, i: usize, j: usize) -> f64 {
        self.players[i].elo - self.players[j].elo
    }
}

/// Rates `games` among `players` players from their margins, each clipped to `±clip` seeds
/// (`step` the margins' lattice step), anchored by `anchor`, with normal intervals at `level`.
pub fn fit(
    players: usize,
    games: &[MarginGame],
    clip: f64,
    step: f64,
    anchor: MarginAnchor,
    level: f64,
) -> Result<MarginRatings, RatingError> {
    crate::check_level(level)?;
    if players == 0 {
        return Err(RatingError::NoPlayers);
    }
    for (k, g) in games.iter().enumerate() {
        crate::RatedGame {
            pair: g.pair,
            first: g.first,
            second: g.second,
            outcome: crate::Outcome::Draw,
        }
        .check(k, players)?;
    }
    let n = players;
    let dim = n + 1;
    let components = components(n, games);
    // 1. Least squares on the unclipped margins: the spread σ of the link.
    let design = |g: &MarginGame| [(g.first, 1.0), (g.second, -1.0), (n, 1.0)];
    let ones = vec![1.0; games.len()];
    let beta0 = solve_weighted(dim, games, &ones, |g| g.margin, &components, design)?;
    let predict = |beta: &[f64], g: &MarginGame| beta[g.first] - beta[g.second] + beta[n];
    let rss: f64 = games
        .iter()
        .map(|g| (g.margin - predict(&beta0, g)).powi(2))
        .sum();
    let dof = (games.len() as f64 - (n as f64)).max(1.0);
    let var = rss / dof + step * step / 12.0;
    let sd = var.sqrt();
    let m4: f64 = games
        .iter()
        .map(|g| (g.margin - predict(&beta0, g)).powi(4))
        .sum::<f64>()
        / games.len().max(1) as f64;
    let link = Link {
        advantage: 0.0,
        delta: 0.0,
        sd,
        kurtosis: 0.0,
        step,
        clip,
        pairs: 0,
    };
    // M(x): one game's expected clipped margin; its derivative P(|X| < w) under the link.
    let m = |x: f64| link.pair_sum(x) / 2.0;
    let dm = |x: f64| {
        if clip.is_finite() {
            normal_cdf((clip - x) / sd) - normal_cdf((-clip - x) / sd)
        } else {
            1.0
        }
    };
    let clipped = |g: &MarginGame| g.margin.clamp(-clip, clip);
    // 2. Gauss–Newton on the clipped margins.
    let mut beta = beta0.clone();
    for _ in 0..50 {
        let weights: Vec<f64> = games
            .iter()
            .map(|g| dm(predict(&beta, g)).powi(2))
            .collect();
        let step_beta = solve_weighted(
            dim,
            games,
            &weights,
            |g| {
                let x = predict(&beta, g);
                let d = dm(x).max(1e-9);
                (clipped(g) - m(x)) / d
            },
            &components,
            design,
        )?;
        let moved = step_beta.iter().fold(0.0f64, |a, b| a.max(b.abs()));
        for (b, s) in beta.iter_mut().zip(&step_beta) {
            *b += s;
        }
        center(&mut beta, &components);
        if moved < 1e-9 {
            break;
        }
    }
    // 3. Sandwich, the games of a pair summed; each encounter's and each player's floor.
    let mut h = vec![0.0; dim * dim];
    let mut by_pair: HashMap<u64, Vec<f64>> = HashMap::new();
    let (mut info, mut model_var) = (vec![0.0; n], vec![0.0; n]);
    // Per encounter (lower index first): the lower player's score residual per pair, and the
    // link's variance of it over the encounter's games.
    let mut encounters: HashMap<(usize, usize), (HashMap<u64, f64>, f64)> = HashMap::new();
    for g in games {
        let x = predict(&beta, g);
        let d = dm(x);
        let r = clipped(g) - m(x);
        let a = design(g);
        for &(u, su) in &a {
            for &(v, sv) in &a {
                h[u * dim + v] += su * sv * d * d;
            }
        }
        let score = by_pair.entry(g.pair).or_insert_with(|| vec![0.0; dim]);
        for &(u, su) in &a {
            score[u] += su * d * r;
        }
        let v = clipped_variance(x, sd, clip, m(x));
        for p in [g.first, g.second] {
            info[p] += d * d;
            model_var[p] += d * d * v;
        }
        let key = (g.first.min(g.second), g.first.max(g.second));
        let sign = if g.first == key.0 { 1.0 } else { -1.0 };
        let e = encounters.entry(key).or_default();
        *e.0.entry(g.pair).or_insert(0.0) += sign * d * r;
        e.1 += d * d * v;
    }
    let mut j = vec![0.0; dim * dim];
    for s in by_pair.values() {
        for u in 0..dim {
            if s[u] == 0.0 {
                continue;
            }
            for v in 0..dim {
                j[u * dim + v] += s[u] * s[v];
            }
        }
    }
    // A few pairs of an encounter that happen to agree have no empirical variance, and the thin
    // bridge between two groups then looked exact (84.6 % coverage): each encounter's variance
    // is at least the link's, its games taken as independent (as the W/D/L fit's floor).
    for (&(a, b), (pairs, model)) in &encounters {
        let empirical: f64 = pairs.values().map(|s| s * s).sum();
        let short = model - empirical;
        if short > 0.0 {
            for (u, su) in [(a, 1.0), (b, -1.0)] {
                for (v, sv) in [(a, 1.0), (b, -1.0)] {
                    j[u * dim + v] += su * sv * short;
                }
            }
        }
    }
    let h_reg = regularised(&h, dim, &components);
    let l = cholesky(&h_reg, dim).ok_or(RatingError::NoConvergence { iterations: 0 })?;
    let h_inv = cholesky_inverse(&l, dim);
    let mut cov = sandwich(&h_inv, &j, dim);
    // Centre the covariance within each group (the strengths are centred so).
    project(&mut cov, dim, &components);
    for i in 0..n {
        if info[i] <= 0.0 {
            continue;
        }
        let k = components
            .iter()
            .find(|c| c.contains(&i))
            .map_or(1, Vec::len) as f64;
        let centring = ((k - 1.0) / k).powi(2);
        let floor = centring * model_var[i] / (info[i] * info[i]);
        if cov[i * dim + i] < floor {
            let add = (floor - cov[i * dim + i]) / centring.max(1e-12);
            add_centred(&mut cov, dim, &components, i, add);
        }
    }
    // 4. Elo.
    let kappa = 400.0 / std::f64::consts::LN_10 * 4.0 / (2.0 * std::f64::consts::PI).sqrt() / sd;
    let g_count = games.len().max(1) as f64;
    let rel_var_kappa = ((m4 / (var * var)) - 1.0).max(0.0) / (4.0 * g_count);
    let (shift, value) = match anchor {
        MarginAnchor::Mean(v) => (beta[..n].iter().sum::<f64>() / n as f64, v),
        MarginAnchor::Player(p, v) => (beta[p], v),
    };
    let z = normal_quantile(0.5 + level / 2.0);
    let mut games_of = vec![0u64; n];
    for g in games {
        games_of[g.first] += 1;
        games_of[g.second] += 1;
    }
    let var_anchored = |i: usize| -> f64 {
        match anchor {
            MarginAnchor::Mean(_) => {
                let row: f64 = (0..n).map(|k| cov[i * dim + k]).sum::<f64>() / n as f64;
                let all: f64 = (0..n)
                    .map(|a| (0..n).map(|b| cov[a * dim + b]).sum::<f64>())
                    .sum::<f64>()
                    / (n * n) as f64;
                cov[i * dim + i] - 2.0 * row + all
            }
            MarginAnchor::Player(p, _) => {
                cov[i * dim + i] + cov[p * dim + p] - 2.0 * cov[i * dim + p]
            }
        }
    };
    let players_out = (0..n)
        .map(|i| {
            let seeds = beta[i] - shift;
            let elo = value + kappa * seeds;
            let se = (kappa * kappa * var_anchored(i).max(0.0)
                + (kappa * seeds).powi(2) * rel_var_kappa)
                .sqrt();
            MarginRating {
                elo,
                se,
                ci_low: elo - z * se,
                ci_high: elo + z * se,
                seeds,
                games: games_of[i],
            }
        })
        .collect();
    let adv_seeds = beta[n];
    let adv_se = (kappa * kappa * cov[n * dim + n].max(0.0)
        + (kappa * adv_seeds).powi(2) * rel_var_kappa)
        .sqrt();
    Ok(MarginRatings {
        players: players_out,
        advantage: kappa * adv_seeds,
        advantage_se: adv_se,
        advantage_seeds: adv_seeds,
        sd,
        elo_per_seed: kappa,
        clip,
        level,
    })
}

/// The variance of `clip(x + σZ, ±w)`.
fn clipped_variance(x: f64, sd: f64, w: f64, mean: f64) -> f64 {
    if !w.is_finite() {
        return sd * sd;
    }
    // E[c²] = w²·P(|X| > w) + ∫_{−w}^{w} t² f(t) dt, the integral by the normal's moments.
    let phi = |t: f64| (-0.5 * t * t).exp() / (2.0 * std::f64::consts::PI).sqrt();
    let (lo, hi) = ((-w - x) / sd, (w - x) / sd);
    let p_in = normal_cdf(hi) - normal_cdf(lo);
    // ∫ (x + σt)² φ(t) dt over [lo, hi] = x²·p + 2xσ(φ(lo) − φ(hi)) + σ²(p + lo·φ(lo) − hi·φ(hi)).
    let inside = x * x * p_in
        + 2.0 * x * sd * (phi(lo) - phi(hi))
        + sd * sd * (p_in + lo * phi(lo) - hi * phi(hi));
    let second = w * w * (1.0 - p_in) + inside;
    (second - mean * mean).max(0.0)
}

/// Connected groups of players (those without games are groups of one).
fn components(n: usize, games: &[MarginGame]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    fn root(p: &mut [usize], mut x: usize) -> usize {
        while p[x] != x {
            p[x] = p[p[x]];
            x = p[x];
        }
        x
    }
    for g in games {
        let (a, b) = (root(&mut parent, g.first), root(&mut parent, g.second));
        parent[a.max(b)] = a.min(b);
    }
    let mut groups: HashMap<usize, Vec<usize>> = HashMap::new();
    for i in 0..n {
        let r = root(&mut parent, i);
        groups.entry(r).or_default().push(i);
    }
    let mut out: Vec<Vec<usize>> = groups.into_values().collect();
    out.sort();
    out
}

/// `H` plus `(Σ_{i∈group} μ_i)²` for each group (the likelihood sees only differences) and a
/// tiny ridge (an advantage the colours leave free).
fn regularised(h: &[f64], dim: usize, components: &[Vec<usize>]) -> Vec<f64> {
    let mut out = h.to_vec();
    for c in components {
        for &a in c {
            for &b in c {
                out[a * dim + b] += 1.0;
            }
        }
    }
    for k in 0..dim {
        out[k * dim + k] += 1e-9;
    }
    out
}

/// Weighted least squares `Σ w (y − aᵀβ)²` over `games`, each group's strengths summing to 0.
fn solve_weighted(
    dim: usize,
    games: &[MarginGame],
    weights: &[f64],
    y: impl Fn(&MarginGame) -> f64,
    components: &[Vec<usize>],
    design: impl Fn(&MarginGame) -> [(usize, f64); 3],
) -> Result<Vec<f64>, RatingError> {
    let mut h = vec![0.0; dim * dim];
    let mut b = vec![0.0; dim];
    for (g, &w) in games.iter().zip(weights) {
        let a = design(g);
        let target = y(g);
        for &(u, su) in &a {
            b[u] += w * su * target;
            for &(v, sv) in &a {
                h[u * dim + v] += w * su * sv;
            }
        }
    }
    let h = regularised(&h, dim, components);
    let l = cholesky(&h, dim).ok_or(RatingError::NoConvergence { iterations: 0 })?;
    cholesky_solve(&l, dim, &mut b);
    Ok(b)
}

/// Centres each group's strengths on 0.
fn center(beta: &mut [f64], components: &[Vec<usize>]) {
    for c in components {
        let mean = c.iter().map(|&i| beta[i]).sum::<f64>() / c.len() as f64;
        for &i in c {
            beta[i] -= mean;
        }
    }
}

/// `H⁻¹ J H⁻¹`.
fn sandwich(h_inv: &[f64], j: &[f64], dim: usize) -> Vec<f64> {
    let mut t = vec![0.0; dim * dim];
    for r in 0..dim {
        for k in 0..dim {
            let x = h_inv[r * dim + k];
            if x != 0.0 {
                for c in 0..dim {
                    t[r * dim + c] += x * j[k * dim + c];
                }
            }
        }
    }
    let mut out = vec![0.0; dim * dim];
    for r in 0..dim {
        for k in 0..dim {
            let x = t[r * dim + k];
            if x != 0.0 {
                for c in 0..dim {
                    out[r * dim + c] += x * h_inv[k * dim + c];
                }
            }
        }
    }
    out
}

/// `P C Pᵀ` with `P` the centring within each group (the advantage untouched).
fn project(cov: &mut [f64], dim: usize, components: &[Vec<usize>]) {
    let mut p = vec![0.0; dim * dim];
    for k in 0..dim {
        p[k * dim + k] = 1.0;
    }
    for c in components {
        let k = c.len() as f64;
        for &a in c {
            for &b in c {
                p[a * dim + b] -= 1.0 / k;
            }
        }
    }
    let projected = congruence(&p, cov, dim, dim);
    cov.copy_from_slice(&projected);
}

/// Adds `add` of independent variance to player `i`'s uncentred strength, centred in its group.
fn add_centred(cov: &mut [f64], dim: usize, components: &[Vec<usize>], i: usize, add: f64) {
    let Some(group) = components.iter().find(|c| c.contains(&i)) else {
        return;
    };
    let k = group.len() as f64;
    for &a in group {
        for &b in group {
            let pa = f64::from(u8::from(a == i)) - 1.0 / k;
            let pb = f64::from(u8::from(b == i)) - 1.0 / k;
            cov[a * dim + b] += add * pa * pb;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;
    use rand_distr::{Distribution, Normal};

    /// Games from the link's own model: strengths `mu` (seeds), advantage `a`, spread `sd`,
    /// `pairs` colour-swapped pairs per encounter, margins on even numbers within ±48.
    fn simulate(mu: &[f64], a: f64, sd: f64, pairs: u64, rng: &mut ChaCha8Rng) -> Vec<MarginGame> {
        let noise = Normal::new(0.0, sd).unwrap();
        let mut games = Vec::new();
        let mut pair = 0;
        for i in 0..mu.len() {
            for j in i + 1..mu.len() {
                for _ in 0..pairs {
                    for (f, s) in [(i, j), (j, i)] {
                        let x = mu[f] - mu[s] + a + noise.sample(rng);
                        games.push(MarginGame {
                            pair,
                            first: f,
                            second: s,
                            margin: (2.0 * (x / 2.0).round()).clamp(-48.0, 48.0),
                        });
                    }
                    pair += 1;
                }
            }
        }
        games
    }

    #[test]
    fn two_players_unclipped_is_the_mean_margin_times_kappa() {
        // By hand: 0 beats 1 by 6 and 2 seeds as first mover, loses by 2 and wins by 4 as
        // second: μ₀ − μ₁ = mean over colours = (4 + 3)/2... computed below from the sums.
        let games = vec![
            MarginGame {
                pair: 0,
                first: 0,
                second: 1,
                margin: 6.0,
            },
            MarginGame {
                pair: 0,
                first: 1,
                second: 0,
                margin: 2.0,
            },
            MarginGame {
                pair: 1,
                first: 0,
                second: 1,
                margin: 2.0,
            },
            MarginGame {
                pair: 1,
                first: 1,
                second: 0,
                margin: -4.0,
            },
        ];
        let r = fit(
            2,
            &games,
            f64::INFINITY,
            2.0,
            MarginAnchor::Mean(1200.0),
            0.95,
        )
        .unwrap();
        // Player 0 first: mean 4 = d + a; player 1 first: mean −1 = −d + a → d = 2.5, a = 1.5.
        assert!(
            (r.advantage_seeds - 1.5).abs() < 1e-9,
            "{}",
            r.advantage_seeds
        );
        let d = r.players[0].seeds - r.players[1].seeds;
        assert!((d - 2.5).abs() < 1e-9, "{d}");
        assert!((r.diff(0, 1) - r.elo_per_seed * 2.5).abs() < 1e-9);
        assert!((r.players[0].elo + r.players[1].elo - 2400.0).abs() < 1e-9);
        // κ = (400/ln 10)·4φ(0)/σ.
        let kappa = 400.0 / std::f64::consts::LN_10 * 4.0 * 0.398_942_280_401_432_7 / r.sd;
        assert!((r.elo_per_seed - kappa).abs() < 1e-9);
    }

    #[test]
    fn the_fit_recovers_the_strengths_and_its_intervals_cover() {
        let mu = [-3.0, -1.0, 0.0, 1.5, 2.5];
        let mut rng = ChaCha8Rng::seed_from_u64(8);
        let (mut covered, mut total, mut adv) = (0, 0, 0.0);
        for _ in 0..60 {
            let games = simulate(&mu, 1.0, 11.0, 30, &mut rng);
            let r = fit(5, &games, 16.0, 2.0, MarginAnchor::Mean(0.0), 0.95).unwrap();
            let mean = mu.iter().sum::<f64>() / 5.0;
            for (p, m) in r.players.iter().zip(&mu) {
                let truth = r.elo_per_seed * (m - mean);
                covered += usize::from(p.ci_low <= truth && truth <= p.ci_high);
                total += 1;
            }
            adv += r.advantage_seeds / 60.0;
        }
        assert!((adv - 1.0).abs() < 0.15, "mean advantage {adv}");
        let cov = covered as f64 / total as f64;
        assert!((0.90..=0.99).contains(&cov), "coverage {cov}");
    }

    #[test]
    fn a_player_of_one_pair_gets_at_least_its_own_games_error() {
        let mut rng = ChaCha8Rng::seed_from_u64(2);
        let mut games = simulate(&[0.0, 1.0], 0.0, 10.0, 200, &mut rng);
        games.push(MarginGame {
            pair: 10_000,
            first: 0,
            second: 2,
            margin: 4.0,
        });
        games.push(MarginGame {
            pair: 10_000,
            first: 2,
            second: 0,
            margin: -4.0,
        });
        let r = fit(3, &games, 16.0, 2.0, MarginAnchor::Player(0, 0.0), 0.95).unwrap();
        // Two games of sd ~10 seeds, clipped at 16: an SE of at least ~6 seeds (× κ).
        assert!(r.players[2].se > r.elo_per_seed * 6.0, "{:?}", r.players[2]);
        assert!(r.players[2].se > 4.0 * r.players[1].se, "{:?}", r.players);
    }

    #[test]
    fn a_bridge_of_agreeing_pairs_is_not_exact() {
        // Two groups of three joined by three pairs of 0 against 3 that agree exactly (+6 for 0
        // in every game): their pair residuals are all zero, so the sandwich alone gave the
        // groups' difference only the groups' own noise (about 1 seed). The encounter's floor
        // gives it what six games of spread ~10 seeds allow.
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let mut games = simulate(&[0.0, 2.0, -2.0], 0.0, 10.0, 30, &mut rng);
        for g in simulate(&[0.0, 2.0, -2.0], 0.0, 10.0, 30, &mut rng) {
            games.push(MarginGame {
                pair: g.pair + 1_000,
                first: g.first + 3,
                second: g.second + 3,
                margin: g.margin,
            });
        }
        for k in 0..3 {
            for (first, second, margin) in [(0, 3, 6.0), (3, 0, -6.0)] {
                games.push(MarginGame {
                    pair: 2_000 + k,
                    first,
                    second,
                    margin,
                });
            }
        }
        let r = fit(6, &games, 16.0, 2.0, MarginAnchor::Player(0, 0.0), 0.95).unwrap();
        let seeds = r.players[3].se / r.elo_per_seed;
        assert!(
            seeds > 2.5,
            "player 3's SE {seeds:.2} seeds: {:?}",
            r.players
        );
    }

    #[test]
    fn the_clipped_variance_is_the_variance_of_clipped_normal_draws() {
        let mut rng = ChaCha8Rng::seed_from_u64(4);
        let d = Normal::new(3.0, 10.0).unwrap();
        let draws: Vec<f64> = (0..200_000)
            .map(|_| {
                let x: f64 = d.sample(&mut rng);
                x.clamp(-12.0, 12.0)
            })
            .collect();
        let mean = draws.iter().sum::<f64>() / draws.len() as f64;
        let var = draws.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / draws.len() as f64;
        let link = Link {
            advantage: 0.0,
            delta: 0.0,
            sd: 10.0,
            kurtosis: 0.0,
            step: 2.0,
            clip: 12.0,
            pairs: 0,
        };
        let m = link.pair_sum(3.0) / 2.0;
        assert!((m - mean).abs() < 0.05, "{m} vs {mean}");
        let v = clipped_variance(3.0, 10.0, 12.0, m);
        assert!((v - var).abs() < 0.01 * var, "{v} vs {var}");
    }
}
