//! Reading games in the Portable Game Notation from any program (a site's export, another
//! tournament manager, the arena's own `games.pgn`) so that `arena rate FILE.pgn...` rates them.
//! Not a file of a run folder: the files are the user's and are only read.
//!
//! [`parse_pgn`] is pure (text in, games or an error with the file and line out); [`read_pgn`]
//! reads files and folders of `*.pgn`; [`PgnPool::new`] turns games into players and
//! [`RatedGame`]s with game pairs. Writing PGN is [`super::pgn`]'s.
//!
//! # What is read
//! - Tag pairs `[Name "value"]` (`\"` and `\\` escaped in the value), any number, unknown tags
//!   kept. `White`, `Black` and `Result` are required; `Event`, `Site`, `Date`, `Round` (the
//!   rest of the seven-tag roster), `WhiteElo`, `BlackElo` and `Variant` are read where present.
//!   An Elo tag of `-`, `?` or empty is absent; any other value must be a number.
//! - The movetext: move numbers (`12.`, `12...`), comments (`{...}`, possibly over several
//!   lines, and `;` to the end of the line), NAGs (`$3`), variations (`(...)`, nested) are
//!   skipped; every other token is kept as a string in [`PgnGame::moves`] (the arena writes pit
//!   numbers and `swap`; other programs SAN), unchecked. The movetext is optional.
//! - The game ends at its result token (`1-0`, `0-1`, `1/2-1/2`, `*`), at a tag pair after its
//!   movetext or repeating one of its tags, or at the end of the file. A result token that contradicts the `Result` tag is an error.
//! - Lines starting with `%` (PGN's escape mechanism), a UTF-8 byte-order mark, CRLF line ends.
//! - Encodings, decided line by line: a line that is valid UTF-8 is UTF-8; one that is not is
//!   read as Latin-1, as old PGN files are written. A file that mixes the two (an old export
//!   appended to by a UTF-8 tool), or that starts with a UTF-8 byte-order mark and then holds
//!   Latin-1, gets a warning naming the file and the lines; an error on a Latin-1 line says so.
//! - Bounds: a file is read a line at a time and each game handed on as it ends; a line longer
//!   than [`MAX_PGN_LINE`] or a game of more than [`MAX_PGN_MOVES`] moves is an error with its
//!   file and line, found before more of it is read. A rating keeps no moves at all.
//!
//! A `Result` of `*` (unfinished) is kept in the list; [`PgnPool::new`] skips such games and
//! counts them.
//!
//! # Game pairs
//! Two *consecutive* finished games between the same two players with colours swapped form a
//! game pair (as the arena, cutechess-cli's `-repeat` and the site's rematches write them): the
//! bootstrap resamples the pair as one unit and the sandwich errors sum its two games. Pairing is
//! greedy in input order (files in the order given, a folder's files by name): games 1 and 2,
//! then 3 and 4 if they qualify, and so on; a game whose neighbour does not qualify is a single.

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::rating::{Outcome, RatedGame};

/// One game as read: its tags, result and the movetext's tokens.
#[derive(Debug, Clone, PartialEq)]
pub struct PgnGame {
    /// The file it came from, as given.
    pub file: String,
    /// The line of its first tag (or first movetext token).
    pub line: usize,
    pub white: String,
    pub black: String,
    /// `None` for `*` (unfinished).
    pub result: Option<Outcome>,
    pub white_elo: Option<f64>,
    pub black_elo: Option<f64>,
    pub date: Option<String>,
    pub round: Option<String>,
    /// The `Variant` tag (the arena writes its ruleset there).
    pub variant: Option<String>,
    /// Every tag in file order, the ones above included.
    pub tags: Vec<(String, String)>,
    /// The line of each of `tags`.
    pub tag_lines: Vec<usize>,
    /// The movetext's move tokens (no move numbers, comments, NAGs, variations or result).
    pub moves: Vec<String>,
    /// The line of each of `moves`, for errors about a move.
    pub move_lines: Vec<usize>,
}

/// Malformed PGN: where, and what.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[error("{file}:{line}: {kind}")]
pub struct PgnError {
    pub file: String,
    /// 1-based line number.
    pub line: usize,
    pub kind: PgnErrorKind,
}

