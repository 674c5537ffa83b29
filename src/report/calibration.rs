//! The calibration's documents: the printed table and the curve figure (`curve.svg/png`) in the
//! calibration folder. The folder's data files are [`crate::run_folder::calibration`]'s.

use std::fmt::Write as _;
use std::path::Path;

use super::plots::{render_png, render_svg, CalibrationPlot, Plot};
use crate::calibrate::Calibration;

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
    let plot = CalibrationPlot::new(cal);
    let mut missing = Vec::new();
    match render_svg(&plot) {
        Ok(svg) => crate::run_folder::files::write(&dir.join(format!("{}.svg", plot.stem())), svg)
            .map_err(std::io::Error::other)?,
        Err(err) => missing.push(format!("no {}.svg: {err}", plot.stem())),
    }
    if let Err(err) = render_png(&plot, &dir.join(format!("{}.png", plot.stem()))) {
        missing.push(format!("no {}.png: {err}", plot.stem()));
    }
    Ok(missing)
}
