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

/// A source line as the terminal shows it: an anchor set of more than
/// [`TERMINAL_ANCHORS`](super::rate::TERMINAL_ANCHORS) players is counted (as `arena rate` counts it),
/// not listed. A rating of a site's humans pins each of them, and its list (thirty players,
/// about 1,000 characters) was printed four times around one calibration (issue 47's second
/// pass); the files and the dashboard keep the whole line.
pub fn terminal_source(source: &str) -> String {
    const KEY: &str = "(anchor: ";
    let mut out = String::new();
    let mut rest = source;
    while let Some(at) = rest.find(KEY) {
        let list_start = at + KEY.len();
        let list_len = rest[list_start..]
            .find([';', ')'])
            .unwrap_or(rest.len() - list_start);
        let list = &rest[list_start..list_start + list_len];
        let pinned = list.matches(" = ").count();
        out.push_str(&rest[..list_start]);
        if pinned > super::rate::TERMINAL_ANCHORS {
            let _ = write!(out, "{pinned} players, each in the rating's summary.json");
        } else {
            out.push_str(list);
        }
        rest = &rest[list_start + list_len..];
    }
    out.push_str(rest);
    out
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

/// The two sources of a matchmaking table, a sentence each: where the humans' ratings and
/// where the pool's Elos came from (each with its rating's anchor).
pub fn matchmaking_sources(file: &MatchmakingFile) -> (String, String) {
    let humans = format!(
        "Matchmaking: {} humans rated in {}, in brackets of {:.0} Elo;",
        file.table.humans, file.humans_source, file.table.width
    );
    (humans, format!("{}.", file.reference_source))
}

/// The pool's source said without repeating the humans' one: when both are one rating (the
/// usual case, `--reference-ratings` without `--humans`), its path and anchor list are said
/// once on a page, as `the same rating` (a site's loose anchors run to hundreds of names, #47).
pub fn reference_source_once(file: &MatchmakingFile) -> String {
    let same = format!("reference Elos from {}", file.humans_source);
    match file.reference_source.strip_prefix(&same) {
        Some(rest) => format!("reference Elos from the same rating{rest}."),
        None => format!("{}.", file.reference_source),
    }
}

/// The matchmaking table's header and rows, one cell a column (the printed table and the
/// dashboard's HTML table are made from them): per bracket its humans, the level (its whole
/// name), the knob value a human at the centre scores 50 % against, the values consistent
/// with that, the level's Elo, the human's score and whether the knob reached it.
pub fn matchmaking_rows(file: &MatchmakingFile) -> (Vec<String>, Vec<Vec<String>>) {
    let knob = &file.knob;
    let pct = file.level * 100.0;
    let header = vec![
        "bracket".to_string(),
        "humans".to_string(),
        "level".to_string(),
        knob.name.clone(),
        format!("{} at {pct:.0}%", knob.name),
        format!("Elo ±{pct:.0}%"),
        "human scores".to_string(),
    ];
    let rows = file
        .table
        .rows
        .iter()
        .map(|r| {
            let range = match (r.x_low, r.x_high) {
                (Some(a), Some(b)) => format!("{}..{}", knob.format(a), knob.format(b)),
                _ => "none".to_string(),
            };
            vec![
                format!("{:.0}–{:.0}", r.lo, r.hi),
                r.humans.to_string(),
                file.table.levels[r.level].name.clone(),
                knob.format(r.x),
                range,
                format!("{:.0} ± {:.0}", r.elo, r.half_width),
                format!(
                    "{:.0}%{}",
                    100.0 * r.human_score,
                    if r.reachable {
                        ""
                    } else {
                        "  out of range: the knob's nearest end"
                    }
                ),
            ]
        })
        .collect();
    (header, rows)
}

/// Each level's reach, a sentence a level.
pub fn matchmaking_reach(file: &MatchmakingFile) -> Vec<String> {
    let knob = &file.knob;
    let table = &file.table;
    table
        .levels
        .iter()
        .map(|l| {
            format!(
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
            )
        })
        .collect()
}

/// The printed matchmaking table (`matchmaking.txt`, the terminal): the sources, per rating
/// bracket its humans, the level and knob value a human at the centre scores 50 % against (or
/// the nearest end, out of range, with the score there), the knob values consistent with that
/// and the level's Elo; then each level's reach. Columns are as wide as their widest cell:
/// a level's name is never cut.
pub fn matchmaking_text(file: &MatchmakingFile) -> String {
    let (humans, reference) = matchmaking_sources(file);
    let (header, rows) = matchmaking_rows(file);
    let width = |c: usize| {
        rows.iter()
            .map(|r| r[c].chars().count())
            .chain([header[c].chars().count()])
            .max()
            .unwrap_or(0)
    };
    // The level's column is left-aligned, the last one (the score and its note) unpadded.
    let line = |cells: &[String]| -> String {
        let mut l = String::new();
        for (c, cell) in cells.iter().enumerate() {
            let w = width(c);
            let _ = match c {
                2 => write!(l, "{cell:<w$}  "),
                6 => write!(l, "{cell}"),
                _ => write!(l, "{cell:>w$}  "),
            };
        }
        l
    };
    let mut s = format!("{humans}\n{reference}\n");
    let _ = writeln!(s, "{}", line(&header));
    for r in &rows {
        let _ = writeln!(s, "{}", line(r));
    }
    for reach in matchmaking_reach(file) {
        let _ = writeln!(s, "{reach}");
    }
    s
}

#[cfg(test)]
mod tests {
    use super::terminal_source;

    #[test]
    fn a_long_anchor_list_is_counted_on_the_terminal() {
        let list: Vec<String> = (0..30)
            .map(|i| format!("human{i:02} = {} ± 60", 1000 + i))
            .collect();
        let long = format!(
            "reference Elos from site/ratings.csv (anchor: loose {}; 1200 games)",
            list.join(", ")
        );
        assert_eq!(
            terminal_source(&long),
            "reference Elos from site/ratings.csv (anchor: 30 players, each in the rating's \
             summary.json; 1200 games)"
        );
        let twice = format!(
            "{long}\nMatchmaking: ... (anchor: loose {})",
            list.join(", ")
        );
        assert_eq!(terminal_source(&twice).matches("30 players").count(), 2);
        let short = "reference Elos from r/ratings.csv (anchor: easy = 1000, hard = 1600)";
        assert_eq!(terminal_source(short), short);
        assert_eq!(terminal_source("no anchor here"), "no anchor here");
    }
}
