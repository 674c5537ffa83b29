//! The calls that are the same on every Unix: `poll(2)` on a few descriptors, non-blocking
//! reads and writes, `O_NONBLOCK`, `flock(2)`, an `open(2)` that follows no link.

use std::os::fd::{AsFd, BorrowedFd};
use std::time::Instant;

use rustix::event::{poll, PollFd, PollFlags, Timespec};
use rustix::fs::{fcntl_getfl, fcntl_setfl, flock, FlockOperation, OFlags};
use rustix::io::Errno;

use super::{Stop, Woke};

/// What a [`wait`] waits for on its descriptors.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Interest {
    Read,
    Write,
}

/// Waits until one of `fds` is ready for `interest`, the `deadline` passes (`None`: no
/// deadline), or `stop` is triggered (which wins over a ready descriptor). An absent descriptor
/// (`None`) keeps its index but is not watched. `EINTR` is retried with the time that is left.
/// Errors of `poll` itself (none expected with valid descriptors) end the wait as if the
/// deadline had passed.
pub fn wait(
    fds: &[Option<BorrowedFd<'_>>],
    interest: Interest,
    deadline: Option<Instant>,
    stop: Option<&Stop>,
) -> Woke {
    let events = match interest {
        Interest::Read => PollFlags::IN,
        Interest::Write => PollFlags::OUT,
    };
    // At most three descriptors and the stop, on the stack: the present ones first, each with
    // the index it had in `fds` (`None` for the stop).
    assert!(fds.len() < 4, "wait takes at most three descriptors");
    let watched = fds
        .iter()
        .enumerate()
        .filter_map(|(i, fd)| fd.map(|fd| (Some(i), fd, events)))
        .chain(stop.map(|stop| (None, stop.fd(), PollFlags::IN)));
    let mut index = [None; 4];
    let mut polled = None::<[PollFd<'_>; 4]>;
    let mut n = 0;
    for (i, fd, events) in watched {
        // The slots past `n` are never passed to poll: they only fill the array.
        let slots = polled.get_or_insert_with(|| {
            std::array::from_fn(|_| PollFd::from_borrowed_fd(fd, PollFlags::empty()))
        });
        slots[n] = PollFd::from_borrowed_fd(fd, events);
        index[n] = i;
        n += 1;
    }
    let Some(mut polled) = polled else {
        // Nothing to watch: only the deadline can end the wait.
        match deadline {
            Some(deadline) => {
                std::thread::sleep(deadline.saturating_duration_since(Instant::now()));
                return Woke::Deadline;
            }
            None => loop {
                std::thread::park();
            },
        }
    };
    let polled = &mut polled[..n];
    loop {
        match poll(polled, timeout(deadline).as_ref()) {
            Ok(_) => {}
            Err(Errno::INTR) => continue,
            Err(_) => return Woke::Deadline,
        }
        let mut first = None;
        for (p, i) in polled.iter().zip(index) {
            if p.revents().is_empty() {
                continue;
            }
            match i {
                None => return Woke::Stopped,
                Some(i) => {
                    first.get_or_insert(i);
                }
            }
        }
        if let Some(i) = first {
            return Woke::Ready(i);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Woke::Deadline;
        }
    }
}

/// The time left until `deadline` as a system call's timeout (`None`: wait for ever). A wait
/// never ends before its deadline: where a call takes milliseconds, rustix rounds up.
pub(super) fn timeout(deadline: Option<Instant>) -> Option<Timespec> {
    let left = deadline?.saturating_duration_since(Instant::now());
    Timespec::try_from(left).ok()
}

/// One `read(2)` into `buf`.
pub fn read(fd: impl AsFd, buf: &mut [u8]) -> std::io::Result<usize> {
    Ok(rustix::io::read(fd, buf)?)
}

/// One `write(2)` of `buf`.
pub fn write(fd: impl AsFd, buf: &[u8]) -> std::io::Result<usize> {
    Ok(rustix::io::write(fd, buf)?)
}

/// Sets (`on`) or clears `O_NONBLOCK` on `fd`.
pub fn set_nonblocking(fd: impl AsFd, on: bool) -> std::io::Result<()> {
    let flags = fcntl_getfl(&fd)?;
    let flags = if on {
        flags | OFlags::NONBLOCK
    } else {
        flags - OFlags::NONBLOCK
    };
    Ok(fcntl_setfl(&fd, flags)?)
}

/// Takes an exclusive advisory lock (`flock(2)`) on `file` without waiting; `false` when
/// another open file description holds one (or the lock cannot be taken at all).
pub fn try_lock_exclusive(file: &std::fs::File) -> bool {
    flock(file, FlockOperation::NonBlockingLockExclusive).is_ok()
}

/// What [`open_no_follow`] found in place of a regular file: the error it returns carries this
/// (`std::io::Error::get_ref`), so that callers can say it in their own words.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAFile {
    /// A symbolic link (not followed).
    Link,
    /// A FIFO, a device, a socket, a folder: in words.
    Other(&'static str),
}

impl std::fmt::Display for NotAFile {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            NotAFile::Link => f.write_str("a symbolic link (not followed)"),
            NotAFile::Other(what) => write!(f, "{what}, not a regular file"),
        }
    }
}

