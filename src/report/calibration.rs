//! The calibration's documents: the printed table and the curve figure (`curve.svg/png`) in the
//! calibration folder, and on a human scale the matchmaking table (`matchmaking.txt`) and its
//! figure over the humans (`matchmaking.svg/png`). The folder's data files are
//! [`crate::run_folder::calibration`]'s.

use std::fmt::Write as _;
use std::path::Path;

use super::plots::{write_figure, CalibrationPlot, MatchmakingPlot};
use crate::calibrate::{Calibration, Stop};
use crate::run_folder::calibration::MatchmakingFile;

/// How a finished calibration ended, in the words the last printed line and the dashboard share.
/// A target beyond the knob's reach counts as settled once it is confidently out of range, so
/// "every target converged" alone read as every target met (issue 47's second pass): the
/// targets out of range are counted apart.
pub fn outcome(cal: &Calibration) -> String {
    let n = cal.targets.len();
    let out_of_range = cal.targets.iter().filter(|t| !t.reachable).count();
    let open = cal
        .targets
        .iter()
        .filter(|t| t.reachable && !t.converged)
        .count();
    let converged = n - out_of_range - open;
    let mut s = match (cal.stop, out_of_range) {
        (Some(Stop::Converged), 0) => "every target converged".to_string(),
        (Some(Stop::Converged), _) => format!("{converged} of {n} targets converged"),
        _ => format!("budget reached: {open} of {n} targets not converged"),
    };
    if out_of_range > 0 {
        let _ = write!(
            s,
            ", {out_of_range} out of the knob's range (its nearest end is given)"
        );
    }
    s
}

/// The printed table: the targets, then every evaluated knob value.
pub fn table(cal: &Calibration) -> String {
    let pct = cal.settings.level * 100.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "{:>7}  {:>8}  {:>16}  status",
        "target",
        cal.knob.name,
        format!("Elo ±{pct:.0}%"),
    );
    for r in &cal.targets {
        let status = match (r.reachable, r.converged) {
            (false, _) => "out of range: the knob's end is the nearest".to_string(),
            (true, true) => "converged".to_string(),
            (true, false) if cal.finished => "NOT converged (budget)".to_string(),
            (true, false) => "not converged yet".to_string(),
        };
        let _ = writeln!(
            s,
            "{:>7.0}  {:>8}  {:>16}  {}",
            r.target,
            cal.knob.format(r.x),
            format!("{:.0} ± {:.0}", r.elo, r.half_width),
            status
        );
        if cal.knob.integer && r.neighbours.len() == 2 {
            let n: Vec<String> = r
                .neighbours
                .iter()
                .map(|n| {
                    format!(
                        "{}={} is {:.0} ± {:.0}",
                        cal.knob.name,
                        cal.knob.format(n.x),
                        n.elo,
                        n.half_width
                    )
                })
                .collect();
            let _ = writeln!(s, "{:>7}  between: {}", "", n.join(", "));
        }
    }
    let _ = writeln!(
        s,
        "\n{:>8}  {:>6}  {:>6}  {:>22}",
        cal.knob.name,
        "games",
        "score",
        format!("Elo (own games) ±{pct:.0}%")
    );
    for p in &cal.points {
        let _ = writeln!(
            s,
            "{:>8}  {:>6}  {:>5.1}%  {:>22}",
            cal.knob.format(p.x),
            p.games,
            100.0 * p.score,
            format!("{:.0} [{:.0}, {:.0}]", p.elo, p.ci_low, p.ci_high)
        );
    }
    s
}

/// Draws the curve into `dir` (SVG and PNG). A figure that cannot be drawn is not an error: it
/// is returned, named with why (`no curve.png: ...`), for the caller to say.
pub fn write_curve(dir: &Path, cal: &Calibration) -> std::io::Result<Vec<String>> {
    write_figure(dir, &CalibrationPlot::new(cal))
}

/// Draws the matchmaking figure into `dir` (SVG and PNG), as [`write_curve`] does.
pub fn write_matchmaking_plot(dir: &Path, file: &MatchmakingFile) -> std::io::Result<Vec<String>> {
    write_figure(dir, &MatchmakingPlot::new(file))
}

/// The printed matchmaking table: per rating bracket its humans, the level and knob value a
/// human at the centre scores 50 % against (or the nearest end, out of range, with the score
/// there), the knob values consistent with that and the level's Elo; then each level's reach.
pub fn matchmaking_text(file: &MatchmakingFile) -> String {
    let knob = &file.knob;
    let table = &file.table;
    let pct = file.level * 100.0;
    let mut s = String::new();
    let _ = writeln!(
        s,
        "Matchmaking: {} humans rated in {}, in brackets of {:.0} Elo;\n{}.",
        table.humans, file.humans_source, table.width, file.reference_source
    );
    let _ = writeln!(
        s,
        "{:>11}  {:>6}  {:<20}  {:>8}  {:>17}  {:>12}  human scores",
        "bracket",
        "humans",
        "level",
        knob.name,
        format!("{} at {pct:.0}%", knob.name),
        format!("Elo ±{pct:.0}%"),
    );
    for r in &table.rows {
        let range = match (r.x_low, r.x_high) {
            (Some(a), Some(b)) => format!("{}..{}", knob.format(a), knob.format(b)),
            _ => "none".to_string(),
        };
        let _ = writeln!(
            s,
            "{:>11}  {:>6}  {:<20}  {:>8}  {:>17}  {:>12}  {:.0}%{}",
            format!("{:.0}–{:.0}", r.lo, r.hi),
            r.humans,
            super::plots::short(&table.levels[r.level].name, 20),
            knob.format(r.x),
            range,
            format!("{:.0} ± {:.0}", r.elo, r.half_width),
            100.0 * r.human_score,
            if r.reachable {
                ""
            } else {
                "  out of range: the knob's nearest end"
            }
        );
    }
    for l in &table.levels {
        let _ = writeln!(
            s,
            "{} reaches Elo {:.0} to {:.0} over {} {}..{}: {} of {} humans ({:.0}%).",
            l.name,
            l.elo_min,
            l.elo_max,
            knob.name,
            knob.format(knob.lo),
            knob.format(knob.hi),
            l.humans,
            table.humans,
            100.0 * l.share
        );
    }
    s
}
