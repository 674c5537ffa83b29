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
//! another header (another format) is refused, and left alone.
//! Positions within the database are not stored (the database answers them).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::board::{BoardSpec, SBoard};

const RECORD: usize = 22;
const NO_MOVE: u8 = u8::MAX;

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
}

#[derive(Default)]
struct Inner {
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

impl ValueCache {
    /// The file name for `spec`'s values.
    pub fn file_name(spec: &BoardSpec) -> String {
        format!("{}-values.bin", spec.tag())
    }

    /// The cache of `spec` in folder `dir`, read from its file if there is one. An unreadable
    /// file is an error; damaged records are only counted.
    pub fn open(spec: &BoardSpec, dir: &Path) -> std::io::Result<ValueCache> {
        let path = dir.join(ValueCache::file_name(spec));
        let header = header(spec);
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => header.clone().into_bytes(),
            Err(e) => return Err(e),
        };
        let Some(body) = bytes.strip_prefix(header.as_bytes()) else {
            return Err(std::io::Error::new(
                std::io::ErrorKind::InvalidData,
                format!(
                    "{}: not a value cache of this version and rules (its first line is not {:?})",
                    path.display(),
                    header.trim_end()
                ),
            ));
        };
        let mut inner = Inner::default();
        let (mut loaded, mut damaged) = (0, 0);
        let mut records = body.chunks_exact(RECORD);
        for r in &mut records {
            let key = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
            if r[18..] == check(&r[..18]) {
                let known = Known {
                    value: r[16] as i8 as i32,
                    best: (r[17] != NO_MOVE).then_some(r[17] as usize),
                };
                inner.values.insert(key, known);
                loaded += 1;
            } else {
                damaged += 1;
            }
        }
        damaged += usize::from(!records.remainder().is_empty());
        Ok(ValueCache {
            spec: *spec,
            path,
            inner: Mutex::new(inner),
            loaded,
            damaged,
        })
    }

    /// What is proven of `b`, if anything.
    pub fn get(&self, b: &SBoard) -> Option<Known> {
        let inner = self.inner.lock().expect("value cache lock");
        inner.values.get(&b.key()).copied()
    }

    /// Remembers what is proven of `b` (kept for the next [`ValueCache::flush`]).
    pub fn insert(&self, b: &SBoard, known: Known) {
        assert!(
            i8::try_from(known.value).is_ok(),
            "a Kalah value fits in i8"
        );
        let mut inner = self.inner.lock().expect("value cache lock");
        if inner.values.insert(b.key(), known).is_none() {
            inner.fresh.push((b.key(), known));
        }
    }

    /// Positions known.
    pub fn len(&self) -> usize {
        self.inner.lock().expect("value cache lock").values.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Appends the values proven since the last flush to the file (creating its folder);
    /// how many were written.
    pub fn flush(&self) -> std::io::Result<usize> {
        let path = &self.path;
        let header = header(&self.spec);
        let fresh = std::mem::take(&mut self.inner.lock().expect("value cache lock").fresh);
        if fresh.is_empty() {
            return Ok(0);
        }
        let mut buf = Vec::with_capacity(fresh.len() * RECORD);
        for &(key, known) in &fresh {
            buf.extend_from_slice(&record(key, known));
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        let len = file.metadata()?.len() as usize;
        if len == 0 {
            file.write_all(header.as_bytes())?;
        } else if len >= header.len() && (len - header.len()) % RECORD != 0 {
            // A torn tail (a crash in the middle of a write): cut it so that what follows stays
            // aligned.
            file.set_len((len - (len - header.len()) % RECORD) as u64)?;
        }
        file.write_all(&buf)?;
        Ok(fresh.len())
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
        b.c[7] = 3;
        b
    }

    #[test]
    fn values_survive_a_round_trip_and_a_torn_tail_is_skipped() {
        let dir = std::env::temp_dir().join(format!("values-test-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        let spec = spec();
        let cache = ValueCache::open(&spec, &dir).unwrap();
        assert!(cache.is_empty());
        let (five, minus_seven) = (known(5, Some(3)), known(-7, None));
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
        // Another format's file is refused with its path, not misread.
        std::fs::write(&path, b"something else\n").unwrap();
        let err = ValueCache::open(&spec, &dir).err().unwrap().to_string();
        assert!(
            err.contains("values.bin") && err.contains("not a value cache"),
            "{err}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
