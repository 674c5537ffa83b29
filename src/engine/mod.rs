//! One bot as a child process: spawn, handshake, options, `go` with time limits, stop, kill.
//!
//! Bots are untrusted programs. Their stdout is read through a length-limited line reader, every
//! wait has a deadline, and a bot is killed with its whole process group so nothing it started
//! outlives it. A misbehaving bot is a [`Fault`] value, never a panic: the referee turns it into a
//! forfeit and the tournament goes on. The bot's stderr goes to a per-bot log file.
//!
//! What to send and when is `docs/protocol.md`; the message types are [`crate::protocol`].

pub mod check;
mod process;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use crate::protocol::{FromBot, GoLimits, IdKey, OptionDecl, PositionStart, ToBot};
use crate::rules::{Move, Ruleset};

pub use process::{become_subreaper, BotProcess};

/// How many non-protocol lines a bot may print while one answer is due before it counts as
/// flooding (garbage) rather than chatter.
pub const MAX_UNKNOWN_LINES: usize = 10_000;

/// How to start a bot: a program with arguments, run directly (no shell), or a shell command line
/// when the user asks for one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Program {
    Exec { program: PathBuf, args: Vec<String> },
    Shell { command: String },
}

impl Program {
    /// Splits a command line the way a POSIX shell splits words (quotes respected), without
    /// running a shell.
    pub fn from_command_line(line: &str) -> Result<Program, String> {
        let words =
            shlex::split(line).ok_or_else(|| format!("unbalanced quotes in command `{line}`"))?;
        let mut words = words.into_iter();
        let program = words.next().ok_or_else(|| "empty command".to_string())?;
        Ok(Program::Exec {
            program: PathBuf::from(program),
            args: words.collect(),
        })
    }

    /// A readable form for messages and logs.
    pub fn display(&self) -> String {
        match self {
            Program::Exec { program, args } => {
                let mut parts = vec![program.display().to_string()];
                parts.extend(args.iter().cloned());
                shlex::try_join(parts.iter().map(String::as_str))
                    .unwrap_or_else(|_| parts.join(" "))
            }
            Program::Shell { command } => format!("sh -c {command:?}"),
        }
    }
}

/// A player of the tournament: a name, how to start it, and the options sent after the handshake.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct BotSpec {
    pub name: String,
    pub program: Program,
    /// Working directory of the bot process (default: the arena's).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub dir: Option<PathBuf>,
    /// `setoption` pairs, in order.
    #[serde(default)]
    pub options: Vec<(String, String)>,
}

/// What went wrong with a bot. Each kind is a termination reason in the results files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The program could not be started at all.
    Spawn,
    /// No `mancalaok` / `readyok` in time, or the bot exited during the handshake.
    Handshake,
    /// The process exited (or closed its stdout) while an answer was due.
    Crash,
    /// No `bestmove` within the time limit (plus the margin).
    Timeout,
    /// `bestmove` with a move that does not parse.
    Malformed,
    /// A well-formed move that is illegal in the position.
    IllegalMove,
    /// Bytes that are not UTF-8, or a flood of lines that are not protocol messages.
    Garbage,
    /// A line longer than the protocol's maximum.
    LineTooLong,
    /// Writing to the bot failed (its stdin is closed).
    Io,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Spawn,
        FaultKind::Handshake,
        FaultKind::Crash,
        FaultKind::Timeout,
        FaultKind::Malformed,
        FaultKind::IllegalMove,
        FaultKind::Garbage,
        FaultKind::LineTooLong,
        FaultKind::Io,
    ];

    /// The name in the results files (`games.csv`'s `termination` column).
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Spawn => "spawn",
            FaultKind::Handshake => "handshake",
            FaultKind::Crash => "crash",
            FaultKind::Timeout => "timeout",
            FaultKind::Malformed => "malformed_move",
            FaultKind::IllegalMove => "illegal_move",
            FaultKind::Garbage => "garbage",
            FaultKind::LineTooLong => "line_too_long",
            FaultKind::Io => "io",
        }
    }
}

impl std::str::FromStr for FaultKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown fault kind `{s}`"))
    }
}

/// A bot's failure, with a human-readable detail (what it printed, how it exited).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{}: {detail}", kind.as_str())]
pub struct Fault {
    pub kind: FaultKind,
    pub detail: String,
}

impl Fault {
    pub fn new(kind: FaultKind, detail: impl Into<String>) -> Fault {
        Fault {
            kind,
            detail: detail.into(),
        }
    }
}

/// What the bot told about itself during the handshake.
#[derive(Clone, Debug, Default)]
pub struct BotInfo {
    pub name: Option<String>,
    pub author: Option<String>,
    pub options: Vec<OptionDecl>,
}

/// A bot's answer to `go`.
#[derive(Clone, Debug)]
pub struct Answer {
    pub mv: Move,
    /// From the end of writing `go` to reading `bestmove`.
    pub think: Duration,
    /// The last `info` score the bot reported before answering, if any.
    pub last_info: Option<crate::protocol::Info>,
}

/// A running bot that has completed the handshake.
pub struct Engine {
    process: BotProcess,
    pub info: BotInfo,
    handshake_timeout: Duration,
}

impl Engine {
    /// Starts the bot, runs the handshake (`mancala` … `mancalaok`), sends the options and waits
    /// for `readyok`. The bot's stderr is appended to `stderr_log`.
    pub async fn start(
        spec: &BotSpec,
        stderr_log: &Path,
        handshake_timeout: Duration,
    ) -> Result<Engine, Fault> {
        let process = BotProcess::spawn(&spec.program, spec.dir.as_deref(), stderr_log)?;
        let mut engine = Engine {
            process,
            info: BotInfo::default(),
            handshake_timeout,
        };
        match engine.handshake(&spec.options).await {
            Ok(()) => Ok(engine),
            Err(fault) => {
                engine.kill().await;
                Err(fault)
            }
        }
    }

