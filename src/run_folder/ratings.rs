//! The rating files of a folder: `ratings.csv`, `pairwise.csv`, `ladder.csv` and `summary.json`,
//! written from a [`RatingReport`] by every command that rates (`arena rate`, `plot`, `run`,
//! `sprt`). They are for people and other programs; the one reader here is
//! [`RatingsFile::read`], which takes players' Elos from a `ratings.csv` (the human scale of
//! `arena calibrate --reference-ratings` and a bands file's `reference_ratings`).
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
use serde::{Deserialize, Serialize};

use std::collections::BTreeMap;

use super::games::{GameRow, Termination};
use crate::rating::posterior::Diagnostics;
use crate::rating::rows::{PairwiseRow, RatingRow};
use crate::rating::{FirstMove, RatingReport};
use crate::vocab::judging::is_starved;
use crate::vocab::FaultKind;

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
    /// Per player (those with any): the moves the arena played for it at random, a KGP agent's
    /// missing moves played as the official server plays them (docs/protocols.md).
    pub random_moves: BTreeMap<String, u64>,
    /// Per player (those with any): its timeouts that were starved, the bot having used less
    /// than half of its time in CPU (docs/tournament.md, "Starved moves").
    pub starved_timeouts: BTreeMap<String, u64>,
    /// `arena rate --model margin`: the ratings from the seed margins beside these.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub margin: Option<MarginSummary>,
}

/// The ratings from margins (`rating::margin::ratings`), each player beside its W/D/L rating.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MarginSummary {
    /// Best first, by the margin rating.
    pub ratings: Vec<MarginRow>,
    /// First-mover advantage (Elo), its standard error, and in seeds.
    pub advantage: f64,
    pub advantage_se: f64,
    pub advantage_seeds: f64,
    /// The link: the margins' spread (seeds), Elo per seed, each game's clip (seeds).
    pub sd: f64,
    pub elo_per_seed: f64,
    pub clip: f64,
}

/// One line of `margin-ratings.csv`.
#[derive(Debug, Clone, Serialize, Deserialize)]
pub struct MarginRow {
    pub rank: usize,
    pub name: String,
    pub elo: f64,
    pub se: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// The W/D/L fit's rating and interval of the same player (`ratings.csv`).
    pub wdl_elo: f64,
    pub wdl_low: f64,
    pub wdl_high: f64,
    pub games: u64,
}

/// `margin-ratings.csv`: [`MarginRow`]s, best first.
pub const MARGIN_RATINGS_CSV: &str = "margin-ratings.csv";

/// Writes `margin-ratings.csv`.
pub fn write_margin_ratings(dir: &Path, margin: &MarginSummary) -> Result<()> {
    let mut w = csv::Writer::from_writer(super::files::create(&dir.join(MARGIN_RATINGS_CSV))?);
    for row in &margin.ratings {
        w.serialize(row)?;
    }
    w.flush()?;
    Ok(())
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
            random_moves: BTreeMap::new(),
            starved_timeouts: BTreeMap::new(),
            margin: None,
        }
    }

    /// Counts what the arena judged for the players in `rows` (the random moves played for
    /// them, their starved timeouts), and warns of starved timeouts.
    pub fn with_judging(mut self, rows: &[GameRow]) -> Summary {
        for row in rows {
            for (name, n) in [
                (&row.first, row.first_random),
                (&row.second, row.second_random),
            ] {
                if n > 0 {
                    *self.random_moves.entry(name.clone()).or_default() += u64::from(n);
                }
            }
            let starved = row.termination == Termination::Forfeit(FaultKind::Timeout)
                && is_starved(&row.detail);
            if let Some(name) = row.forfeit.as_ref().filter(|_| starved) {
                *self.starved_timeouts.entry(name.clone()).or_default() += 1;
            }
        }
        if !self.starved_timeouts.is_empty() {
            let whose: Vec<String> = self
                .starved_timeouts
                .iter()
                .map(|(name, n)| format!("{name} {n}"))
                .collect();
            self.warnings.push(format!(
                "timeouts that were starved (the bot had used less than half of its time in CPU: \
                 the machine was too busy, the games measure the load): {}; see --time-by cpu",
                whose.join(", ")
            ));
        }
        self
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
    let mut text = String::new();
    pretty_rows(&json, 0, &mut text);
    super::files::write(&path, text + "\n")?;
    Ok(())
}

