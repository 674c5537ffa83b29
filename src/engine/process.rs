//! The operating-system side of a bot: its own process group, piped stdin/stdout, stderr copied
//! to the player's capped log ([`BotLog`]), and stdout split into bounded lines by the caller's
//! own task, so that an answer costs one wait and one read (no reader task, no channel). Every
//! live bot's pid is registered, so that processes a bot left behind outside its process group
//! (a double fork, `setsid`), which the kernel re-parents to the arena (a child subreaper), can
//! be told apart and killed when a bot's life ends ([`kill_orphans`]).

use std::collections::HashSet;
use std::path::Path;
use std::process::Stdio;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::unix::pipe;
use tokio::process::{Child, ChildStdin, Command};

use super::log::BotLog;
use super::{Fault, FaultKind, Program, StartError};
use crate::protocol::{LineBuffer, LineError, MAX_LINE_LEN};

/// The pids of the bot processes alive now (started, not yet reaped).
static LIVE: Mutex<Option<HashSet<u32>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashSet<u32>>> {
    LIVE.lock().unwrap_or_else(|e| e.into_inner())
}

/// Whether a failed `spawn` is the arena's own trouble (no file descriptors, memory or process
/// slots, a full disk) rather than the bot's (a missing or broken program).
fn arena_side(e: &std::io::Error) -> bool {
    matches!(
        e.raw_os_error(),
        Some(
            libc::EMFILE | libc::ENFILE | libc::ENOMEM | libc::EAGAIN | libc::ENOSPC | libc::EDQUOT
        )
    )
}

/// How a bot process is wired besides its program: extra environment variables, and whether its
/// stdout is the protocol (native, ManKalah) or chatter copied to its log (KGP talks over a
/// socket).
#[derive(Default)]
pub struct Wiring {
    pub env: Vec<(String, String)>,
    pub stdout_to_log: bool,
}

/// A spawned bot: the child, its stdin, and its stdout with the lines read from it so far.
pub struct BotProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    /// The protocol stream; `None` once it ended (end of file, or a line too broken to go on).
    stdout: Option<pipe::Receiver>,
    lines: LineBuffer,
    chunk: Box<[u8]>,
    pid: Option<u32>,
}

/// How much one read takes from a bot's stdout.
const CHUNK: usize = 8192;

/// The fault for a line that cannot be delivered; it ends the stream (the bot will be killed).
pub(super) fn line_fault(e: LineError) -> Fault {
    match e {
        LineError::TooLong { .. } => Fault::new(
            FaultKind::LineTooLong,
            format!("a line longer than {MAX_LINE_LEN} bytes"),
        ),
        LineError::InvalidUtf8 { .. } => Fault::new(FaultKind::Garbage, "output that is not UTF-8"),
        other => Fault::new(FaultKind::Garbage, other.to_string()),
    }
}

impl BotProcess {
    /// Starts the program in a new process group (so that killing the group also kills whatever
    /// the bot started) with stderr appended to `stderr_log`.
    pub fn spawn(
        program: &Program,
        dir: Option<&Path>,
        log: &BotLog,
        wiring: &Wiring,
    ) -> Result<BotProcess, StartError> {
        let mut cmd = match program {
            Program::Exec { program, args } => {
                let mut cmd = Command::new(program);
                cmd.args(args);
                cmd
            }
            Program::Shell { command } => {
                let mut cmd = Command::new("/bin/sh");
                cmd.arg("-c").arg(command);
                cmd
            }
        };
        if let Some(dir) = dir {
            if !dir.is_dir() {
                return Err(StartError::Bot(Fault::new(
                    FaultKind::Spawn,
                    format!("its working directory {} does not exist", dir.display()),
                )));
            }
            cmd.current_dir(dir);
        }
        cmd.envs(wiring.env.iter().map(|(k, v)| (k, v)));
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        // The registry stays locked from the fork to the record, so that `kill_orphans` on
        // another thread never takes a bot being born for an orphan.
        let mut registry = live();
        let mut child = cmd.spawn().map_err(|e| {
            if arena_side(&e) {
                StartError::Arena {
                    program: program.display(),
                    error: e,
                }
            } else {
                StartError::Bot(Fault::new(
                    FaultKind::Spawn,
                    format!("cannot start `{}`: {e}", program.display()),
                ))
            }
        })?;
        let pid = child.id();
        if let Some(pid) = pid {
            registry.get_or_insert_with(HashSet::new).insert(pid);
        }
        drop(registry);
        let stdin = child.stdin.take();
        let stdout = child.stdout.take();
        if let Some(stderr) = child.stderr.take() {
            tokio::spawn(copy_to_log(stderr, log.clone()));
        }
        let mut process = BotProcess {
            child,
            stdin,
            stdout: None,
            lines: LineBuffer::with_max_len(MAX_LINE_LEN),
            chunk: vec![0; CHUNK].into_boxed_slice(),
            pid,
        };
        if let Some(stdout) = stdout {
            if wiring.stdout_to_log {
                tokio::spawn(copy_to_log(stdout, log.clone()));
            } else {
                // Re-registered as a pipe, for `try_read` (the drain before a `go`). On failure
                // `process` is dropped, which kills the bot and forgets it.
                let receiver = stdout
                    .into_owned_fd()
                    .and_then(pipe::Receiver::from_owned_fd)
                    .map_err(|error| StartError::Arena {
                        program: program.display(),
                        error,
                    })?;
                process.stdout = Some(receiver);
            }
        }
        Ok(process)
    }

