//! Messages from a bot to the arena ([`FromBot`]): written by bots, parsed by the arena.

use std::fmt;
use std::str::FromStr;

use super::{
    free_text, name_until, number, set_once, shorten, strip_eol, unexpected, OneLine, ParseError,
    ParseErrorKind, Text, Tokens,
};
use mancala_rules::Move;

/// A message from a bot to the arena: one line of `docs/protocol.md`.
///
/// # Format
///
/// | line | value |
/// |------|-------|
/// | `id name <text...>` / `id author <text...>` | [`FromBot::Id`] (handshake) |
/// | `option name <name...> type <type> ...` | [`FromBot::Option`] (handshake), see [`OptionDecl`] |
/// | `mancalaok` | [`FromBot::MancalaOk`]: end of the handshake |
/// | `readyok` | [`FromBot::ReadyOk`]: answer to `isready` |
/// | `info [depth <n>] [seldepth <n>] [score [exact] <n>] [nodes <n>] [nps <n>] [time <ms>] [pv <move>...] [string <text...>]` | [`FromBot::Info`], see [`Info`] |
/// | `bestmove <move>` | [`FromBot::BestMove`]: a pit number `1..=N` or `swap` |
/// | anything else | [`FromBot::Unknown`]: ignored |
///
/// - `id`: the key is `name` or `author` (anything else is an error); the value is the rest of the
///   line and must not be empty.
/// - `bestmove` takes exactly one move; `bestmove`, `bestmove x`, `bestmove 3 4` are errors.
/// - `mancalaok` and `readyok` with extra tokens are errors.
/// - The empty line is `Unknown("")`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum FromBot {
    /// `id name <text>` or `id author <text>`.
    Id { key: IdKey, value: String },
    /// `option name <name> type <type> ...`: an option the bot accepts with `setoption`.
    Option(OptionDecl),
    /// `mancalaok`: the handshake is over.
    MancalaOk,
    /// `readyok`.
    ReadyOk,
    /// `info ...`: search progress, optional.
    Info(Info),
    /// `bestmove <move>`.
    BestMove(Move),
    /// A line whose first token is not a command of this direction (kept as received, minus the
    /// line end). The arena ignores it.
    Unknown(String),
}

/// What an `id` line names.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum IdKey {
    /// `id name`: the bot's name and version, e.g. `minimax 1.2`.
    Name,
    /// `id author`.
    Author,
}

impl IdKey {
    /// The keyword as written.
    pub fn as_str(self) -> &'static str {
        match self {
            IdKey::Name => "name",
            IdKey::Author => "author",
        }
    }
}

/// An option a bot declares during the handshake.
///
/// # Format
///
/// ```text
/// option name <name...> type spin default <int> min <int> max <int>
/// option name <name...> type check default true|false
/// option name <name...> type string default <text...>
/// option name <name...> type combo default <text...> var <text...> [var <text...>]...
/// option name <name...> type button
/// ```
///
/// The name is the text between `name` and the first `type` token (so it cannot contain the word
/// `type`). After the type, the words `default`, `min`, `max` and `var` start fields in any order;
/// a text field runs to the next of those words (so it cannot contain them), and `<empty>` (or
/// nothing) is the empty string. A field the type does not have, a missing field, or a repeated
/// field other than `var` is an error, and so are a spin whose `default` is outside `min..=max` and
/// a combo whose `default` is not one of its `var`s. The integers are `i64`.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct OptionDecl {
    /// The option's name, as `setoption name` must repeat it.
    pub name: String,
    /// Its type and default.
    pub kind: OptionKind,
}

/// The type of an [`OptionDecl`], with its default and range.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum OptionKind {
    /// An integer in `min..=max`.
    Spin { default: i64, min: i64, max: i64 },
    /// A boolean, `true` or `false`.
    Check { default: bool },
    /// Free text (one line).
    String { default: String },
    /// One of `vars`.
    Combo { default: String, vars: Vec<String> },
    /// An action with no value (`setoption name <name>` without `value`).
    Button,
}

