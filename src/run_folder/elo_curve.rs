//! `elo-curve.txt` of `arena calibrate --curve` (and the copy at the `--curve` path): the smooth
//! monotone Elo curve over the whole knob range, in the format the alpha-beta bot's
//! `option.EloCurve` reads (`mancala_bots::elo`, which owns the format), fitted to every game of
//! the calibration's steps as they are on disk, so that the curve is of the games, whatever
//! order or how many runs played them.

use std::path::Path;

use anyhow::{bail, Context, Result};
use mancala_bots::elo::{CurvePoint, EloCurve};

use super::calibration::{calibration_runs, read_calibration, CANDIDATE, STEP_PREFIX};
use super::games::read_games;
use super::RunFile;
use crate::calibrate::monotone::MonotoneCurve;
use crate::calibrate::{Knob, Observation};
use crate::rules::Ruleset;
use crate::vocab::{Opening, OpeningSource};

/// The curve's file in the calibration folder.
pub const ELO_CURVE_TXT: &str = "elo-curve.txt";

/// Rows of the curve's table in the file.
const TABLE_ROWS: usize = 20;

/// One calibration folder's games as the curve needs them: its knob, its pool (names and the
/// Elos they were held at, in its order), the rules and openings it played, and every game of its
/// steps as the candidate's observations.
#[derive(Clone, Debug)]
pub struct CalibrationGames {
    pub dir: std::path::PathBuf,
    pub knob: Knob,
    pub pool: Vec<(String, f64)>,
    pub rules: Ruleset,
    pub openings: OpeningSource,
    pub obs: Vec<Observation>,
}

/// Reads a finished calibration folder (`arena calibrate`'s): `calibration.json` for the knob,
/// the steps' knob values and the pool's Elos, the steps' `run.json` for the pool's names (the
/// players after the candidate) and their games. The knob value of each `step-NN-...` folder
/// is step `NN`'s; games against players outside the pool are left out.
pub fn calibration_games(dir: &Path) -> Result<CalibrationGames> {
    let cal = read_calibration(dir)?.with_context(|| {
        format!(
            "{}: no calibration.json (not a calibration folder)",
            dir.display()
        )
    })?;
    let mut pool_names: Option<Vec<String>> = None;
    let mut played: Option<(Ruleset, OpeningSource)> = None;
    let mut obs = Vec::new();
    for run in calibration_runs(dir) {
        let name = run
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let Some(rest) = name.strip_prefix(STEP_PREFIX) else {
            continue;
        };
        let number: usize = rest
            .split('-')
            .next()
            .and_then(|n| n.parse().ok())
            .with_context(|| format!("{}: not a step folder's name", run.display()))?;
        let step = cal
            .steps
            .iter()
            .find(|s| s.step == number)
            .with_context(|| format!("{}: the calibration has no step {number}", run.display()))?;
        let config = RunFile::read(&run)?.config;
        let names: Vec<String> = config
            .players
            .iter()
            .map(|p| p.name.clone())
            .filter(|n| n != CANDIDATE)
            .collect();
        let pool = pool_names.get_or_insert_with(|| names.clone());
        if *pool != names {
            bail!("{}: a pool other than the other steps'", run.display());
        }
        played.get_or_insert((config.rules, config.openings.clone()));
        for row in read_games(&run)? {
            let candidate_first = row.first == CANDIDATE;
            let other = if candidate_first {
                &row.second
            } else {
                &row.first
            };
            let Some(opponent) = pool.iter().position(|p| p == other) else {
                continue;
            };
            let first_points = row.result.score();
            obs.push(Observation {
                x: step.x,
                opponent,
                candidate_first,
                score: if candidate_first {
                    first_points
                } else {
                    1.0 - first_points
                },
            });
        }
    }
    let names = pool_names.with_context(|| format!("{}: no step folders", dir.display()))?;
    if names.len() != cal.opponents.len() {
        bail!(
            "{}: {} players in the steps, {} Elos in calibration.json",
            dir.display(),
            names.len(),
            cal.opponents.len()
        );
    }
    let (rules, openings) = played.expect("set with the pool");
    Ok(CalibrationGames {
        dir: dir.to_path_buf(),
        knob: cal.knob.clone(),
        pool: names
            .into_iter()
            .zip(cal.opponents.iter().copied())
            .collect(),
        rules,
        openings,
        obs,
    })
}

