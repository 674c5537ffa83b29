//! The line protocol between the arena and the bots: typed messages, their parser and writer, and
//! a bounded line splitter for untrusted output.
//!
//! The contract is `docs/protocol.md`; this module implements it and is shared by the arena and by
//! the bundled bots. It is pure: no I/O, no async. The process code (`engine/`) feeds bytes read
//! from a bot into a [`LineBuffer`], parses each line with [`FromBot::parse`] and writes
//! [`ToBot`] values with their `Display` impl followed by `"\n"`; a bot does the opposite.
//!
//! ```
//! use mancala_protocol::{FromBot, GoLimits, ToBot};
//! use mancala_rules::Move;
//!
//! let go = ToBot::Go(GoLimits { movetime: Some(1000), ..GoLimits::default() });
//! assert_eq!(go.to_string(), "go movetime 1000");
//! assert_eq!(FromBot::parse("bestmove 3\r").unwrap(), FromBot::BestMove(Move::Pit(3)));
//! assert_eq!(FromBot::parse("hello there").unwrap(), FromBot::Unknown("hello there".into()));
//! assert!(FromBot::parse("bestmove").is_err());
//! ```
//!
//! # Grammar shared by both directions
//!
//! - A line is split into tokens at runs of spaces and tabs; leading and trailing spaces/tabs are
//!   ignored, and one trailing `"\n"`, `"\r"` or `"\r\n"` is stripped.
//! - Commands and keywords are lower case and case-sensitive (`Bestmove 3` is an unknown line).
//! - A line whose first token is not a command of its direction (including an empty line) parses
//!   to `Unknown(line)`: the protocol says to ignore it. A known command with malformed arguments is
//!   a [`ParseError`].
//! - Free-text fields (option names and values, `id` values, `info string`) are the raw text
//!   between their keywords, trimmed of surrounding spaces/tabs, inner spacing kept. The writer
//!   replaces any CR or LF inside a field by a space, so a message is always exactly one line.
//! - In option values (`default`, `var`) and `setoption` values, `<empty>` stands for the empty string
//!   (UCI's convention), and is what the writer emits for one. `id` values and `info string` text
//!   are taken verbatim.

#![warn(clippy::unwrap_used, clippy::expect_used)]

mod from_bot;
mod line;
mod to_bot;

#[cfg(test)]
mod tests;

use std::fmt;

pub use from_bot::{FromBot, IdKey, Info, OptionDecl, OptionKind, OptionValueError, Score};
pub use line::{LineBuffer, LineError, MAX_LINE_LEN};
pub use to_bot::{GoLimits, PositionLine, PositionStart, ToBot};

use mancala_rules::ParseMoveError;

/// How many characters of an offending line or token an error keeps.
const MAX_ERROR_TEXT: usize = 120;

/// The word that stands for an empty free-text value.
const EMPTY_WORD: &str = "<empty>";

/// A line whose command is known but whose arguments do not follow the grammar.
///
/// Carries what went wrong and the line itself (shortened to a sane length), so logs say both.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("{kind} in `{line}`")]
pub struct ParseError {
    /// What went wrong.
    pub kind: ParseErrorKind,
    /// The offending line, cut to at most 120 characters (a `…` marks a cut).
    pub line: String,
}

impl ParseError {
    fn new(kind: ParseErrorKind, line: &str) -> Self {
        ParseError {
            kind,
            line: shorten(line),
        }
    }
}

