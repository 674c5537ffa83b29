//! The KGP driver: agents written for the Kalah Game Protocol 1.0 (KWARC's `kgp`), unchanged
//! (docs/protocols.md has the message-by-message mapping).
//!
//! A KGP agent is a client: for each player the arena listens on a loopback TCP port of its
//! own, starts the agent with the address (`KGP_HOST` / `KGP_PORT` in its environment, and
//! `{host}` / `{port}` in its command line replaced), takes the first connection that the
//! agent's own processes hold (any program on the machine can connect to the port: another is
//! refused, with a line in the agent's log), greets it with `kgp 1 0 1` and expects
//! `mode freeplay`. Every `go` becomes `<id> state <board>` with the mover shown as South, in
//! the spec's literal `<n,south store,north store,south pits,north pits>`; the agent answers
//! `@<id> move <k>` as often as it likes and may end with `@<id> yield`; at the time limit, or
//! after the `yield`, the arena sends `<id'>@<id> stop`, and the last move sent before that
//! counts. Where the spec is silent the driver does what KWARC's official server does: a
//! position with one legal pit is played without asking, and a game with a KGP agent ends as
//! soon as a store holds more than half the seeds (`tournament::referee::EarlyEnd`), so an agent
//! is never sent a decided board. `ping` / `pong` checks that the agent is alive before each
//! game. The agent's stdout and stderr go to its log.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::tcp::OwnedWriteHalf;
use tokio::net::TcpListener;
use tokio::sync::mpsc;

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::process::{line_fault, BotProcess, Walls, Wiring};
use super::{
    driver_info, refuse_options, Answer, BotInfo, BotLog, BotSpec, Fault, FaultKind, MoveClock,
    Program, StartError, Turn, MAX_DECLARATIONS, MAX_UNKNOWN_LINES,
};
use crate::protocol::{LineBuffer, MAX_LINE_LEN};
use crate::rules::{Move, Position, Ruleset, Side};
use crate::vocab::{derive_seed, MissingMove, TimeBy};

/// The greeting: KGP version 1.0.1.
pub const GREETING: &str = "kgp 1 0 1";

/// The games KGP agents play: any Kalah. The protocol shows a board and asks for a pit, so an
/// agent never needs to know the variant flags (its own search assumes its server's rules);
/// it cannot say `swap`, so under the pie rule it always declines.
pub const KGP_RULES: &str = "kalah";

pub struct Kgp {
    pub info: BotInfo,
    process: BotProcess,
    lines: mpsc::Receiver<LineResult>,
    writer: OwnedWriteHalf,
    next_id: u64,
    ruleset: Ruleset,
    handshake_timeout: Duration,
    /// What a missing move becomes (the player's `kgp_missing_move`).
    missing: MissingMove,
    /// The game's seed, which the random moves played for the agent are drawn from.
    seed: u64,
    /// The agent's log, where the random moves played for it are noted.
    log: BotLog,
    /// The CPU time the agent's processes used for the last `go`.
    pub last_cpu: Option<Duration>,
}

/// One KGP command: `[id][@ref] name args...`.
#[derive(Debug, PartialEq, Eq)]
struct Command<'a> {
    id: Option<u64>,
    reference: Option<u64>,
    name: &'a str,
    args: &'a str,
}

fn parse_command(line: &str) -> Option<Command<'_>> {
    let line = line.trim_end_matches('\r').trim();
    let (first, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
    let (id, reference, name, args) = if first.starts_with(|c: char| c.is_ascii_digit() || c == '@')
    {
        let (id, reference) = match first.split_once('@') {
            Some((id, r)) => (id, Some(r.parse().ok()?)),
            None => (first, None),
        };
        let id = if id.is_empty() {
            None
        } else {
            Some(id.parse().ok()?)
        };
        let (name, args) = rest
            .trim_start()
            .split_once(char::is_whitespace)
            .unwrap_or((rest.trim_start(), ""));
        (id, reference, name, args)
    } else {
        (None, None, first, rest)
    };
    if name.is_empty() || !name.bytes().all(|b| b.is_ascii_alphanumeric()) {
        return None;
    }
    Some(Command {
        id,
        reference,
        name,
        args: args.trim(),
    })
}

