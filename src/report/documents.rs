//! `arena plot DIR`: the figures, `report.html` and `summary.md` of a rated folder (the
//! documents made from a results folder; nothing reads them back).
//!
//! [`write_report`] builds every figure's data (see [`super::plots`]), draws each as SVG (and
//! PNG unless told not to), then writes the two documents ([`super::html`],
//! [`super::markdown`]) from the same [`ReportInput`]. A figure that cannot be drawn does not
//! stop the others: the report says why it is missing.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::plots::{
    render_png, render_svg, ConvergencePlot, LadderPlot, MatrixPlot, Plot, PlotError, RatingsPlot,
    SprtPlot, ThinkTimePlot,
};
use super::rate::{RateOptions, Rated};
use super::viewer::ViewerGames;
use crate::run_folder::analysis::{read_analysis, MistakeRow};
use crate::run_folder::games::{rated_games, read_games, read_records, Termination};
use crate::run_folder::gate::GateFile;
use crate::run_folder::ratings::Summary;
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

/// One figure of the report: drawn, or why not.
#[derive(Clone, Debug)]
pub struct Figure {
    pub stem: &'static str,
    pub title: &'static str,
    pub caption: String,
    /// The SVG document, or the reason there is none.
    pub svg: Result<String, String>,
}

/// Everything the HTML and Markdown documents are made of.
pub struct ReportInput<'a> {
    pub dir: &'a Path,
    pub summary: &'a Summary,
    /// `run.json` if the folder has one.
    pub run: Option<RunFile>,
    /// `run.json` as written (pretty-printed again), for the configuration section.
    pub run_json: Option<String>,
    pub sprt: Option<SprtFile>,
    /// `gate.json` (an `arena gate` run).
    pub gate: Option<GateFile>,
    pub figures: Vec<Figure>,
    /// How often each termination occurred, most frequent first.
    pub terminations: Vec<(Termination, usize)>,
    /// `analysis.csv` (the mistake meter), if `arena analyse` wrote one.
    pub analysis: Option<Vec<MistakeRow>>,
    /// The games for the viewer (from `games.jsonl`), if the folder has move lists.
    pub viewer: Option<ViewerGames>,
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
        std::fs::write(&svg_path, &svg).map_err(|source| PlotError::Io {
            context: format!("cannot write {}", svg_path.display()),
            source,
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
    let summary = &rated.summary;
    let names = &summary.players;
    let rows = read_games(dir)?;
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
    let convergence = rated_games(&rows, names, rate.exclude_forfeits)
        .map_err(|e| PlotError::NoData(format!("{e:#}")))
        .and_then(|games| ConvergencePlot::new(names, &games, rate));
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
    let records = read_records(dir);
    figures.push(figure(
        dir,
        "Think time",
        "think_time",
        records
            .as_ref()
            .map_err(|e| PlotError::NoData(format!("{e:#}")))
            .and_then(|records| ThinkTimePlot::from_records(names, records)),
        opts,
        &mut out,
    ));

    let input = ReportInput {
        dir,
        summary,
        run: RunFile::read(dir).ok(),
        run_json: RunFile::read_text(dir),
        sprt,
        gate: GateFile::read(dir)?,
        figures,
        terminations: summary.terminations.clone(),
        analysis: read_analysis(dir)?,
        viewer: records
            .ok()
            .filter(|r| !r.is_empty())
            .map(|r| ViewerGames::new(&r)),
    };
    let html_path = dir.join(REPORT_HTML);
    std::fs::write(&html_path, super::html::render(&input))
        .with_context(|| format!("cannot write {}", html_path.display()))?;
    out.written.push(html_path);
    let md_path = dir.join(SUMMARY_MD);
    std::fs::write(&md_path, super::markdown::render(&input))
        .with_context(|| format!("cannot write {}", md_path.display()))?;
    out.written.push(md_path);
    Ok(out)
}

/// The command that reproduces the run, from `run.json`, quoted for a POSIX shell.
pub fn command_line(run: &RunFile) -> String {
    run.command
        .iter()
        .map(|w| shlex::try_quote(w).map_or_else(|_| format!("{w:?}"), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}
