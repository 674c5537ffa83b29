//! The protocol loop every bundled bot runs: the search is a [`Bot`], this module does the
//! talking (docs/protocol.md).
//!
//! One thread does everything: between searches it waits in `read` on stdin, and while it
//! searches, [`Search::stopped`] looks at stdin (a `poll` with no wait, at most once a
//! millisecond) for a `stop`, or a `quit` after a `go` without a clock limit, so a search in
//! progress can end at once. Lines read during a search are handled after it, in order. There is
//! no reader thread: an answer costs the bot one read and one write, not a hand-off between
//! threads. The whole game is resent before every `go`, so the loop keeps no game state beyond
//! the current ruleset and seed.

use std::cell::{Cell, RefCell};
use std::collections::VecDeque;
use std::io::{Read, Write};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use mancala_protocol::{
    FromBot, GoLimits, IdKey, Info, LineBuffer, OptionDecl, PositionStart, ToBot,
};
use mancala_rules::{Move, Position, Ruleset};

/// A search algorithm behind the protocol.
pub trait Bot {
    /// `id name` value.
    fn name(&self) -> String;
    /// Options declared in the handshake.
    fn options(&self) -> Vec<OptionDecl> {
        Vec::new()
    }
    /// `setoption`; an error is reported as `info string` and otherwise ignored.
    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let _ = value;
        Err(format!("unknown option `{name}`"))
    }
    /// `isready`: load what the bot needs once per process (books, tables) before it answers
    /// `readyok`, so that `newgame` stays quick (docs/protocol.md). Called at every `isready`;
    /// what is loaded stays loaded.
    fn ready(&mut self) {}
    /// A new game begins: reseed, clear tables.
    fn new_game(&mut self, ruleset: Ruleset, seed: u64);
    /// Chooses a move for the side to move in `pos` (never called on a finished game).
    fn think(&mut self, pos: &Position, search: &mut Search<'_>) -> Move;
}

/// What a [`Bot`] gets while thinking: the limits, the clock, the stop flag, a way to report.
pub struct Search<'a> {
    pub limits: GoLimits,
    pub started: Instant,
    /// The number of the last `go` that a `stop` or `quit` ended; this search is `go` number
    /// `go_number`. (Tests and benchmarks stop a search by storing 1 here.)
    stop: &'a AtomicU64,
    go_number: u64,
    out: &'a mut dyn Write,
    /// stdin, when searching inside the protocol loop, and when to look at it next.
    input: Option<&'a RefCell<Input>>,
    next_look: Cell<Instant>,
}

impl<'a> Search<'a> {
    /// A search context outside the protocol loop (tests, benchmarks): [`Search::stopped`]
    /// becomes true once `stop` holds 1; `out` receives the `info` lines.
    pub fn new(limits: GoLimits, stop: &'a AtomicU64, out: &'a mut dyn Write) -> Search<'a> {
        Search {
            limits,
            started: Instant::now(),
            stop,
            go_number: 1,
            out,
            input: None,
            next_look: Cell::new(Instant::now()),
        }
    }

    /// True once `stop` or `quit` arrived: answer now with the best move so far. Reads stdin
    /// without waiting at most once a millisecond; searches call this every few hundred nodes.
    #[inline]
    pub fn stopped(&self) -> bool {
        if self.stop.load(Ordering::Relaxed) == self.go_number {
            return true;
        }
        let Some(input) = self.input else {
            return false;
        };
        let now = Instant::now();
        if now < self.next_look.get() {
            return false;
        }
        self.next_look.set(now + LOOK_EVERY);
        let stop = input.borrow_mut().look_for_stop();
        if stop {
            self.stop.store(self.go_number, Ordering::Relaxed);
        }
        stop
    }

    /// Sends an `info` line.
    pub fn info(&mut self, info: &Info) {
        let _ = writeln!(self.out, "{}", FromBot::Info(info.clone()));
        let _ = self.out.flush();
    }

    /// The time this move may use, from `movetime` or the clock (1/20 of the remainder plus
    /// most of the increment, never more than half of what is left: the increment comes only
    /// after the move), less a safety margin for the pipe. `None` when no time limit.
    pub fn time_budget(&self) -> Option<Duration> {
        let from_clock = self
            .limits
            .time
            .map(|t| (t / 20 + self.limits.inc.unwrap_or(0) * 3 / 4).min(t / 2));
        let ms = match (self.limits.movetime, from_clock) {
            (Some(m), Some(c)) => m.min(c),
            (Some(m), None) => m,
            (None, Some(c)) => c,
            (None, None) => return None,
        };
        // Leave room for process overhead: 10% and at least 5 ms, never below 1 ms.
        let margin = (ms / 10).max(5);
        Some(Duration::from_millis(ms.saturating_sub(margin).max(1)))
    }

    /// True when the budget is spent.
    pub fn out_of_time(&self, budget: Option<Duration>) -> bool {
        budget.is_some_and(|b| self.started.elapsed() >= b)
    }
}

