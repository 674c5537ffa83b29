//! `games.csv` (one row per game) and `games.jsonl` (the same plus every move), written so that
//! nothing is lost when the arena dies.
//!
//! Each finished game is appended to `games.jsonl` and then to `games.csv`, and both are flushed
//! before the next game is taken. `games.csv` is authoritative: on resume a torn last line is cut
//! off, and `games.jsonl` is rewritten to hold exactly the games `games.csv` holds.
//!
//! # `games.csv` format
//! The columns of [`GameRow`], in its field order, with a header line. Text columns are the
//! values' display forms: `rules` a canonical ruleset string, `opening` an [`Opening`] line,
//! `result` `1-0` / `0-1` / `1/2-1/2`, `termination` a [`Termination`], `forfeit` the name of the
//! player who forfeited or empty.
//!
//! # `games.jsonl` format
//! One JSON object per line: every `games.csv` column under the same name, plus `moves` (the
//! whole move list from the start, opening included, as strings: pit numbers and `swap`),
//! `think_ms` (the think time of each move after the opening, in ms) and `movers` (for each
//! `think_ms` entry, who made that sow: 0 the first player, 1 the second; extra turns and the pie
//! rule's `swap` make that more than alternation). Folders written before `movers` existed are
//! read by replaying each game with the rules engine.

use std::collections::{BTreeSet, HashMap};
use std::fmt;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::str::FromStr;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use super::files;
use super::run_file::RunFile;
use crate::rating::{Outcome, RatedGame};
use crate::rules::{Move, Ruleset};
use crate::vocab::config::Opening;
use crate::vocab::FaultKind;

pub const GAMES_CSV: &str = "games.csv";
pub const GAMES_JSONL: &str = "games.jsonl";

/// How a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Termination {
    /// The rules ended the game (a side empty, no move, majority, repetition…).
    Normal,
    /// The ruleset's sow cap.
    SowCap,
    /// `--adjudicate`: the outcome could no longer change.
    Adjudicated,
    /// A bot's fault: the player in the row's `forfeit` column lost by it.
    Forfeit(FaultKind),
}

impl Termination {
    /// The word in `games.csv`: `normal`, `sow_cap`, `adjudicated`, or the fault kind's name
    /// (`spawn`, `handshake`, `crash`, `timeout`, `malformed_move`, `illegal_move`, `garbage`,
    /// `line_too_long`, `io`).
    pub fn as_str(self) -> &'static str {
        match self {
            Termination::Normal => "normal",
            Termination::SowCap => "sow_cap",
            Termination::Adjudicated => "adjudicated",
            Termination::Forfeit(kind) => kind.as_str(),
        }
    }
}

impl fmt::Display for Termination {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Termination {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "normal" => Ok(Termination::Normal),
            "sow_cap" => Ok(Termination::SowCap),
            "adjudicated" => Ok(Termination::Adjudicated),
            _ => s
                .parse::<FaultKind>()
                .map(Termination::Forfeit)
                .map_err(|_| format!("unknown termination `{s}`")),
        }
    }
}

impl Serialize for Termination {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_str(self.as_str())
    }
}

impl<'de> Deserialize<'de> for Termination {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// One game, as a `games.csv` row.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRow {
    pub game_id: u64,
    pub pair_id: u64,
    pub round: u32,
    /// The player who moved first (south at the start).
    pub first: String,
    pub second: String,
    pub rules: Ruleset,
    #[serde(with = "crate::vocab::config::opening_line")]
    pub opening: Opening,
    /// From the first player's view.
    pub result: Outcome,
    /// Final seeds of the first and second player (after the end-of-game sweep), or the stores
    /// when the game ended early (forfeit, adjudication).
    pub score_first: u32,
    pub score_second: u32,
    pub sows: u32,
    pub termination: Termination,
    /// The player who forfeited, if any (an empty column otherwise).
    #[serde(with = "empty_is_none")]
    pub forfeit: Option<String>,
    /// What happened, in words (the fault's detail, the rules' end reason).
    pub detail: String,
    pub wall_ms: u64,
    pub first_think_ms: u64,
    pub first_max_ms: u64,
    pub second_think_ms: u64,
    pub second_max_ms: u64,
    /// The CPU time each player's bot used for its sows (its process tree's, from the kernel:
    /// docs/tournament.md, "CPU time"); 0 where it was not measured (folders written before the
    /// column existed, PGN).
    #[serde(default)]
    pub first_cpu_ms: u64,
    #[serde(default)]
    pub second_cpu_ms: u64,
    /// Moves the arena played for each player at random: a KGP agent's missing moves, played
    /// as the official server plays them (docs/protocols.md).
    #[serde(default)]
    pub first_random: u32,
    #[serde(default)]
    pub second_random: u32,
}

impl GameRow {
    /// A row with every field empty or zero (a draw ended by the rules): the header's row, and
    /// a base for rows that set only the fields they need (`..GameRow::blank()`).
    pub fn blank() -> GameRow {
        GameRow {
            game_id: 0,
            pair_id: 0,
            round: 0,
            first: String::new(),
            second: String::new(),
            rules: Ruleset::default(),
            opening: Opening::default(),
            result: Outcome::Draw,
            score_first: 0,
            score_second: 0,
            sows: 0,
            termination: Termination::Normal,
            forfeit: None,
            detail: String::new(),
            wall_ms: 0,
            first_think_ms: 0,
            first_max_ms: 0,
            second_think_ms: 0,
            second_max_ms: 0,
            first_cpu_ms: 0,
            second_cpu_ms: 0,
            first_random: 0,
            second_random: 0,
        }
    }
}