/// What was wrong.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
#[non_exhaustive]
pub enum PgnErrorKind {
    /// A `[` without a well-formed `Name "value"]` after it.
    #[error("malformed tag pair `{0}`: expected [Name \"value\"]")]
    BadTag(String),
    /// A tag value's closing quote or the `]` is missing.
    #[error("tag pair not closed: `{0}`")]
    UnclosedTag(String),
    /// `{` without `}`.
    #[error("comment opened here is never closed with `}}`")]
    UnclosedComment,
    /// `(` without `)`.
    #[error("variation opened here is never closed with `)`")]
    UnclosedVariation,
    /// `)` without `(`.
    #[error("`)` closes no variation")]
    UnopenedVariation,
    /// A required tag is missing.
    #[error("game without a {0} tag")]
    MissingTag(&'static str),
    /// A `Result` tag other than the four results.
    #[error("Result \"{0}\" is not 1-0, 0-1 or 1/2-1/2 (or * for an unfinished game)")]
    BadResult(String),
    /// The movetext's result token contradicts the `Result` tag.
    #[error("the movetext ends with {token} but the Result tag says {tag}")]
    ResultMismatch { tag: String, token: String },
    /// An Elo tag that is not a number.
    #[error("{tag} \"{value}\" is not a number")]
    BadElo { tag: &'static str, value: String },
    /// White and Black are the same player.
    #[error("{0} plays itself")]
    SelfPlay(String),
    /// A line longer than [`MAX_PGN_LINE`] (a PGN line is at most 255 characters by the
    /// standard; no export writes megabytes on one).
    #[error("a line longer than {} KiB: not PGN (a game's movetext is a few kilobytes)", .0 >> 10)]
    LineTooLong(usize),
    /// A game of more than [`MAX_PGN_MOVES`] moves.
    #[error("a game of more than {0} moves: not a game any ruleset plays")]
    TooManyMoves(usize),
}

/// The longest line read: a line that reaches this without ending is refused at once, so that
/// no line costs more memory than this.
pub const MAX_PGN_LINE: usize = 1 << 20;

/// The most moves a game's movetext may hold (games of the arena's rulesets end within a few
/// hundred sows).
pub const MAX_PGN_MOVES: usize = 100_000;

/// A game being read: tags and moves so far.
#[derive(Default)]
struct Pending {
    line: Option<usize>,
    tags: Vec<(String, String, usize)>,
    moves: Vec<String>,
    move_lines: Vec<usize>,
    /// The moves read, kept or not.
    move_count: usize,
    token: Option<(String, usize)>,
}

impl Pending {
    fn is_empty(&self) -> bool {
        self.line.is_none()
    }

    fn start(&mut self, line: usize) {
        self.line.get_or_insert(line);
    }

    fn finish(self, file: &str) -> Result<PgnGame, PgnError> {
        let first = self.line.unwrap_or(1);
        let err = |line: usize, kind: PgnErrorKind| PgnError {
            file: file.to_string(),
            line,
            kind,
        };
        let tag = |name: &str| {
            self.tags
                .iter()
                .rev()
                .find(|(n, _, _)| n == name)
                .map(|(_, v, l)| (v.clone(), *l))
        };
        let required = |name: &'static str| {
            tag(name).ok_or_else(|| err(first, PgnErrorKind::MissingTag(name)))
        };
        let (white, _) = required("White")?;
        let (black, black_line) = required("Black")?;
        let (result_text, result_line) = required("Result")?;
        let result = match result_text.trim() {
            "*" => None,
            r => Some(
                r.parse::<Outcome>()
                    .map_err(|_| err(result_line, PgnErrorKind::BadResult(result_text.clone())))?,
            ),
        };
        if let Some((token, line)) = &self.token {
            if token != result_text.trim() {
                return Err(err(
                    *line,
                    PgnErrorKind::ResultMismatch {
                        tag: result_text.trim().to_string(),
                        token: token.clone(),
                    },
                ));
            }
        }
        if white == black {
            return Err(err(black_line, PgnErrorKind::SelfPlay(white)));
        }
        let elo = |name: &'static str| -> Result<Option<f64>, PgnError> {
            match tag(name) {
                None => Ok(None),
                Some((v, line)) => match v.trim() {
                    "" | "-" | "?" => Ok(None),
                    t => t
                        .parse::<f64>()
                        .ok()
                        .filter(|x| x.is_finite())
                        .map(Some)
                        .ok_or_else(|| {
                            err(
                                line,
                                PgnErrorKind::BadElo {
                                    tag: name,
                                    value: v.clone(),
                                },
                            )
                        }),
                },
            }
        };
        Ok(PgnGame {
            file: file.to_string(),
            line: first,
            white_elo: elo("WhiteElo")?,
            black_elo: elo("BlackElo")?,
            date: tag("Date").map(|t| t.0),
            round: tag("Round").map(|t| t.0),
            variant: tag("Variant").map(|t| t.0),
            white,
            black,
            result,
            tag_lines: self.tags.iter().map(|t| t.2).collect(),
            tags: self.tags.into_iter().map(|(n, v, _)| (n, v)).collect(),
            moves: self.moves,
            move_lines: self.move_lines,
        })
    }
}