    async fn handshake(&mut self, options: &[(String, String)]) -> Result<(), Fault> {
        let deadline = Instant::now() + self.handshake_timeout;
        self.send(&ToBot::Mancala).await.map_err(as_handshake)?;
        loop {
            match self.recv_until(deadline).await.map_err(as_handshake)? {
                FromBot::MancalaOk => break,
                FromBot::Id {
                    key: IdKey::Name,
                    value,
                } => self.info.name = Some(value),
                FromBot::Id {
                    key: IdKey::Author,
                    value,
                } => self.info.author = Some(value),
                FromBot::Option(decl) => self.info.options.push(decl),
                _ => {}
            }
        }
        for (name, value) in options {
            self.send(&ToBot::SetOption {
                name: name.clone(),
                value: Some(value.clone()),
            })
            .await
            .map_err(as_handshake)?;
        }
        self.sync().await.map_err(as_handshake)
    }

    /// `isready` → `readyok` within the handshake timeout.
    pub async fn sync(&mut self) -> Result<(), Fault> {
        let deadline = Instant::now() + self.handshake_timeout;
        self.send(&ToBot::IsReady).await?;
        loop {
            if let FromBot::ReadyOk = self.recv_until(deadline).await? {
                return Ok(());
            }
        }
    }

    /// Announces a new game and waits until the bot is ready for it.
    pub async fn new_game(&mut self, ruleset: Ruleset, seed: u64) -> Result<(), Fault> {
        self.send(&ToBot::NewGame {
            ruleset: ruleset.to_string(),
            seed: Some(seed),
        })
        .await?;
        self.sync().await
    }

    /// Sends the whole game and `go`, and waits for `bestmove` until `limit` has passed since
    /// `go` was written. The move is checked for syntax only; legality is the referee's call.
    pub async fn go(
        &mut self,
        start: &PositionStart,
        moves: &[Move],
        limits: GoLimits,
        limit: Duration,
    ) -> Result<Answer, Fault> {
        // One write for both lines: one wake-up of the bot instead of two.
        let position = ToBot::Position {
            start: start.clone(),
            moves: moves.to_vec(),
        };
        self.process
            .write_line(&format!("{position}\n{}", ToBot::Go(limits)))
            .await?;
        let started = Instant::now();
        let deadline = started + limit;
        let mut last_info = None;
        loop {
            match self.recv_until(deadline).await {
                Ok(FromBot::BestMove(mv)) => {
                    return Ok(Answer {
                        mv,
                        think: started.elapsed(),
                        last_info,
                    })
                }
                Ok(FromBot::Info(info)) => last_info = Some(info),
                Ok(_) => {}
                Err(fault) if fault.kind == FaultKind::Timeout => {
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        format!("no bestmove within {} ms", limit.as_millis()),
                    ))
                }
                Err(fault) => return Err(fault),
            }
        }
    }

    /// Sends a message line.
    pub async fn send(&mut self, msg: &ToBot) -> Result<(), Fault> {
        self.process.write_line(&msg.to_string()).await
    }

    /// Reads the next protocol message before `deadline`. Unknown lines are skipped (up to
    /// [`MAX_UNKNOWN_LINES`]); a malformed `bestmove` is a [`FaultKind::Malformed`]; other
    /// malformed known messages are ignored like unknown lines.
    pub async fn recv_until(&mut self, deadline: Instant) -> Result<FromBot, Fault> {
        let mut unknown = 0usize;
        loop {
            let line = self.process.read_line(deadline).await?;
            match FromBot::parse(&line) {
                Ok(FromBot::Unknown(_)) | Err(_) if !is_bestmove(&line) => {
                    unknown += 1;
                    if unknown > MAX_UNKNOWN_LINES {
                        return Err(Fault::new(
                            FaultKind::Garbage,
                            format!("more than {MAX_UNKNOWN_LINES} lines that are not protocol messages"),
                        ));
                    }
                }
                Ok(msg) => return Ok(msg),
                Err(err) => return Err(Fault::new(FaultKind::Malformed, format!("{err}"))),
            }
        }
    }

    /// Says `quit`, gives the bot `grace` to exit, then kills its process group.
    pub async fn quit(mut self, grace: Duration) {
        let _ = self.send(&ToBot::Quit).await;
        self.process.wait_or_kill(grace).await;
    }

    /// Kills the bot's whole process group and reaps it.
    pub async fn kill(&mut self) {
        self.process.kill().await;
    }
}

fn is_bestmove(line: &str) -> bool {
    line.split_whitespace().next() == Some("bestmove")
}

fn as_handshake(fault: Fault) -> Fault {
    match fault.kind {
        FaultKind::Timeout => Fault::new(
            FaultKind::Handshake,
            format!("handshake not completed: {}", fault.detail),
        ),
        FaultKind::Crash | FaultKind::Io => Fault::new(
            FaultKind::Handshake,
            format!("exited during the handshake: {}", fault.detail),
        ),
        _ => fault,
    }
}

/// Channel capacity between the stdout reader task and the engine: bounded, so a flooding bot
/// blocks on its own pipe instead of filling the arena's memory.
const LINE_CHANNEL: usize = 256;

type LineResult = Result<String, Fault>;

fn line_channel() -> (mpsc::Sender<LineResult>, mpsc::Receiver<LineResult>) {
    mpsc::channel(LINE_CHANNEL)
}
