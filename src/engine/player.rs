//! A player's bot whatever protocol it speaks: the one interface the referee, the pool and the
//! run's preflight use. The arena's own protocol is [`Engine`]; the ManKalah and KGP drivers
//! translate the same calls into those protocols (docs/protocols.md), so faults, time limits,
//! forfeits, logs, resume and ratings are the same for every bot.

use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::kgp::Kgp;
use super::mankalah::ManKalah;
use super::{Answer, BotInfo, BotLog, BotSpec, Engine, Fault, StartError, Stop};
use crate::protocol::{GoLimits, PositionStart};
use crate::rules::{Move, Ruleset};

/// The protocol a bot speaks (the `protocol` key of a player).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Protocol {
    /// The arena's own line protocol (docs/protocol.md).
    #[default]
    Mancala,
    /// The Manchester ManKalah engine protocol: one agent process per game on stdin/stdout.
    Mankalah,
    /// The Kalah Game Protocol 1.0 (KWARC): the agent is a client of the arena's TCP server.
    Kgp,
}

impl Protocol {
    pub const ALL: [Protocol; 3] = [Protocol::Mancala, Protocol::Mankalah, Protocol::Kgp];

    pub fn as_str(self) -> &'static str {
        match self {
            Protocol::Mancala => "mancala",
            Protocol::Mankalah => "mankalah",
            Protocol::Kgp => "kgp",
        }
    }

    /// Whether this is the arena's own protocol (the default, left out of `run.json`).
    pub fn is_native(&self) -> bool {
        *self == Protocol::Mancala
    }
}

impl std::str::FromStr for Protocol {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Protocol::ALL
            .into_iter()
            .find(|p| p.as_str() == s)
            .ok_or_else(|| format!("unknown protocol `{s}` (mancala, mankalah or kgp)"))
    }
}

impl std::fmt::Display for Protocol {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// One player's live bot.
pub enum Player {
    Native(Engine),
    ManKalah(ManKalah),
    Kgp(Kgp),
}

impl Player {
    /// Starts the bot and makes it ready, in its protocol's way: the handshake and options for
    /// the arena's own, the connection and `mode` for KGP, the process only for ManKalah (which
    /// has no handshake). `stop`, the run's, ends its waits when the run stops.
    pub async fn start(
        spec: &BotSpec,
        log: &BotLog,
        handshake_timeout: Duration,
        stop: Option<&Stop>,
    ) -> Result<Player, StartError> {
        Ok(match spec.protocol {
            Protocol::Mancala => {
                Player::Native(Engine::start(spec, log, handshake_timeout, stop).await?)
            }
            Protocol::Mankalah => Player::ManKalah(ManKalah::start(spec, log, stop)?),
            Protocol::Kgp => Player::Kgp(Kgp::start(spec, log, handshake_timeout).await?),
        })
    }

    /// What the bot told about itself (for a driver: what its protocol implies).
    pub fn info(&self) -> &BotInfo {
        match self {
            Player::Native(e) => &e.info,
            Player::ManKalah(m) => &m.info,
            Player::Kgp(k) => &k.info,
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
            Player::Kgp(k) => k.new_game(ruleset).await,
        }
    }

    /// The bot's move in the game `start` + `moves`, within `limit` of asking.
    pub async fn go(
        &mut self,
        start: &PositionStart,
        moves: &[Move],
        limits: GoLimits,
        limit: Duration,
    ) -> Result<Answer, Fault> {
        match self {
            Player::Native(e) => e.go(start, moves, limits, limit),
            Player::ManKalah(m) => m.go(start, moves, limit).await,
            Player::Kgp(k) => k.go(start, moves, limits, limit).await,
        }
    }

    /// The game is over after `moves` (its rules' end, an adjudication or the other bot's
    /// forfeit): a ManKalah agent is told the last moves and `END`; the others need nothing.
    pub async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        if let Player::ManKalah(m) = self {
            m.end_game(start, moves).await;
        }
    }

    /// Kills the bot's process group at once.
    pub async fn kill(&mut self) {
        match self {
            Player::Native(e) => e.kill().await,
            Player::ManKalah(m) => m.kill().await,
            Player::Kgp(k) => k.kill().await,
        }
    }

    /// Says goodbye in the protocol's way, gives the bot `grace` to exit, then kills its group.
    pub async fn quit(self, grace: Duration) {
        match self {
            Player::Native(e) => e.quit(grace).await,
            Player::ManKalah(m) => m.quit(grace).await,
            Player::Kgp(k) => k.quit(grace).await,
        }
    }
}