impl OptionKind {
    /// The word after `type`.
    pub fn type_name(&self) -> &'static str {
        match self {
            OptionKind::Spin { .. } => "spin",
            OptionKind::Check { .. } => "check",
            OptionKind::String { .. } => "string",
            OptionKind::Combo { .. } => "combo",
            OptionKind::Button => "button",
        }
    }
}

/// Why a user's value for an option does not fit what the bot declared.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum OptionValueError {
    /// No option of that name (ignoring case) was declared.
    #[error("the bot declares no option `{name}` (it declares: {declared})")]
    Undeclared {
        /// The name the user gave.
        name: String,
        /// The declared names, for the message.
        declared: String,
    },
    /// The value does not fit the declaration.
    #[error("option `{name}`: `{value}` is not {expected}")]
    Invalid {
        /// The declared name.
        name: String,
        /// The value the user gave.
        value: String,
        /// What would fit, in words.
        expected: String,
    },
}

impl OptionDecl {
    /// The declaration matching `name` the way UCI matches option names: ignoring ASCII case.
    pub fn find<'a>(
        declared: &'a [OptionDecl],
        name: &str,
    ) -> Result<&'a OptionDecl, OptionValueError> {
        declared
            .iter()
            .find(|d| d.name.eq_ignore_ascii_case(name))
            .ok_or_else(|| OptionValueError::Undeclared {
                name: name.to_string(),
                declared: if declared.is_empty() {
                    "none".to_string()
                } else {
                    declared
                        .iter()
                        .map(|d| d.describe())
                        .collect::<Vec<_>>()
                        .join("; ")
                },
            })
    }

    /// `value` as the bot must receive it, if it fits: a spin within `min..=max`, a check
    /// `true`/`false`, a combo one of its `var`s (ignoring case; sent with the declared
    /// spelling), any string; a button takes no value (`None`).
    pub fn accept(&self, value: &str) -> Result<Option<String>, OptionValueError> {
        let invalid = |expected: String| OptionValueError::Invalid {
            name: self.name.clone(),
            value: value.to_string(),
            expected,
        };
        match &self.kind {
            OptionKind::Spin { min, max, .. } => match value.trim().parse::<i64>() {
                Ok(v) if (*min..=*max).contains(&v) => Ok(Some(v.to_string())),
                _ => Err(invalid(format!("a whole number from {min} to {max}"))),
            },
            OptionKind::Check { .. } => match value.trim().to_ascii_lowercase().as_str() {
                "true" => Ok(Some("true".into())),
                "false" => Ok(Some("false".into())),
                _ => Err(invalid("true or false".into())),
            },
            OptionKind::Combo { vars, .. } => vars
                .iter()
                .find(|v| v.eq_ignore_ascii_case(value.trim()))
                .map(|v| Some(v.clone()))
                .ok_or_else(|| invalid(format!("one of {}", vars.join(", ")))),
            OptionKind::String { .. } => Ok(Some(value.to_string())),
            OptionKind::Button => Err(invalid("anything: a button takes no value".into())),
        }
    }

    /// `Level (combo: easy, normal, hard)`, for messages.
    pub fn describe(&self) -> String {
        let detail = match &self.kind {
            OptionKind::Spin { min, max, .. } => format!("spin {min}..{max}"),
            OptionKind::Check { .. } => "check".to_string(),
            OptionKind::String { .. } => "string".to_string(),
            OptionKind::Combo { vars, .. } => format!("combo: {}", vars.join(", ")),
            OptionKind::Button => "button".to_string(),
        };
        format!("{} ({detail})", self.name)
    }
}

/// A search score, always from the point of view of the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Score {
    /// `score <n>`: the expected final store difference (mover's store minus the opponent's), in
    /// seeds; a heuristic estimate.
    Seeds(i32),
    /// `score exact <n>`: a proven final store difference with best play from both sides.
    Exact(i32),
}

