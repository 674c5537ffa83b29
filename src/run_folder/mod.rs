//! The results folder of one run: every file in it has exactly one owner here, which defines its
//! type, writes it and reads it back. The rest of the arena never builds a path to one of these
//! files or parses one itself.
//!
//! | file | owner | written by |
//! |---|---|---|
//! | `run.json` | [`run_file::RunFile`] | `arena run` / `sprt` / `calibrate` at the start, `arena merge` |
//! | `games.csv`, `games.jsonl` | [`games::GameRow`], [`games::GameRecord`], [`games::ResultsWriter`] (read whole, or as they grow with [`games::GamesTail`]) | appended as each game ends |
//! | (the margins in `games.csv`) | [`margins`]: what `score_first`/`score_second` mean for each way a game ends | read for `--model margin` |
//! | `games.pgn` | [`pgn::write_pgn`] | at the end of a run, from `games.jsonl` (or `games.csv`) |
//! | `logs/NAME.stderr.log` | [`logs::stderr_log_path`] | each bot's stderr |
//! | `sprt.json`, `sprt.csv` | [`sprt::SprtFile`], [`sprt::SprtTrace`] | `arena sprt` |
//! | `gate.json` | [`gate::GateFile`] | `arena gate` |
//! | `ratings.csv`, `pairwise.csv`, `ladder.csv`, `summary.json` | [`ratings`] | `arena rate` (and every command that rates) |
//! | `state.json` | [`state::RecordedState`] | where the run stands: when play starts and when it ends |
//! | `.arena.lock` | [`lock::RunLock`] | held by whoever writes the folder |
//! | `analysis.csv` | [`analysis::MistakeRow`] | `arena analyse` |
//! | `calibration.csv`, `calibration.json`, `calibrated.toml`, `bands.toml` | [`calibration`] (also which folders are a calibration's); `bands.toml` is read by [`bands::BandsFile`] | `arena calibrate` (its top folder) |
//!
//! The figures, `report.html` and `summary.md` are `report/`'s: they are documents made from
//! these files, never read back.
//!
//! Every file here is opened through [`files`]: no symbolic link is followed, nothing but a
//! regular file is read or written, and nothing is truncated before that was checked.

pub mod analysis;
pub mod anchor_file;
pub mod bands;
pub mod calibration;
pub mod files;
pub mod games;
pub mod gate;
pub mod lock;
pub mod logs;
pub mod margins;
pub mod mistakes;
pub mod pgn;
pub mod pgn_games;
pub mod pgn_in;
pub mod ratings;
pub mod run_file;
pub mod sprt;
pub mod state;
pub mod tune;

pub use games::{GameRecord, GameRow, ResultsWriter, Termination};
pub use run_file::{RunFile, RunKind};

use std::path::Path;

use anyhow::{bail, Context, Result};

/// Whether `dir` already holds a run, so that a new one must not start in it: a `run.json`, or
/// a `games.csv` without one.
pub fn holds_run(dir: &Path) -> bool {
    RunFile::exists(dir) || games::has_games(dir)
}

