//! The ManKalah driver: agents written for the Manchester ManKalah game engine, unchanged
//! (docs/protocols.md has the message-by-message mapping).
//!
//! The protocol has no handshake, no options and no time information: the engine starts one
//! agent process per game, sends `START;South|North`, then after every move a
//! `CHANGE;<move|SWAP>;<state>;<YOU|OPP|END>` to both agents (the waiting one first; only the
//! non-swapper hears of a `SWAP`), and `END` when the game is over; an agent answers `MOVE;<n>`
//! or `SWAP` when the turn is its own, and says nothing otherwise. Its game is
//! `kalah:pits=7,seeds=7,pie=true,first_extra_turn=false` (docs/rules.md).
//!
//! The driver tells the agent what happened lazily: the `CHANGE` lines of the moves since it
//! last spoke, in order, just before it is asked to move, and the rest with `END` when the game
//! is over. An agent cannot tell the difference; the wall-clock order of the two agents'
//! messages is not part of the protocol. ManKalah is strict and so is the driver: any line that
//! is not `MOVE;<n>` or `SWAP` when a move is due, and any line at all when none is due, loses.

use std::path::PathBuf;
use std::time::{Duration, Instant};

use super::process::{spawn_in_game, BotProcess, Walls, Wiring};
use super::{
    driver_info, refuse_options, Answer, BotInfo, BotLog, BotSpec, Fault, FaultKind, MoveClock,
    Program, StartError, Turn,
};
use crate::protocol::PositionStart;
use crate::rules::{Move, Position, Ruleset, Side};
use crate::sys::Stop;

/// The one game ManKalah agents play.
pub const MANKALAH_RULES: &str =
    "kalah:pits=7,seeds=7,pie=true,empty_capture=false,sweep=owner,end_on_no_move=false,first_extra_turn=false";

/// How long an agent gets to exit after `END` before its process group is killed.
const EXIT_GRACE: Duration = Duration::from_secs(1);

/// How old an agent's process is at least when its game starts: ManKalah has no handshake to
/// wait for, and an agent's start-up (a JVM, a Python interpreter) must not eat its first
/// move's time. (ManKalah's own engine waits 500 ms after starting both agents.)
const STARTUP_GRACE: Duration = Duration::from_millis(300);

pub struct ManKalah {
    pub info: BotInfo,
    program: Program,
    dir: Option<PathBuf>,
    log: BotLog,
    /// How each game's process is wired (the run's stop).
    wiring: Wiring,
    /// The agent process of the current game, or the one started for the next, and when it
    /// was started.
    process: Option<(BotProcess, Instant)>,
    /// The current game, from `START` to `END`.
    game: Option<Game>,
    /// The CPU time the agent's process used for the last move (its start-up, for its first
    /// move of a game).
    pub last_cpu: Option<Duration>,
}

struct Game {
    ruleset: Ruleset,
    /// The agent started the game as South (the first player).
    first: bool,
    /// How many of the game's moves the agent has been told about.
    told: usize,
    /// Whether the agent has been asked for a move in this game (its process is the game's:
    /// before the first, everything it did was starting up).
    asked: bool,
}

impl ManKalah {
    /// Starts the process for the first game. ManKalah has no handshake and no options: a
    /// configured option is the user's mistake.
    pub fn start(
        spec: &BotSpec,
        log: &BotLog,
        stop: Option<&Stop>,
    ) -> Result<ManKalah, StartError> {
        refuse_options(spec, "ManKalah agents")?;
        let mut driver = ManKalah {
            info: driver_info(MANKALAH_RULES),
            program: spec.program.clone(),
            dir: spec.dir.clone(),
            log: log.clone(),
            wiring: Wiring {
                stop: stop.cloned(),
                walls: Walls::of(spec, false),
                ..Wiring::default()
            },
            process: None,
            game: None,
            last_cpu: None,
        };
        let process =
            BotProcess::spawn(&driver.program, driver.dir.as_deref(), log, &driver.wiring)?;
        driver.process = Some((process, Instant::now()));
        Ok(driver)
    }

    /// A fresh agent process for every game (started when the last game ended, or now), given
    /// [`STARTUP_GRACE`] to start, then `START`.
    pub async fn new_game(&mut self, ruleset: Ruleset, first: bool) -> Result<(), Fault> {
        if self.game.take().is_some() {
            self.retire();
        }
        if self.process.is_none() {
            self.spawn().await?;
        }
        if let Some((_, born)) = &self.process {
            tokio::time::sleep_until((*born + STARTUP_GRACE).into()).await;
        }
        self.game = Some(Game {
            ruleset,
            first,
            told: 0,
            asked: false,
        });
        let side = if first { "South" } else { "North" };
        self.write(&[format!("START;{side}")])
    }

