//! A simulated bot whose Elo is a known smooth function of its parameters (a concave quadratic
//! with coupled neighbours), playing colour-swapped pairs of θ+ against θ− with a first-move
//! advantage and draws, as `calibrate::sim` plays its candidate. It checks the tune against the
//! truth and measures what a budget of pairs buys (`examples/spsa_sim.rs` prints the table).

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use rand_distr::{Distribution, Normal};

use super::{tail_mean, Param, Schedule, Spsa};
use crate::margin::{MarginPair, ResultScale};

/// The clip of a simulated game's margin: a third of Kalah(6,4)'s 48 seeds, as the arena's.
const MARGIN_CLIP: f64 = 16.0;

/// The logistic scale: expected score `1 / (1 + 10^(−d/400))`.
const C: f64 = std::f64::consts::LN_10 / 400.0;

/// A bot whose true Elo at `θ` is `−Σ_i k (x_i² + ρ x_i x_{i+1})` with `x = θ − optimum`:
/// smooth, with its maximum 0 at the optimum, and parameters that interact.
#[derive(Clone, Debug)]
pub struct Quadratic {
    pub optimum: Vec<f64>,
    /// Elo per unit² (`k`).
    pub curvature: f64,
    /// Coupling of neighbouring parameters (`ρ`, |ρ| < 1 keeps it concave).
    pub coupling: f64,
    /// First minus second player, Elo.
    pub advantage: f64,
    /// Draw probability as a fraction of `2·min(p, 1 − p)`.
    pub draw_share: f64,
    /// Games end with seed margins: `(d + advantage)/κ + N(0, sd²)` rounded to an even number
    /// within ±48, the outcome its sign (`coverage::margin_kappa`'s `κ`); `None`: W/D/L from
    /// the logistic with draws, and no margins.
    pub margin_sd: Option<f64>,
}

impl Quadratic {
    /// The true Elo of `theta` (0 at the optimum).
    pub fn elo(&self, theta: &[f64]) -> f64 {
        let x: Vec<f64> = theta
            .iter()
            .zip(&self.optimum)
            .map(|(t, o)| t - o)
            .collect();
        let mut loss = 0.0;
        for i in 0..x.len() {
            loss += x[i] * x[i];
            if i + 1 < x.len() {
                loss += self.coupling * x[i] * x[i + 1];
            }
        }
        -self.curvature * loss
    }

    /// One game's points for the first player, Elo `d` better than the second.
    fn game(&self, d: f64, rng: &mut impl Rng) -> f64 {
        let d = d + self.advantage;
        let p = 1.0 / (1.0 + (-C * d).exp());
        let draw = self.draw_share * 2.0 * p.min(1.0 - p);
        let u: f64 = rng.gen();
        if u < p - draw / 2.0 {
            1.0
        } else if u < p + draw / 2.0 {
            0.5
        } else {
            0.0
        }
    }

    /// One colour-swapped pair of `plus` against `minus`: plus's wins − losses (−2..=2).
    pub fn pair(&self, plus: &[f64], minus: &[f64], rng: &mut impl Rng) -> f64 {
        self.pair_with_margins(plus, minus, rng).0
    }

    /// One pair: plus's wins − losses and its margins (first as first mover, then second; 0
    /// without `margin_sd`).
    pub fn pair_with_margins(
        &self,
        plus: &[f64],
        minus: &[f64],
        rng: &mut impl Rng,
    ) -> (f64, MarginPair) {
        let d = self.elo(plus) - self.elo(minus);
        let Some(sd) = self.margin_sd else {
            let first = self.game(d, rng);
            let second = 1.0 - self.game(-d, rng);
            return (
                2.0 * (first + second) - 2.0,
                MarginPair {
                    first: 0.0,
                    second: 0.0,
                },
            );
        };
        let kappa = crate::coverage::margin_kappa(sd);
        let noise = Normal::new(0.0, sd).expect("a positive sd");
        let mut margin = |elo: f64| {
            let x = elo / kappa + noise.sample(rng);
            (2.0 * (x / 2.0).round()).clamp(-48.0, 48.0)
        };
        let first = margin(d + self.advantage);
        let second = -margin(-d + self.advantage);
        let sign = |x: f64| {
            if x > 0.0 {
                1.0
            } else if x < 0.0 {
                -1.0
            } else {
                0.0
            }
        };
        (sign(first) + sign(second), MarginPair { first, second })
    }
}

/// How a tune is run: fishtest's way, or with batching and iterate averaging.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Variant {
    pub pairs_per_iteration: u64,
    /// The result is the mean θ over this last fraction of the iterations (0 = the last θ).
    pub tail: f64,
    /// Each iteration's result from the pairs' margins (`margin::ResultScale`, games clipped to
    /// ±16 seeds) instead of wins − losses.
    pub margins: bool,
}

