//! Processes: the registry of live bots, their process groups, the orphans they leave, and what
//! a process that runs bots does once ([`prepare_process`]).

use std::collections::HashSet;
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use rustix::io::Errno;
use rustix::process::{
    getpid, getrlimit, kill_process, kill_process_group, setrlimit, test_kill_process, waitpgid,
    waitpid, Pid, Resource, Rlimit, Signal, WaitOptions,
};
use tokio::process::{Child, Command};

/// The pids of the bot processes alive now (started, not yet forgotten).
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a process that runs bots does once, before its first bot (the module notes, "Once per
/// process"): becomes the reaper of orphaned descendants and raises the open-file limit.
/// Returns the open-file limit now in force. Later calls do nothing and return the same.
pub fn prepare_process() -> u64 {
    static PREPARED: OnceLock<u64> = OnceLock::new();
    *PREPARED.get_or_init(|| {
        become_subreaper();
        raise_open_file_limit()
    })
}

/// Makes this process the reaper of orphaned descendants (Linux `PR_SET_CHILD_SUBREAPER`), so
/// that a bot's own children, killed with its process group, are reaped by [`reap_group`], and
/// what it left outside its group is found by [`kill_orphans`], instead of lingering under an
/// init that may not reap. Elsewhere it does nothing: such processes are re-parented to init,
/// those outside the bot's group outlive it, and init reaps the rest (the README, "Platforms").
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    let _ = rustix::process::set_child_subreaper(Some(getpid()));
}

/// Raises the soft limit of open files to the hard one (a bot costs the arena three pipes and,
/// with epoll, a pidfd and an epoll set); returns the limit now in force (`u64::MAX`:
/// unlimited).
pub fn raise_open_file_limit() -> u64 {
    let limit = getrlimit(Resource::Nofile);
    let current = limit.current.unwrap_or(u64::MAX);
    let maximum = limit.maximum.unwrap_or(u64::MAX);
    if current < maximum {
        let raised = Rlimit {
            current: limit.maximum,
            maximum: limit.maximum,
        };
        if setrlimit(Resource::Nofile, raised).is_ok() {
            return maximum;
        }
    }
    current
}

/// Set once the process is stopping with bots still starting: no bot may be born after that.
static CLOSED: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Spawns `cmd` and records its pid as a live bot, with the registry locked from the fork to
/// the record, so that [`kill_orphans`] on another thread never takes a bot being born for an
/// orphan. Every child of a process that runs bots must be started this way. On Linux the
/// child dies with the thread that started it ([`die_with_parent`]); after
/// [`kill_live_bots`], nothing is started.
pub fn spawn_registered(cmd: &mut Command) -> std::io::Result<Child> {
    let mut registry = live();
    if CLOSED.load(std::sync::atomic::Ordering::SeqCst) {
        return Err(std::io::Error::other(
            "the arena is stopping: no more bots start",
        ));
    }
    die_with_parent(cmd);
    let child = cmd.spawn()?;
    if let Some(pid) = child.id() {
        registry.get_or_insert_with(HashSet::new).insert(pid);
    }
    Ok(child)
}

/// Kills the process group of every live bot and lets no more start: for a process that stops
/// while bots are still being started on threads it will not wait for (a signal during the
/// start), so that none outlives it.
pub fn kill_live_bots() {
    let registry = live();
    CLOSED.store(true, std::sync::atomic::Ordering::SeqCst);
    for &pid in registry.iter().flatten() {
        kill_group(pid);
    }
}

/// Starts the process `cmd` starts in a session of its own (`setsid` between fork and exec): it
/// has no controlling terminal, so it can neither open `/dev/tty` nor push keystrokes into the
/// terminal the arena was started from (`TIOCSTI`), and it leads a process group of its own,
/// numbered as its pid, which is killed with it.
pub fn new_session(cmd: &mut Command) {
    // SAFETY: one system call; it allocates nothing and takes no lock, as a `pre_exec` closure
    // must not (it runs between fork and exec).
    unsafe {
        cmd.pre_exec(|| {
            rustix::process::setsid()?;
            Ok(())
        });
    }
}

/// Limits the data (heap and private mappings, `RLIMIT_DATA`) of the process `cmd` starts to
/// `bytes`, set between fork and exec so that what it execs inherits it.
pub fn limit_data(cmd: &mut Command, bytes: u64) {
    // SAFETY: one system call; it allocates nothing and takes no lock, as a `pre_exec` closure
    // must not (it runs between fork and exec).
    unsafe {
        cmd.pre_exec(move || {
            let limit = Rlimit {
                current: Some(bytes),
                maximum: Some(bytes),
            };
            setrlimit(Resource::Data, limit)?;
            Ok(())
        });
    }
}

