//! `analysis.csv`: the mistake meter's per-player table (written by `arena analyse`, shown in
//! `report.html` and `summary.md` when present). See docs/solved.md for the definitions.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

pub const ANALYSIS_CSV: &str = "analysis.csv";

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
}

impl MistakeRow {
    /// Fills in the derived columns (`unproven`, the rates) from the counts.
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

pub fn write_analysis(dir: &Path, rows: &[MistakeRow]) -> Result<()> {
    let path = dir.join(ANALYSIS_CSV);
    let mut w = csv::Writer::from_writer(super::files::create(&path)?);
    for row in rows {
        w.serialize(row)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The folder's `analysis.csv`, or `None` if there is none.
pub fn read_analysis(dir: &Path) -> Result<Option<Vec<MistakeRow>>> {
    let path = dir.join(ANALYSIS_CSV);
    let Some(file) = super::files::open_read_if_exists(&path)? else {
        return Ok(None);
    };
    let mut r = csv::Reader::from_reader(file);
    let rows = r
        .deserialize()
        .enumerate()
        .map(|(i, row)| row.with_context(|| format!("{}: row {}", path.display(), i + 1)))
        .collect::<Result<Vec<MistakeRow>>>()?;
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
        write_analysis(&dir, std::slice::from_ref(&row)).unwrap();
        assert_eq!(read_analysis(&dir).unwrap(), Some(vec![row]));
        std::fs::write(dir.join(ANALYSIS_CSV), "player,games\nx,notanumber\n").unwrap();
        let err = format!("{:#}", read_analysis(&dir).unwrap_err());
        assert!(err.contains("analysis.csv: row 1"), "{err}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
