//! `arena check-bot`: runs a bot through the whole protocol and says what it did wrong, like
//! fastchess's compliance check. The checks and their order are docs/protocol.md's
//! "Checking a bot" section.
//!
//! Unlike the tournament's [`super::Engine`], which tolerates what it can, the checker reads every
//! line strictly: a malformed line fails the check in progress, an unknown line warns.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::{BotProcess, Fault, FaultKind, Program};
use crate::protocol::{FromBot, IdKey, OptionDecl, OptionKind};
use crate::rules::{Move, Position, Ruleset};

/// Settings of a check run.
#[derive(Clone, Debug)]
pub struct CheckConfig {
    pub program: Program,
    pub rulesets: Vec<String>,
    pub options: Vec<(String, String)>,
    /// Safety timeout for `go depth`/`nodes`/plain `go`.
    pub timeout: Duration,
    pub margin: Duration,
    pub seed: u64,
    /// Where the transcript goes.
    pub transcript: PathBuf,
}

pub const DEFAULT_RULESETS: [&str; 5] = [
    "kalah",
    "kalah:pits=4,seeds=3",
    "kalah:pie=true",
    "oware",
    "congkak",
];

const READY: Duration = Duration::from_secs(10);

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Status {
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

/// A check in progress: collects the worst status and the reasons.
struct Verdict {
    status: Status,
    notes: Vec<String>,
    warned_unknown: bool,
}

impl Verdict {
    fn new() -> Verdict {
        Verdict {
            status: Status::Pass,
            notes: Vec::new(),
            warned_unknown: false,
        }
    }
    fn warn(&mut self, note: impl Into<String>) {
        self.status = self.status.max(Status::Warn);
        self.notes.push(note.into());
    }
    fn fail(&mut self, note: impl Into<String>) {
        self.status = Status::Fail;
        self.notes.push(note.into());
    }
}

/// The bot under test plus the transcript.
struct Session {
    process: BotProcess,
    transcript: Vec<String>,
    started: Instant,
    go_pending: bool,
}

/// A line read strictly.
enum Read {
    Msg(FromBot),
    /// An unknown or malformed line (already noted in the verdict).
    Other,
}

impl Session {
    fn start(program: &Program, stderr_log: &Path) -> Result<Session, Fault> {
        Ok(Session {
            process: BotProcess::spawn(program, None, stderr_log)?,
            transcript: Vec::new(),
            started: Instant::now(),
            go_pending: false,
        })
    }

    fn log(&mut self, dir: &str, line: &str) {
        self.transcript.push(format!(
            "{:>8.3} {dir} {line}",
            self.started.elapsed().as_secs_f64()
        ));
    }

    async fn send(&mut self, line: &str) -> Result<(), Fault> {
        self.log(">", line);
        if line.starts_with("go") {
            self.go_pending = true;
        }
        self.process.write_line(line).await
    }

    /// Reads one line. Malformed lines and bestmoves with no `go` pending fail `v`.
    async fn read(&mut self, deadline: Instant, v: &mut Verdict) -> Result<Read, Fault> {
        let line = self.process.read_line(deadline).await?;
        self.log("<", &line);
        match FromBot::parse(&line) {
            Ok(FromBot::Unknown(text)) => {
                if !v.warned_unknown {
                    v.warned_unknown = true;
                    v.warn(format!("unknown line `{}` (ignored)", shorten(&text)));
                }
                Ok(Read::Other)
            }
            Ok(FromBot::BestMove(mv)) => {
                if !self.go_pending {
                    v.fail(format!("`bestmove {mv}` with no `go` pending"));
                }
                self.go_pending = false;
                Ok(Read::Msg(FromBot::BestMove(mv)))
            }
            Ok(msg) => Ok(Read::Msg(msg)),
            Err(err) => {
                v.fail(format!("malformed line: {err}"));
                Ok(Read::Other)
            }
        }
    }

    /// Reads until `want` matches, within `timeout`. Returns the message, or None after failing `v`.
    async fn expect(
        &mut self,
        what: &str,
        timeout: Duration,
        v: &mut Verdict,
        want: impl Fn(&FromBot) -> bool,
    ) -> Option<FromBot> {
        let deadline = Instant::now() + timeout;
        loop {
            match self.read(deadline, v).await {
                Ok(Read::Msg(msg)) if want(&msg) => return Some(msg),
                Ok(Read::Msg(FromBot::BestMove(mv))) => {
                    v.fail(format!(
                        "unexpected `bestmove {mv}` while waiting for {what}"
                    ));
                }
                Ok(_) => {}
                Err(fault) => {
                    v.fail(format!("waiting for {what}: {}", describe(&fault, timeout)));
                    return None;
                }
            }
        }
    }

    async fn ready(&mut self, v: &mut Verdict) -> bool {
        if let Err(f) = self.send("isready").await {
            v.fail(format!("cannot send isready: {f}"));
            return false;
        }
        self.expect("readyok", READY, v, |m| matches!(m, FromBot::ReadyOk))
            .await
            .is_some()
    }

    /// Asserts nothing but unknown lines arrive for `wait`.
    async fn quiet_for(&mut self, wait: Duration, v: &mut Verdict) {
        let deadline = Instant::now() + wait;
        loop {
            match self.read(deadline, v).await {
                Ok(Read::Msg(FromBot::BestMove(mv))) => v.fail(format!("an extra `bestmove {mv}`")),
                Ok(_) => {}
                Err(f) if f.kind == FaultKind::Timeout => return,
                Err(f) => {
                    v.fail(format!("{f}"));
                    return;
                }
            }
        }
    }

    /// `position` + `go`: one legal bestmove within `timeout`.
    async fn go(
        &mut self,
        pos: &Position,
        position_line: &str,
        go_line: &str,
        timeout: Duration,
        v: &mut Verdict,
    ) -> Option<Move> {
        if self.send(position_line).await.is_err() || self.send(go_line).await.is_err() {
            v.fail("the bot closed its input");
            return None;
        }
        let deadline = Instant::now() + timeout;
        let mut last_pv_first = None;
        let board_seeds: i64 = i64::from(pos.ruleset().total_seeds());
        loop {
            match self.read(deadline, v).await {
                Ok(Read::Msg(FromBot::BestMove(mv))) => {
                    if !pos.is_legal(mv) {
                        v.fail(format!(
                            "`bestmove {mv}` is illegal after `{position_line}`"
                        ));
                        return None;
                    }
                    if let Some(first) = last_pv_first {
                        if first != mv {
                            v.warn(format!(
                                "the last pv starts with {first} but bestmove is {mv}"
                            ));
                        }
                    }
                    return Some(mv);
                }
                Ok(Read::Msg(FromBot::Info(info))) => {
                    last_pv_first = info.pv.first().copied().or(last_pv_first);
                    if let Some(score) = info.score {
                        let s = match score {
                            crate::protocol::Score::Seeds(s) | crate::protocol::Score::Exact(s) => {
                                i64::from(s)
                            }
                        };
                        if s.abs() > board_seeds {
                            v.warn(format!("score {s} exceeds the {board_seeds} seeds in play"));
                        }
                    }
                }
                Ok(_) => {}
                Err(fault) => {
                    v.fail(format!(
                        "`{go_line}` after `{position_line}`: {}",
                        describe(&fault, timeout)
                    ));
                    return None;
                }
            }
        }
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

fn moves_text(moves: &[Move]) -> String {
    let parts: Vec<String> = moves.iter().map(Move::to_string).collect();
    if parts.is_empty() {
        "position startpos".to_string()
    } else {
        format!("position startpos moves {}", parts.join(" "))
    }
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

/// Runs every check. `Err` only when the bot cannot be started at all.
pub async fn check_bot(config: &CheckConfig) -> Result<Report, Fault> {
    let stderr_log = config.transcript.with_extension("stderr.log");
    let _ = std::fs::remove_file(&stderr_log);
    let mut session = Session::start(&config.program, &stderr_log)?;
    let mut checks = Vec::new();
    let mut declared: Vec<OptionDecl> = Vec::new();
    let mut bot_name = None;

    // 1. handshake
    let mut v = Verdict::new();
    let ok = handshake(&mut session, &mut v, &mut declared, &mut bot_name).await;
    checks.push(CheckResult {
        name: "handshake",
        status: v.status,
        notes: v.notes,
    });
    if ok {
        let steps: [&'static str; 10] = [
            "isready",
            "unknown-command",
            "setoption",
            "games",
            "state-position",
            "limits",
            "no-memory",
            "stop",
            "late-stop",
            "reproducible",
        ];
        for name in steps {
            let mut v = Verdict::new();
            run_check(name, &mut session, config, &declared, &mut v).await;
            let failed = v.status == Status::Fail;
            checks.push(CheckResult {
                name,
                status: v.status,
                notes: v.notes,
            });
            if failed {
                // Restart the bot so the remaining checks see a clean process.
                session.process.kill().await;
                session
                    .transcript
                    .push("--- restarting the bot ---".to_string());
                match Session::start(&config.program, &stderr_log) {
                    Ok(mut fresh) => {
                        fresh.transcript = std::mem::take(&mut session.transcript);
                        session = fresh;
                        let mut hv = Verdict::new();
                        let mut ignored = Vec::new();
                        if !handshake(&mut session, &mut hv, &mut ignored, &mut None).await {
                            checks.push(CheckResult {
                                name: "restart",
                                status: Status::Fail,
                                notes: hv.notes,
                            });
                            break;
                        }
                    }
                    Err(f) => {
                        checks.push(CheckResult {
                            name: "restart",
                            status: Status::Fail,
                            notes: vec![f.to_string()],
                        });
                        break;
                    }
                }
            }
        }
        // 12. quit
        let mut v = Verdict::new();
        let _ = session.send("quit").await;
        let exited = tokio::time::timeout(Duration::from_secs(1), session.process.wait()).await;
        match exited {
            Ok(Some(status)) if status.success() => {}
            Ok(Some(status)) => v.warn(format!("exited with {status}")),
            Ok(None) => v.fail("could not wait for the process"),
            Err(_) => v.fail("did not exit within 1 s of `quit` (killed)"),
        }
        checks.push(CheckResult {
            name: "quit",
            status: v.status,
            notes: v.notes,
        });
    }
    session.process.kill().await;
    let mut text = session.transcript.join("\n");
    text.push('\n');
    let _ = std::fs::write(&config.transcript, text);
    let stderr_bytes = std::fs::metadata(&stderr_log).map(|m| m.len()).unwrap_or(0);
    Ok(Report {
        checks,
        bot_name,
        transcript: config.transcript.clone(),
        stderr_bytes,
    })
}

async fn handshake(
    session: &mut Session,
    v: &mut Verdict,
    declared: &mut Vec<OptionDecl>,
    bot_name: &mut Option<String>,
) -> bool {
    if let Err(f) = session.send("mancala").await {
        v.fail(format!("cannot send `mancala`: {f}"));
        return false;
    }
    let deadline = Instant::now() + READY;
    let (mut names, mut authors) = (0, 0);
    loop {
        match session.read(deadline, v).await {
            Ok(Read::Msg(FromBot::MancalaOk)) => break,
            Ok(Read::Msg(FromBot::Id {
                key: IdKey::Name,
                value,
            })) => {
                names += 1;
                *bot_name = Some(value);
            }
            Ok(Read::Msg(FromBot::Id {
                key: IdKey::Author,
                value: _,
            })) => authors += 1,
            Ok(Read::Msg(FromBot::Option(decl))) => {
                if declared
                    .iter()
                    .any(|d| d.name.eq_ignore_ascii_case(&decl.name))
                {
                    v.fail(format!("option `{}` declared twice", decl.name));
                }
                if decl.name.eq_ignore_ascii_case("seed") {
                    v.warn("an option named Seed: the seed comes with `newgame ... seed N`");
                }
                declared.push(decl);
            }
            Ok(Read::Msg(FromBot::ReadyOk)) => v.fail("`readyok` before `mancalaok`"),
            Ok(Read::Msg(FromBot::BestMove(mv))) => {
                v.fail(format!("`bestmove {mv}` before `mancalaok`"))
            }
            Ok(_) => {}
            Err(f) => {
                v.fail(format!("no `mancalaok`: {}", describe(&f, READY)));
                return false;
            }
        }
    }
    match names {
        0 => v.fail("no `id name`"),
        1 => {}
        _ => v.fail("more than one `id name`"),
    }
    match authors {
        0 => v.warn("no `id author`"),
        1 => {}
        _ => v.warn("more than one `id author`"),
    }
    let opts: Vec<String> = declared
        .iter()
        .map(|d| format!("{} ({})", d.name, d.kind.type_name()))
        .collect();
    v.notes.push(format!(
        "name `{}`, options: {}",
        bot_name.as_deref().unwrap_or("?"),
        if opts.is_empty() {
            "none".to_string()
        } else {
            opts.join(", ")
        }
    ));
    v.status != Status::Fail
}

async fn run_check(
    name: &str,
    s: &mut Session,
    config: &CheckConfig,
    declared: &[OptionDecl],
    v: &mut Verdict,
) {
    let kalah = Ruleset::default();
    let margin = config.margin;
    match name {
        "isready" => {
            for _ in 0..3 {
                if s.send("isready").await.is_err() {
                    v.fail("the bot closed its input");
                    return;
                }
            }
            for i in 0..3 {
                if s.expect(&format!("readyok #{}", i + 1), READY, v, |m| {
                    matches!(m, FromBot::ReadyOk)
                })
                .await
                .is_none()
                {
                    return;
                }
            }
        }
        "unknown-command" => {
            let _ = s.send("xyzzy 1 2 3").await;
            s.ready(v).await;
        }
        "setoption" => {
            for decl in declared {
                let values: Vec<Option<String>> = match &decl.kind {
                    OptionKind::Spin { default, min, max } => {
                        vec![
                            Some(min.to_string()),
                            Some(max.to_string()),
                            Some(default.to_string()),
                        ]
                    }
                    OptionKind::Check { default } => vec![
                        Some("true".into()),
                        Some("false".into()),
                        Some(default.to_string()),
                    ],
                    OptionKind::Combo { default, vars } => vars
                        .iter()
                        .map(|x| Some(x.clone()))
                        .chain(std::iter::once(Some(default.clone())))
                        .collect(),
                    OptionKind::String { default } => vec![
                        Some("test value".into()),
                        Some("<empty>".into()),
                        Some(default.clone()),
                    ],
                    OptionKind::Button => vec![None],
                };
                for value in values {
                    let line = match &value {
                        Some(x) => format!(
                            "setoption name {} value {}",
                            decl.name,
                            if x.is_empty() { "<empty>" } else { x }
                        ),
                        None => format!("setoption name {}", decl.name),
                    };
                    let _ = s.send(&line).await;
                    if !s.ready(v).await {
                        v.notes.push(format!("after `{line}`"));
                        return;
                    }
                }
            }
            for (n, x) in &config.options {
                let _ = s.send(&format!("setoption name {n} value {x}")).await;
            }
            s.ready(v).await;
        }
        "games" => {
            for text in &config.rulesets {
                let ruleset: Ruleset = match text.parse() {
                    Ok(r) => r,
                    Err(e) => {
                        v.fail(format!("--ruleset `{text}`: {e}"));
                        continue;
                    }
                };
                let _ = s
                    .send(&format!("newgame {ruleset} seed {}", config.seed))
                    .await;
                if !s.ready(v).await {
                    return;
                }
                let mut lines: Vec<Vec<Move>> = vec![Vec::new()];
                if ruleset == kalah {
                    lines.push(vec![Move::Pit(3)]);
                }
                lines.extend(playout_prefixes(
                    ruleset,
                    config.seed,
                    &[1, 2, 5, 10, 20, 40],
                ));
                if text.contains("pie=true") {
                    let mut pos = Position::new(ruleset);
                    let mut first_turn = Vec::new();
                    while pos.to_move() == Some(crate::rules::Side::South) {
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
                    let mut pos = Position::new(ruleset);
                    for &m in &moves {
                        pos.play_unchecked(m);
                    }
                    if pos.is_over() {
                        continue;
                    }
                    if s.go(
                        &pos,
                        &moves_text(&moves),
                        "go movetime 200",
                        Duration::from_millis(200) + margin,
                        v,
                    )
                    .await
                    .is_none()
                    {
                        v.notes.push(format!("ruleset {ruleset}"));
                        return;
                    }
                }
            }
        }
        "state-position" => {
            let Some(moves) = playout_prefixes(kalah, config.seed, &[10]).pop() else {
                return;
            };
            let mut pos = Position::new(kalah);
            for &m in &moves {
                pos.play_unchecked(m);
            }
            let _ = s.send(&format!("newgame kalah seed {}", config.seed)).await;
            if !s.ready(v).await {
                return;
            }
            let line = format!("position {}", pos.to_state_string());
            s.go(
                &pos,
                &line,
                "go movetime 200",
                Duration::from_millis(200) + margin,
                v,
            )
            .await;
        }
        "limits" => {
            let start = Position::new(kalah);
            let _ = s.send(&format!("newgame kalah seed {}", config.seed)).await;
            if !s.ready(v).await {
                return;
            }
            let gos: [(&str, Duration); 5] = [
                ("go movetime 100", Duration::from_millis(100) + margin),
                ("go time 3000 inc 0", Duration::from_millis(3000) + margin),
                ("go depth 2", config.timeout),
                ("go nodes 1000", config.timeout),
                ("go", config.timeout),
            ];
            for (go, timeout) in gos {
                if s.go(&start, "position startpos", go, timeout, v)
                    .await
                    .is_none()
                {
                    return;
                }
            }
        }
        "no-memory" => {
            let _ = s.send(&format!("newgame kalah seed {}", config.seed)).await;
            if !s.ready(v).await {
                return;
            }
            for moves in [
                vec![Move::Pit(3), Move::Pit(6), Move::Pit(2)],
                vec![Move::Pit(1)],
            ] {
                let mut pos = Position::new(kalah);
                for &m in &moves {
                    pos.play_unchecked(m);
                }
                if s.go(
                    &pos,
                    &moves_text(&moves),
                    "go movetime 100",
                    Duration::from_millis(100) + margin,
                    v,
                )
                .await
                .is_none()
                {
                    return;
                }
            }
        }
        "stop" => {
            let start = Position::new(kalah);
            let _ = s.send("position startpos").await;
            let _ = s.send("go infinite").await;
            tokio::time::sleep(Duration::from_millis(300)).await;
            let _ = s.send("stop").await;
            match s
                .expect("bestmove after stop", Duration::from_secs(1), v, |m| {
                    matches!(m, FromBot::BestMove(_))
                })
                .await
            {
                Some(FromBot::BestMove(mv)) if !start.is_legal(mv) => {
                    v.fail(format!("`bestmove {mv}` is illegal"))
                }
                Some(_) => {
                    s.quiet_for(Duration::from_millis(500), v).await;
                    s.ready(v).await;
                }
                None => {}
            }
        }
        "late-stop" => {
            let start = Position::new(kalah);
            if s.go(&start, "position startpos", "go depth 1", config.timeout, v)
                .await
                .is_some()
            {
                let _ = s.send("stop").await;
                s.quiet_for(Duration::from_millis(500), v).await;
                s.ready(v).await;
            }
        }
        "reproducible" => {
            let Some(moves) = playout_prefixes(kalah, config.seed, &[10]).pop() else {
                return;
            };
            let mut pos = Position::new(kalah);
            for &m in &moves {
                pos.play_unchecked(m);
            }
            let mut answers = Vec::new();
            for _ in 0..2 {
                let _ = s.send("newgame kalah seed 7").await;
                if !s.ready(v).await {
                    return;
                }
                match s
                    .go(&pos, &moves_text(&moves), "go depth 4", config.timeout, v)
                    .await
                {
                    Some(mv) => answers.push(mv),
                    None => return,
                }
            }
            if answers[0] != answers[1] {
                v.warn(format!(
                    "the same seed gave {} and then {}",
                    answers[0], answers[1]
                ));
            }
        }
        _ => {}
    }
}