    /// Writes `text` (whole lines, each ending in `\n`) in one write, so the bot wakes once.
    pub async fn write(&mut self, text: &str) -> Result<(), Fault> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Fault::new(FaultKind::Io, "stdin already closed"))?;
        let write = async {
            stdin.write_all(text.as_bytes()).await?;
            stdin.flush().await
        };
        write
            .await
            .map_err(|e| self.exit_fault(format!("cannot write to the bot: {e}")))
    }

    /// The next line from stdout, or the fault that prevents one before `deadline`. A bot that
    /// exits is a crash at once, even when a process it started still holds its stdout open.
    pub async fn read_line(&mut self, deadline: Instant) -> Result<String, Fault> {
        if let Some(line) = self.buffered() {
            return line;
        }
        let deadline = tokio::time::sleep_until(tokio::time::Instant::from_std(deadline));
        tokio::pin!(deadline);
        loop {
            let Some(stdout) = self.stdout.as_mut() else {
                return Err(self.closed().await);
            };
            tokio::select! {
                biased;
                read = stdout.read(&mut self.chunk) => {
                    if let Some(line) = self.take_read(read) {
                        return line;
                    }
                }
                status = self.child.wait() => {
                    // Lines it wrote just before exiting are still owed to the caller.
                    let last = tokio::time::timeout(Duration::from_millis(50), self.rest());
                    if let Ok(Some(line)) = last.await {
                        return line;
                    }
                    return Err(Fault::new(FaultKind::Crash, match status {
                        Ok(status) => format!("exited ({status})"),
                        Err(e) => format!("exited ({e})"),
                    }));
                },
                _ = &mut deadline => {
                    return Err(Fault::new(FaultKind::Timeout, "no answer in time"));
                }
            }
        }
    }

    /// A line the bot already wrote, without waiting; `None` if there is none (yet). Costs no
    /// system call when the runtime has seen nothing new on the pipe.
    pub fn try_read_line(&mut self) -> Option<Result<String, Fault>> {
        if let Some(line) = self.buffered() {
            return Some(line);
        }
        let read = self.stdout.as_ref()?.try_read(&mut self.chunk);
        match read {
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => None,
            read => self.take_read(read),
        }
    }

    /// The next complete line in the buffer; a broken one ends the stream.
    fn buffered(&mut self) -> Option<Result<String, Fault>> {
        let line = self.lines.next_line()?;
        Some(line.map_err(|e| {
            self.stdout = None;
            self.lines = LineBuffer::with_max_len(MAX_LINE_LEN);
            line_fault(e)
        }))
    }

    /// Takes the result of one read of stdout into the buffer and returns the next line, if
    /// one is complete. End of file (or a read error) ends the stream, completing a last line
    /// that has no line end.
    fn take_read(&mut self, read: std::io::Result<usize>) -> Option<Result<String, Fault>> {
        match read {
            Ok(n) if n > 0 => {
                self.lines.push(&self.chunk[..n]);
                self.buffered()
            }
            _ => {
                self.stdout = None;
                self.lines.finish().map(|line| line.map_err(line_fault))
            }
        }
    }

    /// Reads what is left on stdout until a line is complete or the stream ends.
    async fn rest(&mut self) -> Option<Result<String, Fault>> {
        while let Some(stdout) = self.stdout.as_mut() {
            let read = stdout.read(&mut self.chunk).await;
            if let Some(line) = self.take_read(read) {
                return Some(line);
            }
        }
        None
    }

    /// The fault once stdout has ended: the bot exited or closed it. The exit status gets a
    /// moment to arrive.
    async fn closed(&mut self) -> Fault {
        let status = tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await;
        let detail = match status {
            Ok(Ok(status)) => format!("exited ({status})"),
            _ => "closed its stdout".to_string(),
        };
        Fault::new(FaultKind::Crash, detail)
    }

    /// Waits until the process exits and says how (for drivers that read the bot elsewhere
    /// than on its stdout).
    pub async fn exited(&mut self) -> String {
        match self.child.wait().await {
            Ok(status) => format!("exited ({status})"),
            Err(e) => format!("exited ({e})"),
        }
    }

    fn exit_fault(&mut self, detail: String) -> Fault {
        match self.child.try_wait() {
            Ok(Some(status)) => Fault::new(FaultKind::Crash, format!("exited ({status})")),
            _ => Fault::new(FaultKind::Io, detail),
        }
    }

    /// Waits for the process to exit (no timeout: wrap it in one).
    pub async fn wait(&mut self) -> Option<std::process::ExitStatus> {
        self.stdin = None;
        let status = self.child.wait().await.ok();
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // SAFETY: kill(2) on the process group created at spawn; ESRCH is fine.
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
            }
            reap_group(pid).await;
        }
        self.forget();
        status
    }

    /// Kills the whole process group with SIGKILL and reaps the child.
    pub async fn kill(&mut self) {
        self.stdin = None;
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            // SAFETY: kill(2) with a negative pid signals the process group we created at spawn;
            // it has no memory-safety preconditions. ESRCH (already gone) is fine.
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
            }
        }
        let _ = self.child.start_kill();
        let _ = self.child.wait().await;
        #[cfg(unix)]
        if let Some(pid) = self.pid {
            reap_group(pid).await;
        }
        self.forget();
    }

    /// The process is gone: no longer a live bot, and what it left outside its group dies.
    fn forget(&mut self) {
        if let Some(pid) = self.pid.take() {
            if let Some(set) = live().as_mut() {
                set.remove(&pid);
            }
            kill_orphans();
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        if let Some(pid) = self.pid {
            // kill_on_drop kills the leader; the group and the registry are ours to tidy.
            // SAFETY: kill(2) on the process group created at spawn; no memory preconditions.
            #[cfg(unix)]
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
            }
        }
        self.forget();
    }
}

