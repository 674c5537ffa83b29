//! [`Contestant`]: what the referee asks of a player during one game, so that the game loop
//! (`tournament::referee`) is one piece of code whoever answers: a bot of any protocol
//! ([`Player`]), check-bot's random mover, or a scripted test double.

use std::time::Duration;

use super::{Answer, Fault, Player};
use crate::protocol::{GoLimits, PositionStart};
use crate::rules::{Move, Ruleset};

/// One side of a game as the referee sees it. Every call runs on a game slot's thread and its
/// current-thread runtime (docs/tournament.md, "Game slots"), so no call needs to be `Send`.
// The futures are awaited on the slot's own current-thread runtime, never moved to another
// thread: the `Send` bound the lint asks about is not wanted.
#[allow(async_fn_in_trait)]
pub trait Contestant {
    /// A new game of `ruleset`: `first` when this contestant is the game's first player (South
    /// at the start); `seed` for its randomness. A fault forfeits the game.
    async fn new_game(&mut self, ruleset: Ruleset, seed: u64, first: bool) -> Result<(), Fault>;

    /// The contestant's move in the game `start` + `moves`, asked with `limits`, or a fault; no
    /// answer within `limit` of asking is a [`super::FaultKind::Timeout`]. The move is the
    /// referee's to check for legality, and `Answer::think` is what the clock is charged.
    ///
    /// Blocks the calling game-slot thread until the answer, a fault or `limit`: a native bot
    /// and a ManKalah agent are waited for with a blocking `epoll_wait` that never yields to the
    /// runtime; the KGP driver yields to the slot's runtime while waiting. Either way the slot
    /// plays nothing else meanwhile, and the time limit is the contestant's to enforce.
    async fn go(
        &mut self,
        start: &PositionStart,
        moves: &[Move],
        limits: GoLimits,
        limit: Duration,
    ) -> Result<Answer, Fault>;

    /// The game is over after `moves` (its rules' end, an adjudication or the other side's
    /// forfeit). Not called for a contestant that faulted.
    async fn end_game(&mut self, start: &PositionStart, moves: &[Move]);
}

impl Contestant for Player {
    async fn new_game(&mut self, ruleset: Ruleset, seed: u64, first: bool) -> Result<(), Fault> {
        Player::new_game(self, ruleset, seed, first).await
    }

    async fn go(
        &mut self,
        start: &PositionStart,
        moves: &[Move],
        limits: GoLimits,
        limit: Duration,
    ) -> Result<Answer, Fault> {
        Player::go(self, start, moves, limits, limit).await
    }

    async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        Player::end_game(self, start, moves).await
    }
}