/// Parses a tag pair's inside (`Name "value"`, the text after `[`), returning the tag and the
/// rest of the line after `]`.
fn tag_pair<'a>(
    rest: &'a str,
    line: usize,
    file: &str,
) -> Result<(String, String, &'a str), PgnError> {
    let err = |kind| PgnError {
        file: file.to_string(),
        line,
        kind,
    };
    let shown = || format!("[{}", rest.trim_end());
    let s = rest.trim_start();
    let name_len = s
        .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '+' || c == '#' || c == '='))
        .unwrap_or(s.len());
    if name_len == 0 {
        return Err(err(PgnErrorKind::BadTag(shown())));
    }
    let name = s[..name_len].to_string();
    let s = s[name_len..].trim_start();
    let Some(s) = s.strip_prefix('"') else {
        return Err(err(if s.is_empty() {
            PgnErrorKind::UnclosedTag(shown())
        } else {
            PgnErrorKind::BadTag(shown())
        }));
    };
    let mut value = String::new();
    let mut chars = s.char_indices();
    let after = loop {
        match chars.next() {
            None => return Err(err(PgnErrorKind::UnclosedTag(shown()))),
            Some((_, '\\')) => match chars.next() {
                Some((_, c)) => value.push(c),
                None => return Err(err(PgnErrorKind::UnclosedTag(shown()))),
            },
            Some((i, '"')) => break &s[i + 1..],
            Some((_, c)) => value.push(c),
        }
    };
    let after = after.trim_start();
    match after.strip_prefix(']') {
        Some(rest) => Ok((name, value, rest)),
        None if after.is_empty() => Err(err(PgnErrorKind::UnclosedTag(shown()))),
        None => Err(err(PgnErrorKind::BadTag(shown()))),
    }
}

/// A movetext token that is a result.
fn is_result(token: &str) -> bool {
    matches!(token, "1-0" | "0-1" | "1/2-1/2" | "*")
}

/// Parses the games of one PGN text; `file` names it in errors.
///
/// ```
/// use mancala_arena::run_folder::pgn_in::parse_pgn;
/// let games = parse_pgn("[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. 3 4 {good} 1-0\n", "x.pgn").unwrap();
/// assert_eq!(games[0].moves, ["3", "4"]);
/// let err = parse_pgn("[White \"a\"]\n[Black \"b\"]\n[Result \"2-0\"]\n", "site.pgn").unwrap_err();
/// assert_eq!(err.to_string(), "site.pgn:3: Result \"2-0\" is not 1-0, 0-1 or 1/2-1/2 (or * for an unfinished game)");
/// ```
pub fn parse_pgn(text: &str, file: &str) -> Result<Vec<PgnGame>, PgnError> {
    let mut parser = PgnParser::new(file, true);
    let mut games = Vec::new();
    for (k, line) in text.lines().enumerate() {
        parser.line(line, k + 1)?;
        games.append(&mut parser.ready);
    }
    games.extend(parser.finish()?);
    Ok(games)
}

/// The PGN reader's state between lines (a game being read, a comment or variations open), so
/// that a file is read a line at a time and its games handed on as each ends: nothing but the
/// current line and game is held. With `keep_moves` off (a rating needs the tags and result
/// only) the moves are counted, not kept.
pub struct PgnParser {
    file: String,
    keep_moves: bool,
    game: Pending,
    /// Open comment `{` and variations `(`: the line each was opened on.
    comment: Option<usize>,
    variations: Vec<usize>,
    /// The games finished so far, for the caller to take.
    pub ready: Vec<PgnGame>,
}

impl PgnParser {
    pub fn new(file: &str, keep_moves: bool) -> PgnParser {
        PgnParser {
            file: file.to_string(),
            keep_moves,
            game: Pending::default(),
            comment: None,
            variations: Vec::new(),
            ready: Vec::new(),
        }
    }

    fn err(&self, line: usize, kind: PgnErrorKind) -> PgnError {
        PgnError {
            file: self.file.clone(),
            line,
            kind,
        }
    }

    /// The game read so far is complete: it goes to [`PgnParser::ready`].
    fn finish_game(&mut self) -> Result<(), PgnError> {
        let game = std::mem::take(&mut self.game).finish(&self.file)?;
        self.ready.push(game);
        Ok(())
    }

