//! `arena rate DIR`: re-rates a results folder and prints the table.

use std::path::PathBuf;

use anyhow::{bail, Result};
use mancala_arena::rating::bootstrap::IntervalMethod;
use mancala_arena::report::rate::{rate_dir, RateOptions};

#[derive(clap::Args, Debug, Default)]
pub struct RateArgs {
    /// A results folder (finished, half-finished or merged).
    pub dir: PathBuf,
    #[command(flatten)]
    pub rating: RatingFlags,
}

/// Rating settings shared by `arena rate` and `arena run`.
#[derive(clap::Args, Debug, Default, Clone)]
pub struct RatingFlags {
    /// Pin one player's rating, NAME=VALUE (default: the pool's mean is 1200).
    #[arg(long, value_name = "NAME=ELO")]
    pub anchor: Option<String>,
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
        Ok(RateOptions {
            anchor,
            level: self.level,
            bootstrap: self.bootstrap,
            intervals: self.intervals,
            k: self.k,
            seed: None,
            exclude_forfeits: self.exclude_forfeits,
            prior: self.prior,
        })
    }
}

fn parse_intervals(text: &str) -> Result<IntervalMethod, String> {
    text.parse()
        .map_err(|e: mancala_arena::rating::RatingError| e.to_string())
}

pub fn run(args: &RateArgs) -> Result<()> {
    let rated = rate_dir(&args.dir, &args.rating.options()?)?;
    say_warnings(&rated);
    out!("{}", rated.table)?;
    outln!(
        "\nwrote ratings.csv, pairwise.csv, ladder.csv and summary.json in {}",
        args.dir.display()
    )?;
    Ok(())
}

/// The warnings of a rating (games the reader skipped, games outside the schedule), on stderr.
pub fn say_warnings(rated: &mancala_arena::report::rate::Rated) {
    for w in &rated.warnings {
        eprintln!("warning: {w}");
    }
}