/// `Option<String>` as a text column: `None` is the empty string, both in CSV and in JSON (so the
/// two files keep one form).
mod empty_is_none {
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(value: &Option<String>, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(value.as_deref().unwrap_or(""))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<String>, D::Error> {
        let text = Option::<String>::deserialize(d)?.unwrap_or_default();
        Ok((!text.is_empty()).then_some(text))
    }
}

/// A row plus the move list: one `games.jsonl` line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    #[serde(flatten)]
    pub row: GameRow,
    pub moves: Vec<Move>,
    pub think_ms: Vec<u64>,
    /// For each `think_ms` entry, the player who made that sow: 0 the first, 1 the second.
    #[serde(default)]
    pub movers: Vec<u8>,
    /// For each `think_ms` entry, the CPU time the mover's bot used for it (empty for games
    /// written before it was measured).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub cpu_ms: Vec<u64>,
    /// The `think_ms` entries (0 the first) whose move the arena played at random for a KGP
    /// agent that made none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub random: Vec<u32>,
}

impl GameRecord {
    /// Fills `movers` by replaying the game, for records written before the field existed, and
    /// checks that every sow after the opening has a think time and a mover.
    fn fill_movers(&mut self) -> Result<(), String> {
        if self.movers.len() != self.think_ms.len() {
            self.movers = self.replay_movers()?;
        }
        let skip = self.row.opening.moves.len();
        if self.moves.len() != skip + self.movers.len() {
            return Err(format!(
                "game {}: {} think times for {} sows after the opening",
                self.row.game_id,
                self.movers.len(),
                self.moves.len().saturating_sub(skip)
            ));
        }
        Ok(())
    }

    /// Who made each sow after the opening, by replaying the game with the rules engine.
    fn replay_movers(&self) -> Result<Vec<u8>, String> {
        let row = &self.row;
        let mut pos = row
            .opening
            .start(row.rules)
            .map_err(|e| format!("game {}: opening `{}`: {e}", row.game_id, row.opening))?;
        let skip = row.opening.moves.len();
        let mut movers = Vec::with_capacity(self.think_ms.len());
        for (i, &mv) in self.moves.iter().enumerate() {
            if i >= skip {
                let side = pos
                    .to_move()
                    .ok_or_else(|| format!("game {}: a move after the end", row.game_id))?;
                movers.push(pos.player_on(side) as u8);
            }
            pos.play(mv)
                .map_err(|e| format!("game {}: move {} `{mv}`: {e}", row.game_id, i + 1))?;
        }
        if movers.len() != self.think_ms.len() {
            return Err(format!(
                "game {}: {} think times for {} sows after the opening",
                row.game_id,
                self.think_ms.len(),
                movers.len()
            ));
        }
        Ok(movers)
    }
}

/// Appends finished games to a run folder: to `games.jsonl`, then to `games.csv`, each line in
/// one write. Generic over the files so that a failing disk can be put in their place in a test.
pub struct ResultsWriter<W: Write = File> {
    dir: PathBuf,
    csv: W,
    /// Whether `games.csv` still needs its header line.
    csv_header: bool,
    jsonl: W,
    /// The files' (device, inode), to notice the folder deleted or replaced under the run.
    identity: Option<[(u64, u64); 2]>,
}

impl ResultsWriter<File> {
    /// Opens the folder's files for appending (creating them, with the CSV header, if new).
    pub fn open(dir: &Path) -> Result<ResultsWriter> {
        let csv_path = dir.join(GAMES_CSV);
        let csv = files::open_append(&csv_path)?;
        let new = csv
            .metadata()
            .with_context(|| format!("cannot read {}", csv_path.display()))?
            .len()
            == 0;
        let jsonl = files::open_append(&dir.join(GAMES_JSONL))?;
        let identity = |f: &File| {
            use std::os::unix::fs::MetadataExt;
            f.metadata().map(|m| (m.dev(), m.ino())).ok()
        };
        let identity = identity(&csv).zip(identity(&jsonl)).map(|(a, b)| [a, b]);
        Ok(ResultsWriter {
            dir: dir.to_path_buf(),
            csv,
            csv_header: new,
            jsonl,
            identity,
        })
    }

    /// Whether the files written are still the folder's: a folder deleted (or moved, or its
    /// files replaced) under a running arena takes the games written after into files no one
    /// will ever read, so the run must stop at once, saying where.
    fn check_still_there(&self) -> Result<()> {
        use std::os::unix::fs::MetadataExt;
        let Some(identity) = self.identity else {
            return Ok(());
        };
        for (name, (dev, ino)) in [GAMES_CSV, GAMES_JSONL].into_iter().zip(identity) {
            let path = self.dir.join(name);
            let same =
                std::fs::symlink_metadata(&path).is_ok_and(|m| m.dev() == dev && m.ino() == ino);
            if !same {
                bail!(
                    "{} was deleted or replaced while the run was writing it (the run folder {} deleted or moved?): stopped; the games written since are lost with it",
                    path.display(),
                    self.dir.display()
                );
            }
        }
        Ok(())
    }
}

impl<W: Write> ResultsWriter<W> {
    /// A writer onto `csv` and `jsonl` standing for the files of `dir` (for tests of failing
    /// writes); `csv_header`: whether `games.csv` is new.
    pub fn from_writers(dir: &Path, csv: W, csv_header: bool, jsonl: W) -> ResultsWriter<W> {
        ResultsWriter {
            dir: dir.to_path_buf(),
            csv,
            csv_header,
            jsonl,
            identity: None,
        }
    }

    /// Appends one game to both files and flushes them to the operating system. A write that
    /// fails says which file and why; a full disk is said to be one, with how to go on.
    pub fn append(&mut self, record: &GameRecord) -> Result<()> {
        let mut line = serde_json::to_string(record)?;
        line.push('\n');
        let mut row = csv::WriterBuilder::new()
            .has_headers(self.csv_header)
            .from_writer(Vec::new());
        row.serialize(&record.row)?;
        let row = row.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
        let dir = self.dir.clone();
        let failed = |name: &str, e: std::io::Error| write_error(&dir, name, &e);
        self.jsonl
            .write_all(line.as_bytes())
            .and_then(|()| self.jsonl.flush())
            .map_err(|e| failed(GAMES_JSONL, e))?;
        self.csv
            .write_all(&row)
            .and_then(|()| self.csv.flush())
            .map_err(|e| failed(GAMES_CSV, e))?;
        self.csv_header = false;
        Ok(())
    }
}