/// `value` as `serde_json::to_string_pretty` writes it, except that an array of numbers (a row
/// of the `los` and `rank_probabilities` matrices) stays on one line: a thousand players' two
/// n × n matrices took 33 MB one number a line.
fn pretty_rows(value: &serde_json::Value, depth: usize, out: &mut String) {
    use serde_json::Value;
    let pad = |out: &mut String, depth: usize| out.push_str(&"  ".repeat(depth));
    match value {
        Value::Array(items) if items.iter().all(Value::is_number) && !items.is_empty() => {
            out.push('[');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                out.push_str(&item.to_string());
            }
            out.push(']');
        }
        Value::Array(items) if !items.is_empty() => {
            out.push_str("[\n");
            for (i, item) in items.iter().enumerate() {
                pad(out, depth + 1);
                pretty_rows(item, depth + 1, out);
                out.push_str(if i + 1 < items.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push(']');
        }
        Value::Object(map) if !map.is_empty() => {
            out.push_str("{\n");
            for (i, (key, item)) in map.iter().enumerate() {
                pad(out, depth + 1);
                out.push_str(&Value::String(key.clone()).to_string());
                out.push_str(": ");
                pretty_rows(item, depth + 1, out);
                out.push_str(if i + 1 < map.len() { ",\n" } else { "\n" });
            }
            pad(out, depth);
            out.push('}');
        }
        // Scalars and empty containers as serde_json writes them (`[]`, `{}`).
        other => out.push_str(&other.to_string()),
    }
}

/// Players' Elos read from a `ratings.csv` (any file with `name` and `elo` columns, as
/// [`RatingRow`] writes them), for a reference pool held at a rating's Elos: the site's
/// humans and levels rated by `arena rate`, say.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingsFile {
    /// The `ratings.csv` read.
    pub path: std::path::PathBuf,
    /// `(name, elo)` in the file's order.
    pub players: Vec<(String, f64)>,
    /// `summary.json`'s `anchor` (where the scale is pinned, in words) and `games`, when a
    /// `summary.json` lies beside the file.
    pub anchor: Option<String>,
    pub games: Option<u64>,
}

impl RatingsFile {
    /// Reads `path`: a `ratings.csv`, or a folder holding one (a ratings folder).
    pub fn read(path: &Path) -> Result<RatingsFile> {
        let csv_path = if path.is_dir() {
            path.join(RATINGS_CSV)
        } else {
            path.to_path_buf()
        };
        let text = super::files::read_to_string(&csv_path)
            .with_context(|| format!("cannot read the ratings {}", csv_path.display()))?;
        let mut reader = csv::Reader::from_reader(text.as_bytes());
        let headers = reader
            .headers()
            .with_context(|| format!("{} is not a CSV file", csv_path.display()))?
            .clone();
        let column = |name: &str| {
            headers
                .iter()
                .position(|h| h.trim() == name)
                .with_context(|| {
                    format!(
                        "{} has no `{name}` column (a ratings.csv has `name` and `elo`)",
                        csv_path.display()
                    )
                })
        };
        let (name_at, elo_at) = (column("name")?, column("elo")?);
        let mut players: Vec<(String, f64)> = Vec::new();
        for (i, record) in reader.records().enumerate() {
            let line = i + 2;
            let record = record.with_context(|| format!("{} line {line}", csv_path.display()))?;
            let name = record.get(name_at).unwrap_or("").trim().to_string();
            let elo_text = record.get(elo_at).unwrap_or("").trim();
            let elo = elo_text
                .parse::<f64>()
                .ok()
                .filter(|e| e.is_finite())
                .with_context(|| {
                    format!(
                        "{} line {line}: `{elo_text}` is not an Elo",
                        csv_path.display()
                    )
                })?;
            if name.is_empty() {
                anyhow::bail!(
                    "{} line {line}: a player without a name",
                    csv_path.display()
                );
            }
            if players.iter().any(|(n, _)| *n == name) {
                anyhow::bail!(
                    "{} line {line}: `{name}` is rated twice",
                    csv_path.display()
                );
            }
            players.push((name, elo));
        }
        if players.is_empty() {
            anyhow::bail!("{} rates nobody", csv_path.display());
        }
        let summary: Option<serde_json::Value> = csv_path
            .parent()
            .map(|dir| super::read_json(dir, SUMMARY_JSON))
            .transpose()?
            .flatten();
        let anchor = summary
            .as_ref()
            .and_then(|s| s.get("anchor"))
            .and_then(|a| a.as_str())
            .map(str::to_string);
        let games = summary
            .as_ref()
            .and_then(|s| s.get("games"))
            .and_then(|g| g.as_u64());
        Ok(RatingsFile {
            path: csv_path,
            players,
            anchor,
            games,
        })
    }