    /// Starts the next agent process.
    async fn spawn(&mut self) -> Result<(), Fault> {
        let process =
            spawn_in_game(&self.program, self.dir.as_deref(), &self.log, &self.wiring).await?;
        self.process = Some((process, Instant::now()));
        Ok(())
    }

    /// The `CHANGE` lines of the moves the agent has not heard of, then its `MOVE` or `SWAP`,
    /// within the turn's limit on its clock (on CPU time, the agent's start-up counts towards
    /// its first move of the game).
    pub async fn go(&mut self, turn: Turn<'_>) -> Result<Answer, Fault> {
        self.last_cpu = None;
        let Turn {
            start,
            moves,
            limit,
            time_by,
            ..
        } = turn;
        let no_game = || Fault::new(FaultKind::Io, "no game started");
        let game = self.game.as_mut().ok_or_else(no_game)?;
        let lines = changes(game, start, moves)?;
        game.told = moves.len();
        let first_ask = !std::mem::replace(&mut game.asked, true);
        let pits = game.ruleset.pits();
        let gone = || Fault::new(FaultKind::Crash, "the agent's process is gone");
        let (process, _) = self.process.as_mut().ok_or_else(gone)?;
        // With nothing new to tell, the agent knew its move was due (it is South and heard
        // `START`) and may have answered already; otherwise anything it said was out of turn.
        if !lines.is_empty() {
            if let Some(line) = process.try_read_line() {
                let line = line?;
                return Err(Fault::new(
                    FaultKind::Malformed,
                    format!(
                        "`{line}` when no move was due (ManKalah agents speak only on their turn)"
                    ),
                ));
            }
            process.write(&as_text(&lines))?;
        }
        let baseline = if first_ask {
            Duration::ZERO
        } else {
            process.last_cpu_time().unwrap_or_default()
        };
        let clock = MoveClock::new(Instant::now(), time_by, baseline);
        let read = loop {
            let wake = clock.wake(limit, || process.cpu_time());
            match process.read_line(wake) {
                Err(f) if f.kind == FaultKind::Timeout => {
                    if clock.spent(limit, || process.cpu_time()) {
                        break Err(f);
                    }
                }
                other => break other,
            }
        };
        let think = clock.started().elapsed();
        let cpu = process.cpu_time();
        self.last_cpu = clock.used(cpu);
        let line = match read {
            Err(f) if f.kind == FaultKind::Timeout => {
                return Err(Fault::new(
                    FaultKind::Timeout,
                    clock.over("no MOVE or SWAP", limit, cpu),
                ))
            }
            other => other?,
        };
        let mv = parse_answer(&line, pits)?;
        Ok(Answer::of(mv, think))
    }

    /// Tells the agent the game's last moves and `END` (it is expected to exit), and starts the
    /// next game's agent so that it is ready in time.
    pub async fn end_game(&mut self, start: &PositionStart, moves: &[Move]) {
        let Some(game) = self.game.take() else {
            return;
        };
        let mut lines = changes(&game, start, moves).unwrap_or_default();
        lines.push("END".into());
        let _ = self.write(&lines);
        self.retire();
        // A failure to start shows at the next game, as that game's forfeit.
        let _ = self.spawn().await;
    }

    fn write(&mut self, lines: &[String]) -> Result<(), Fault> {
        match self.process.as_mut() {
            Some((process, _)) => process.write(&as_text(lines)),
            None => Err(Fault::new(FaultKind::Crash, "the agent's process is gone")),
        }
    }

    /// Lets the current process exit on its own (it was told `END`), killing it after a grace.
    fn retire(&mut self) {
        if let Some((mut process, _)) = self.process.take() {
            tokio::spawn(async move {
                let _ = tokio::time::timeout(EXIT_GRACE, process.wait()).await;
                process.kill().await;
            });
        }
    }

    pub async fn kill(&mut self) {
        self.game = None;
        if let Some((mut process, _)) = self.process.take() {
            process.kill().await;
        }
    }

    pub async fn quit(mut self, grace: Duration) {
        if let Some((mut process, _)) = self.process.take() {
            if self.game.is_some() {
                let _ = process.write("END\n");
            }
            let _ = tokio::time::timeout(grace, process.wait()).await;
            process.kill().await;
        }
    }
}