impl ResultsWriter<File> {
    /// [`ResultsWriter::append`], after checking that the folder is still there.
    pub fn append_checked(&mut self, record: &GameRecord) -> Result<()> {
        self.check_still_there()?;
        self.append(record)
    }
}

/// The error of a failed write to the file `name` of `dir`: a full disk (or a spent quota) says
/// so, that the games written before are kept, and how to go on once there is room.
fn write_error(dir: &Path, name: &str, e: &std::io::Error) -> anyhow::Error {
    let path = dir.join(name);
    if crate::sys::is_disk_full(e) {
        anyhow::anyhow!(
            "cannot write {}: the disk is full ({e}); the games finished before are kept: free some space and `arena run --resume {}` plays the rest",
            path.display(),
            crate::vocab::shell_word(dir)
        )
    } else {
        anyhow::anyhow!("cannot write {}: {e}", path.display())
    }
}

/// Whether the folder has a `games.csv` (some games were played into it, or it was made
/// from games).
pub fn has_games(dir: &Path) -> bool {
    // A link or a FIFO of that name counts too: it is refused when read, not overwritten.
    std::fs::symlink_metadata(dir.join(GAMES_CSV)).is_ok()
}

/// Whether the folder has a `games.jsonl` (a link or a FIFO of that name counts: it is refused
/// when read).
pub fn has_records(dir: &Path) -> bool {
    std::fs::symlink_metadata(dir.join(GAMES_JSONL)).is_ok()
}

/// Reads `games.csv`'s rows. What the reader had to skip (a second copy of a row) is left out
/// without a word: where the user should hear of it (a rating, a resume, a merge), read it with
/// [`read_games_checked`], whose warnings the caller passes on.
pub fn read_games(dir: &Path) -> Result<Vec<GameRow>> {
    read_games_checked(dir).map(|(rows, _)| rows)
}

/// Reads `games.csv`. A game id may appear once: a second copy of a row (identical apart from
/// the timing columns) is skipped with a warning; a second, different row for the same id is an
/// error naming the id and both lines (the folder was written by two runs at once). A malformed
/// row is an error naming its line; only a torn last line (a crash mid-write) gets the hint to
/// repair the folder with `--resume`.
pub fn read_games_checked(dir: &Path) -> Result<(Vec<GameRow>, Vec<String>)> {
    let path = dir.join(GAMES_CSV);
    let bytes = match files::read(&path) {
        Ok(bytes) => bytes,
        Err(e) if e.is_not_found() => return Ok((Vec::new(), Vec::new())),
        Err(e) => return Err(e.into()),
    };
    // A last line without its line end is where a crash cut the file.
    let torn_line = (bytes.last().is_some_and(|&b| b != b'\n'))
        .then(|| bytes.iter().filter(|&&b| b == b'\n').count() as u64 + 1);
    let mut reader = csv::Reader::from_reader(bytes.as_slice());
    let headers = reader
        .headers()
        .with_context(|| format!("{}: no header line", path.display()))?
        .clone();
    let mut rows: Vec<GameRow> = Vec::new();
    let mut seen = Seen::default();
    let mut warnings = Vec::new();
    let mut record = csv::StringRecord::new();
    loop {
        let read = reader.read_record(&mut record);
        let line = record.position().map_or(0, |p| p.line());
        let row = read.and_then(|more| {
            more.then(|| record.deserialize::<GameRow>(Some(&headers)))
                .transpose()
        });
        let row = match row {
            Ok(Some(row)) => row,
            Ok(None) => break,
            Err(err) if torn_line.is_some_and(|t| err.position().map_or(line, |p| p.line()) >= t) => bail!(
                "{}: line {line} is torn ({err}): a run was killed while writing it; `arena run --resume {}` repairs the folder",
                path.display(),
                crate::vocab::shell_word(dir)
            ),
            Err(err) => bail!(
                "{}: line {} is malformed: {err}",
                path.display(),
                err.position().map_or(line, |p| p.line())
            ),
        };
        if seen.keep(&path, line, &row, &rows, &mut warnings)? {
            rows.push(row);
        }
    }
    Ok((rows, warnings))
}

/// The game ids read so far, for refusing or skipping a second copy.
#[derive(Default)]
struct Seen {
    /// Game id → (line, index in the rows kept).
    at: HashMap<u64, (u64, usize)>,
}

impl Seen {
    /// Whether `row` (read at `line` of `path`) is new: an identical copy of a kept row is
    /// skipped with a warning, a different row with a known id is an error.
    fn keep(
        &mut self,
        path: &Path,
        line: u64,
        row: &GameRow,
        kept: &[GameRow],
        warnings: &mut Vec<String>,
    ) -> Result<bool> {
        match self.at.get(&row.game_id) {
            Some(&(first, index)) if same_game(&kept[index], row) => {
                warnings.push(format!(
                    "{}: game {} is written twice (lines {first} and {line}); the copy is skipped",
                    path.display(),
                    row.game_id
                ));
                Ok(false)
            }
            Some(&(first, _)) => bail!(
                "{}: game {} appears twice with different results (lines {first} and {line}): the folder was written by two runs at once; remove one of the lines",
                path.display(),
                row.game_id
            ),
            None => {
                self.at.insert(row.game_id, (line, kept.len()));
                Ok(true)
            }
        }
    }
}

