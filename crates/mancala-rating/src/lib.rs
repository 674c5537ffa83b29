//! Rating maths: joint Elo by maximum likelihood with confidence intervals, the pairwise
//! table (trinomial and pentanomial statistics), the SPRT, and the site's incremental
//! K-factor ladder.
//!
//! Everything here is pure: no I/O, no clocks, no global randomness. Functions return
//! numbers in plain structs (all `serde::Serialize`); `report/` formats them. Randomness
//! (the bootstrap) comes from a caller-given [`rand_chacha::ChaCha8Rng`].
//!
//! The flow is: a list of [`RatedGame`]s → a validated [`GameTable`] (counts per ordered
//! pair of players, and the game pairs kept together for resampling) → [`fit::fit`] →
//! [`bootstrap::bootstrap`]; [`pairwise::pairwise_table`] and [`sprt::Sprt`] read the same
//! table; [`ladder::run_ladder`] reads the games in order. Every formula, with its source, is
//! written out in `docs/statistics.md`.
//!
//! ```
//! use mancala_rating::{fit::{fit, FitConfig}, RatedGame, GameTable, Outcome};
//! // Player 0 beats player 1 in both games of a colour-swapped pair, and they draw a pair.
//! let games = vec![
//!     RatedGame { pair: 0, first: 0, second: 1, outcome: Outcome::Win },
//!     RatedGame { pair: 0, first: 1, second: 0, outcome: Outcome::Loss },
//!     RatedGame { pair: 1, first: 0, second: 1, outcome: Outcome::Draw },
//!     RatedGame { pair: 1, first: 1, second: 0, outcome: Outcome::Draw },
//! ];
//! let table = GameTable::new(2, &games).unwrap();
//! let ratings = fit(&table, &FitConfig::default()).unwrap();
//! assert!(ratings.players[0].elo > ratings.players[1].elo);
//! assert!((ratings.players[0].elo + ratings.players[1].elo - 2400.0).abs() < 1e-6);
//! ```

pub mod analyse;
pub mod bootstrap;
pub mod calibrate;
pub mod consistency;
pub mod coverage;
pub mod fit;
pub mod gate;
pub mod ladder;
pub mod margin;
pub mod pairwise;
pub mod posterior;
pub mod rows;
pub mod sprt;
pub mod spsa;

mod linalg;

pub use analyse::{analyse, FirstMove, RatingConfig, RatingReport};

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};
use std::collections::HashMap;
use std::fmt;
use std::str::FromStr;

/// The result of one game from the FIRST player's point of view. Written as chess writes
/// results (`1-0`, `1/2-1/2`, `0-1`): in `games.csv`, in PGN and by serde.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum Outcome {
    /// The first player won (1 point).
    #[serde(rename = "1-0")]
    Win,
    /// A draw (½ point each).
    #[serde(rename = "1/2-1/2")]
    Draw,
    /// The first player lost (0 points).
    #[serde(rename = "0-1")]
    Loss,
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Win => "1-0",
            Outcome::Draw => "1/2-1/2",
            Outcome::Loss => "0-1",
        })
    }
}

impl FromStr for Outcome {
    type Err = RatingError;

    /// Reads `1-0`, `1/2-1/2` or `0-1`.
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "1-0" => Ok(Outcome::Win),
            "1/2-1/2" => Ok(Outcome::Draw),
            "0-1" => Ok(Outcome::Loss),
            _ => Err(RatingError::InvalidResult(s.chars().take(32).collect())),
        }
    }
}

impl Outcome {
    /// The outcome for a first-player score of 1, 0.5 or 0.
    pub fn from_score(score: f64) -> Result<Outcome, RatingError> {
        if score == 1.0 {
            Ok(Outcome::Win)
        } else if score == 0.5 {
            Ok(Outcome::Draw)
        } else if score == 0.0 {
            Ok(Outcome::Loss)
        } else {
            Err(RatingError::InvalidScore { score })
        }
    }

    /// The first player's points: 1, 0.5 or 0.
    pub fn score(self) -> f64 {
        match self {
            Outcome::Win => 1.0,
            Outcome::Draw => 0.5,
            Outcome::Loss => 0.0,
        }
    }

