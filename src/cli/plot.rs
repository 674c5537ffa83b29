//! `arena plot DIR`: rates a results folder, then writes its figures (`NAME.svg`, `NAME.png`),
//! `report.html` and `summary.md` into it. Also called at the end of `arena run` and `arena sprt`.

use std::path::{Path, PathBuf};

use anyhow::Result;
use mancala_arena::report::documents::{write_report, ReportOptions};
use mancala_arena::report::rate::{rate_dir, RateOptions, Rated};

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
    for (figure, why) in &outcome.missing {
        eprintln!("no {figure} plot: {why}");
    }
    eprintln!(
        "report: {} ({} files written)",
        dir.join(mancala_arena::report::documents::REPORT_HTML)
            .display(),
        outcome.written.len()
    );
    Ok(())
}

pub fn run(args: &PlotArgs) -> Result<()> {
    let opts = args.rating.options()?;
    let rated = rate_dir(&args.dir, &opts)?;
    out!("{}", rated.table)?;
    report(&args.dir, &rated, &opts, !args.no_png)
}
