//! The value cache: exact values of positions proven before, kept in a file beside the
//! databases and shared by every program that solves (`arena analyse`, `arena solve`,
//! `arena openings`, the `solver` bot).
//!
//! Why: the expensive positions are the ones with many seeds, near the start, and those repeat:
//! the same openings in every game of a run, the same run analysed again, the bot asked the same
//! opening position game after game. A position proven once is never searched again.
//!
//! File `<rules tag>-values.bin` in the database folder ([`crate::db::default_dir`]): records
//! of 18 bytes, the position's key (16 pit bytes), its value (`i8`) and a check byte. Only
//! appended to, one `write` of whole records per flush (`O_APPEND`), so processes sharing it
//! never interleave inside a record; a torn or foreign record (bad check byte, a short tail
//! after a crash) is skipped on reading and counted, never trusted. Positions within the
//! database are not stored (the database answers them).

use std::collections::HashMap;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use super::board::{BoardSpec, SBoard};

const RECORD: usize = 18;

/// Exact values by position (one ruleset), with the file they persist to.
pub struct ValueCache {
    path: Option<PathBuf>,
    inner: Mutex<Inner>,
    /// Records read from the file.
    pub loaded: usize,
    /// Records of the file skipped as damaged (torn tail, bad check byte).
    pub damaged: usize,
}

#[derive(Default)]
struct Inner {
    values: HashMap<u128, i8>,
    /// Proven since the last flush, to append.
    fresh: Vec<(u128, i8)>,
}

fn check(key: u128, value: i8) -> u8 {
    key.to_le_bytes()
        .iter()
        .fold(0x5a ^ value as u8, |c, &b| c.rotate_left(3) ^ b)
}

impl ValueCache {
    /// An empty cache that is never written anywhere.
    pub fn in_memory() -> ValueCache {
        ValueCache {
            path: None,
            inner: Mutex::default(),
            loaded: 0,
            damaged: 0,
        }
    }

    /// The file name for `spec`'s values.
    pub fn file_name(spec: &BoardSpec) -> String {
        format!("{}-values.bin", spec.tag())
    }

    /// The cache of `spec` in folder `dir`, read from its file if there is one. An unreadable
    /// file is an error; damaged records are only counted.
    pub fn open(spec: &BoardSpec, dir: &Path) -> std::io::Result<ValueCache> {
        let path = dir.join(ValueCache::file_name(spec));
        let bytes = match std::fs::read(&path) {
            Ok(b) => b,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => Vec::new(),
            Err(e) => return Err(e),
        };
        let mut inner = Inner::default();
        let (mut loaded, mut damaged) = (0, 0);
        let mut records = bytes.chunks_exact(RECORD);
        for r in &mut records {
            let key = u128::from_le_bytes(r[..16].try_into().expect("16 bytes"));
            let value = r[16] as i8;
            if r[17] == check(key, value) {
                inner.values.insert(key, value);
                loaded += 1;
            } else {
                damaged += 1;
            }
        }
        damaged += usize::from(!records.remainder().is_empty());
        Ok(ValueCache {
            path: Some(path),
            inner: Mutex::new(inner),
            loaded,
            damaged,
        })
    }

    /// The proven value of `b`, if known.
    pub fn get(&self, b: &SBoard) -> Option<i32> {
        let inner = self.inner.lock().expect("value cache lock");
        inner.values.get(&b.key()).map(|&v| v as i32)
    }

    /// Remembers `b`'s proven `value` (kept for the next [`ValueCache::flush`]).
    pub fn insert(&self, b: &SBoard, value: i32) {
        let value = i8::try_from(value).expect("a Kalah value fits in i8");
        let mut inner = self.inner.lock().expect("value cache lock");
        if inner.values.insert(b.key(), value).is_none() {
            inner.fresh.push((b.key(), value));
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
        let Some(path) = &self.path else {
            return Ok(0);
        };
        let fresh = std::mem::take(&mut self.inner.lock().expect("value cache lock").fresh);
        if fresh.is_empty() {
            return Ok(0);
        }
        let mut buf = Vec::with_capacity(fresh.len() * RECORD);
        for &(key, value) in &fresh {
            buf.extend_from_slice(&key.to_le_bytes());
            buf.push(value as u8);
            buf.push(check(key, value));
        }
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        let mut file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)?;
        file.write_all(&buf)?;
        Ok(fresh.len())
    }

    /// Where the values persist (`None`: memory only).
    pub fn path(&self) -> Option<&Path> {
        self.path.as_deref()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Ruleset;

    fn spec() -> BoardSpec {
        BoardSpec::from_ruleset(&"kalah".parse::<Ruleset>().unwrap()).unwrap()
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
        cache.insert(&board(1), 5);
        cache.insert(&board(2), -7);
        cache.insert(&board(1), 5); // already known: not written twice
        assert_eq!(cache.flush().unwrap(), 2);
        assert_eq!(cache.flush().unwrap(), 0);
        // A crash in the middle of a later write leaves part of a record.
        let path = dir.join(ValueCache::file_name(&spec));
        let mut f = std::fs::OpenOptions::new().append(true).open(&path).unwrap();
        f.write_all(&[1, 2, 3]).unwrap();
        let again = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!((again.loaded, again.damaged), (2, 1));
        assert_eq!(again.get(&board(1)), Some(5));
        assert_eq!(again.get(&board(2)), Some(-7));
        assert_eq!(again.get(&board(3)), None);
        // A flipped byte inside a record makes that record untrusted, not a wrong value.
        let mut bytes = std::fs::read(&path).unwrap();
        bytes[16] ^= 1;
        std::fs::write(&path, &bytes).unwrap();
        let flipped = ValueCache::open(&spec, &dir).unwrap();
        assert_eq!(flipped.get(&board(1)), None);
        assert_eq!(flipped.get(&board(2)), Some(-7));
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
