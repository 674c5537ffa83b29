//! `arena plot DIR`: rates a results folder, then writes its figures (`NAME.svg`, `NAME.png`),
//! `report.html` and `summary.md` into it. Also called at the end of `arena run` and `arena sprt`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use mancala_arena::report::documents::{write_report, ReportOptions};
use mancala_arena::report::rate::{rate_dir, RateOptions, Rated};
use mancala_arena::session::Finished;

#[derive(clap::Args, Debug, Default)]
pub struct PlotArgs {
    /// A results folder (finished, half-finished or merged).
    pub dir: PathBuf,
    /// Write SVG only (the PNG copies are for places that show no SVG).
    #[arg(long)]
    pub no_png: bool,
    #[command(flatten)]
    pub rating: super::rate::RatingFlags,
}

/// Draws the report of an already rated folder and says where it is (on stderr).
pub fn report(dir: &Path, rated: &Rated, rate: &RateOptions, png: bool) -> Result<()> {
    let outcome = write_report(dir, rated, rate, &ReportOptions { png })?;
    super::rate::say_report(dir, &outcome);
    Ok(())
}

/// What a session's end did: the ratings table on stdout when `table`, where the report is (or
/// why there is none) on stderr. A report that cannot be drawn does not make the run fail.
pub fn say_finished(dir: &Path, finished: &Finished, table: bool) -> Result<()> {
    match &finished.rated {
        Some(Ok(rated)) => {
            super::rate::say_warnings(rated);
            if table {
                out!("\n{}", rated.table)?;
            }
        }
        Some(Err(err)) => eprintln!("no ratings: {err:#}"),
        None => {}
    }
    match &finished.report {
        Some(Ok(outcome)) => super::rate::say_report(dir, outcome),
        Some(Err(err)) => eprintln!("no report: {err:#}"),
        None => {}
    }
    Ok(())
}

pub fn run(args: &PlotArgs) -> Result<()> {
    let opts = args.rating.options()?;
    let rated = rate_dir(&args.dir, &opts)?;
    super::rate::say_warnings(&rated);
    out!("{}", rated.table)?;
    report(&args.dir, &rated, &opts, !args.no_png)
}