    /// Reads line `line_no` (its text without the line end; a byte-order mark at its start is
    /// skipped, as `cat` of two UTF-8 files leaves one there).
    pub fn line(&mut self, raw_line: &str, line_no: usize) -> Result<(), PgnError> {
        let raw_line = raw_line.strip_prefix('\u{feff}').unwrap_or(raw_line);
        let mut rest = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        if self.comment.is_none() && rest.starts_with('%') {
            return Ok(());
        }
        loop {
            if self.comment.is_some() {
                match rest.find('}') {
                    Some(i) => {
                        self.comment = None;
                        rest = &rest[i + 1..];
                    }
                    None => break,
                }
            }
            rest = rest.trim_start();
            let Some(c) = rest.chars().next() else { break };
            match c {
                ';' => break,
                '{' => {
                    self.comment = Some(line_no);
                    rest = &rest[1..];
                }
                '(' => {
                    self.variations.push(line_no);
                    rest = &rest[1..];
                }
                ')' => {
                    if self.variations.pop().is_none() {
                        return Err(self.err(line_no, PgnErrorKind::UnopenedVariation));
                    }
                    rest = &rest[1..];
                }
                '[' if self.variations.is_empty() => {
                    let (name, value, after) = tag_pair(&rest[1..], line_no, &self.file)?;
                    // A tag after movetext, or a tag the game has already, starts the next
                    // game (a game without movetext and result token).
                    if self.game.move_count > 0
                        || self.game.token.is_some()
                        || self.game.tags.iter().any(|t| t.0 == name)
                    {
                        self.finish_game()?;
                    }
                    self.game.start(line_no);
                    self.game.tags.push((name, value, line_no));
                    rest = after;
                }
                _ => {
                    let end = rest
                        .find(|c: char| c.is_whitespace() || "{}();[".contains(c))
                        .unwrap_or(rest.len())
                        .max(c.len_utf8());
                    let token = &rest[..end];
                    rest = &rest[end..];
                    if !self.variations.is_empty() || token.starts_with('$') {
                        continue;
                    }
                    if is_result(token) {
                        self.game.start(line_no);
                        self.game.token = Some((token.to_string(), line_no));
                        self.finish_game()?;
                        continue;
                    }
                    // `12.`, `12...` and `12.e4`: the number goes, the move stays.
                    let mv = token.trim_start_matches(|c: char| c.is_ascii_digit());
                    let mv = if mv.len() < token.len() && mv.starts_with('.') {
                        mv.trim_start_matches('.')
                    } else {
                        token
                    };
                    self.game.start(line_no);
                    if !mv.is_empty() {
                        self.game.move_count += 1;
                        if self.game.move_count > MAX_PGN_MOVES {
                            return Err(
                                self.err(line_no, PgnErrorKind::TooManyMoves(MAX_PGN_MOVES))
                            );
                        }
                        if self.keep_moves {
                            self.game.moves.push(mv.to_string());
                            self.game.move_lines.push(line_no);
                        }
                    }
                }
            }
        }
        Ok(())
    }

    /// The end of the text: what is still open is an error; the last game, if any, is ready.
    pub fn finish(mut self) -> Result<Vec<PgnGame>, PgnError> {
        if let Some(line) = self.comment {
            return Err(self.err(line, PgnErrorKind::UnclosedComment));
        }
        if let Some(&line) = self.variations.first() {
            return Err(self.err(line, PgnErrorKind::UnclosedVariation));
        }
        if !self.game.is_empty() {
            self.finish_game()?;
        }
        Ok(self.ready)
    }
}

/// The PGN files a path names: a file as given; a folder's `*.pgn` files (any case), sorted by
/// name, not recursive. A folder without any is an error.
pub fn pgn_files(path: &Path) -> Result<Vec<PathBuf>> {
    if !path.is_dir() {
        if !path.exists() {
            bail!("{} does not exist", path.display());
        }
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files: Vec<PathBuf> = std::fs::read_dir(path)
        .with_context(|| format!("cannot read the folder {}", path.display()))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| {
            p.is_file()
                && p.extension()
                    .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("pgn"))
        })
        .collect();
    files.sort();
    if files.is_empty() {
        bail!(
            "{} is neither a results folder (no games.csv) nor a folder of PGN files (no *.pgn)",
            path.display()
        );
    }
    Ok(files)
}

/// Reads and parses every game of `paths` (files, or folders of `*.pgn`), in order, moves
/// kept; what the reader noticed about the files (their encodings) is in the warnings.
pub fn read_pgn(paths: &[PathBuf]) -> Result<PgnRead> {
    let mut read = PgnRead::default();
    let mut games = Vec::new();
    each_pgn_game(paths, true, &mut read.warnings, &mut |g| {
        games.push(g);
        Ok(())
    })?;
    read.games = games;
    Ok(read)
}

/// The games of PGN files, and the reader's warnings.
#[derive(Debug, Default)]
pub struct PgnRead {
    pub games: Vec<PgnGame>,
    pub warnings: Vec<String>,
}

/// Reads the games of `paths` one at a time into `each`, a line at a time (no line longer than
/// [`MAX_PGN_LINE`], no game of more than [`MAX_PGN_MOVES`] moves; the moves kept only with
/// `keep_moves`), each line in its own encoding: UTF-8 where it is valid UTF-8, Latin-1 (each
/// byte a character, as old PGN files are written) where it is not. A file that mixes the two,
/// or starts with a UTF-8 byte-order mark and then is not UTF-8, is named in `warnings` with its
/// lines; an error on a line read as Latin-1 says so.
pub fn each_pgn_game(
    paths: &[PathBuf],
    keep_moves: bool,
    warnings: &mut Vec<String>,
    each: &mut dyn FnMut(PgnGame) -> Result<()>,
) -> Result<()> {
    for path in paths {
        for file in pgn_files(path)? {
            read_one(&file, keep_moves, warnings, each)?;
        }
    }
    Ok(())
}