    /// `name`'s Elo; an error naming the player and the file when it is not rated there.
    pub fn elo(&self, name: &str) -> Result<f64> {
        if let Some((_, elo)) = self.players.iter().find(|(n, _)| n == name) {
            return Ok(*elo);
        }
        let mut known: Vec<&str> = self.players.iter().map(|(n, _)| n.as_str()).collect();
        let more = known.len().saturating_sub(12);
        known.truncate(12);
        anyhow::bail!(
            "the reference player `{name}` is not rated in {} (it rates {}{})",
            self.path.display(),
            known.join(", "),
            if more > 0 {
                format!(" and {more} more")
            } else {
                String::new()
            }
        )
    }

    /// Where the Elos come from, in words: the file and, from its `summary.json`, where the
    /// scale is pinned and on how many games.
    pub fn source(&self) -> String {
        let mut s = format!("{}", self.path.display());
        match (&self.anchor, self.games) {
            (Some(a), Some(g)) => s += &format!(" (anchor: {a}; {g} games)"),
            (Some(a), None) => s += &format!(" (anchor: {a})"),
            (None, Some(g)) => s += &format!(" ({g} games)"),
            (None, None) => {}
        }
        s
    }

    /// The Elos of the players not named in `except`: the humans of a site's rating, when
    /// `except` holds the levels and any other bot.
    pub fn others(&self, except: &[&str]) -> Vec<(String, f64)> {
        self.players
            .iter()
            .filter(|(n, _)| !except.contains(&n.as_str()))
            .cloned()
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn summary_json_keeps_a_matrix_row_on_one_line_and_reads_back_the_same() {
        let value = serde_json::json!({
            "los": [[0.5, 0.25], [0.75, 0.5]],
            "name": "a \"q\"",
            "empty": [],
            "none": null,
            "rows": [{"elo": 1200.5, "games": 3}, {}],
        });
        let mut text = String::new();
        pretty_rows(&value, 0, &mut text);
        let back: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(back, value);
        assert!(
            text.contains("\n    [0.5, 0.25],\n    [0.75, 0.5]\n"),
            "{text}"
        );
        assert!(text.contains("\n  \"empty\": [],\n"), "{text}");
        assert!(text.contains("\n      \"elo\": 1200.5,\n"), "{text}");
    }

    #[test]
    fn ratings_are_read_from_a_file_or_its_folder_with_the_summary_beside_it() {
        let dir = std::env::temp_dir().join(format!("arena-ratings-read-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(
            dir.join(RATINGS_CSV),
            "rank,name,elo,se\n1,hard,1685.44,43.2\n2,human00,1662.03,47.1\n3,easy,897.78,33.4\n",
        )
        .unwrap();
        let file = RatingsFile::read(&dir).unwrap();
        assert_eq!(file.path, dir.join(RATINGS_CSV));
        assert_eq!(file.players.len(), 3);
        assert_eq!(file.elo("easy").unwrap(), 897.78);
        assert_eq!(file.anchor, None);
        assert_eq!(
            file.others(&["hard", "easy"]),
            [("human00".into(), 1662.03)]
        );
        let err = file.elo("normal").unwrap_err().to_string();
        assert!(
            err.contains("`normal` is not rated in")
                && err.contains("ratings.csv")
                && err.contains("hard, human00, easy"),
            "{err}"
        );
        std::fs::write(
            dir.join(SUMMARY_JSON),
            r#"{"anchor": "loose anchors: 30 players", "games": 1200}"#,
        )
        .unwrap();
        let file = RatingsFile::read(&dir.join(RATINGS_CSV)).unwrap();
        assert_eq!(file.anchor.as_deref(), Some("loose anchors: 30 players"));
        assert!(file
            .source()
            .ends_with("ratings.csv (anchor: loose anchors: 30 players; 1200 games)"));
        // No elo column, a bad Elo, a player twice: refused with the file named.
        std::fs::write(dir.join("bad.csv"), "name,rating\na,1\n").unwrap();
        let err = format!("{:#}", RatingsFile::read(&dir.join("bad.csv")).unwrap_err());
        assert!(err.contains("bad.csv has no `elo` column"), "{err}");
        std::fs::write(dir.join("bad.csv"), "name,elo\na,x\n").unwrap();
        let err = format!("{:#}", RatingsFile::read(&dir.join("bad.csv")).unwrap_err());
        assert!(err.contains("line 2: `x` is not an Elo"), "{err}");
        std::fs::write(dir.join("bad.csv"), "name,elo\na,1\na,2\n").unwrap();
        assert!(RatingsFile::read(&dir.join("bad.csv")).is_err());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
