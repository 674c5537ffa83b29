//! `arena check-bot`: runs a bot through the whole protocol and says what it did wrong, like
//! fastchess's compliance check. The checks and their order are docs/protocol.md's
//! "Checking a bot" section.
//!
//! The conversation is [`Engine`]'s, in strict mode and with a transcript: the engine writes the
//! typed messages, reads every line and records what breaks the protocol. This module decides
//! what each [`Check`] sends and expects, and turns what it saw into notes: a malformed line or a
//! stray `bestmove` fails the check in progress, an unknown line warns (once per check). After a
//! failed check the bot is restarted so the next one sees a clean process.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{BotLog, BotSpec, Engine, Fault, FaultKind, StartError, Violation, DEFAULT_LOG_CAP};
use crate::protocol::{FromBot, GoLimits, OptionKind, PositionStart, Score, ToBot};
use crate::rules::{Move, Position, Ruleset, Side};

/// Settings of a check run.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    /// The bot checked: its program, folder, sandbox, protocol and the options set before the
    /// checks.
    pub spec: BotSpec,
    pub rulesets: Vec<String>,
    /// The rulesets were given (`--ruleset`), not the defaults.
    pub explicit_rulesets: bool,
    /// Safety timeout for `go depth`/`nodes`/plain `go`.
    pub timeout: Duration,
    pub margin: Duration,
    pub seed: u64,
    /// Where the transcript goes (the caller creates the file).
    pub transcript: PathBuf,
    /// Where the bot's stderr goes (the caller creates the file).
    pub stderr_log: PathBuf,
}

pub const DEFAULT_RULESETS: [&str; 5] = [
    "kalah",
    "kalah:pits=4,seeds=3",
    "kalah:pie=true",
    "oware",
    "congkak",
];

/// The handshake and `isready` timeout.
const READY: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
    #[default]
    Pass,
    Warn,
    Fail,
}

impl Status {
    pub fn as_str(self) -> &'static str {
        match self {
            Status::Pass => "PASS",
            Status::Warn => "WARN",
            Status::Fail => "FAIL",
        }
    }
}

/// One check's verdict.
#[derive(Clone, Debug)]
pub struct CheckResult {
    /// [`Check::name`], or `restart` when the bot could not be restarted after a failed check.
    pub name: &'static str,
    pub status: Status,
    pub notes: Vec<String>,
}

/// The whole report.
#[derive(Clone, Debug)]
pub struct Report {
    pub checks: Vec<CheckResult>,
    pub bot_name: Option<String>,
    pub transcript: PathBuf,
    /// Why the transcript could not be written, if it could not.
    pub transcript_error: Option<String>,
    pub stderr_bytes: u64,
}

impl Report {
    pub fn failed(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.status == Status::Fail)
            .count()
    }

    pub fn warned(&self) -> usize {
        self.checks
            .iter()
            .filter(|c| c.status == Status::Warn)
            .count()
    }
}

/// The checks of docs/protocol.md's list; each is one arm of `run_check`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Check {
    Handshake,
    IsReady,
    UnknownCommand,
    SetOption,
    Games,
    StatePosition,
    Limits,
    NoMemory,
    Stop,
    LateStop,
    Reproducible,
    Quit,
}

impl Check {
    /// Every check, in the order they run.
    pub const ALL: [Check; 12] = [
        Check::Handshake,
        Check::IsReady,
        Check::UnknownCommand,
        Check::SetOption,
        Check::Games,
        Check::StatePosition,
        Check::Limits,
        Check::NoMemory,
        Check::Stop,
        Check::LateStop,
        Check::Reproducible,
        Check::Quit,
    ];

    /// The name in the report and in docs/protocol.md.
    pub fn name(self) -> &'static str {
        match self {
            Check::Handshake => "handshake",
            Check::IsReady => "isready",
            Check::UnknownCommand => "unknown-command",
            Check::SetOption => "setoption",
            Check::Games => "games",
            Check::StatePosition => "state-position",
            Check::Limits => "limits",
            Check::NoMemory => "no-memory",
            Check::Stop => "stop",
            Check::LateStop => "late-stop",
            Check::Reproducible => "reproducible",
            Check::Quit => "quit",
        }
    }
}

