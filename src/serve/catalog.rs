//! Which folders `arena serve` shows: every run folder (one holding `run.json`, or a results
//! folder `arena analyse` wrote from PGN: games and a `state.json`), every
//! calibration folder and every tune folder under the folders it was given, found by walking
//! them without following symbolic links. A folder is known by an id (its path relative to the
//! folder it was found under), and a request names a run only by such an id: nothing a client
//! sends is ever joined to a path. [`Catalog::contained`] is the second fence: a file is read
//! only if its real path (symbolic links resolved) is inside the given folder.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::run_folder::calibration::is_calibration_dir;
use crate::run_folder::games::GAMES_JSONL;
use crate::run_folder::state::STATE_JSON;
use crate::run_folder::tune::is_tune_dir;
use crate::run_folder::RunFile;

/// How deep below a given folder run folders are looked for (`results/big/shard-0`,
/// `results/calibrate-x/step-01-...` are two levels down).
const MAX_DEPTH: usize = 4;

/// What a folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FolderKind {
    /// A run folder (`run.json`): a tournament, an SPRT, a calibration batch or a merge.
    Run,
    /// A calibration's top folder (`calibration.json`, or `step-*` / `reference` run folders).
    Calibration,
    /// A tune folder (`tune.json`, with its `iter-NNNN/` and `verify/` run folders).
    Tune,
}

/// One folder the dashboard shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Entry {
    pub id: String,
    /// Its real path (inside `root`).
    pub dir: PathBuf,
    /// The real path of the given folder it was found under.
    pub root: PathBuf,
    pub kind: FolderKind,
}

/// The folders found under the given ones, by id.
#[derive(Clone, Debug, Default)]
pub struct Catalog {
    pub entries: BTreeMap<String, Entry>,
}

impl Catalog {
    /// Walks `roots` (missing ones are skipped: a run may create them later).
    pub fn scan(roots: &[PathBuf]) -> Catalog {
        let mut entries = BTreeMap::new();
        for (i, root) in roots.iter().enumerate() {
            let Ok(real) = root.canonicalize() else {
                continue;
            };
            let prefix = if roots.len() > 1 {
                format!("{i}:")
            } else {
                String::new()
            };
            walk(&real, &real, 0, &prefix, &mut entries);
        }
        Catalog { entries }
    }

    pub fn get(&self, id: &str) -> Option<&Entry> {
        self.entries.get(id)
    }

    /// `path` if its real path lies inside `root` (a symbolic link out of the folder, or a
    /// missing file, gives `None`).
    pub fn contained(root: &Path, path: &Path) -> Option<PathBuf> {
        let real = path.canonicalize().ok()?;
        real.starts_with(root).then_some(real)
    }
}

/// A results folder `arena analyse FILE.pgn` wrote: games and a `state.json`, but no
/// `run.json` (no bots ran). Shown as a run, finished.
fn written_from_pgn(dir: &Path) -> bool {
    [GAMES_JSONL, STATE_JSON]
        .iter()
        .all(|f| std::fs::symlink_metadata(dir.join(f)).is_ok())
}

fn walk(root: &Path, dir: &Path, depth: usize, prefix: &str, out: &mut BTreeMap<String, Entry>) {
    let rel = dir.strip_prefix(root).unwrap_or(dir);
    let id = format!(
        "{prefix}{}",
        if rel.as_os_str().is_empty() {
            ".".to_string()
        } else {
            rel.to_string_lossy().into_owned()
        }
    );
    let kind = if RunFile::exists(dir) || written_from_pgn(dir) {
        Some(FolderKind::Run)
    } else if is_tune_dir(dir) {
        Some(FolderKind::Tune)
    } else if is_calibration_dir(dir) {
        Some(FolderKind::Calibration)
    } else {
        None
    };
    if let Some(kind) = kind {
        out.insert(
            id.clone(),
            Entry {
                id,
                dir: dir.to_path_buf(),
                root: root.to_path_buf(),
                kind,
            },
        );
    }
    if depth >= MAX_DEPTH || kind == Some(FolderKind::Run) {
        return;
    }
    let Ok(read) = std::fs::read_dir(dir) else {
        return;
    };
    let mut children: Vec<PathBuf> = read
        .filter_map(Result::ok)
        // `file_type` does not follow symbolic links: a link to a folder is not walked.
        .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
        .filter(|e| !e.file_name().to_string_lossy().starts_with('.'))
        .map(|e| e.path())
        .collect();
    children.sort();
    for child in children {
        walk(root, &child, depth + 1, prefix, out);
    }
}
