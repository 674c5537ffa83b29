//! `arena rate PATH...`: re-rates a results folder, or rates the games of PGN files (any
//! program's) and folders of `*.pgn`, and prints the table.

use std::path::PathBuf;

use anyhow::{bail, Result};
use mancala_arena::report::documents::{write_pgn_report, ReportOptions};
use mancala_arena::report::rate::{rate_dir, rate_pgn, Rated};
use mancala_arena::run_folder::not_a_run_folder;

use super::flags::{check_pgn_paths, default_out, RatingFlags};
use super::say::{say_report, say_warnings};

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
    /// Print one line (the games, the players, the best and the files written) instead of the
    /// tables; warnings still go to stderr.
    #[arg(long, short)]
    pub quiet: bool,
    #[command(flatten)]
    pub rating: RatingFlags,
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
        let margin = if rated.summary.margin.is_some() {
            ", margin-ratings.csv"
        } else {
            ""
        };
        if args.quiet {
            outln!(
                "{}: ratings.csv, pairwise.csv, ladder.csv{margin}, summary.json in {}",
                one_line(&rated),
                dir.display()
            )?;
            return Ok(());
        }
        out!("{}", rated.table)?;
        outln!(
            "\nwrote ratings.csv, pairwise.csv, ladder.csv{margin} and summary.json in {}",
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
    if !args.quiet {
        out!("{}", pgn.rated.table)?;
        outln!(
            "\nwrote ratings.csv, pairwise.csv, ladder.csv and summary.json in {}",
            out.display()
        )?;
    }
    let outcome = write_pgn_report(
        &out,
        &pgn.rated,
        &pgn.opts,
        &ReportOptions { png: !args.no_png },
        &pgn.games,
        &args.paths,
    )?;
    if args.quiet {
        outln!(
            "{}: ratings.csv, pairwise.csv, ladder.csv, summary.json, report.html in {}",
            one_line(&pgn.rated),
            out.display()
        )?;
    } else {
        say_report(&out, &outcome);
    }
    Ok(())
}

/// `--quiet`'s summary: the games, the players and the best rated, e.g. `rated 120 games among
/// 4 players (best: hard, 1412 Elo)`.
fn one_line(rated: &Rated) -> String {
    let s = &rated.summary;
    let best = s.ratings.first().map_or(String::new(), |r| {
        format!(" (best: {}, {:.0} Elo)", r.name, r.elo)
    });
    format!(
        "rated {} games among {} players{best}",
        s.games,
        s.ratings.len()
    )
}
