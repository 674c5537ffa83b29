//! `arena plot DIR`: the figures, `report.html` and `summary.md` of a rated folder.
//!
//! [`write_report`] builds every figure's data (see [`super::plots`]), draws each as SVG (and
//! PNG unless told not to), then writes the two documents ([`super::html`],
//! [`super::markdown`]) from the same [`ReportInput`]. A figure that cannot be drawn does not
//! stop the others: the report says why it is missing.

use std::path::{Path, PathBuf};

use anyhow::{Context, Result};

use super::plots::sprt::SprtInfo;
use super::plots::{
    render_png, render_svg, ConvergencePlot, LadderPlot, MatrixPlot, Plot, PlotError, RatingsPlot,
    SprtPlot, ThinkTimePlot,
};
use super::rate::{games_of, RateOptions, Rated, Summary};
use crate::tournament::results::{read_games, RUN_JSON};
use crate::tournament::runner::RunFile;

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
    pub sprt: Option<SprtInfo>,
    pub figures: Vec<Figure>,
    /// How often each termination occurred, most frequent first.
    pub terminations: Vec<(String, usize)>,
    /// `analysis.csv` (the mistake meter), if `arena analyse` wrote one.
    pub analysis: Option<Vec<super::analysis::MistakeRow>>,
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
    let convergence = games_of(&rows, names, rate.exclude_forfeits)
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
    if dir.join(super::plots::sprt::SPRT_CSV).exists() {
        figures.push(figure(
            dir,
            "SPRT",
            "sprt",
            SprtPlot::from_dir(dir),
            opts,
            &mut out,
        ));
    }
    figures.push(figure(
        dir,
        "Site ladder",
        "ladder",
        LadderPlot::new(names, &rated.ladder, rate.k),
        opts,
        &mut out,
    ));
    figures.push(figure(
        dir,
        "Think time",
        "think_time",
        ThinkTimePlot::from_dir(dir, names),
        opts,
        &mut out,
    ));

    let mut terminations: Vec<(String, usize)> = Vec::new();
    for row in &rows {
        match terminations.iter_mut().find(|(t, _)| *t == row.termination) {
            Some((_, n)) => *n += 1,
            None => terminations.push((row.termination.clone(), 1)),
        }
    }
    terminations.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    let run_json = std::fs::read_to_string(dir.join(RUN_JSON))
        .ok()
        .and_then(|t| serde_json::from_str::<serde_json::Value>(&t).ok())
        .and_then(|v| serde_json::to_string_pretty(&v).ok());
    let input = ReportInput {
        dir,
        summary,
        run: RunFile::read(dir).ok(),
        run_json,
        sprt: SprtInfo::read(dir).ok().flatten(),
        figures,
        terminations,
        analysis: super::analysis::read_analysis(dir)?,
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

/// `signed(12.3)` is `+12`.
pub(crate) fn signed(x: f64) -> String {
    if x.is_finite() {
        format!("{x:+.0}")
    } else {
        "–".to_string()
    }
}

/// A percentage with one decimal, or `–`.
pub(crate) fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.1}%"),
        _ => "–".to_string(),
    }
}

/// The pairwise Elo difference with its error, pentanomial if available.
pub(crate) fn pair_elo(p: &crate::rating::rows::PairwiseRow) -> String {
    match (p.elo_penta, p.elo_penta_error, p.elo, p.elo_error) {
        (Some(e), Some(x), _, _) | (None, _, Some(e), Some(x)) if e.is_finite() => {
            format!("{} ± {:.0}", signed(e), x)
        }
        _ => "–".to_string(),
    }
}
