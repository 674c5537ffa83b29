//! Rating a results folder, as `arena rate` (and every command that rates at its end) does: read
//! the games ([`crate::run_folder`]), rate them ([`crate::rating::analyse`], pure), write the
//! rating files ([`crate::run_folder::ratings`]) and format the terminal table
//! ([`super::tables`]). Each step is its own function; this module only strings them together.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use super::tables::{margin_table, pairwise_table, ratings_table, signed};
use crate::rating::bootstrap::IntervalMethod;
use crate::rating::fit::{Anchor, AnchorSet, LooseAnchor};
use crate::rating::{analyse, RatedGame, RatingConfig, RatingReport};
use crate::run_folder::anchor_file::NamedAnchor;
use crate::run_folder::games::{
    player_names, rated_games, read_games_checked, schedule_warnings, termination_counts, GameRow,
};
use crate::run_folder::pgn::{write_pgn, GAMES_PGN};
use crate::run_folder::pgn_in::{each_pgn_game, PgnPool};
use crate::run_folder::ratings::{
    write_margin_ratings, write_rating_files, MarginRow, MarginSummary, Summary,
};
use crate::run_folder::{not_a_run_folder, RunFile};
use crate::vocab::schedule::{derive_seed, stream};

/// How to rate, as the user says it (players by name).
#[derive(Clone, Debug)]
pub struct RateOptions {
    /// `NAME=VALUE`: pin one player; default: the pool's mean is 1200.
    pub anchor: Option<(String, f64)>,
    pub level: f64,
    /// Samples of the intervals: posterior draws or bootstrap resamples (0: normal intervals).
    pub bootstrap: usize,
    /// Where the intervals' samples come from.
    pub intervals: IntervalMethod,
    /// The site ladder's K-factor.
    pub k: f64,
    /// Seed for the bootstrap; default: derived from the run seed.
    pub seed: Option<u64>,
    /// Leave out games that ended by forfeit.
    pub exclude_forfeits: bool,
    /// Virtual draws per player (BayesElo's prior); 0: the plain maximum-likelihood fit.
    pub prior: f64,
    /// Players held at fixed ratings (Ordo's `-m` file; `sd` is `None`).
    pub anchors: Vec<NamedAnchor>,
    /// Players with a rating and an uncertainty (Ordo's `-y` file).
    pub loose_anchors: Vec<NamedAnchor>,
    /// PGN input only: each player's latest `WhiteElo`/`BlackElo` tag as a loose anchor with
    /// this uncertainty (players already in `anchors` or `loose_anchors` keep those).
    pub anchor_tags: Option<f64>,
    /// Also rate from the games' seed margins (`--model margin`), beside the W/D/L fit.
    pub margin: bool,
}

impl Default for RateOptions {
    fn default() -> Self {
        RateOptions {
            anchor: None,
            level: 0.95,
            bootstrap: 1000,
            intervals: IntervalMethod::default(),
            k: 32.0,
            seed: None,
            exclude_forfeits: false,
            prior: 2.0,
            anchors: Vec::new(),
            loose_anchors: Vec::new(),
            anchor_tags: None,
            margin: false,
        }
    }
}

impl RateOptions {
    /// The rating settings for a pool of `names`: the anchors' players found by name (a name
    /// that is not a player is an error naming it).
    pub fn config(&self, names: &[String]) -> Result<RatingConfig> {
        let find = |flag: &str, name: &str| {
            names.iter().position(|n| n == name).with_context(|| {
                format!(
                    "{flag}: no player is named `{name}` (players: {})",
                    names.join(", ")
                )
            })
        };
        let set = !self.anchors.is_empty() || !self.loose_anchors.is_empty();
        let anchor = match &self.anchor {
            Some(_) if set => {
                bail!("--anchor NAME=ELO and --anchors/--loose-anchors/--anchor-tags do not go together: put the player in the --anchors file")
            }
            None if set => {
                let mut anchors = AnchorSet {
                    mean: 1200.0,
                    ..AnchorSet::default()
                };
                for a in &self.anchors {
                    anchors.fixed.push((find("--anchors", &a.name)?, a.elo));
                }
                for a in &self.loose_anchors {
                    let player = find("--loose-anchors", &a.name)?;
                    if anchors.fixed.iter().any(|f| f.0 == player) {
                        bail!("{} is both a fixed and a loose anchor", a.name);
                    }
                    anchors.loose.push(LooseAnchor {
                        player,
                        elo: a.elo,
                        sd: a.sd.unwrap_or(f64::NAN),
                    });
                }
                Anchor::Set(anchors)
            }
            None => Anchor::Mean(1200.0),
            Some((name, value)) => Anchor::Player(find("--anchor", name)?, *value),
        };
        Ok(RatingConfig {
            anchor,
            level: self.level,
            bootstrap: self.bootstrap,
            intervals: self.intervals,
            k: self.k,
            prior: self.prior,
        })
    }