/// How often a search looks at stdin for `stop`: the longest a `stop` waits to be seen.
const LOOK_EVERY: Duration = Duration::from_millis(1);

/// stdin as messages, read by the thread that searches.
struct Input {
    lines: LineBuffer,
    /// Messages read but not handled yet, in order.
    pending: VecDeque<ToBot>,
    /// stdin ended (end of input is a `quit`).
    ended: bool,
    /// Whether the `go` being searched had a clock limit: a `quit` read during it lets the
    /// search run out its (short) budget, so `go movetime 100` + `quit` piped in at once still
    /// thinks for 100 ms. During any other search `quit` ends it at once.
    timed: bool,
}

impl Input {
    fn new() -> Input {
        Input {
            lines: LineBuffer::new(),
            pending: VecDeque::new(),
            ended: false,
            timed: false,
        }
    }

    /// The next message, waiting for it; `Quit` at end of input.
    fn next(&mut self) -> ToBot {
        loop {
            if let Some(msg) = self.pending.pop_front() {
                return msg;
            }
            if self.ended {
                return ToBot::Quit;
            }
            self.read();
        }
    }

    /// One `read` of stdin (it waits if nothing is there), its lines parsed into `pending`.
    fn read(&mut self) {
        let mut chunk = [0u8; 8192];
        match std::io::stdin().lock().read(&mut chunk) {
            Ok(n) if n > 0 => self.lines.push(&chunk[..n]),
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            _ => {
                self.ended = true;
                if let Some(line) = self.lines.finish() {
                    self.take(line);
                }
            }
        }
        while let Some(line) = self.lines.next_line() {
            self.take(line);
        }
    }

    fn take(&mut self, line: Result<String, mancala_protocol::LineError>) {
        let msg = match line {
            Ok(text) => ToBot::parse(&text)
                .unwrap_or_else(|err| ToBot::Unknown(format!("(malformed: {err})"))),
            Err(err) => ToBot::Unknown(format!("(unreadable: {err})")),
        };
        self.pending.push_back(msg);
    }

    /// Whether the search under way must stop: a `stop` (or, after an untimed `go`, a `quit` or
    /// the end of input) waiting, or arriving now, before the next `go`.
    fn look_for_stop(&mut self) -> bool {
        while !self.ended && stdin_ready() {
            self.read();
        }
        let mut next_go = false;
        let stop = self.pending.iter().any(|msg| {
            next_go |= matches!(msg, ToBot::Go(_));
            !next_go && (matches!(msg, ToBot::Stop) || (!self.timed && matches!(msg, ToBot::Quit)))
        });
        stop || (!next_go && self.ended && !self.timed)
    }
}