/// A check in progress: collects the worst status and the reasons.
#[derive(Default)]
struct Verdict {
    status: Status,
    notes: Vec<String>,
    warned_unknown: bool,
}

impl Verdict {
    fn warn(&mut self, note: impl Into<String>) {
        self.status = self.status.max(Status::Warn);
        self.notes.push(note.into());
    }
    fn fail(&mut self, note: impl Into<String>) {
        self.status = Status::Fail;
        self.notes.push(note.into());
    }
    /// An unknown line warns once per check; every other violation fails it.
    fn note(&mut self, violation: Violation) {
        match violation {
            Violation::Unknown(text) if !self.warned_unknown => {
                self.warned_unknown = true;
                self.warn(format!("unknown line `{}` (ignored)", shorten(&text)));
            }
            Violation::Unknown(_) => {}
            other => self.fail(other.to_string()),
        }
    }
}

/// The bot under test and the verdict of the check in progress.
struct Checker<'a> {
    config: &'a CheckConfig,
    stderr_log: BotLog,
    engine: Engine,
    /// The transcript of the bot's earlier processes (it restarts after a failed check).
    transcript: Vec<String>,
    v: Verdict,
    /// The rulesets the `games` check plays (see [`Checker::choose_rulesets`]); the first is
    /// the one of every other check.
    rulesets: Vec<Ruleset>,
}

/// Runs every check. `Err` only when the bot cannot be started at all.
pub async fn check_bot(config: &CheckConfig) -> Result<Report, StartError> {
    let stderr_log =
        BotLog::new(&config.stderr_log, DEFAULT_LOG_CAP).map_err(|error| StartError::Arena {
            program: config.spec.program.display(),
            error,
        })?;
    let mut c = Checker {
        engine: spawn(config, &stderr_log)?,
        config,
        stderr_log,
        transcript: Vec::new(),
        v: Verdict::default(),
        rulesets: vec![Ruleset::default()],
    };
    let mut checks = Vec::new();
    let mut bot_name = None;
    // After a failed restart only `quit` is left to check.
    let mut restart_failed = false;
    for check in Check::ALL {
        if restart_failed && check != Check::Quit {
            continue;
        }
        c.run_check(check).await;
        let v = std::mem::take(&mut c.v);
        let failed = v.status == Status::Fail;
        checks.push(CheckResult {
            name: check.name(),
            status: v.status,
            notes: v.notes,
        });
        match check {
            Check::Handshake if failed => break,
            Check::Handshake => bot_name = c.engine.info.name().map(str::to_string),
            Check::Quit => {}
            _ if failed => {
                if let Err(note) = c.restart().await {
                    checks.push(CheckResult {
                        name: "restart",
                        status: Status::Fail,
                        notes: vec![note],
                    });
                    restart_failed = true;
                }
            }
            _ => {}
        }
    }
    c.engine.kill().await;
    c.transcript.extend(c.engine.take_transcript());
    let mut text = c.transcript.join("\n");
    text.push('\n');
    let transcript_error = std::fs::write(&config.transcript, text)
        .err()
        .map(|e| e.to_string());
    c.stderr_log.flush();
    let stderr_bytes = std::fs::metadata(&config.stderr_log)
        .map(|m| m.len())
        .unwrap_or(0);
    Ok(Report {
        checks,
        bot_name,
        transcript: config.transcript.clone(),
        transcript_error,
        stderr_bytes,
    })
}

fn spawn(config: &CheckConfig, stderr_log: &BotLog) -> Result<Engine, StartError> {
    let spec = &config.spec;
    let engine = Engine::spawn(
        &spec.program,
        spec.dir.as_deref(),
        stderr_log,
        READY,
        None,
        super::Walls::of(spec, false),
    )?;
    Ok(engine.strict().with_transcript())
}

