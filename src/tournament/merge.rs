//! `arena merge OUT DIR...`: combines shard folders of one run into a normal run folder that
//! `arena rate` and `arena plot` read.
//!
//! Shards must come from the same configuration and seed (their `run.json` configurations are
//! compared field by field); games are deduplicated by game id; the games of each shard are
//! tested against the joint fit of all of them ([`crate::rating::consistency`]) to flag a broken
//! machine.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use anyhow::{bail, Context, Result};

use crate::rating::consistency::{shard_consistency, Consistency};
use crate::rating::fit::{fit, FitConfig};
use crate::rating::GameTable;
use crate::run_folder::games::{self, rated_games, repair, GameRecord, ResultsWriter};
use crate::run_folder::lock::RunLock;
use crate::run_folder::{check_new_folder, pgn, RunFile, RunKind};

/// What a merge did.
#[derive(Debug)]
pub struct Merged {
    pub games: usize,
    pub duplicates: usize,
    /// Expected game count of the whole schedule, and which shards of `N` were seen.
    pub expected_games: u64,
    pub shards_seen: Vec<(u64, u64)>,
    pub consistency: Option<Consistency>,
}

/// The fields in which two run configurations differ (top-level keys of `run.json`'s config).
fn config_differences(a: &RunFile, b: &RunFile) -> Result<Vec<String>> {
    let (va, vb) = (
        serde_json::to_value(&a.config)?,
        serde_json::to_value(&b.config)?,
    );
    let (Some(ma), Some(mb)) = (va.as_object(), vb.as_object()) else {
        bail!("run.json config is not an object")
    };
    let mut keys: Vec<&String> = ma.keys().chain(mb.keys()).collect();
    keys.sort();
    keys.dedup();
    Ok(keys
        .into_iter()
        .filter(|k| ma.get(*k) != mb.get(*k))
        .cloned()
        .collect())
}

/// Two records of the same game: rows equal apart from the measured times, same moves.
fn same_game(a: &GameRecord, b: &GameRecord) -> bool {
    games::same_game(&a.row, &b.row) && a.moves == b.moves
}

/// Refuses a shard folder named twice (`s0 s0`, `s0 ./s0/`, a link to it), compared after
/// resolving the paths: its second lock would otherwise be refused as held by "another" merge,
/// this one.
fn refuse_repeated(dirs: &[PathBuf]) -> Result<()> {
    let mut seen: BTreeMap<PathBuf, &Path> = BTreeMap::new();
    for dir in dirs {
        let resolved = std::fs::canonicalize(dir).unwrap_or_else(|_| dir.clone());
        if let Some(first) = seen.insert(resolved, dir) {
            bail!(
                "the shard {} is given twice (as {} and {}): name each shard once",
                first.display(),
                first.display(),
                dir.display()
            );
        }
    }
    Ok(())
}

