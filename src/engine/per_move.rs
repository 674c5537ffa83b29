//! The per-move driver: programs that read one board on standard input, print a move and exit,
//! the convention of KWARC's `kgpc` (its README): contest kits, course agents, the simplest bots
//! there are (docs/protocols.md).
//!
//! For every move the driver starts the program (in a process group of its own, its stderr in
//! the player's log, like every bot), writes the board with the mover as South and closes its
//! stdin, then reads what it prints: 0-indexed pit numbers separated by white space. The last
//! one printed before the program exits, or before the move time (when the program is killed,
//! as kgpc kills it at `stop`), is the move. Its process group dies when it exits, so a child
//! it left cannot go on printing; nothing read after its exit (beyond what it wrote before) or
//! after the move time counts, and more than [`MAX_MOVE_OUTPUT`] for one move is a `garbage`
//! fault. Nothing printed, a word that is not a pit number, or no move by the time limit is a
//! fault like any other bot's.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::process::{spawn_in_game, BotProcess, Walls, Wiring};
use super::{
    driver_info, refuse_options, Answer, BotInfo, BotLog, BotSpec, Fault, FaultKind, MoveClock,
    Program, StartError, Turn,
};
use crate::rules::{Move, Position, Ruleset, Side};
use crate::sys::Stop;

/// The games per-move programs play: any Kalah (the board is stores and pits; a program cannot
/// say `swap`, so under the pie rule it always declines).
pub const PER_MOVE_RULES: &str = "kalah";

pub struct PerMove {
    pub info: BotInfo,
    program: Program,
    dir: Option<PathBuf>,
    log: BotLog,
    /// How each move's process is wired (the run's stop).
    wiring: Wiring,
    ruleset: Ruleset,
    /// The CPU time the last move's process used, its start-up included.
    pub last_cpu: Option<Duration>,
}

impl PerMove {
    /// Checks what can be checked before the first move: no options (the convention has none)
    /// and a program that exists. Nothing is started until a move is asked for.
    pub fn start(spec: &BotSpec, log: &BotLog, stop: Option<&Stop>) -> Result<PerMove, StartError> {
        refuse_options(spec, "per-move programs")?;
        if let Err(detail) = findable(&spec.program, spec.dir.as_deref()) {
            return Err(StartError::Bot(Fault::new(FaultKind::Spawn, detail)));
        }
        Ok(PerMove {
            info: driver_info(PER_MOVE_RULES),
            program: spec.program.clone(),
            dir: spec.dir.clone(),
            log: log.clone(),
            wiring: Wiring {
                stop: stop.cloned(),
                walls: Walls::of(spec, false),
                ..Wiring::default()
            },
            ruleset: Ruleset::default(),
            last_cpu: None,
        })
    }

    pub fn new_game(&mut self, ruleset: Ruleset) {
        self.ruleset = ruleset;
    }

    /// Starts the program with the board and takes its last move. On CPU time its clock counts
    /// the program's start-up like the rest of its work.
    pub async fn go(&mut self, turn: Turn<'_>) -> Result<Answer, Fault> {
        self.last_cpu = None;
        let pos = turn.position(self.ruleset)?;
        let mover = pos
            .to_move()
            .ok_or_else(|| Fault::new(FaultKind::Io, "the game is over"))?;
        let pits = pos.pits(mover).len();
        let clock = MoveClock::new(Instant::now(), turn.time_by, Duration::ZERO);
        let mut process =
            spawn_in_game(&self.program, self.dir.as_deref(), &self.log, &self.wiring).await?;
        // A program that exits without reading its input may leave the pipe closed: what it
        // printed still counts.
        let _ = process.write(&board_of(&pos, mover));
        process.close_stdin();
        let taken = last_move(&mut process, &clock, &turn);
        let think = clock.started().elapsed();
        process.kill().await;
        let cpu = process.cpu_time();
        self.last_cpu = cpu;
        let k = match taken? {
            Ended::Moved(k) => k,
            Ended::Silent(fault) if fault.kind == FaultKind::Timeout => {
                return Err(Fault::new(
                    FaultKind::Timeout,
                    clock.over("no move printed", turn.limit, cpu),
                ));
            }
            Ended::Silent(fault) => {
                return Err(Fault::new(
                    fault.kind,
                    format!("{} without printing a move", fault.detail),
                ));
            }
        };
        if !(0..pits as i64).contains(&k) {
            return Err(Fault::new(
                FaultKind::IllegalMove,
                format!(
                    "`{k}`: the board has {pits} pits, numbered 0 to {} (per-move programs \
                     print 0-indexed pits)",
                    pits - 1
                ),
            ));
        }
        Ok(Answer::of(Move::Pit(k as u8 + 1), think))
    }
}

/// How a per-move program's turn ended.
enum Ended {
    /// Its last pit number (0-indexed, unchecked).
    Moved(i64),
    /// It printed no move: the fault that ended the wait (its exit, or the time limit).
    Silent(Fault),
}

/// The most a per-move program may print for one move: a move is a few bytes, a program that
/// prints on as it thinks (kgpc's convention) a few per iteration. More is a `garbage` fault,
/// not read on.
pub const MAX_MOVE_OUTPUT: u64 = 1 << 20;

