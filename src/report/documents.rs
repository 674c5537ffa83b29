//! `arena plot DIR`: the figures, `report.html` and `summary.md` of a rated folder (the
//! documents made from a results folder; nothing reads them back).
//!
//! [`write_report`] builds every figure's data (see [`super::plots`]), draws each as SVG (and
//! PNG unless told not to), then writes the two documents ([`super::html`],
//! [`super::markdown`]) from the same [`ReportInput`]. A figure that cannot be drawn does not
//! stop the others: the report says why it is missing.

use std::path::{Path, PathBuf};

use anyhow::Result;

use super::input::{Figure, ReportInput};
use super::plots::{
    render_png, render_svg, ConvergencePlot, LadderPlot, MatrixPlot, MistakesByRatingPlot, Palette,
    Plot, PlotError, RatingsPlot, SprtPlot, ThinkTimePlot,
};
use super::rate::{RateOptions, Rated};
use super::viewer::ViewerGames;
use super::{html, markdown};
use crate::rating::RatedGame;
use crate::run_folder::analysis::read_analysis;
use crate::run_folder::files;
use crate::run_folder::games::{rated_games, read_games, read_records};
use crate::run_folder::gate::GateFile;
use crate::run_folder::sprt::{read_trace, SprtFile};
use crate::run_folder::RunFile;

pub const REPORT_HTML: &str = "report.html";
pub const SUMMARY_MD: &str = "summary.md";

/// What to produce.
#[derive(Clone, Copy, Debug)]
pub struct ReportOptions {
    /// Also write `NAME.png` beside each `NAME.svg`.
    pub png: bool,
}

impl Default for ReportOptions {
    fn default() -> Self {
        ReportOptions { png: true }
    }
}

/// What [`write_report`] wrote, and which figures it could not draw.
#[derive(Debug, Default)]
pub struct ReportOutcome {
    pub written: Vec<PathBuf>,
    /// `(figure, reason)` for each figure left out.
    pub missing: Vec<(&'static str, String)>,
}

/// Draws one figure into `dir` (SVG always, PNG if asked).
fn figure<P: Plot>(
    dir: &Path,
    title: &'static str,
    stem: &'static str,
    plot: Result<P, PlotError>,
    opts: &ReportOptions,
    outcome: &mut ReportOutcome,
) -> Figure {
    let drawn = plot.and_then(|p| {
        let svg = render_svg(&p)?;
        let svg_path = dir.join(format!("{stem}.svg"));
        files::write(&svg_path, &svg).map_err(|e| PlotError::Io {
            context: format!("cannot write {}", svg_path.display()),
            source: std::io::Error::other(e),
        })?;
        outcome.written.push(svg_path);
        if opts.png {
            let png_path = dir.join(format!("{stem}.png"));
            render_png(&p, &png_path)?;
            outcome.written.push(png_path);
        }
        Ok((p.caption(), svg))
    });
    match drawn {
        Ok((caption, svg)) => Figure {
            stem,
            title,
            caption,
            svg: Ok(svg),
        },
        Err(e) => {
            outcome.missing.push((stem, e.to_string()));
            Figure {
                stem,
                title,
                caption: String::new(),
                svg: Err(e.to_string()),
            }
        }
    }
}

/// Draws the figures of a rated folder and writes `report.html` and `summary.md` into it.
pub fn write_report(
    dir: &Path,
    rated: &Rated,
    rate: &RateOptions,
    opts: &ReportOptions,
) -> Result<ReportOutcome> {
    let rows = read_games(dir)?;
    let games = rated_games(&rows, &rated.summary.players, rate.exclude_forfeits)
        .map_err(|e| format!("{e:#}"));
    let records = read_records(dir);
    let think = records
        .as_ref()
        .map_err(|e| PlotError::NoData(format!("{e:#}")))
        .and_then(|records| {
            let played = RunFile::read(dir).is_ok();
            ThinkTimePlot::from_records(&rated.summary.players, records, played)
        });
    let viewer = records
        .ok()
        .filter(|r| !r.is_empty())
        .map(|r| ViewerGames::new(&r));
    let material = Material {
        games: games.as_deref().map_err(Clone::clone),
        think,
        viewer,
        pgn: None,
    };
    write_documents(dir, rated, rate, opts, material)
}

/// The report of games rated from PGN files (`arena rate FILE.pgn --out DIR`), written into
/// `dir` beside the rating files: the same figures and sections as a folder's, except those
/// made of move lists and think times (the game viewer, the think-time figure, marked as not
/// drawn), which PGN input does not carry; `sources` are the PGN paths, shown where a folder
/// shows its `run.json`.
pub fn write_pgn_report(
    dir: &Path,
    rated: &Rated,
    rate: &RateOptions,
    opts: &ReportOptions,
    games: &[RatedGame],
    sources: &[PathBuf],
) -> Result<ReportOutcome> {
    let material = Material {
        games: Ok(games),
        think: Err(PlotError::NoData(
            "the games were read from PGN, which carries no think times".into(),
        )),
        viewer: None,
        pgn: Some(sources.iter().map(|p| p.display().to_string()).collect()),
    };
    write_documents(dir, rated, rate, opts, material)
}

/// What a report is drawn from besides the rating.
struct Material<'a> {
    /// The rated games, for the convergence figure (or why there are none).
    games: Result<&'a [RatedGame], String>,
    think: Result<ThinkTimePlot, PlotError>,
    /// The game viewer's games, where there are move lists.
    viewer: Option<ViewerGames>,
    /// PGN input: the files read.
    pgn: Option<Vec<String>>,
}