/// How many lines of each kind a warning names.
const LINES_SHOWN: usize = 5;

/// What the encoding of a file's lines was.
#[derive(Default)]
struct Encodings {
    /// The file starts with a UTF-8 byte-order mark.
    bom: bool,
    /// Lines that were not UTF-8 (read as Latin-1), and lines of UTF-8 beyond ASCII: the first
    /// few of each, and how many.
    latin1: (Vec<usize>, usize),
    utf8: (Vec<usize>, usize),
}

impl Encodings {
    fn note(list: &mut (Vec<usize>, usize), line: usize) {
        if list.0.len() < LINES_SHOWN {
            list.0.push(line);
        }
        list.1 += 1;
    }

    /// `lines 2, 11 and 3 more are` (`line 2 is`).
    fn lines((shown, n): &(Vec<usize>, usize)) -> String {
        let list: Vec<String> = shown.iter().map(usize::to_string).collect();
        let more = n - shown.len();
        format!(
            "line{} {}{} {}",
            if *n == 1 { "" } else { "s" },
            list.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            },
            if *n == 1 { "is" } else { "are" }
        )
    }

    /// The warning for the file, if its encodings call for one.
    fn warning(&self, file: &str) -> Option<String> {
        if self.latin1.1 == 0 {
            return None;
        }
        let latin1 = Encodings::lines(&self.latin1);
        if self.bom {
            return Some(format!(
                "{file}: {latin1} not UTF-8 though the file starts with a UTF-8 byte-order \
                 mark: read as Latin-1 (check the names there)"
            ));
        }
        if self.utf8.1 > 0 {
            return Some(format!(
                "{file}: {latin1} not UTF-8, read as Latin-1, while {} UTF-8: the file mixes \
                 encodings (an old export appended to?); each line was read in its own, check \
                 the names there",
                Encodings::lines(&self.utf8)
            ));
        }
        None
    }
}

/// [`each_pgn_game`] for one file.
fn read_one(
    file: &Path,
    keep_moves: bool,
    warnings: &mut Vec<String>,
    each: &mut dyn FnMut(PgnGame) -> Result<()>,
) -> Result<()> {
    use std::io::BufRead;
    let name = file.display().to_string();
    let opened =
        std::fs::File::open(file).with_context(|| format!("cannot read {}", file.display()))?;
    let mut reader = std::io::BufReader::with_capacity(64 << 10, opened);
    let mut parser = PgnParser::new(&name, keep_moves);
    let mut encodings = Encodings::default();
    // The lines read as Latin-1 since the last game ended: an error names one of them.
    let mut latin1_lines: Vec<usize> = Vec::new();
    let latin1_note = |e: PgnError, lines: &[usize]| {
        let note = if lines.contains(&e.line) {
            format!(" (line {} is not UTF-8: it was read as Latin-1)", e.line)
        } else {
            String::new()
        };
        anyhow::anyhow!("{e}{note}")
    };
    let mut bytes = Vec::new();
    let mut line_no = 0;
    loop {
        bytes.clear();
        line_no += 1;
        let too_long = || PgnError {
            file: name.clone(),
            line: line_no,
            kind: PgnErrorKind::LineTooLong(MAX_PGN_LINE),
        };
        // One line, never more than the bound in memory.
        let ended = loop {
            let buf = reader
                .fill_buf()
                .with_context(|| format!("cannot read {}", file.display()))?;
            if buf.is_empty() {
                break !bytes.is_empty();
            }
            let (take, end) = match buf.iter().position(|&b| b == b'\n') {
                Some(i) => (i + 1, true),
                None => (buf.len(), false),
            };
            if bytes.len() + take > MAX_PGN_LINE + 1 {
                return Err(too_long().into());
            }
            bytes.extend_from_slice(&buf[..take]);
            reader.consume(take);
            if end {
                break true;
            }
        };
        if !ended {
            break;
        }
        if bytes.last() == Some(&b'\n') {
            bytes.pop();
        }
        // A byte-order mark (the file's first, or one `cat` left inside) is not text.
        let body = match bytes.strip_prefix(b"\xef\xbb\xbf") {
            Some(body) => {
                encodings.bom |= line_no == 1;
                body
            }
            None => &bytes[..],
        };
        let decoded;
        let text = match std::str::from_utf8(body) {
            Ok(text) => {
                if !text.is_ascii() {
                    Encodings::note(&mut encodings.utf8, line_no);
                }
                text
            }
            Err(_) => {
                Encodings::note(&mut encodings.latin1, line_no);
                latin1_lines.push(line_no);
                // Latin-1: each byte is the code point of the same number.
                decoded = body.iter().map(|&b| b as char).collect::<String>();
                &decoded
            }
        };
        parser
            .line(text, line_no)
            .map_err(|e| latin1_note(e, &latin1_lines))?;
        if !parser.ready.is_empty() {
            latin1_lines.clear();
        }
        for game in parser.ready.drain(..) {
            each(game)?;
        }
    }
    for game in parser.finish().map_err(|e| latin1_note(e, &latin1_lines))? {
        each(game)?;
    }
    warnings.extend(encodings.warning(&name));
    Ok(())
}

