//! The files of a calibration folder (`arena calibrate`), beside its `reference/` and `step-*`
//! run folders: `calibration.csv`, `calibration.json`, `calibrated.toml` and `table.txt`.
//!
//! # Format
//! - `calibration.csv`: one row per knob value played: `value,games,score,elo,se,ci_low,ci_high`
//!   (score 4 decimals, Elos 1 decimal).
//! - `calibration.json`: the whole [`Calibration`], as serde writes it; `finished` is false while
//!   the calibration runs (and `stop` null), true at the end (files from before `finished`
//!   existed lack it: they were written only at the end).
//!
//! These two are written after every step (the calibration so far: every point measured, the
//! curve fitted to the games so far), each to a temporary file in the folder that is then
//! renamed over the old one, so a reader (`arena serve`) never sees half a file.
//! - `calibrated.toml`: one `[[bot]]` table per target, in the tournament file's format, with
//!   comments giving each target's Elo and interval (see [`toml_snippet`]).
//! - `bands.toml`: the same players as the levels of an `arena gate` bands file, each with its
//!   curve Elo and a tolerance, the reference pool with its fixed Elos and the game settings the
//!   calibration played with (see [`bands_toml`]; the format is docs/regression-testing.md's, read by
//!   [`super::bands::BandsFile`]).
//! - `table.txt`: the printed table, and where the reference Elos came from.
//! - `calibration-setup.json`: the [`CalibrationSetup`], everything the calibration is a function
//!   of besides its games (the candidate as a player spec, the knob, the settings, the pool with
//!   its typed or read Elos, the humans, the seed and the game settings), written before the
//!   first game; `arena calibrate --resume DIR` reads only this and replays the games on disk.
//! - On a human scale (`--reference-ratings` or `--humans`), `matchmaking.csv`: one row per
//!   bracket of the humans' ratings: `bracket_low,bracket_high,centre,humans,level,value,
//!   value_low,value_high,elo,ci_low,ci_high,reachable,human_score` (the knob value at which a
//!   human at the centre is expected to score 50 %, the knob values whose interval contains the
//!   centre (empty if none), the level's Elo there with its interval, whether the knob's range
//!   reaches the centre, and the human's expected score against the level at that value; Elos 1
//!   decimal, the score 3); `matchmaking.json`: a [`MatchmakingFile`] (the table, each level's
//!   reach and share of the humans, the humans' ratings and both sources); `matchmaking.txt`: the
//!   printed table. The maths is `calibrate::matchmaking`'s.

use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::bands::{bot_tables, BandsBot, BandsFile, GateTable, ReferenceTable};
use crate::calibrate::matchmaking::Matchmaking;
use crate::calibrate::{Calibration, Knob, Settings};
use crate::vocab::{BotSpec, FileBot, GameFlags};

pub const CALIBRATION_CSV: &str = "calibration.csv";
pub const CALIBRATION_JSON: &str = "calibration.json";
pub const CALIBRATED_TOML: &str = "calibrated.toml";
pub const BANDS_TOML: &str = "bands.toml";
pub const TABLE_TXT: &str = "table.txt";
pub const MATCHMAKING_CSV: &str = "matchmaking.csv";
pub const MATCHMAKING_JSON: &str = "matchmaking.json";
pub const MATCHMAKING_TXT: &str = "matchmaking.txt";
pub const SETUP_JSON: &str = "calibration-setup.json";
/// The reference pool's round robin, inside the calibration folder.
pub const REFERENCE_DIR: &str = "reference";
/// The calibrated bot's player name inside the step folders.
pub const CANDIDATE: &str = "candidate";
/// Each batch's run folder is `step-NN-<knob>-<value>`.
pub const STEP_PREFIX: &str = "step-";