/// Search progress reported by `info`. Every field is optional.
///
/// # Format
///
/// `info` followed by any of these, in any order:
/// `depth <u32>`, `seldepth <u32>`, `score <i32>` / `score exact <i32>` (a `+` sign is
/// accepted), `nodes <u64>`, `nps <u64>`, `time <ms, u64>`, `pv <move>...` (as many tokens as
/// parse as moves), `string <text...>` (the rest of the line, may be empty).
///
/// Unknown tokens are skipped (so `hashfull 500` is ignored); a known keyword with a bad or
/// missing argument is an error; a repeated keyword overwrites the earlier one. The writer uses
/// the order above, with `string` last.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash)]
pub struct Info {
    /// Nominal search depth, in sows.
    pub depth: Option<u32>,
    /// Selective (maximum) depth reached.
    pub seldepth: Option<u32>,
    /// Score of the best line, from the mover's view.
    pub score: Option<Score>,
    /// Nodes searched so far.
    pub nodes: Option<u64>,
    /// Nodes per second.
    pub nps: Option<u64>,
    /// Milliseconds spent on this `go`.
    pub time: Option<u64>,
    /// Principal variation: the best line found, first move first (may be empty).
    pub pv: Vec<Move>,
    /// Free text for the log.
    pub string: Option<String>,
}