impl Checker<'_> {
    /// Kills the bot and starts it again (handshake, then the `--option` values). `Err`: why
    /// that failed.
    async fn restart(&mut self) -> Result<(), String> {
        self.engine.kill().await;
        self.transcript.extend(self.engine.take_transcript());
        self.transcript
            .push("--- restarting the bot ---".to_string());
        self.engine = spawn(self.config, &self.stderr_log).map_err(|f| f.to_string())?;
        let mut started = self.engine.handshake();
        if started.is_ok() {
            started = self.engine.set_options(&self.config.spec.options);
        }
        self.engine.take_violations(); // judged by the handshake check already
        started.map_err(|f| format!("the restarted bot: {}", describe(&f, READY)))
    }

    /// Reads one message; what breaks the protocol goes into the verdict. Unknown and malformed
    /// lines are `None`.
    fn read(&mut self, deadline: Instant) -> Result<Option<FromBot>, Fault> {
        let read = self.engine.read(deadline);
        self.note_violations();
        Ok(read?.ok().filter(|msg| !matches!(msg, FromBot::Unknown(_))))
    }

    /// Reads until `done` says so, within `timeout`; `done` sees every message and may note what
    /// is wrong with it. `None` after failing the check, saying `what` it was doing.
    fn expect(
        &mut self,
        what: &str,
        timeout: Duration,
        mut done: impl FnMut(&mut Verdict, &FromBot) -> bool,
    ) -> Option<FromBot> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.read(deadline) {
                Ok(Some(msg)) if done(&mut self.v, &msg) => return Some(msg),
                Ok(Some(FromBot::BestMove(mv))) => self
                    .v
                    .fail(format!("unexpected `bestmove {mv}` while {what}")),
                Ok(_) => {}
                Err(fault) => {
                    self.v
                        .fail(format!("{what}: {}", describe(&fault, timeout)));
                    return None;
                }
            }
        }
    }

    /// `isready` → `readyok`, by the engine.
    fn ready(&mut self) -> bool {
        let synced = self.engine.sync();
        self.judge("waiting for readyok", synced)
    }

    /// `newgame` → `isready` → `readyok`, by the engine.
    fn new_game(&mut self, ruleset: Ruleset, seed: u64) -> bool {
        let ready = self.engine.new_game(ruleset, seed);
        self.judge("waiting for readyok", ready)
    }

    /// Notes what went wrong in an engine call that reads by itself; true if nothing failed it.
    fn judge(&mut self, what: &str, result: Result<(), Fault>) -> bool {
        self.note_violations();
        if let Err(fault) = &result {
            self.v.fail(format!("{what}: {}", describe(fault, READY)));
        }
        result.is_ok()
    }

    fn note_violations(&mut self) {
        for violation in self.engine.take_violations() {
            self.v.note(violation);
        }
    }

    /// Asserts nothing but unknown lines arrive for `wait`.
    fn quiet_for(&mut self, wait: Duration) {
        let deadline = Instant::now() + wait;
        loop {
            match self.read(deadline) {
                Ok(Some(FromBot::BestMove(mv))) => self.v.fail(format!("an extra `bestmove {mv}`")),
                Ok(_) => {}
                Err(f) if f.kind == FaultKind::Timeout => return,
                Err(f) => {
                    self.v.fail(format!("{f}"));
                    return;
                }
            }
        }
    }

    /// `position` + `go`: one legal bestmove in `pos` within `timeout`.
    fn go(
        &mut self,
        pos: &Position,
        position: ToBot,
        limits: GoLimits,
        timeout: Duration,
    ) -> Option<Move> {
        let go = ToBot::Go(limits);
        if self.engine.send(&position).is_err() || self.engine.send(&go).is_err() {
            self.v.fail("the bot closed its input");
            return None;
        }
        let mut last_pv_first = None;
        let seeds = i64::from(pos.ruleset().total_seeds());
        let what = format!("`{go}` after `{position}`");
        let answer = self.expect(&what, timeout, |v, msg| {
            let FromBot::Info(info) = msg else {
                return matches!(msg, FromBot::BestMove(_));
            };
            last_pv_first = info.pv.first().copied().or(last_pv_first);
            if let Some(Score::Seeds(s) | Score::Exact(s)) = info.score {
                if i64::from(s).abs() > seeds {
                    v.warn(format!("score {s} exceeds the {seeds} seeds in play"));
                }
            }
            false
        });
        let Some(FromBot::BestMove(mv)) = answer else {
            return None;
        };
        if !pos.is_legal(mv) {
            self.v
                .fail(format!("`bestmove {mv}` is illegal after `{position}`"));
            return None;
        }
        if let Some(first) = last_pv_first.filter(|&first| first != mv) {
            self.v.warn(format!(
                "the last pv starts with {first} but bestmove is {mv}"
            ));
        }
        Some(mv)
    }

    /// The handshake: what the engine saw before `mancalaok`, judged.
    fn handshake(&mut self) {
        let result = self.engine.handshake();
        for violation in self.engine.take_violations() {
            // Malformed lines before `mancalaok` are in `info.problems` too: report them once.
            if !matches!(violation, Violation::Malformed(_)) {
                self.v.note(violation);
            }
        }
        let info = &self.engine.info;
        for problem in &info.problems {
            self.v.fail(problem.to_string());
        }
        for (i, decl) in info.options.iter().enumerate() {
            let earlier = &info.options[..i];
            if earlier
                .iter()
                .any(|d| d.name.eq_ignore_ascii_case(&decl.name))
            {
                self.v
                    .fail(format!("option `{}` declared twice", decl.name));
            }
            if decl.name.eq_ignore_ascii_case("seed") {
                self.v
                    .warn("an option named Seed: the seed comes with `newgame ... seed N`");
            }
        }
        if let Err(f) = result {
            let heard = !(info.names.is_empty()
                && info.authors.is_empty()
                && info.options.is_empty()
                && info.rulesets.is_none()
                && info.problems.is_empty());
            self.v.fail(format!(
                "no `mancalaok`: {}",
                describe_handshake(&f, READY, heard)
            ));
            return;
        }
        match info.names.len() {
            0 => self.v.fail("no `id name`"),
            1 => {}
            _ => self.v.fail("more than one `id name`"),
        }
        match info.authors.len() {
            0 => self.v.warn("no `id author`"),
            1 => {}
            _ => self.v.warn("more than one `id author`"),
        }
        let declared = info.declared_rulesets();
        self.choose_rulesets();
        self.v.notes.push(format!(
            "rulesets: {declared}; checked in {}",
            self.rulesets
                .iter()
                .map(ToString::to_string)
                .collect::<Vec<_>>()
                .join(", ")
        ));
        let info = &self.engine.info;
        let opts: Vec<String> = info
            .options
            .iter()
            .map(|d| format!("{} ({})", d.name, d.kind.type_name()))
            .collect();
        self.v.notes.push(format!(
            "name `{}`, options: {}",
            info.name().unwrap_or("?"),
            if opts.is_empty() {
                "none".to_string()
            } else {
                opts.join(", ")
            }
        ));
    }

    /// The rulesets to check: `--ruleset`'s (or the defaults: standard Kalah, a small board, the
    /// pie rule, Oware, Congkak) that the bot declares it plays, and for a declaration none of
    /// those fit, an example of each declared pattern. A bot that declares nothing plays them all.
    /// A `--ruleset` the bot does not declare is skipped with a warning.
    fn choose_rulesets(&mut self) {
        let config = self.config;
        let info = &self.engine.info;
        let mut chosen: Vec<Ruleset> = Vec::new();
        for text in &config.rulesets {
            match text.parse::<Ruleset>() {
                Ok(r) if info.plays(&r) => chosen.push(r),
                Ok(r) if config.explicit_rulesets => self.v.warn(format!(
                    "--ruleset {r}: not declared by the bot, not checked"
                )),
                Ok(_) => {}
                Err(e) => self.v.fail(format!("--ruleset `{text}`: {e}")),
            }
        }
        if !config.explicit_rulesets {
            for pattern in info.rulesets.iter().flatten() {
                if !chosen.iter().any(|r| pattern.matches(r)) {
                    match pattern.example() {
                        Some(r) => chosen.push(r),
                        None => self
                            .v
                            .fail(format!("pattern {pattern} names no valid ruleset")),
                    }
                }
            }
        }
        chosen.dedup();
        if chosen.is_empty() {
            self.v
                .fail("no ruleset to check: the bot plays none of them");
            chosen.push(Ruleset::default());
        }
        self.rulesets = chosen;
    }

    async fn run_check(&mut self, check: Check) {
        let config = self.config;
        // Every check but `games` plays the first ruleset the bot plays (standard Kalah, for a bot
        // that plays it).
        let kalah = self.rulesets[0];
        let movetime = |ms| limits(|l| l.movetime = Some(ms));
        let budget = |ms: u64| Duration::from_millis(ms) + config.margin;
        match check {
            Check::Handshake => self.handshake(),
            Check::IsReady => {
                for _ in 0..3 {
                    if self.engine.send(&ToBot::IsReady).is_err() {
                        self.v.fail("the bot closed its input");
                        return;
                    }
                }
                for i in 1..=3 {
                    let what = format!("waiting for readyok #{i}");
                    if self
                        .expect(&what, READY, |_, m| matches!(m, FromBot::ReadyOk))
                        .is_none()
                    {
                        return;
                    }
                }
            }
            Check::UnknownCommand => {
                let unknown = ToBot::Unknown("xyzzy 1 2 3".into());
                let _ = self.engine.send(&unknown);
                self.ready();
            }
            Check::SetOption => {
                for decl in self.engine.info.options.clone() {
                    let values: Vec<Option<String>> = match decl.kind {
                        OptionKind::Spin { default, min, max } => {
                            [min, max, default].map(|x| Some(x.to_string())).into()
                        }
                        OptionKind::Check { default } => {
                            [true, false, default].map(|x| Some(x.to_string())).into()
                        }
                        OptionKind::Combo { default, vars } => {
                            vars.into_iter().chain([default]).map(Some).collect()
                        }
                        OptionKind::String { default } => {
                            ["test value".to_string(), String::new(), default]
                                .map(Some)
                                .into()
                        }
                        OptionKind::Button => vec![None],
                    };
                    for value in values {
                        let name = decl.name.clone();
                        let setoption = ToBot::SetOption { name, value };
                        let _ = self.engine.send(&setoption);
                        if !self.ready() {
                            self.v.notes.push(format!("after `{setoption}`"));
                            return;
                        }
                    }
                }
                let _ = self.engine.set_options(&config.spec.options);
                self.ready();
            }
            Check::Games => {
                for ruleset in self.rulesets.clone() {
                    if !self.new_game(ruleset, config.seed) {
                        return;
                    }
                    let mut lines: Vec<Vec<Move>> = vec![Vec::new()];
                    if ruleset == Ruleset::default() {
                        lines.push(vec![Move::Pit(3)]);
                    }
                    let lengths = [1, 2, 5, 10, 20, 40];
                    lines.extend(playout_prefixes(ruleset, config.seed, &lengths));
                    if ruleset.pie() {
                        let mut pos = Position::new(ruleset);
                        let mut first_turn = Vec::new();
                        while pos.to_move() == Some(Side::South) {
                            let mv = pos.legal_moves()[0];
                            pos.play_unchecked(mv);
                            first_turn.push(mv);
                        }
                        if pos.is_legal(Move::Swap) {
                            lines.push(first_turn.clone());
                            first_turn.push(Move::Swap);
                            lines.push(first_turn);
                        }
                    }
                    for moves in lines {
                        let pos = played(ruleset, &moves);
                        if pos.is_over() {
                            continue;
                        }
                        let position = startpos(&moves);
                        if self
                            .go(&pos, position, movetime(200), budget(200))
                            .is_none()
                        {
                            self.v.notes.push(format!("ruleset {ruleset}"));
                            return;
                        }
                    }
                }
            }
            Check::StatePosition => {
                let Some(moves) = playout_prefixes(kalah, config.seed, &[10]).pop() else {
                    return;
                };
                let pos = played(kalah, &moves);
                if !self.new_game(kalah, config.seed) {
                    return;
                }
                let position = ToBot::Position {
                    start: PositionStart::State(pos.to_state_string()),
                    moves: Vec::new(),
                };
                self.go(&pos, position, movetime(200), budget(200));
            }
            Check::Limits => {
                if !self.new_game(kalah, config.seed) {
                    return;
                }
                #[rustfmt::skip]
                let gos = [
                    (limits(|l| l.movetime = Some(100)), budget(100)),
                    (limits(|l| (l.time, l.inc) = (Some(3000), Some(0))), budget(3000)),
                    (limits(|l| l.depth = Some(2)), config.timeout),
                    (limits(|l| l.nodes = Some(1000)), config.timeout),
                    (GoLimits::default(), config.timeout),
                ];
                for (limits, timeout) in gos {
                    let start = Position::new(kalah);
                    if self.go(&start, startpos(&[]), limits, timeout).is_none() {
                        return;
                    }
                }
            }
            Check::NoMemory => {
                if !self.new_game(kalah, config.seed) {
                    return;
                }
                let lines = if kalah == Ruleset::default() {
                    vec![
                        vec![Move::Pit(3), Move::Pit(6), Move::Pit(2)],
                        vec![Move::Pit(1)],
                    ]
                } else {
                    let mut lines = playout_prefixes(kalah, config.seed, &[3, 1]);
                    lines.reverse();
                    lines
                };
                for moves in lines {
                    let pos = played(kalah, &moves);
                    let position = startpos(&moves);
                    if self
                        .go(&pos, position, movetime(100), budget(100))
                        .is_none()
                    {
                        return;
                    }
                }
            }
            Check::Stop => {
                let infinite = limits(|l| l.infinite = true);
                let _ = self.engine.send(&startpos(&[]));
                let _ = self.engine.send(&ToBot::Go(infinite));
                tokio::time::sleep(Duration::from_millis(300)).await;
                let _ = self.engine.send(&ToBot::Stop);
                let is_bestmove = |_: &mut Verdict, m: &FromBot| matches!(m, FromBot::BestMove(_));
                let what = "waiting for bestmove after stop";
                match self.expect(what, Duration::from_secs(1), is_bestmove) {
                    Some(FromBot::BestMove(mv)) if !Position::new(kalah).is_legal(mv) => {
                        self.v.fail(format!("`bestmove {mv}` is illegal"))
                    }
                    Some(_) => {
                        self.quiet_for(Duration::from_millis(500));
                        self.ready();
                    }
                    None => {}
                }
            }
            Check::LateStop => {
                let depth_1 = limits(|l| l.depth = Some(1));
                let start = Position::new(kalah);
                if self
                    .go(&start, startpos(&[]), depth_1, config.timeout)
                    .is_some()
                {
                    let _ = self.engine.send(&ToBot::Stop);
                    self.quiet_for(Duration::from_millis(500));
                    self.ready();
                }
            }
            Check::Reproducible => {
                let Some(moves) = playout_prefixes(kalah, config.seed, &[10]).pop() else {
                    return;
                };
                let pos = played(kalah, &moves);
                let depth_4 = limits(|l| l.depth = Some(4));
                let mut answers = Vec::new();
                for _ in 0..2 {
                    if !self.new_game(kalah, 7) {
                        return;
                    }
                    match self.go(&pos, startpos(&moves), depth_4, config.timeout) {
                        Some(mv) => answers.push(mv),
                        None => return,
                    }
                }
                if answers[0] != answers[1] {
                    self.v.warn(format!(
                        "the same seed gave {} and then {}",
                        answers[0], answers[1]
                    ));
                }
            }
            Check::Quit => {
                let _ = self.engine.send(&ToBot::Quit);
                let exited = tokio::time::timeout(Duration::from_secs(1), self.engine.wait()).await;
                match exited {
                    Ok(Some(status)) if status.success() => {}
                    Ok(Some(status)) => self.v.warn(format!("exited with {status}")),
                    Ok(None) => self.v.fail("could not wait for the process"),
                    Err(_) => self.v.fail("did not exit within 1 s of `quit` (killed)"),
                }
            }
        }
    }
}

