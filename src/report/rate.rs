//! `arena rate DIR`: rates any results folder (finished, half-finished or merged) and writes
//! `ratings.csv`, `pairwise.csv`, `ladder.csv` and `summary.json` beside its `games.csv`.
//!
//! The maths is [`crate::rating`]; this module reads the folder, turns rows into games, and
//! formats the numbers for people (a terminal table) and for programs (CSV and JSON).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;
use serde::Serialize;

use crate::rating::bootstrap::{bootstrap, BootstrapConfig, BootstrapSummary};
use crate::rating::fit::{fit, Anchor, FitConfig, Ratings};
use crate::rating::ladder::{run_ladder, LadderConfig, LadderTrack};
use crate::rating::pairwise::{pairwise_table, PairwiseEntry};
use crate::rating::rows::{pairwise_rows, rating_rows, PairwiseRow, RatingRow};
use crate::rating::{Game, GameTable};
use crate::tournament::results::{read_games, GameRow};
use crate::tournament::runner::RunFile;
use crate::tournament::schedule::{derive_seed, stream};

pub const RATINGS_CSV: &str = "ratings.csv";
pub const PAIRWISE_CSV: &str = "pairwise.csv";
pub const LADDER_CSV: &str = "ladder.csv";
pub const SUMMARY_JSON: &str = "summary.json";

/// How to rate.
#[derive(Clone, Debug)]
pub struct RateOptions {
    /// `NAME=VALUE`: pin one player; default: the pool's mean is 1200.
    pub anchor: Option<(String, f64)>,
    pub level: f64,
    /// Bootstrap samples (0: Hessian intervals only).
    pub bootstrap: usize,
    /// The site ladder's K-factor.
    pub k: f64,
    /// Seed for the bootstrap; default: derived from the run seed.
    pub seed: Option<u64>,
    /// Leave out games that ended by forfeit.
    pub exclude_forfeits: bool,
}

impl Default for RateOptions {
    fn default() -> Self {
        RateOptions {
            anchor: None,
            level: 0.95,
            bootstrap: 1000,
            k: 32.0,
            seed: None,
            exclude_forfeits: false,
        }
    }
}

/// Everything `summary.json` holds.
#[derive(Debug, Serialize)]
pub struct Summary {
    pub games: usize,
    pub game_pairs: usize,
    pub players: Vec<String>,
    pub ratings: Vec<RatingRow>,
    /// The first mover's advantage in Elo, with its interval.
    pub first_move_advantage: FirstMove,
    pub draw_nu: f64,
    pub bootstrap_samples: usize,
    pub level: f64,
    pub anchor: String,
    pub warnings: Vec<String>,
    /// `rank_probabilities[i][r]`: probability that player i (in `players` order) has rank r+1.
    pub rank_probabilities: Option<Vec<Vec<f64>>>,
    /// `los[i][j]`: probability that player i is stronger than player j (bootstrap, else normal).
    pub los: Vec<Vec<f64>>,
    pub pairwise: Vec<PairwiseRow>,
    pub ladder: Vec<LadderSummary>,
    pub terminations: Vec<(String, usize)>,
}

#[derive(Debug, Serialize)]
pub struct FirstMove {
    pub elo: f64,
    pub ci_low: f64,
    pub ci_high: f64,
    /// Share of points the first player scored over all games.
    pub first_player_score: f64,
}

#[derive(Debug, Serialize)]
pub struct LadderSummary {
    pub name: String,
    pub k: f64,
    pub final_rating: f64,
    pub min: f64,
    pub max: f64,
    pub late_mean: f64,
    pub games: usize,
}

/// The rated folder: numbers plus the text table.
pub struct Rated {
    pub summary: Summary,
    pub ratings: Ratings,
    pub boot: Option<BootstrapSummary>,
    pub ladder: Vec<LadderTrack>,
    pub pairwise: Vec<PairwiseEntry>,
    pub table: String,
}

