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
//!   Text that is not UTF-8 is read as Latin-1, as old PGN files are written.
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
}

/// A game being read: tags and moves so far.
#[derive(Default)]
struct Pending {
    line: Option<usize>,
    tags: Vec<(String, String, usize)>,
    moves: Vec<String>,
    move_lines: Vec<usize>,
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
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let err = |line: usize, kind| PgnError {
        file: file.to_string(),
        line,
        kind,
    };
    let mut games = Vec::new();
    let mut game = Pending::default();
    // Open comment `{` and variations `(`: the line each was opened on.
    let mut comment: Option<usize> = None;
    let mut variations: Vec<usize> = Vec::new();
    for (k, raw_line) in text.lines().enumerate() {
        let line_no = k + 1;
        let mut rest = raw_line.strip_suffix('\r').unwrap_or(raw_line);
        if comment.is_none() && rest.starts_with('%') {
            continue;
        }
        loop {
            if comment.is_some() {
                match rest.find('}') {
                    Some(i) => {
                        comment = None;
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
                    comment = Some(line_no);
                    rest = &rest[1..];
                }
                '(' => {
                    variations.push(line_no);
                    rest = &rest[1..];
                }
                ')' => {
                    if variations.pop().is_none() {
                        return Err(err(line_no, PgnErrorKind::UnopenedVariation));
                    }
                    rest = &rest[1..];
                }
                '[' if variations.is_empty() => {
                    let (name, value, after) = tag_pair(&rest[1..], line_no, file)?;
                    // A tag after movetext, or a tag the game has already, starts the next
                    // game (a game without movetext and result token).
                    if !game.moves.is_empty()
                        || game.token.is_some()
                        || game.tags.iter().any(|t| t.0 == name)
                    {
                        games.push(std::mem::take(&mut game).finish(file)?);
                    }
                    game.start(line_no);
                    game.tags.push((name, value, line_no));
                    rest = after;
                }
                _ => {
                    let end = rest
                        .find(|c: char| c.is_whitespace() || "{}();[".contains(c))
                        .unwrap_or(rest.len())
                        .max(c.len_utf8());
                    let token = &rest[..end];
                    rest = &rest[end..];
                    if !variations.is_empty() || token.starts_with('$') {
                        continue;
                    }
                    if is_result(token) {
                        game.start(line_no);
                        game.token = Some((token.to_string(), line_no));
                        games.push(std::mem::take(&mut game).finish(file)?);
                        continue;
                    }
                    // `12.`, `12...` and `12.e4`: the number goes, the move stays.
                    let mv = token.trim_start_matches(|c: char| c.is_ascii_digit());
                    let mv = if mv.len() < token.len() && mv.starts_with('.') {
                        mv.trim_start_matches('.')
                    } else {
                        token
                    };
                    game.start(line_no);
                    if !mv.is_empty() {
                        game.moves.push(mv.to_string());
                        game.move_lines.push(line_no);
                    }
                }
            }
        }
    }
    if let Some(line) = comment {
        return Err(err(line, PgnErrorKind::UnclosedComment));
    }
    if let Some(&line) = variations.first() {
        return Err(err(line, PgnErrorKind::UnclosedVariation));
    }
    if !game.is_empty() {
        games.push(game.finish(file)?);
    }
    Ok(games)
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

/// Reads and parses every game of `paths` (files, or folders of `*.pgn`), in order.
pub fn read_pgn(paths: &[PathBuf]) -> Result<Vec<PgnGame>> {
    let mut games = Vec::new();
    for path in paths {
        for file in pgn_files(path)? {
            let bytes =
                std::fs::read(&file).with_context(|| format!("cannot read {}", file.display()))?;
            let text = match String::from_utf8(bytes) {
                Ok(text) => text,
                // Latin-1: each byte is the code point of the same number.
                Err(e) => e.into_bytes().iter().map(|&b| b as char).collect(),
            };
            games.extend(parse_pgn(&text, &file.display().to_string())?);
        }
    }
    Ok(games)
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