/// Why the handshake failed. A timeout without a single line from the bot is most often a bot
/// that answers but does not flush its stdout (its lines sit in its buffer): say so, with the
/// call to make.
fn describe_handshake(fault: &Fault, timeout: Duration, heard: bool) -> String {
    if fault.kind != FaultKind::Timeout {
        return fault.to_string();
    }
    // What the engine added to the timeout (the last line it skipped), if anything.
    let more = fault.detail.split_once("; ").map(|(_, more)| more);
    match more {
        Some(more) => format!("{}; {more}", describe(fault, timeout)),
        None if heard => describe(fault, timeout),
        None => format!(
            "{}, and nothing at all came from the bot: if it answers, its lines are not reaching \
             the arena; flush stdout after every line (C: `fflush(stdout)`, Python: \
             `print(..., flush=True)`; docs/protocol.md#transport)",
            describe(fault, timeout)
        ),
    }
}

fn describe(fault: &Fault, timeout: Duration) -> String {
    match fault.kind {
        FaultKind::Timeout => format!("no answer within {} ms", timeout.as_millis()),
        _ => fault.to_string(),
    }
}

fn shorten(s: &str) -> String {
    s.chars().take(80).collect()
}

/// The limits of a `go`: a plain `go` with what `set` sets.
fn limits(set: impl FnOnce(&mut GoLimits)) -> GoLimits {
    let mut limits = GoLimits::default();
    set(&mut limits);
    limits
}