impl std::error::Error for NotAFile {}

impl NotAFile {
    /// What `e` (an error of [`open_no_follow`]) says was found, if it is one of these.
    pub fn of(e: &std::io::Error) -> Option<NotAFile> {
        e.get_ref()?.downcast_ref::<NotAFile>().copied()
    }

    fn error(self) -> std::io::Error {
        std::io::Error::new(std::io::ErrorKind::InvalidInput, self)
    }
}

/// What a file of this type is, in words, when it is not a regular file.
fn not_regular(t: std::fs::FileType) -> Option<NotAFile> {
    use std::os::unix::fs::FileTypeExt;
    Some(if t.is_file() {
        return None;
    } else if t.is_symlink() {
        NotAFile::Link
    } else if t.is_dir() {
        NotAFile::Other("a folder")
    } else if t.is_fifo() {
        NotAFile::Other("a FIFO (named pipe)")
    } else if t.is_socket() {
        NotAFile::Other("a socket")
    } else if t.is_block_device() || t.is_char_device() {
        NotAFile::Other("a device")
    } else {
        NotAFile::Other("a special file")
    })
}

/// Opens `path` as `options` say, but only a regular file: never through a symbolic link at its
/// last component (`O_NOFOLLOW`), and without waiting for a writer or a reader when it is a FIFO
/// (`O_NONBLOCK`, cleared again once open). Anything else is an error carrying a [`NotAFile`].
/// `options` must not truncate: the caller empties the file once it is known to be regular.
pub fn open_no_follow(
    path: &std::path::Path,
    options: &std::fs::OpenOptions,
) -> std::io::Result<std::fs::File> {
    use std::os::unix::fs::OpenOptionsExt;
    let mut options = options.clone();
    // The bits fit an `int`: they are `open(2)`'s flags.
    options.custom_flags((OFlags::NOFOLLOW | OFlags::NONBLOCK).bits() as i32);
    let file = match options.open(path) {
        Ok(file) => file,
        Err(e) if Errno::from_io_error(&e) == Some(Errno::LOOP) => {
            return Err(NotAFile::Link.error())
        }
        // A FIFO without a reader (`ENXIO`), a folder opened for writing (`EISDIR`), ...: say
        // what is there rather than the system call's word for it.
        Err(e) => {
            return Err(std::fs::symlink_metadata(path)
                .ok()
                .and_then(|m| not_regular(m.file_type()))
                .map_or(e, NotAFile::error))
        }
    };
    if let Some(not) = not_regular(file.metadata()?.file_type()) {
        return Err(not.error());
    }
    set_nonblocking(&file, false)?;
    Ok(file)
}

/// What is at `path` (not following a link) when it is not a regular file; `None` for a
/// regular file or nothing at all.
pub fn not_a_file(path: &std::path::Path) -> Option<NotAFile> {
    not_regular(std::fs::symlink_metadata(path).ok()?.file_type())
}

/// Whether `e` says the disk is full (`ENOSPC`) or the user's quota is spent (`EDQUOT`).
pub fn is_disk_full(e: &std::io::Error) -> bool {
    matches!(Errno::from_io_error(e), Some(Errno::NOSPC | Errno::DQUOT))
}