impl FromBot {
    /// Parses one line (with or without its line end). See the type's `# Format`.
    pub fn parse(line: &str) -> Result<Self, ParseError> {
        let line = strip_eol(line);
        let t = Tokens::new(line);
        let Some(cmd) = t.text(0) else {
            return Ok(FromBot::Unknown(line.to_owned()));
        };
        let parsed = match cmd {
            "id" => parse_id(&t),
            "option" => parse_option(&t).map(FromBot::Option),
            "mancalaok" => no_args("mancalaok", &t).map(|()| FromBot::MancalaOk),
            "readyok" => no_args("readyok", &t).map(|()| FromBot::ReadyOk),
            "info" => parse_info(&t).map(FromBot::Info),
            "bestmove" => parse_bestmove(&t),
            _ => return Ok(FromBot::Unknown(line.to_owned())),
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

fn parse_id(t: &Tokens<'_>) -> Result<FromBot, ParseErrorKind> {
    let key = match t.text(1) {
        Some("name") => IdKey::Name,
        Some("author") => IdKey::Author,
        Some(tok) => return Err(unexpected("id", tok)),
        None => {
            return Err(ParseErrorKind::Missing {
                command: "id",
                expected: "`name` or `author`",
            })
        }
    };
    let value = t.span(2, t.len());
    if value.is_empty() {
        return Err(ParseErrorKind::Missing {
            command: "id",
            expected: "a value",
        });
    }
    Ok(FromBot::Id {
        key,
        value: value.to_owned(),
    })
}

fn parse_bestmove(t: &Tokens<'_>) -> Result<FromBot, ParseErrorKind> {
    let Some(tok) = t.text(1) else {
        return Err(ParseErrorKind::Missing {
            command: "bestmove",
            expected: "a move",
        });
    };
    let mv = tok.parse::<Move>()?;
    if let Some(extra) = t.text(2) {
        return Err(unexpected("bestmove", extra));
    }
    Ok(FromBot::BestMove(mv))
}

fn is_option_field(s: &str) -> bool {
    matches!(s, "default" | "min" | "max" | "var")
}

fn parse_option(t: &Tokens<'_>) -> Result<OptionDecl, ParseErrorKind> {
    const CMD: &str = "option";
    let (name, type_at) = name_until(t, CMD, "type")?;
    let Some(type_name) = t.text(type_at + 1) else {
        return Err(ParseErrorKind::Missing {
            command: CMD,
            expected: "`type <type>`",
        });
    };

    // The fields after the type, as raw text.
    let mut default: Option<&str> = None;
    let mut min: Option<&str> = None;
    let mut max: Option<&str> = None;
    let mut vars: Vec<String> = Vec::new();
    let mut i = type_at + 2;
    while let Some(kw) = t.text(i) {
        let end = t.find(i + 1, is_option_field);
        let text = t.span(i + 1, end);
        match kw {
            "default" => set_once(&mut default, text, "default")?,
            "min" => set_once(&mut min, text, "min")?,
            "max" => set_once(&mut max, text, "max")?,
            "var" => vars.push(free_text(text)),
            other => return Err(unexpected(CMD, other)),
        }
        i = end;
    }

    let only = |allowed: &[&str]| -> Result<(), ParseErrorKind> {
        let given = [
            ("default", default.is_some()),
            ("min", min.is_some()),
            ("max", max.is_some()),
        ];
        for (kw, present) in given {
            if present && !allowed.contains(&kw) {
                return Err(unexpected(CMD, kw));
            }
        }
        if !vars.is_empty() && !allowed.contains(&"var") {
            return Err(unexpected(CMD, "var"));
        }
        Ok(())
    };
    let int = |kw: &'static str, v: Option<&str>| -> Result<i64, ParseErrorKind> {
        match v {
            None | Some("") => Err(ParseErrorKind::Missing {
                command: CMD,
                expected: kw_expect(kw),
            }),
            Some(s) => number(kw, "an integer (i64)", Some(s)),
        }
    };

    let kind = match type_name {
        "spin" => {
            only(&["default", "min", "max"])?;
            let (d, lo, hi) = (int("default", default)?, int("min", min)?, int("max", max)?);
            if lo > hi {
                return Err(ParseErrorKind::BadOption(
                    "spin `min` is greater than `max`",
                ));
            }
            if !(lo..=hi).contains(&d) {
                return Err(ParseErrorKind::BadOption(
                    "spin `default` is outside `min..=max`",
                ));
            }
            OptionKind::Spin {
                default: d,
                min: lo,
                max: hi,
            }
        }
        "check" => {
            only(&["default"])?;
            let d = match default {
                Some("true") => true,
                Some("false") => false,
                Some(_) => {
                    return Err(ParseErrorKind::BadOption(
                        "check `default` must be true or false",
                    ))
                }
                None => {
                    return Err(ParseErrorKind::Missing {
                        command: CMD,
                        expected: kw_expect("default"),
                    })
                }
            };
            OptionKind::Check { default: d }
        }
        "string" => {
            only(&["default"])?;
            let d = default.ok_or(ParseErrorKind::Missing {
                command: CMD,
                expected: kw_expect("default"),
            })?;
            OptionKind::String {
                default: free_text(d),
            }
        }
        "combo" => {
            only(&["default", "var"])?;
            let d = default.ok_or(ParseErrorKind::Missing {
                command: CMD,
                expected: kw_expect("default"),
            })?;
            let d = free_text(d);
            if vars.is_empty() {
                return Err(ParseErrorKind::Missing {
                    command: CMD,
                    expected: "`var <value>`",
                });
            }
            if !vars.contains(&d) {
                return Err(ParseErrorKind::BadOption(
                    "combo `default` is not one of its `var`s",
                ));
            }
            OptionKind::Combo { default: d, vars }
        }
        "button" => {
            only(&[])?;
            OptionKind::Button
        }
        other => return Err(ParseErrorKind::UnknownOptionType(shorten(other))),
    };
    Ok(OptionDecl {
        name: name.to_owned(),
        kind,
    })
}

fn kw_expect(kw: &str) -> &'static str {
    match kw {
        "default" => "`default <value>`",
        "min" => "`min <int>`",
        _ => "`max <int>`",
    }
}

fn parse_info(t: &Tokens<'_>) -> Result<Info, ParseErrorKind> {
    let mut info = Info::default();
    let mut i = 1;
    while let Some(kw) = t.text(i) {
        let arg = t.text(i + 1);
        match kw {
            "depth" => info.depth = Some(number("depth", "an integer 0..=2^32-1", arg)?),
            "seldepth" => info.seldepth = Some(number("seldepth", "an integer 0..=2^32-1", arg)?),
            "nodes" => info.nodes = Some(number("nodes", "an integer 0..=2^64-1", arg)?),
            "nps" => info.nps = Some(number("nps", "an integer 0..=2^64-1", arg)?),
            "time" => info.time = Some(number("time", "milliseconds (0..=2^64-1)", arg)?),
            "score" => {
                const SCORE: &str = "a seed count (i32), optionally after `exact`";
                if arg == Some("exact") {
                    info.score = Some(Score::Exact(number("score", SCORE, t.text(i + 2))?));
                    i += 3;
                } else {
                    info.score = Some(Score::Seeds(number("score", SCORE, arg)?));
                    i += 2;
                }
                continue;
            }
            "pv" => {
                info.pv.clear();
                i += 1;
                while let Some(Ok(m)) = t.text(i).map(str::parse::<Move>) {
                    info.pv.push(m);
                    i += 1;
                }
                continue;
            }
            "string" => {
                info.string = Some(t.span(i + 1, t.len()).to_owned());
                break;
            }
            _ => {
                // Unknown token: skipped, as the protocol says.
                i += 1;
                continue;
            }
        }
        i += 2;
    }
    Ok(info)
}

impl FromStr for FromBot {
    type Err = ParseError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FromBot::parse(s)
    }
}