/// The board literal of KGP 1.0 (`spec/012-grammar.md`, and the official server's
/// `Board.String()`): `<n,south store,north store,south pits...,north pits...>` with the mover
/// as South (KGP agents always move as South); each row in its own sowing order (pit 1 is the
/// farthest from the side's store).
pub fn board_literal(pos: &Position, mover: Side) -> String {
    let (south, north) = (mover, mover.other());
    let mut cells = vec![
        pos.pits(south).len().to_string(),
        pos.store(south).to_string(),
        pos.store(north).to_string(),
    ];
    cells.extend(pos.pits(south).iter().map(u8::to_string));
    cells.extend(pos.pits(north).iter().map(u8::to_string));
    format!("<{}>", cells.join(","))
}

/// Whether the connection from `peer` to the agent's port is the agent's own: held by the
/// process the arena started or one of its descendants (its session's, for one that left its
/// process tree), as Linux's `/proc` tells. Anything else on the machine could have connected
/// first (#48). Where `/proc` cannot tell, the connection is taken, as it was before.
fn agents_own(process: &BotProcess, listener: &TcpListener, peer: std::net::SocketAddr) -> bool {
    let (Some(pid), Ok(server)) = (process.pid(), listener.local_addr()) else {
        return true;
    };
    crate::sys::connection_held_by(pid, peer, server).unwrap_or(true)
}

/// The command line with `{host}` and `{port}` replaced.
fn with_address(program: &Program, host: &str, port: u16) -> Program {
    let fill = |s: &str| {
        s.replace("{host}", host)
            .replace("{port}", &port.to_string())
    };
    match program {
        Program::Exec { program, args } => Program::Exec {
            program: program.clone(),
            args: args.iter().map(|a| fill(a)).collect(),
        },
        Program::Shell { command } => Program::Shell {
            command: fill(command),
        },
    }
}

impl Kgp {
    /// Listens, starts the agent, waits for its connection and `mode freeplay`, and checks that
    /// it answers `ping`.
    pub async fn start(spec: &BotSpec, log: &BotLog, timeout: Duration) -> Result<Kgp, StartError> {
        refuse_options(spec, "KGP agents")?;
        let arena = |error| StartError::Arena {
            program: spec.program.display(),
            error,
        };
        let listener = TcpListener::bind(("127.0.0.1", 0)).await.map_err(arena)?;
        let port = listener.local_addr().map_err(arena)?.port();
        let wiring = Wiring {
            env: vec![
                ("KGP_HOST".into(), "127.0.0.1".into()),
                ("KGP_PORT".into(), port.to_string()),
            ],
            stdout_to_log: true,
            // Its waits are the runtime's (a socket), which the worker's select ends on a stop.
            stop: None,
            // A sandboxed agent keeps the network: it must reach its driver's port.
            walls: Walls::of(spec, true),
        };
        let program = with_address(&spec.program, "127.0.0.1", port);
        let mut process = BotProcess::spawn(&program, spec.dir.as_deref(), log, &wiring)?;
        // From the spawn, on the agent's CPU time (a JVM starting on a busy machine is not
        // failed for it): see `ready_clock`.
        let clock = ready_clock(Duration::ZERO);
        let handshake = |detail: String| StartError::Bot(Fault::new(FaultKind::Handshake, detail));
        let stream = loop {
            let wake = clock.wake(timeout, || process.cpu_time());
            tokio::select! {
                accepted = listener.accept() => match accepted {
                    Ok((stream, peer)) => {
                        if agents_own(&process, &listener, peer) {
                            break stream;
                        }
                        log.note(&format!(
                            "refused a connection to the agent's port {port} from {peer}: no \
                             process of the agent holds it (another program on this machine)"
                        ));
                    }
                    Err(e) => { process.kill().await; return Err(arena(e)); }
                },
                detail = process.exited() => {
                    process.kill().await;
                    return Err(StartError::Bot(Fault::new(
                        FaultKind::Crash,
                        format!("{detail} without connecting to port {port}"),
                    )));
                }
                _ = tokio::time::sleep_until(wake.into()) => {
                    if !clock.spent(timeout, || process.cpu_time()) {
                        continue;
                    }
                    let cpu = process.cpu_time();
                    process.kill().await;
                    return Err(handshake(format!(
                        "{} (give the address with {{host}} {{port}} in its command, or read \
                         KGP_HOST / KGP_PORT)",
                        clock.over(&format!("did not connect to 127.0.0.1:{port}"), timeout, cpu)
                    )));
                }
            }
        };
        drop(listener);
        let _ = stream.set_nodelay(true);
        let (read, writer) = stream.into_split();
        let (tx, lines) = line_channel();
        tokio::spawn(read_lines(read, tx));
        let mut kgp = Kgp {
            info: driver_info(KGP_RULES),
            process,
            lines,
            writer,
            next_id: 1,
            ruleset: Ruleset::default(),
            handshake_timeout: timeout,
            missing: spec.kgp_missing_move,
            seed: 0,
            log: log.clone(),
            last_cpu: None,
        };
        match kgp.greet(&clock).await {
            Ok(()) => Ok(kgp),
            Err(fault) => {
                kgp.kill().await;
                Err(StartError::Bot(Fault::new(
                    FaultKind::Handshake,
                    format!("KGP greeting: {}", fault.detail),
                )))
            }
        }
    }