/// The ways a known command can be malformed.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ParseErrorKind {
    /// A required argument or keyword is missing (`bestmove`, `setoption value 3`).
    #[error("`{command}` is missing {expected}")]
    Missing {
        command: &'static str,
        expected: &'static str,
    },
    /// A token that the grammar does not allow at this place.
    #[error("unexpected `{token}` after `{command}`")]
    Unexpected {
        command: &'static str,
        token: String,
    },
    /// A keyword given twice (`go depth 3 depth 4`).
    #[error("`{keyword}` given twice")]
    Duplicate { keyword: &'static str },
    /// A keyword's argument is not a number of the expected kind, or is out of range.
    #[error("`{keyword}` needs {expected}, got `{token}`")]
    BadNumber {
        keyword: &'static str,
        expected: &'static str,
        token: String,
    },
    /// A move that is neither a pit number `1..=255` nor `swap`.
    #[error(transparent)]
    BadMove(#[from] ParseMoveError),
    /// An option declaration whose `type` is not spin, check, string, combo or button.
    #[error("unknown option type `{0}`")]
    UnknownOptionType(String),
    /// An option declaration whose fields do not fit its type (a spin without `min`, a check
    /// default that is not `true`/`false`, a spin default outside `min..=max`, ...).
    #[error("bad option declaration: {0}")]
    BadOption(&'static str),
    /// A ruleset pattern of `id rulesets` that does not parse.
    #[error(transparent)]
    BadPattern(#[from] mancala_rules::PatternError),
}

/// Cuts `s` to [`MAX_ERROR_TEXT`] characters on a character boundary.
fn shorten(s: &str) -> String {
    match s.char_indices().nth(MAX_ERROR_TEXT) {
        None => s.to_owned(),
        Some((i, _)) => format!("{}…", &s[..i]),
    }
}

/// Strips one trailing LF, CR or CRLF.
fn strip_eol(line: &str) -> &str {
    let line = line.strip_suffix('\n').unwrap_or(line);
    line.strip_suffix('\r').unwrap_or(line)
}

fn is_sep(c: char) -> bool {
    c == ' ' || c == '\t'
}

/// A token of a line and its byte offsets, so free-text fields can be cut from the line verbatim.
#[derive(Clone, Copy, Debug)]
struct Token<'a> {
    text: &'a str,
    start: usize,
    end: usize,
}

/// A line split into [`Token`]s at runs of spaces and tabs.
struct Tokens<'a> {
    line: &'a str,
    toks: Vec<Token<'a>>,
}

impl<'a> Tokens<'a> {
    fn new(line: &'a str) -> Self {
        let mut toks = Vec::new();
        let mut start = None;
        for (i, c) in line.char_indices() {
            match (is_sep(c), start) {
                (true, Some(s)) => {
                    toks.push(Token {
                        text: &line[s..i],
                        start: s,
                        end: i,
                    });
                    start = None;
                }
                (false, None) => start = Some(i),
                _ => {}
            }
        }
        if let Some(s) = start {
            toks.push(Token {
                text: &line[s..],
                start: s,
                end: line.len(),
            });
        }
        Tokens { line, toks }
    }

    fn len(&self) -> usize {
        self.toks.len()
    }

    fn text(&self, i: usize) -> Option<&'a str> {
        self.toks.get(i).map(|t| t.text)
    }

    /// The raw text from token `from` up to (not including) token `to`, trimmed; `""` if empty.
    fn span(&self, from: usize, to: usize) -> &'a str {
        if from >= to || from >= self.toks.len() {
            return "";
        }
        let to = to.min(self.toks.len());
        &self.line[self.toks[from].start..self.toks[to - 1].end]
    }

    /// Index of the first token at or after `from` for which `pred` holds, else `len()`.
    fn find(&self, from: usize, pred: impl Fn(&str) -> bool) -> usize {
        (from..self.toks.len())
            .find(|&i| pred(self.toks[i].text))
            .unwrap_or(self.toks.len())
    }
}

/// A token the grammar does not allow after `command`.
fn unexpected(command: &'static str, token: &str) -> ParseErrorKind {
    ParseErrorKind::Unexpected {
        command,
        token: shorten(token),
    }
}

/// `<command> name <name...> <end> ...` (`option ... type`, `setoption ... value`): the name,
/// which runs from after `name` to the first `end` word, and the index of that word (`len()`
/// when there is none).
fn name_until<'a>(
    t: &Tokens<'a>,
    command: &'static str,
    end: &str,
) -> Result<(&'a str, usize), ParseErrorKind> {
    match t.text(1) {
        Some("name") => {}
        Some(tok) => return Err(unexpected(command, tok)),
        None => {
            return Err(ParseErrorKind::Missing {
                command,
                expected: "`name <name>`",
            })
        }
    }
    let end_at = t.find(2, |s| s == end);
    let name = t.span(2, end_at);
    if name.is_empty() {
        return Err(ParseErrorKind::Missing {
            command,
            expected: "an option name",
        });
    }
    Ok((name, end_at))
}

/// Reads a free-text field: `<empty>` means the empty string.
fn free_text(raw: &str) -> String {
    if raw == EMPTY_WORD {
        String::new()
    } else {
        raw.to_owned()
    }
}

/// Writes a free-text field on one line: CR and LF become spaces, an empty value is `<empty>`.
struct Text<'a>(&'a str);

impl fmt::Display for Text<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return f.write_str(EMPTY_WORD);
        }
        OneLine(self.0).fmt(f)
    }
}

/// Writes a string with CR and LF replaced by spaces (a message is one line, whatever it holds).
struct OneLine<'a>(&'a str);

impl fmt::Display for OneLine<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut rest = self.0;
        while let Some(i) = rest.find(['\r', '\n']) {
            f.write_str(&rest[..i])?;
            f.write_str(" ")?;
            rest = &rest[i + 1..];
        }
        f.write_str(rest)
    }
}

/// Parses the number after `keyword`.
fn number<T: std::str::FromStr>(
    keyword: &'static str,
    expected: &'static str,
    token: Option<&str>,
) -> Result<T, ParseErrorKind> {
    let token = token.ok_or(ParseErrorKind::Missing {
        command: keyword,
        expected,
    })?;
    token.parse().map_err(|_| ParseErrorKind::BadNumber {
        keyword,
        expected,
        token: shorten(token),
    })
}

/// Sets `slot` once, or reports a duplicate `keyword`.
fn set_once<T>(
    slot: &mut Option<T>,
    value: T,
    keyword: &'static str,
) -> Result<(), ParseErrorKind> {
    if slot.is_some() {
        return Err(ParseErrorKind::Duplicate { keyword });
    }
    *slot = Some(value);
    Ok(())
}