/// Two rows record the same game: equal apart from the measured times.
pub fn same_game(a: &GameRow, b: &GameRow) -> bool {
    let untimed = |r: &GameRow| GameRow {
        wall_ms: 0,
        first_think_ms: 0,
        first_max_ms: 0,
        second_think_ms: 0,
        second_max_ms: 0,
        first_cpu_ms: 0,
        second_cpu_ms: 0,
        ..r.clone()
    };
    untimed(a) == untimed(b)
}

/// Reads `games.jsonl` (for the move lists), with every record's `movers` filled in.
pub fn read_records(dir: &Path) -> Result<Vec<GameRecord>> {
    let path = dir.join(GAMES_JSONL);
    let Some(file) = files::open_read_if_exists(&path)? else {
        return Ok(Vec::new());
    };
    let mut out = Vec::new();
    // Duplicates as in `games.csv` (copies skipped silently: `read_games` says so).
    let (mut seen, mut rows) = (Seen::default(), Vec::new());
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        let Some(rec) = GameRecord::from_line(line.as_bytes())
            .map_err(|e| anyhow::anyhow!("{}: line {} is malformed: {e}", path.display(), i + 1))?
        else {
            continue;
        };
        if seen.keep(&path, i as u64 + 1, &rec.row, &rows, &mut Vec::new())? {
            rows.push(rec.row.clone());
            out.push(rec);
        }
    }
    Ok(out)
}

/// Reads what a growing run folder appends to `games.csv` and `games.jsonl`, a piece at a
/// time: each call parses only the complete lines written since the previous one, so a reader
/// that watches a 100,000-game folder (`arena serve`) never parses a game twice. A line still
/// being written (no line end yet) is left for the next call; a file that became shorter than
/// what was read (rewritten by `--resume`'s repair) is reported as [`Tail::Rewritten`] and the
/// caller starts again with a fresh reader.
#[derive(Debug, Default)]
pub struct GamesTail {
    csv_offset: u64,
    headers: Option<csv::StringRecord>,
    /// A CSV record whose quoted field spans a line end, so far.
    pending: Vec<u8>,
    /// Game ids read from `games.csv` (a second copy of a row is skipped, as [`read_games`]
    /// does).
    ids: std::collections::HashSet<u64>,
    jsonl_offset: u64,
}

/// What one read of a [`GamesTail`] found.
#[derive(Debug)]
pub enum Tail<T> {
    /// The items appended since the last read (possibly none).
    New(Vec<T>),
    /// The file is shorter than what was already read: start again.
    Rewritten,
}

impl GamesTail {
    /// The `games.csv` rows appended since the last call (a game id seen before is skipped).
    pub fn new_rows(&mut self, dir: &Path) -> Result<Tail<GameRow>> {
        let path = dir.join(GAMES_CSV);
        let mut rows = Vec::new();
        let mut error = None;
        let read = complete_lines(&path, self.csv_offset, |_, line| {
            if error.is_some() {
                return false;
            }
            self.pending.extend_from_slice(line);
            if self.pending.len() as u64 > MAX_LINE {
                error = Some(format!(
                    "{}: a quoted field runs on for more than {} MiB: not a games.csv row",
                    path.display(),
                    MAX_LINE >> 20
                ));
                return false;
            }
            // An odd number of quotes: a quoted field goes on past this line end.
            if self.pending.iter().filter(|&&b| b == b'"').count() % 2 == 1 {
                return true;
            }
            let bytes = std::mem::take(&mut self.pending);
            let mut reader = csv::ReaderBuilder::new()
                .has_headers(false)
                .from_reader(bytes.as_slice());
            let mut record = csv::StringRecord::new();
            match reader.read_record(&mut record) {
                Ok(true) => {}
                Ok(false) => return true,
                Err(e) => {
                    error = Some(format!("{}: {e}", path.display()));
                    return false;
                }
            }
            let Some(headers) = &self.headers else {
                self.headers = Some(record);
                return true;
            };
            match record.deserialize::<GameRow>(Some(headers)) {
                Ok(row) => {
                    if self.ids.insert(row.game_id) {
                        rows.push(row);
                    }
                    true
                }
                Err(e) => {
                    error = Some(format!("{}: a malformed row: {e}", path.display()));
                    false
                }
            }
        })?;
        if let Some(e) = error {
            bail!(e);
        }
        match read {
            Some(offset) => {
                // Complete lines consumed; a record spanning lines waits in `pending`.
                self.csv_offset = offset;
                Ok(Tail::New(rows))
            }
            None => Ok(Tail::Rewritten),
        }
    }

    /// The `games.jsonl` records appended since the last call, each with the byte offset of its
    /// line (for [`read_record_at`]) and its `movers` filled in.
    pub fn new_records(
        &mut self,
        dir: &Path,
        mut each: impl FnMut(u64, GameRecord),
    ) -> Result<Tail<()>> {
        let path = dir.join(GAMES_JSONL);
        let mut error = None;
        let read = complete_lines(&path, self.jsonl_offset, |offset, line| {
            match GameRecord::from_line(line) {
                Ok(Some(rec)) => each(offset, rec),
                Ok(None) => {}
                Err(e) => {
                    error = Some(format!("{} at byte {offset}: {e}", path.display()));
                    return false;
                }
            }
            true
        })?;
        if let Some(e) = error {
            bail!(e);
        }
        match read {
            Some(offset) => {
                self.jsonl_offset = offset;
                Ok(Tail::New(Vec::new()))
            }
            None => Ok(Tail::Rewritten),
        }
    }
}

impl GameRecord {
    /// One `games.jsonl` line as a record with its `movers` (`None` for a blank line).
    pub fn from_line(line: &[u8]) -> Result<Option<GameRecord>, String> {
        if line.iter().all(u8::is_ascii_whitespace) {
            return Ok(None);
        }
        let mut rec: GameRecord = serde_json::from_slice(line).map_err(|e| e.to_string())?;
        rec.fill_movers()?;
        Ok(Some(rec))
    }
}