    /// `kgp 1 0 1`, then the client's `mode` (its `set info:*` noted on the way), then a ping,
    /// within the handshake timeout on `clock`.
    async fn greet(&mut self, clock: &MoveClock) -> Result<(), Fault> {
        let deadline = self.ready_deadline(clock);
        self.send(GREETING, deadline).await?;
        let mut said = 0usize;
        loop {
            let line = self.recv_ready(clock).await?;
            said += 1;
            if said > MAX_DECLARATIONS {
                return Err(Fault::new(
                    FaultKind::Garbage,
                    format!("more than {MAX_DECLARATIONS} lines before `mode`"),
                ));
            }
            let Some(cmd) = parse_command(&line) else {
                continue;
            };
            match cmd.name {
                "mode" if cmd.args.trim_matches('"') == "freeplay" => break,
                "mode" => {
                    let _ = self
                        .send(
                            "error \"unsupported activity: the arena plays freeplay\"",
                            deadline,
                        )
                        .await;
                    let _ = self.send("goodbye", deadline).await;
                    return Err(Fault::new(
                        FaultKind::Handshake,
                        format!("asked for mode `{}`; the arena plays `freeplay`", cmd.args),
                    ));
                }
                "set" => self.note_set(cmd.args),
                _ => {}
            }
        }
        self.ping(clock).await
    }

