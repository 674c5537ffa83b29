//! The event stream of a run: what the runner tells its sinks, in the order it happens. The
//! results writer, the progress line, the command's observers (an SPRT, a gate, a calibration)
//! and the CLI's messages are all sinks of the same stream; the library prints nothing itself.

use crate::run_folder::games::GameRecord;
use crate::run_folder::state::State;

/// A signal that stops a run (the folder is left ready for `--resume`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Signal {
    Interrupt,
    Terminate,
    /// A closed terminal, or a scheduler's hangup: handled like SIGTERM.
    Hangup,
}

impl Signal {
    pub fn as_str(self) -> &'static str {
        match self {
            Signal::Interrupt => "SIGINT",
            Signal::Terminate => "SIGTERM",
            Signal::Hangup => "SIGHUP",
        }
    }
}

impl std::fmt::Display for Signal {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Why a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum StopReason {
    /// Every game of the plan was played (or skipped: a dropped or retired player's).
    Completed,
    /// A signal: the games not played are left for `--resume`.
    Signal(Signal),
    /// An observer decided (the SPRT, the gate): what it decided.
    Decided(String),
    /// The arena could not go on; the error is the run's result.
    Failed,
}

impl StopReason {
    /// The state the run folder records for this end, and its reason.
    pub fn recorded(&self) -> (State, Option<String>) {
        match self {
            StopReason::Completed => (State::Finished, None),
            StopReason::Signal(s) => (State::Interrupted, Some(s.as_str().to_string())),
            StopReason::Decided(why) => (State::Stopped, Some(why.clone())),
            StopReason::Failed => (State::Failed, None),
        }
    }
}

/// One event of a run.
#[derive(Debug)]
pub enum RunEvent<'a> {
    /// Play begins: the games of the plan (this shard's) and those already in the folder.
    Started { total: u64, done: u64 },
    /// A game ended. The results writer is the first sink: the others see a game once it is on
    /// disk.
    Game(&'a GameRecord),
    /// A player will play no more games of this run (it could not start), and the sentence
    /// that says so.
    PlayerDropped { name: &'a str, message: &'a str },
    /// Something the user should know that does not stop the run.
    Warning(&'a str),
    /// The run was told to stop, and why: the games under way are being ended (their bots
    /// killed on a signal) and no new game starts. Sent once, when the first reason arrives.
    Stopping(&'a StopReason),
    /// The run has ended (every slot finished, the folder's state recorded), and why.
    Stopped(&'a StopReason),
}

/// What the run does next, as a sink decides on an event.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Steer {
    /// Go on.
    Continue,
    /// Play no more games of these players (indices into the configuration's players): their
    /// games not yet started are skipped, as a dropped player's are (a gate's level that is
    /// decided).
    Retire(Vec<usize>),
    /// Stop the run cleanly: an SPRT or a gate that reached its decision, said in the words the
    /// folder records (`state.json`'s reason).
    Stop(String),
}

/// A receiver of a run's events. `Err` stops the run with that error (the results writer's, when
/// the disk is full).
pub trait RunSink {
    fn on(&mut self, event: &RunEvent<'_>) -> anyhow::Result<Steer>;
}

/// A closure over finished games as a sink: the common observer (the SPRT, the gate).
pub struct OnGame<F>(pub F);

impl<F: FnMut(&GameRecord) -> Steer> RunSink for OnGame<F> {
    fn on(&mut self, event: &RunEvent<'_>) -> anyhow::Result<Steer> {
        Ok(match event {
            RunEvent::Game(record) => (self.0)(record),
            _ => Steer::Continue,
        })
    }
}