/// `position startpos [moves ...]`.
fn startpos(moves: &[Move]) -> ToBot {
    ToBot::Position {
        start: PositionStart::Startpos,
        moves: moves.to_vec(),
    }
}

/// The position after `moves` from the start.
fn played(ruleset: Ruleset, moves: &[Move]) -> Position {
    let mut pos = Position::new(ruleset);
    for &m in moves {
        pos.play_unchecked(m);
    }
    pos
}

/// Seeded random playout prefixes of the given lengths (stopping before the game ends).
fn playout_prefixes(ruleset: Ruleset, seed: u64, lengths: &[usize]) -> Vec<Vec<Move>> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut pos = Position::new(ruleset);
    let mut line = Vec::new();
    let max = lengths.iter().copied().max().unwrap_or(0);
    let mut out = Vec::new();
    for n in 1..=max {
        let legal: Vec<Move> = pos
            .legal_moves()
            .iter()
            .copied()
            .filter(|m| *m != Move::Swap)
            .collect();
        let Some(&mv) = legal.choose(&mut rng) else {
            break;
        };
        pos.play_unchecked(mv);
        if pos.is_over() {
            break;
        }
        line.push(mv);
        if lengths.contains(&n) {
            out.push(line.clone());
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_checks_are_docs_protocol_md_list_in_order() {
        let docs = include_str!("../../docs/protocol.md");
        let mut rest = &docs[docs.find("## Checking a bot").expect("the section")..];
        for (i, check) in Check::ALL.iter().enumerate() {
            let item = format!("\n{}. **`{}`** — ", i + 1, check.name());
            let at = rest
                .find(&item)
                .unwrap_or_else(|| panic!("no `{item}` in order"));
            rest = &rest[at + item.len()..];
        }
        assert!(!rest.contains("\n13. "), "the docs list more checks");
    }
}