/// Kills the processes the kernel re-parented to the arena that are not bots it started:
/// whatever a bot left behind outside its process group (a double fork, a `setsid` daemon),
/// and reaps them. Linux only (`/proc`); elsewhere a no-op.
pub fn kill_orphans() {
    #[cfg(target_os = "linux")]
    {
        // SAFETY: getpid has no preconditions.
        let me = unsafe { libc::getpid() } as u32;
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
            // SAFETY: signals and waitpid on a process that is our child; no memory is shared.
            unsafe {
                libc::kill(-(pid as libc::pid_t), libc::SIGKILL);
                libc::kill(pid as libc::pid_t, libc::SIGKILL);
                for _ in 0..50 {
                    let mut status = 0;
                    if libc::waitpid(pid as libc::pid_t, &mut status, libc::WNOHANG) != 0 {
                        break;
                    }
                    std::thread::sleep(Duration::from_millis(1));
                }
            }
        }
    }
}

/// The parent pid of `pid`, from `/proc/PID/stat` (the field after the command name).
#[cfg(target_os = "linux")]
pub fn parent_of(pid: u32) -> Option<u32> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    let after_name = &stat[stat.rfind(')')? + 1..];
    after_name.split_whitespace().nth(1)?.parse().ok()
}

/// Makes this process the reaper of orphaned descendants (Linux), so that a bot's own children,
/// killed with its process group, are reaped by [`reap_group`] instead of lingering as zombies
/// under an init that may not reap. Elsewhere a no-op.
pub fn become_subreaper() {
    #[cfg(target_os = "linux")]
    // SAFETY: prctl(PR_SET_CHILD_SUBREAPER, 1) only sets a flag on this process.
    unsafe {
        libc::prctl(libc::PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    }
}

/// Reaps whatever is left of a killed process group whose members were re-parented to us.
/// Called only after the group leader itself has been reaped by tokio.
#[cfg(unix)]
async fn reap_group(pgid: u32) {
    let deadline = Instant::now() + Duration::from_secs(1);
    loop {
        let mut status = 0;
        // SAFETY: waitpid on our own process group with WNOHANG; `status` is a valid out-pointer.
        let r = unsafe { libc::waitpid(-(pgid as libc::pid_t), &mut status, libc::WNOHANG) };
        if r > 0 {
            continue;
        }
        if r < 0 || Instant::now() >= deadline {
            return; // ECHILD: nothing of that group is our child any more
        }
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

/// Copies stderr (or a KGP agent's stdout) to the player's log (which caps it) and drains it to
/// the end, so the bot never blocks on a full pipe.
async fn copy_to_log<R>(mut stderr: R, log: BotLog)
where
    R: tokio::io::AsyncRead + Unpin,
{
    let mut chunk = vec![0u8; 8192];
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => log.write(&chunk[..n]),
        }
    }
    log.flush();
}