    /// These options with `--anchor-tags` turned into loose anchors from `tag_ratings` (parallel
    /// to `names`): every tagged player not in `anchors` or `loose_anchors` already.
    pub fn with_tag_anchors(&self, names: &[String], tag_ratings: &[Option<f64>]) -> RateOptions {
        let mut opts = self.clone();
        if let Some(sd) = self.anchor_tags {
            for (name, elo) in names.iter().zip(tag_ratings) {
                let Some(elo) = *elo else { continue };
                let taken = |list: &[NamedAnchor]| list.iter().any(|a| &a.name == name);
                if !taken(&self.anchors) && !taken(&self.loose_anchors) {
                    opts.loose_anchors.push(NamedAnchor {
                        name: name.clone(),
                        elo,
                        sd: Some(sd),
                    });
                }
            }
        }
        opts
    }
}

/// A rated folder: the numbers, `summary.json`'s content and the terminal table.
pub struct Rated {
    pub report: RatingReport,
    pub summary: Summary,
    pub table: String,
    /// What the reader skipped and games outside the schedule, for the caller to show.
    pub warnings: Vec<String>,
}

/// Rates `games` among `names` with the bootstrap drawn from `seed` (the bootstrap stream of a
/// run with that seed). Pure.
pub fn rate_games(
    names: &[String],
    games: &[RatedGame],
    opts: &RateOptions,
    seed: u64,
) -> Result<RatingReport> {
    let mut rng = ChaCha8Rng::seed_from_u64(derive_seed(seed, stream::BOOTSTRAP, 0));
    Ok(analyse(names, games, &opts.config(names)?, &mut rng)?)
}

/// Rates the folder and writes its rating files.
pub fn rate_dir(dir: &Path, opts: &RateOptions) -> Result<Rated> {
    if let Some(why) = not_a_run_folder(dir) {
        bail!("{why}");
    }
    if opts.anchor_tags.is_some() {
        bail!("--anchor-tags reads the players' ratings from PGN tags: it needs PGN files, not a results folder (use --anchors or --loose-anchors)");
    }
    let (rows, mut warnings) = read_games_checked(dir)?;
    if rows.is_empty() {
        bail!(
            "{} holds no finished games (no games.csv rows){}",
            dir.display(),
            warnings
                .iter()
                .map(|w| format!("\nwarning: {w}"))
                .collect::<String>()
        );
    }
    if let Ok(run) = RunFile::read(dir) {
        for warning in schedule_warnings(&run, &rows, 5) {
            warnings.push(format!("{}: {warning}", dir.display()));
        }
    }
    let names = player_names(dir, &rows);
    let games = rated_games(&rows, &names, opts.exclude_forfeits)?;
    if games.is_empty() {
        bail!("no games left to rate after excluding forfeits");
    }
    let seed = opts
        .seed
        .unwrap_or_else(|| RunFile::read(dir).map(|r| r.config.seed).unwrap_or(1));
    let report = rate_games(&names, &games, opts, seed)?;
    let margin = if opts.margin {
        Some(margin_summary(&rows, &names, opts, &report)?)
    } else {
        None
    };
    // Ordo and BayesElo read games.pgn: write it again if it went missing.
    if !dir.join(GAMES_PGN).exists() {
        write_pgn(dir)?;
    }
    write_rated(dir, report, &rows, warnings, margin)
}

