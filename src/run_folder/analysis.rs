//! The mistake meter's files, written by `arena analyse` and shown in `report.html` and
//! `summary.md` when present: `analysis.csv` (per player), `analysis-games.csv` (per game and
//! player), `analysis-worst.csv` (the costliest sows) and `analysis-brackets.csv` (mistakes
//! against rating). See docs/solved.md for the definitions; [`super::mistakes`] computes them.

use std::path::Path;

use anyhow::{Context, Result};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};

pub const ANALYSIS_CSV: &str = "analysis.csv";
pub const ANALYSIS_GAMES_CSV: &str = "analysis-games.csv";
pub const ANALYSIS_WORST_CSV: &str = "analysis-worst.csv";
pub const ANALYSIS_BRACKETS_CSV: &str = "analysis-brackets.csv";

/// One player's sows judged against perfect play. Only *proven* sows (both values exact within
/// the node budget) count toward the rates; `unproven` says how many were left out.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct MistakeRow {
    pub player: String,
    pub games: u64,
    pub sows: u64,
    pub proven: u64,
    pub unproven: u64,
    /// Proven sows that lose value: `v(best) - v(played) > 0` seeds.
    pub mistakes: u64,
    /// `mistakes / proven` (0 when nothing was proven).
    pub mistake_rate: f64,
    /// Seeds lost over all proven sows.
    pub seeds_lost: i64,
    pub seeds_lost_per_game: f64,
    /// The largest loss of one sow.
    pub worst_loss: i32,
    /// The solver's node budget per position.
    pub node_budget: u64,
    /// Σ 2·(seeds in the pits) over the proven sows: the most they could have lost.
    #[serde(default)]
    pub stake: i64,
    /// The share of proven sows that keep the value (`1 − mistake_rate`).
    #[serde(default)]
    pub accuracy: f64,
    /// `1 − seeds_lost / stake`.
    #[serde(default)]
    pub weighted_accuracy: f64,
    /// `exact` (the solver), or `estimate (alpha-beta to D turns)` for games no exact solver
    /// fits (Oware, Congkak); both joined by ` + ` when a player has games of each.
    #[serde(default)]
    pub judged_by: String,
}

/// One player's sows in one game (a row of `analysis-games.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameSideRow {
    pub game_id: u64,
    pub player: String,
    pub opponent: String,
    /// `first` or `second`.
    pub seat: String,
    /// The player's rating in this game, if known.
    pub rating: Option<f64>,
    pub sows: u64,
    pub proven: u64,
    pub mistakes: u64,
    pub seeds_lost: i64,
    pub accuracy: f64,
    pub weighted_accuracy: f64,
    pub worst_loss: i32,
}

/// One costly sow (a row of `analysis-worst.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct WorstSow {
    pub player: String,
    pub game_id: u64,
    /// The position before the sow is the game's position number `ply` (0 = the start).
    pub ply: usize,
    pub played: u8,
    /// An optimal pit, if the solver's table still held one.
    pub best: Option<u8>,
    /// The position's exact value for the mover (future gain with perfect play).
    pub value: i32,
    pub loss: i32,
    /// The position before the sow (docs/position.md).
    pub position: String,
}

/// Mistakes of a rating bracket or of one player at its rating (`analysis-brackets.csv`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct BracketRow {
    /// `1400–1500`, or the player's name.
    pub group: String,
    /// `bracket` or `player`.
    pub kind: String,
    /// The bracket's middle, or the player's mean rating over its games.
    pub rating: f64,
    pub players: u64,
    /// Games counted once per side: a game between two players of the bracket counts twice.
    pub games: u64,
    pub proven: u64,
    pub mistakes: u64,
    pub mistake_rate: f64,
    /// The binomial standard error of `mistake_rate` (sows taken as independent).
    pub mistake_rate_se: f64,
    pub seeds_lost: i64,
    pub seeds_lost_per_game: f64,
}

/// Everything `arena analyse` wrote into a folder.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Analysis {
    pub players: Vec<MistakeRow>,
    pub games: Vec<GameSideRow>,
    pub worst: Vec<WorstSow>,
    pub brackets: Vec<BracketRow>,
}

impl MistakeRow {
    /// Fills in the derived columns (`unproven`, the rates; not the accuracies, which
    /// [`super::mistakes::player_rows`] sets) from the counts.
    pub fn finish(mut self) -> MistakeRow {
        self.unproven = self.sows - self.proven;
        self.mistake_rate = if self.proven == 0 {
            0.0
        } else {
            self.mistakes as f64 / self.proven as f64
        };
        self.seeds_lost_per_game = if self.games == 0 {
            0.0
        } else {
            self.seeds_lost as f64 / self.games as f64
        };
        self
    }

