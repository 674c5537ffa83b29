//! One bot as a child process: spawn, handshake, options, `go` with time limits, stop, kill.
//!
//! Bots are untrusted programs. Their stdout is read through a length-limited line reader, every
//! wait has a deadline, and a bot is killed with its whole process group so nothing it started
//! outlives it. A misbehaving bot is a [`Fault`] value, never a panic: the referee turns it into a
//! forfeit and the tournament goes on. The bot's stderr goes to a per-bot log file.
//!
//! [`Engine`] is the one conversation with a bot, for the tournament and for `check-bot`
//! ([`check`]): the checker adds a strict mode (protocol [`Violation`]s recorded, not only
//! skipped) and a transcript, and judges what it sees; the engine never decides what passes.
//! `process` is the operating-system side. What to send and when is `docs/protocol.md`; the
//! message types are [`crate::protocol`].

pub mod check;
mod clock;
mod contestant;
mod kgp;
mod log;
mod mankalah;
mod per_move;
mod player;
mod process;

use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitStatus;
use std::time::{Duration, Instant};

use crate::protocol::{
    FromBot, GoLimits, IdKey, OptionDecl, OptionValueError, ParseError, PositionLine,
    PositionStart, ToBot,
};
use crate::rules::{Move, Ruleset, RulesetPattern};

pub use crate::sys::Stop;
use crate::vocab::TimeBy;
pub use crate::vocab::{BotSpec, FaultKind, Program, Protocol};
pub use clock::MoveClock;
pub use contestant::{Contestant, SlotThread, Turn};
pub use log::{last_lines, BotLog, DEFAULT_LOG_CAP};
pub use mankalah::MANKALAH_RULES;
pub use per_move::PER_MOVE_RULES;
pub use player::Player;
pub use process::{
    arena_resource, become_subreaper, kill_live_bots, kill_orphans, parent_of, sandbox_starts,
    RetryPolicy, Walls, ARENA_RETRY, SANDBOX_MEMORY, SANDBOX_SHM,
};
use process::{BotProcess, Wiring};

/// How many lines the drain before a `go` reads at most, so that a bot writing without pause
/// cannot hold it; what is left is read (and counted) as the answer is awaited.
const MAX_DRAINED: usize = 256;

/// How many non-protocol lines a bot may print while one answer is due before it counts as
/// flooding (garbage) rather than chatter.
pub const MAX_UNKNOWN_LINES: usize = 10_000;

/// How many `id` and `option` lines a handshake may hold: far more than a real bot declares, and
/// few enough that what is kept of a bot printing them in a loop stays small (each line is at
/// most the protocol's 64 KiB) before the flood is a `garbage` fault.
pub const MAX_DECLARATIONS: usize = 512;

/// How much of a check-bot transcript is kept (then a note says the rest was dropped), and how
/// many protocol violations: a bot's flood must not become the checker's memory.
const MAX_TRANSCRIPT_BYTES: usize = 8 << 20;
const MAX_VIOLATIONS: usize = 1000;

/// For the drivers of protocols without options (ManKalah, KGP, per-move): a configured option
/// is the user's mistake, refused before the bot starts. `who` names the bots ("KGP agents").
fn refuse_options(spec: &BotSpec, who: &str) -> Result<(), StartError> {
    match spec.options.first() {
        Some((name, _)) => Err(StartError::Option(OptionValueError::Undeclared {
            name: name.clone(),
            declared: format!("none: {who} take no options"),
        })),
        None => Ok(()),
    }
}

