//! Messages from the arena to a bot ([`ToBot`]): parsed by bots, written by the arena.

use std::fmt;
use std::str::FromStr;

use super::{
    free_text, name_until, number, set_once, strip_eol, unexpected, OneLine, ParseError,
    ParseErrorKind, Text, Tokens,
};
use mancala_rules::Move;

/// A message from the arena to a bot: one line of `docs/protocol.md`.
///
/// # Format
///
/// | line | value |
/// |------|-------|
/// | `mancala` | [`ToBot::Mancala`]: the handshake opener; answer `id`/`option` lines, then `mancalaok` |
/// | `setoption name <name...> [value <value...>]` | [`ToBot::SetOption`]; no `value` for a button |
/// | `isready` | [`ToBot::IsReady`]: answer `readyok` |
/// | `newgame <ruleset> [seed <u64>]` | [`ToBot::NewGame`] |
/// | `position startpos [moves <move>...]` | [`ToBot::Position`] from the ruleset's start |
/// | `position <state> [moves <move>...]` | [`ToBot::Position`] from a state string |
/// | `go [movetime <ms>] [time <ms>] [inc <ms>] [depth <n>] [nodes <n>] [infinite]` | [`ToBot::Go`] |
/// | `stop` | [`ToBot::Stop`]: answer `bestmove` now |
/// | `quit` | [`ToBot::Quit`]: exit |
/// | anything else | [`ToBot::Unknown`]: ignore it |
///
/// - `setoption`: the name is the text between `name` and the first `value` token (so a name
///   cannot contain the word `value`); the value is the rest of the line, `<empty>` for `""`.
/// - `newgame`: `<ruleset>` is one token, `NAME[:key=value,...]` (e.g. `kalah` or
///   `kalah:pits=6,seeds=5,empty_capture=true`), checked by the rules module, not here. It cannot be
///   the word `seed`.
/// - `position`: `<state>` is one token (not `startpos` or `moves`); `moves` may be followed by
///   no move at all. The writer leaves `moves` out when there are none.
/// - `go`: keywords in any order, each at most once; an unknown keyword is an error. A plain `go`
///   gives no limit: the bot decides how long to think (see [`GoLimits`]).
/// - No-argument commands (`mancala`, `isready`, `stop`, `quit`) with extra tokens are errors.
/// - The empty line is `Unknown("")`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum ToBot {
    /// `mancala`: start of the handshake.
    Mancala,
    /// `setoption name <name> [value <value>]`. `value` is `None` for a button option.
    SetOption { name: String, value: Option<String> },
    /// `isready`.
    IsReady,
    /// `newgame <ruleset> [seed <u64>]`: a new game starts; `seed` is for the bot's own RNG.
    NewGame { ruleset: String, seed: Option<u64> },
    /// `position (startpos | <state>) [moves ...]`: the whole game so far.
    Position {
        start: PositionStart,
        moves: Vec<Move>,
    },
    /// `go ...`: choose a move for the side to move.
    Go(GoLimits),
    /// `stop`: answer `bestmove` at once.
    Stop,
    /// `quit`: exit.
    Quit,
    /// A line whose first token is not a command of this direction (kept as received, minus the
    /// line end). The protocol says to ignore it.
    Unknown(String),
}

/// Where a `position` message starts.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum PositionStart {
    /// `startpos`: the ruleset's start position, South to move.
    Startpos,
    /// A state string (one token, no whitespace) in the rules module's notation
    /// (`docs/rules.md`).
    State(String),
}

