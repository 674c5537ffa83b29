//! The files of a calibration folder (`arena calibrate`), beside its `reference/` and `step-*`
//! run folders: `calibration.csv`, `calibration.json`, `calibrated.toml` and `table.txt`.
//!
//! # Format
//! - `calibration.csv`: one row per knob value played: `value,games,score,elo,se,ci_low,ci_high`
//!   (score 4 decimals, Elos 1 decimal).
//! - `calibration.json`: the whole [`Calibration`], as serde writes it.
//! - `calibrated.toml`: one `[[bot]]` table per target, in the tournament file's format, with
//!   comments giving each target's Elo and interval (see [`toml_snippet`]).
//! - `table.txt`: the printed table.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::calibrate::Calibration;

pub const CALIBRATION_CSV: &str = "calibration.csv";
pub const CALIBRATION_JSON: &str = "calibration.json";
pub const CALIBRATED_TOML: &str = "calibrated.toml";
pub const TABLE_TXT: &str = "table.txt";
/// The reference pool's round robin, inside the calibration folder.
pub const REFERENCE_DIR: &str = "reference";
/// The calibrated bot's player name inside the step folders.
pub const CANDIDATE: &str = "candidate";
/// Each batch's run folder is `step-NN-<knob>-<value>`.
pub const STEP_PREFIX: &str = "step-";

/// Writes the four files into the calibration folder `dir`. `cmd` and `fixed` are the
/// candidate's command line and fixed options (`NAME=VALUE`), `pool` the reference pool in words.
pub fn write_calibration(
    dir: &Path,
    cal: &Calibration,
    cmd: &str,
    fixed: &[String],
    pool: &str,
    table: &str,
) -> Result<()> {
    let path = dir.join(CALIBRATION_CSV);
    let mut w = csv::Writer::from_path(&path)
        .with_context(|| format!("cannot write {}", path.display()))?;
    w.write_record(["value", "games", "score", "elo", "se", "ci_low", "ci_high"])?;
    for p in &cal.points {
        w.write_record([
            cal.knob.format(p.x),
            p.games.to_string(),
            format!("{:.4}", p.score),
            format!("{:.1}", p.elo),
            format!("{:.1}", p.se),
            format!("{:.1}", p.ci_low),
            format!("{:.1}", p.ci_high),
        ])?;
    }
    w.flush()?;
    std::fs::write(
        dir.join(CALIBRATION_JSON),
        serde_json::to_string_pretty(cal)? + "\n",
    )?;
    std::fs::write(
        dir.join(CALIBRATED_TOML),
        toml_snippet(cal, cmd, fixed, pool),
    )?;
    std::fs::write(dir.join(TABLE_TXT), table)?;
    Ok(())
}

/// `[[bot]]` tables in the tournament file's format, one per target.
pub fn toml_snippet(cal: &Calibration, cmd: &str, fixed: &[String], pool: &str) -> String {
    let mut s = format!(
        "# arena calibrate: {} against {} ({} games, {:.0}% intervals).\n",
        cal.knob.name,
        pool,
        cal.games,
        cal.settings.level * 100.0
    );
    for r in &cal.targets {
        let mut options: Vec<(String, String)> = fixed
            .iter()
            .filter_map(|o| o.split_once('='))
            .filter(|(k, _)| *k != cal.knob.name)
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        options.push((cal.knob.name.clone(), cal.knob.format(r.x)));
        let _ = writeln!(s);
        let note = match (r.reachable, r.converged) {
            (false, _) => " — OUT OF RANGE: the nearest the knob gets".to_string(),
            (true, false) => " — NOT converged".to_string(),
            _ => String::new(),
        };
        let _ = writeln!(
            s,
            "# Elo {:.0} ± {:.0} on the curve{note}",
            r.elo, r.half_width
        );
        if cal.knob.integer && r.neighbours.len() == 2 {
            let _ = writeln!(
                s,
                "# {} is whole: {}={} rates {:.0}, {}={} rates {:.0}",
                cal.knob.name,
                cal.knob.name,
                cal.knob.format(r.neighbours[0].x),
                r.neighbours[0].elo,
                cal.knob.name,
                cal.knob.format(r.neighbours[1].x),
                r.neighbours[1].elo
            );
        }
        let opts: Vec<String> = options
            .iter()
            .map(|(k, v)| format!("{} = {}", toml_key(k), toml::Value::String(v.clone())))
            .collect();
        let _ = writeln!(s, "[[bot]]");
        let _ = writeln!(s, "name = \"elo-{:.0}\"", r.target);
        let _ = writeln!(s, "cmd = {}", toml::Value::String(cmd.to_string()));
        let _ = writeln!(s, "options = {{ {} }}", opts.join(", "));
    }
    s
}

fn toml_key(k: &str) -> String {
    if !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
    {
        k.to_string()
    } else {
        toml::Value::String(k.to_string()).to_string()
    }
}

/// The folder's `calibration.json` (written when the calibration ends), `None` if it has none.
pub fn read_calibration(dir: &Path) -> Result<Option<Calibration>> {
    let path = dir.join(CALIBRATION_JSON);
    if !path.exists() {
        return Ok(None);
    }
    let text = std::fs::read_to_string(&path)
        .with_context(|| format!("cannot read {}", path.display()))?;
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("{} is not readable", path.display()))
}

/// The run folders of a calibration folder: `reference/` (if the pool was rated) and the
/// `step-*` batches in order.
pub fn calibration_runs(dir: &Path) -> Vec<std::path::PathBuf> {
    let mut runs: Vec<std::path::PathBuf> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .filter_map(Result::ok)
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            name == REFERENCE_DIR || name.starts_with(STEP_PREFIX)
        })
        .map(|e| e.path())
        .filter(|p| super::RunFile::exists(p))
        .collect();
    // `reference` sorts after `step-`: put it first.
    runs.sort_by_key(|p| (!p.ends_with(REFERENCE_DIR), p.clone()));
    runs
}

/// Whether `dir` is a calibration folder: it has `calibration.json`, or the run folders of one.
pub fn is_calibration_dir(dir: &Path) -> bool {
    dir.join(CALIBRATION_JSON).exists() || !calibration_runs(dir).is_empty()
}