/// The players and rated games of a list of PGN games.
#[derive(Debug, Clone, PartialEq)]
pub struct PgnPool {
    /// Players in order of first appearance.
    pub names: Vec<String>,
    /// The finished games, with pair ids by the rule in the module docs.
    pub games: Vec<RatedGame>,
    /// Games with result `*`, skipped.
    pub unfinished: usize,
    /// Each player's latest site rating from the Elo tags: the tag of its game with the latest
    /// `Date` (games without a complete date count as older than any dated game), the later in
    /// the input among equal dates. `None`: never tagged.
    pub tag_ratings: Vec<Option<f64>>,
    /// The distinct `Variant` tags, in order of appearance.
    pub variants: Vec<String>,
}

impl PgnPool {
    pub fn new<'a>(games: &'a [PgnGame]) -> PgnPool {
        let mut index: HashMap<&str, usize> = HashMap::new();
        let mut names: Vec<String> = Vec::new();
        let mut players: Vec<(usize, usize)> = Vec::with_capacity(games.len());
        for g in games {
            let mut id = |name: &'a str| {
                *index.entry(name).or_insert_with(|| {
                    names.push(name.to_string());
                    names.len() - 1
                })
            };
            let w = id(&g.white);
            let b = id(&g.black);
            players.push((w, b));
        }
        // Latest tags: (date key, position) ordered.
        let mut latest: Vec<Option<((String, usize), f64)>> = vec![None; names.len()];
        let mut variants: Vec<String> = Vec::new();
        for (k, (g, &(w, b))) in games.iter().zip(&players).enumerate() {
            let date = g
                .date
                .as_deref()
                .filter(|d| d.len() == 10 && d.bytes().filter(|b| b.is_ascii_digit()).count() == 8)
                .unwrap_or("")
                .to_string();
            for (p, elo) in [(w, g.white_elo), (b, g.black_elo)] {
                if let Some(elo) = elo {
                    let key = (date.clone(), k);
                    let newer = match &latest[p] {
                        None => true,
                        Some((k, _)) => *k < key,
                    };
                    if newer {
                        latest[p] = Some((key, elo));
                    }
                }
            }
            if let Some(v) = &g.variant {
                if !variants.contains(v) {
                    variants.push(v.clone());
                }
            }
        }
        let finished: Vec<(usize, Outcome, usize, usize)> = games
            .iter()
            .zip(&players)
            .enumerate()
            .filter_map(|(k, (g, &(w, b)))| g.result.map(|r| (k, r, w, b)))
            .collect();
        let mut rated = Vec::with_capacity(finished.len());
        let mut pair = 0u64;
        let mut k = 0;
        while k < finished.len() {
            let (_, r, w, b) = finished[k];
            rated.push(RatedGame {
                pair,
                first: w,
                second: b,
                outcome: r,
            });
            if let Some(&(_, r2, w2, b2)) = finished.get(k + 1) {
                if w2 == b && b2 == w {
                    rated.push(RatedGame {
                        pair,
                        first: w2,
                        second: b2,
                        outcome: r2,
                    });
                    k += 1;
                }
            }
            k += 1;
            pair += 1;
        }
        PgnPool {
            tag_ratings: latest.into_iter().map(|l| l.map(|x| x.1)).collect(),
            unfinished: games.len() - finished.len(),
            names,
            games: rated,
            variants,
        }
    }
}

impl PgnGame {
    /// The line of the tag `name` (its last occurrence, the one that counts).
    pub fn tag_line(&self, name: &str) -> Option<usize> {
        let i = self.tags.iter().rposition(|(n, _)| n == name)?;
        self.tag_lines.get(i).copied()
    }
}

impl fmt::Display for PgnGame {
    /// `file:line (White - Black)`, for messages.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{} ({} - {})",
            self.file, self.line, self.white, self.black
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn one(text: &str) -> PgnGame {
        let mut games = parse_pgn(text, "t.pgn").unwrap();
        assert_eq!(games.len(), 1, "{games:?}");
        games.remove(0)
    }

    fn error(text: &str) -> String {
        parse_pgn(text, "t.pgn").unwrap_err().to_string()
    }

    const HEAD: &str = "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n";

