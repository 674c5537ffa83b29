//! A bot's stderr log, capped per run: everything the player's bot processes write to stderr, in
//! one file for the whole run, at most `cap` bytes of it kept.
//!
//! The first `cap − tail` bytes are written as they come (the head: how the bot started, the
//! first errors). After that the latest bytes are kept in memory, at most `tail` of them (a
//! quarter of the cap, at most 1 MiB), and written behind a note of how much was dropped
//! whenever the log is [`BotLog::flush`]ed (each time one of the player's processes ends, and at
//! the end of the run). So the file never grows past the cap plus the note, however much a bot
//! writes, and still ends with the bot's last words. A log that already exists (a resumed run)
//! counts towards the head.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// The default cap: 16 MiB per bot per run.
pub const DEFAULT_LOG_CAP: u64 = 16 << 20;

/// A shared handle to one player's log.
#[derive(Clone, Debug)]
pub struct BotLog {
    inner: Arc<Mutex<LogState>>,
}

#[derive(Debug)]
struct LogState {
    path: PathBuf,
    /// Bytes in the file's head (written in place).
    head: u64,
    head_cap: u64,
    /// The latest bytes past the head.
    tail: VecDeque<u8>,
    tail_cap: usize,
    /// Bytes past the head that are no longer in `tail`.
    dropped: u64,
}

impl BotLog {
    /// The log at `path`, capped at `cap` bytes (plus the truncation note).
    pub fn new(path: &Path, cap: u64) -> BotLog {
        let tail_cap = (cap / 4).min(1 << 20) as usize;
        let existing = std::fs::metadata(path).map_or(0, |m| m.len());
        // The file exists from the start, empty or not: a silent bot has an empty log.
        let _ = OpenOptions::new().create(true).append(true).open(path);
        BotLog {
            inner: Arc::new(Mutex::new(LogState {
                path: path.to_path_buf(),
                head: existing,
                head_cap: cap - tail_cap as u64,
                tail: VecDeque::new(),
                tail_cap,
                dropped: 0,
            })),
        }
    }

    pub fn path(&self) -> PathBuf {
        self.state().path.clone()
    }

    fn state(&self) -> std::sync::MutexGuard<'_, LogState> {
        // A panic while holding the lock cannot leave the state inconsistent in a way that
        // matters for a log: carry on with it.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Appends `bytes` (as much as the cap allows; the rest goes to the tail).
    pub fn write(&self, bytes: &[u8]) {
        let mut s = self.state();
        let room = s.head_cap.saturating_sub(s.head) as usize;
        let (head, rest) = bytes.split_at(room.min(bytes.len()));
        if !head.is_empty() {
            // Past a flushed tail's end is where the head goes on: seek back to it.
            let at = s.head;
            if let Some(mut f) = s.open() {
                if f.seek(SeekFrom::Start(at)).is_ok() && f.write_all(head).is_ok() {
                    s.head += head.len() as u64;
                }
            }
        }
        if !rest.is_empty() {
            s.tail.extend(rest);
            let over = s.tail.len().saturating_sub(s.tail_cap);
            if over > 0 {
                s.tail.drain(..over);
                s.dropped += over as u64;
            }
        }
    }

    /// A line from the arena itself (what it discarded, why it stopped a bot), marked as such.
    pub fn note(&self, text: &str) {
        self.write(format!("[arena] {text}\n").as_bytes());
    }

    /// Writes the tail, behind a note of what was dropped, after the head. Idempotent; later
    /// writes go on as before.
    pub fn flush(&self) {
        let s = self.state();
        if s.tail.is_empty() {
            return;
        }
        let note = format!(
            "\n[arena] ... {} bytes of stderr dropped: the log keeps the first {} and the last {} bytes of a run (--log-cap) ...\n",
            s.dropped,
            s.head_cap,
            s.tail_cap
        );
        let head = s.head;
        let (first, second) = s.tail.as_slices();
        let (first, second) = (first.to_vec(), second.to_vec());
        if let Some(mut f) = s.open() {
            let _ = f.set_len(head);
            let _ = f.seek(SeekFrom::Start(head));
            let _ = f.write_all(note.as_bytes());
            let _ = f.write_all(&first);
            let _ = f.write_all(&second);
            let _ = f.flush();
        }
    }
}

impl LogState {
    /// The log file, opened for this write only: a run of a thousand players must not hold a
    /// thousand files open (stderr output is rare, and past the head it stays in memory).
    fn open(&self) -> Option<File> {
        OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(&self.path)
            .ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_keeps_the_head_and_the_tail_within_the_cap() {
        let dir = std::env::temp_dir().join(format!("arena-botlog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.stderr.log");
        let log = BotLog::new(&path, 1000);
        log.write(b"start\n");
        for i in 0..1000 {
            log.write(format!("line {i:04}\n").as_bytes());
        }
        log.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("start\nline 0000\n"), "{}", &text[..40]);
        assert!(
            text.ends_with("line 0999\n"),
            "{}",
            &text[text.len() - 40..]
        );
        assert!(text.contains("bytes of stderr dropped"), "{text}");
        assert!(text.len() < 1000 + 200, "{}", text.len());
        // More output after a flush: the tail moves on, the file stays capped.
        for i in 0..100 {
            log.write(format!("more {i:03}\n").as_bytes());
        }
        log.note("killed after a timeout");
        log.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.ends_with("[arena] killed after a timeout\n"), "{text}");
        assert_eq!(text.matches("bytes of stderr dropped").count(), 1);
        assert!(text.len() < 1000 + 200);
        // A resumed run's log counts towards the head.
        let again = BotLog::new(&path, 1000);
        again.write(b"after resume\n");
        again.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(
            text.ends_with("after resume\n") && text.len() < 1300,
            "{}",
            text.len()
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
