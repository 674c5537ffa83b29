//! A player's bot whatever protocol it speaks: the one interface the referee, the pool and the
//! run's preflight use. The arena's own protocol is [`Engine`]; the ManKalah and KGP drivers
//! translate the same calls into those protocols (docs/protocols.md), so faults, time limits,
//! forfeits, logs, resume and ratings are the same for every bot.

use std::time::Duration;

use super::kgp::Kgp;
use super::mankalah::ManKalah;
use super::per_move::PerMove;
use super::{
    sandbox_starts, Answer, BotInfo, BotLog, BotSpec, Engine, Fault, StartError, Stop, Turn,
};
use crate::protocol::PositionStart;
use crate::rules::{Move, Ruleset};
use crate::vocab::Protocol;

/// One player's live bot.
pub enum Player {
    Native(Engine),
    ManKalah(ManKalah),
    Kgp(Kgp),
    PerMove(PerMove),
}

impl Player {
    /// Starts the bot and makes it ready, in its protocol's way: the handshake and options for
    /// the arena's own, the connection and `mode` for KGP, the process only for ManKalah (which
    /// has no handshake), nothing but a look for the program for a per-move program. `stop`, the run's, ends its waits when the run stops.
    pub async fn start(
        spec: &BotSpec,
        log: &BotLog,
        handshake_timeout: Duration,
        stop: Option<&Stop>,
    ) -> Result<Player, StartError> {
        let started = match spec.protocol {
            Protocol::Mancala => Engine::start(spec, log, handshake_timeout, stop)
                .await
                .map(Player::Native),
            Protocol::Mankalah => ManKalah::start(spec, log, stop).map(Player::ManKalah),
            Protocol::Kgp => Kgp::start(spec, log, handshake_timeout)
                .await
                .map(Player::Kgp),
            // Nothing is started before the first move: the sandbox is tried now instead.
            Protocol::PerMove if spec.sandbox => {
                match sandbox_starts(spec.dir.as_deref(), false).await {
                    Ok(()) => PerMove::start(spec, log, stop).map(Player::PerMove),
                    Err(said) => Err(StartError::Sandbox(said)),
                }
            }
            Protocol::PerMove => PerMove::start(spec, log, stop).map(Player::PerMove),
        };
        match started {
            // A sandboxed bot that failed to start: the sandbox itself is tried before the bot
            // is blamed, and when it cannot start either, the fault is bubblewrap's.
            Err(StartError::Bot(fault)) if spec.sandbox => {
                let network = spec.protocol == Protocol::Kgp;
                match sandbox_starts(spec.dir.as_deref(), network).await {
                    Ok(()) => Err(StartError::Bot(fault)),
                    Err(said) => Err(StartError::Sandbox(said)),
                }
            }
            other => other,
        }
    }

    /// What the bot told about itself (for a driver: what its protocol implies).
    pub fn info(&self) -> &BotInfo {
        match self {
            Player::Native(e) => &e.info,
            Player::ManKalah(m) => &m.info,
            Player::Kgp(k) => &k.info,
            Player::PerMove(p) => &p.info,
        }
    }

    /// A new game: `first` when this bot is the game's first player (South at the start).
    pub async fn new_game(
        &mut self,
        ruleset: Ruleset,
        seed: u64,
        first: bool,
    ) -> Result<(), Fault> {
        match self {
            Player::Native(e) => e.new_game(ruleset, seed),
            Player::ManKalah(m) => m.new_game(ruleset, first).await,
            Player::Kgp(k) => k.new_game(ruleset, seed).await,
            Player::PerMove(p) => {
                p.new_game(ruleset);
                Ok(())
            }
        }
    }

    /// The bot's move for `turn`, within `turn.limit` of asking.
    pub async fn go(&mut self, turn: Turn<'_>) -> Result<Answer, Fault> {
        match self {
            Player::Native(e) => e.go(turn),
            Player::ManKalah(m) => m.go(turn).await,
            Player::Kgp(k) => k.go(turn).await,
            Player::PerMove(p) => p.go(turn).await,
        }
    }

    /// The game is over after `moves` (its rules' end, an adjudication or the other bot's
    /// forfeit): a ManKalah agent is told the last moves and `END`; the others need nothing.
    pub async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        if let Player::ManKalah(m) = self {
            m.end_game(start, moves).await;
        }
    }

    /// The CPU time the bot's processes used for the last `go` (see
    /// [`super::Contestant::last_cpu`]).
    pub fn last_cpu(&self) -> Option<Duration> {
        match self {
            Player::Native(e) => e.last_cpu(),
            Player::ManKalah(m) => m.last_cpu,
            Player::Kgp(k) => k.last_cpu,
            Player::PerMove(p) => p.last_cpu,
        }
    }

    /// Kills the bot's process group at once.
    pub async fn kill(&mut self) {
        match self {
            Player::Native(e) => e.kill().await,
            Player::ManKalah(m) => m.kill().await,
            Player::Kgp(k) => k.kill().await,
            // A per-move program lives only while its move is asked for.
            Player::PerMove(_) => {}
        }
    }

    /// Says goodbye in the protocol's way, gives the bot `grace` to exit, then kills its group.
    pub async fn quit(self, grace: Duration) {
        match self {
            Player::Native(e) => e.quit(grace).await,
            Player::ManKalah(m) => m.quit(grace).await,
            Player::Kgp(k) => k.quit(grace).await,
            Player::PerMove(_) => {}
        }
    }
}
