//! The blocking waits on a bot, on the thread of the game slot that owns it: for its next line
//! ([`LineWait`], one `epoll_wait` on a set made once per bot) and, off the hot path, for any
//! few descriptors ([`wait`], a `poll(2)`), each with a deadline and the run's [`Stop`].
//!
//! A run plays each concurrent game on a thread of its own (docs/tournament.md, "Game slots"),
//! so waiting for a bot's answer costs one `epoll_wait` and one `read`, with no runtime wake-up,
//! timer registration or task hand-off in between (issue 20). What must end a wait early is in
//! the same wait: the bot's exit (a pidfd), and the run stopping (an eventfd every slot watches).

use std::os::fd::{AsFd, AsRawFd, BorrowedFd, FromRawFd, OwnedFd};
use std::sync::Arc;
use std::time::Instant;

/// The run is stopping (a signal, an SPRT decision, an error): every wait on a bot in any slot
/// ends at once. An eventfd that is set once and stays set; cloning shares it.
#[derive(Clone, Debug)]
pub struct Stop(Arc<OwnedFd>);

impl Stop {
    pub fn new() -> std::io::Result<Stop> {
        // SAFETY: eventfd(2) with no pointer arguments; the result is checked before use.
        let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: `fd` is a new descriptor that nothing else owns.
        Ok(Stop(Arc::new(unsafe { OwnedFd::from_raw_fd(fd) })))
    }

    /// Ends every wait watching this stop, now and from now on.
    pub fn trigger(&self) {
        let one: u64 = 1;
        // SAFETY: write(2) of 8 bytes from a live u64 to our own eventfd. The counter only
        // saturates after 2^64 − 2 triggers, and a failed write leaves it set anyway.
        unsafe {
            libc::write(
                self.0.as_raw_fd(),
                (&one as *const u64).cast(),
                std::mem::size_of::<u64>(),
            );
        }
    }

    fn fd(&self) -> BorrowedFd<'_> {
        self.0.as_fd()
    }
}

/// What ended a [`wait`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Woke {
    /// The descriptor at this index of the list is ready (readable, or writable when waiting
    /// to write; a hang-up or an error counts as ready: the read or write says which).
    Ready(usize),
    /// The deadline passed.
    Deadline,
    /// The run is stopping.
    Stopped,
}