/// What a driver's protocol says of its bot: it plays the rulesets of `pattern`.
fn driver_info(pattern: &str) -> BotInfo {
    BotInfo {
        rulesets: Some(vec![pattern
            .parse::<RulesetPattern>()
            .expect("a driver's pattern is valid")]),
        ..BotInfo::default()
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

/// Why a bot could not be started and made ready.
#[derive(Debug, thiserror::Error)]
pub enum StartError {
    /// The bot's own failure (a missing program, an exit, no handshake): a fault of the bot.
    #[error(transparent)]
    Bot(Fault),
    /// The arena ran out of something (open files, memory, process slots, disk): not the bot's
    /// fault, never a forfeit.
    #[error("the arena could not start `{program}`: {error} (not the bot's fault)")]
    Arena {
        program: String,
        error: std::io::Error,
    },
    /// A configured option does not fit what the bot declared: the user's to fix.
    #[error(transparent)]
    Option(OptionValueError),
    /// The sandbox (bubblewrap) itself cannot start, whatever the bot: bubblewrap's message. The
    /// arena's trouble, never a forfeit: the run stops.
    #[error("the sandbox cannot start: {0} (bubblewrap's own failure: no player is at fault)")]
    Sandbox(String),
}

impl From<Fault> for StartError {
    fn from(fault: Fault) -> Self {
        StartError::Bot(fault)
    }
}

/// What the bot told about itself during the handshake, kept whole (repeats and problems
/// included) so that `check-bot` can judge it.
#[derive(Clone, Debug, Default)]
pub struct BotInfo {
    /// Every `id name` value, in order (the protocol asks for exactly one).
    pub names: Vec<String>,
    /// Every `id author` value, in order (the protocol asks for at most one).
    pub authors: Vec<String>,
    /// The option declarations, in order, duplicates kept.
    pub options: Vec<OptionDecl>,
    /// The rulesets the bot declared (`id rulesets`); `None`: it declared nothing, so it is
    /// taken to play every ruleset.
    pub rulesets: Option<Vec<RulesetPattern>>,
    /// What broke the protocol before `mancalaok`: a `readyok` or `bestmove`, and malformed lines
    /// (the first [`MAX_PROBLEMS`]). The tournament ignores these, as the protocol allows.
    pub problems: Vec<Violation>,
}

impl BotInfo {
    /// The bot's name: the last `id name`.
    pub fn name(&self) -> Option<&str> {
        self.names.last().map(String::as_str)
    }

    /// Whether the bot plays `ruleset` (declared, or nothing declared).
    pub fn plays(&self, ruleset: &Ruleset) -> bool {
        self.rulesets
            .as_ref()
            .map_or(true, |patterns| patterns.iter().any(|p| p.matches(ruleset)))
    }

    /// The declaration in words: `kalah:pits=6 oware`, or `every ruleset`.
    pub fn declared_rulesets(&self) -> String {
        match &self.rulesets {
            None => "every ruleset (it declares none)".to_string(),
            Some(patterns) => patterns
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(" "),
        }
    }
}

/// How many handshake problems [`BotInfo::problems`] keeps, so a flood cannot fill memory.
pub const MAX_PROBLEMS: usize = 100;

/// A line from the bot that breaks the protocol. Recorded in strict mode ([`Engine::strict`]) and,
/// before `mancalaok`, in [`BotInfo::problems`].
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum Violation {
    /// A line that is not a protocol message (ignored by the receiver; `check-bot` warns).
    #[error("unknown line `{0}`")]
    Unknown(String),
    /// A known command whose arguments do not follow the grammar.
    #[error("malformed line: {0}")]
    Malformed(ParseError),
    /// A `bestmove` with no `go` pending, which includes a second `bestmove` for one `go`.
    #[error("`bestmove {0}` with no `go` pending")]
    StrayBestMove(Move),
    /// A `readyok` or `bestmove` before `mancalaok`.
    #[error("`{0}` before `mancalaok`")]
    BeforeMancalaOk(FromBot),
}

/// A bot's answer to `go`.
#[derive(Clone, Debug)]
pub struct Answer {
    pub mv: Move,
    /// From the end of writing `go` to reading `bestmove`.
    pub think: Duration,
    /// The last `info` score the bot reported before answering, if any.
    pub last_info: Option<crate::protocol::Info>,
    /// The arena played this move for the bot, at random, and why (a KGP agent's missing move,
    /// as the official server plays one: docs/protocols.md); `None` for the bot's own move.
    pub random: Option<String>,
}

impl Answer {
    /// The bot's own move `mv` after `think`.
    pub fn of(mv: Move, think: Duration) -> Answer {
        Answer {
            mv,
            think,
            last_info: None,
            random: None,
        }
    }
}

/// One bot process and the whole conversation with it: the only place that writes to a bot or
/// reads from it.
///
/// The tournament calls [`Engine::start`], then [`Engine::new_game`] and [`Engine::go`]; unknown
/// lines are skipped and a bot that breaks a rule the game depends on is a [`Fault`].
/// `check-bot` calls [`Engine::spawn`] with [`Engine::strict`] and [`Engine::with_transcript`],
/// then [`Engine::handshake`], [`Engine::send`] and [`Engine::read`] step by step, and judges what
/// [`Engine::take_violations`] returns; what counts as a pass is its business, not the engine's.
pub struct Engine {
    process: BotProcess,
    pub info: BotInfo,
    handshake_timeout: Duration,
    spawned: Instant,
    /// A `go` was sent and its `bestmove` has not arrived yet.
    go_pending: bool,
    /// Strict mode: the violations not taken yet. `None` in normal mode.
    violations: Option<Vec<Violation>>,
    /// The last line read that was not a protocol message (cut to a few hundred bytes), to
    /// say what a bot printed instead of the answer it owed.
    last_skipped: Option<String>,
    /// Every line in both directions, when recording (up to [`MAX_TRANSCRIPT_BYTES`]).
    transcript: Option<Vec<String>>,
    transcript_bytes: usize,
    /// The player's stderr log, where the arena notes what it discarded.
    log: BotLog,
    /// The text being written to the bot, kept to reuse its memory.
    out: String,
    /// The last `position` and `go` lines sent, kept so that the next `go` of the same game
    /// formats only the moves played since (a game's line grows by two moves per turn).
    sent: SentLines,
    /// The CPU time the bot's process tree used for the last `go`, answered or not.
    last_cpu: Option<Duration>,
}

/// The last `position` line sent (without its line end) and the game it describes, and the
/// last `go` line with its limits.
#[derive(Default)]
struct SentLines {
    start: Option<PositionStart>,
    moves: Vec<Move>,
    position: String,
    limits: Option<GoLimits>,
    go: String,
}

impl SentLines {
    /// The `position` line of `start` + `moves`: the last one extended when it describes the
    /// beginning of this game, written afresh otherwise. Same text as [`PositionLine`].
    fn position(&mut self, start: &PositionStart, moves: &[Move]) -> &str {
        if self.start.as_ref() != Some(start) || !moves.starts_with(&self.moves) {
            self.position.clear();
            let _ = PositionLine { start, moves: &[] }.write_to(&mut self.position);
            self.start = Some(start.clone());
            self.moves.clear();
        }
        for &mv in &moves[self.moves.len()..] {
            if self.moves.is_empty() {
                self.position.push_str(" moves");
            }
            self.position.push(' ');
            let _ = mv.write_to(&mut self.position);
            self.moves.push(mv);
        }
        &self.position
    }

    /// The `go` line of `limits` (without its line end).
    fn go(&mut self, limits: GoLimits) -> &str {
        if self.limits != Some(limits) {
            self.go.clear();
            let _ = write!(self.go, "{}", ToBot::Go(limits));
            self.limits = Some(limits);
        }
        &self.go
    }
}

impl Engine {
    /// Starts the bot, runs the handshake (`mancala` … `mancalaok`), sends the options (checked
    /// against the bot's declarations) and waits for `readyok`. The bot's stderr goes to `log`.
    /// Whatever goes wrong after the process started is a [`FaultKind::Handshake`] (or the fault
    /// of a broken line), and the bot is killed.
    pub async fn start(
        spec: &BotSpec,
        log: &BotLog,
        handshake_timeout: Duration,
        stop: Option<&Stop>,
    ) -> Result<Engine, StartError> {
        let program = &spec.program;
        let dir = spec.dir.as_deref();
        let walls = Walls::of(spec, false);
        let mut engine = Engine::spawn(program, dir, log, handshake_timeout, stop, walls)?;
        if let Err(fault) = engine.handshake() {
            engine.kill().await;
            return Err(StartError::Bot(as_handshake(fault)));
        }
        let options = match engine.checked_options(&spec.options) {
            Ok(options) => options,
            Err(err) => {
                engine.kill().await;
                return Err(StartError::Option(err));
            }
        };
        match engine.set_options(&options).and_then(|()| engine.sync()) {
            Ok(()) => Ok(engine),
            Err(fault) => {
                engine.kill().await;
                Err(StartError::Bot(as_handshake(fault)))
            }
        }
    }

    /// The user's `(name, value)` options as the bot declared them: names in the declared
    /// spelling (matched ignoring case, as UCI does), values checked against the declaration.
    pub fn checked_options(
        &self,
        options: &[(String, String)],
    ) -> Result<Vec<(String, String)>, OptionValueError> {
        options
            .iter()
            .map(|(name, value)| {
                let decl = OptionDecl::find(&self.info.options, name)?;
                Ok((decl.name.clone(), decl.accept(value)?.unwrap_or_default()))
            })
            .collect()
    }

    /// Starts the bot's process in `dir` and sends nothing. `handshake_timeout` bounds the
    /// handshake and every `isready`; `stop` (the run's) ends every wait when the run stops.
    pub fn spawn(
        program: &Program,
        dir: Option<&Path>,
        log: &BotLog,
        handshake_timeout: Duration,
        stop: Option<&Stop>,
        walls: Walls,
    ) -> Result<Engine, StartError> {
        let wiring = Wiring {
            stop: stop.cloned(),
            walls,
            ..Wiring::default()
        };
        let process = BotProcess::spawn(program, dir, log, &wiring)?;
        Ok(Engine {
            process,
            log: log.clone(),
            info: BotInfo::default(),
            handshake_timeout,
            spawned: Instant::now(),
            go_pending: false,
            violations: None,
            transcript: None,
            transcript_bytes: 0,
            last_skipped: None,
            out: String::new(),
            sent: SentLines::default(),
            last_cpu: None,
        })
    }

    /// Strict mode: every unknown line, malformed line and stray `bestmove` the engine reads is
    /// recorded as a [`Violation`] for [`Engine::take_violations`]. What the engine does with
    /// the line is the same as in normal mode.
    pub fn strict(mut self) -> Engine {
        self.violations = Some(Vec::new());
        self
    }

    /// Records every line written to and read from the bot as `"{secs:>8.3} > line"` (to the
    /// bot) or `"{secs:>8.3} < line"` (from it), `secs` counted from the spawn; see
    /// [`Engine::take_transcript`].
    pub fn with_transcript(mut self) -> Engine {
        self.transcript = Some(Vec::new());
        self
    }

    /// The transcript lines recorded since the last call (none when not recording). Recording
    /// goes on; a caller that restarts a bot appends each process's lines to its own list.
    pub fn take_transcript(&mut self) -> Vec<String> {
        self.transcript
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The violations recorded since the last call (none in normal mode).
    pub fn take_violations(&mut self) -> Vec<Violation> {
        self.violations
            .as_mut()
            .map(std::mem::take)
            .unwrap_or_default()
    }

    /// The handshake proper: `mancala`, then everything up to `mancalaok` into [`Engine::info`],
    /// within the handshake timeout. The fault is the raw one (a timeout is a `Timeout`).
    pub fn handshake(&mut self) -> Result<(), Fault> {
        // From the spawn: the bot's start-up is part of its handshake.
        let clock = MoveClock::new(self.spawned, TimeBy::Cpu, Duration::ZERO);
        self.send(&ToBot::Mancala)?;
        let mut problems = std::mem::take(&mut self.info.problems);
        let mut declared = 0usize;
        let result = loop {
            let msg = self.recv_ready(&clock, Some(&mut problems));
            if matches!(msg, Ok(FromBot::Id { .. } | FromBot::Option(_))) {
                declared += 1;
                if declared > MAX_DECLARATIONS {
                    break Err(Fault::new(
                        FaultKind::Garbage,
                        format!(
                            "more than {MAX_DECLARATIONS} `id` or `option` lines in the handshake"
                        ),
                    ));
                }
            }
            match msg {
                Ok(FromBot::MancalaOk) => break Ok(()),
                Ok(FromBot::Id { key, value }) => match key {
                    IdKey::Name => self.info.names.push(value),
                    IdKey::Author => self.info.authors.push(value),
                },
                Ok(FromBot::Option(decl)) => self.info.options.push(decl),
                Ok(FromBot::Rulesets(patterns)) => self.info.rulesets = Some(patterns),
                Ok(msg @ (FromBot::ReadyOk | FromBot::BestMove(_))) => {
                    if problems.len() < MAX_PROBLEMS {
                        problems.push(Violation::BeforeMancalaOk(msg));
                    }
                }
                Ok(_) => {}
                Err(fault) => break Err(fault),
            }
        };
        self.info.problems = problems;
        result.map_err(|fault| match (fault.kind, self.last_skipped.take()) {
            (FaultKind::Timeout, Some(line)) => {
                let bom = if line.starts_with('\u{feff}') {
                    " (it starts with a UTF-8 byte-order mark: print plain UTF-8)"
                } else {
                    ""
                };
                Fault::new(
                    FaultKind::Timeout,
                    format!(
                        "{}; the last line it printed is not `mancalaok`: {line:?}{bom}",
                        fault.detail
                    ),
                )
            }
            _ => fault,
        })
    }

    /// A `setoption` for each (name, value) pair.
    pub fn set_options(&mut self, options: &[(String, String)]) -> Result<(), Fault> {
        for (name, value) in options {
            let value = Some(value.clone());
            self.send(&ToBot::SetOption {
                name: name.clone(),
                value,
            })?;
        }
        Ok(())
    }

    /// `isready` → `readyok` within the handshake timeout (of CPU time: see
    /// [`Engine::recv_ready`]).
    pub fn sync(&mut self) -> Result<(), Fault> {
        let baseline = self.process.cpu_time().unwrap_or_default();
        self.send(&ToBot::IsReady)?;
        let clock = MoveClock::new(Instant::now(), TimeBy::Cpu, baseline);
        loop {
            if let FromBot::ReadyOk = self.recv_ready(&clock, None)? {
                // The next move's CPU time counts from here (a new game's set-up is not a move).
                self.process.cpu_time();
                return Ok(());
            }
        }
    }

    /// The next protocol message of a readiness wait (the handshake, `isready`) on `clock`: the
    /// handshake timeout counts the bot's CPU time, within [`crate::vocab::CPU_WALL_CAP`] times
    /// it of wall time, so that a bot that starts or gets ready slowly because the machine is
    /// busy is not failed for it (docs/tournament.md, "Time"), while one that hangs still is.
    fn recv_ready(
        &mut self,
        clock: &MoveClock,
        mut malformed: Option<&mut Vec<Violation>>,
    ) -> Result<FromBot, Fault> {
        let limit = self.handshake_timeout;
        let mut wake = clock.wake(limit, || self.process.cpu_time());
        loop {
            match self.recv(wake, malformed.as_deref_mut()) {
                Err(fault) if fault.kind == FaultKind::Timeout => {
                    wake = clock.wake(limit, || self.process.cpu_time());
                    if clock.spent(limit, || self.process.cpu_time()) {
                        let cpu = self.process.cpu_time();
                        return Err(Fault::new(
                            FaultKind::Timeout,
                            clock.over("no answer", limit, cpu),
                        ));
                    }
                }
                other => return other,
            }
        }
    }

    /// Announces a new game and waits until the bot is ready for it.
    pub fn new_game(&mut self, ruleset: Ruleset, seed: u64) -> Result<(), Fault> {
        self.send(&ToBot::NewGame {
            ruleset: ruleset.to_string(),
            seed: Some(seed),
        })?;
        self.sync()
    }

    /// Sends the whole game and `go`, and waits for `bestmove` until the turn's limit is up on
    /// its clock (the time since `go` was written, or the bot's CPU time since:
    /// [`MoveClock`]). The move is checked for syntax only; legality is the referee's call.
    pub fn go(&mut self, turn: Turn<'_>) -> Result<Answer, Fault> {
        self.drain()?;
        self.out.clear();
        self.out
            .push_str(self.sent.position(turn.start, turn.moves));
        self.out.push('\n');
        self.out.push_str(self.sent.go(turn.limits));
        self.out.push('\n');
        self.go_pending = true;
        // The CPU time before the move, for its record (and its clock, on CPU time): as read
        // at the end of the bot's last answer or `isready` (one look per sow, not two; what it
        // did in between is reading the new position).
        let baseline = self.process.last_cpu_time().unwrap_or_default();
        self.write_out()?;
        let clock = MoveClock::new(Instant::now(), turn.time_by, baseline);
        let answer = self.answer(&clock, turn.limit);
        self.last_cpu = clock.used(self.process.cpu_time());
        answer
    }

    /// Waits for the `bestmove` of the `go` just written until `limit` is up on `clock`.
    fn answer(&mut self, clock: &MoveClock, limit: Duration) -> Result<Answer, Fault> {
        let mut last_info = None;
        let mut wake = clock.wake(limit, || self.process.cpu_time());
        loop {
            match self.recv(wake, None) {
                Ok(FromBot::BestMove(mv)) => {
                    return Ok(Answer {
                        last_info,
                        ..Answer::of(mv, clock.started().elapsed())
                    })
                }
                Ok(FromBot::Info(info)) => last_info = Some(info),
                Ok(_) => {}
                Err(fault) if fault.kind == FaultKind::Timeout => {
                    if !clock.spent(limit, || self.process.cpu_time()) {
                        wake = clock.wake(limit, || self.process.cpu_time());
                        continue;
                    }
                    let cpu = self.process.cpu_time();
                    return Err(Fault::new(
                        FaultKind::Timeout,
                        clock.over("no bestmove", limit, cpu),
                    ));
                }
                Err(fault) => return Err(fault),
            }
        }
    }

    /// The CPU time the bot's process tree used for the last `go`, if the system says.
    pub fn last_cpu(&self) -> Option<Duration> {
        self.last_cpu
    }

    /// Sends one message, noting a `go` as pending. [`ToBot::Unknown`] sends a line that is no
    /// command at all: only `check-bot` does that, to see that the bot ignores it.
    pub fn send(&mut self, msg: &ToBot) -> Result<(), Fault> {
        self.out.clear();
        self.go_pending |= matches!(msg, ToBot::Go(_));
        let _ = writeln!(self.out, "{msg}");
        self.write_out()
    }

    /// Writes the lines in [`Engine::out`], recording them in the transcript.
    fn write_out(&mut self) -> Result<(), Fault> {
        let out = std::mem::take(&mut self.out);
        if self.transcript.is_some() {
            for line in out.lines() {
                self.log('>', line);
            }
        }
        let written = self.process.write(&out);
        self.out = out;
        written
    }

    fn log(&mut self, direction: char, line: &str) {
        let Some(transcript) = self.transcript.as_mut() else {
            return;
        };
        if self.transcript_bytes > MAX_TRANSCRIPT_BYTES {
            return;
        }
        let secs = self.spawned.elapsed().as_secs_f64();
        let entry = format!("{secs:>8.3} {direction} {line}");
        self.transcript_bytes += entry.len();
        if self.transcript_bytes > MAX_TRANSCRIPT_BYTES {
            transcript.push(format!(
                "{secs:>8.3} [arena] the transcript stops here: it holds at most {} MiB",
                MAX_TRANSCRIPT_BYTES >> 20
            ));
        } else {
            transcript.push(entry);
        }
    }

    /// Reads the next line before `deadline`, whatever it is: an unknown line is
    /// `Ok(FromBot::Unknown)`, a malformed one the `ParseError`. This is the checker's read; the
    /// tournament's skips what it can.
    pub fn read(&mut self, deadline: Instant) -> Result<Result<FromBot, ParseError>, Fault> {
        self.next_line(deadline).map(|(_, parsed)| parsed)
    }

    /// Reads, logs and parses one line, keeps track of the pending `go` and, in strict mode,
    /// records what breaks the protocol.
    fn next_line(
        &mut self,
        deadline: Instant,
    ) -> Result<(String, Result<FromBot, ParseError>), Fault> {
        let line = self.process.read_line(deadline)?;
        Ok(self.take_line(line))
    }

    /// Logs, parses and judges a line read from the bot (see [`Engine::next_line`]).
    fn take_line(&mut self, line: String) -> (String, Result<FromBot, ParseError>) {
        self.log('<', &line);
        let parsed = FromBot::parse(&line);
        let violation = match &parsed {
            Ok(FromBot::BestMove(mv)) => {
                (!std::mem::take(&mut self.go_pending)).then_some(Violation::StrayBestMove(*mv))
            }
            Ok(FromBot::Unknown(text)) => Some(Violation::Unknown(text.clone())),
            Err(err) => Some(Violation::Malformed(err.clone())),
            Ok(_) => None,
        };
        if let Some(Violation::StrayBestMove(mv)) = &violation {
            self.log.note(&format!(
                "discarded `bestmove {mv}`: no `go` was waiting for it"
            ));
        }
        if let (Some(violations), Some(violation)) = (self.violations.as_mut(), violation) {
            if violations.len() < MAX_VIOLATIONS {
                violations.push(violation);
            }
        }
        (line, parsed)
    }

    /// Reads what the bot already wrote, without waiting, so that a late or stray `bestmove`
    /// cannot answer the `go` about to be sent. A broken line is the bot's fault.
    fn drain(&mut self) -> Result<(), Fault> {
        for _ in 0..MAX_DRAINED {
            let Some(line) = self.process.try_read_line() else {
                break;
            };
            let _ = self.take_line(line?);
        }
        Ok(())
    }

    /// Reads the next protocol message before `deadline`. Unknown lines are skipped (up to
    /// [`MAX_UNKNOWN_LINES`]); a malformed `bestmove` is a [`FaultKind::Malformed`]; other
    /// malformed known messages are skipped like unknown lines (the first few kept in
    /// `malformed`, if given).
    fn recv(
        &mut self,
        deadline: Instant,
        mut malformed: Option<&mut Vec<Violation>>,
    ) -> Result<FromBot, Fault> {
        let mut unknown = 0usize;
        loop {
            let pending = self.go_pending;
            match self.next_line(deadline)? {
                (line, Ok(FromBot::Unknown(_))) => self.last_skipped = Some(cut(&line)),
                // A `bestmove` no `go` asked for (noted in the log): not an answer.
                (_, Ok(FromBot::BestMove(_))) if !pending => {}
                (_, Ok(msg)) => return Ok(msg),
                (line, Err(err)) if is_bestmove(&line) => {
                    return Err(Fault::new(FaultKind::Malformed, format!("{err}")))
                }
                (line, Err(err)) => {
                    self.last_skipped = Some(cut(&line));
                    if let Some(kept) = malformed.as_deref_mut() {
                        if kept.len() < MAX_PROBLEMS {
                            kept.push(Violation::Malformed(err));
                        }
                    }
                }
            }
            unknown += 1;
            if unknown > MAX_UNKNOWN_LINES {
                return Err(Fault::new(
                    FaultKind::Garbage,
                    format!("more than {MAX_UNKNOWN_LINES} lines that are not protocol messages"),
                ));
            }
        }
    }

    /// Closes the bot's stdin and waits for it to exit (no timeout: wrap it in one).
    pub async fn wait(&mut self) -> Option<ExitStatus> {
        self.process.wait().await
    }

    /// Says `quit`, gives the bot `grace` to exit, then kills its process group.
    pub async fn quit(mut self, grace: Duration) {
        let _ = self.send(&ToBot::Quit);
        let _ = tokio::time::timeout(grace, self.wait()).await;
        self.kill().await;
    }

    /// Kills the bot's whole process group and reaps it.
    pub async fn kill(&mut self) {
        self.process.kill().await;
    }
}

/// `line` cut to at most 200 bytes (at a character boundary), for a message.
fn cut(line: &str) -> String {
    let mut end = line.len().min(200);
    while !line.is_char_boundary(end) {
        end -= 1;
    }
    line[..end].to_string()
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

#[cfg(test)]
mod tests {
    use super::*;

    /// A scripted bot: `script` run by `sh -c`.
    fn scripted(script: &str) -> Engine {
        let path = std::env::temp_dir().join(format!("arena-engine-{}.log", std::process::id()));
        let log = BotLog::new(&path, DEFAULT_LOG_CAP).unwrap();
        let command = script.to_string();
        let timeout = Duration::from_secs(10);
        Engine::spawn(
            &Program::Shell { command },
            None,
            &log,
            timeout,
            None,
            Walls::default(),
        )
        .expect("spawn sh")
    }

    fn soon() -> Instant {
        Instant::now() + Duration::from_secs(10)
    }

    /// The transcript without the times: `< line` or `> line`.
    fn transcript(e: &mut Engine) -> String {
        let lines: Vec<String> = e.take_transcript().iter().map(|l| l[9..].into()).collect();
        lines.join("|")
    }

    #[test]
    fn the_position_line_extended_move_by_move_is_the_line_written_whole() {
        let mut sent = SentLines::default();
        let state =
            PositionStart::State("kalah:pits=6,seeds=4 s 4,4,4,4,4,4,0 4,4,4,4,4,4,0".into());
        let games: [(&PositionStart, &[u8]); 5] = [
            (&PositionStart::Startpos, &[3, 6, 1, 2, 12, 10]),
            (&PositionStart::Startpos, &[3, 6, 1]),
            (&PositionStart::Startpos, &[3, 6, 1, 2]),
            (&state, &[1, 2]),
            (&PositionStart::Startpos, &[]),
        ];
        for (start, pits) in games {
            let moves: Vec<Move> = pits.iter().map(|&p| Move::Pit(p)).collect();
            for n in 0..=moves.len() {
                let whole = PositionLine {
                    start,
                    moves: &moves[..n],
                }
                .to_string();
                assert_eq!(sent.position(start, &moves[..n]), whole);
            }
        }
        let limits = GoLimits {
            movetime: Some(100),
            ..GoLimits::default()
        };
        assert_eq!(sent.go(limits), ToBot::Go(limits).to_string());
        assert_eq!(sent.go(GoLimits::default()), "go");
    }

    #[tokio::test]
    async fn strict_mode_records_violations_and_the_transcript_has_every_line() {
        let script = "printf '%s\\n' hello 'bestmove 3' 'info depth x' readyok
            while read l; do case $l in go*) printf '%s\\n' 'bestmove 1' 'bestmove 2';; esac; done";
        let mut e = scripted(script).strict().with_transcript();
        for _ in 0..4 {
            let _ = e.read(soon()).expect("a line");
        }
        let v = e.take_violations();
        assert!(
            matches!(&v[..], [Violation::Unknown(u), Violation::StrayBestMove(Move::Pit(3)),
                Violation::Malformed(_)] if u == "hello"),
            "{v:?}"
        );
        e.send(&ToBot::Go(GoLimits::default())).expect("send");
        let first = e.read(soon());
        assert_eq!(first, Ok(Ok(FromBot::BestMove(Move::Pit(1)))));
        assert_eq!(e.take_violations(), []);
        let _ = e.read(soon()).expect("a line");
        assert_eq!(
            e.take_violations(),
            [Violation::StrayBestMove(Move::Pit(2))]
        );
        let lines = "< hello|< bestmove 3|< info depth x|< readyok|> go|< bestmove 1|< bestmove 2";
        assert_eq!(transcript(&mut e), lines);
        e.kill().await;
    }

    #[tokio::test]
    async fn the_handshake_keeps_everything_and_normal_mode_skips_as_before() {
        let script = "read l
            printf '%s\\n' 'id name a' banner 'id name b' 'option name X type button' \
                'option name x type button' 'option name Y type bogus' readyok 'id author me' mancalaok
            while read l; do case $l in go*) printf '%s\\n' 'info depth x' chat 'bestmove x';; esac; done";
        let mut e = scripted(script).with_transcript();
        e.handshake().expect("handshake");
        let info = &e.info;
        assert_eq!(
            (info.names.len(), info.name(), info.options.len()),
            (2, Some("b"), 2)
        );
        assert_eq!(info.authors, ["me"]);
        let early_readyok = Violation::BeforeMancalaOk(FromBot::ReadyOk);
        assert!(
            matches!(&info.problems[..], [Violation::Malformed(_), r] if *r == early_readyok),
            "{:?}",
            info.problems
        );
        let start = PositionStart::Startpos;
        let answer = e.go(Turn {
            start: &start,
            moves: &[],
            limits: GoLimits::default(),
            limit: Duration::from_secs(10),
            time_by: TimeBy::Wall,
        });
        assert_eq!(answer.map_err(|f| f.kind).err(), Some(FaultKind::Malformed));
        assert_eq!(e.take_violations(), []);
        let sent: Vec<String> = transcript(&mut e)
            .split('|')
            .filter(|l| l.starts_with('>'))
            .map(String::from)
            .collect();
        assert_eq!(sent, ["> mancala", "> position startpos", "> go"]);
        e.kill().await;
    }
}
