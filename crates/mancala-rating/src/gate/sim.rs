//! A simulated level of known true Elo playing colour-swapped pairs against a pool of known
//! Elos, so that the gate's error rates and cost can be measured against the truth.
//!
//! Each pair starts from an opening that favours the first mover by a score `Δ` drawn once per
//! pair: the level's expected score is `E(d + h) + Δ` when it moves first and `E(d − h) − Δ`
//! when it moves second (`d` its Elo minus the opponent's). The side that gets the good opening
//! gets it in one game of the pair only, which makes a pair's two games negatively correlated
//! (the pentanomial variance below the trinomial one), as with real openings, while the pair's
//! expected score stays exactly the model's: `Δ` is uniform on `±opening_share·m`, `m` the
//! largest shift that keeps both games' expected scores in [0, 1]. (An opening value added in
//! Elo would not do: averaging the logistic curve over it pulls every expected score toward ½,
//! and the simulated level would not have the Elo it is said to have.) A draw takes probability
//! from both sides equally (`draw_share` of `2·min(p, 1 − p)`), so each game's expected score
//! is unchanged by draws.

use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use super::{LevelGate, Verdict};
use crate::elo_to_score;

/// A simulated level.
#[derive(Clone, Debug)]
pub struct SimLevel {
    /// The level's true Elo.
    pub elo: f64,
    /// The reference players' true Elos.
    pub pool: Vec<f64>,
    /// First-move advantage `h`: a first mover scores `E(h)` against an equal opponent.
    pub first_move_advantage: f64,
    /// Draw probability as a fraction of `2·min(p, 1 − p)`.
    pub draw_share: f64,
    /// How much the openings decide, from 0 (nothing) to 1 (some openings decide the game).
    pub opening_share: f64,
    rng: ChaCha8Rng,
}

impl SimLevel {
    /// A level of true Elo `elo` against `pool`, with a first-move advantage of 30 Elo, 10%
    /// draws near equality and openings that decide a fair share (`opening_share` 0.5).
    pub fn new(elo: f64, pool: Vec<f64>, seed: u64) -> SimLevel {
        SimLevel {
            elo,
            pool,
            first_move_advantage: 30.0,
            draw_share: 0.1,
            opening_share: 0.5,
            rng: ChaCha8Rng::seed_from_u64(seed),
        }
    }

    /// The level's points (0, ½ or 1) in one game with expected score `p`.
    fn game(&mut self, p: f64) -> u8 {
        let draw = self.draw_share * 2.0 * p.min(1.0 - p);
        let u: f64 = self.rng.gen();
        if u < p - draw / 2.0 {
            2
        } else if u < p + draw / 2.0 {
            1
        } else {
            0
        }
    }

    /// One pair against opponent `j`: the level's half points (0..=4).
    pub fn pair(&mut self, j: usize) -> u8 {
        let d = self.elo - self.pool[j];
        let first = elo_to_score(d + self.first_move_advantage);
        let second = elo_to_score(d - self.first_move_advantage);
        let room = first.min(1.0 - first).min(second).min(1.0 - second);
        let shift = self.opening_share * room * (2.0 * self.rng.gen::<f64>() - 1.0);
        self.game(first + shift) + self.game(second - shift)
    }
}

/// Plays `gate` with `level` round by round (one pair against every reference player per round,
/// the test updated after each pair, as `arena gate` schedules them) until it decides or
/// `max_rounds` are played. Returns the verdict and the pairs played.
pub fn run(gate: &mut LevelGate, level: &mut SimLevel, max_rounds: u32) -> (Verdict, u64) {
    for _ in 0..max_rounds {
        for j in 0..level.pool.len() {
            let half = level.pair(j);
            if gate.add_pair(j, half).is_decided() {
                return (gate.verdict(), gate.pairs());
            }
        }
    }
    (gate.verdict(), gate.pairs())
}