    /// The same game seen from the other player.
    pub fn flipped(self) -> Outcome {
        match self {
            Outcome::Win => Outcome::Loss,
            Outcome::Draw => Outcome::Draw,
            Outcome::Loss => Outcome::Win,
        }
    }

    /// Index into `[wins, draws, losses]` arrays.
    fn index(self) -> usize {
        match self {
            Outcome::Win => 0,
            Outcome::Draw => 1,
            Outcome::Loss => 2,
        }
    }
}

/// One finished game as the harness records it.
#[derive(Debug, Clone, Copy, PartialEq, Serialize, Deserialize)]
pub struct RatedGame {
    /// Game-pair id: both games of a pair start from the same opening with colours swapped.
    pub pair: u64,
    /// Index of the player who moved first.
    pub first: usize,
    /// Index of the player who moved second.
    pub second: usize,
    /// The result from the first player's view.
    pub outcome: Outcome,
}

impl RatedGame {
    /// Builds a game from the first player's score (1, 0.5 or 0), as `games.csv` stores it.
    pub fn from_score(
        pair: u64,
        first: usize,
        second: usize,
        score: f64,
    ) -> Result<RatedGame, RatingError> {
        Ok(RatedGame {
            pair,
            first,
            second,
            outcome: Outcome::from_score(score)?,
        })
    }
}

impl RatedGame {
    /// Checks that game number `k` is between two different players of a pool of `players`.
    pub fn check(&self, k: usize, players: usize) -> Result<(), RatingError> {
        for player in [self.first, self.second] {
            if player >= players {
                return Err(RatingError::PlayerOutOfRange {
                    game: k,
                    player,
                    players,
                });
            }
        }
        if self.first == self.second {
            return Err(RatingError::SelfPlay {
                game: k,
                player: self.first,
            });
        }
        Ok(())
    }
}

/// Errors of the rating module.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum RatingError {
    /// A rating pool needs at least one player.
    #[error("no players: a rating pool needs at least one player")]
    NoPlayers,
    /// A game refers to a player index outside the name list.
    #[error("game {game}: player index {player} is out of range (there are {players} players)")]
    PlayerOutOfRange {
        /// Position of the game in the input slice.
        game: usize,
        /// The offending index.
        player: usize,
        /// Number of players.
        players: usize,
    },
    /// A game of a player against itself.
    #[error("game {game}: player {player} cannot play itself")]
    SelfPlay {
        /// Position of the game in the input slice.
        game: usize,
        /// The player.
        player: usize,
    },
    /// A score other than 1, 0.5 or 0.
    #[error("invalid score {score}: a game scores 1, 0.5 or 0 for the first player")]
    InvalidScore {
        /// The score given.
        score: f64,
    },
    /// A result other than `1-0`, `1/2-1/2` or `0-1`.
    #[error("invalid result `{0}`: expected 1-0, 1/2-1/2 or 0-1")]
    InvalidResult(String),
    /// A configuration value out of its range.
    #[error("invalid configuration: {0}")]
    InvalidConfig(String),
    /// `prior = 0` asked for the plain maximum-likelihood fit, which does not exist: some group
    /// of players never conceded (or never scored) a point against the rest.
    #[error("the plain maximum-likelihood fit does not exist: of the groups {}, some never conceded and some never scored a point against the others; use a prior above 0", group_list(.groups, .names))]
    NoFiniteFit {
        /// The strongly connected groups (player indices).
        groups: Vec<Vec<usize>>,
        /// Player names for the message (empty: `#index`).
        names: Vec<String>,
    },
    /// Newton's method did not converge (should not happen: the objective is concave).
    #[error("the rating fit did not converge in {iterations} iterations")]
    NoConvergence {
        /// Iterations run.
        iterations: usize,
    },
}

