//! The files of a calibration folder (`arena calibrate`), beside its `reference/` and `step-*`
//! run folders: `calibration.csv`, `calibration.json`, `calibrated.toml` and `table.txt`.
//!
//! # Format
//! - `calibration.csv`: one row per knob value played: `value,games,score,elo,se,ci_low,ci_high`
//!   (score 4 decimals, Elos 1 decimal).
//! - `calibration.json`: the whole [`Calibration`], as serde writes it.
//! - `calibrated.toml`: one `[[bot]]` table per target, in the tournament file's format, with
//!   comments giving each target's Elo and interval (see [`toml_snippet`]).
//! - `bands.toml`: the same players as the levels of an `arena gate` bands file, each with its
//!   curve Elo and a tolerance, the reference pool with its fixed Elos and the game settings the
//!   calibration played with (see [`bands_toml`]; the format is docs/regression-testing.md's).
//! - `table.txt`: the printed table.

use std::fmt::Write as _;
use std::path::Path;

use anyhow::{Context, Result};

use crate::calibrate::Calibration;
use crate::engine::{BotSpec, Program};

pub const CALIBRATION_CSV: &str = "calibration.csv";
pub const CALIBRATION_JSON: &str = "calibration.json";
pub const CALIBRATED_TOML: &str = "calibrated.toml";
pub const BANDS_TOML: &str = "bands.toml";
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
    super::write_json(dir, CALIBRATION_JSON, cal)?;
    std::fs::write(
        dir.join(CALIBRATED_TOML),
        toml_snippet(cal, cmd, fixed, pool),
    )?;
    std::fs::write(dir.join(TABLE_TXT), table)?;
    Ok(())
}

/// Writes [`bands_toml`] as the calibration folder's `bands.toml`; returns its path.
pub fn write_bands(dir: &Path, text: &str) -> Result<std::path::PathBuf> {
    let path = dir.join(BANDS_TOML);
    std::fs::write(&path, text).with_context(|| format!("cannot write {}", path.display()))?;
    Ok(path)
}

/// `[[bot]]` tables in the tournament file's format, one per target.
pub fn toml_snippet(cal: &Calibration, cmd: &str, fixed: &[String], pool: &str) -> String {
    heading(cal, pool) + &bot_tables(cal, cmd, fixed, None)
}

fn heading(cal: &Calibration, pool: &str) -> String {
    format!(
        "# arena calibrate: {} against {} ({} games, {:.0}% intervals).\n",
        cal.knob.name,
        pool,
        cal.games,
        cal.settings.level * 100.0
    )
}

/// A reference player of `bands.toml`: a bundled player (`spec` `None`) or any bot.
#[derive(Clone, Debug)]
pub struct BandsReference {
    pub name: String,
    pub elo: f64,
    pub spec: Option<BotSpec>,
}

/// An `arena gate` bands file for the settings the calibration found: the game `settings`
/// (`key = value` lines: rules, openings, limits, first-move advantage) the calibration played
/// with, the reference pool with its Elos, and per target a `[[bot]]` level with the curve's Elo
/// at its setting and the band `± tolerance`.
pub fn bands_toml(
    cal: &Calibration,
    cmd: &str,
    fixed: &[String],
    pool: &[BandsReference],
    settings: &[(String, toml::Value)],
    tolerance: f64,
) -> String {
    let names: Vec<String> = pool
        .iter()
        .map(|r| format!("{}={:.0}", r.name, r.elo))
        .collect();
    let mut s = heading(cal, &names.join(", "));
    s.push_str(
        "# An `arena gate` bands file: each level's Elo on the pool's scale ± its tolerance, the\n\
         # reference pool with its fixed Elos, and the game settings the calibration played with\n\
         # (the Elos hold for these settings only). docs/regression-testing.md\n",
    );
    for (k, v) in settings {
        let _ = writeln!(s, "{} = {v}", toml_key(k));
    }
    s.push_str("\n[reference]\n");
    for r in pool.iter().filter(|r| r.spec.is_none()) {
        let _ = writeln!(s, "{} = {:.0}", toml_key(&r.name), r.elo);
    }
    for r in pool {
        let Some(spec) = &r.spec else { continue };
        let _ = writeln!(s, "\n[[reference.bot]]");
        let _ = writeln!(s, "name = {}", toml::Value::String(r.name.clone()));
        match &spec.program {
            Program::Exec { .. } => {
                let _ = writeln!(s, "cmd = {}", toml::Value::String(spec.program.display()));
            }
            Program::Shell { command } => {
                let _ = writeln!(s, "cmd = {}", toml::Value::String(command.clone()));
                let _ = writeln!(s, "shell = true");
            }
        }
        if let Some(dir) = &spec.dir {
            let _ = writeln!(
                s,
                "dir = {}",
                toml::Value::String(dir.display().to_string())
            );
        }
        if !spec.options.is_empty() {
            let _ = writeln!(s, "options = {{ {} }}", inline_options(&spec.options));
        }
        let _ = writeln!(s, "elo = {:.0}", r.elo);
    }
    s + &bot_tables(cal, cmd, fixed, Some(tolerance))
}

/// `k = "v", ...` for an inline table.
fn inline_options(options: &[(String, String)]) -> String {
    options
        .iter()
        .map(|(k, v)| format!("{} = {}", toml_key(k), toml::Value::String(v.clone())))
        .collect::<Vec<_>>()
        .join(", ")
}

/// One `[[bot]]` table per target; with `band`, each gets `elo` (the curve's, rounded) and
/// `tolerance`.
fn bot_tables(cal: &Calibration, cmd: &str, fixed: &[String], band: Option<f64>) -> String {
    let mut s = String::new();
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
        let _ = writeln!(s, "[[bot]]");
        let _ = writeln!(s, "name = \"elo-{:.0}\"", r.target);
        let _ = writeln!(s, "cmd = {}", toml::Value::String(cmd.to_string()));
        let _ = writeln!(s, "options = {{ {} }}", inline_options(&options));
        if let Some(tolerance) = band {
            let _ = writeln!(s, "elo = {:.0}", r.elo);
            let _ = writeln!(s, "tolerance = {tolerance}");
        }
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
    super::read_json(dir, CALIBRATION_JSON)
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