/// Why `dir` is not a run folder, for a command that reads one (`rate`, `plot`, `analyse`):
/// missing, a file, or a folder without `games.csv`, then with the run folders found up to
/// three levels below it (the `results/` folder above the runs, say). `None` if it holds a
/// `games.csv`.
pub fn not_a_run_folder(dir: &Path) -> Option<String> {
    let shown = dir.display();
    if !dir.exists() {
        return Some(format!("{shown} does not exist"));
    }
    if !dir.is_dir() {
        return Some(format!(
            "{shown} is a file: arena rate takes a run folder (the folder holding games.csv)"
        ));
    }
    if games::has_games(dir) {
        return None;
    }
    let mut found = Vec::new();
    runs_below(dir, 3, &mut found);
    found.sort();
    Some(match found.as_slice() {
        [] => format!("{shown} is not a run folder (no games.csv) and holds none"),
        runs => format!(
            "{shown} is not a run folder (no games.csv); the run folders in it: {}",
            runs.iter()
                .map(|r| r.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    })
}

/// The folders under `dir`, `depth` levels deep at most, that hold a `games.csv`.
fn runs_below(dir: &Path, depth: u32, found: &mut Vec<std::path::PathBuf>) {
    let Ok(entries) = std::fs::read_dir(dir) else {
        return;
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if path.is_dir() {
            if games::has_games(&path) {
                found.push(path);
            } else if depth > 1 {
                runs_below(&path, depth - 1, found);
            }
        }
    }
}

/// The most a JSON file of a run folder is read (the largest, a calibration's or a thousand
/// players' `run.json`, is a few MiB): a reader never takes in a file someone made huge.
pub const MAX_JSON: u64 = 64 << 20;

/// Reads the JSON file `name` of the folder `dir`: `None` if the folder has none.
fn read_json<T: serde::de::DeserializeOwned>(dir: &Path, name: &str) -> Result<Option<T>> {
    let path = dir.join(name);
    let text = match files::read_text_at_most(&path, MAX_JSON) {
        Ok(text) => text,
        Err(e) if e.is_not_found() => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    serde_json::from_str(&text)
        .map(Some)
        .with_context(|| format!("{} is not readable", path.display()))
}

/// Writes `value` as the pretty-printed JSON file `name` of the folder `dir`.
fn write_json<T: serde::Serialize>(dir: &Path, name: &str, value: &T) -> Result<()> {
    let path = dir.join(name);
    files::write(&path, serde_json::to_string_pretty(value)? + "\n")?;
    Ok(())
}

/// Checks that a new run (or a merge) may be written into `dir`: absent, empty, or holding only
/// what a run writes before its `run.json` (the lock, the logs, an SPRT's trace). A folder that
/// holds a run, or anybody's other files, is refused and nothing in it is touched.
pub fn check_new_folder(dir: &Path) -> Result<()> {
    if RunFile::exists(dir) || !games::read_games(dir).unwrap_or_default().is_empty() {
        bail!("{}", holds_a_run(dir));
    }
    let Ok(entries) = std::fs::read_dir(dir) else {
        return Ok(());
    };
    let allowed = [
        lock::LOCK_FILE,
        logs::LOGS_DIR,
        sprt::SPRT_CSV,
        sprt::SPRT_JSON,
    ];
    let foreign: Vec<String> = entries
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|name| !allowed.contains(&name.as_str()))
        .collect();
    if !foreign.is_empty() {
        bail!(
            "{} is not empty and is not a run folder (it holds {}): choose a new or empty folder",
            dir.display(),
            foreign
                .iter()
                .take(5)
                .cloned()
                .collect::<Vec<_>>()
                .join(", ")
        );
    }
    Ok(())
}

/// Why a new run cannot start in `dir`, which holds one, and what can be done instead: an
/// interrupted `arena run` is finished by `--resume`; a finished one (or a run of another
/// command, which `arena run --resume` cannot finish) is not offered it, since it cannot help.
fn holds_a_run(dir: &Path) -> String {
    use state::{RecordedState, State};
    let shown = dir.display();
    let word = crate::vocab::shell_word(dir);
    let kind = RunFile::read(dir).map_or(RunKind::Tournament, |r| r.kind);
    let state = RecordedState::read(dir)
        .ok()
        .flatten()
        .map(|r| r.effective(crate::sys::process_alive));
    let games = games::read_games(dir).map_or(0, |g| g.len());
    let plural = if games == 1 { "" } else { "s" };
    match (kind, state) {
        (_, Some((State::Running, _))) => format!(
            "{shown} holds a run that is still being played by another arena process: choose another --out"
        ),
        (RunKind::Tournament | RunKind::Merge, Some((State::Finished, _))) => format!(
            "{shown} already holds a finished run ({games} game{plural}): choose another --out \
             (`arena rate {word}` rates it again, `arena plot {word}` redraws its report)"
        ),
        (RunKind::Tournament, _) => format!(
            "{shown} already holds a run: use `arena run --resume {word}` to finish it, or choose another --out"
        ),
        (kind, _) => format!(
            "{shown} already holds a run of another command ({}, {games} game{plural}), which \
             `arena run --resume` cannot finish: choose another --out",
            kind.as_str()
        ),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_holds_a_run_with_its_run_json_or_its_games() {
        let root = std::env::temp_dir().join(format!("arena-holds-run-{}", std::process::id()));
        let (empty, with_games, with_run) = (root.join("a"), root.join("b"), root.join("c"));
        for dir in [&empty, &with_games, &with_run] {
            std::fs::create_dir_all(dir).unwrap();
        }
        std::fs::write(with_games.join("games.csv"), "").unwrap();
        std::fs::write(with_run.join("run.json"), "{}").unwrap();
        assert!(!holds_run(&empty) && !holds_run(&root.join("absent")));
        assert!(holds_run(&with_games) && games::has_games(&with_games));
        assert!(holds_run(&with_run) && !games::has_games(&with_run));
        let _ = std::fs::remove_dir_all(&root);
    }
}