/// Linux: the child gets SIGKILL when the thread that started it ends (`PR_SET_PDEATHSIG`), so
/// that even `kill -9` of the arena ends bots that ignore the end of their input. Bots are
/// started on the game slots' threads, which outlive them. (Only the bot itself: what it
/// starts is killed with its process group, or found as an orphan, while the arena lives.)
fn die_with_parent(cmd: &mut Command) {
    #[cfg(target_os = "linux")]
    {
        let parent = getpid();
        // SAFETY: the closure makes two system calls; it allocates nothing and takes no lock,
        // as a `pre_exec` closure must not (it runs between fork and exec).
        unsafe {
            cmd.pre_exec(move || {
                rustix::process::set_parent_process_death_signal(Some(Signal::KILL))?;
                // The parent died before the signal was armed: nobody will send it. (An
                // error from here fails the spawn; it is made without allocating.)
                if rustix::process::getppid() != Some(parent) {
                    return Err(std::io::Error::from_raw_os_error(
                        Errno::SRCH.raw_os_error(),
                    ));
                }
                Ok(())
            });
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = cmd;
}

/// The bot `pid` is gone (reaped, or about to be killed with its child handle): no longer a
/// live bot, and what it left outside its group dies ([`kill_orphans`]).
pub fn forget(pid: u32) {
    if let Some(set) = live().as_mut() {
        set.remove(&pid);
    }
    kill_orphans();
}

fn pid_of(pid: u32) -> Option<Pid> {
    Pid::from_raw(i32::try_from(pid).ok()?)
}

/// Whether a process of this pid exists (`kill(pid, 0)`: alive unless `ESRCH`), for a run
/// folder whose recorded writer may have been killed.
pub fn process_alive(pid: u32) -> bool {
    match pid_of(pid) {
        Some(pid) => !matches!(test_kill_process(pid), Err(Errno::SRCH)),
        None => false,
    }
}

/// SIGKILL to the process group `pgid` (a bot and whatever it started in its group). A group
/// already gone is fine.
pub fn kill_group(pgid: u32) {
    if let Some(pgid) = pid_of(pgid) {
        let _ = kill_process_group(pgid, Signal::KILL);
    }
}

/// Reaps whatever is left of the killed process group `pgid` whose members were re-parented to
/// us, for at most a second. Called only after the group leader itself has been reaped.
pub async fn reap_group(pgid: u32) {
    let Some(pgid) = pid_of(pgid) else {
        return;
    };
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        match waitpgid(pgid, WaitOptions::NOHANG) {
            Ok(Some(_)) => continue,
            // ECHILD: nothing of that group is our child any more.
            Err(_) => return,
            Ok(None) if Instant::now() >= deadline => return,
            Ok(None) => tokio::time::sleep(Duration::from_millis(5)).await,
        }
    }
}

/// Kills the processes the kernel re-parented to the arena that are not bots it started:
/// whatever a bot left behind outside its process group (a double fork, a `setsid` daemon),
/// and reaps them. They are found through `/proc`, and are re-parented to the arena only where
/// it is a subreaper ([`become_subreaper`]): elsewhere this finds nothing.
pub fn kill_orphans() {
    let me = getpid().as_raw_nonzero().get() as u32;
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    let registry = live();
    let live = registry.as_ref().cloned().unwrap_or_default();
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|n| n.parse::<u32>().ok())
        else {
            continue;
        };
        if live.contains(&pid) || parent_of(pid) != Some(me) {
            continue;
        }
        let Some(orphan) = pid_of(pid) else {
            continue;
        };
        let _ = kill_process_group(orphan, Signal::KILL);
        let _ = kill_process(orphan, Signal::KILL);
        for _ in 0..50 {
            if !matches!(waitpid(Some(orphan), WaitOptions::NOHANG), Ok(None)) {
                break;
            }
            std::thread::sleep(Duration::from_millis(1));
        }
    }
}

/// The parent pid of `pid`, from `/proc/PID/stat` (the field after the command name); `None`
/// where there is no such file (the process is gone, or the system has no Linux `/proc`).
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// What the arena ran out of when a call failed with `e`, if that is the arena's own trouble (no
/// file descriptors, memory or process slots, a full disk) rather than the bot's (a missing or
/// broken program).
pub fn arena_resource(e: &std::io::Error) -> Option<&'static str> {
    Some(match Errno::from_io_error(e)? {
        Errno::MFILE => "open files",
        Errno::NFILE => "open files (the system's limit)",
        Errno::NOMEM => "memory",
        Errno::AGAIN => "processes or threads",
        Errno::NOSPC => "disk space",
        Errno::DQUOT => "disk quota",
        _ => return None,
    })
}

/// Whether `e` is this process running out of file descriptors (`EMFILE`, which `ulimit -n`
/// raises), rather than the system.
pub fn out_of_open_files(e: &std::io::Error) -> bool {
    Errno::from_io_error(e) == Some(Errno::MFILE)
}