    /// The next line of a readiness wait (the greeting, a ping) before the handshake timeout
    /// is up on `clock` (the agent's CPU time, within a wall cap: see [`ready_clock`]).
    async fn recv_ready(&mut self, clock: &MoveClock) -> Result<String, Fault> {
        let limit = self.handshake_timeout;
        loop {
            let wake = clock.wake(limit, || self.process.cpu_time());
            match self.recv(wake).await {
                Err(f) if f.kind == FaultKind::Timeout => {
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

    /// The wall-clock time by which a readiness wait on `clock` is over whatever happens (for
    /// the writes on the way).
    fn ready_deadline(&self, clock: &MoveClock) -> Instant {
        clock.started() + clock.wall_cap(self.handshake_timeout)
    }

    /// `set info:name "X"` and `set info:authors "Y"` (or `info:author`) become the bot's name
    /// and author; a later one replaces an earlier one, so an agent that repeats them costs no
    /// memory.
    fn note_set(&mut self, args: &str) {
        match info_set(args) {
            Some(InfoSet::Name(name)) => self.info.names = vec![name],
            Some(InfoSet::Authors(authors)) => self.info.authors = vec![authors],
            None => {}
        }
    }

    /// `ping`, and the agent's `pong` within the handshake timeout on `clock`.
    async fn ping(&mut self, clock: &MoveClock) -> Result<(), Fault> {
        let id = self.take_id();
        let deadline = self.ready_deadline(clock);
        self.send(&format!("{id} ping"), deadline).await?;
        loop {
            let line = self.recv_ready(clock).await.map_err(|f| match f.kind {
                FaultKind::Timeout => {
                    Fault::new(FaultKind::Timeout, format!("no pong to ping: {}", f.detail))
                }
                _ => f,
            })?;
            match parse_command(&line) {
                Some(c) if c.name == "pong" => return Ok(()),
                Some(c) if c.name == "set" => self.note_set(c.args),
                _ => {}
            }
        }
    }

    /// KGP has no games: the ruleset and the game's seed are noted and the agent must answer a
    /// `ping`.
    pub async fn new_game(&mut self, ruleset: Ruleset, seed: u64) -> Result<(), Fault> {
        self.ruleset = ruleset;
        self.seed = seed;
        let clock = ready_clock(self.process.cpu_time().unwrap_or_default());
        self.ping(&clock).await?;
        self.process.cpu_time();
        Ok(())
    }

    /// `state`, the agent's `move`s until `yield` or the time is up, then `stop` (after a
    /// `yield` too, as the official server does). A position with one legal pit is played
    /// without asking, as the official server skips trivial moves. No move by then, or a
    /// `yield` before any move, is a random legal move played for the agent, as the official
    /// server plays one (unless its `kgp_missing_move` is `forfeit`).
    pub async fn go(&mut self, turn: Turn<'_>) -> Result<Answer, Fault> {
        self.last_cpu = None;
        let pos = turn.position(self.ruleset)?;
        let mover = pos
            .to_move()
            .ok_or_else(|| Fault::new(FaultKind::Io, "the game is over"))?;
        if let Some(only) = only_pit(&pos) {
            return Ok(Answer::of(only, Duration::ZERO));
        }
        // As read at the end of the last request or ping: one look per sow.
        let baseline = self.process.last_cpu_time().unwrap_or_default();
        let clock = MoveClock::new(Instant::now(), turn.time_by, baseline);
        let taken = self.take_move(&pos, mover, &turn, &clock).await;
        self.last_cpu = clock.used(self.process.cpu_time());
        let (k, think) = match taken? {
            Taken::Move(k, think) => (k, think),
            Taken::Missing { why, think } => {
                let mv = random_pit(&pos, self.seed, turn.moves.len());
                self.log.note(&format!(
                    "played a random move, {mv}, for the agent: {why} (as the official \
                     server does; kgp_missing_move=forfeit makes it a forfeit)"
                ));
                return Ok(Answer {
                    random: Some(why),
                    ..Answer::of(mv, think)
                });
            }
        };
        let pits = pos.pits(mover).len();
        if !(1..=pits as i64).contains(&k) {
            return Err(Fault::new(
                FaultKind::IllegalMove,
                format!("`move {k}`: the board has {pits} pits"),
            ));
        }
        Ok(Answer::of(Move::Pit(k as u8), think))
    }

    /// Sends the `state`, reads the agent's moves until its `yield` or the move time on
    /// `clock`, and sends `stop`: the last move, or why there is none (a fault, under
    /// `kgp_missing_move=forfeit`).
    async fn take_move(
        &mut self,
        pos: &Position,
        mover: Side,
        turn: &Turn<'_>,
        clock: &MoveClock,
    ) -> Result<Taken, Fault> {
        let id = self.take_id();
        let hard = clock.started() + clock.wall_cap(turn.limit);
        let soft = turn.soft_limit();
        self.drain(hard).await?;
        let state = format!("{id} state {}", board_literal(pos, mover));
        self.send(&state, hard).await?;
        let mut last: Option<i64> = None;
        // Lines that are not this state's moves (`set`, `ping`, unknown ones): chatter up to a
        // point, then a flood.
        let mut chatter = 0usize;
        // Moves that named another `state` (an old one, or one never sent): ignored, and named
        // in the fault if no move for this one comes.
        let mut elsewhere = 0usize;
        let mut wake = clock.wake(soft, || self.process.cpu_time());
        let yielded = loop {
            let line = match self.recv(wake).await {
                Ok(line) => line,
                Err(f) if f.kind == FaultKind::Timeout => {
                    if clock.spent(soft, || self.process.cpu_time()) {
                        break false;
                    }
                    wake = clock.wake(soft, || self.process.cpu_time());
                    continue;
                }
                Err(f) => return Err(f),
            };
            let cmd = parse_command(&line);
            if !matches!(&cmd, Some(c) if c.name == "move" || c.name == "yield") {
                chatter += 1;
                if chatter > MAX_UNKNOWN_LINES {
                    return Err(Fault::new(
                        FaultKind::Garbage,
                        format!("more than {MAX_UNKNOWN_LINES} lines that are not moves"),
                    ));
                }
            }
            let Some(cmd) = cmd else {
                continue;
            };
            let current = cmd.reference.map_or(true, |r| r == id);
            match cmd.name {
                "move" if current => {
                    let k = cmd
                        .args
                        .split_whitespace()
                        .next()
                        .and_then(|a| a.parse().ok());
                    last = Some(k.ok_or_else(|| {
                        Fault::new(
                            FaultKind::Malformed,
                            format!("`{line}`: move needs a pit number"),
                        )
                    })?);
                }
                "yield" if current => break true,
                "move" | "yield" => elsewhere += 1,
                "ping" => self.pong(cmd.id, hard).await?,
                "goodbye" => {
                    return Err(Fault::new(FaultKind::Crash, "said goodbye during a game"));
                }
                "set" => self.note_set(cmd.args),
                _ => {}
            }
        };
        let think = clock.started().elapsed();
        // Silent at the deadline: the official server pings such an agent and takes one that
        // does not answer for gone (it resigns).
        let alive = match (last, yielded, self.missing) {
            (None, false, MissingMove::Random) => {
                let clock = ready_clock(self.process.cpu_time().unwrap_or_default());
                Some(self.ping(&clock).await)
            }
            _ => None,
        };
        let stop = self.take_id();
        // A client gone at this point still made its move in time; one that does not read its
        // connection any more cannot be sent the next state: that is its fault.
        let stop_by = hard.max(Instant::now() + STOP_WRITE);
        match self.send(&format!("{stop}@{id} stop"), stop_by).await {
            Err(f) if f.kind == FaultKind::Timeout => return Err(f),
            _ => {}
        }
        if let Some(k) = last {
            return Ok(Taken::Move(k, think));
        }
        let cpu = self.process.cpu_time();
        let why = if yielded {
            "yield before any move".to_string()
        } else {
            let other = if elsewhere > 0 {
                format!(
                    " ({elsewhere} move or yield commands named another state than `{id} state`)"
                )
            } else {
                String::new()
            };
            format!("{}{other}", clock.over("no move", soft, cpu))
        };
        match (self.missing, alive) {
            (MissingMove::Random, Some(Err(fault))) => Err(Fault::new(
                FaultKind::Timeout,
                format!(
                    "{why}, and no answer to the ping that followed ({}): taken for gone, as the \
                     official server takes it",
                    fault.detail
                ),
            )),
            (MissingMove::Random, _) => Ok(Taken::Missing { why, think }),
            (MissingMove::Forfeit, _) if yielded => Err(Fault::new(
                FaultKind::Malformed,
                format!("{why} (kgp_missing_move=forfeit; the official server would play a random move)"),
            )),
            (MissingMove::Forfeit, _) => Err(Fault::new(
                FaultKind::Timeout,
                format!("{why} (kgp_missing_move=forfeit; the official server would play a random move)"),
            )),
        }
    }

    /// Lines that arrived between two requests: answers to an old `state` (ignored, as KGP
    /// says), `set info:*` (noted) and the agent's own pings (answered).
    async fn drain(&mut self, deadline: Instant) -> Result<(), Fault> {
        for _ in 0..LINE_CHANNEL {
            let Ok(line) = self.lines.try_recv() else {
                break;
            };
            let line = line?;
            match parse_command(&line) {
                Some(cmd) if cmd.name == "set" => self.note_set(cmd.args),
                Some(cmd) if cmd.name == "ping" => self.pong(cmd.id, deadline).await?,
                _ => {}
            }
        }
        Ok(())
    }

    /// Answers a client's `ping` (with its id, if it gave one).
    async fn pong(&mut self, ping_id: Option<u64>, deadline: Instant) -> Result<(), Fault> {
        match ping_id {
            Some(id) => self.send(&format!("@{id} pong"), deadline).await,
            None => self.send("pong", deadline).await,
        }
    }

    fn take_id(&mut self) -> u64 {
        let id = self.next_id;
        self.next_id += 1;
        id
    }

    /// Writes `line` before `deadline`: an agent that stops reading its socket (and floods it
    /// meanwhile) cannot hold the game past the deadline its reads have.
    async fn send(&mut self, line: &str, deadline: Instant) -> Result<(), Fault> {
        let mut buf = Vec::with_capacity(line.len() + 2);
        buf.extend_from_slice(line.as_bytes());
        buf.extend_from_slice(b"\r\n");
        let write = self.writer.write_all(&buf);
        match tokio::time::timeout_at(deadline.into(), write).await {
            Ok(Ok(())) => Ok(()),
            Ok(Err(e)) => Err(Fault::new(
                FaultKind::Crash,
                format!("the connection broke: {e}"),
            )),
            Err(_) => Err(Fault::new(
                FaultKind::Timeout,
                "the agent does not read its connection: a write to it did not finish in time",
            )),
        }
    }

    /// The next line from the connection before `deadline`; the agent's exit or a closed
    /// connection is a crash.
    async fn recv(&mut self, deadline: Instant) -> Result<String, Fault> {
        tokio::select! {
            biased;
            line = self.lines.recv() => match line {
                Some(line) => line,
                None => Err(Fault::new(FaultKind::Crash, "closed the connection")),
            },
            detail = self.process.exited() => {
                match self.lines.try_recv() {
                    Ok(line) => line,
                    Err(_) => Err(Fault::new(FaultKind::Crash, detail)),
                }
            }
            _ = tokio::time::sleep_until(deadline.into()) => {
                Err(Fault::new(FaultKind::Timeout, "no answer in time"))
            }
        }
    }

    pub async fn kill(&mut self) {
        self.process.kill().await;
    }

    /// `goodbye`, the connection closed, `grace` to exit, then the group killed.
    pub async fn quit(mut self, grace: Duration) {
        let deadline = Instant::now() + grace;
        let _ = self.send("goodbye", deadline).await;
        let _ = tokio::time::timeout_at(deadline.into(), self.writer.shutdown()).await;
        let _ = tokio::time::timeout(grace, self.process.wait()).await;
        self.process.kill().await;
    }
}

/// The clock of a readiness wait (the connection, the greeting, a ping), from now and the
/// agent's CPU time `baseline`: the handshake timeout counts the agent's CPU time, within
/// [`crate::vocab::CPU_WALL_CAP`] times it of wall time, so that an agent that starts slowly
/// because the machine is busy is not failed for it, while one that hangs still is.
fn ready_clock(baseline: Duration) -> MoveClock {
    MoveClock::new(Instant::now(), TimeBy::Cpu, baseline)
}

/// What the agent did with a `state`.
enum Taken {
    /// Its last move (a pit number, not checked yet) and the time it took.
    Move(i64, Duration),
    /// No move: why (no move by the deadline, a `yield` before any move), and the time waited.
    Missing { why: String, think: Duration },
}

/// The seed stream of the random moves played for KGP agents (see [`random_pit`]).
const RANDOM_MOVES: u64 = 0x6b67_705f_7261_6e64;

/// The random legal move the arena plays for a KGP agent that made none, as the official
/// server does (`Board.Random`: one of the sowable pits, each as likely), drawn from the game's
/// `seed` and the sow's number `ply`, so that a game played again gets the same moves. A
/// `swap` is never drawn: an agent cannot say it.
pub fn random_pit(pos: &Position, seed: u64, ply: usize) -> Move {
    let pits: Vec<Move> = pos
        .legal_moves()
        .iter()
        .copied()
        .filter(|m| matches!(m, Move::Pit(_)))
        .collect();
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, RANDOM_MOVES, ply as u64));
    *pits
        .choose(&mut rng)
        .expect("a position that asks for a move has a pit to sow")
}

/// How long the `stop` after a move may take to write when the move's own deadline has passed.
const STOP_WRITE: Duration = Duration::from_millis(50);

/// What a `set` tells about the agent.
#[derive(Debug, PartialEq, Eq)]
enum InfoSet {
    Name(String),
    Authors(String),
}

/// The `info:name` / `info:authors` of a `set`'s arguments. pykgp and kgpc quote the option
/// too (`set "info:name" "X"`), and kgpc says `info:author`: the official server takes both.
fn info_set(args: &str) -> Option<InfoSet> {
    let (option, value) = args.split_once(char::is_whitespace).unwrap_or((args, ""));
    let value = value.trim().trim_matches('"').to_string();
    match option.trim_matches('"') {
        "info:name" => Some(InfoSet::Name(value)),
        "info:authors" | "info:author" => Some(InfoSet::Authors(value)),
        _ => None,
    }
}

/// The one pit the mover can sow, when there is exactly one (a `swap` the agent could not say
/// anyway aside).
fn only_pit(pos: &Position) -> Option<Move> {
    let legal = pos.legal_moves();
    let mut pits = legal.iter().copied().filter(|m| matches!(m, Move::Pit(_)));
    match (pits.next(), pits.next()) {
        (Some(only), None) => Some(only),
        _ => None,
    }
}

/// Channel capacity between the socket reader task and the driver: bounded, so a flooding agent
/// blocks on its own pipe instead of filling the arena's memory.
const LINE_CHANNEL: usize = 256;

type LineResult = Result<String, Fault>;

fn line_channel() -> (mpsc::Sender<LineResult>, mpsc::Receiver<LineResult>) {
    mpsc::channel(LINE_CHANNEL)
}

/// Reads the agent's socket into bounded lines, on a task of its own (KGP's messages arrive
/// while no answer is due). An over-long line or bytes
/// that are not UTF-8 end the stream with a fault: the bot is broken and will be killed.
async fn read_lines<R>(mut stream: R, tx: mpsc::Sender<LineResult>)
where
    R: tokio::io::AsyncRead + Unpin,
{
    let mut buffer = LineBuffer::with_max_len(MAX_LINE_LEN);
    let mut chunk = vec![0u8; 8192];
    loop {
        while let Some(line) = buffer.next_line() {
            let item = line.map_err(line_fault);
            let fatal = item.is_err();
            if tx.send(item).await.is_err() || fatal {
                return;
            }
        }
        match stream.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.push(&chunk[..n]),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn commands_parse_with_and_without_ids() {
        let c = parse_command("@4 move 1").unwrap();
        assert_eq!(
            (c.id, c.reference, c.name, c.args),
            (None, Some(4), "move", "1")
        );
        let c = parse_command("10@8 stop\r").unwrap();
        assert_eq!((c.id, c.reference, c.name), (Some(10), Some(8), "stop"));
        let c = parse_command("mode freeplay").unwrap();
        assert_eq!((c.id, c.name, c.args), (None, "mode", "freeplay"));
        let c = parse_command("3 set info:name \"my agent\"").unwrap();
        assert_eq!(
            (c.id, c.name, c.args),
            (Some(3), "set", "info:name \"my agent\"")
        );
        assert_eq!(parse_command("x@ move"), None);
        assert_eq!(parse_command(""), None);
        assert_eq!(parse_command("@x move 1"), None);
    }

    /// The spec's example literal, `<3,10,2,1,2,3,4,2,0>`, read as its text says ("the second
    /// and third give the number of stones in the south and north Kalah respectively. Values 4
    /// to 4+n list the number of stones in the south pits, 4+n+1 to 4+2n+1 the north pits"),
    /// and as the official server's `Board.String()` prints a board (`<%d,%d,%d` of size,
    /// south, north, then the south pits, then the north pits).
    #[test]
    fn the_board_literal_is_the_specs_south_store_first() {
        let r: Ruleset = "kalah:pits=3,seeds=4".parse().unwrap();
        // South: store 10, pits 1, 2, 3; North: store 2, pits 4, 2, 0.
        let pos = Position::from_state(r, "s/1.2.3/4.2.0/10.2/5").unwrap();
        assert_eq!(board_literal(&pos, Side::South), "<3,10,2,1,2,3,4,2,0>");
        // Shown to North, North is the literal's south: its store and pits come first.
        let pos = Position::from_state(r, "n/1.2.3/4.2.0/10.2/5").unwrap();
        assert_eq!(board_literal(&pos, Side::North), "<3,2,10,4,2,0,1,2,3>");
        // The spec's freeplay example opens with `state <3,0,0,3,3,3,3,3,3>`.
        let start = Position::new("kalah:pits=3,seeds=3".parse().unwrap());
        assert_eq!(board_literal(&start, Side::South), "<3,0,0,3,3,3,3,3,3>");
    }

    #[test]
    fn a_position_with_one_legal_pit_is_played_without_asking() {
        let kalah: Ruleset = "kalah".parse().unwrap();
        let one = Position::from_state(kalah, "s/0.0.0.0.0.1/4.4.4.4.3.3/20.5/10").unwrap();
        assert_eq!(only_pit(&one), Some(Move::Pit(6)));
        let two = Position::from_state(kalah, "s/0.0.0.0.1.1/4.4.4.4.3.2/20.5/10").unwrap();
        assert_eq!(only_pit(&two), None);
        // Under the pie rule North's one pit and `swap`: the agent cannot say `swap` anyway.
        let pie: Ruleset = "kalah:pits=2,seeds=2,pie=true".parse().unwrap();
        let offer = Position::from_state(pie, "n/2.0/0.4/1.1/1/pie=offer").unwrap();
        assert!(offer.legal_moves().contains(&Move::Swap), "{offer}");
        assert_eq!(only_pit(&offer), Some(Move::Pit(2)));
    }

    #[test]
    fn info_sets_are_read_quoted_or_not() {
        let name = |n: &str| Some(InfoSet::Name(n.into()));
        assert_eq!(info_set("info:name \"my agent\""), name("my agent"));
        // pykgp's and kgpc's form.
        assert_eq!(info_set("\"info:name\" \"Minmax 16\""), name("Minmax 16"));
        let authors = Some(InfoSet::Authors("A, B".into()));
        assert_eq!(info_set("\"info:author\" \"A, B\""), authors);
        assert_eq!(info_set("info:authors \"A, B\""), authors);
        assert_eq!(info_set("info:comment \"Eval: 3\""), None);
        assert_eq!(info_set("auth:token x"), None);
    }
}