/// The `games.jsonl` record whose line starts at byte `offset` (as [`GamesTail::new_records`]
/// reported it).
pub fn read_record_at(dir: &Path, offset: u64) -> Result<GameRecord> {
    let path = dir.join(GAMES_JSONL);
    let mut file = files::open_read(&path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut line = Vec::new();
    BufReader::new(file)
        .take(MAX_LINE)
        .read_until(b'\n', &mut line)?;
    GameRecord::from_line(&line)
        .map_err(|e| anyhow::anyhow!("{} at byte {offset}: {e}", path.display()))?
        .with_context(|| format!("{}: no game at byte {offset}", path.display()))
}

/// The longest line a reader of a growing folder takes in (a game of 400 sows is a few KiB): a
/// longer one, or a last line that goes on past it without a line end, is not a games line, and
/// reading it whole would let one file take the reader's memory.
pub const MAX_LINE: u64 = 16 << 20;

/// Calls `each(offset, line)` for every complete line of `path` from byte `from` on (line end
/// included), until it returns false or a line has no end yet. Returns the offset after the last
/// line handed over, `Some(from)` for a missing file, or `None` when the file is shorter than
/// `from`. A line of [`MAX_LINE`] bytes without an end is an error naming where it starts.
fn complete_lines(
    path: &Path,
    from: u64,
    mut each: impl FnMut(u64, &[u8]) -> bool,
) -> Result<Option<u64>> {
    let Some(file) = files::open_read_if_exists(path)? else {
        return Ok(Some(from));
    };
    let len = file.metadata()?.len();
    if len < from {
        return Ok(None);
    }
    let mut reader = BufReader::with_capacity(1 << 16, file);
    reader.seek(SeekFrom::Start(from))?;
    // Only what was there when we looked: a writer appending meanwhile is read next time.
    let mut reader = reader.take(len - from);
    let mut offset = from;
    let mut line = Vec::new();
    loop {
        line.clear();
        let n = (&mut reader).take(MAX_LINE).read_until(b'\n', &mut line)?;
        if n as u64 == MAX_LINE && line.last() != Some(&b'\n') {
            bail!(
                "{}: the line at byte {offset} runs past {} MiB without a line end: not a line of a games file",
                path.display(),
                MAX_LINE >> 20
            );
        }
        if n == 0 || line.last() != Some(&b'\n') {
            break;
        }
        if !each(offset, &line) {
            break;
        }
        offset += n as u64;
    }
    Ok(Some(offset))
}

/// Cuts a file back to its last complete line, after `valid` accepted its bytes (a file it
/// refuses is left as it is, and its error returned). Returns whether anything was cut.
fn cut_torn_line_if(path: &Path, valid: impl Fn(&[u8]) -> Result<()>) -> Result<bool> {
    let mut file = match files::open(path, OpenOptions::new().read(true).write(true), "repair") {
        Ok(file) => file,
        Err(e) if e.is_not_found() => return Ok(false),
        Err(e) => return Err(e.into()),
    };
    let mut data = Vec::new();
    file.read_to_end(&mut data)
        .with_context(|| format!("cannot read {}", path.display()))?;
    valid(&data)?;
    let keep = match data.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => 0,
    };
    if keep == data.len() {
        return Ok(false);
    }
    file.set_len(keep as u64)
        .and_then(|()| file.sync_all())
        .with_context(|| format!("cannot cut the torn last line off {}", path.display()))?;
    Ok(true)
}

/// Cuts a file back to its last complete line. Returns whether anything was cut.
pub fn cut_torn_line(path: &Path) -> Result<bool> {
    cut_torn_line_if(path, |_| Ok(()))
}

/// `games.csv` as a run writes it: empty, starting with its header line, or a header torn
/// before its line end.
fn games_csv_start(path: &Path, bytes: &[u8]) -> Result<()> {
    const START: &[u8] = b"game_id,";
    let torn_header = !bytes.contains(&b'\n') && bytes.len() < 512;
    if bytes.is_empty() || bytes.starts_with(START) || (torn_header && START.starts_with(bytes)) {
        return Ok(());
    }
    bail!(
        "{} does not start with the games.csv header: is this a run folder? (nothing in it was changed)",
        path.display()
    )
}

/// The header line of `games.csv` as this version writes it.
fn current_header() -> String {
    let row = GameRow::blank();
    let mut w = csv::Writer::from_writer(Vec::new());
    let _ = w.serialize(&row);
    let bytes = w.into_inner().unwrap_or_default();
    let text = String::from_utf8_lossy(&bytes);
    text.lines().next().unwrap_or_default().to_string()
}

/// A `games.csv` written by an older arena, whose header lacks the columns added since (the
/// CPU times, the random moves), rewritten whole with today's header and those columns at 0, so
/// that the games a resume appends fit it. Returns what was done, if anything.
fn add_new_columns(path: &Path) -> Result<Option<String>> {
    let Some(file) = files::open_read_if_exists(path)? else {
        return Ok(None);
    };
    let mut header = String::new();
    BufReader::new(file)
        .take(64 << 10)
        .read_line(&mut header)
        .with_context(|| format!("cannot read {}", path.display()))?;
    let header = header.trim_end_matches(['\n', '\r']);
    let current = current_header();
    if header.is_empty() || header == current || !current.starts_with(&format!("{header},")) {
        return Ok(None);
    }
    let dir = path.parent().unwrap_or(Path::new("."));
    let rows = read_games(dir)?;
    let tmp = dir.join(format!("{GAMES_CSV}.tmp"));
    let mut out = csv::Writer::from_writer(files::create(&tmp)?);
    let write = |out: &mut csv::Writer<File>| -> Result<()> {
        for row in &rows {
            out.serialize(row)?;
        }
        if rows.is_empty() {
            out.write_record(current.split(','))?;
        }
        out.flush()?;
        Ok(())
    };
    write(&mut out).with_context(|| format!("cannot write {}", tmp.display()))?;
    let file = out.into_inner().map_err(|e| anyhow::anyhow!("{e}"))?;
    file.sync_all()
        .and_then(|()| fs::rename(&tmp, path))
        .with_context(|| format!("cannot write {}", path.display()))?;
    let added = current[header.len() + 1..].replace(',', ", ");
    Ok(Some(format!(
        "{}: added the columns {added} (written by an older arena; 0 in its {} games)",
        path.display(),
        rows.len()
    )))
}

