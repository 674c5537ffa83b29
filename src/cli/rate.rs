//! `arena rate PATH...`: re-rates a results folder, or rates the games of PGN files (any
//! program's) and folders of `*.pgn`, and prints the table.

use std::path::{Path, PathBuf};

use anyhow::{bail, Result};
use mancala_arena::rating::bootstrap::IntervalMethod;
use mancala_arena::report::documents::{
    write_pgn_report, ReportOptions, ReportOutcome, REPORT_HTML,
};
use mancala_arena::report::rate::{rate_dir, rate_pgn, RateOptions};
use mancala_arena::run_folder::anchor_file::read_anchors;
use mancala_arena::run_folder::not_a_run_folder;
use mancala_arena::run_folder::pgn_in::pgn_files;

#[derive(clap::Args, Debug, Default)]
pub struct RateArgs {
    /// A results folder (finished, half-finished or merged), or PGN files and folders of *.pgn
    /// files (rated together).
    #[arg(required = true, value_name = "PATH")]
    pub paths: Vec<PathBuf>,
    /// PGN input: the folder for ratings.csv, pairwise.csv, ladder.csv, summary.json and the
    /// report (report.html, summary.md, the figures; default: NAME-ratings in the current
    /// folder, NAME the first PGN file's or folder's name without extension). A results folder
    /// gets its files in itself.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// PGN input: each player's latest WhiteElo/BlackElo tag becomes a loose anchor with this
    /// uncertainty (Elo), like --loose-anchors.
    #[arg(long, value_name = "SD")]
    pub anchor_tags: Option<f64>,
    /// PGN input: write the report's figures as SVG only (no PNG copies).
    #[arg(long)]
    pub no_png: bool,
    #[command(flatten)]
    pub rating: RatingFlags,
}

/// Rating settings shared by `arena rate` and `arena run`.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct RatingFlags {
    /// Pin one player's rating, NAME=VALUE (default: the pool's mean is 1200).
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<String>,
    /// Fixed anchors: a file of rows "Name",Rating (Ordo's -m file); those players are held at
    /// their ratings.
    #[arg(long, value_name = "FILE")]
    pub anchors: Option<PathBuf>,
    /// Loose anchors: a file of rows "Name",Rating,Uncertainty (Ordo's -y file); a normal prior
    /// on each player's rating.
    #[arg(long, value_name = "FILE")]
    pub loose_anchors: Option<PathBuf>,
    /// Confidence level of the intervals.
    #[arg(long, default_value_t = 0.95)]
    pub level: f64,
    /// Samples behind the intervals: draws from the fit's posterior, or resamples of game pairs
    /// with `--intervals bootstrap` (0: normal intervals from the sandwich errors only).
    #[arg(long, default_value_t = 1000)]
    pub bootstrap: usize,
    /// Where the intervals come from: `posterior` (the fit's posterior with Jeffreys' prior
    /// where the data are thin; honest on sparse data, docs/statistics.md) or `bootstrap` (game
    /// pairs resampled per encounter).
    #[arg(long, default_value = "posterior", value_parser = parse_intervals)]
    pub intervals: IntervalMethod,
    /// K-factor of the site's incremental Elo ladder.
    #[arg(long, default_value_t = 32.0)]
    pub k: f64,
    /// Leave games lost by forfeit out of the ratings.
    #[arg(long)]
    pub exclude_forfeits: bool,
    /// Virtual draws per player spread over its opponents (BayesElo's prior); 0 gives the plain
    /// maximum-likelihood fit, which does not exist when a player never lost or never scored.
    #[arg(long, default_value_t = 2.0)]
    pub prior: f64,
    /// `wdl`: ratings from wins, draws and losses; `margin`: also from each game's seed margin
    /// (narrower intervals where the link holds, docs/statistics.md §2c), side by side with the
    /// W/D/L fit, in margin-ratings.csv and the report.
    #[arg(long, value_enum, default_value_t = RateModel::Wdl)]
    pub model: RateModel,
}

/// What `arena rate` rates from.
#[derive(clap::ValueEnum, Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RateModel {
    /// Wins, draws and losses.
    #[default]
    Wdl,
    /// The seed margins too.
    Margin,
}