/// Player names in a stable order: run.json's order if the folder has one, then any other name
/// in order of first appearance.
fn player_names(dir: &Path, rows: &[GameRow]) -> Vec<String> {
    let mut names: Vec<String> = RunFile::read(dir)
        .map(|r| r.config.players.iter().map(|p| p.name.clone()).collect())
        .unwrap_or_default();
    for row in rows {
        for n in [&row.first, &row.second] {
            if !names.contains(n) {
                names.push(n.clone());
            }
        }
    }
    names
}

/// Turns `games.csv` rows into rating games (in game-id order).
pub fn games_of(rows: &[GameRow], names: &[String], exclude_forfeits: bool) -> Result<Vec<Game>> {
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut sorted: Vec<&GameRow> = rows.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    let mut games = Vec::with_capacity(rows.len());
    for row in sorted {
        if exclude_forfeits && !row.forfeit.is_empty() {
            continue;
        }
        let points = row
            .first_points()
            .with_context(|| format!("game {}: unknown result `{}`", row.game_id, row.result))?;
        let game = Game::from_score(
            row.pair_id,
            index[row.first.as_str()],
            index[row.second.as_str()],
            points,
        )
        .with_context(|| format!("game {}", row.game_id))?;
        games.push(game);
    }
    Ok(games)
}

/// Rates the folder and writes its rating files.
pub fn rate_dir(dir: &Path, opts: &RateOptions) -> Result<Rated> {
    let rows = read_games(dir)?;
    if rows.is_empty() {
        bail!(
            "{} holds no finished games (no games.csv rows)",
            dir.display()
        );
    }
    let names = player_names(dir, &rows);
    let games = games_of(&rows, &names, opts.exclude_forfeits)?;
    if games.is_empty() {
        bail!("no games left to rate after excluding forfeits");
    }
    let seed = opts
        .seed
        .unwrap_or_else(|| RunFile::read(dir).map(|r| r.config.seed).unwrap_or(1));
    let rated = rate_games(&names, &games, opts, seed)?;
    write_files(dir, &rated, &rows)?;
    Ok(rated)
}

/// Rates `games` among `names`, with the bootstrap drawn from `seed`.
pub fn rate_games(
    names: &[String],
    games: &[Game],
    opts: &RateOptions,
    seed: u64,
) -> Result<Rated> {
    let table = GameTable::new(names.len(), games)?;
    let anchor = match &opts.anchor {
        None => Anchor::Mean(1200.0),
        Some((name, value)) => {
            let i = names.iter().position(|n| n == name).with_context(|| {
                format!(
                    "--anchor: no player is named `{name}` (players: {})",
                    names.join(", ")
                )
            })?;
            Anchor::Player(i, *value)
        }
    };
    let fit_config = FitConfig {
        anchor,
        level: opts.level,
        ..FitConfig::default()
    };
    let ratings = fit(&table, &fit_config)?;
    let boot = if opts.bootstrap >= 2 {
        let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, stream::BOOTSTRAP, 0));
        Some(bootstrap(
            &table,
            &ratings,
            &fit_config,
            &BootstrapConfig {
                samples: opts.bootstrap,
                level: opts.level,
            },
            &mut rng,
        )?)
    } else {
        None
    };
    let pairwise = pairwise_table(&table);
    let ladder = run_ladder(names.len(), games, &LadderConfig::new(1200.0, opts.k)?)?;
    let table_text = String::new();
    let mut rated = Rated {
        summary: summary(
            names,
            games,
            &ratings,
            boot.as_ref(),
            &pairwise,
            &ladder,
            opts,
        )?,
        ratings,
        boot,
        ladder,
        pairwise,
        table: table_text,
    };
    rated.table = format_table(&rated, opts);
    Ok(rated)
}

