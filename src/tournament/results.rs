//! The results folder: `games.csv` (one row per game), `games.jsonl` (every move), `games.pgn`
//! (derived, for Ordo and BayesElo), written so that nothing is lost when the arena dies.
//!
//! Each finished game is appended to `games.jsonl` and then to `games.csv`, and both are flushed
//! before the next game is taken. `games.csv` is authoritative: on resume a torn last line is cut
//! off, and `games.jsonl` is rewritten to hold exactly the games `games.csv` holds.
//!
//! # `games.jsonl` format
//! One JSON object per line: every `games.csv` column under the same name, plus `moves` (the
//! whole move list from the start, opening included, as strings: pit numbers and `swap`) and
//! `think_ms` (the think time of each move after the opening, in ms).

use std::collections::BTreeSet;
use std::fs::{self, File, OpenOptions};
use std::io::{BufRead, BufReader, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

/// How a game ended.
pub mod termination {
    /// The rules ended the game (a side empty, no move, majority, repetition…).
    pub const NORMAL: &str = "normal";
    /// The ruleset's sow cap.
    pub const SOW_CAP: &str = "sow_cap";
    /// `--adjudicate`: the outcome could no longer change.
    pub const ADJUDICATED: &str = "adjudicated";
    // Forfeits use the fault kind's name: spawn, handshake, crash, timeout, malformed_move,
    // illegal_move, garbage, line_too_long, io.
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
    pub rules: String,
    pub opening: String,
    /// From the first player's view: `1-0`, `0-1` or `1/2-1/2`.
    pub result: String,
    /// Final seeds of the first and second player (after the end-of-game sweep), or the stores
    /// when the game ended early (forfeit, adjudication).
    pub score_first: u32,
    pub score_second: u32,
    pub sows: u32,
    pub termination: String,
    /// The player who forfeited, if any.
    pub forfeit: String,
    /// What happened, in words (the fault's detail, the rules' end reason).
    pub detail: String,
    pub wall_ms: u64,
    pub first_think_ms: u64,
    pub first_max_ms: u64,
    pub second_think_ms: u64,
    pub second_max_ms: u64,
}

impl GameRow {
    /// The first player's points: 1, 0.5 or 0.
    pub fn first_points(&self) -> Option<f64> {
        match self.result.as_str() {
            "1-0" => Some(1.0),
            "0-1" => Some(0.0),
            "1/2-1/2" => Some(0.5),
            _ => None,
        }
    }
}

/// A row plus the move list: one `games.jsonl` line.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct GameRecord {
    #[serde(flatten)]
    pub row: GameRow,
    pub moves: Vec<String>,
    pub think_ms: Vec<u64>,
}

pub const RUN_JSON: &str = "run.json";
pub const GAMES_CSV: &str = "games.csv";
pub const GAMES_JSONL: &str = "games.jsonl";
pub const GAMES_PGN: &str = "games.pgn";
pub const LOGS_DIR: &str = "logs";

/// Appends finished games to a run folder.
pub struct ResultsWriter {
    csv: csv::Writer<File>,
    jsonl: File,
}

impl ResultsWriter {
    /// Opens the folder's files for appending (creating them, with the CSV header, if new).
    pub fn open(dir: &Path) -> Result<ResultsWriter> {
        let csv_path = dir.join(GAMES_CSV);
        let new = !csv_path.exists() || fs::metadata(&csv_path)?.len() == 0;
        let file = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&csv_path)
            .with_context(|| format!("cannot open {}", csv_path.display()))?;
        let csv = csv::WriterBuilder::new().has_headers(new).from_writer(file);
        let jsonl_path = dir.join(GAMES_JSONL);
        let jsonl = OpenOptions::new()
            .create(true)
            .append(true)
            .open(&jsonl_path)
            .with_context(|| format!("cannot open {}", jsonl_path.display()))?;
        Ok(ResultsWriter { csv, jsonl })
    }

    /// Appends one game to both files and flushes them to the operating system.
    pub fn append(&mut self, record: &GameRecord) -> Result<()> {
        let mut line = serde_json::to_string(record)?;
        line.push('\n');
        self.jsonl.write_all(line.as_bytes())?;
        self.jsonl.flush()?;
        self.csv.serialize(&record.row)?;
        self.csv.flush()?;
        Ok(())
    }
}

