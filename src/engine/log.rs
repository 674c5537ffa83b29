//! A bot's stderr log, capped per run: everything the player's bot processes write to stderr, in
//! one file for the whole run, at most `cap` bytes of it kept.
//!
//! The first `cap − tail` bytes are written as they come (the head: how the bot started, the
//! first errors). After that the latest bytes are kept in memory, at most `tail` of them (a
//! quarter of the cap, at most 1 MiB), and written behind a note of how much was dropped
//! whenever the log is [`BotLog::flush`]ed (each time one of the player's processes ends, and at
//! the end of the run). So the file never grows past the cap plus the note (one line of about 150
//! bytes), however much a bot writes, and still ends with the bot's last words.
//!
//! A resumed run (`--resume`, a Slurm requeue) takes up the file where the last one left it: its
//! bytes up to the head's cap stay the head, and what lies past them (the earlier note and tail)
//! becomes the tail again, the earlier note's count carried on. So the cap holds for the run
//! however often it is resumed.

use std::collections::VecDeque;
use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
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
    /// The log at `path`, capped at `cap` bytes (plus the truncation note). The file is
    /// created if missing (a silent bot has an empty log); a symbolic link or anything but a
    /// regular file there is an error naming it, and is left as it is: the bot's stderr never
    /// goes into another file, and no file is cut to the cap but the log.
    pub fn new(path: &Path, cap: u64) -> std::io::Result<BotLog> {
        let tail_cap = (cap / 4).min(1 << 20) as usize;
        if let Err(e) =
            crate::sys::open_no_follow(path, OpenOptions::new().create(true).append(true))
        {
            // The arena's own shortage (open files, memory) is kept as the system said it, for
            // the caller to say that no bot is at fault.
            if crate::sys::arena_resource(&e).is_some() {
                return Err(e);
            }
            let why = match crate::sys::NotAFile::of(&e) {
                Some(crate::sys::NotAFile::Link) => "a symbolic link, which the arena does not follow in a run folder (the bot's stderr would go into the file it points to); remove it".to_string(),
                Some(crate::sys::NotAFile::Other(what)) => format!("{what}; remove it"),
                None => e.to_string(),
            };
            return Err(std::io::Error::new(
                e.kind(),
                format!("cannot write the bot log {}: {why}", path.display()),
            ));
        }
        let mut state = LogState {
            path: path.to_path_buf(),
            head: 0,
            head_cap: cap - tail_cap as u64,
            tail: VecDeque::new(),
            tail_cap,
            dropped: 0,
        };
        let _ = state.take_up();
        let log = BotLog {
            inner: Arc::new(Mutex::new(state)),
        };
        // A file past the cap (an older arena's, or a larger `--log-cap`'s) is cut now.
        log.flush();
        Ok(log)
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
            "{NOTE_START}{} bytes of stderr dropped: the log keeps the first {} and the last {} bytes of a run (--log-cap) ...\n",
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

/// How much of a log's end [`last_lines`] reads.
const TAIL_BYTES: u64 = 4096;

/// The last `n` lines the bots of the log at `path` wrote (blank lines and the arena's own
/// `[arena]` notes left out), from at most its last 4 KiB: why a bot died, for a message.
pub fn last_lines(path: &Path, n: usize) -> Vec<String> {
    let mut file = match File::open(path) {
        Ok(file) => file,
        Err(_) => return Vec::new(),
    };
    let len = file.metadata().map_or(0, |m| m.len());
    let mut bytes = Vec::new();
    if file
        .seek(SeekFrom::Start(len.saturating_sub(TAIL_BYTES)))
        .is_err()
        || file.take(TAIL_BYTES).read_to_end(&mut bytes).is_err()
    {
        return Vec::new();
    }
    let text = String::from_utf8_lossy(&bytes);
    let mut lines: Vec<&str> = text.lines().collect();
    // Past the byte limit the first line is cut.
    if len > TAIL_BYTES && !lines.is_empty() {
        lines.remove(0);
    }
    let kept: Vec<&str> = lines
        .into_iter()
        .filter(|l| !l.trim().is_empty() && !l.starts_with("[arena]"))
        .collect();
    kept[kept.len().saturating_sub(n)..]
        .iter()
        .map(|l| l.to_string())
        .collect()
}

/// How the truncation note starts; a resumed run finds the note of the last one by it.
const NOTE_START: &str = "\n[arena] ... ";

impl LogState {
    /// Takes up the file an earlier run of the folder left: up to the head's cap it is the head;
    /// past it, the earlier note (its count carried on into `dropped`) and then bytes of which
    /// the last `tail_cap` become the tail again. The head is set first, so that even a file
    /// that cannot be read is cut at the cap by the next flush.
    fn take_up(&mut self) -> std::io::Result<()> {
        let mut file = crate::sys::open_no_follow(&self.path, OpenOptions::new().read(true))?;
        let len = file.metadata()?.len();
        self.head = len.min(self.head_cap);
        if len <= self.head_cap {
            return Ok(());
        }
        file.seek(SeekFrom::Start(self.head_cap))?;
        let mut start = Vec::new();
        (&mut file).take(256).read_to_end(&mut start)?;
        let (note_len, dropped) = parse_note(&start).unwrap_or((0, 0));
        let past = len - self.head_cap - note_len;
        let keep = past.min(self.tail_cap as u64);
        file.seek(SeekFrom::Start(len - keep))?;
        let mut tail = Vec::new();
        file.take(keep).read_to_end(&mut tail)?;
        self.dropped = dropped + past - tail.len() as u64;
        self.tail = tail.into();
        Ok(())
    }

    /// The log file, opened for this write only: a run of a thousand players must not hold a
    /// thousand files open (stderr output is rare, and past the head it stays in memory).
    /// A link or a FIFO put in its place since is not written.
    fn open(&self) -> Option<File> {
        crate::sys::open_no_follow(
            &self.path,
            OpenOptions::new().create(true).truncate(false).write(true),
        )
        .ok()
    }
}

/// The length of a truncation note at the start of `bytes`, and the count of dropped bytes it
/// gives.
fn parse_note(bytes: &[u8]) -> Option<(u64, u64)> {
    let rest = bytes.strip_prefix(NOTE_START.as_bytes())?;
    let end = rest.iter().position(|&b| b == b'\n')?;
    let count = std::str::from_utf8(&rest[..end]).ok()?.split(' ').next()?;
    Some(((NOTE_START.len() + end + 1) as u64, count.parse().ok()?))
}

#[cfg(test)]
mod tests {

    #[test]
    fn the_last_lines_are_whole_and_the_bots_own() {
        let path = std::env::temp_dir().join(format!("arena-last-lines-{}", std::process::id()));
        std::fs::write(&path, "a\n\n[arena] a note\nb\nc\n").unwrap();
        assert_eq!(last_lines(&path, 2), ["b", "c"]);
        assert_eq!(last_lines(&path, 15), ["a", "b", "c"]);
        // Past the byte limit the read starts mid-line: that line is dropped.
        std::fs::write(
            &path,
            format!("{}\nlast\n", "x".repeat(TAIL_BYTES as usize)),
        )
        .unwrap();
        assert_eq!(last_lines(&path, 15), ["last"]);
        std::fs::remove_file(&path).unwrap();
        assert!(last_lines(&path, 15).is_empty());
    }
    use super::*;

    #[test]
    fn a_flood_keeps_the_head_and_the_tail_within_the_cap() {
        let dir = std::env::temp_dir().join(format!("arena-botlog-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.stderr.log");
        let log = BotLog::new(&path, 1000).unwrap();
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
        // A resumed run goes on with the same file, within the same cap.
        let again = BotLog::new(&path, 1000).unwrap();
        again.write(b"after resume\n");
        again.flush();
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.starts_with("start\nline 0000\n"), "{}", &text[..40]);
        assert!(text.ends_with("after resume\n"), "{text}");
        assert_eq!(text.matches("bytes of stderr dropped").count(), 1);
        assert!(text.len() < 1000 + 200, "{}", text.len());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    #[test]
    fn a_run_resumed_again_and_again_keeps_one_cap_and_counts_every_drop() {
        let dir = std::env::temp_dir().join(format!("arena-botlog-resume-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("x.stderr.log");
        let mut written = 0;
        for resume in 0..6 {
            let log = BotLog::new(&path, 1000).unwrap();
            for i in 0..500 {
                let line = format!("run {resume} line {i:03}\n");
                log.write(line.as_bytes());
                written += line.len();
            }
            log.flush();
            let text = std::fs::read_to_string(&path).unwrap();
            assert!(
                text.len() < 1000 + 200,
                "resume {resume}: {} bytes",
                text.len()
            );
            assert!(text.starts_with("run 0 line 000\n"), "{}", &text[..40]);
            assert!(text.ends_with(&format!("run {resume} line 499\n")));
            assert_eq!(text.matches("bytes of stderr dropped").count(), 1);
            // Everything written, but the head (750 bytes) and the tail (250), was dropped.
            let dropped = format!("[arena] ... {} bytes of stderr dropped", written - 1000);
            assert!(text.contains(&dropped), "resume {resume}: {text}");
        }
        // A log far past the cap (a larger cap before, or an older arena) is cut at once.
        std::fs::write(&path, vec![b'x'; 50_000]).unwrap();
        drop(BotLog::new(&path, 1000).unwrap());
        let text = std::fs::read_to_string(&path).unwrap();
        assert!(text.len() < 1000 + 200, "{} bytes", text.len());
        assert!(
            text.contains("[arena] ... 49000 bytes of stderr dropped"),
            "{text}"
        );
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