/// `MOVE;<n>` or `SWAP` (one trailing CR tolerated).
fn parse_answer(line: &str, pits: usize) -> Result<Move, Fault> {
    let text = line.strip_suffix('\r').unwrap_or(line);
    if text == "SWAP" {
        return Ok(Move::Swap);
    }
    let malformed = || {
        Fault::new(
            FaultKind::Malformed,
            format!("`{text}` is not MOVE;<hole> or SWAP"),
        )
    };
    let hole = text.strip_prefix("MOVE;").ok_or_else(malformed)?;
    if hole.is_empty() || !hole.bytes().all(|b| b.is_ascii_digit()) {
        return Err(malformed());
    }
    match hole.parse::<usize>() {
        Ok(n) if (1..=pits).contains(&n) => Ok(Move::Pit(n as u8)),
        Ok(0) => Err(malformed()),
        _ => Err(Fault::new(
            FaultKind::IllegalMove,
            format!("`{text}`: there are {pits} holes"),
        )),
    }
}

/// The `CHANGE` lines for the moves after the first `game.told`, from the agent's view.
fn changes(game: &Game, start: &PositionStart, moves: &[Move]) -> Result<Vec<String>, Fault> {
    let mut pos = match start {
        PositionStart::Startpos => Position::new(game.ruleset),
        PositionStart::State(_) => {
            return Err(Fault::new(
                FaultKind::Io,
                "ManKalah games start from the initial position",
            ))
        }
    };
    let player = usize::from(!game.first);
    let mut lines = Vec::new();
    for (i, &mv) in moves.iter().enumerate() {
        // The swapper is whoever is to move when `swap` is played.
        let mover_is_agent = pos.to_move() == Some(pos.seat_of(player));
        pos.play(mv)
            .map_err(|e| Fault::new(FaultKind::Io, format!("the game's move {mv}: {e}")))?;
        if i < game.told || (mv == Move::Swap && mover_is_agent) {
            continue;
        }
        let turn = match pos.to_move() {
            None => "END",
            Some(side) if side == pos.seat_of(player) => "YOU",
            Some(_) => "OPP",
        };
        let what = match mv {
            Move::Swap => "SWAP".to_string(),
            Move::Pit(k) => k.to_string(),
        };
        lines.push(format!("CHANGE;{what};{};{turn}", board(&pos)));
    }
    Ok(lines)
}

/// ManKalah's board: North's holes 1..n, North's store, South's holes 1..n, South's store.
fn board(pos: &Position) -> String {
    let mut cells: Vec<String> = Vec::with_capacity(2 * pos.pits(Side::North).len() + 2);
    for side in [Side::North, Side::South] {
        cells.extend(pos.pits(side).iter().map(u8::to_string));
        cells.push(pos.store(side).to_string());
    }
    cells.join(",")
}

/// Lines as one text to write, each ending in a line end.
fn as_text(lines: &[String]) -> String {
    lines.iter().flat_map(|l| [l.as_str(), "\n"]).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn game(first: bool) -> Game {
        Game {
            ruleset: MANKALAH_RULES.parse().unwrap(),
            first,
            told: 0,
            asked: false,
        }
    }

    #[test]
    fn the_first_move_and_a_swap_as_each_agent_hears_them() {
        let start = PositionStart::Startpos;
        let moves = [Move::Pit(1), Move::Swap, Move::Pit(2)];
        // South's pit 1: seven seeds into holes 2..7 and the store, and no extra turn.
        let south = changes(&game(true), &start, &moves).unwrap();
        let after_1 = "7,7,7,7,7,7,7,0,0,8,8,8,8,8,8,1";
        assert_eq!(south[0], format!("CHANGE;1;{after_1};OPP"));
        // The non-swapper hears of the swap and moves next, now seated North.
        assert_eq!(south[1], format!("CHANGE;SWAP;{after_1};YOU"));
        // North's hole 2 (seven seeds): holes 3..7, the store, South's hole 1.
        assert_eq!(south[2], "CHANGE;2;7,0,8,8,8,8,8,1,1,8,8,8,8,8,8,1;OPP");
        // The swapper hears nothing of its own swap.
        let north = changes(&game(false), &start, &moves).unwrap();
        assert_eq!(north.len(), 2);
        assert_eq!(north[0], format!("CHANGE;1;{after_1};YOU"));
        assert!(north[1].ends_with(";YOU"), "{}", north[1]);
    }

    #[test]
    fn answers_parse_strictly() {
        assert_eq!(parse_answer("MOVE;7", 7), Ok(Move::Pit(7)));
        assert_eq!(parse_answer("MOVE;3\r", 7), Ok(Move::Pit(3)));
        assert_eq!(parse_answer("SWAP", 7), Ok(Move::Swap));
        let kind = |l: &str| parse_answer(l, 7).unwrap_err().kind;
        assert_eq!(kind("MOVE;8"), FaultKind::IllegalMove);
        for bad in [
            "MOVE;0", "MOVE;", "MOVE;+1", "move;1", "MOVE 1", "", "SWAP;",
        ] {
            assert_eq!(kind(bad), FaultKind::Malformed, "{bad}");
        }
    }
}