/// Reads pit numbers until the program's output ends, or until the move time once it has
/// printed one (a program still silent then gets until the hard limit for its first), both on
/// the move's clock. The clock is looked at after every line once its last look is due, so
/// that a program that keeps printing is still judged at its move time on what it printed by
/// then; its exit ends the reading (a child it left is killed with its process group). A word
/// that is not a number, broken output, or more than [`MAX_MOVE_OUTPUT`] is a fault.
fn last_move(process: &mut BotProcess, clock: &MoveClock, turn: &Turn) -> Result<Ended, Fault> {
    let mut last: Option<i64> = None;
    // The limit the next look at the clock was set for, and when it is due.
    let mut due: Option<(Duration, Instant)> = None;
    // The bytes read when the exit was last looked at: once per read, not once per line.
    let mut looked_at: Option<u64> = None;
    loop {
        let limit = if last.is_some() {
            turn.soft_limit()
        } else {
            turn.limit
        };
        let wake = match due {
            Some((l, wake)) if l == limit && Instant::now() < wake => wake,
            _ => {
                if clock.spent(limit, || process.cpu_time()) {
                    let silent =
                        || Ended::Silent(Fault::new(FaultKind::Timeout, "no move in time"));
                    return Ok(last.map_or_else(silent, Ended::Moved));
                }
                let wake = clock.wake(limit, || process.cpu_time());
                due = Some((limit, wake));
                wake
            }
        };
        if process.bytes_read() > MAX_MOVE_OUTPUT {
            return Err(Fault::new(
                FaultKind::Garbage,
                format!(
                    "printed more than {} KiB for one move (a move is a pit number)",
                    MAX_MOVE_OUTPUT >> 10
                ),
            ));
        }
        if looked_at != Some(process.bytes_read()) {
            looked_at = Some(process.bytes_read());
            process.check_exit();
        }
        let line = match process.read_line(wake) {
            Ok(line) => line,
            // The clock is looked at again above.
            Err(f) if f.kind == FaultKind::Timeout => continue,
            Err(f) if f.kind == FaultKind::Crash => {
                return Ok(last.map_or(Ended::Silent(f), Ended::Moved));
            }
            Err(f) => return Err(f),
        };
        for word in line.split_whitespace() {
            let k = word.parse::<i64>().map_err(|_| {
                Fault::new(
                    FaultKind::Malformed,
                    format!("`{word}` is not a pit number (print 0-indexed pits only)"),
                )
            })?;
            last = Some(k);
        }
    }
}

/// The board as a per-move program reads it, with `mover` as South.
fn board_of(pos: &Position, mover: Side) -> String {
    let stores = [pos.store(mover), pos.store(mover.other())];
    board_text(stores, pos.pits(mover), pos.pits(mover.other()))
}

/// kgpc's board (its README): the board size; South's and North's stores; South's pits; North's
/// pits; one group a line, each row in its own sowing order (index 0 is the farthest from the
/// row's store).
fn board_text(stores: [u32; 2], south: &[u8], north: &[u8]) -> String {
    let row = |pits: &[u8]| {
        let words: Vec<String> = pits.iter().map(u8::to_string).collect();
        words.join(" ")
    };
    format!(
        "{}\n{} {}\n{}\n{}\n",
        south.len(),
        stores[0],
        stores[1],
        row(south),
        row(north)
    )
}

/// Whether the program can be found: a path must name a file (relative to `dir` when given),
/// a bare name must be on `PATH`. A shell command is the shell's to find.
fn findable(program: &Program, dir: Option<&Path>) -> Result<(), String> {
    let Program::Exec { program, .. } = program else {
        return Ok(());
    };
    let found = if program.components().count() > 1 || program.is_absolute() {
        dir.map_or(program.to_path_buf(), |d| d.join(program))
            .is_file()
    } else {
        std::env::var_os("PATH")
            .is_some_and(|paths| std::env::split_paths(&paths).any(|p| p.join(program).is_file()))
    };
    if found {
        Ok(())
    } else {
        Err(format!(
            "cannot start `{}`: no such program",
            program.display()
        ))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// kgpc's README example, verbatim: three pits a side, South's stores 0, North's 1, South's
    /// pits 2 4 5, North's 6 7 8.
    #[test]
    fn the_board_is_kgpc_s() {
        assert_eq!(
            board_text([0, 1], &[2, 4, 5], &[6, 7, 8]),
            "3\n0 1\n2 4 5\n6 7 8\n"
        );
        // The mover is South: shown to North, North's store and row come first.
        let r: Ruleset = "kalah:pits=3,seeds=4".parse().unwrap();
        let pos = Position::from_state(r, "n/1.2.3/4.2.0/10.2/5").unwrap();
        assert_eq!(board_of(&pos, Side::North), "3\n2 10\n4 2 0\n1 2 3\n");
    }

    #[test]
    fn a_program_must_exist_before_play() {
        let exec = |p: &str| Program::Exec {
            program: p.into(),
            args: Vec::new(),
        };
        assert_eq!(findable(&exec("sh"), None), Ok(()));
        assert_eq!(findable(&exec("/bin/sh"), None), Ok(()));
        assert_eq!(findable(&exec("bin/sh"), Some(Path::new("/"))), Ok(()));
        let missing = findable(&exec("./no-such-agent"), None).unwrap_err();
        assert_eq!(missing, "cannot start `./no-such-agent`: no such program");
        assert!(findable(&exec("no-such-agent-anywhere"), None).is_err());
        let shell = Program::Shell {
            command: "anything at all".into(),
        };
        assert_eq!(findable(&shell, None), Ok(()));
    }
}