/// The limits of one `go`. All fields `None` (and `infinite` false) is a plain `go`: no limit
/// given, the bot thinks as long as it sees fit (its own default strength).
///
/// # Format
///
/// `go [movetime <ms>] [time <ms>] [inc <ms>] [depth <plies>] [nodes <n>] [infinite]`, in any
/// order, each at most once. The writer uses the order above.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct GoLimits {
    /// `movetime <ms>`: the budget for this sow, in milliseconds.
    pub movetime: Option<u64>,
    /// `time <ms>`: the mover's remaining game clock, in milliseconds.
    pub time: Option<u64>,
    /// `inc <ms>`: added to the mover's clock after each of its sows, in milliseconds.
    pub inc: Option<u64>,
    /// `depth <plies>`: search at most this deep (sows).
    pub depth: Option<u32>,
    /// `nodes <n>`: search at most about this many nodes.
    pub nodes: Option<u64>,
    /// `infinite`: think until `stop`.
    pub infinite: bool,
}

impl ToBot {
    /// Parses one line (with or without its line end). See the type's `# Format`.
    pub fn parse(line: &str) -> Result<Self, ParseError> {
        let line = strip_eol(line);
        let t = Tokens::new(line);
        let Some(cmd) = t.text(0) else {
            return Ok(ToBot::Unknown(line.to_owned()));
        };
        let parsed = match cmd {
            "mancala" => no_args("mancala", &t).map(|()| ToBot::Mancala),
            "isready" => no_args("isready", &t).map(|()| ToBot::IsReady),
            "stop" => no_args("stop", &t).map(|()| ToBot::Stop),
            "quit" => no_args("quit", &t).map(|()| ToBot::Quit),
            "setoption" => parse_setoption(&t),
            "newgame" => parse_newgame(&t),
            "position" => parse_position(&t),
            "go" => parse_go(&t).map(ToBot::Go),
            _ => return Ok(ToBot::Unknown(line.to_owned())),
        };
        parsed.map_err(|kind| ParseError::new(kind, line))
    }
}

fn no_args(command: &'static str, t: &Tokens<'_>) -> Result<(), ParseErrorKind> {
    match t.text(1) {
        None => Ok(()),
        Some(tok) => Err(unexpected(command, tok)),
    }
}

fn parse_setoption(t: &Tokens<'_>) -> Result<ToBot, ParseErrorKind> {
    const CMD: &str = "setoption";
    let (name, value_at) = name_until(t, CMD, "value")?;
    let value = (value_at < t.len()).then(|| free_text(t.span(value_at + 1, t.len())));
    Ok(ToBot::SetOption {
        name: name.to_owned(),
        value,
    })
}

fn parse_newgame(t: &Tokens<'_>) -> Result<ToBot, ParseErrorKind> {
    const CMD: &str = "newgame";
    let ruleset = match t.text(1) {
        Some(r) if r != "seed" => r.to_owned(),
        _ => {
            return Err(ParseErrorKind::Missing {
                command: CMD,
                expected: "a ruleset",
            })
        }
    };
    let seed = match t.text(2) {
        None => None,
        Some("seed") => Some(number("seed", "an integer 0..=2^64-1", t.text(3))?),
        Some(tok) => return Err(unexpected(CMD, tok)),
    };
    if let Some(tok) = t.text(4) {
        return Err(unexpected(CMD, tok));
    }
    Ok(ToBot::NewGame { ruleset, seed })
}

fn parse_position(t: &Tokens<'_>) -> Result<ToBot, ParseErrorKind> {
    const CMD: &str = "position";
    let start = match t.text(1) {
        Some("startpos") => PositionStart::Startpos,
        Some("moves") | None => {
            return Err(ParseErrorKind::Missing {
                command: CMD,
                expected: "`startpos` or a state",
            })
        }
        Some(state) => PositionStart::State(state.to_owned()),
    };
    let moves = match t.text(2) {
        None => Vec::new(),
        Some("moves") => parse_moves(t, 3)?,
        Some(tok) => return Err(unexpected(CMD, tok)),
    };
    Ok(ToBot::Position { start, moves })
}

/// Parses every token from `from` to the end of the line as a move.
fn parse_moves(t: &Tokens<'_>, from: usize) -> Result<Vec<Move>, ParseErrorKind> {
    (from..t.len())
        .map(|i| {
            t.text(i)
                .unwrap_or_default()
                .parse::<Move>()
                .map_err(ParseErrorKind::from)
        })
        .collect()
}

