//! The rating files of a folder: `ratings.csv`, `pairwise.csv`, `ladder.csv` and `summary.json`,
//! written from a [`RatingReport`] by every command that rates (`arena rate`, `plot`, `run`,
//! `sprt`). Nothing reads them back: they are for people and other programs.
//!
//! # Format
//! - `ratings.csv`: one [`RatingRow`](crate::rating::rows::RatingRow) per player, best first.
//! - `pairwise.csv`: one [`PairwiseRow`](crate::rating::rows::PairwiseRow) per encounter.
//! - `ladder.csv`: `name,game,rating`: each player's site-ladder rating before its first game
//!   (game 0) and after each of its games, 2 decimals.
//! - `summary.json`: a [`Summary`], keys in alphabetical order at every level.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};
use serde::Serialize;

use super::games::Termination;
use crate::rating::posterior::Diagnostics;
use crate::rating::rows::{PairwiseRow, RatingRow};
use crate::rating::{FirstMove, RatingReport};

pub const RATINGS_CSV: &str = "ratings.csv";
pub const PAIRWISE_CSV: &str = "pairwise.csv";
pub const LADDER_CSV: &str = "ladder.csv";
pub const SUMMARY_JSON: &str = "summary.json";

/// Everything `summary.json` holds.
#[derive(Debug, Clone, Serialize)]
pub struct Summary {
    pub games: usize,
    pub game_pairs: usize,
    pub players: Vec<String>,
    pub ratings: Vec<RatingRow>,
    /// The first mover's advantage in Elo, with its interval.
    pub first_move_advantage: FirstMove,
    pub draw_nu: f64,
    /// Samples behind the intervals: posterior draws or bootstrap resamples (0: normal intervals).
    pub bootstrap_samples: usize,
    /// Samples that failed (a bootstrap resample without a fit, a divergent posterior
    /// transition): left out of the intervals.
    pub bootstrap_failed: usize,
    /// Where the intervals come from: `posterior`, `bootstrap` or `normal`.
    pub interval_method: String,
    /// The posterior sampler's diagnostics, when the intervals are the posterior's.
    pub posterior: Option<Diagnostics>,
    /// Virtual draws per player (BayesElo's prior); 0: the plain maximum-likelihood fit.
    pub prior: f64,
    pub level: f64,
    /// Where the scale is pinned, in words: `pool mean = 1200` or `NAME = ELO`.
    pub anchor: String,
    pub warnings: Vec<String>,
    /// `rank_probabilities[i][r]`: probability that player i (in `players` order) has rank r+1.
    pub rank_probabilities: Option<Vec<Vec<f64>>>,
    /// `los[i][j]`: probability that player i is stronger than player j (bootstrap, else normal).
    pub los: Vec<Vec<f64>>,
    pub pairwise: Vec<PairwiseRow>,
    pub ladder: Vec<LadderSummary>,
    /// How often each termination occurred, most frequent first.
    pub terminations: Vec<(Termination, usize)>,
}

/// One player's site-ladder path, summarised.
#[derive(Debug, Clone, Serialize)]
pub struct LadderSummary {
    pub name: String,
    pub k: f64,
    pub final_rating: f64,
    pub min: f64,
    pub max: f64,
    pub late_mean: f64,
    pub games: usize,
}

impl Summary {
    /// Where the intervals come from, in a few words: `posterior of the fit, 1000 draws`,
    /// `bootstrap over game pairs, 1000 samples` or `normal approximation`.
    pub fn interval_source(&self) -> String {
        let failed = if self.bootstrap_failed > 0 {
            format!(", {} failed and left out", self.bootstrap_failed)
        } else {
            String::new()
        };
        match self.interval_method.as_str() {
            "posterior" => format!(
                "posterior of the fit, {} draws{failed}",
                self.bootstrap_samples
            ),
            "bootstrap" => format!(
                "bootstrap over game pairs, {} samples{failed}",
                self.bootstrap_samples
            ),
            _ => "normal approximation".to_string(),
        }
    }

    pub fn new(report: &RatingReport, terminations: Vec<(Termination, usize)>) -> Summary {
        Summary {
            games: report.games,
            game_pairs: report.game_pairs,
            players: report.names.clone(),
            ratings: report.rows.clone(),
            first_move_advantage: report.first_move,
            draw_nu: report.ratings.draw.nu,
            bootstrap_samples: report.boot.as_ref().map_or(0, |b| b.samples),
            bootstrap_failed: report.boot.as_ref().map_or(0, |b| b.failed),
            interval_method: report
                .boot
                .as_ref()
                .map_or("normal", |b| b.method.as_str())
                .to_string(),
            posterior: report.posterior,
            prior: report.config.prior,
            level: report.config.level,
            anchor: report.config.anchor.text(&report.names),
            warnings: report.warnings.clone(),
            rank_probabilities: report.boot.as_ref().map(|b| b.rank_probabilities.clone()),
            los: report.los.clone(),
            pairwise: report.pairwise_rows.clone(),
            ladder: report
                .names
                .iter()
                .zip(&report.ladder)
                .map(|(name, t)| LadderSummary {
                    name: name.clone(),
                    k: report.config.k,
                    final_rating: t.final_rating,
                    min: t.min,
                    max: t.max,
                    late_mean: t.late_mean,
                    games: t.games,
                })
                .collect(),
            terminations,
        }
    }
}

/// Writes the four rating files into `dir`.
pub fn write_rating_files(dir: &Path, report: &RatingReport, summary: &Summary) -> Result<()> {
    let write_csv =
        |file: &str, f: &dyn Fn(&mut csv::Writer<std::fs::File>) -> Result<()>| -> Result<()> {
            let path = dir.join(file);
            let mut w = csv::Writer::from_writer(super::files::create(&path)?);
            f(&mut w).with_context(|| format!("cannot write {}", path.display()))?;
            w.flush()
                .with_context(|| format!("cannot write {}", path.display()))?;
            Ok(())
        };
    write_csv(RATINGS_CSV, &|w| {
        for r in &report.rows {
            w.serialize(r)?;
        }
        Ok(())
    })?;
    write_csv(PAIRWISE_CSV, &|w| {
        for r in &report.pairwise_rows {
            w.serialize(r)?;
        }
        Ok(())
    })?;
    write_csv(LADDER_CSV, &|w| {
        w.write_record(["name", "game", "rating"])?;
        let (mut game, mut rating) = (String::new(), String::new());
        for (name, track) in report.names.iter().zip(&report.ladder) {
            for (i, r) in track.trajectory.iter().enumerate() {
                game.clear();
                rating.clear();
                let _ = write!(game, "{i}");
                let _ = write!(rating, "{r:.2}");
                w.write_record([name.as_str(), game.as_str(), rating.as_str()])?;
            }
        }
        Ok(())
    })?;
    // Through a `Value` so that keys are sorted, as they always were in this file.
    let json = serde_json::to_value(summary)?;
    let path = dir.join(SUMMARY_JSON);
    super::files::write(&path, serde_json::to_string_pretty(&json)? + "\n")?;
    Ok(())
}
