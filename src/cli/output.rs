//! The output flags every game-playing command takes (`run`, `sprt`, `gate`, `calibrate`).

use std::path::PathBuf;

use mancala_arena::plan::default_out;

#[derive(clap::Args, Debug, Default, Clone)]
pub struct OutputFlags {
    /// Results folder [default: results/<name>-<timestamp>/, the run's or the command's name].
    #[arg(long)]
    pub out: Option<PathBuf>,
    /// Do not draw the plots, report.html and summary.md at the end (sprt and gate: nor rate the
    /// folder; calibrate: no curve plot).
    #[arg(long)]
    pub no_plots: bool,
    /// No progress output.
    #[arg(long, short)]
    pub quiet: bool,
}

impl OutputFlags {
    /// `--out`, or `results/<name>-<timestamp>/`.
    pub fn out_or_default(&self, name: &str) -> PathBuf {
        self.out.clone().unwrap_or_else(|| default_out(name))
    }
}
