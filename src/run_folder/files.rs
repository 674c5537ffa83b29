//! How the files of a run folder are opened: never through a symbolic link, never anything but a
//! regular file, never truncated before that was checked, and read only as far as a bound.
//!
//! A run folder is written by the arena and read by `arena rate`, `serve`, `merge` and
//! `--resume`, but anyone can put anything in it. A `games.csv` replaced by a link to another
//! file would have that file truncated by a resume's repair; a bot log replaced by a link would
//! have the bot's stderr written into the link's target; a FIFO in place of `games.csv` would make
//! every reader wait for a writer that never comes. So every open here refuses a link at the last
//! component (`O_NOFOLLOW`) and anything that is not a regular file (a FIFO, a device, a socket, a
//! folder), with an error naming the path and what is there; a FIFO is opened without waiting.
//! A file to be replaced is opened without truncating and emptied only once it is known to be a
//! regular file.

use std::fs::{File, OpenOptions};
use std::io::Read;
use std::path::{Path, PathBuf};

use crate::sys::NotAFile;

/// Why a run-folder file could not be opened, read or written.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum FileError {
    /// A symbolic link where the file should be: it is neither followed nor touched.
    #[error(
        "{}: a symbolic link, which the arena does not follow in a run folder (it would read or \
         write the file it points to); replace it with a regular file or remove it",
        path.display()
    )]
    Link { path: PathBuf },
    /// Something that is not a regular file: a FIFO, a device, a socket, a folder.
    #[error(
        "{}: {what}, not a regular file; a run folder holds only regular files here: remove it",
        path.display()
    )]
    NotRegular { path: PathBuf, what: &'static str },
    /// A file longer than a reader reads (`arena serve` bounds what it reads).
    #[error("{}: {len} bytes, more than the {max} read here: not read", path.display())]
    TooLong { path: PathBuf, len: u64, max: u64 },
    /// The system call failed (the path is missing, the disk is full, ...).
    #[error("cannot {op} {}", path.display())]
    Io {
        op: &'static str,
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
}

impl FileError {
    /// Whether the file is absent (and nothing else was wrong).
    pub fn is_not_found(&self) -> bool {
        matches!(self, FileError::Io { source, .. } if source.kind() == std::io::ErrorKind::NotFound)
    }
}

impl FileError {
    /// The error of an open of `path` that failed with `source`.
    fn of_open(path: &Path, op: &'static str, source: std::io::Error) -> FileError {
        let path = path.to_path_buf();
        match NotAFile::of(&source) {
            Some(NotAFile::Link) => FileError::Link { path },
            Some(NotAFile::Other(what)) => FileError::NotRegular { path, what },
            None => FileError::Io { op, path, source },
        }
    }
}

/// Opens `path` as `options` say (which must not truncate), refusing a link and anything but a
/// regular file.
pub fn open(path: &Path, options: &OpenOptions, op: &'static str) -> Result<File, FileError> {
    crate::sys::open_no_follow(path, options).map_err(|e| FileError::of_open(path, op, e))
}

/// `path` opened for reading.
pub fn open_read(path: &Path) -> Result<File, FileError> {
    open(path, OpenOptions::new().read(true), "read")
}

/// `path` opened for reading, `None` when there is no such file.
pub fn open_read_if_exists(path: &Path) -> Result<Option<File>, FileError> {
    match open_read(path) {
        Ok(file) => Ok(Some(file)),
        Err(e) if e.is_not_found() => Ok(None),
        Err(e) => Err(e),
    }
}

/// `path` opened for appending, created if missing.
pub fn open_append(path: &Path) -> Result<File, FileError> {
    open(
        path,
        OpenOptions::new().append(true).create(true),
        "write to",
    )
}

/// `path` opened for writing from its start (created if missing), emptied once it is known to be
/// a regular file: the files written whole (`games.pgn`, the ratings, the report).
pub fn create(path: &Path) -> Result<File, FileError> {
    let file = open(
        path,
        OpenOptions::new().write(true).create(true).truncate(false),
        "write",
    )?;
    file.set_len(0).map_err(|source| FileError::Io {
        op: "write",
        path: path.to_path_buf(),
        source,
    })?;
    Ok(file)
}

/// Writes `bytes` as the whole of `path` (see [`create`]).
pub fn write(path: &Path, bytes: impl AsRef<[u8]>) -> Result<(), FileError> {
    use std::io::Write;
    let mut file = create(path)?;
    file.write_all(bytes.as_ref())
        .and_then(|()| file.flush())
        .map_err(|source| FileError::Io {
            op: "write",
            path: path.to_path_buf(),
            source,
        })
}

/// The bytes of `path`.
pub fn read(path: &Path) -> Result<Vec<u8>, FileError> {
    read_at_most(path, u64::MAX)
}

/// The bytes of `path`, refused with [`FileError::TooLong`] past `max` bytes (without reading
/// them).
pub fn read_at_most(path: &Path, max: u64) -> Result<Vec<u8>, FileError> {
    let file = open_read(path)?;
    let io = |source| FileError::Io {
        op: "read",
        path: path.to_path_buf(),
        source,
    };
    let len = file.metadata().map_err(io)?.len();
    if len > max {
        return Err(FileError::TooLong {
            path: path.to_path_buf(),
            len,
            max,
        });
    }
    let mut bytes = Vec::with_capacity(len as usize);
    // No more than it had when looked at (a file that grows meanwhile is read as it was).
    file.take(len).read_to_end(&mut bytes).map_err(io)?;
    Ok(bytes)
}

/// The text of `path`.
pub fn read_to_string(path: &Path) -> Result<String, FileError> {
    read_text_at_most(path, u64::MAX)
}

/// The text of `path`, at most `max` bytes (see [`read_at_most`]).
pub fn read_text_at_most(path: &Path, max: u64) -> Result<String, FileError> {
    let bytes = read_at_most(path, max)?;
    String::from_utf8(bytes).map_err(|e| FileError::Io {
        op: "read",
        path: path.to_path_buf(),
        source: std::io::Error::new(std::io::ErrorKind::InvalidData, e),
    })
}

/// Whether `path` is a real folder (not a link to one): `Ok(false)` when absent, an error naming
/// what is there otherwise (`NotRegular` with `what` "a file" for a regular file).
pub fn is_folder(path: &Path) -> Result<bool, FileError> {
    let meta = match std::fs::symlink_metadata(path) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(false),
        Err(source) => {
            return Err(FileError::Io {
                op: "look at",
                path: path.to_path_buf(),
                source,
            })
        }
    };
    let path = path.to_path_buf();
    match crate::sys::not_a_file(&path) {
        _ if meta.is_dir() => Ok(true),
        Some(NotAFile::Link) => Err(FileError::Link { path }),
        Some(NotAFile::Other(what)) => Err(FileError::NotRegular { path, what }),
        None => Err(FileError::NotRegular {
            path,
            what: "a file",
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn temp_dir(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("arena-files-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    #[test]
    fn a_link_is_refused_and_its_target_left_whole() {
        let dir = temp_dir("link");
        let target = dir.join("precious.txt");
        std::fs::write(&target, "keep me").unwrap();
        let link = dir.join("games.csv");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        for err in [
            create(&link).unwrap_err(),
            open_append(&link).unwrap_err(),
            open_read(&link).unwrap_err(),
            write(&link, "x").unwrap_err(),
        ] {
            assert!(matches!(err, FileError::Link { .. }), "{err}");
            let text = err.to_string();
            assert!(
                text.contains("games.csv") && text.contains("symbolic link"),
                "{text}"
            );
        }
        assert_eq!(std::fs::read_to_string(&target).unwrap(), "keep me");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_fifo_is_refused_at_once_for_reading_and_writing() {
        let dir = temp_dir("fifo");
        let fifo = dir.join("games.csv");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        for err in [
            open_read(&fifo).unwrap_err(),
            open_append(&fifo).unwrap_err(),
            create(&fifo).unwrap_err(),
        ] {
            assert!(
                matches!(err, FileError::NotRegular { what, .. } if what.contains("FIFO")),
                "{err}"
            );
        }
        let folder = dir.join("logs");
        std::fs::create_dir(&folder).unwrap();
        assert!(matches!(
            open_read(&folder).unwrap_err(),
            FileError::NotRegular {
                what: "a folder",
                ..
            }
        ));
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn reads_stop_at_their_bound() {
        let dir = temp_dir("bound");
        let path = dir.join("run.json");
        std::fs::write(&path, "0123456789").unwrap();
        assert_eq!(read_at_most(&path, 10).unwrap().len(), 10);
        let err = read_at_most(&path, 9).unwrap_err();
        assert!(
            matches!(
                err,
                FileError::TooLong {
                    len: 10,
                    max: 9,
                    ..
                }
            ),
            "{err}"
        );
        assert!(open_read_if_exists(&dir.join("absent")).unwrap().is_none());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