/// Everything a calibration is a function of besides its games: written into the folder before
/// the first game, read back by both a new calibration and `--resume` (so both run on the same
/// values, to the last bit), so that a resumed calibration replays its steps from disk and goes on
/// on the same trajectory. A new mode of calibration records its own settings here, as fields
/// with `#[serde(default)]` so that older folders still read.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CalibrationSetup {
    /// The candidate with its fixed options, from the player words.
    pub candidate: BotSpec,
    pub knob: Knob,
    pub settings: Settings,
    /// The reference pool, in order.
    pub pool: Vec<PoolMember>,
    /// Where the pool's Elos came from when a rating gave them (`--reference-ratings`), in words.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reference_source: Option<String>,
    /// Game pairs per encounter of the pool's round robin (when it is rated).
    pub reference_pairs: u32,
    /// `--anchor NAME=ELO` of the pool's round robin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub anchor: Option<String>,
    /// The humans of the matchmaking table (none: no table).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub humans: Option<Humans>,
    /// The matchmaking table's bracket width (Elo) and the calibrated level's name in it.
    pub bracket: f64,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub level_name: Option<String>,
    /// The tolerance of each level's band in `bands.toml`.
    pub band_tolerance: f64,
    /// The run seed: the pool's round robin's and every step's games derive from it.
    pub seed: u64,
    /// The game settings as the flags gave them (`concurrency` is not part of the trajectory: a
    /// resume may change it).
    pub game: GameFlags,
}

/// A member of the reference pool as a calibration records it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PoolMember {
    pub name: String,
    /// A player of its own (`--reference-bot`); `None`: the bundled player of that name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bot: Option<BotSpec>,
    /// Its fixed Elo, typed or read from a rating; `None`: rated by the pool's round robin.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
}

/// The humans of a matchmaking table: their ratings, and where those came from in words.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Humans {
    pub source: String,
    pub players: Vec<(String, f64)>,
}

impl CalibrationSetup {
    /// The folder's `calibration-setup.json`, `None` if it has none.
    pub fn read(dir: &Path) -> Result<Option<CalibrationSetup>> {
        super::read_json(dir, SETUP_JSON)
    }

    /// Writes `calibration-setup.json` into `dir` (through a temporary file).
    pub fn write(&self, dir: &Path) -> Result<()> {
        let json = serde_json::to_string_pretty(self)? + "\n";
        write_atomically(&dir.join(SETUP_JSON), json.as_bytes())
    }
}

/// Writes the four files into the calibration folder `dir` at the end. `candidate` is the bot
/// with its fixed options, `pool` the reference pool in words, `source` where its Elos came from
/// (a comment line of `calibrated.toml`).
pub fn write_calibration(
    dir: &Path,
    cal: &Calibration,
    candidate: &BotSpec,
    pool: &str,
    table: &str,
    source: &str,
) -> Result<()> {
    write_points(dir, cal)?;
    super::files::write(
        &dir.join(CALIBRATED_TOML),
        toml_snippet(cal, candidate, pool) + &format!("\n# {}\n", one_line(source)),
    )?;
    super::files::write(&dir.join(TABLE_TXT), table)?;
    Ok(())
}

/// Writes `calibration.csv` and `calibration.json` (after every step, and at the end), each
/// atomically.
pub fn write_points(dir: &Path, cal: &Calibration) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
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
    write_atomically(&dir.join(CALIBRATION_CSV), &w.into_inner()?)?;
    let json = serde_json::to_string_pretty(cal)? + "\n";
    write_atomically(&dir.join(CALIBRATION_JSON), json.as_bytes())
}

/// `text` on one line (a comment cannot hold a line break).
fn one_line(text: &str) -> String {
    text.replace(['\n', '\r'], " ")
}

/// What `matchmaking.json` holds: the table and what it was made from.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchmakingFile {
    /// Where the reference pool's Elos came from (the human scale), in words.
    pub reference_source: String,
    /// Where the humans' ratings came from, in words.
    pub humans_source: String,
    pub knob: Knob,
    /// The confidence level of the intervals.
    pub level: f64,
    /// The calibration's targets with the knob value found for each.
    pub targets: Vec<(f64, f64)>,
    /// The humans' ratings.
    pub ratings: Vec<f64>,
    pub table: Matchmaking,
}

