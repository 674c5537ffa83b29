//! The operating-system side of the harness, behind one small interface: every system call the
//! arena makes itself (tokio and std make their own) is in this module, through `rustix`'s safe
//! wrappers, so that `engine`, `tournament` and `run_folder` hold no FFI and no `unsafe`.
//!
//! # The interface
//!
//! - Waits on a bot's descriptors, each with a deadline and the run's [`Stop`]: [`LineWait`] (a
//!   bot's next line, the hot path) and [`wait`] (any few descriptors, off it); [`pidfd`], a
//!   descriptor readable when a bot exits, where the wait can watch one.
//! - Descriptors: [`read`], [`write`], [`set_nonblocking`], [`try_lock_exclusive`].
//! - Files: [`open_no_follow`] (a run folder's files: no link followed, no wait on a FIFO), with
//!   [`NotAFile`] saying what was there instead, [`not_a_file`], and [`is_disk_full`].
//! - Processes: [`new_session`], [`kill_group`], [`reap_group`], the registry of live bots
//!   ([`spawn_registered`], [`forget`]) and [`kill_orphans`]; [`prepare_process`] for what a
//!   process that runs bots must do once; [`connection_held_by`], whose process holds a
//!   loopback connection (Linux `/proc`).
//! - Errors: [`arena_resource`] and [`out_of_open_files`] tell the arena's own trouble from a
//!   bot's.
//!
//! # Two implementations of the waits
//!
//! [`Backend::Epoll`] (Linux, `linux.rs`): an eventfd for the stop, an epoll set made once per
//! bot for its line waits, a pidfd (Linux 5.3 on) for its exit. [`Backend::Poll`] (every Unix,
//! `portable.rs`): a self-pipe for the stop, one `poll(2)` of stdout and the stop per line wait,
//! and no pidfd, so the bot's exit is seen by looking at it (`waitpid(WNOHANG)`) every 10 ms of
//! a wait and by its stdout closing. Both give the same answers; they differ in cost (a `poll`
//! hands the kernel its list every time) and in how soon an exit that leaves stdout open is
//! seen (at once, or within 10 ms). Linux uses epoll unless `MANCALA_ARENA_WAIT=poll`
//! ([`WAIT_ENV`]), which the test suite sets to run the harness tests on the portable path too;
//! other Unix systems have only the portable one.
//!
//! # Once per process: [`prepare_process`]
//!
//! A process that runs bots calls [`prepare_process`] once before its first bot, for two reasons:
//! it makes the process the reaper of orphaned descendants (Linux), so that what a bot leaves
//! behind outside its process group (a double fork, `setsid`) is re-parented to the arena,
//! which can then kill and reap it ([`kill_orphans`]); without it such processes outlive the run
//! under init. And it raises the open-file limit, which bounds how many bots can be alive at once.
//! The registry of live bots needs no setup, but it has a precondition of its own: in a process
//! that runs bots, every child process must be started through [`spawn_registered`], because
//! [`kill_orphans`] kills every other child it finds as a bot's leftover.

mod cpu;
#[cfg(target_os = "linux")]
mod linux;
mod portable;
mod process;
mod sockets;
mod unix;

use std::os::fd::{BorrowedFd, OwnedFd};
use std::sync::{Arc, OnceLock};
use std::time::Instant;

pub use cpu::{load_average, tree_cpu, CpuReader};
pub use process::{
    arena_resource, become_subreaper, forget, kill_group, kill_live_bots, kill_orphans, limit_data,
    new_session, out_of_open_files, parent_of, prepare_process, process_alive,
    raise_open_file_limit, reap_group, spawn_registered,
};
pub use sockets::connection_held_by;
pub use unix::{
    is_disk_full, not_a_file, open_no_follow, read, set_nonblocking, try_lock_exclusive, wait,
    write, Interest, NotAFile,
};

/// The environment variable that selects the implementation of the waits on Linux: `poll` for
/// the portable one; unset, empty or anything else for epoll.
pub const WAIT_ENV: &str = "MANCALA_ARENA_WAIT";

/// Which implementation of the waits a process uses (chosen once, [`backend`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Backend {
    /// eventfd, epoll and pidfds (Linux only).
    #[cfg(target_os = "linux")]
    Epoll,
    /// A self-pipe and `poll(2)`, with the bot's exit looked at every few milliseconds.
    Poll,
}

impl Backend {
    /// The one `value` of [`WAIT_ENV`] selects.
    fn from_env(value: Option<&str>) -> Backend {
        #[cfg(target_os = "linux")]
        if value != Some("poll") {
            return Backend::Epoll;
        }
        let _ = value;
        Backend::Poll
    }
}