impl fmt::Display for FromBot {
    /// Writes the message as one line, without the line end.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FromBot::Id { key, value } => write!(f, "id {} {}", key.as_str(), OneLine(value)),
            FromBot::Option(decl) => decl.fmt(f),
            FromBot::MancalaOk => f.write_str("mancalaok"),
            FromBot::ReadyOk => f.write_str("readyok"),
            FromBot::Info(info) => info.fmt(f),
            FromBot::BestMove(m) => write!(f, "bestmove {m}"),
            FromBot::Unknown(line) => OneLine(line).fmt(f),
        }
    }
}

impl fmt::Display for OptionDecl {
    /// Writes the whole `option ...` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "option name {} type {}",
            Text(&self.name),
            self.kind.type_name()
        )?;
        match &self.kind {
            OptionKind::Spin { default, min, max } => {
                write!(f, " default {default} min {min} max {max}")
            }
            OptionKind::Check { default } => write!(f, " default {default}"),
            OptionKind::String { default } => write!(f, " default {}", Text(default)),
            OptionKind::Combo { default, vars } => {
                write!(f, " default {}", Text(default))?;
                for v in vars {
                    write!(f, " var {}", Text(v))?;
                }
                Ok(())
            }
            OptionKind::Button => Ok(()),
        }
    }
}

impl fmt::Display for Info {
    /// Writes the whole `info ...` line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("info")?;
        if let Some(d) = self.depth {
            write!(f, " depth {d}")?;
        }
        if let Some(d) = self.seldepth {
            write!(f, " seldepth {d}")?;
        }
        match self.score {
            Some(Score::Seeds(s)) => write!(f, " score {s}")?,
            Some(Score::Exact(s)) => write!(f, " score exact {s}")?,
            None => {}
        }
        if let Some(n) = self.nodes {
            write!(f, " nodes {n}")?;
        }
        if let Some(n) = self.nps {
            write!(f, " nps {n}")?;
        }
        if let Some(ms) = self.time {
            write!(f, " time {ms}")?;
        }
        if !self.pv.is_empty() {
            f.write_str(" pv")?;
            for m in &self.pv {
                write!(f, " {m}")?;
            }
        }
        if let Some(s) = &self.string {
            f.write_str(" string")?;
            if !s.is_empty() {
                write!(f, " {}", OneLine(s))?;
            }
        }
        Ok(())
    }
}
