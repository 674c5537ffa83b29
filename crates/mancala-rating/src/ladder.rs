//! The site's incremental Elo ("ladder"): every rated game moves both players' ratings by
//! `K·(S − E)`, with `E = 1/(1 + 10^((R_b − R_a)/400))` (Elo 1978, §1.6; the FIDE rating
//! regulations use the same update). Ratings start at 1200 and K is 32 by default (the
//! classic USCF/early-FIDE value for players with few games, and what the site uses).
//!
//! Replaying the arena's games through this rule, in game order, shows where each bot would
//! sit on the site's ladder and how far its rating wanders (the K-factor noise). Unlike the
//! joint fit it depends on game order and never converges to a point: with K = 32 the
//! stationary spread is tens of Elo.

use super::{RatedGame, RatingError};
use serde::Serialize;

/// Settings of the ladder.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LadderConfig {
    start: f64,
    k: f64,
}

impl Default for LadderConfig {
    fn default() -> Self {
        LadderConfig {
            start: 1200.0,
            k: 32.0,
        }
    }
}

impl LadderConfig {
    /// A ladder starting every player at `start` with K-factor `k` (`k > 0`, both finite).
    pub fn new(start: f64, k: f64) -> Result<LadderConfig, RatingError> {
        if !(start.is_finite() && k > 0.0 && k.is_finite()) {
            return Err(RatingError::InvalidConfig(format!(
                "ladder start {start} must be finite and K {k} positive and finite"
            )));
        }
        Ok(LadderConfig { start, k })
    }

    /// Start rating.
    pub fn start(&self) -> f64 {
        self.start
    }

    /// K-factor.
    pub fn k(&self) -> f64 {
        self.k
    }
}

/// Expected score of a player rated `ra` against one rated `rb`.
///
/// ```
/// use mancala_rating::ladder::expected_score;
/// assert_eq!(expected_score(1200.0, 1200.0), 0.5);
/// assert!((expected_score(1600.0, 1200.0) - 10.0 / 11.0).abs() < 1e-12);
/// ```
pub fn expected_score(ra: f64, rb: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf((rb - ra) / 400.0))
}

/// New ratings `(ra', rb')` after a game where `a` scored `score_a` (1, ½ or 0) against `b`.
///
/// Worked example: 1200 vs 1200, K = 32, `a` wins: `E = 0.5`, `a` gains `32·(1 − 0.5) = 16`.
///
/// ```
/// use mancala_rating::ladder::update;
/// assert_eq!(update(1200.0, 1200.0, 1.0, 32.0), (1216.0, 1184.0));
/// // 1400 beats 1200: E = 1/(1 + 10^(−0.5)) = 0.759747; gain 32·0.240253 = 7.688
/// let (a, b) = update(1400.0, 1200.0, 1.0, 32.0);
/// assert!((a - 1407.688).abs() < 1e-3 && (b - 1192.312).abs() < 1e-3);
/// // a draw between them moves 8.31 points the other way
/// let (a, _) = update(1400.0, 1200.0, 0.5, 32.0);
/// assert!((a - 1391.688).abs() < 1e-3);
/// ```
pub fn update(ra: f64, rb: f64, score_a: f64, k: f64) -> (f64, f64) {
    let delta = k * (score_a - expected_score(ra, rb));
    (ra + delta, rb - delta)
}

/// One player's path on the ladder.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LadderTrack {
    /// Rating before the first game, then after each of the player's games.
    pub trajectory: Vec<f64>,
    /// Rating after the last game.
    pub final_rating: f64,
    /// Lowest rating on the path.
    pub min: f64,
    /// Highest rating on the path.
    pub max: f64,
    /// `max − min`.
    pub spread: f64,
    /// Mean rating over the second half of the path (a steadier summary than the last value).
    pub late_mean: f64,
    /// Games played.
    pub games: usize,
}

/// Replays `games` in order for `players` players.
///
/// ```
/// use mancala_rating::{RatedGame, Outcome, ladder::{run_ladder, LadderConfig}};
/// let games = [
///     RatedGame { pair: 0, first: 0, second: 1, outcome: Outcome::Win },
///     RatedGame { pair: 0, first: 1, second: 0, outcome: Outcome::Draw },
/// ];
/// let tracks = run_ladder(2, &games, &LadderConfig::default()).unwrap();
/// assert_eq!(tracks[0].trajectory[..2], [1200.0, 1216.0]);
/// // then 1184 (first) draws 1216: E = 1/(1 + 10^(32/400)) = 0.454078, it gains 1.4695
/// assert!((tracks[1].final_rating - 1185.4695).abs() < 1e-4);
/// ```
pub fn run_ladder(
    players: usize,
    games: &[RatedGame],
    config: &LadderConfig,
) -> Result<Vec<LadderTrack>, RatingError> {
    if players == 0 {
        return Err(RatingError::NoPlayers);
    }
    let mut rating = vec![config.start; players];
    let mut paths: Vec<Vec<f64>> = vec![vec![config.start]; players];
    for (k, g) in games.iter().enumerate() {
        g.check(k, players)?;
        let (a, b) = update(
            rating[g.first],
            rating[g.second],
            g.outcome.score(),
            config.k,
        );
        rating[g.first] = a;
        rating[g.second] = b;
        paths[g.first].push(a);
        paths[g.second].push(b);
    }
    Ok(paths
        .into_iter()
        .map(|trajectory| {
            let min = trajectory.iter().copied().fold(f64::INFINITY, f64::min);
            let max = trajectory.iter().copied().fold(f64::NEG_INFINITY, f64::max);
            let half = &trajectory[trajectory.len() / 2..];
            LadderTrack {
                final_rating: *trajectory.last().unwrap_or(&config.start),
                min,
                max,
                spread: max - min,
                late_mean: half.iter().sum::<f64>() / half.len() as f64,
                games: trajectory.len() - 1,
                trajectory,
            }
        })
        .collect())
}