    #[test]
    fn tags_and_movetext() {
        let g = one(
            "\u{feff}[Event \"x\"]\r\n[White \"a \\\"q\\\" \\\\\"]\r\n[Black \"b\"]\r\n[Result \"1/2-1/2\"]\r\n[WhiteElo \"1500\"]\r\n[BlackElo \"-\"]\r\n[Variant \"kalah(6,4)\"]\r\n[Unknown \"tag\"]\r\n\r\n1. 3 {a comment\r\nover lines} 4 $1 (4 5 (6)) 2. swap ; rest\r\n% escape 9 9\r\n2... 12 1/2-1/2\r\n"
        );
        assert_eq!(g.white, "a \"q\" \\");
        assert_eq!(g.result, Some(Outcome::Draw));
        assert_eq!((g.white_elo, g.black_elo), (Some(1500.0), None));
        assert_eq!(g.variant.as_deref(), Some("kalah(6,4)"));
        assert_eq!(g.moves, ["3", "4", "swap", "12"]);
        assert_eq!(g.move_lines, [10, 11, 11, 13]);
        assert_eq!(g.tags.len(), 8);
        assert_eq!(g.line, 1);
    }

    #[test]
    fn games_without_movetext_or_result_token() {
        let text = format!("{HEAD}\n{HEAD}[Date \"2026.01.02\"]\n\n1-0\n{HEAD}");
        let games = parse_pgn(&text, "t.pgn").unwrap();
        assert_eq!(games.len(), 3);
        assert_eq!((games[1].line, games[2].line), (5, 11));
        assert_eq!(games[1].date.as_deref(), Some("2026.01.02"));
        // A tag after movetext without a result token starts the next game.
        let games = parse_pgn(&format!("{HEAD}1. 3 4\n{HEAD}"), "t.pgn").unwrap();
        assert_eq!(games.len(), 2);
        assert_eq!(games[0].moves, ["3", "4"]);
        // An unfinished game.
        let g = one("[White \"a\"]\n[Black \"b\"]\n[Result \"*\"]\n1. 3 *\n");
        assert_eq!(g.result, None);
        assert!(parse_pgn("", "t.pgn").unwrap().is_empty());
    }

    macro_rules! bad {
        ($($name:ident: $text:expr => $msg:expr;)*) => {$(
            #[test]
            fn $name() {
                assert_eq!(error($text), $msg);
            }
        )*};
    }

    bad! {
        bad_result: "[White \"a\"]\n[Black \"b\"]\n[Result \"2-0\"]\n" =>
            "t.pgn:3: Result \"2-0\" is not 1-0, 0-1 or 1/2-1/2 (or * for an unfinished game)";
        missing_black: "[White \"a\"]\n[Result \"1-0\"]\n1-0\n" => "t.pgn:1: game without a Black tag";
        missing_result: "[White \"a\"]\n[Black \"b\"]\n1. 3\n" => "t.pgn:1: game without a Result tag";
        token_contradicts_tag: "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n\n1. 3 0-1\n" =>
            "t.pgn:5: the movetext ends with 0-1 but the Result tag says 1-0";
        unclosed_tag: "[White \"a\"]\n[Black \"b\n" => "t.pgn:2: tag pair not closed: `[Black \"b`";
        tag_without_value: "[White a]\n" => "t.pgn:1: malformed tag pair `[White a]`: expected [Name \"value\"]";
        bad_elo: "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n[BlackElo \"high\"]\n" =>
            "t.pgn:4: BlackElo \"high\" is not a number";
        unclosed_comment: "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1. 3 {oops\n\n" =>
            "t.pgn:4: comment opened here is never closed with `}`";
        unclosed_variation: "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1. 3 (4\n" =>
            "t.pgn:4: variation opened here is never closed with `)`";
        unopened_variation: "[White \"a\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1. 3 ) 1-0\n" =>
            "t.pgn:4: `)` closes no variation";
        self_play: "[White \"a\"]\n[Black \"a\"]\n[Result \"1-0\"]\n" => "t.pgn:2: a plays itself";
    }

    fn game(white: &str, black: &str, result: &str, date: &str, elos: (&str, &str)) -> String {
        format!(
            "[Date \"{date}\"]\n[White \"{white}\"]\n[Black \"{black}\"]\n[Result \"{result}\"]\n[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n\n{result}\n\n",
            elos.0, elos.1
        )
    }

