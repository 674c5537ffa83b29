//! How a command says what rating and drawing a report did: warnings, the missing figures and
//! where the report is (stderr), the ratings table (stdout).

use std::path::Path;

use anyhow::Result;
use mancala_arena::report::documents::{write_report, ReportOptions, ReportOutcome, REPORT_HTML};
use mancala_arena::report::rate::{RateOptions, Rated};
use mancala_arena::session::Finished;

/// The warnings of a rating (games the reader skipped, games outside the schedule), on stderr.
pub fn say_warnings(rated: &Rated) {
    for w in &rated.warnings {
        eprintln!("warning: {w}");
    }
}

/// Which figures were left out and where the report is, on stderr.
pub fn say_report(dir: &Path, outcome: &ReportOutcome) {
    for (figure, why) in &outcome.missing {
        eprintln!("no {figure} plot: {why}");
    }
    eprintln!(
        "report: {} ({} files written)",
        dir.join(REPORT_HTML).display(),
        outcome.written.len()
    );
}

/// Draws the report of an already rated folder and says where it is (on stderr).
pub fn report(dir: &Path, rated: &Rated, rate: &RateOptions, png: bool) -> Result<()> {
    let outcome = write_report(dir, rated, rate, &ReportOptions { png })?;
    say_report(dir, &outcome);
    Ok(())
}

/// What a session's end did: the ratings table on stdout when `table`, where the report is (or
/// why there is none) on stderr. A report that cannot be drawn does not make the run fail.
pub fn say_finished(dir: &Path, finished: &Finished, table: bool) -> Result<()> {
    match &finished.rated {
        Some(Ok(rated)) => {
            say_warnings(rated);
            if table {
                out!("\n{}", rated.table)?;
            }
        }
        Some(Err(err)) => eprintln!("no ratings: {err:#}"),
        None => {}
    }
    match &finished.report {
        Some(Ok(outcome)) => say_report(dir, outcome),
        Some(Err(err)) => eprintln!("no report: {err:#}"),
        None => {}
    }
    Ok(())
}