/// Reads `games.csv`. A torn last line (a crash mid-write) is an error naming the row; [`repair`]
/// cuts it off.
pub fn read_games(dir: &Path) -> Result<Vec<GameRow>> {
    let path = dir.join(GAMES_CSV);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let mut reader =
        csv::Reader::from_path(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut rows = Vec::new();
    for (i, row) in reader.deserialize::<GameRow>().enumerate() {
        let row = row.with_context(|| format!("{}: row {} is malformed (run `arena run --resume` on the folder to repair a torn last line)", path.display(), i + 2))?;
        rows.push(row);
    }
    Ok(rows)
}

/// Reads `games.jsonl` (for the move lists).
pub fn read_records(dir: &Path) -> Result<Vec<GameRecord>> {
    let path = dir.join(GAMES_JSONL);
    if !path.exists() {
        return Ok(Vec::new());
    }
    let file = File::open(&path).with_context(|| format!("cannot read {}", path.display()))?;
    let mut out = Vec::new();
    for (i, line) in BufReader::new(file).lines().enumerate() {
        let line = line?;
        if line.trim().is_empty() {
            continue;
        }
        let rec: GameRecord = serde_json::from_str(&line)
            .with_context(|| format!("{}: line {} is malformed", path.display(), i + 1))?;
        out.push(rec);
    }
    Ok(out)
}

/// Cuts a file back to its last complete line. Returns whether anything was cut.
pub fn cut_torn_line(path: &Path) -> Result<bool> {
    if !path.exists() {
        return Ok(false);
    }
    let data = fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
    let keep = match data.iter().rposition(|&b| b == b'\n') {
        Some(i) => i + 1,
        None => 0,
    };
    if keep == data.len() {
        return Ok(false);
    }
    let mut file = OpenOptions::new().write(true).open(path)?;
    file.set_len(keep as u64)?;
    file.seek(SeekFrom::End(0))?;
    file.sync_all()?;
    Ok(true)
}

/// Brings a run folder back to a consistent state after a crash: cuts torn last lines, and
/// rewrites `games.jsonl` to hold exactly the games of `games.csv`. Returns the finished game
/// ids and a list of what was repaired.
pub fn repair(dir: &Path) -> Result<(BTreeSet<u64>, Vec<String>)> {
    let mut notes = Vec::new();
    let csv_path = dir.join(GAMES_CSV);
    if cut_torn_line(&csv_path)? {
        notes.push(format!("cut a torn last line off {}", csv_path.display()));
    }
    // A header-only or header-torn file: start it afresh.
    if csv_path.exists() {
        let text = fs::read_to_string(&csv_path)?;
        if !text.starts_with("game_id,") {
            if text.is_empty() {
                fs::remove_file(&csv_path)?;
            } else {
                bail!(
                    "{} does not start with the games.csv header: is this a run folder?",
                    csv_path.display()
                );
            }
        }
    }
    let rows = read_games(dir)?;
    let done: BTreeSet<u64> = rows.iter().map(|r| r.game_id).collect();
    if done.len() != rows.len() {
        bail!(
            "{} lists a game id twice: the folder was written by two runs at once",
            csv_path.display()
        );
    }
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
        let mut out = File::create(&tmp)?;
        for rec in kept {
            writeln!(out, "{}", serde_json::to_string(rec)?)?;
        }
        out.sync_all()?;
        fs::rename(&tmp, &jsonl_path)?;
    }
    Ok((done, notes))
}

/// Writes `games.pgn` from `games.jsonl`, in game-id order, with the headers Ordo and BayesElo
/// read (`White` = first player, `Black` = second, `Result`) and the moves as movetext.
pub fn write_pgn(dir: &Path) -> Result<PathBuf> {
    let mut records = read_records(dir)?;
    records.sort_by_key(|r| r.row.game_id);
    let path = dir.join(GAMES_PGN);
    let mut out = std::io::BufWriter::new(File::create(&path)?);
    for rec in &records {
        let r = &rec.row;
        writeln!(out, "[Event \"mancala-arena\"]")?;
        writeln!(out, "[Site \"?\"]")?;
        writeln!(out, "[Round \"{}\"]", r.round + 1)?;
        writeln!(out, "[White \"{}\"]", pgn_escape(&r.first))?;
        writeln!(out, "[Black \"{}\"]", pgn_escape(&r.second))?;
        writeln!(out, "[Result \"{}\"]", r.result)?;
        writeln!(out, "[GameId \"{}\"]", r.game_id)?;
        writeln!(out, "[Variant \"{}\"]", pgn_escape(&r.rules))?;
        writeln!(out, "[Opening \"{}\"]", pgn_escape(&r.opening))?;
        writeln!(out, "[Score \"{}-{}\"]", r.score_first, r.score_second)?;
        writeln!(out, "[PlyCount \"{}\"]", rec.moves.len())?;
        writeln!(out, "[Termination \"{}\"]", r.termination)?;
        writeln!(out)?;
        let mut line = String::new();
        for (i, mv) in rec.moves.iter().enumerate() {
            if i % 2 == 0 {
                line.push_str(&format!("{}. ", i / 2 + 1));
            }
            line.push_str(mv);
            line.push(' ');
        }
        line.push_str(&r.result);
        writeln!(out, "{line}")?;
        writeln!(out)?;
    }
    out.flush()?;
    Ok(path)
}

fn pgn_escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: u64) -> GameRecord {
        GameRecord {
            row: GameRow {
                game_id: id,
                pair_id: id / 2,
                round: 0,
                first: "a".into(),
                second: "b".into(),
                rules: "kalah".into(),
                opening: "3 1".into(),
                result: "1-0".into(),
                score_first: 30,
                score_second: 18,
                sows: 40,
                termination: "normal".into(),
                forfeit: String::new(),
                detail: String::new(),
                wall_ms: 5,
                first_think_ms: 1,
                first_max_ms: 1,
                second_think_ms: 1,
                second_max_ms: 1,
            },
            moves: vec!["3".into(), "1".into()],
            think_ms: vec![],
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

    #[test]
    fn pgn_has_ordo_headers() {
        let dir = temp_dir("pgn");
        let mut w = ResultsWriter::open(&dir).unwrap();
        w.append(&row(0)).unwrap();
        let pgn = fs::read_to_string(write_pgn(&dir).unwrap()).unwrap();
        assert!(
            pgn.contains("[White \"a\"]")
                && pgn.contains("[Black \"b\"]")
                && pgn.contains("[Result \"1-0\"]")
        );
        assert!(pgn.contains("1. 3 1 1-0"));
        fs::remove_dir_all(&dir).unwrap();
    }
}
