//! A scripted contestant: the referee's test double. It answers each `go` from a script (a
//! move with the think time to charge, a move chosen from the position, or a fault) instead of
//! a process, and notes every call, so that the referee's clock, limits, swap, adjudication
//! and forfeits are tested in milliseconds. Time is reported, never slept: a think time longer
//! than the limit the referee gave is answered the way a bot's wait ends, with a timeout.

use std::collections::VecDeque;
use std::time::Duration;

use crate::engine::{Answer, Contestant, Fault, FaultKind, SlotThread, Turn};
use crate::protocol::{GoLimits, PositionStart};
use crate::rules::{Move, Position, Ruleset};

/// One answer to a `go`.
#[derive(Clone, Debug)]
pub enum Step {
    /// `mv` after `ms` of thinking.
    Play(Move, u64),
    /// The lowest legal move of the position, after `ms` of thinking.
    Lowest(u64),
    /// This fault instead of an answer.
    Fail(FaultKind),
    /// The lowest legal move after `ms`, played for the contestant at random (a KGP agent's
    /// missing move).
    Random(u64),
}

/// What the referee asked of the contestant.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Asked {
    pub limits: GoLimits,
    pub limit: Duration,
    /// How many moves (the opening's included) the game had.
    pub moves: usize,
}

/// A contestant that plays its script, then `then` for every further `go` (if set).
#[derive(Default)]
pub struct Scripted {
    steps: VecDeque<Step>,
    then: Option<Step>,
    /// A fault for `new_game` (the `isready` after `newgame`).
    pub new_game_fault: Option<FaultKind>,
    ruleset: Option<Ruleset>,
    /// Each `new_game`'s `first` argument.
    pub games: Vec<bool>,
    /// Each `go`, in order.
    pub asked: Vec<Asked>,
    /// The length of the move list at `end_game`, if it was called.
    pub ended: Option<usize>,
    /// The CPU time each `go` reports having used, if any.
    pub cpu: Option<Duration>,
}

impl Scripted {
    /// Plays `steps`, then fails the test if asked again.
    pub fn new(steps: impl IntoIterator<Item = Step>) -> Scripted {
        Scripted {
            steps: steps.into_iter().collect(),
            ..Scripted::default()
        }
    }

    /// Plays `steps`, then answers every further `go` with `then`.
    pub fn then(mut self, then: Step) -> Scripted {
        self.then = Some(then);
        self
    }
}

impl Contestant for Scripted {
    async fn new_game(&mut self, ruleset: Ruleset, _seed: u64, first: bool) -> Result<(), Fault> {
        self.ruleset = Some(ruleset);
        self.games.push(first);
        match self.new_game_fault {
            Some(kind) => Err(Fault::new(kind, "scripted new game fault")),
            None => Ok(()),
        }
    }

    async fn go(&mut self, _slot: &mut SlotThread, turn: Turn<'_>) -> Result<Answer, Fault> {
        let (moves, limit) = (turn.moves, turn.limit);
        self.asked.push(Asked {
            limits: turn.limits,
            limit,
            moves: moves.len(),
        });
        let step = self
            .steps
            .pop_front()
            .or_else(|| self.then.clone())
            .expect("the script has an answer for every go");
        let random = matches!(step, Step::Random(_)).then(|| "scripted".to_string());
        let (mv, ms) = match step {
            Step::Play(mv, ms) => (mv, ms),
            Step::Lowest(ms) | Step::Random(ms) => {
                let ruleset = self.ruleset.expect("go after new_game");
                let mut pos = match turn.start {
                    PositionStart::Startpos => Position::new(ruleset),
                    PositionStart::State(state) => {
                        Position::from_state(ruleset, state).expect("a valid state")
                    }
                };
                for &mv in moves {
                    pos.play(mv).expect("the referee sends legal games");
                }
                (pos.legal_moves()[0], ms)
            }
            Step::Fail(kind) => {
                return Err(Fault::new(kind, format!("scripted {}", kind.as_str())))
            }
        };
        let think = Duration::from_millis(ms);
        if think > limit {
            return Err(Fault::new(
                FaultKind::Timeout,
                format!("no bestmove within {} ms", limit.as_millis()),
            ));
        }
        Ok(Answer {
            random,
            ..Answer::of(mv, think)
        })
    }

    async fn end_game(&mut self, _start: &PositionStart, moves: &[Move]) {
        self.ended = Some(moves.len());
    }

    fn last_cpu(&self) -> Option<Duration> {
        self.cpu
    }
}
