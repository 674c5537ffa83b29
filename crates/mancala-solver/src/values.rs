//! The value cache: exact values of positions proven before, kept in a file beside the
//! databases and shared by every program that solves (`arena analyse`, `arena solve`,
//! `arena openings`, the `solver` bot).
//!
//! Why: the expensive positions are the ones with many seeds, near the start, and those repeat:
//! the same openings in every game of a run, the same run analysed again, the bot asked the same
//! opening position game after game. A position proven once is never searched again.
//!
//! File `<rules tag>-values.bin` in the database folder ([`crate::db::default_dir`]): a header
//! line naming the format and the rules, then records of 22 bytes: the position's key (16 pit
//! bytes), its value (`i8`), a proven optimal pit (0-based, 255 when none was kept) and a 32-bit
//! check of the rest. Only appended to, one `write` of whole records per flush (`O_APPEND`), so
//! processes sharing it do not interleave inside a record. A damaged record (a flipped byte, a
//! torn tail after a crash) fails its check and is skipped and counted, never trusted; a torn
//! tail is cut off before the next append so that later records stay aligned. A file with
//! another header (another format) is refused, and left alone; so is anything but a regular
//! file (a FIFO, a device, a link to `/dev/zero`). A record whose value cannot be true of its
//! position ([`crate::board::plausible`]) is refused and counted. The file is read in pieces,
//! into 18 bytes a position; a new file is written under a temporary name and linked into
//! place, an append that fails is cut back (see [`ValueCache::flush`]).
//! Positions within the database are not stored (the database answers them).

use std::collections::HashMap;
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::board::{plausible, BoardSpec, SBoard};
use super::book::Book;

const RECORD: usize = 22;
const NO_MOVE: u8 = u8::MAX;
/// Records read at a time: the file is read in pieces of this many, never whole.
const PIECE: usize = 1 << 15;

/// Exact values by position (one ruleset), with the file they persist to.
pub struct ValueCache {
    spec: BoardSpec,
    /// Where the values persist.
    path: PathBuf,
    inner: Mutex<Inner>,
    /// Records read from the file.
    pub loaded: usize,
    /// Records of the file skipped as damaged (torn tail, bad check byte).
    pub damaged: usize,
    /// Records whose check passed but whose value cannot be true of their position (beyond
    /// the seeds in play, the wrong parity, a best pit that is empty): refused, never served.
    pub impossible: usize,
}

/// A record read from the file, as kept: 18 bytes (the file's 22 without the check), so that
/// the cache takes about the file's size in memory, not several times it.
#[derive(Clone, Copy)]
struct Stored {
    key: [u8; 16],
    value: i8,
    best: u8,
}

impl Stored {
    fn known(&self) -> Known {
        Known {
            value: i32::from(self.value),
            best: (self.best != NO_MOVE).then_some(usize::from(self.best)),
        }
    }
}

#[derive(Default)]
struct Inner {
    /// The file's records, sorted by key (binary search).
    stored: Vec<Stored>,
    /// Proven here since the file was read.
    values: HashMap<u128, Known>,
    /// Proven since the last flush, to append.
    fresh: Vec<(u128, Known)>,
}

/// What is known of a position: its exact value and perhaps a proven optimal sow.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Known {
    pub value: i32,
    /// An optimal pit (0-based), when one was proven with the value.
    pub best: Option<usize>,
}

/// FNV-1a over the record's first 18 bytes.
fn check(bytes: &[u8]) -> [u8; 4] {
    let h = bytes.iter().fold(0x811c_9dc5u32, |h, &b| {
        (h ^ u32::from(b)).wrapping_mul(0x0100_0193)
    });
    h.to_le_bytes()
}

fn header(spec: &BoardSpec) -> String {
    format!("mancala-arena solver values v1 {}\n", spec.tag())
}

fn record(key: u128, known: Known) -> [u8; RECORD] {
    let mut r = [0u8; RECORD];
    r[..16].copy_from_slice(&key.to_le_bytes());
    r[16] = known.value as i8 as u8;
    r[17] = known.best.map_or(NO_MOVE, |m| m as u8);
    let c = check(&r[..18]);
    r[18..].copy_from_slice(&c);
    r
}

/// `e` with the path in front, and `disk full` spelled out for the errors a full disk or a file
/// size limit give.
fn with_path(path: &Path, e: std::io::Error) -> std::io::Error {
    let full = matches!(e.raw_os_error(), Some(27 | 28 | 122));
    std::io::Error::new(
        e.kind(),
        format!(
            "{}: {e}{}",
            path.display(),
            if full {
                " (disk full or file size limit)"
            } else {
                ""
            }
        ),
    )
}