/// Writes `matchmaking.csv` and `matchmaking.json` (module docs).
pub fn write_matchmaking_files(dir: &Path, file: &MatchmakingFile) -> Result<()> {
    let mut w = csv::Writer::from_writer(Vec::new());
    w.write_record([
        "bracket_low",
        "bracket_high",
        "centre",
        "humans",
        "level",
        "value",
        "value_low",
        "value_high",
        "elo",
        "ci_low",
        "ci_high",
        "reachable",
        "human_score",
    ])?;
    let knob = &file.knob;
    for r in &file.table.rows {
        let maybe = |v: Option<f64>| v.map_or(String::new(), |v| knob.format(v));
        w.write_record([
            format!("{:.1}", r.lo),
            format!("{:.1}", r.hi),
            format!("{:.1}", r.centre),
            r.humans.to_string(),
            file.table.levels[r.level].name.clone(),
            knob.format(r.x),
            maybe(r.x_low),
            maybe(r.x_high),
            format!("{:.1}", r.elo),
            format!("{:.1}", r.elo - r.half_width),
            format!("{:.1}", r.elo + r.half_width),
            r.reachable.to_string(),
            format!("{:.3}", r.human_score),
        ])?;
    }
    super::files::write(&dir.join(MATCHMAKING_CSV), w.into_inner()?)?;
    super::write_json(dir, MATCHMAKING_JSON, file)
}

/// Writes the printed matchmaking table as `matchmaking.txt`.
pub fn write_matchmaking_text(dir: &Path, text: &str) -> Result<()> {
    Ok(super::files::write(&dir.join(MATCHMAKING_TXT), text)?)
}

/// The folder's `matchmaking.json`, `None` if it has none.
pub fn read_matchmaking(dir: &Path) -> Result<Option<MatchmakingFile>> {
    super::read_json(dir, MATCHMAKING_JSON)
}

/// Writes `path` through `path.tmp` in the same folder, renamed over it: a reader sees the old
/// file or the new one, never a part of one.
pub(super) fn write_atomically(path: &Path, bytes: &[u8]) -> Result<()> {
    let mut tmp = path.as_os_str().to_owned();
    tmp.push(".tmp");
    let tmp = std::path::PathBuf::from(tmp);
    super::files::write(&tmp, bytes)?;
    std::fs::rename(&tmp, path).with_context(|| format!("cannot write {}", path.display()))
}

/// Writes [`bands_toml`] as the calibration folder's `bands.toml`; returns its path.
pub fn write_bands(dir: &Path, text: &str) -> Result<std::path::PathBuf> {
    let path = dir.join(BANDS_TOML);
    super::files::write(&path, text)?;
    Ok(path)
}

