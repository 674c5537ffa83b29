//! What `report.html` and `summary.md` are made of: [`ReportInput`], built by
//! [`super::documents::write_report`] and handed to both renderers. It imports no renderer, so
//! the renderers can take it without importing the module that calls them.

use std::path::Path;

use super::viewer::ViewerGames;
use crate::run_folder::analysis::Analysis;
use crate::run_folder::games::Termination;
use crate::run_folder::gate::GateFile;
use crate::run_folder::ratings::Summary;
use crate::run_folder::sprt::SprtFile;
use crate::run_folder::RunFile;

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
    /// The mistake meter's files, if `arena analyse` wrote them.
    pub analysis: Option<Analysis>,
    /// The games for the viewer (from `games.jsonl`), if the folder has move lists.
    pub viewer: Option<ViewerGames>,
    /// PGN input (`arena rate FILE.pgn --out DIR`): the files the games were read from.
    pub pgn: Option<Vec<String>>,
}

impl ReportInput<'_> {
    /// The report's title: the run's name, `PGN games` for PGN input, else `results`.
    pub fn name(&self) -> String {
        match (&self.run, &self.pgn) {
            (Some(run), _) => run.config.name.clone(),
            (None, Some(_)) => "PGN games".to_string(),
            (None, None) => "results".to_string(),
        }
    }

    /// The command that rates PGN input again into the same folder, quoted for a POSIX shell
    /// (the rating options are not recorded: add the ones first used).
    pub fn pgn_command(&self) -> Option<String> {
        let quote =
            |s: &str| shlex::try_quote(s).map_or_else(|_| s.to_string(), |q| q.into_owned());
        self.pgn.as_ref().map(|files| {
            let files: Vec<String> = files.iter().map(|f| quote(f)).collect();
            format!(
                "arena rate {} --out {}",
                files.join(" "),
                quote(&self.dir.display().to_string())
            )
        })
    }
}

/// The command that reproduces the run, from `run.json`, quoted for a POSIX shell.
pub fn command_line(run: &RunFile) -> String {
    run.command
        .iter()
        .map(|w| shlex::try_quote(w).map_or_else(|_| format!("{w:?}"), |q| q.into_owned()))
        .collect::<Vec<_>>()
        .join(" ")
}