fn summary(
    names: &[String],
    games: &[Game],
    ratings: &Ratings,
    boot: Option<&BootstrapSummary>,
    pairwise: &[PairwiseEntry],
    ladder: &[LadderTrack],
    opts: &RateOptions,
) -> Result<Summary> {
    let n = names.len();
    let first_points: f64 = games.iter().map(|g| g.outcome.score()).sum();
    let adv = &ratings.advantage;
    let (adv_low, adv_high) = boot.map_or((adv.ci_low, adv.ci_high), |b| {
        (b.advantage.low, b.advantage.high)
    });
    let los = match boot {
        Some(b) => b.los.clone(),
        None => (0..n)
            .map(|i| {
                (0..n)
                    .map(|j| {
                        if i == j {
                            0.5
                        } else {
                            crate::rating::normal_cdf(
                                ratings.diff(i, j) / ratings.diff_se(i, j).max(1e-9),
                            )
                        }
                    })
                    .collect()
            })
            .collect(),
    };
    let pairs: std::collections::HashSet<u64> = games.iter().map(|g| g.pair).collect();
    Ok(Summary {
        games: games.len(),
        game_pairs: pairs.len(),
        players: names.to_vec(),
        ratings: rating_rows(names, ratings, boot)?,
        first_move_advantage: FirstMove {
            elo: adv.value,
            ci_low: adv_low,
            ci_high: adv_high,
            first_player_score: first_points / games.len() as f64,
        },
        draw_nu: ratings.draw.nu,
        bootstrap_samples: boot.map_or(0, |b| b.samples),
        level: opts.level,
        anchor: match &opts.anchor {
            None => "pool mean = 1200".to_string(),
            Some((name, v)) => format!("{name} = {v}"),
        },
        warnings: ratings.warnings.iter().map(|w| w.describe(names)).collect(),
        rank_probabilities: boot.map(|b| b.rank_probabilities.clone()),
        los,
        pairwise: pairwise_rows(names, pairwise)?,
        ladder: names
            .iter()
            .zip(ladder)
            .map(|(name, t)| LadderSummary {
                name: name.clone(),
                k: opts.k,
                final_rating: t.final_rating,
                min: t.min,
                max: t.max,
                late_mean: t.late_mean,
                games: t.games,
            })
            .collect(),
        terminations: Vec::new(),
    })
}

fn write_files(dir: &Path, rated: &Rated, rows: &[GameRow]) -> Result<()> {
    let write_csv =
        |file: &str, f: &dyn Fn(&mut csv::Writer<std::fs::File>) -> Result<()>| -> Result<()> {
            let path = dir.join(file);
            let mut w = csv::Writer::from_path(&path)
                .with_context(|| format!("cannot write {}", path.display()))?;
            f(&mut w)?;
            w.flush()?;
            Ok(())
        };
    write_csv(RATINGS_CSV, &|w| {
        for r in &rated.summary.ratings {
            w.serialize(r)?;
        }
        Ok(())
    })?;
    write_csv(PAIRWISE_CSV, &|w| {
        for r in &rated.summary.pairwise {
            w.serialize(r)?;
        }
        Ok(())
    })?;
    write_csv(LADDER_CSV, &|w| {
        w.write_record(["name", "game", "rating"])?;
        for (name, track) in rated.summary.players.iter().zip(&rated.ladder) {
            for (i, r) in track.trajectory.iter().enumerate() {
                w.write_record([name.clone(), i.to_string(), format!("{r:.2}")])?;
            }
        }
        Ok(())
    })?;
    let mut terminations: Vec<(String, usize)> = Vec::new();
    for row in rows {
        match terminations.iter_mut().find(|(t, _)| *t == row.termination) {
            Some((_, n)) => *n += 1,
            None => terminations.push((row.termination.clone(), 1)),
        }
    }
    let mut json = serde_json::to_value(&rated.summary)?;
    json["terminations"] = serde_json::to_value(&terminations)?;
    std::fs::write(
        dir.join(SUMMARY_JSON),
        serde_json::to_string_pretty(&json)? + "\n",
    )?;
    Ok(())
}

fn signed(x: f64) -> String {
    format!("{:+.0}", x)
}