fn parse_go(t: &Tokens<'_>) -> Result<GoLimits, ParseErrorKind> {
    const MS: &str = "milliseconds (an integer 0..=2^64-1)";
    let mut limits = GoLimits::default();
    let mut i = 1;
    while let Some(kw) = t.text(i) {
        let arg = t.text(i + 1);
        match kw {
            "movetime" => set_once(
                &mut limits.movetime,
                number("movetime", MS, arg)?,
                "movetime",
            )?,
            "time" => set_once(&mut limits.time, number("time", MS, arg)?, "time")?,
            "inc" => set_once(&mut limits.inc, number("inc", MS, arg)?, "inc")?,
            "depth" => set_once(
                &mut limits.depth,
                number("depth", "an integer 0..=2^32-1", arg)?,
                "depth",
            )?,
            "nodes" => set_once(
                &mut limits.nodes,
                number("nodes", "an integer 0..=2^64-1", arg)?,
                "nodes",
            )?,
            "infinite" => {
                if limits.infinite {
                    return Err(ParseErrorKind::Duplicate {
                        keyword: "infinite",
                    });
                }
                limits.infinite = true;
                i += 1;
                continue;
            }
            other => return Err(unexpected("go", other)),
        }
        i += 2;
    }
    Ok(limits)
}

impl FromStr for ToBot {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        ToBot::parse(s)
    }
}

impl fmt::Display for ToBot {
    /// Writes the message as one line, without the line end.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ToBot::Mancala => f.write_str("mancala"),
            ToBot::SetOption { name, value } => {
                write!(f, "setoption name {}", Text(name))?;
                match value {
                    Some(v) => write!(f, " value {}", Text(v)),
                    None => Ok(()),
                }
            }
            ToBot::IsReady => f.write_str("isready"),
            ToBot::NewGame { ruleset, seed } => {
                write!(f, "newgame {}", OneLine(ruleset))?;
                match seed {
                    Some(s) => write!(f, " seed {s}"),
                    None => Ok(()),
                }
            }
            ToBot::Position { start, moves } => PositionLine { start, moves }.fmt(f),
            ToBot::Go(limits) => limits.fmt(f),
            ToBot::Stop => f.write_str("stop"),
            ToBot::Quit => f.write_str("quit"),
            ToBot::Unknown(line) => OneLine(line).fmt(f),
        }
    }
}

/// A `position` line borrowed from the caller's game, so that the arena sends the position
/// before every `go` without copying the game into a [`ToBot::Position`] first. The writer of
/// both.
pub struct PositionLine<'a> {
    pub start: &'a PositionStart,
    pub moves: &'a [Move],
}

impl PositionLine<'_> {
    /// Writes the line (without its line end). Generic over the writer, like
    /// [`Move::write_to`], so that writing into a `String` costs pushes, not formatter calls.
    pub fn write_to<W: fmt::Write>(&self, w: &mut W) -> fmt::Result {
        w.write_str("position ")?;
        match self.start {
            PositionStart::Startpos => w.write_str("startpos")?,
            PositionStart::State(s) => write!(w, "{}", OneLine(s))?,
        }
        if !self.moves.is_empty() {
            w.write_str(" moves")?;
            for m in self.moves {
                w.write_char(' ')?;
                m.write_to(w)?;
            }
        }
        Ok(())
    }
}

impl fmt::Display for PositionLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

impl fmt::Display for GoLimits {
    /// Writes the whole `go ...` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("go")?;
        let fields = [
            ("movetime", self.movetime),
            ("time", self.time),
            ("inc", self.inc),
            ("depth", self.depth.map(u64::from)),
            ("nodes", self.nodes),
        ];
        for (kw, v) in fields {
            if let Some(v) = v {
                write!(f, " {kw} {v}")?;
            }
        }
        if self.infinite {
            f.write_str(" infinite")?;
        }
        Ok(())
    }
}