/// Waits until one of `fds` is ready for `events` (`libc::POLLIN` or `libc::POLLOUT`), the
/// `deadline` passes (`None`: no deadline), or `stop` is triggered. `EINTR` is retried with
/// the time that is left. Errors of `poll` itself (none expected with valid descriptors) end
/// the wait as if the deadline had passed.
pub fn wait(
    fds: &[Option<BorrowedFd<'_>>],
    events: libc::c_short,
    deadline: Option<Instant>,
    stop: Option<&Stop>,
) -> Woke {
    // At most three descriptors and the stop, on the stack.
    let mut polled = [libc::pollfd {
        fd: -1,
        events: 0,
        revents: 0,
    }; 4];
    assert!(
        fds.len() < polled.len(),
        "wait takes at most three descriptors"
    );
    for (slot, fd) in polled.iter_mut().zip(fds) {
        // A negative descriptor is ignored by poll(2): an absent one takes its place.
        slot.fd = fd.as_ref().map_or(-1, AsRawFd::as_raw_fd);
        slot.events = events;
    }
    let stop_slot = fds.len();
    if let Some(stop) = stop {
        polled[stop_slot].fd = stop.fd().as_raw_fd();
        polled[stop_slot].events = libc::POLLIN;
    }
    loop {
        let timeout = deadline.map_or(-1, timeout_ms);
        // SAFETY: poll(2) on an array we own, of the length we pass.
        let n = unsafe { libc::poll(polled.as_mut_ptr(), stop_slot as libc::nfds_t + 1, timeout) };
        if n < 0 {
            if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Woke::Deadline;
        }
        if polled[stop_slot].revents != 0 {
            return Woke::Stopped;
        }
        if let Some(i) = polled[..stop_slot].iter().position(|p| p.revents != 0) {
            return Woke::Ready(i);
        }
        if deadline.is_some_and(|d| Instant::now() >= d) {
            return Woke::Deadline;
        }
    }
}

/// The wait for a bot's next line, set up once per bot: an epoll instance watching its stdout
/// (index 0), its exit (index 1) and the run's stop, so that each wait is a single `epoll_wait`
/// with nothing to register or unregister (what a `poll` of three descriptors costs every time).
pub struct LineWait {
    epoll: OwnedFd,
}

/// The epoll tags of [`LineWait`]'s descriptors.
const TAG_STOP: u64 = u64::MAX;

impl LineWait {
    pub fn new(
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        stop: Option<&Stop>,
    ) -> std::io::Result<LineWait> {
        // SAFETY: epoll_create1(2) with no pointer arguments; the result is checked before use.
        let fd = unsafe { libc::epoll_create1(libc::EPOLL_CLOEXEC) };
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        // SAFETY: a descriptor epoll_create1 just returned is ours alone.
        let waiter = LineWait {
            epoll: unsafe { OwnedFd::from_raw_fd(fd) },
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
        let mut event = libc::epoll_event {
            events: libc::EPOLLIN as u32,
            u64: tag,
        };
        // SAFETY: epoll_ctl(2) on our epoll instance with a live event struct.
        let r = unsafe {
            libc::epoll_ctl(
                self.epoll.as_raw_fd(),
                libc::EPOLL_CTL_ADD,
                fd.as_raw_fd(),
                &mut event,
            )
        };
        if r == 0 {
            Ok(())
        } else {
            Err(std::io::Error::last_os_error())
        }
    }

    /// Waits until stdout is readable (`Ready(0)`: a line, the end of the stream or an error),
    /// the bot exits (`Ready(1)`), `deadline` passes or the run stops.
    pub fn wait(&self, deadline: Instant) -> Woke {
        let mut events = [libc::epoll_event { events: 0, u64: 0 }; 3];
        loop {
            // SAFETY: epoll_wait(2) into an array we own, of the length we pass.
            let n = unsafe {
                libc::epoll_wait(
                    self.epoll.as_raw_fd(),
                    events.as_mut_ptr(),
                    events.len() as i32,
                    timeout_ms(deadline),
                )
            };
            if n < 0 {
                if std::io::Error::last_os_error().kind() == std::io::ErrorKind::Interrupted {
                    continue;
                }
                return Woke::Deadline;
            }
            let ready = &events[..n as usize];
            if ready.iter().any(|e| e.u64 == TAG_STOP) {
                return Woke::Stopped;
            }
            if let Some(e) = ready.iter().min_by_key(|e| e.u64) {
                return Woke::Ready(e.u64 as usize);
            }
            if Instant::now() >= deadline {
                return Woke::Deadline;
            }
        }
    }
}

/// The milliseconds left until `deadline` for poll(2) or epoll_wait(2), rounded up so that a
/// wait never ends before its deadline.
fn timeout_ms(deadline: Instant) -> i32 {
    let left = deadline.saturating_duration_since(Instant::now());
    left.as_micros().div_ceil(1000).min(i32::MAX as u128) as i32
}

/// A descriptor that is readable when the process `pid` exits; `None` on kernels before 5.3,
/// which have no pidfds, and the caller then watches the exit some other way.
pub fn pidfd(pid: u32) -> Option<OwnedFd> {
    // SAFETY: pidfd_open(2) with no pointer arguments; the result is checked before use.
    let fd =
        unsafe { libc::syscall(libc::SYS_pidfd_open, pid as libc::pid_t, 0) } as std::os::fd::RawFd;
    // SAFETY: a descriptor pidfd_open just returned is ours alone.
    (fd >= 0).then(|| unsafe { OwnedFd::from_raw_fd(fd) })
}
