//! `arena calibrate --curve PATH`: after the calibration, one smooth monotone Elo curve over the
//! knob's whole range, fitted to every game of its steps (`calibrate::monotone`), written in the
//! format the alpha-beta bot's `option.EloCurve` reads (`bots/data/elo-curve-kalah6.txt` is one):
//! to PATH and as `elo-curve.txt` in the calibration folder, with its figure `elo-curve.svg/png`.
//! The file records what the curve was calibrated against: the pool with its Elos and where they
//! came from, the rules and openings, the games and the command.
//!
//! Kept apart from the calibration's own flow (`calibrate.rs`): it only reads what the
//! calibration left on disk and in its result.

use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};
use mancala_arena::calibrate::monotone::fit_monotone;
use mancala_arena::calibrate::Calibration;
use mancala_arena::plan::game::GameSettings;
use mancala_arena::report::plots::{write_figure, EloCurvePlot};
use mancala_arena::run_folder::elo_curve::{
    calibration_games, curve_file, join, write_curve_file, ELO_CURVE_TXT,
};
use mancala_arena::vocab::OpeningSource;

/// What `--curve` asks for.
pub struct CurveRequest<'a> {
    /// Where the curve goes (besides the calibration folder).
    pub path: &'a Path,
    /// Other calibration folders whose games join the fit (`--curve-with`).
    pub with: &'a [PathBuf],
    /// The highest Bernstein degree tried.
    pub max_degree: usize,
    pub no_plots: bool,
}

/// Fits the curve to the games of the calibration in `dir` (and of `req.with`'s) and writes it;
/// returns the lines to print. `source` says where this calibration's pool Elos came from.
pub fn write_curve(
    req: &CurveRequest<'_>,
    cal: &Calibration,
    game: &GameSettings,
    source: &str,
    dir: &Path,
) -> Result<String> {
    let mut sets = vec![calibration_games(dir)?];
    for other in req.with {
        sets.push(
            calibration_games(other)
                .with_context(|| format!("--curve-with {}", other.display()))?,
        );
    }
    let joined = join(&sets).context("--curve-with")?;
    let obs = &joined.obs;
    let elos: Vec<f64> = joined.pool.iter().map(|(_, e)| *e).collect();
    let (lo, hi) = (joined.knob.lo, joined.knob.hi);
    let fit = fit_monotone(obs, &elos, lo, hi, req.max_degree)
        .map_err(|e| anyhow::anyhow!("--curve: {e}"))?;
    let z = cal.z;
    let reference: Vec<String> = joined
        .pool
        .iter()
        .map(|(name, e)| format!("{name}={e:.1}"))
        .collect();
    let source = if req.with.is_empty() {
        source.replace('\n', " ")
    } else {
        let folders: Vec<String> = req.with.iter().map(|p| p.display().to_string()).collect();
        format!(
            "{}; with the games of {} (their pools held as they were)",
            source.replace('\n', " "),
            folders.join(", ")
        )
    };
    let openings = match &game.openings {
        OpeningSource::Random { plies } => format!("{plies} random sows"),
        OpeningSource::List { file, openings } => format!("{file} ({} openings)", openings.len()),
    };
    let info = [
        ("first_move_advantage", format!("{:.0}", fit.advantage())),
        ("level", format!("{}", cal.settings.level)),
        ("games", obs.len().to_string()),
        ("rules", game.rules.to_string()),
        ("openings", openings),
        ("reference", reference.join(" ")),
        ("reference_source", source),
        ("command", command_line()),
        (
            "made",
            format!(
                "arena {} on {}",
                env!("CARGO_PKG_VERSION"),
                chrono::Local::now().format("%Y-%m-%d")
            ),
        ),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let curve = curve_file(&joined.knob.name, &fit, z, info);
    let header = format!(
        "Elo curve of `{}` on the reference pool's scale: a smooth monotone fit (Bernstein, degree {}) \
         to {} calibration games.\nWritten by `arena calibrate --curve` (docs/calibrate.md); read \
         by the alpha-beta bot's option.Elo (docs/bots.md).",
        joined.knob.name,
        fit.degree(),
        obs.len()
    );
    let text = curve.to_text(&header);
    write_curve_file(dir, &text)?;
    write_to(req.path, &text)?;
    if !req.no_plots {
        for missing in write_figure(dir, &EloCurvePlot::new(cal, &fit))? {
            eprintln!("{missing}");
        }
    }
    let at = |x: f64| format!("{:.0} ± {:.0}", fit.elo(x), z * fit.se(x));
    Ok(format!(
        "Elo curve (monotone, Bernstein degree {}, {} games): {}={} is {}, {}={} is {}; written to {} and {}\n",
        fit.degree(),
        obs.len(),
        joined.knob.name,
        joined.knob.format(lo),
        at(lo),
        joined.knob.name,
        joined.knob.format(hi),
        at(hi),
        req.path.display(),
        dir.join(ELO_CURVE_TXT).display()
    ))
}

/// The command as typed, for the file's `command` line.
fn command_line() -> String {
    std::env::args()
        .map(|a| {
            if a.contains(char::is_whitespace) {
                format!("'{a}'")
            } else {
                a
            }
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// Refuses a `--curve` path that cannot be written and a `--curve-with` that is no calibration
/// folder, before any game.
pub fn check_path(path: &Path, with: &[PathBuf]) -> Result<()> {
    for other in with {
        calibration_games(other).with_context(|| format!("--curve-with {}", other.display()))?;
    }
    if path.is_dir() {
        bail!(
            "--curve {}: a folder; give the file to write",
            path.display()
        );
    }
    match path.parent().filter(|p| !p.as_os_str().is_empty()) {
        Some(parent) if !parent.is_dir() => bail!(
            "--curve {}: the folder {} does not exist",
            path.display(),
            parent.display()
        ),
        _ => Ok(()),
    }
}

/// Writes the curve to the `--curve` path (its folder must exist).
fn write_to(path: &Path, text: &str) -> Result<()> {
    if path.is_dir() {
        bail!(
            "--curve {}: a folder; give the file to write",
            path.display()
        );
    }
    let tmp: PathBuf = path.with_extension("tmp");
    std::fs::write(&tmp, text)
        .with_context(|| format!("--curve: cannot write {}", tmp.display()))?;
    std::fs::rename(&tmp, path).with_context(|| format!("--curve: cannot write {}", path.display()))
}