    /// The share of this player's sows that were proven.
    pub fn proven_share(&self) -> f64 {
        if self.sows == 0 {
            0.0
        } else {
            self.proven as f64 / self.sows as f64
        }
    }
}

/// Writes the four files.
pub fn write_analysis(dir: &Path, a: &Analysis) -> Result<()> {
    write_csv(dir, ANALYSIS_CSV, &a.players)?;
    write_csv(dir, ANALYSIS_GAMES_CSV, &a.games)?;
    write_csv(dir, ANALYSIS_WORST_CSV, &a.worst)?;
    write_csv(dir, ANALYSIS_BRACKETS_CSV, &a.brackets)
}

fn write_csv<T: Serialize>(dir: &Path, name: &str, rows: &[T]) -> Result<()> {
    let path = dir.join(name);
    let mut w = csv::Writer::from_writer(super::files::create(&path)?);
    for row in rows {
        w.serialize(row)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The folder's analysis, or `None` if it has no `analysis.csv`; the other three files may be
/// missing (an analysis from before they existed) and then read as empty.
pub fn read_analysis(dir: &Path) -> Result<Option<Analysis>> {
    let Some(players) = read_csv(dir, ANALYSIS_CSV)? else {
        return Ok(None);
    };
    Ok(Some(Analysis {
        players,
        games: read_csv(dir, ANALYSIS_GAMES_CSV)?.unwrap_or_default(),
        worst: read_csv(dir, ANALYSIS_WORST_CSV)?.unwrap_or_default(),
        brackets: read_csv(dir, ANALYSIS_BRACKETS_CSV)?.unwrap_or_default(),
    }))
}

fn read_csv<T: DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<Vec<T>>> {
    let path = dir.join(name);
    let Some(file) = super::files::open_read_if_exists(&path)? else {
        return Ok(None);
    };
    let mut r = csv::Reader::from_reader(file);
    let rows = r
        .deserialize()
        .enumerate()
        .map(|(i, row)| row.with_context(|| format!("{}: row {}", path.display(), i + 1)))
        .collect::<Result<Vec<T>>>()?;
    Ok(Some(rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip_and_rates() {
        let dir = std::env::temp_dir().join(format!("mancala-analysis-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        assert_eq!(read_analysis(&dir).unwrap(), None);
        let row = MistakeRow {
            player: "easy, \"quoted\"".into(),
            games: 4,
            sows: 40,
            proven: 30,
            mistakes: 6,
            seeds_lost: 10,
            worst_loss: 4,
            node_budget: 1000,
            ..Default::default()
        }
        .finish();
        assert_eq!(row.unproven, 10);
        assert!((row.mistake_rate - 0.2).abs() < 1e-12);
        assert!((row.seeds_lost_per_game - 2.5).abs() < 1e-12);
        let analysis = Analysis {
            players: vec![row],
            games: vec![GameSideRow {
                player: "a".into(),
                rating: Some(1500.0),
                ..Default::default()
            }],
            worst: vec![WorstSow {
                position: "s/0.1/1.0/3.3/5".into(),
                best: None,
                ..Default::default()
            }],
            brackets: vec![BracketRow {
                group: "1400–1500".into(),
                ..Default::default()
            }],
        };
        write_analysis(&dir, &analysis).unwrap();
        assert_eq!(read_analysis(&dir).unwrap(), Some(analysis.clone()));
        // An analysis.csv from before the other files (and its columns) existed still reads.
        std::fs::remove_file(dir.join(ANALYSIS_GAMES_CSV)).unwrap();
        std::fs::write(
            dir.join(ANALYSIS_CSV),
            "player,games,sows,proven,unproven,mistakes,mistake_rate,seeds_lost,seeds_lost_per_game,worst_loss,node_budget\nx,1,2,2,0,1,0.5,3,3,3,100\n",
        )
        .unwrap();
        let old = read_analysis(&dir).unwrap().unwrap();
        assert_eq!((old.players[0].mistakes, old.players[0].stake), (1, 0));
        assert!(old.games.is_empty());
        std::fs::write(dir.join(ANALYSIS_CSV), "player,games\nx,notanumber\n").unwrap();
        let err = format!("{:#}", read_analysis(&dir).unwrap_err());
        assert!(err.contains("analysis.csv: row 1"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