/// Brings a run folder back to a consistent state after a crash: cuts torn last lines, and
/// rewrites `games.jsonl` to hold exactly the games of `games.csv`. Returns the finished game
/// ids and a list of what was repaired.
pub fn repair(dir: &Path) -> Result<(BTreeSet<u64>, Vec<String>)> {
    let mut notes = Vec::new();
    let csv_path = dir.join(GAMES_CSV);
    // Checked before anything is cut: a file that is not a games.csv is left whole.
    if cut_torn_line_if(&csv_path, |bytes| games_csv_start(&csv_path, bytes))? {
        notes.push(format!("cut a torn last line off {}", csv_path.display()));
    }
    // A header-torn file (cut to nothing): start it afresh.
    if fs::symlink_metadata(&csv_path).is_ok_and(|m| m.is_file() && m.len() == 0) {
        fs::remove_file(&csv_path)
            .with_context(|| format!("cannot remove the empty {}", csv_path.display()))?;
    }
    if let Some(note) = add_new_columns(&csv_path)? {
        notes.push(note);
    }
    let rows = read_games(dir)?;
    let done: BTreeSet<u64> = rows.iter().map(|r| r.game_id).collect();
    let jsonl_path = dir.join(GAMES_JSONL);
    if cut_torn_line(&jsonl_path)? {
        notes.push(format!("cut a torn last line off {}", jsonl_path.display()));
    }
    let records = read_records(dir)?;
    let kept: Vec<&GameRecord> = records
        .iter()
        .filter(|r| done.contains(&r.row.game_id))
        .collect();
    if kept.len() != records.len() {
        notes.push(format!(
            "dropped {} game(s) from {} that games.csv does not hold",
            records.len() - kept.len(),
            jsonl_path.display()
        ));
        let tmp = dir.join(format!("{GAMES_JSONL}.tmp"));
        let mut out = files::create(&tmp)?;
        for rec in kept {
            writeln!(out, "{}", serde_json::to_string(rec)?)
                .with_context(|| format!("cannot write {}", tmp.display()))?;
        }
        out.sync_all()
            .and_then(|()| fs::rename(&tmp, &jsonl_path))
            .with_context(|| format!("cannot write {}", jsonl_path.display()))?;
    }
    Ok((done, notes))
}