/// `--model margin`: the ratings from the games' seed margins (`rating::margin::ratings`), each
/// player beside its W/D/L rating in `report`.
fn margin_summary(
    rows: &[crate::run_folder::GameRow],
    names: &[String],
    opts: &RateOptions,
    report: &RatingReport,
) -> Result<MarginSummary> {
    use crate::rating::margin::ratings::{fit, MarginAnchor};
    use crate::run_folder::margins::{margin_games, max_margin};
    if !opts.anchors.is_empty() || !opts.loose_anchors.is_empty() {
        bail!("--model margin is anchored by --anchor NAME=ELO or the pool's mean (1200): anchor files are for the W/D/L model");
    }
    let games = margin_games(rows, names, opts.exclude_forfeits)?;
    let Some(first) = rows.first() else {
        bail!("no games to rate by margin");
    };
    let step = if games
        .iter()
        .all(|g| (g.margin.round() as i64).rem_euclid(2) == 0)
        || games
            .iter()
            .all(|g| (g.margin.round() as i64).rem_euclid(2) == 1)
    {
        2.0
    } else {
        1.0
    };
    let anchor = match &opts.anchor {
        Some((name, value)) => MarginAnchor::Player(
            names
                .iter()
                .position(|n| n == name)
                .with_context(|| format!("--anchor: no player is named `{name}`"))?,
            *value,
        ),
        None => MarginAnchor::Mean(1200.0),
    };
    let fitted = fit(
        names.len(),
        &games,
        max_margin(first) / 3.0,
        step,
        anchor,
        opts.level,
    )?;
    let mut order: Vec<usize> = (0..names.len()).collect();
    order.sort_by(|&a, &b| fitted.players[b].elo.total_cmp(&fitted.players[a].elo));
    let ratings = order
        .iter()
        .enumerate()
        .map(|(rank, &i)| {
            let p = &fitted.players[i];
            let wdl = report.row(&names[i]);
            MarginRow {
                rank: rank + 1,
                name: names[i].clone(),
                elo: p.elo,
                se: p.se,
                ci_low: p.ci_low,
                ci_high: p.ci_high,
                wdl_elo: wdl.map_or(f64::NAN, |r| r.elo),
                wdl_low: wdl.map_or(f64::NAN, |r| r.ci_low),
                wdl_high: wdl.map_or(f64::NAN, |r| r.ci_high),
                games: p.games,
            }
        })
        .collect();
    Ok(MarginSummary {
        ratings,
        advantage: fitted.advantage,
        advantage_se: fitted.advantage_se,
        advantage_seeds: fitted.advantage_seeds,
        sd: fitted.sd,
        elo_per_seed: fitted.elo_per_seed,
        clip: fitted.clip,
    })
}

/// Writes the rating files of `report` into `dir` and formats its table.
fn write_rated(
    dir: &Path,
    report: RatingReport,
    rows: &[GameRow],
    warnings: Vec<String>,
    margin: Option<MarginSummary>,
) -> Result<Rated> {
    let mut summary = Summary::new(&report, termination_counts(rows)).with_judging(rows);
    summary.margin = margin;
    write_rating_files(dir, &report, &summary)?;
    if let Some(m) = &summary.margin {
        write_margin_ratings(dir, m)?;
    }
    let table = format_table(&summary, &report.config.anchor);
    Ok(Rated {
        report,
        summary,
        table,
        warnings,
    })
}

/// PGN input rated: the rating, and what its report needs besides.
pub struct RatedPgn {
    pub rated: Rated,
    /// The finished games, in input order.
    pub games: Vec<RatedGame>,
    /// The options the games were rated with (`--anchor-tags` turned into loose anchors).
    pub opts: RateOptions,
}

/// Rates the games of PGN files and folders of `*.pgn` (`run_folder::pgn_in`) and writes the
/// rating files (`ratings.csv`, `pairwise.csv`, `ladder.csv`, `summary.json`) into `out`,
/// created if missing. The bootstrap's seed is `opts.seed`, else 1.
pub fn rate_pgn(paths: &[std::path::PathBuf], out: &Path, opts: &RateOptions) -> Result<RatedPgn> {
    // The moves are not needed to rate: only counted (and bounded) as they are read.
    let mut warnings = Vec::new();
    let mut games = Vec::new();
    each_pgn_game(paths, false, &mut warnings, &mut |g| {
        games.push(g);
        Ok(())
    })?;
    let pool = PgnPool::new(&games);
    if pool.unfinished > 0 {
        warnings.push(format!(
            "{} unfinished game{} (Result \"*\") skipped",
            pool.unfinished,
            if pool.unfinished == 1 { "" } else { "s" }
        ));
    }
    if pool.variants.len() > 1 {
        warnings.push(format!(
            "the games are of {} variants ({}), rated together as one pool",
            pool.variants.len(),
            pool.variants.join(", ")
        ));
    }
    if pool.games.is_empty() {
        bail!("no finished games in {}", show_paths(paths));
    }
    if opts.margin {
        bail!("--model margin reads the final seeds of each game from a results folder's games.csv; PGN games carry no margins the arena reads");
    }
    if opts.anchor_tags.is_some() && pool.tag_ratings.iter().all(Option::is_none) {
        bail!("--anchor-tags: no game has a WhiteElo or BlackElo tag");
    }
    let opts = opts.with_tag_anchors(&pool.names, &pool.tag_ratings);
    let report = rate_games(&pool.names, &pool.games, &opts, opts.seed.unwrap_or(1))?;
    std::fs::create_dir_all(out)
        .with_context(|| format!("cannot create the folder {}", out.display()))?;
    Ok(RatedPgn {
        rated: write_rated(out, report, &[], warnings, None)?,
        games: pool.games,
        opts,
    })
}