impl RatingFlags {
    pub fn options(&self) -> Result<RateOptions> {
        let anchor = match &self.anchor {
            None => None,
            Some(text) => {
                let Some((name, value)) = text.rsplit_once('=') else {
                    bail!("--anchor `{text}` is not NAME=ELO")
                };
                let value: f64 = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|v: &f64| v.is_finite())
                    .ok_or_else(|| {
                        anyhow::anyhow!("--anchor `{text}`: `{value}` is not a number")
                    })?;
                Some((name.to_string(), value))
            }
        };
        if !(self.level > 0.0 && self.level < 1.0) {
            bail!("--level {} must be between 0 and 1", self.level);
        }
        if !(self.prior >= 0.0 && self.prior.is_finite()) {
            bail!("--prior {} must be zero or positive", self.prior);
        }
        let read = |path: &Option<PathBuf>, loose| -> Result<_> {
            path.as_deref()
                .map_or(Ok(Vec::new()), |p| read_anchors(p, loose))
        };
        Ok(RateOptions {
            anchors: read(&self.anchors, false)?,
            loose_anchors: read(&self.loose_anchors, true)?,
            anchor_tags: None,
            anchor,
            level: self.level,
            bootstrap: self.bootstrap,
            intervals: self.intervals,
            k: self.k,
            seed: None,
            exclude_forfeits: self.exclude_forfeits,
            prior: self.prior,
            margin: self.model == RateModel::Margin,
        })
    }
}

fn parse_intervals(text: &str) -> Result<IntervalMethod, String> {
    text.parse()
        .map_err(|e: mancala_arena::rating::RatingError| e.to_string())
}

pub fn run(args: &RateArgs) -> Result<()> {
    let mut opts = args.rating.options()?;
    if let Some(sd) = args.anchor_tags {
        if !(sd > 0.0 && sd.is_finite()) {
            bail!("--anchor-tags {sd}: the uncertainty must be above 0");
        }
        opts.anchor_tags = Some(sd);
    }
    let run_folder = match args.paths.as_slice() {
        [one] => one.is_dir() && not_a_run_folder(one).is_none(),
        _ => false,
    };
    if run_folder {
        if args.out.is_some() {
            bail!("--out is for PGN input: a results folder gets its rating files in itself");
        }
        let dir = &args.paths[0];
        let rated = rate_dir(dir, &opts)?;
        say_warnings(&rated);
        out!("{}", rated.table)?;
        outln!(
            "\nwrote ratings.csv, pairwise.csv, ladder.csv{} and summary.json in {}",
            if rated.summary.margin.is_some() {
                ", margin-ratings.csv"
            } else {
                ""
            },
            dir.display()
        )?;
        return Ok(());
    }
    check_pgn_paths(&args.paths, "rate")?;
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| default_out(&args.paths[0], "ratings"));
    let pgn = rate_pgn(&args.paths, &out, &opts)?;
    say_warnings(&pgn.rated);
    out!("{}", pgn.rated.table)?;
    outln!(
        "\nwrote ratings.csv, pairwise.csv, ladder.csv and summary.json in {}",
        out.display()
    )?;
    let outcome = write_pgn_report(
        &out,
        &pgn.rated,
        &pgn.opts,
        &ReportOptions { png: !args.no_png },
        &pgn.games,
        &args.paths,
    )?;
    say_report(&out, &outcome);
    Ok(())
}

/// Checks that `paths` are PGN files or folders of them, for `arena COMMAND FILE.pgn...`: a
/// results folder among them is refused (it goes on its own), and anything else that is not
/// PGN gets the run-folder message (missing, a file that is not *.pgn, the results folder
/// above runs).
pub fn check_pgn_paths(paths: &[PathBuf], command: &str) -> Result<()> {
    if let Some(dir) = paths
        .iter()
        .find(|p| p.is_dir() && not_a_run_folder(p).is_none())
    {
        bail!(
            "{} is a results folder: {command} it on its own (arena {command} {0}), or give PGN files",
            dir.display()
        );
    }
    for path in paths {
        let pgn = if path.is_dir() {
            pgn_files(path).is_ok()
        } else {
            path.is_file()
                && path
                    .extension()
                    .is_some_and(|e| e.to_string_lossy().eq_ignore_ascii_case("pgn"))
        };
        if !pgn {
            if let Some(why) = not_a_run_folder(path) {
                bail!("{why}; or give PGN files (*.pgn) or folders of them");
            }
        }
    }
    Ok(())
}

/// `NAME-SUFFIX` in the current folder, NAME the PGN file's or folder's name without its
/// extension.
pub fn default_out(first: &Path, suffix: &str) -> PathBuf {
    let stem = first
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty() && s != "." && s != "..")
        .unwrap_or_else(|| "pgn".to_string());
    PathBuf::from(format!("{stem}-{suffix}"))
}

/// The warnings of a rating (games the reader skipped, games outside the schedule), on stderr.
pub fn say_warnings(rated: &mancala_arena::report::rate::Rated) {
    for w in &rated.warnings {
        eprintln!("warning: {w}");
    }
}

/// Which figures were left out and where the report is, on stderr.
pub fn say_report(dir: &Path, outcome: &ReportOutcome) {
    for (figure, why) in &outcome.missing {
        eprintln!("no {figure} plot: {why}");
    }
    eprintln!(
        "report: {} ({} files written)",
        dir.join(REPORT_HTML).display(),
        outcome.written.len()
    );
}