    /// A file of `bytes` in a fresh temporary folder, read with [`each_pgn_game`]: the games
    /// (moves kept) and the warnings, or the error.
    fn read_bytes(name: &str, bytes: &[u8]) -> Result<(Vec<PgnGame>, Vec<String>), String> {
        let dir = std::env::temp_dir().join(format!("arena-pgn-{name}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("g.pgn");
        std::fs::write(&path, bytes).unwrap();
        let (mut games, mut warnings) = (Vec::new(), Vec::new());
        let read = each_pgn_game(&[path], true, &mut warnings, &mut |g| {
            games.push(g);
            Ok(())
        });
        let _ = std::fs::remove_dir_all(&dir);
        read.map(|()| (games, warnings))
            .map_err(|e| format!("{e:#}"))
    }

    /// #48 point 17: each line in its own encoding; a mix, and a byte-order mark before Latin-1,
    /// are named with their lines.
    #[test]
    fn each_line_is_read_in_its_own_encoding() {
        let latin = b"[White \"J\xfcrgen\"]\n[Black \"b\"]\n[Result \"1-0\"]\n1-0\n";
        let utf8 = "[White \"Jürgen\"]\n[Black \"b\"]\n[Result \"0-1\"]\n0-1\n";
        let mut mixed = latin.to_vec();
        mixed.extend_from_slice(utf8.as_bytes());
        let (games, warnings) = read_bytes("mixed", &mixed).unwrap();
        assert_eq!(games[0].white, "Jürgen");
        assert_eq!(games[1].white, "Jürgen");
        assert_eq!(warnings.len(), 1);
        assert!(
            warnings[0]
                .contains("g.pgn: line 1 is not UTF-8, read as Latin-1, while line 5 is UTF-8"),
            "{warnings:?}"
        );
        // All Latin-1, or all UTF-8: nothing to say.
        assert!(read_bytes("latin", latin).unwrap().1.is_empty());
        assert!(read_bytes("utf8", utf8.as_bytes()).unwrap().1.is_empty());
        // A byte-order mark, then Latin-1.
        let mut bom = b"\xef\xbb\xbf[Event \"e\"]\n".to_vec();
        bom.extend_from_slice(latin);
        let (games, warnings) = read_bytes("bom", &bom).unwrap();
        assert_eq!(games[0].white, "Jürgen");
        assert!(
            warnings[0].contains(
                "line 2 is not UTF-8 though the file starts with a UTF-8 byte-order mark"
            ),
            "{warnings:?}"
        );
        // An error on a Latin-1 line says how the line was read.
        let e = read_bytes(
            "bad",
            b"[White \"J\xfcrgen\"]\n[Black \"J\xfcrgen\"]\n[Result \"1-0\"]\n",
        )
        .unwrap_err();
        assert!(
            e.ends_with(
                "g.pgn:2: Jürgen plays itself (line 2 is not UTF-8: it was read as Latin-1)"
            ),
            "{e}"
        );
    }

    /// #48 point 14: a line is bounded, and so is a game's movetext.
    #[test]
    fn a_line_and_a_game_are_bounded() {
        let mut long = HEAD.as_bytes().to_vec();
        long.extend(vec![b'1'; MAX_PGN_LINE + 10]);
        let e = read_bytes("long", &long).unwrap_err();
        assert!(e.ends_with("g.pgn:4: a line longer than 1024 KiB: not PGN (a game's movetext is a few kilobytes)"), "{e}");
        // At the bound exactly, with its line end, it is read.
        let mut at = HEAD.as_bytes().to_vec();
        at.extend(vec![b' '; MAX_PGN_LINE - 4]);
        at.extend_from_slice(b"1-0\n");
        assert_eq!(read_bytes("at", &at).unwrap().0.len(), 1);
        let moves = "1 2 \n".repeat(MAX_PGN_MOVES / 2 + 1);
        let e = parse_pgn(&format!("{HEAD}{moves}"), "t.pgn")
            .unwrap_err()
            .to_string();
        assert_eq!(
            e,
            format!(
                "t.pgn:{}: a game of more than 100000 moves: not a game any ruleset plays",
                4 + MAX_PGN_MOVES / 2
            )
        );
        // A rating counts the moves without keeping them.
        let mut parser = PgnParser::new("t.pgn", false);
        for (k, line) in format!("{HEAD}1. 3 4 1-0").lines().enumerate() {
            parser.line(line, k + 1).unwrap();
        }
        assert!(parser.ready[0].moves.is_empty());
    }

    #[test]
    fn pairs_are_consecutive_colour_swapped_games() {
        let text = [
            game("a", "b", "1-0", "2026.01.01", ("1500", "")),
            game("b", "a", "0-1", "2026.01.01", ("", "1510")),
            game("a", "c", "*", "2026.01.02", ("1600", "")),
            game("a", "c", "1/2-1/2", "2026.01.02", ("", "")),
            game("c", "a", "1-0", "????.??.??", ("", "1700")),
            game("c", "a", "0-1", "2026.01.03", ("", "")),
        ]
        .concat();
        let pool = PgnPool::new(&parse_pgn(&text, "t.pgn").unwrap());
        assert_eq!(pool.names, ["a", "b", "c"]);
        assert_eq!(pool.unfinished, 1);
        let pairs: Vec<u64> = pool.games.iter().map(|g| g.pair).collect();
        // (a-b, b-a) pair; (a-c, c-a) pair across the skipped `*`; the last c-a is single.
        assert_eq!(pairs, [0, 0, 1, 1, 2]);
        assert_eq!(pool.games[1].first, 1);
        assert_eq!(pool.games[1].outcome, Outcome::Loss);
        // a's latest tag is the 2026.01.02 game's (1600, from the unfinished game), not the
        // undated 1700.
        assert_eq!(pool.tag_ratings, [Some(1600.0), None, None]);
    }
}
