//! The portable waits, for every Unix: a self-pipe for the run's stop and one `poll(2)` of a
//! bot's stdout and the stop per line wait. There is no pidfd: the caller sees a bot's exit by
//! its stdout closing, and by looking at the process (`waitpid(WNOHANG)`, tokio's `try_wait`)
//! between waits of at most 10 ms.

use std::io::Write;
use std::os::fd::{AsFd, BorrowedFd};
use std::os::unix::net::UnixStream;
use std::time::Instant;

use super::unix::{wait, Interest};
use super::{Stop, Woke};

/// The stop as the two ends of a socket pair (std makes both close-on-exec on every Unix, which
/// `pipe(2)` cannot do atomically on macOS): a byte written to one end leaves the other
/// readable for good, since nothing reads it.
#[derive(Debug)]
pub(super) struct PipeStop {
    read: UnixStream,
    write: UnixStream,
}

impl PipeStop {
    pub(super) fn new() -> std::io::Result<PipeStop> {
        let (read, write) = UnixStream::pair()?;
        // A full buffer (after some hundred thousand triggers) must not block the trigger: the
        // stop is set by then anyway.
        write.set_nonblocking(true)?;
        Ok(PipeStop { read, write })
    }

    pub(super) fn trigger(&self) {
        let _ = (&self.write).write(&[1]);
    }

    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.read.as_fd()
    }
}

/// A line wait as one `poll` of stdout, the exit (when there is a descriptor for it) and the
/// stop. It holds only the stop (shared, no descriptor of its own), so a bot costs no more
/// descriptors than with epoll.
pub(super) struct PollWait {
    stop: Option<Stop>,
}

impl PollWait {
    pub(super) fn new(stop: Option<&Stop>) -> PollWait {
        PollWait {
            stop: stop.cloned(),
        }
    }

    pub(super) fn wait(
        &self,
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        deadline: Instant,
    ) -> Woke {
        wait(
            &[Some(stdout), exit],
            Interest::Read,
            Some(deadline),
            self.stop.as_ref(),
        )
    }
}