impl ValueCache {
    /// The file name for `spec`'s values.
    pub fn file_name(spec: &BoardSpec) -> String {
        format!("{}-values.bin", spec.tag())
    }

    /// The cache of `spec` in folder `dir`, read from its file if there is one, in pieces. An
    /// unreadable file, or one that is not a regular file (a FIFO, a device, a folder, a
    /// symlink to one), is an error naming it; damaged and impossible records are only
    /// counted. An empty file (left by a version that could be stopped before its header) is
    /// no file.
    pub fn open(spec: &BoardSpec, dir: &Path) -> std::io::Result<ValueCache> {
        use std::os::unix::fs::OpenOptionsExt;
        let path = dir.join(ValueCache::file_name(spec));
        let header = header(spec);
        let mut cache = ValueCache {
            spec: *spec,
            path: path.clone(),
            inner: Mutex::new(Inner::default()),
            loaded: 0,
            damaged: 0,
            impossible: 0,
        };
        let not_regular = || {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!(
                    "{}: not a regular file (a FIFO, device, folder or a link to one): refused",
                    path.display()
                ),
            )
        };
        match std::fs::metadata(&path) {
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(cache),
            Err(e) => return Err(with_path(&path, e)),
            Ok(m) if !m.is_file() => return Err(not_regular()),
            Ok(m) if m.len() == 0 => return Ok(cache),
            Ok(_) => {}
        }
        // Non-blocking: a FIFO put there between the check and the open must not hang us.
        let mut file = std::fs::OpenOptions::new()
            .read(true)
            .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
            .open(&path)
            .map_err(|e| with_path(&path, e))?;
        let meta = file.metadata().map_err(|e| with_path(&path, e))?;
        if !meta.is_file() {
            return Err(not_regular());
        }
        let mut head = vec![0u8; header.len()];
        let got = read_full(&mut file, &mut head).map_err(|e| with_path(&path, e))?;
        if got < head.len() || head != header.as_bytes() {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: not a value cache of this version and rules (its first line is not {:?})",
                    path.display(),
                    header.trim_end()
                ),
            ));
        }
        let body = meta.len() as usize - header.len();
        let mut stored = Vec::with_capacity(body / RECORD);
        let mut piece = vec![0u8; PIECE * RECORD];
        loop {
            let got = read_full(&mut file, &mut piece).map_err(|e| with_path(&path, e))?;
            let mut records = piece[..got].chunks_exact(RECORD);
            for r in &mut records {
                if r[18..] != check(&r[..18]) {
                    cache.damaged += 1;
                    continue;
                }
                let key: [u8; 16] = r[..16].try_into().expect("16 bytes");
                let b = SBoard { c: key };
                let (value, best) = (r[16] as i8, r[17]);
                let best_ok = best == NO_MOVE
                    || (usize::from(best) < spec.pits && b.c[usize::from(best)] != 0);
                if !plausible(spec, b.seeds(), i32::from(value)) || !best_ok {
                    cache.impossible += 1;
                    continue;
                }
                stored.push(Stored { key, value, best });
                cache.loaded += 1;
            }
            if got < piece.len() {
                cache.damaged += usize::from(!records.remainder().is_empty());
                break;
            }
        }
        stored.sort_unstable_by_key(|s| s.key);
        // A position proven by two processes at once is recorded twice, with one value.
        stored.dedup_by_key(|s| s.key);
        stored.shrink_to_fit();
        cache.inner.get_mut().expect("value cache lock").stored = stored;
        Ok(cache)
    }

    /// What is proven of `b`, if anything: proven here or read from the file, else in the
    /// committed openings book of the rules ([`Book::openings`]).
    pub fn get(&self, b: &SBoard) -> Option<Known> {
        self.proven(b).or_else(|| {
            let e = Book::openings(&self.spec)?.get(b)?;
            Some(Known {
                value: e.value,
                best: Some(usize::from(e.pit) - 1),
            })
        })
    }

    /// What is proven of `b` here or in the file.
    fn proven(&self, b: &SBoard) -> Option<Known> {
        let inner = self.inner.lock().expect("value cache lock");
        if let Some(k) = inner.values.get(&b.key()) {
            return Some(*k);
        }
        let at = inner.stored.binary_search_by_key(&b.c, |s| s.key).ok()?;
        Some(inner.stored[at].known())
    }

    /// Every position proven here or read from the file (not the book's), with what is known.
    pub fn known(&self) -> Vec<(SBoard, Known)> {
        let inner = self.inner.lock().expect("value cache lock");
        let stored = inner
            .stored
            .iter()
            .map(|s| (SBoard { c: s.key }, s.known()));
        let fresh = inner
            .values
            .iter()
            .map(|(&k, &known)| (SBoard::from_key(k), known));
        stored.chain(fresh).collect()
    }

    /// Whether what is known of `b` comes from the openings book (not proven here or in the
    /// file): so a command can say where its value came from.
    pub fn from_book(&self, b: &SBoard) -> bool {
        self.proven(b).is_none()
            && Book::openings(&self.spec).is_some_and(|book| book.get(b).is_some())
    }

    /// Positions of the committed openings book this cache also serves.
    pub fn book_len(&self) -> usize {
        Book::openings(&self.spec).map_or(0, Book::len)
    }

    /// Remembers what is proven of `b` (kept for the next [`ValueCache::flush`]).
    pub fn insert(&self, b: &SBoard, known: Known) {
        assert!(
            i8::try_from(known.value).is_ok(),
            "a Kalah value fits in i8"
        );
        if self.get(b).is_some() {
            return;
        }
        let mut inner = self.inner.lock().expect("value cache lock");
        if inner.values.insert(b.key(), known).is_none() {
            inner.fresh.push((b.key(), known));
        }
    }

    /// Positions known.
    pub fn len(&self) -> usize {
        let inner = self.inner.lock().expect("value cache lock");
        inner.stored.len() + inner.values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the values proven since the last flush to the file (creating its folder);
    /// how many were written. A new file is written whole under a temporary name, synced and
    /// linked into place (never over another process's file: then the records are appended
    /// to it); an append is made under the file's lock and cut back to where it started if it
    /// fails. So a full disk leaves neither an empty nor a half-written file: the error names
    /// the file, and what was not written is dropped (it only costs the next run a search).
    pub fn flush(&self) -> std::io::Result<usize> {
        let path = &self.path;
        let fresh = std::mem::take(&mut self.inner.lock().expect("value cache lock").fresh);
        if fresh.is_empty() {
            return Ok(0);
        }
        let mut buf = Vec::with_capacity(fresh.len() * RECORD);
        for &(key, known) in &fresh {
            buf.extend_from_slice(&record(key, known));
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent).map_err(|e| with_path(parent, e))?;
        }
        let exists = std::fs::metadata(path).is_ok_and(|m| m.len() > 0);
        if !exists && self.create(&buf)? {
            return Ok(fresh.len());
        }
        self.append(&buf)?;
        Ok(fresh.len())
    }

    /// A new file holding the header and `records`, unless one appeared meanwhile (`false`).
    fn create(&self, records: &[u8]) -> std::io::Result<bool> {
        let path = &self.path;
        let tmp = path.with_extension(format!("bin.tmp{}", std::process::id()));
        let written = (|| {
            let mut file = std::fs::File::create(&tmp)?;
            file.write_all(header(&self.spec).as_bytes())?;
            file.write_all(records)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = std::fs::remove_file(&tmp);
            return Err(with_path(path, e));
        }
        // An empty file (an older version's) is replaced; a file with content is appended to.
        if std::fs::metadata(path).is_ok_and(|m| m.is_file() && m.len() == 0) {
            let _ = std::fs::remove_file(path);
        }
        let linked = std::fs::hard_link(&tmp, path);
        let _ = std::fs::remove_file(&tmp);
        match linked {
            Ok(()) => Ok(true),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => Ok(false),
            Err(e) => Err(with_path(path, e)),
        }
    }

    /// `records` appended to the file, under its lock; cut back on failure.
    fn append(&self, records: &[u8]) -> std::io::Result<()> {
        let path = &self.path;
        let header = header(&self.spec);
        let file = std::fs::OpenOptions::new()
            .append(true)
            .open(path)
            .map_err(|e| with_path(path, e))?;
        if !file.metadata().map_err(|e| with_path(path, e))?.is_file() {
            return Err(with_path(
                path,
                std::io::Error::other("not a regular file: refused"),
            ));
        }
        rustix::fs::flock(&file, rustix::fs::FlockOperation::LockExclusive)
            .map_err(|e| with_path(path, e.into()))?;
        let result = (|| {
            let len = file.metadata()?.len() as usize;
            let mut keep = len;
            if len >= header.len() && (len - header.len()) % RECORD != 0 {
                // A torn tail (a crash in the middle of a write): cut it so that what follows
                // stays aligned.
                keep = len - (len - header.len()) % RECORD;
                file.set_len(keep as u64)?;
            }
            if let Err(e) = (&file).write_all(records) {
                let _ = file.set_len(keep as u64);
                return Err(e);
            }
            Ok(())
        })();
        result.map_err(|e| with_path(path, e))
    }

    /// Where the values persist.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The cache of `spec` in the default folder ([`crate::db::default_dir`]); `None` when there
    /// is no such folder or its file cannot be read (a cache is never worth failing for).
    pub fn open_default(spec: &BoardSpec) -> Option<ValueCache> {
        ValueCache::open(spec, &crate::db::default_dir()?).ok()
    }
}