fn show_paths(paths: &[std::path::PathBuf]) -> String {
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

/// The intervals in words, e.g. `95% intervals (posterior of the fit, 1000 draws)`.
pub fn interval_words(s: &Summary) -> String {
    format!(
        "{:.0}% intervals ({})",
        s.level * 100.0,
        s.interval_source()
    )
}

/// The most players the terminal's ratings table shows (the best rated); the rest are in
/// `ratings.csv` and `report.html`. The site's thousand players made a thousand lines.
pub const TERMINAL_PLAYERS: usize = 20;

/// The most encounters the terminal's pairwise table shows; with more, one line says where they
/// are (`pairwise.csv`, `report.html`) instead of a table of every one.
pub const TERMINAL_ENCOUNTERS: usize = 20;

/// The most anchors the terminal's first line names; with more, it counts them.
pub(crate) const TERMINAL_ANCHORS: usize = 4;

/// The terminal table: ratings with intervals (the best [`TERMINAL_PLAYERS`]), the first-mover
/// advantage, the pairwise table (up to [`TERMINAL_ENCOUNTERS`] encounters); each part that is
/// cut says how much more there is and in which file.
pub fn format_table(s: &Summary, anchor: &Anchor) -> String {
    let mut out = String::new();
    let _ = writeln!(
        out,
        "Ratings: Elo with {}, anchored at {}; {} games in {} pairs",
        interval_words(s),
        anchor_words(anchor, &s.anchor),
        s.games,
        s.game_pairs
    );
    let shown = s.ratings.len().min(TERMINAL_PLAYERS);
    out.push_str(&ratings_table(&s.ratings[..shown], &s.random_moves).text());
    if shown < s.ratings.len() {
        let _ = writeln!(
            out,
            "... the best {shown} of {} players; all of them are in ratings.csv and report.html",
            s.ratings.len()
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
    if s.pairwise.len() > TERMINAL_ENCOUNTERS {
        let _ = writeln!(
            out,
            "\nPairwise: {} encounters, each in pairwise.csv and report.html",
            s.pairwise.len()
        );
    } else if !s.pairwise.is_empty() {
        let _ = writeln!(
            out,
            "\nPairwise (row player's view; Elo [{:.0}% interval] from the pentanomial model over game pairs, docs/statistics.md):",
            s.level * 100.0
        );
        out.push_str(&pairwise_table(&s.pairwise, s.interval_method == "posterior").text());
    }
    if let Some(m) = &s.margin {
        out.push('\n');
        out.push_str(&margin_words(m));
        out.push('\n');
        let shown = m.ratings.len().min(TERMINAL_PLAYERS);
        let mut top = m.clone();
        top.ratings.truncate(shown);
        out.push_str(&margin_table(&top).text());
        if shown < m.ratings.len() {
            let _ = writeln!(
                out,
                "... the best {shown} of {} players; all of them are in margin-ratings.csv",
                m.ratings.len()
            );
        }
    }
    for w in &s.warnings {
        let _ = writeln!(out, "warning: {}", short_warning(w));
    }
    out
}

/// The longest warning the terminal prints whole, in characters.
const TERMINAL_WARNING: usize = 300;

/// A warning cut for the terminal: one that names a thousand players (the groups that never
/// conceded a point) ends after [`TERMINAL_WARNING`] characters with where the whole is.
fn short_warning(w: &str) -> String {
    if w.chars().count() <= TERMINAL_WARNING {
        return w.to_string();
    }
    let head: String = w.chars().take(TERMINAL_WARNING).collect();
    format!("{head} ... (cut: the whole warning is in summary.json's warnings and report.html)")
}

/// The anchor as the terminal's first line gives it: `summary.json`'s words (`text`), or for a
/// set of more than [`TERMINAL_ANCHORS`] players their count (the words list every one).
fn anchor_words(anchor: &Anchor, text: &str) -> String {
    let Anchor::Set(set) = anchor else {
        return text.to_string();
    };
    let total = set.fixed.len() + set.loose.len();
    if total <= TERMINAL_ANCHORS {
        return text.to_string();
    }
    let kinds: Vec<String> = [(set.fixed.len(), "fixed"), (set.loose.len(), "loose")]
        .iter()
        .filter(|(count, _)| *count > 0)
        .map(|(count, kind)| format!("{count} {kind}"))
        .collect();
    format!(
        "{total} players ({}; each in summary.json's anchor and report.html)",
        kinds.join(", ")
    )
}

/// The margin fit in a sentence: the link it used.
pub fn margin_words(m: &MarginSummary) -> String {
    format!(
        "Ratings from seed margins (--model margin, docs/statistics.md §2c): each game's margin clipped to ±{:.0} seeds, spread {:.1} seeds, {:.1} Elo per seed of mean margin; first-mover advantage {} Elo ({:+.2} seeds); beside the W/D/L fit above.",
        m.clip,
        m.sd,
        m.elo_per_seed,
        signed(m.advantage),
        m.advantage_seeds
    )
}
