//! The games to judge: a results folder's, or PGN files written as one (so that the report, its
//! game viewer and `arena serve` read them as any run), with the players' Elo tags.
//!
//! Games without a sow by a player (a PGN of results and tags only, a game forfeited before
//! its first move) have nothing to judge: they are left out and counted, and when no game has
//! a sow the input is refused, rather than judged into tables of zeros that look like results.

use std::collections::HashMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context};

use crate::rules::Ruleset;
use crate::run_folder::check_new_folder;
use crate::run_folder::games::{has_games, GameRecord, ResultsWriter};
use crate::run_folder::pgn_games::{mark_written_from_pgn, pgn_record};
use crate::run_folder::pgn_in::read_pgn;

/// Each game's players' Elo tags (first, second), by game id.
pub type Tags = HashMap<u64, [Option<f64>; 2]>;

/// What a PGN input held.
#[derive(Debug)]
pub struct PgnInput {
    /// Games written to the folder (finished, with at least one sow by a player).
    pub written: usize,
    /// What the reader noticed on the way (mixed encodings), each naming its file and lines.
    pub warnings: Vec<String>,
    pub tags: Tags,
    /// Games left out: unfinished (`Result "*"`), and without a sow by a player.
    pub unfinished: usize,
    pub without_sows: usize,
}

/// The games of `records` with at least one sow by a player, and how many had none.
pub fn with_sows(records: Vec<GameRecord>) -> (Vec<GameRecord>, usize) {
    let before = records.len();
    let kept: Vec<GameRecord> = records
        .into_iter()
        .filter(|r| super::player_sows(r) > 0)
        .collect();
    let without = before - kept.len();
    (kept, without)
}

/// The sentence refusing an input whose `total` games have no sow by a player.
pub fn nothing_to_judge(what: &str, total: usize) -> String {
    format!(
        "{what}: none of its {total} game(s) has a sow by a player (only results and tags, or \
         no moves after the opening): the mistake meter judges sows, so there is nothing to \
         analyse (arena rate rates games from their results)"
    )
}

/// Reads the PGN `paths` (`rules` overriding their Variant tags) and writes the finished games
/// with sows into the new results folder `out`; refuses when none has a sow (see the module
/// docs), before writing anything.
pub fn pgn_to_folder(
    paths: &[PathBuf],
    rules: Option<Ruleset>,
    out: &Path,
) -> anyhow::Result<PgnInput> {
    let mut tags = Tags::new();
    let mut records = Vec::new();
    let (mut unfinished, mut without_sows) = (0, 0);
    let read = read_pgn(paths)?;
    for game in read.games {
        let id = (records.len() + without_sows) as u64;
        match pgn_record(&game, id, rules)? {
            Some(r) if super::player_sows(&r.record) == 0 => without_sows += 1,
            Some(r) => {
                tags.insert(r.record.row.game_id, r.elos);
                records.push(r.record);
            }
            None => unfinished += 1,
        }
    }
    let what = paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ");
    if records.is_empty() && without_sows > 0 {
        bail!(nothing_to_judge(&what, without_sows + unfinished));
    }
    if records.is_empty() {
        bail!("{what}: no finished games in the PGN given");
    }
    if has_games(out) {
        bail!(
            "{} already holds games: give another --out, or remove it to analyse afresh",
            out.display()
        );
    }
    check_new_folder(out)?;
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the folder {}", out.display()))?;
    let mut writer = ResultsWriter::open(out)?;
    for r in &records {
        writer.append(r)?;
    }
    drop(writer);
    mark_written_from_pgn(out)?;
    Ok(PgnInput {
        written: records.len(),
        warnings: read.warnings,
        tags,
        unfinished,
        without_sows,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp(name: &str) -> PathBuf {
        let d = std::env::temp_dir().join(format!("judge-input-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&d);
        std::fs::create_dir_all(&d).unwrap();
        d
    }

    const NO_MOVES: &str = r#"[White "a"]
[Black "b"]
[Result "1-0"]
[WhiteElo "1500"]

1-0

[White "b"]
[Black "a"]
[Result "0-1"]

0-1
"#;

    /// #47: a PGN of results and Elo tags only was judged into tables of zeros. It is refused
    /// with a sentence that says why, and no folder is written.
    #[test]
    fn a_pgn_without_moves_is_refused() {
        let dir = temp("no-moves");
        let pgn = dir.join("site.pgn");
        std::fs::write(&pgn, NO_MOVES).unwrap();
        let out = dir.join("out");
        let err = pgn_to_folder(&[pgn], Some(Ruleset::kalah(6, 4)), &out)
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("none of its 2 game(s) has a sow by a player")
                && err.contains("nothing to analyse"),
            "{err}"
        );
        assert!(!out.exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Games with sows are kept and those without are counted.
    #[test]
    fn games_without_moves_are_left_out_and_counted() {
        let dir = temp("some-moves");
        let pgn = dir.join("games.pgn");
        let played = r#"[White "c"]
[Black "d"]
[Result "*"]

3 *

[White "c"]
[Black "d"]
[Result "1-0"]
[BlackElo "1400"]

3 6 1-0
"#;
        std::fs::write(&pgn, format!("{NO_MOVES}\n{played}")).unwrap();
        let out = dir.join("out");
        let input = pgn_to_folder(&[pgn], Some(Ruleset::kalah(6, 4)), &out).unwrap();
        assert_eq!(
            (input.written, input.unfinished, input.without_sows),
            (1, 1, 2)
        );
        let records = crate::run_folder::games::read_records(&out).unwrap();
        assert_eq!(records.len(), 1);
        assert_eq!(input.tags[&records[0].row.game_id], [None, Some(1400.0)]);
        let (kept, without) = with_sows(records);
        assert_eq!((kept.len(), without), (1, 0));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