/// `{a, b} {c}`: groups of players by name (or `#index` without names).
fn group_list(groups: &[Vec<usize>], names: &[String]) -> String {
    groups
        .iter()
        .map(|g| {
            let members: Vec<String> = g
                .iter()
                .map(|&p| names.get(p).cloned().unwrap_or_else(|| format!("#{p}")))
                .collect();
            format!("{{{}}}", members.join(", "))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// One ordered encounter: counts of results when `first` moved first against `second`.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Cell {
    /// The player who moved first.
    pub first: usize,
    /// The player who moved second.
    pub second: usize,
    /// `[wins, draws, losses]` from the first player's view.
    pub counts: [u64; 3],
}

/// Per-player totals over all games (both colours).
#[derive(Debug, Clone, Copy, Default, PartialEq, Serialize)]
pub struct PlayerTotals {
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Games played as first mover.
    pub games_first: u64,
}

impl PlayerTotals {
    /// Points: wins + draws / 2.
    pub fn points(&self) -> f64 {
        self.wins as f64 + 0.5 * self.draws as f64
    }

    /// Score fraction (points / games), or `None` without games.
    pub fn score(&self) -> Option<f64> {
        (self.games > 0).then(|| self.points() / self.games as f64)
    }
}

/// The colour-swapped game pairs of one encounter: `joint[u][v]` counts the pairs in which the
/// game where `cell_ab`'s first player moved first ended `u` (0 win, 1 draw, 2 loss, from that
/// first player's view) and the game where the other player moved first ended `v` (from *its*
/// first player's view). The sufficient statistic of an encounter's pairs, and what the
/// bootstrap resamples (see [`bootstrap`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct PairBlock {
    /// Index into [`GameTable::cells`] of the games where player `a` moved first.
    pub cell_ab: usize,
    /// Index of the games where player `b` moved first.
    pub cell_ba: usize,
    pub joint: [[u64; 3]; 3],
}

impl PairBlock {
    /// Pairs in the block.
    pub fn pairs(&self) -> u64 {
        self.joint.iter().flatten().sum()
    }

    /// Pentanomial counts from the view of `cell_ab`'s first player.
    pub fn penta(&self) -> pairwise::PentaCounts {
        let mut p = pairwise::PentaCounts::default();
        for (u, row) in self.joint.iter().enumerate() {
            for (v, &k) in row.iter().enumerate() {
                // Half points: (2 − u) as first mover, v as second (the opponent's loss is 2).
                p.add_n((2 - u + v) as u8, k);
            }
        }
        p
    }
}

/// Validated results, aggregated for fitting and resampling.
///
/// Invariants (checked by [`GameTable::new`]): at least one player; every game's player
/// indices are `< players` and distinct. Games sharing a `pair` id form a *game pair* when they
/// are exactly two games between the same two players with colours swapped; such pairs are
/// counted per encounter in [`PairBlock`]s. Every other game (an odd game, a unit of another
/// shape) is *loose*: counted per ordered cell on its own.
#[derive(Debug, Clone)]
pub struct GameTable {
    players: usize,
    cells: Vec<Cell>,
    /// Loose games per cell, parallel to `cells`: `[w, d, l]`.
    loose: Vec<[u64; 3]>,
    blocks: Vec<PairBlock>,
    totals: Vec<PlayerTotals>,
    games: usize,
}

impl GameTable {
    /// Validates and aggregates `games` for a pool of `players` players.
    pub fn new(players: usize, games: &[RatedGame]) -> Result<GameTable, RatingError> {
        if players == 0 {
            return Err(RatingError::NoPlayers);
        }
        let mut cell_index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut cells: Vec<Cell> = Vec::new();
        let mut totals = vec![PlayerTotals::default(); players];
        let mut cell_of = |first: usize, second: usize, cells: &mut Vec<Cell>| -> usize {
            *cell_index.entry((first, second)).or_insert_with(|| {
                cells.push(Cell {
                    first,
                    second,
                    counts: [0; 3],
                });
                cells.len() - 1
            })
        };
        let mut game_cell: Vec<usize> = Vec::with_capacity(games.len());
        for (k, g) in games.iter().enumerate() {
            g.check(k, players)?;
            let c = cell_of(g.first, g.second, &mut cells);
            cells[c].counts[g.outcome.index()] += 1;
            game_cell.push(c);
            for (p, o) in [(g.first, g.outcome), (g.second, g.outcome.flipped())] {
                let t = &mut totals[p];
                t.games += 1;
                match o {
                    Outcome::Win => t.wins += 1,
                    Outcome::Draw => t.draws += 1,
                    Outcome::Loss => t.losses += 1,
                }
            }
            totals[g.first].games_first += 1;
        }
        // Game pairs: games grouped by pair id (a stable sort keeps the order inside a pair).
        let mut order: Vec<usize> = (0..games.len()).collect();
        order.sort_by_key(|&k| games[k].pair);
        let mut loose = vec![[0u64; 3]; cells.len()];
        let mut block_index: HashMap<(usize, usize), usize> = HashMap::new();
        let mut blocks: Vec<PairBlock> = Vec::new();
        for unit in order.chunk_by(|&x, &y| games[x].pair == games[y].pair) {
            match unit {
                &[x, y]
                    if games[x].first == games[y].second && games[x].second == games[y].first =>
                {
                    // Order the two games so that the lower-indexed player's first game comes first.
                    let (x, y) = if games[x].first < games[y].first {
                        (x, y)
                    } else {
                        (y, x)
                    };
                    let key = (game_cell[x], game_cell[y]);
                    let b = *block_index.entry(key).or_insert_with(|| {
                        blocks.push(PairBlock {
                            cell_ab: key.0,
                            cell_ba: key.1,
                            joint: [[0; 3]; 3],
                        });
                        blocks.len() - 1
                    });
                    blocks[b].joint[games[x].outcome.index()][games[y].outcome.index()] += 1;
                }
                _ => {
                    for &k in unit {
                        loose[game_cell[k]][games[k].outcome.index()] += 1;
                    }
                }
            }
        }
        Ok(GameTable {
            players,
            cells,
            loose,
            blocks,
            totals,
            games: games.len(),
        })
    }

    /// Number of players.
    pub fn players(&self) -> usize {
        self.players
    }

    /// Number of games.
    pub fn games(&self) -> usize {
        self.games
    }

    /// The ordered encounters with their counts.
    pub fn cells(&self) -> &[Cell] {
        &self.cells
    }

    /// Loose games (not in a colour-swapped pair) per cell, parallel to [`GameTable::cells`].
    pub fn loose(&self) -> &[[u64; 3]] {
        &self.loose
    }

    /// The game pairs, one block per encounter.
    pub fn blocks(&self) -> &[PairBlock] {
        &self.blocks
    }

    /// Per-player totals.
    pub fn totals(&self) -> &[PlayerTotals] {
        &self.totals
    }
}

/// ln(10)/400: one Elo point in natural-log units of the odds.
pub const ELO_SCALE: f64 = std::f64::consts::LN_10 / 400.0;

/// 800/ln(10) ≈ 347.436: nElo per unit of the normalized t-value (fishtest `nelo_divided_by_nt`).
pub const NELO_PER_T: f64 = 800.0 / std::f64::consts::LN_10;

/// The logistic Elo difference for an expected score `s`: `−400·log10(1/s − 1)` (Elo 1978).
///
/// Like fishtest's `stat_util.elo`, `s` is clamped to `[1e-3, 1 − 1e-3]` so the result is
/// finite (±1200 Elo at most).
///
/// ```
/// use mancala_rating::score_to_elo;
/// assert!((score_to_elo(0.75) - 190.848).abs() < 1e-3);
/// assert_eq!(score_to_elo(0.5), 0.0);
/// ```
pub fn score_to_elo(s: f64) -> f64 {
    let s = s.clamp(1e-3, 1.0 - 1e-3);
    -400.0 * (1.0 / s - 1.0).log10()
}

/// The expected score for a logistic Elo difference: `1 / (1 + 10^(−d/400))`.
pub fn elo_to_score(d: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

/// The standard normal quantile Φ⁻¹(p).
pub fn normal_quantile(p: f64) -> f64 {
    // Normal::new(0, 1) cannot fail.
    Normal::new(0.0, 1.0).map_or(f64::NAN, |n| n.inverse_cdf(p))
}

/// The standard normal CDF Φ(x).
pub fn normal_cdf(x: f64) -> f64 {
    Normal::new(0.0, 1.0).map_or(f64::NAN, |n| n.cdf(x))
}

/// Checks a confidence level is in (0, 1).
pub(crate) fn check_level(level: f64) -> Result<(), RatingError> {
    if level > 0.0 && level < 1.0 {
        Ok(())
    } else {
        Err(RatingError::InvalidConfig(format!(
            "confidence level {level} must be strictly between 0 and 1"
        )))
    }
}

#[cfg(test)]
mod tests;
#[cfg(test)]
mod tests_anchors;