/// Player names in a stable order: `run.json`'s order if the folder has one, then any other name
/// in order of first appearance.
pub fn player_names(dir: &Path, rows: &[GameRow]) -> Vec<String> {
    let mut names: Vec<String> = RunFile::read(dir)
        .map(|r| r.config.players.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    let mut known: std::collections::HashSet<String> = names.iter().cloned().collect();
    for row in rows {
        for n in [&row.first, &row.second] {
            if !known.contains(n) {
                known.insert(n.clone());
                names.push(n.clone());
            }
        }
    }
    names
}

/// What in `rows` the run's schedule (`run.json`) does not contain: players it does not list,
/// game ids past its end or played by other players than it schedules. At most `limit`
/// examples, then a count.
pub fn schedule_warnings(run: &RunFile, rows: &[GameRow], limit: usize) -> Vec<String> {
    let config = &run.config;
    let schedule =
        crate::vocab::schedule::Schedule::new(config.players.len(), &config.format, config.pairs);
    let known: std::collections::HashSet<&str> =
        config.players.iter().map(|p| p.name.as_str()).collect();
    let mut strangers: Vec<&str> = Vec::new();
    let mut odd = Vec::new();
    for row in rows {
        for name in [&row.first, &row.second] {
            if !known.contains(name.as_str()) && !strangers.contains(&name.as_str()) {
                strangers.push(name);
            }
        }
        let fits = row.game_id < schedule.game_count() && {
            let p = schedule.pairing(row.game_id);
            config.players[p.first].name == row.first && config.players[p.second].name == row.second
        };
        if !fits {
            odd.push(row.game_id);
        }
    }
    let mut warnings = Vec::new();
    if !strangers.is_empty() {
        warnings.push(format!(
            "players not in run.json: {} (their games are rated all the same)",
            strangers.join(", ")
        ));
    }
    if !odd.is_empty() {
        let shown: Vec<String> = odd.iter().take(limit).map(u64::to_string).collect();
        warnings.push(format!(
            "{} game(s) not in run.json's schedule (game ids {}{}): another run's games?",
            odd.len(),
            shown.join(", "),
            if odd.len() > limit { ", ..." } else { "" }
        ));
    }
    warnings
}

/// The rows as rating games among `names` (indices into it), in game-id order; forfeits left out
/// if asked.
pub fn rated_games(
    rows: &[GameRow],
    names: &[String],
    exclude_forfeits: bool,
) -> Result<Vec<RatedGame>> {
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let player = |row: &GameRow, name: &str| {
        index
            .get(name)
            .copied()
            .with_context(|| format!("game {}: `{name}` is not a player", row.game_id))
    };
    let mut sorted: Vec<&GameRow> = rows.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    let mut games = Vec::with_capacity(rows.len());
    for row in sorted {
        if exclude_forfeits && row.forfeit.is_some() {
            continue;
        }
        if row.first == row.second {
            bail!("game {}: `{}` plays itself", row.game_id, row.first);
        }
        games.push(RatedGame {
            pair: row.pair_id,
            first: player(row, &row.first)?,
            second: player(row, &row.second)?,
            outcome: row.result,
        });
    }
    Ok(games)
}

/// How often each termination occurred, most frequent first (ties by name).
pub fn termination_counts(rows: &[GameRow]) -> Vec<(Termination, usize)> {
    let mut counts: Vec<(Termination, usize)> = Vec::new();
    for row in rows {
        match counts.iter_mut().find(|(t, _)| *t == row.termination) {
            Some((_, n)) => *n += 1,
            None => counts.push((row.termination, 1)),
        }
    }
    counts.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.as_str().cmp(b.0.as_str())));
    counts
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::path::PathBuf;

    fn row(id: u64) -> GameRecord {
        GameRecord {
            row: GameRow {
                game_id: id,
                pair_id: id / 2,
                round: 0,
                first: "a".into(),
                second: "b".into(),
                rules: Ruleset::default(),
                opening: "3 1".parse().unwrap(),
                result: Outcome::Win,
                score_first: 30,
                score_second: 18,
                sows: 40,
                termination: Termination::Normal,
                forfeit: None,
                detail: String::new(),
                wall_ms: 5,
                first_think_ms: 1,
                first_max_ms: 1,
                second_think_ms: 1,
                second_max_ms: 1,
                ..GameRow::blank()
            },
            moves: vec![Move::Pit(3), Move::Pit(1)],
            think_ms: vec![],
            movers: vec![],
            cpu_ms: vec![],
            random: vec![],
        }
    }

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arena-results-{name}-{}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn torn_lines_are_cut_and_jsonl_follows_csv() {
        let dir = temp_dir("torn");
        let mut w = ResultsWriter::open(&dir).unwrap();
        w.append(&row(0)).unwrap();
        w.append(&row(1)).unwrap();
        drop(w);
        // A crash while writing game 2: the jsonl line is complete, the csv line is torn.
        let mut jsonl = OpenOptions::new()
            .append(true)
            .open(dir.join(GAMES_JSONL))
            .unwrap();
        writeln!(jsonl, "{}", serde_json::to_string(&row(2)).unwrap()).unwrap();
        let mut csv = OpenOptions::new()
            .append(true)
            .open(dir.join(GAMES_CSV))
            .unwrap();
        write!(csv, "2,1,0,a,b,kal").unwrap();
        assert!(
            read_games(&dir).is_err(),
            "a torn line must not read as a game"
        );
        let (done, notes) = repair(&dir).unwrap();
        assert_eq!(done.into_iter().collect::<Vec<_>>(), vec![0, 1]);
        assert_eq!(notes.len(), 2, "{notes:?}");
        assert_eq!(read_records(&dir).unwrap().len(), 2);
        // Appending after the repair continues cleanly, without a second header.
        let mut w = ResultsWriter::open(&dir).unwrap();
        w.append(&row(2)).unwrap();
        assert_eq!(read_games(&dir).unwrap().len(), 3);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A file on a disk that has `room` bytes left: it takes what fits, then fails as a full
    /// disk does (`ENOSPC`).
    struct FullDisk {
        written: Vec<u8>,
        room: usize,
    }

    impl Write for FullDisk {
        fn write(&mut self, buf: &[u8]) -> std::io::Result<usize> {
            let n = buf.len().min(self.room - self.written.len());
            if n == 0 && !buf.is_empty() {
                return Err(std::io::Error::from_raw_os_error(28));
            }
            self.written.extend_from_slice(&buf[..n]);
            Ok(n)
        }

        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    #[test]
    fn a_full_disk_is_reported_as_one_with_the_file_and_the_way_on() {
        let dir = Path::new("/runs/with space/t");
        let disk = |room| FullDisk {
            written: Vec::new(),
            room,
        };
        // games.jsonl fills up in the middle of the second game's line.
        let mut w = ResultsWriter::from_writers(dir, disk(1 << 20), true, disk(600));
        w.append(&row(0)).unwrap();
        let err = format!("{:#}", w.append(&row(1)).unwrap_err());
        assert!(err.contains("/runs/with space/t/games.jsonl"), "{err}");
        assert!(err.contains("the disk is full"), "{err}");
        assert!(
            err.contains("`arena run --resume '/runs/with space/t'`"),
            "{err}"
        );
        assert!(!err.contains("malformed"), "{err}");
        // And games.csv, once games.jsonl had room.
        let mut w = ResultsWriter::from_writers(dir, disk(10), true, disk(1 << 20));
        let err = format!("{:#}", w.append(&row(0)).unwrap_err());
        assert!(err.contains("t/games.csv: the disk is full"), "{err}");
        // Another failure is said as it is, with the file.
        struct Broken;
        impl Write for Broken {
            fn write(&mut self, _: &[u8]) -> std::io::Result<usize> {
                Err(std::io::Error::from_raw_os_error(5))
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let mut w = ResultsWriter::from_writers(dir, Broken, true, Broken);
        let err = format!("{:#}", w.append(&row(0)).unwrap_err());
        assert!(
            err.contains("cannot write /runs/with space/t/games.jsonl"),
            "{err}"
        );
        assert!(!err.contains("disk is full"), "{err}");
    }

    #[test]
    fn a_folder_whose_games_were_deleted_is_noticed_at_the_next_write() {
        let dir = temp_dir("deleted");
        let mut w = ResultsWriter::open(&dir).unwrap();
        w.append_checked(&row(0)).unwrap();
        fs::remove_dir_all(&dir).unwrap();
        let err = format!("{:#}", w.append_checked(&row(1)).unwrap_err());
        assert!(err.contains(&dir.display().to_string()), "{err}");
        assert!(err.contains("deleted"), "{err}");
    }

    #[test]
    fn resume_repair_leaves_a_file_that_is_not_games_csv_whole() {
        let dir = temp_dir("not-games");
        let text = "precious\nno line end";
        fs::write(dir.join(GAMES_CSV), text).unwrap();
        let err = repair(&dir).unwrap_err().to_string();
        assert!(
            err.contains("does not start with the games.csv header"),
            "{err}"
        );
        assert_eq!(fs::read_to_string(dir.join(GAMES_CSV)).unwrap(), text);
        // A header torn before its line end is a run killed at once: started afresh.
        fs::write(dir.join(GAMES_CSV), "game_id,pa").unwrap();
        repair(&dir).unwrap();
        assert!(!dir.join(GAMES_CSV).exists());
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A folder of an older arena resumed: its `games.csv` gets today's columns, the games it
    /// holds keep everything they had, and a game appended after fits the header.
    #[test]
    fn a_resume_gives_an_older_games_csv_the_new_columns() {
        let dir = temp_dir("old-columns");
        let old = "game_id,pair_id,round,first,second,rules,opening,result,score_first,\
                   score_second,sows,termination,forfeit,detail,wall_ms,first_think_ms,\
                   first_max_ms,second_think_ms,second_max_ms\n\
                   0,0,0,a,b,kalah,3 1,1-0,30,18,40,normal,,SideEmpty,5,1,1,1,1\n";
        fs::write(dir.join(GAMES_CSV), old).unwrap();
        let (done, notes) = repair(&dir).unwrap();
        assert_eq!(done.len(), 1);
        assert!(
            notes.iter().any(|n| n.contains(
                "added the columns first_cpu_ms, second_cpu_ms, first_random, second_random"
            )),
            "{notes:?}"
        );
        let text = fs::read_to_string(dir.join(GAMES_CSV)).unwrap();
        assert!(text.starts_with(&current_header()), "{text}");
        let mut w = ResultsWriter::open(&dir).unwrap();
        let mut next = row(1);
        next.row.first_cpu_ms = 120;
        next.row.first_random = 2;
        w.append(&next).unwrap();
        let rows = read_games(&dir).unwrap();
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].detail.as_str(), rows[0].first_cpu_ms),
            ("SideEmpty", 0)
        );
        assert_eq!((rows[1].first_cpu_ms, rows[1].first_random), (120, 2));
        // Today's file is left as it is.
        assert!(repair(&dir).unwrap().1.is_empty());
        fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn typed_columns_keep_their_text_form() {
        let dir = temp_dir("typed");
        let mut game = row(0);
        game.row.rules = "kalah:pie=true".parse().unwrap();
        game.row.result = Outcome::Draw;
        game.row.termination = Termination::Forfeit(FaultKind::IllegalMove);
        game.row.forfeit = Some("b".into());
        let mut w = ResultsWriter::open(&dir).unwrap();
        w.append(&game).unwrap();
        w.append(&row(1)).unwrap();
        drop(w);
        let csv = fs::read_to_string(dir.join(GAMES_CSV)).unwrap();
        assert!(
            csv.contains(",kalah:pie=true,3 1,1/2-1/2,30,18,40,illegal_move,b,,5,"),
            "{csv}"
        );
        assert!(csv.contains(",kalah,3 1,1-0,30,18,40,normal,,,5,"), "{csv}");
        let jsonl = fs::read_to_string(dir.join(GAMES_JSONL)).unwrap();
        assert!(jsonl.contains(r#""forfeit":"","#), "{jsonl}");
        assert!(jsonl.contains(r#""moves":["3","1"]"#), "{jsonl}");
        assert_eq!(read_games(&dir).unwrap()[0], game.row);
        assert_eq!(read_records(&dir).unwrap()[0], game);
        fs::remove_dir_all(&dir).unwrap();
    }

    /// A record of game 7 written before `movers` existed.
    fn old_record(opening: &str, moves: &[&str], think: &[u64]) -> GameRecord {
        let mut r = row(7);
        r.row.opening = opening.parse().unwrap();
        r.moves = moves.iter().map(|m| m.parse().unwrap()).collect();
        r.think_ms = think.to_vec();
        r
    }

    #[test]
    fn extra_turns_keep_the_mover() {
        // Kalah(6,4): pit 3's four seeds end in the store (extra turn); pit 1's do not.
        let mut r = old_record("", &["3", "1", "1"], &[10, 20, 30]);
        r.fill_movers().unwrap();
        assert_eq!(r.movers, vec![0, 0, 1]);
    }

    #[test]
    fn opening_moves_have_no_think_time() {
        // After the opening `3 1` north is to move: the first timed sow is the second player's,
        // the next the first player's.
        let mut r = old_record("3 1", &["3", "1", "1", "2"], &[30, 40]);
        r.fill_movers().unwrap();
        assert_eq!(r.movers, vec![1, 0]);
    }

    #[test]
    fn mismatched_records_are_reported_not_attributed() {
        let mut r = old_record("", &["3", "1"], &[10]);
        assert!(r.fill_movers().unwrap_err().contains("game 7"));
        let mut bad = old_record("", &["9"], &[10]);
        assert!(bad.fill_movers().is_err());
    }

    #[test]
    fn records_written_before_movers_are_read_with_them() {
        let dir = temp_dir("old-jsonl");
        let line = r#"{"game_id":0,"pair_id":0,"round":0,"first":"a","second":"b","rules":"kalah","opening":"","result":"1-0","score_first":30,"score_second":18,"sows":3,"termination":"normal","forfeit":"","detail":"","wall_ms":5,"first_think_ms":1,"first_max_ms":1,"second_think_ms":1,"second_max_ms":1,"moves":["3","6","2"],"think_ms":[1,2,3]}"#;
        fs::write(dir.join(GAMES_JSONL), format!("{line}\n")).unwrap();
        let records = read_records(&dir).unwrap();
        assert_eq!(records[0].movers, vec![0, 0, 1]);
        fs::remove_dir_all(&dir).unwrap();
    }
}