/// Whether stdin has something to read now (data or its end), without waiting.
#[cfg(unix)]
fn stdin_ready() -> bool {
    let mut fd = libc::pollfd {
        fd: libc::STDIN_FILENO,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: poll(2) on one pollfd we own, with a zero timeout.
    unsafe { libc::poll(&mut fd, 1, 0) > 0 }
}

/// Elsewhere stdin is not looked at during a search: `stop` is read when it ends.
#[cfg(not(unix))]
fn stdin_ready() -> bool {
    false
}

/// Runs the protocol on stdin/stdout until `quit` or end of input.
pub fn run(bot: &mut dyn Bot) {
    let stop = AtomicU64::new(0);
    let input = RefCell::new(Input::new());
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    let mut ruleset: Ruleset = Ruleset::default();
    let mut position: Result<Position, String> = Ok(Position::new(ruleset));
    let mut game = Game::default();
    let mut gos: u64 = 0;
    let say = |out: &mut dyn Write, msg: FromBot| {
        let _ = writeln!(out, "{msg}");
        let _ = out.flush();
    };
    loop {
        let msg = input.borrow_mut().next();
        match msg {
            ToBot::Mancala => {
                say(
                    &mut out,
                    FromBot::Id {
                        key: IdKey::Name,
                        value: bot.name(),
                    },
                );
                say(
                    &mut out,
                    FromBot::Id {
                        key: IdKey::Author,
                        value: "mancala-arena".into(),
                    },
                );
                for decl in bot.options() {
                    say(&mut out, FromBot::Option(decl));
                }
                say(&mut out, FromBot::MancalaOk);
            }
            ToBot::SetOption { name, value } => {
                if let Err(err) = bot.set_option(&name, value.as_deref().unwrap_or("")) {
                    say(&mut out, info_string(format!("setoption {name}: {err}")));
                }
            }
            ToBot::IsReady => {
                bot.ready();
                say(&mut out, FromBot::ReadyOk)
            }
            ToBot::NewGame {
                ruleset: text,
                seed,
            } => match text.parse::<Ruleset>() {
                Ok(r) => {
                    ruleset = r;
                    position = Ok(Position::new(ruleset));
                    bot.new_game(ruleset, seed.unwrap_or(0));
                }
                Err(err) => say(&mut out, info_string(format!("newgame: {err}"))),
            },
            ToBot::Position { start, moves } => position = game.position(ruleset, start, moves),
            ToBot::Go(limits) => {
                gos += 1;
                input.borrow_mut().timed = limits.movetime.is_some() || limits.time.is_some();
                let mv = match &position {
                    Ok(pos) if !pos.is_over() => {
                        let mut search = Search {
                            limits,
                            started: Instant::now(),
                            stop: &stop,
                            go_number: gos,
                            out: &mut out,
                            input: Some(&input),
                            next_look: Cell::new(Instant::now()),
                        };
                        bot.think(pos, &mut search)
                    }
                    Ok(_) => {
                        say(&mut out, info_string("go: the game is over".to_string()));
                        continue;
                    }
                    Err(err) => {
                        say(&mut out, info_string(format!("position: {err}")));
                        continue;
                    }
                };
                say(&mut out, FromBot::BestMove(mv));
            }
            ToBot::Stop | ToBot::Unknown(_) => {}
            ToBot::Quit => return,
        }
    }
}

fn info_string(text: String) -> FromBot {
    FromBot::Info(Info {
        string: Some(text),
        ..Info::default()
    })
}

/// The last position received, kept so that the next one, the same game a sow or two later,
/// costs only its new sows instead of a replay of the whole game.
#[derive(Default)]
struct Game {
    last: Option<(Ruleset, PositionStart, Vec<Move>, Position)>,
}

impl Game {
    fn position(
        &mut self,
        ruleset: Ruleset,
        start: PositionStart,
        moves: Vec<Move>,
    ) -> Result<Position, String> {
        let (mut pos, played) = match self.last.take() {
            Some((r, s, m, pos))
                if r == ruleset
                    && s == start
                    && moves.len() >= m.len()
                    && moves.starts_with(&m) =>
            {
                (pos, m.len())
            }
            _ => {
                let pos = match &start {
                    PositionStart::Startpos => Position::new(ruleset),
                    PositionStart::State(state) => {
                        Position::from_state(ruleset, state).map_err(|e| e.to_string())?
                    }
                };
                (pos, 0)
            }
        };
        for (i, &mv) in moves.iter().enumerate().skip(played) {
            pos.play(mv)
                .map_err(|e| format!("move {} (`{mv}`): {e}", i + 1))?;
        }
        self.last = Some((ruleset, start, moves, pos.clone()));
        Ok(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn budget(time: Option<u64>, inc: Option<u64>, movetime: Option<u64>) -> Option<u64> {
        let (stop, mut out) = (AtomicU64::new(0), Vec::new());
        let limits = GoLimits {
            time,
            inc,
            movetime,
            ..GoLimits::default()
        };
        Search::new(limits, &stop, &mut out)
            .time_budget()
            .map(|d| d.as_millis() as u64)
    }

    #[test]
    fn a_position_extending_the_last_one_equals_a_full_replay() {
        let ruleset = Ruleset::default();
        let mut played = Vec::new();
        let mut pos = Position::new(ruleset);
        while let Some(&mv) = pos.legal_moves().first() {
            played.push(mv);
            pos.play(mv).unwrap();
        }
        let mut game = Game::default();
        for n in [0, 1, 3, 3, 7, 2, played.len()] {
            let moves = played[..n].to_vec();
            let got = game.position(ruleset, PositionStart::Startpos, moves.clone());
            let mut want = Position::new(ruleset);
            for &mv in &moves {
                want.play(mv).unwrap();
            }
            assert_eq!(got.map(|p| p.to_string()), Ok(want.to_string()), "{n} sows");
        }
        // Another ruleset with the same moves is a new game, and a bad move is reported.
        let oware: Ruleset = "oware".parse().unwrap();
        let got = game.position(oware, PositionStart::Startpos, played[..2].to_vec());
        let mut want = Position::new(oware);
        want.play(played[0]).unwrap();
        want.play(played[1]).unwrap();
        assert_eq!(got.map(|p| p.to_string()), Ok(want.to_string()));
        let bad = game.position(ruleset, PositionStart::Startpos, vec![Move::Pit(9)]);
        assert!(bad.is_err_and(|e| e.starts_with("move 1")));
    }

    #[test]
    fn the_clock_budget_never_spends_the_increment_before_it_comes() {
        // 100 ms left, 1 s increment: the increment is credited after the move, so at most
        // half of the 100 ms (less the margin), not 755 ms (found by the JS kit's author).
        assert_eq!(budget(Some(100), Some(1000), None), Some(45));
        assert_eq!(budget(Some(60_000), Some(0), None), Some(2700));
        assert_eq!(budget(None, None, Some(200)), Some(180));
        assert_eq!(budget(None, None, None), None);
    }
}