/// The terminal table: ratings with intervals, the first-mover advantage, the pairwise table.
pub fn format_table(rated: &Rated, opts: &RateOptions) -> String {
    let s = &rated.summary;
    let mut out = String::new();
    let ci = if s.bootstrap_samples > 0 {
        format!(
            "{:.0}% bootstrap intervals over game pairs ({} samples)",
            s.level * 100.0,
            s.bootstrap_samples
        )
    } else {
        format!("{:.0}% normal intervals", s.level * 100.0)
    };
    let _ = writeln!(
        out,
        "Ratings: Elo with {}, anchored at {}; {} games in {} pairs",
        ci, s.anchor, s.games, s.game_pairs
    );
    let width = s.players.iter().map(|n| n.len()).max().unwrap_or(0).max(8);
    let _ = writeln!(
        out,
        "{:>4}  {:<width$}  {:>6}  {:>15}  {:>5}  {:>6}  {:>6}  {:>6}",
        "rank", "name", "elo", "interval", "games", "score", "draws", "P(top)"
    );
    for r in &s.ratings {
        let _ = writeln!(
            out,
            "{:>4}  {:<width$}  {:>6.0}  {:>15}  {:>5}  {:>5.1}%  {:>5.1}%  {:>6}{}",
            r.rank,
            r.name,
            r.elo,
            format!("[{:.0}, {:.0}]", r.ci_low, r.ci_high),
            r.games,
            r.score_pct.unwrap_or(f64::NAN),
            r.draw_pct.unwrap_or(f64::NAN),
            r.p_best.map_or("-".to_string(), |p| format!("{p:.3}")),
            match r.score_pct {
                Some(p) if r.unbounded && p >= 50.0 => "  (never lost: a bound set by the prior)",
                Some(_) if r.unbounded => "  (never scored: a bound set by the prior)",
                _ => "",
            }
        );
    }
    let fm = &s.first_move_advantage;
    let _ = writeln!(
        out,
        "First-mover advantage: {} Elo [{}, {}]; first players scored {:.1}% of the points",
        signed(fm.elo),
        signed(fm.ci_low),
        signed(fm.ci_high),
        fm.first_player_score * 100.0
    );
    if !s.pairwise.is_empty() {
        let _ = writeln!(out, "\nPairwise (row player's view; Elo ± {:.0}% from the pentanomial model over game pairs):", opts.level * 100.0);
        let _ = writeln!(
            out,
            "{:<width$}  {:<width$}  {:>5}  {:>11}  {:>22}  {:>6}  {:>13}  {:>6}",
            "player",
            "opponent",
            "games",
            "W-D-L",
            "penta LL LD DD/WL WD WW",
            "score",
            "elo",
            "LOS"
        );
        for p in &s.pairwise {
            let (elo, err) = match (p.elo_penta, p.elo_penta_error, p.elo, p.elo_error) {
                (Some(e), Some(x), _, _) | (None, _, Some(e), Some(x)) => (e, x),
                _ => (f64::NAN, f64::NAN),
            };
            let _ = writeln!(
                out,
                "{:<width$}  {:<width$}  {:>5}  {:>11}  {:>22}  {:>5.1}%  {:>13}  {:>6}",
                p.player,
                p.opponent,
                p.games,
                format!("{}-{}-{}", p.wins, p.draws, p.losses),
                format!(
                    "{} {} {} {} {}",
                    p.penta_ll, p.penta_ld, p.penta_dd_wl, p.penta_wd, p.penta_ww
                ),
                p.score_pct.unwrap_or(f64::NAN),
                match p.score_pct {
                    Some(s) if s >= 100.0 => "+inf".to_string(),
                    Some(s) if s <= 0.0 => "-inf".to_string(),
                    _ if elo.is_finite() => format!("{} ± {:.0}", signed(elo), err),
                    _ => "-".to_string(),
                },
                p.los.map_or("-".to_string(), |l| format!("{:.3}", l)),
            );
        }
    }
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {w}");
    }
    out
}
