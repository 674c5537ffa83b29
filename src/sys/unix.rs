//! The calls that are the same on every Unix: `poll(2)` on a few descriptors, non-blocking
//! reads and writes, `O_NONBLOCK`, `flock(2)`.

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