/// Reads into `buf` until it is full or the file ends; how many bytes were read.
fn read_full(file: &mut std::fs::File, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match file.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

/// What was proven and not yet flushed is written when the last user lets go (best effort: a
/// cache that cannot be written only costs the next run the search).
impl Drop for ValueCache {
    fn drop(&mut self) {
        let _ = self.flush();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Ruleset;

    fn spec() -> BoardSpec {
        BoardSpec::from_ruleset(&"kalah".parse::<Ruleset>().unwrap()).unwrap()
    }

    fn known(value: i32, best: Option<usize>) -> Known {
        Known { value, best }
    }

    fn board(n: u8) -> SBoard {
        let mut b = SBoard::default();
        b.c[0] = n;
        b.c[8] = 10;
        b
    }

    #[test]
    fn values_survive_a_round_trip_and_a_torn_tail_is_skipped() {
        let dir = std::env::temp_dir().join(format!("values-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = spec();
        let cache = ValueCache::open(&spec, &dir).unwrap();
        assert!(cache.is_empty());
        let (five, minus_seven) = (known(5, Some(0)), known(-6, None));
        cache.insert(&board(1), five);
        cache.insert(&board(2), minus_seven);
        cache.insert(&board(1), five); // already known: not written twice
        assert_eq!(cache.flush().unwrap(), 2);
        assert_eq!(cache.flush().unwrap(), 0);
        // A crash in the middle of a later write leaves part of a record.
        let path = dir.join(ValueCache::file_name(&spec));
        let mut f = std::fs::OpenOptions::new()
            .append(true)
            .open(&path)
            .unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        let again = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!((again.loaded, again.damaged), (2, 1));
        // The next append cuts the torn tail first: the new record is read back.
        again.insert(&board(4), known(0, Some(0)));
        assert_eq!(again.flush().unwrap(), 1);
        let cut = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!((cut.loaded, cut.damaged), (3, 0));
        assert_eq!(cut.get(&board(4)), Some(known(0, Some(0))));
        assert_eq!(again.get(&board(1)), Some(five));
        assert_eq!(again.get(&board(2)), Some(minus_seven));
        assert_eq!(again.get(&board(3)), None);
        // A flipped byte inside a record makes that record untrusted, not a wrong value.
        let mut bytes = std::fs::read(&path).unwrap();
        let first_value = header(&spec).len() + 16;
        bytes[first_value] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let flipped = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!(flipped.get(&board(1)), None);
        assert_eq!(flipped.get(&board(2)), Some(minus_seven));
        assert_eq!(flipped.damaged, 1);
        // A record of a value its position cannot have (odd with 12 seeds), its check
        // recomputed as a hand edit would: refused and counted, not served.
        let mut bytes = std::fs::read(&path).unwrap();
        let second = header(&spec).len() + RECORD;
        bytes[second + 16] = 7;
        let c = check(&bytes[second..second + 18]);
        bytes[second + 18..second + RECORD].copy_from_slice(&c);
        std::fs::write(&path, &bytes).unwrap();
        let edited = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!(edited.get(&board(2)), None);
        assert_eq!(edited.impossible, 1);
        // Another format's file is refused with its path, not misread.
        std::fs::write(&path, b"something else\n").unwrap();
        let err = ValueCache::open(&spec, &dir).err().unwrap().to_string();
        assert!(
            err.contains("values.bin") && err.contains("not a value cache"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// The openings book answers through the cache, with its pit, and is never written to the
    /// file; under other board rules it answers nothing.
    #[test]
    fn the_openings_book_answers_through_the_cache_and_is_not_written() {
        let dir = std::env::temp_dir().join(format!("values-book-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = spec();
        let book = Book::openings(&spec).unwrap();
        let (b, e) = book.entries().next().unwrap();
        let cache = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!(cache.book_len(), book.len());
        assert_eq!(
            cache.get(&b),
            Some(known(e.value, Some(usize::from(e.pit) - 1)))
        );
        assert!(cache.from_book(&b));
        cache.insert(&b, known(e.value, None));
        assert_eq!(cache.flush().unwrap(), 0, "a book position is not written");
        assert!(cache.known().is_empty());
        let other =
            BoardSpec::from_ruleset(&"kalah:empty_capture=true".parse::<Ruleset>().unwrap())
                .unwrap();
        let other_cache = ValueCache::open(&other, &dir).unwrap();
        assert_eq!((other_cache.get(&b), other_cache.book_len()), (None, 0));
        assert!(!dir.exists(), "nothing was written");
    }
}
