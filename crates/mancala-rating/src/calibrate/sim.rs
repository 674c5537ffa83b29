//! Simulated players whose true Elo is a known function of the knob, and what a uniform grid
//! would cost, so that the calibration can be checked against the truth and its game count
//! compared with the non-adaptive alternative.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::curve::{invert, Observation, C};
use super::{info_per_game, z_of, Knob, Player};

/// A candidate whose true Elo at knob `x` is `truth(x)`, playing colour-swapped pairs against
/// opponents of known Elo, with a first-move advantage and draws (a draw takes probability
/// from both sides equally, so the expected score stays the logistic one).
pub struct SimulatedPlayer<F: Fn(f64) -> f64> {
    pub truth: F,
    pub opponents: Vec<f64>,
    /// First minus second, Elo.
    pub advantage: f64,
    /// Draw probability as a fraction of `2·min(p, 1 − p)`.
    pub draw_share: f64,
    rng: ChaCha8Rng,
}

impl<F: Fn(f64) -> f64> SimulatedPlayer<F> {
    pub fn new(truth: F, opponents: Vec<f64>, seed: u64) -> Self {
        SimulatedPlayer {
            truth,
            opponents,
            advantage: 40.0,
            draw_share: 0.2,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    fn game(&mut self, x: f64, opponent: usize, candidate_first: bool) -> Observation {
        let side = if candidate_first { 0.5 } else { -0.5 };
        let d = (self.truth)(x) + side * self.advantage - self.opponents[opponent];
        let p = 1.0 / (1.0 + (-C * d).exp());
        let draw = self.draw_share * 2.0 * p.min(1.0 - p);
        let u: f64 = self.rng.gen();
        let score = if u < p - draw / 2.0 {
            1.0
        } else if u < p + draw / 2.0 {
            0.5
        } else {
            0.0
        };
        Observation {
            x,
            opponent,
            candidate_first,
            score,
        }
    }
}

impl<F: Fn(f64) -> f64> Player for SimulatedPlayer<F> {
    fn play(&mut self, _step: usize, x: f64, pairs: u32) -> Result<Vec<Observation>, String> {
        let mut games = Vec::new();
        for _ in 0..pairs {
            for j in 0..self.opponents.len() {
                games.push(self.game(x, j, true));
                games.push(self.game(x, j, false));
            }
        }
        Ok(games)
    }
}

/// What a uniform grid costs.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct GridCost {
    /// Knob values in the grid.
    pub points: usize,
    pub games: usize,
}

/// The classic grid: evenly spaced knob values close enough that neighbours differ by at most
/// `2·tolerance` true Elo (so every target has a grid point within ±tolerance of it), each rated
/// on its own to a ±tolerance interval against the pool (whole pairs against every opponent).
/// Computed from the true curve, so it is the grid's best case: a real grid would not know the
/// spacing or the games per point in advance.
pub fn independent_grid(
    truth: impl Fn(f64) -> f64,
    knob: &Knob,
    opponents: &[f64],
    tolerance: f64,
    level: f64,
) -> GridCost {
    let z = z_of(level);
    let mut k = 2;
    let grid = |k: usize| -> Vec<f64> {
        (0..k)
            .map(|i| knob.lo + (knob.hi - knob.lo) * i as f64 / (k - 1) as f64)
            .collect()
    };
    loop {
        let xs = grid(k);
        // Check the spacing on a fine sub-grid of each cell (the curve may be steep inside).
        let fine_ok = xs.windows(2).all(|w| {
            let lo = (truth)(w[0]);
            (1..=20).all(|s| {
                ((truth)(w[0] + (w[1] - w[0]) * s as f64 / 20.0) - lo).abs() <= 2.0 * tolerance
            })
        });
        if fine_ok || k > 10_000 || (knob.integer && k as f64 > knob.hi - knob.lo) {
            break;
        }
        k += 1;
    }
    let xs = grid(k);
    let per_pair = 2 * opponents.len();
    let games = xs
        .iter()
        .map(|&x| {
            let n = (z / tolerance).powi(2) / info_per_game(truth(x), opponents);
            (n / per_pair as f64).ceil() as usize * per_pair
        })
        .sum();
    GridCost { points: k, games }
}

/// A uniform design: `points` evenly spaced knob values, the same number of pairs at each,
/// fitted with a polynomial curve of `degree` like the calibration's.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Design {
    pub points: usize,
    pub degree: usize,
}

/// A uniform design with the calibration's own curve model: `design.points` evenly spaced knob
/// values, the same number of pairs at each, the fewest pairs for which the curve has a
/// ±tolerance interval at every target's true knob. The oracle's best case for a non-adaptive
/// design with the same model (it knows the truth to size the grid).
pub fn fitted_grid(
    truth: impl Fn(f64) -> f64,
    knob: &Knob,
    opponents: &[f64],
    target_knobs: &[f64],
    design: Design,
    tolerance: f64,
    level: f64,
) -> GridCost {
    let z = z_of(level);
    let Design { points, degree } = design;
    let xs: Vec<f64> = (0..points)
        .map(|i| knob.lo + (knob.hi - knob.lo) * i as f64 / (points - 1).max(1) as f64)
        .collect();
    let k = degree + 1;
    // Information from one pair per opponent at every grid point (the advantage term is
    // orthogonal under colour balance and drops out).
    let mut info = vec![vec![0.0; k]; k];
    for &x in &xs {
        let t = super::curve::to_t(x, knob.lo, knob.hi);
        let phi: Vec<f64> = (0..k).map(|j| t.powi(j as i32)).collect();
        let w = 2.0 * opponents.len() as f64 * info_per_game(truth(x), opponents);
        for i in 0..k {
            for j in 0..k {
                info[i][j] += w * phi[i] * phi[j];
            }
        }
    }
    let per_pair = 2 * opponents.len() * points;
    let Some(cov) = invert(&info) else {
        return GridCost {
            points,
            games: usize::MAX,
        };
    };
    // Variance scales as 1/pairs: the worst target decides.
    let worst = target_knobs
        .iter()
        .map(|&x| {
            let t = super::curve::to_t(x, knob.lo, knob.hi);
            let phi: Vec<f64> = (0..k).map(|j| t.powi(j as i32)).collect();
            let mut v = 0.0;
            for i in 0..k {
                for j in 0..k {
                    v += phi[i] * cov[i][j] * phi[j];
                }
            }
            v
        })
        .fold(0.0, f64::max);
    let pairs = (worst * (z / tolerance).powi(2)).ceil().max(1.0) as usize;
    GridCost {
        points,
        games: pairs * per_pair,
    }
}
