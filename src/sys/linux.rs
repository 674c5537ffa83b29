//! The Linux waits: an eventfd for the run's stop, an epoll set made once per bot for its line
//! waits, and a pidfd for its exit, so that waiting for a bot's answer costs one `epoll_pwait`
//! with nothing to register or unregister (what a `poll` of three descriptors costs every time)
//! and a bot's exit ends the wait at once even when a process it started holds its stdout open.

use std::os::fd::{AsFd, BorrowedFd, OwnedFd};
use std::time::Instant;

use rustix::event::epoll;
use rustix::event::{eventfd, EventfdFlags};
use rustix::io::Errno;
use rustix::process::{pidfd_open, Pid, PidfdFlags};

use super::unix::timeout;
use super::{Stop, Woke};

/// The stop as an eventfd: set once, it stays readable (nothing ever reads it).
#[derive(Debug)]
pub(super) struct EventStop(OwnedFd);

impl EventStop {
    pub(super) fn new() -> std::io::Result<EventStop> {
        Ok(EventStop(eventfd(
            0,
            EventfdFlags::CLOEXEC | EventfdFlags::NONBLOCK,
        )?))
    }

    /// Adds one to the counter. It only saturates after 2^64 − 2 triggers, and a failed write
    /// leaves it set anyway.
    pub(super) fn trigger(&self) {
        let _ = rustix::io::write(&self.0, &1u64.to_ne_bytes());
    }

    pub(super) fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

/// The epoll tag of the stop; stdout and the exit are tagged with their indexes (0 and 1).
const TAG_STOP: u64 = u64::MAX;

/// An epoll set watching a bot's stdout, its exit and the run's stop.
pub(super) struct EpollWait {
    epoll: OwnedFd,
}

impl EpollWait {
    pub(super) fn new(
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        stop: Option<&Stop>,
    ) -> std::io::Result<EpollWait> {
        let waiter = EpollWait {
            epoll: epoll::create(epoll::CreateFlags::CLOEXEC)?,
        };
        waiter.add(stdout, 0)?;
        if let Some(exit) = exit {
            waiter.add(exit, 1)?;
        }
        if let Some(stop) = stop {
            waiter.add(stop.fd(), TAG_STOP)?;
        }
        Ok(waiter)
    }

    fn add(&self, fd: BorrowedFd<'_>, tag: u64) -> std::io::Result<()> {
        epoll::add(
            &self.epoll,
            fd,
            epoll::EventData::new_u64(tag),
            epoll::EventFlags::IN,
        )?;
        Ok(())
    }

    /// Waits until stdout is readable (`Ready(0)`), the bot exits (`Ready(1)`), `deadline`
    /// passes or the run stops. `EINTR` is retried with the time that is left; other errors
    /// (none expected on a set of our own) end the wait as if the deadline had passed.
    pub(super) fn wait(&self, deadline: Instant) -> Woke {
        let empty = epoll::Event {
            flags: epoll::EventFlags::empty(),
            data: epoll::EventData::new_u64(0),
        };
        let mut events = [empty; 3];
        loop {
            let n = match epoll::wait(&self.epoll, &mut events, timeout(Some(deadline)).as_ref()) {
                Ok(n) => n,
                Err(Errno::INTR) => continue,
                Err(_) => return Woke::Deadline,
            };
            let ready = &events[..n];
            if ready.iter().any(|e| e.data.u64() == TAG_STOP) {
                return Woke::Stopped;
            }
            if let Some(e) = ready.iter().min_by_key(|e| e.data.u64()) {
                return Woke::Ready(e.data.u64() as usize);
            }
            if Instant::now() >= deadline {
                return Woke::Deadline;
            }
        }
    }
}

/// A descriptor that is readable when the process `pid` exits; `None` on kernels before 5.3,
/// which have no pidfds.
pub(super) fn pidfd(pid: u32) -> Option<OwnedFd> {
    let pid = Pid::from_raw(i32::try_from(pid).ok()?)?;
    pidfd_open(pid, PidfdFlags::empty()).ok()
}