impl Variant {
    /// fishtest: one pair per iteration, the last θ.
    pub const FISHTEST: Variant = Variant {
        pairs_per_iteration: 1,
        tail: 0.0,
        margins: false,
    };
    /// `arena tune`'s defaults: batches of 8 pairs (fewer bot starts), and the result is the
    /// mean θ over the last quarter of the iterations (Polyak–Ruppert averaging), which the
    /// benchmark shows removes most of the end-of-tune noise at large gains.
    pub const ARENA: Variant = Variant {
        pairs_per_iteration: 8,
        tail: 0.25,
        margins: false,
    };
    /// `arena tune --model margin`: the arena's defaults with results from margins.
    pub const ARENA_MARGIN: Variant = Variant {
        pairs_per_iteration: 8,
        tail: 0.25,
        margins: true,
    };
}

/// What one simulated tune ended with.
#[derive(Clone, Debug)]
pub struct SimTune {
    /// The result as the bot would receive it (integers rounded).
    pub result: Vec<f64>,
    /// Its Elo below the optimum (≥ 0).
    pub deficit: f64,
    pub pairs: u64,
}

/// Runs one tune of `params` on `bot` with `pairs` planned pairs, the schedule's defaults and
/// `variant`, seeded by `seed` (every iteration's perturbation from its own stream, as the
/// arena does).
pub fn tune(bot: &Quadratic, params: &[Param], pairs: u64, variant: Variant, seed: u64) -> SimTune {
    let k = variant.pairs_per_iteration.max(1);
    let iterations = pairs.div_ceil(k);
    let mut spsa = Spsa::new(params.to_vec(), Schedule::fishtest(iterations * k));
    let mut games = ChaCha8Rng::seed_from_u64(seed ^ 0x5eed_9a3e);
    let mut trajectory = Vec::with_capacity(iterations as usize);
    let mut scale = ResultScale::default();
    for it in 0..iterations {
        let mut rng = iteration_rng(seed, it);
        let pert = spsa.perturb(&mut rng);
        let played: Vec<(f64, MarginPair)> = (0..k)
            .map(|_| bot.pair_with_margins(&pert.plus, &pert.minus, &mut games))
            .collect();
        let result = if variant.margins {
            let pairs: Vec<MarginPair> = played.iter().map(|p| p.1).collect();
            for &p in &pairs {
                scale.add(p, MARGIN_CLIP);
            }
            scale.result(&pairs, MARGIN_CLIP)
        } else {
            played.iter().map(|p| p.0).sum()
        };
        spsa.update(&pert, k, result);
        trajectory.push(spsa.theta.clone());
    }
    let mean = tail_mean(&trajectory, variant.tail).unwrap_or_else(|| spsa.theta.clone());
    let result: Vec<f64> = params
        .iter()
        .zip(&mean)
        .map(|(p, &x)| if p.integer { p.clip(x.round()) } else { x })
        .collect();
    SimTune {
        deficit: -bot.elo(&result),
        result,
        pairs: spsa.pairs,
    }
}

/// The generator of iteration `it` of a tune seeded `seed` (δ and the roundings).
pub fn iteration_rng(seed: u64, it: u64) -> ChaCha8Rng {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    rng.set_stream(it.wrapping_add(1));
    rng
}

/// The benchmark problem with `dims` integer parameters: each in 0..=100, starting at 50, its
/// optimum 25 away (alternately above and below), 10 Elo lost per parameter at the start
/// (17 Elo in all at the start for 2, 59 for 8, with the coupling), `c_end` 4 (1/25 of the
/// range) and the given `r_end` (fishtest's usual 0.002 is slow here: see docs/tuning.md).
pub fn problem(dims: usize, r_end: f64) -> (Quadratic, Vec<Param>) {
    let optimum = (0..dims)
        .map(|i| if i % 2 == 0 { 75.0 } else { 25.0 })
        .collect();
    let params = (0..dims)
        .map(|i| Param {
            name: format!("P{i}"),
            start: 50.0,
            min: 0.0,
            max: 100.0,
            c_end: 4.0,
            r_end,
            integer: true,
        })
        .collect();
    (
        Quadratic {
            optimum,
            curvature: 10.0 / 625.0,
            coupling: 0.3,
            advantage: 40.0,
            draw_share: 0.2,
            margin_sd: None,
        },
        params,
    )
}

/// Over `seeds` seeded tunes of `pairs` pairs: the share that ended within `tolerance` Elo of
/// the optimum and the median deficit.
pub fn success(
    bot: &Quadratic,
    params: &[Param],
    pairs: u64,
    variant: Variant,
    seeds: u64,
    tolerance: f64,
) -> (f64, f64) {
    let mut deficits: Vec<f64> = (0..seeds)
        .map(|s| tune(bot, params, pairs, variant, 1000 + s).deficit)
        .collect();
    deficits.sort_by(f64::total_cmp);
    let within = deficits.iter().filter(|&&d| d <= tolerance).count() as f64 / seeds as f64;
    (within, deficits[deficits.len() / 2])
}