/// The implementation this process uses, read from [`WAIT_ENV`] at the first call: every
/// [`Stop`] and [`LineWait`] of a run must be of the same kind (a line wait watches its stop's
/// descriptor).
pub fn backend() -> Backend {
    static CHOSEN: OnceLock<Backend> = OnceLock::new();
    *CHOSEN.get_or_init(|| Backend::from_env(std::env::var(WAIT_ENV).ok().as_deref()))
}

/// What ended a wait.
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

/// The run is stopping (a signal, an SPRT decision, an error): every wait on a bot in any slot
/// ends at once. A descriptor that becomes readable once triggered and stays so; cloning
/// shares it.
#[derive(Clone, Debug)]
pub struct Stop(Arc<StopFd>);

#[derive(Debug)]
enum StopFd {
    #[cfg(target_os = "linux")]
    Event(linux::EventStop),
    Pipe(portable::PipeStop),
}

impl Stop {
    /// A stop of this process's [`backend`].
    pub fn new() -> std::io::Result<Stop> {
        Stop::of(backend())
    }

    fn of(backend: Backend) -> std::io::Result<Stop> {
        Ok(Stop(Arc::new(match backend {
            #[cfg(target_os = "linux")]
            Backend::Epoll => StopFd::Event(linux::EventStop::new()?),
            Backend::Poll => StopFd::Pipe(portable::PipeStop::new()?),
        })))
    }

    /// Ends every wait watching this stop, now and from now on.
    pub fn trigger(&self) {
        match &*self.0 {
            #[cfg(target_os = "linux")]
            StopFd::Event(stop) => stop.trigger(),
            StopFd::Pipe(stop) => stop.trigger(),
        }
    }

    /// The descriptor the waits watch: readable once triggered.
    fn fd(&self) -> BorrowedFd<'_> {
        match &*self.0 {
            #[cfg(target_os = "linux")]
            StopFd::Event(stop) => stop.fd(),
            StopFd::Pipe(stop) => stop.fd(),
        }
    }
}

/// The wait for a bot's next line, set up once per bot: its stdout (index 0), its exit
/// (index 1, a [`pidfd`]) and the run's stop.
pub struct LineWait(LineImpl);

enum LineImpl {
    #[cfg(target_os = "linux")]
    Epoll(linux::EpollWait),
    Poll(portable::PollWait),
}

impl LineWait {
    /// A line wait of this process's [`backend`].
    pub fn new(
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        stop: Option<&Stop>,
    ) -> std::io::Result<LineWait> {
        LineWait::of(backend(), stdout, exit, stop)
    }

    // Elsewhere than on Linux the portable wait takes the descriptors only when it waits.
    #[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
    fn of(
        backend: Backend,
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        stop: Option<&Stop>,
    ) -> std::io::Result<LineWait> {
        Ok(LineWait(match backend {
            #[cfg(target_os = "linux")]
            Backend::Epoll => LineImpl::Epoll(linux::EpollWait::new(stdout, exit, stop)?),
            Backend::Poll => LineImpl::Poll(portable::PollWait::new(stop)),
        }))
    }

    /// Waits until stdout is readable (`Ready(0)`: a line, the end of the stream or an error),
    /// the bot exits (`Ready(1)`), `deadline` passes or the run stops. `stdout` and `exit` are
    /// the descriptors given to [`LineWait::new`]: the epoll set holds them already, a `poll`
    /// needs them each time (taking them here keeps the portable wait from owning copies).
    pub fn wait(
        &self,
        stdout: BorrowedFd<'_>,
        exit: Option<BorrowedFd<'_>>,
        deadline: Instant,
    ) -> Woke {
        match &self.0 {
            #[cfg(target_os = "linux")]
            LineImpl::Epoll(waiter) => waiter.wait(deadline),
            LineImpl::Poll(waiter) => waiter.wait(stdout, exit, deadline),
        }
    }
}

/// A descriptor that is readable when the process `pid` exits, if this process's [`backend`]
/// watches exits that way (epoll, on Linux 5.3 and later); `None` otherwise, and the caller
/// then looks at the exit every few milliseconds of a wait.
#[cfg_attr(not(target_os = "linux"), allow(unused_variables))]
pub fn pidfd(pid: u32) -> Option<OwnedFd> {
    match backend() {
        #[cfg(target_os = "linux")]
        Backend::Epoll => linux::pidfd(pid),
        Backend::Poll => None,
    }
}

#[cfg(test)]
mod tests;
