//! `arena plot DIR`: rates a results folder, then writes its figures (`NAME.svg`, `NAME.png`),
//! `report.html` and `summary.md` into it. Also called at the end of `arena run` and `arena sprt`.

use std::path::PathBuf;

use anyhow::Result;
use mancala_arena::report::rate::rate_dir;

use super::say::{report, say_warnings};

#[derive(clap::Args, Debug, Default)]
pub struct PlotArgs {
    /// A results folder (finished, half-finished or merged).
    pub dir: PathBuf,
    /// Write SVG only (the PNG copies are for places that show no SVG).
    #[arg(long)]
    pub no_png: bool,
    #[command(flatten)]
    pub rating: super::flags::RatingFlags,
}

pub fn run(args: &PlotArgs) -> Result<()> {
    let opts = args.rating.options()?;
    let rated = rate_dir(&args.dir, &opts)?;
    say_warnings(&rated);
    out!("{}", rated.table)?;
    report(&args.dir, &rated, &opts, !args.no_png)
}
