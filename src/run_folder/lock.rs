//! `.arena.lock`: one writer per run folder. `arena run` (new or `--resume`), `arena sprt` and
//! `arena merge`'s output hold an exclusive advisory lock (`flock(2)`) on this file for as long
//! as they write the folder; a second writer fails at once, naming the holder's pid (written
//! into the file). The lock dies with its process, so a killed run never leaves the folder
//! locked; the file itself stays (it is empty of meaning without the lock).

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::Path;

use anyhow::{bail, Context, Result};

pub const LOCK_FILE: &str = ".arena.lock";

/// The lock on a run folder, held until dropped.
#[derive(Debug)]
pub struct RunLock {
    _file: File,
}

impl RunLock {
    /// Locks `dir` (which must exist) for writing, or says who holds it.
    pub fn acquire(dir: &Path) -> Result<RunLock> {
        let path = dir.join(LOCK_FILE);
        let mut file = super::files::open(
            &path,
            OpenOptions::new()
                .read(true)
                .write(true)
                .create(true)
                .truncate(false),
            "open",
        )?;
        if !crate::sys::try_lock_exclusive(&file) {
            let mut holder = String::new();
            let _ = file.read_to_string(&mut holder);
            let holder = holder.trim();
            bail!(
                "{} is being written by another arena process{}: one run, resume, merge or SPRT at a time per folder",
                dir.display(),
                if holder.is_empty() {
                    String::new()
                } else {
                    format!(" (pid {holder})")
                }
            );
        }
        file.set_len(0)
            .and_then(|()| file.seek(SeekFrom::Start(0)))
            .and_then(|_| writeln!(file, "{}", std::process::id()))
            .and_then(|()| file.flush())
            .with_context(|| format!("cannot write {}", path.display()))?;
        Ok(RunLock { _file: file })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_second_writer_is_refused_with_the_holders_pid() {
        let dir = std::env::temp_dir().join(format!("arena-lock-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let first = RunLock::acquire(&dir).unwrap();
        let err = RunLock::acquire(&dir).unwrap_err().to_string();
        assert!(
            err.contains(&format!("pid {}", std::process::id())),
            "{err}"
        );
        drop(first);
        RunLock::acquire(&dir).unwrap();
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