/// `[[bot]]` tables in the tournament file's format, one per target.
pub fn toml_snippet(cal: &Calibration, candidate: &BotSpec, pool: &str) -> String {
    heading(cal, pool) + &bot_tables(&levels(cal, candidate, None))
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

/// An `arena gate` bands file for the settings the calibration found: the `game` settings the
/// calibration played with and the `gate` settings (the first-move advantage); the reference
/// pool with its Elos, and per target a `[[bot]]` level with the curve's Elo at its setting and
/// the band `± tolerance`. Written by [`BandsFile::to_text`], so that it is what the gate reads.
pub fn bands_toml(
    cal: &Calibration,
    candidate: &BotSpec,
    pool: &[BandsReference],
    game: &GameFlags,
    gate: &GateTable,
    tolerance: f64,
) -> String {
    let names: Vec<String> = pool
        .iter()
        .map(|r| format!("{}={:.0}", r.name, r.elo))
        .collect();
    let heading = heading(cal, &names.join(", "))
        + "# An `arena gate` bands file: each level's Elo on the pool's scale ± its tolerance, the\n\
           # reference pool with its fixed Elos, and the game settings the calibration played with\n\
           # (the Elos hold for these settings only). docs/regression-testing.md\n";
    let file = BandsFile {
        game: game.clone(),
        gate: gate.clone(),
        reference: ReferenceTable {
            bundled: pool
                .iter()
                .filter(|r| r.spec.is_none())
                .map(|r| (r.name.clone(), r.elo.round()))
                .collect(),
            bot: pool
                .iter()
                .filter_map(|r| {
                    let spec = r.spec.as_ref()?;
                    Some(BandsBot {
                        bot: FileBot {
                            name: r.name.clone(),
                            ..FileBot::from_spec(spec)
                        },
                        elo: Some(r.elo.round()),
                        ..BandsBot::default()
                    })
                })
                .collect(),
        },
        bot: levels(cal, candidate, Some(tolerance)),
        ..BandsFile::default()
    };
    file.to_text(&heading)
}

/// One player per target: the candidate at the knob's value for it with its fixed options, each
/// noted with its Elo on the curve; with `band`, each gets `elo` (the curve's, rounded) and
/// `tolerance`.
fn levels(cal: &Calibration, candidate: &BotSpec, band: Option<f64>) -> Vec<BandsBot> {
    let mut out = Vec::new();
    let table = FileBot::from_spec(candidate);
    for r in &cal.targets {
        let mut options = table.options.clone();
        options.remove(&cal.knob.name);
        options.insert(
            cal.knob.name.clone(),
            toml::Value::String(cal.knob.format(r.x)),
        );
        let remark = match (r.reachable, r.converged) {
            (false, _) => " — OUT OF RANGE: the nearest the knob gets".to_string(),
            (true, false) => " — NOT converged".to_string(),
            _ => String::new(),
        };
        let mut note = format!(
            "# Elo {:.0} ± {:.0} on the curve{remark}\n",
            r.elo, r.half_width
        );
        if cal.knob.integer && r.neighbours.len() == 2 {
            let [lo, hi] = [&r.neighbours[0], &r.neighbours[1]];
            let k = &cal.knob.name;
            note += &format!(
                "# {k} is whole: {k}={} rates {:.0}, {k}={} rates {:.0}\n",
                cal.knob.format(lo.x),
                lo.elo,
                cal.knob.format(hi.x),
                hi.elo
            );
        }
        out.push(BandsBot {
            bot: FileBot {
                name: format!("elo-{:.0}", r.target),
                options,
                ..table.clone()
            },
            elo: band.map(|_| r.elo.round()),
            tolerance: band,
            note,
            ..BandsBot::default()
        });
    }
    out
}

/// The folder's `calibration.json` (the calibration so far, or its result once `finished`),
/// `None` if it has none yet.
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
    dir.join(CALIBRATION_JSON).exists()
        || dir.join(SETUP_JSON).exists()
        || !calibration_runs(dir).is_empty()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::sim::SimulatedPlayer;
    use crate::calibrate::{calibrate, Knob, Settings};

    #[test]
    fn the_points_are_written_whole_and_older_files_read_as_finished() {
        let dir = std::env::temp_dir().join(format!("arena-calibration-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let pool = [1000.0, 1400.0];
        let knob = Knob::parse("option.Noise=0..2.0").unwrap();
        let mut player = SimulatedPlayer::new(|x: f64| 1700.0 - 400.0 * x, pool.to_vec(), 1);
        let settings = Settings {
            targets: vec![1200.0],
            max_games: 40,
            ..Settings::default()
        };
        let mut first = None;
        let cal = calibrate(&knob, &pool, &settings, &mut player, |c| {
            first.get_or_insert_with(|| c.clone());
        })
        .unwrap();
        let first = first.expect("a step before the last");
        write_points(&dir, &first).unwrap();
        let read = read_calibration(&dir).unwrap().unwrap();
        assert!(!read.finished && read.stop.is_none());
        assert_eq!(read.points.len(), first.points.len());
        // (serde_json may read a float back one unit in the last place off: compare the rest.)
        let same = |read: Calibration| {
            assert!(read.finished && read.stop == cal.stop);
            assert_eq!((read.games, &read.steps), (cal.games, &cal.steps));
            assert_eq!(read.points.len(), cal.points.len());
        };
        write_points(&dir, &cal).unwrap();
        same(read_calibration(&dir).unwrap().unwrap());
        let csv = std::fs::read_to_string(dir.join(CALIBRATION_CSV)).unwrap();
        assert!(csv.starts_with("value,games,score,elo,se,ci_low,ci_high\n"));
        assert_eq!(csv.lines().count(), 1 + cal.points.len());
        // No temporary file is left behind.
        let names: Vec<String> = std::fs::read_dir(&dir)
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        assert!(names.iter().all(|n| !n.ends_with(".tmp")), "{names:?}");
        // A calibration.json written before `finished` existed (only ever at the end).
        let mut old = serde_json::to_value(&cal).unwrap();
        old.as_object_mut().unwrap().remove("finished");
        std::fs::write(dir.join(CALIBRATION_JSON), old.to_string()).unwrap();
        same(read_calibration(&dir).unwrap().unwrap());
        let _ = std::fs::remove_dir_all(&dir);
    }
}