/// Several calibrations of one knob as one set of games: their pools joined by name (a player
/// held at two Elos is an error), the knob's range the union of theirs, and their games, each
/// against its player in the joined pool. They must have played the same rules and openings.
#[derive(Clone, Debug)]
pub struct JoinedGames {
    pub knob: Knob,
    pub pool: Vec<(String, f64)>,
    pub obs: Vec<Observation>,
}

pub fn join(sets: &[CalibrationGames]) -> Result<JoinedGames> {
    let first = sets.first().context("no calibration to fit")?;
    let mut knob = first.knob.clone();
    let mut pool: Vec<(String, f64)> = Vec::new();
    let mut obs = Vec::new();
    for set in sets {
        if !set.knob.name.eq_ignore_ascii_case(&first.knob.name) {
            bail!(
                "{} calibrated `{}`, {} `{}`: one curve is over one knob",
                set.dir.display(),
                set.knob.name,
                first.dir.display(),
                first.knob.name
            );
        }
        let same_openings = match (&set.openings, &first.openings) {
            // The same lines, wherever the file was read from.
            (OpeningSource::List { openings: a, .. }, OpeningSource::List { openings: b, .. }) => {
                same_lines(a, b)
            }
            (a, b) => a == b,
        };
        if set.rules != first.rules || !same_openings {
            bail!(
                "{} played other rules or openings than {}: the Elos only hold for the games' settings",
                set.dir.display(),
                first.dir.display()
            );
        }
        knob.lo = knob.lo.min(set.knob.lo);
        knob.hi = knob.hi.max(set.knob.hi);
        let mut index = Vec::with_capacity(set.pool.len());
        for (name, elo) in &set.pool {
            match pool.iter().position(|(n, _)| n == name) {
                Some(i) if (pool[i].1 - elo).abs() > 0.01 => bail!(
                    "`{name}` is held at {:.2} in one calibration and {elo:.2} in {}",
                    pool[i].1,
                    set.dir.display()
                ),
                Some(i) => index.push(i),
                None => {
                    pool.push((name.clone(), *elo));
                    index.push(pool.len() - 1);
                }
            }
        }
        obs.extend(set.obs.iter().map(|o| Observation {
            opponent: index[o.opponent],
            ..*o
        }));
    }
    Ok(JoinedGames { knob, pool, obs })
}

/// The curve file's content: the fit's coefficients, `info` (what it was calibrated against, as
/// `mancala_bots::elo::INFO_KEYS` pairs) and the curve with its interval at `TABLE_ROWS + 1`
/// knob values (`z` the interval's quantile).
pub fn curve_file(
    knob: &str,
    fit: &MonotoneCurve,
    z: f64,
    info: Vec<(String, String)>,
) -> EloCurve {
    let points = (0..=TABLE_ROWS)
        .map(|i| {
            let x = fit.lo + (fit.hi - fit.lo) * i as f64 / TABLE_ROWS as f64;
            let (e, h) = (fit.elo(x), z * fit.se(x));
            CurvePoint {
                x: (x * 1000.0).round() / 1000.0,
                elo: e,
                low: e - h,
                high: e + h,
            }
        })
        .collect();
    EloCurve {
        knob: knob.to_string(),
        lo: fit.lo,
        hi: fit.hi,
        coefficients: fit.coefficients(),
        info,
        points,
    }
}

/// Writes `text` as the folder's `elo-curve.txt`.
pub fn write_curve_file(dir: &Path, text: &str) -> Result<()> {
    Ok(super::files::write(&dir.join(ELO_CURVE_TXT), text)?)
}

/// Two openings lists hold the same lines, in any order: each calibration step starts the list
/// at a place of its own (`GameSettings::plan_batch`), and its run records it from there.
fn same_lines(a: &[Opening], b: &[Opening]) -> bool {
    let sorted = |list: &[Opening]| {
        let mut lines: Vec<String> = list.iter().map(|o| format!("{o:?}")).collect();
        lines.sort();
        lines
    };
    sorted(a) == sorted(b)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn calibrations_of_one_list_join_whichever_line_their_steps_began_at() {
        let rules = crate::rules::Ruleset::kalah(4, 3);
        let list: Vec<Opening> = ["1 1", "1 2", "3 1", "4 4"]
            .iter()
            .map(|l| Opening::parse(rules, l).unwrap())
            .collect();
        let mut rotated = list.clone();
        rotated.rotate_left(3);
        assert!(same_lines(&list, &rotated));
        assert!(!same_lines(&list, &list[..3]));
        let mut other = list.clone();
        other[0] = Opening::parse(rules, "1 3").unwrap();
        assert!(!same_lines(&list, &other));
    }
}
