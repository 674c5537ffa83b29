//! [`Contestant`]: what the referee asks of a player during one game, so that the game loop
//! (`tournament::referee`) is one piece of code whoever answers: a bot of any protocol
//! ([`Player`]), check-bot's random mover, or a scripted test double.

use std::cell::Cell;
use std::marker::PhantomData;
use std::time::Duration;

use super::{Answer, Fault, FaultKind, Player};
use crate::protocol::{GoLimits, PositionStart};
use crate::rules::{Move, Position, Ruleset};
use crate::vocab::TimeBy;

/// One request for a move: the game so far (`start` + `moves`), the limits the bot is sent, and
/// `limit`, the time after which no answer is a [`super::FaultKind::Timeout`], counted on the
/// `time_by` clock ([`super::MoveClock`]).
#[derive(Clone, Copy, Debug)]
pub struct Turn<'a> {
    pub start: &'a PositionStart,
    pub moves: &'a [Move],
    pub limits: GoLimits,
    pub limit: Duration,
    pub time_by: TimeBy,
}

impl Turn<'_> {
    /// The game's position: `start` + `moves` under `ruleset`. A failure is the arena's (its
    /// own record does not replay), reported as an `io` fault.
    pub fn position(&self, ruleset: Ruleset) -> Result<Position, Fault> {
        let mut pos = match self.start {
            PositionStart::Startpos => Position::new(ruleset),
            PositionStart::State(s) => Position::from_state(ruleset, s)
                .map_err(|e| Fault::new(FaultKind::Io, format!("the game's start: {e}")))?,
        };
        for &mv in self.moves {
            pos.play(mv)
                .map_err(|e| Fault::new(FaultKind::Io, format!("the game's move {mv}: {e}")))?;
        }
        Ok(pos)
    }

    /// When a driver whose bots are not told the time stops their thinking and takes their
    /// last move (a KGP `stop`, the end of a per-move program): the move time, else a twentieth
    /// of the clock plus the increment, else the hard limit (a depth or node limit means
    /// nothing to them).
    pub fn soft_limit(&self) -> Duration {
        let limits = &self.limits;
        let ms = match (limits.movetime, limits.time) {
            (Some(m), Some(t)) => m.min(t),
            (Some(m), None) => m,
            (None, Some(t)) => (t / 20 + limits.inc.unwrap_or(0)).min(t),
            (None, None) => return self.limit,
        };
        Duration::from_millis(ms).min(self.limit)
    }
}

thread_local! {
    static SLOT_CLAIMED: Cell<bool> = const { Cell::new(false) };
}

/// A game slot's thread, claimed for playing games (docs/tournament.md, "Game slots"): at most
/// one per thread, and it cannot leave its thread. [`Contestant::go`] borrows it mutably for
/// the whole call, which is how its signature says that the call has the thread to itself: it
/// may block it until the answer (no other game of the slot can be asked for a move meanwhile).
pub struct SlotThread {
    /// Not `Send`: the claim is this thread's.
    _here: PhantomData<*const ()>,
}

impl SlotThread {
    /// Claims the calling thread. Panics if it is claimed already: one slot, one thread.
    pub fn claim() -> SlotThread {
        let claimed_before = SLOT_CLAIMED.with(|c| c.replace(true));
        assert!(!claimed_before, "this thread is a game slot already");
        SlotThread { _here: PhantomData }
    }
}

impl Drop for SlotThread {
    fn drop(&mut self) {
        SLOT_CLAIMED.with(|c| c.set(false));
    }
}

/// One side of a game as the referee sees it. Every call runs on a game slot's thread and its
/// current-thread runtime, so no call needs to be `Send`.
// The futures are awaited on the slot's own current-thread runtime, never moved to another
// thread: the `Send` bound the lint asks about is not wanted.
#[allow(async_fn_in_trait)]
pub trait Contestant {
    /// A new game of `ruleset`: `first` when this contestant is the game's first player (South
    /// at the start); `seed` for its randomness. A fault forfeits the game.
    async fn new_game(&mut self, ruleset: Ruleset, seed: u64, first: bool) -> Result<(), Fault>;

    /// The contestant's move for `turn`, or a fault; no answer within `turn.limit` of asking is
    /// a [`super::FaultKind::Timeout`]. The move is the referee's to check for legality, and
    /// `Answer::think` is what the clock is charged.
    ///
    /// Has the `slot` thread to itself until the answer, a fault or the limit, and may block it:
    /// a native bot and a ManKalah agent are waited for with a blocking `epoll_wait` that never
    /// yields to the runtime; the KGP driver yields to the slot's runtime while waiting. Either
    /// way the slot plays nothing else meanwhile, and the time limit is the contestant's to
    /// enforce.
    async fn go(&mut self, slot: &mut SlotThread, turn: Turn<'_>) -> Result<Answer, Fault>;

    /// The game is over after `moves` (its rules' end, an adjudication or the other side's
    /// forfeit). Not called for a contestant that faulted.
    async fn end_game(&mut self, start: &PositionStart, moves: &[Move]);

    /// The CPU time the bot's processes used for the last [`Contestant::go`], answered or not
    /// (a process started for the move counts from its start); `None` where it is not measured.
    fn last_cpu(&self) -> Option<Duration> {
        None
    }
}

impl Contestant for Player {
    async fn new_game(&mut self, ruleset: Ruleset, seed: u64, first: bool) -> Result<(), Fault> {
        Player::new_game(self, ruleset, seed, first).await
    }

    async fn go(&mut self, _slot: &mut SlotThread, turn: Turn<'_>) -> Result<Answer, Fault> {
        Player::go(self, turn).await
    }

    async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        Player::end_game(self, start, moves).await
    }

    fn last_cpu(&self) -> Option<Duration> {
        Player::last_cpu(self)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_soft_limit_is_the_move_time_or_a_share_of_the_clock() {
        let turn = |limits| Turn {
            start: &PositionStart::Startpos,
            moves: &[],
            limits,
            limit: Duration::from_secs(10),
            time_by: TimeBy::Wall,
        };
        let movetime = GoLimits {
            movetime: Some(200),
            ..GoLimits::default()
        };
        assert_eq!(turn(movetime).soft_limit(), Duration::from_millis(200));
        let clock = GoLimits {
            time: Some(6000),
            inc: Some(100),
            ..GoLimits::default()
        };
        assert_eq!(turn(clock).soft_limit(), Duration::from_millis(400));
        let none = turn(GoLimits::default());
        assert_eq!(none.soft_limit(), Duration::from_secs(10));
    }

    #[test]
    fn a_thread_is_one_slot_at_a_time() {
        let slot = SlotThread::claim();
        let again = std::panic::catch_unwind(SlotThread::claim);
        assert!(again.is_err(), "a second claim on the same thread");
        // Another thread is another slot.
        std::thread::spawn(|| drop(SlotThread::claim()))
            .join()
            .unwrap();
        drop(slot);
        drop(SlotThread::claim());
    }
}