/// Merges `dirs` into `out` (which must not hold a run yet). What was repaired or skipped on the
/// way (a torn last line, a second copy of a row) is told to `note` as it happens.
pub fn merge(out: &Path, dirs: &[PathBuf], note: &mut dyn FnMut(&str)) -> Result<Merged> {
    if dirs.is_empty() {
        bail!("arena merge needs at least one shard folder");
    }
    if RunFile::exists(out) || games::has_games(out) {
        bail!(
            "{} already holds a run: merge into a new folder",
            out.display()
        );
    }
    // Someone's folder is not written into, as `arena run --out` does not.
    check_new_folder(out)?;
    refuse_repeated(dirs)?;
    let mut runs = Vec::new();
    // Each shard locked for the whole merge: a shard whose run still writes it is refused (its
    // games so far are not the shard's), and no run starts in one while it is read and repaired.
    let mut _shard_locks = Vec::with_capacity(dirs.len());
    for dir in dirs {
        let run = RunFile::read(dir)?;
        _shard_locks.push(RunLock::acquire(dir).with_context(|| {
            format!(
                "{} is a shard still being written (its run has not ended): merge it once it has",
                dir.display()
            )
        })?);
        // A shard killed mid-write may hold a torn line: repair it before reading.
        let (_, notes) =
            repair(dir).with_context(|| format!("cannot read the games of {}", dir.display()))?;
        for text in notes {
            note(&text);
        }
        runs.push(run);
    }
    let first = &runs[0];
    for (run, dir) in runs.iter().zip(dirs).skip(1) {
        let diff = config_differences(first, run)?;
        if !diff.is_empty() {
            bail!(
                "{} and {} are not shards of one run: their configurations differ in {} (same command and seed needed)",
                dirs[0].display(),
                dir.display(),
                diff.join(", ")
            );
        }
        if run.shard.map(|s| s.1) != first.shard.map(|s| s.1) {
            bail!(
                "{} and {} were split into different numbers of shards",
                dirs[0].display(),
                dir.display()
            );
        }
    }

    // Game id → (the record kept, the folder it came from).
    let mut by_id: BTreeMap<u64, (GameRecord, usize)> = BTreeMap::new();
    let mut shard_records: Vec<Vec<GameRecord>> = Vec::new();
    let mut duplicates = 0;
    for (k, dir) in dirs.iter().enumerate() {
        let records = games::read_records(dir)?;
        let (rows, warnings) = games::read_games_checked(dir)?;
        for w in warnings {
            note(&format!("warning: {w}"));
        }
        if records.len() != rows.len() {
            bail!(
                "{}: games.csv and games.jsonl disagree ({} vs {} games)",
                dir.display(),
                rows.len(),
                records.len()
            );
        }
        for rec in &records {
            match by_id.get(&rec.row.game_id) {
                Some((existing, _)) if same_game(existing, rec) => duplicates += 1,
                Some((_, other)) => bail!(
                    "game {} was played differently in {} and {}: these folders are not shards of one run",
                    rec.row.game_id,
                    dirs[*other].display(),
                    dir.display()
                ),
                None => {
                    by_id.insert(rec.row.game_id, (rec.clone(), k));
                }
            }
        }
        shard_records.push(records);
    }

    std::fs::create_dir_all(out).with_context(|| format!("cannot create {}", out.display()))?;
    let _lock = RunLock::acquire(out)?;
    let mut run_file = RunFile::read(&dirs[0])?;
    run_file.shard = None;
    run_file.kind = RunKind::Merge;
    run_file.command = std::env::args().collect();
    run_file.write(out)?;
    let mut writer = ResultsWriter::open(out)?;
    for rec in by_id.values().map(|(r, _)| r) {
        writer.append(rec)?;
    }
    drop(writer);
    pgn::write_pgn(out)?;

    let names: Vec<String> = run_file
        .config
        .players
        .iter()
        .map(|p| p.name.clone())
        .collect();
    let all_rows: Vec<_> = by_id
        .values()
        .map(|(r, _)| r)
        .map(|r| r.row.clone())
        .collect();
    let consistency = if dirs.len() >= 2 && !all_rows.is_empty() {
        let games = rated_games(&all_rows, &names, false)?;
        let ratings = fit(&GameTable::new(names.len(), &games)?, &FitConfig::default())?;
        let per_shard = shard_records
            .iter()
            .map(|recs| {
                rated_games(
                    &recs.iter().map(|r| r.row.clone()).collect::<Vec<_>>(),
                    &names,
                    false,
                )
            })
            .collect::<Result<Vec<_>>>()?;
        Some(shard_consistency(&per_shard, &ratings))
    } else {
        None
    };
    let schedule = crate::vocab::schedule::Schedule::new(
        names.len(),
        &run_file.config.format,
        run_file.config.pairs,
    );
    Ok(Merged {
        games: by_id.len(),
        duplicates,
        expected_games: schedule.game_count(),
        shards_seen: runs.iter().filter_map(|r| r.shard).collect(),
        consistency,
    })
}
