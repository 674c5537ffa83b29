//! `games.pgn`: the games in the Portable Game Notation that Ordo and BayesElo read as they read
//! chess tournaments. Derived from `games.jsonl`, or from `games.csv` alone where a folder has
//! no `games.jsonl` (then without movetext: the result is what the rating programs read);
//! written at the end of a run, by `arena merge`, and by `arena rate` when it is missing.
//!
//! # Format
//! One game per record, in game-id order. Tags: the seven-tag roster `Event`, `Site`, `Date`
//! (the run's start from `run.json`, `????.??.??` without one), `Round`, `White` (the first
//! player), `Black` (the second), `Result`, then the arena's own `GameId`, `Variant` (the
//! ruleset string), `Opening`, `Score` (final seeds, first player first), `PlyCount` (sows,
//! `swap` included) and `Termination`. The movetext numbers every two moves like chess and
//! writes each move as its pit number or `swap`, then the result.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::games::{has_records, read_games, read_records, GameRow};
use super::RunFile;
use crate::rules::Move;

pub const GAMES_PGN: &str = "games.pgn";

/// Writes `games.pgn` from `games.jsonl`, or from `games.csv` (no moves) without one.
pub fn write_pgn(dir: &Path) -> Result<PathBuf> {
    let mut records: Vec<(GameRow, Option<Vec<Move>>)> = if has_records(dir) {
        read_records(dir)?
            .into_iter()
            .map(|r| (r.row, Some(r.moves)))
            .collect()
    } else {
        read_games(dir)?.into_iter().map(|r| (r, None)).collect()
    };
    records.sort_by_key(|(row, _)| row.game_id);
    let path = dir.join(GAMES_PGN);
    let date = RunFile::read(dir)
        .ok()
        .and_then(|r| pgn_date(&r.started))
        .unwrap_or_else(|| "????.??.??".to_string());
    let mut out = std::io::BufWriter::new(super::files::create(&path)?);
    let written = (|| -> std::io::Result<()> {
        for (r, moves) in &records {
            writeln!(out, "[Event \"mancala-arena\"]")?;
            writeln!(out, "[Site \"?\"]")?;
            writeln!(out, "[Date \"{date}\"]")?;
            writeln!(out, "[Round \"{}\"]", r.round + 1)?;
            writeln!(out, "[White \"{}\"]", escape(&r.first))?;
            writeln!(out, "[Black \"{}\"]", escape(&r.second))?;
            writeln!(out, "[Result \"{}\"]", r.result)?;
            writeln!(out, "[GameId \"{}\"]", r.game_id)?;
            writeln!(out, "[Variant \"{}\"]", escape(&r.rules.to_string()))?;
            writeln!(out, "[Opening \"{}\"]", escape(&r.opening.to_string()))?;
            writeln!(out, "[Score \"{}-{}\"]", r.score_first, r.score_second)?;
            let plies = moves.as_ref().map_or(r.sows as usize, Vec::len);
            writeln!(out, "[PlyCount \"{plies}\"]")?;
            writeln!(out, "[Termination \"{}\"]", r.termination)?;
            writeln!(out)?;
            let mut line = String::new();
            for (i, mv) in moves.iter().flatten().enumerate() {
                if i % 2 == 0 {
                    line.push_str(&format!("{}. ", i / 2 + 1));
                }
                line.push_str(&mv.to_string());
                line.push(' ');
            }
            line.push_str(&r.result.to_string());
            writeln!(out, "{line}")?;
            writeln!(out)?;
        }
        out.flush()
    })();
    written.with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// `2026-11-30T21:59:07+00:00` → `2026.11.30`.
fn pgn_date(rfc3339: &str) -> Option<String> {
    let day = rfc3339.get(..10)?;
    let parts: Vec<&str> = day.split('-').collect();
    (parts.len() == 3 && parts.iter().all(|p| p.bytes().all(|b| b.is_ascii_digit())))
        .then(|| parts.join("."))
}

fn escape(s: &str) -> String {
    s.replace('\\', "\\\\").replace('"', "\\\"")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_folder::games::{GameRecord, GameRow, ResultsWriter};

    #[test]
    fn pgn_has_ordo_headers() {
        let dir = std::env::temp_dir().join(format!("arena-pgn-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let game = GameRecord {
            row: GameRow {
                first: "a".into(),
                second: "b".into(),
                opening: "3 1".parse().unwrap(),
                result: crate::rating::Outcome::Win,
                score_first: 30,
                score_second: 18,
                sows: 2,
                wall_ms: 5,
                first_think_ms: 1,
                first_max_ms: 1,
                second_think_ms: 1,
                second_max_ms: 1,
                ..GameRow::blank()
            },
            moves: vec!["3".parse().unwrap(), "1".parse().unwrap()],
            think_ms: vec![],
            movers: vec![],
            cpu_ms: Vec::new(),
            random: Vec::new(),
        };
        ResultsWriter::open(&dir).unwrap().append(&game).unwrap();
        let pgn = std::fs::read_to_string(write_pgn(&dir).unwrap()).unwrap();
        assert!(
            pgn.contains("[White \"a\"]")
                && pgn.contains("[Black \"b\"]")
                && pgn.contains("[Result \"1-0\"]")
        );
        assert!(pgn.contains("1. 3 1 1-0"));
        // No run.json: the date is unknown, in PGN's form.
        assert!(pgn.contains("[Site \"?\"]\n[Date \"????.??.??\"]\n[Round \"1\"]"));
        assert_eq!(
            pgn_date("2026-11-30T21:59:07+00:00").as_deref(),
            Some("2026.11.30")
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