/// The figures and both documents.
fn write_documents(
    dir: &Path,
    rated: &Rated,
    rate: &RateOptions,
    opts: &ReportOptions,
    material: Material<'_>,
) -> Result<ReportOutcome> {
    let summary = &rated.summary;
    let names = &summary.players;
    let mut out = ReportOutcome::default();
    let mut figures = Vec::new();
    figures.push(figure(
        dir,
        "Ratings",
        "ratings",
        RatingsPlot::new(summary, rate.anchor.as_ref()),
        opts,
        &mut out,
    ));
    figures.push(figure(
        dir,
        "Score matrix",
        "matrix",
        MatrixPlot::new(summary),
        opts,
        &mut out,
    ));
    let convergence = material
        .games
        .map_err(PlotError::NoData)
        .and_then(|games| ConvergencePlot::new(names, games, rate));
    figures.push(figure(
        dir,
        "Convergence",
        "convergence",
        convergence,
        opts,
        &mut out,
    ));
    let sprt = SprtFile::read(dir).ok().flatten();
    if let Ok(Some(trace)) = read_trace(dir) {
        figures.push(figure(
            dir,
            "SPRT",
            "sprt",
            SprtPlot::new(trace, sprt.clone()),
            opts,
            &mut out,
        ));
    }
    figures.push(figure(
        dir,
        "Site ladder",
        "ladder",
        LadderPlot::new(names, &rated.report.ladder, rate.k),
        opts,
        &mut out,
    ));
    figures.push(figure(
        dir,
        "Think time",
        "think_time",
        material.think,
        opts,
        &mut out,
    ));

    let analysis = read_analysis(dir)?;
    if let Some(a) = analysis.as_ref().filter(|a| !a.brackets.is_empty()) {
        figures.push(figure(
            dir,
            "Mistakes against rating",
            "mistakes_by_rating",
            MistakesByRatingPlot::new(&a.brackets).map(|p| p.with_palette(Palette::new(names))),
            opts,
            &mut out,
        ));
    }

    let input = ReportInput {
        dir,
        summary,
        run: RunFile::read(dir).ok(),
        run_json: RunFile::read_text(dir),
        sprt,
        gate: GateFile::read(dir)?,
        figures,
        terminations: summary.terminations.clone(),
        analysis,
        viewer: material.viewer,
        pgn: material.pgn,
    };
    let html_path = dir.join(REPORT_HTML);
    files::write(&html_path, html::render(&input))?;
    out.written.push(html_path);
    let md_path = dir.join(SUMMARY_MD);
    files::write(&md_path, markdown::render(&input))?;
    out.written.push(md_path);
    Ok(out)
}
