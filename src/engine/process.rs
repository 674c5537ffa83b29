//! The operating-system side of a bot: its own process group, piped stdin/stdout, stderr copied
//! to the player's capped log ([`BotLog`]) by a thread of its own, and stdout split into bounded
//! lines on the caller's thread, so that an answer costs one wait and one `read` ([`crate::sys`]:
//! no reader task, no channel, no runtime wake-up). Reads and writes block the calling thread (a
//! game slot's own); waiting for the process to end is async. Every live bot's pid is
//! registered ([`sys::spawn_registered`]), so that processes a bot left behind outside its
//! process group (a double fork, `setsid`), which the kernel re-parents to the arena (a child
//! subreaper), can be told apart and killed when a bot's life ends ([`kill_orphans`]). The
//! system calls themselves are in [`crate::sys`].

use std::io::Read;
use std::os::fd::{AsFd, OwnedFd};
use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::log::BotLog;
use super::{Fault, FaultKind, Program, StartError};
use crate::protocol::{LineBuffer, LineError, MAX_LINE_LEN};
use crate::sys::{self, pidfd, wait, Interest, LineWait, Stop, Woke};

pub use crate::sys::{arena_resource, become_subreaper, kill_live_bots, kill_orphans, parent_of};

/// How a start that failed on the arena's side ([`arena_resource`]) is tried again: the
/// tournament's starts and a ManKalah agent's per-game start alike (docs/tournament.md: three
/// times, 2 s apart), so that a short shortage heals the same way wherever it strikes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RetryPolicy {
    /// Tries after the first.
    pub retries: u32,
    /// The pause before each, after the orphans are killed.
    pub wait: std::time::Duration,
}

/// The one policy for the arena's own start failures.
pub const ARENA_RETRY: RetryPolicy = RetryPolicy {
    retries: 3,
    wait: std::time::Duration::from_secs(2),
};

/// How a bot process is wired besides its program: extra environment variables, whether its
/// stdout is the protocol (native, ManKalah) or chatter copied to its log (KGP talks over a
/// socket), and the run's [`Stop`] that ends its waits.
#[derive(Clone, Default)]
pub struct Wiring {
    pub env: Vec<(String, String)>,
    pub stdout_to_log: bool,
    pub stop: Option<Stop>,
    pub sandbox: Sandbox,
}

/// The opt-in sandbox of a bot (docs/tournament.md, "Sandbox"): the bot runs under bubblewrap
/// in namespaces of its own, so that it can neither see nor signal other processes (its
/// opponent's among them), nor write outside its own folder, nor open a network connection.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Sandbox {
    #[default]
    Off,
    /// Everything shut, the network too: a bot that talks over stdin and stdout.
    Closed,
    /// The host's network kept: a KGP agent must reach its driver's port on loopback.
    WithNetwork,
}

impl Sandbox {
    /// The sandbox of a player that asked for one (`on`), with the network a KGP agent needs.
    pub fn of(on: bool, needs_network: bool) -> Sandbox {
        match (on, needs_network) {
            (false, _) => Sandbox::Off,
            (true, false) => Sandbox::Closed,
            (true, true) => Sandbox::WithNetwork,
        }
    }
}

/// bubblewrap, Debian's package `bubblewrap`.
const BWRAP: &str = "bwrap";

/// The most memory (`RLIMIT_DATA`: heap and private mappings) a sandboxed bot may take.
const SANDBOX_MEMORY: u64 = 8 << 30;

/// The command that starts `program` (in `dir`, the bot's own folder, if given) inside the
/// sandbox: the whole file system read-only but `dir`, fresh `/dev` and `/proc`, and new user,
/// PID, IPC, UTS, cgroup and (unless `network`) network namespaces; bubblewrap dies with the
/// arena. The process group and the pipes are the same as a bot's without it.
fn sandboxed(program: &Program, dir: Option<&Path>, network: bool) -> Command {
    let mut cmd = Command::new(BWRAP);
    cmd.args(["--unshare-all", "--die-with-parent"]);
    if network {
        cmd.arg("--share-net");
    }
    cmd.args(["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]);
    if let Some(dir) = dir {
        cmd.arg("--bind").arg(dir).arg(dir).arg("--setenv");
        cmd.arg("TMPDIR").arg(dir);
    }
    cmd.arg("--");
    match program {
        Program::Exec { program, args } => cmd.arg(program).args(args),
        Program::Shell { command } => cmd.args(["/bin/sh", "-c"]).arg(command),
    };
    sys::limit_data(&mut cmd, SANDBOX_MEMORY);
    cmd
}

/// A spawned bot: the child, its stdin, and its stdout with the lines read from it so far.
pub struct BotProcess {
    child: Child,
    /// Both pipes are non-blocking; a read or write that would block waits in [`wait`].
    stdin: Option<OwnedFd>,
    /// The protocol stream; `None` once it ended (end of file, or a line too broken to go on).
    stdout: Option<OwnedFd>,
    /// Readable once the process has exited; `None` on the portable waits or where the kernel
    /// has no pidfds (then the exit is checked every [`EXIT_POLL`] of a wait).
    exit: Option<OwnedFd>,
    /// The wait for the next line (stdout, exit, stop), when stdout is the protocol.
    line_wait: Option<LineWait>,
    stop: Option<Stop>,
    lines: LineBuffer,
    chunk: Box<[u8]>,
    pid: Option<u32>,
    /// Reads the CPU time of the bot's process tree ([`BotProcess::cpu_time`]).
    cpu: Option<sys::CpuReader>,
    /// The CPU time at the last look, kept for after the process is reaped.
    cpu_seen: Option<Duration>,
}

/// How often a wait checks for the bot's exit when there is no pidfd to watch.
const EXIT_POLL: Duration = Duration::from_millis(10);

/// How long the lines a bot wrote just before exiting are waited for, and then its exit status.
const LAST_WORDS: Duration = Duration::from_millis(50);
const EXIT_STATUS_WAIT: Duration = Duration::from_millis(200);

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
        let mut cmd = match (program, wiring.sandbox) {
            (_, Sandbox::Closed | Sandbox::WithNetwork) => {
                sandboxed(program, dir, wiring.sandbox == Sandbox::WithNetwork)
            }
            (Program::Exec { program, args }, Sandbox::Off) => {
                let mut cmd = Command::new(program);
                cmd.args(args);
                cmd
            }
            (Program::Shell { command }, Sandbox::Off) => {
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
        cmd.process_group(0);
        let child = sys::spawn_registered(&mut cmd).map_err(|e| {
            if arena_resource(&e).is_some() {
                StartError::Arena {
                    program: program.display(),
                    error: e,
                }
            } else if wiring.sandbox != Sandbox::Off && e.kind() == std::io::ErrorKind::NotFound {
                StartError::Bot(Fault::new(
                    FaultKind::Spawn,
                    format!(
                        "cannot start `{}` in its sandbox: bubblewrap (`{BWRAP}`, Debian's \
                         package bubblewrap) is not installed",
                        program.display()
                    ),
                ))
            } else {
                StartError::Bot(Fault::new(
                    FaultKind::Spawn,
                    format!("cannot start `{}`: {e}", program.display()),
                ))
            }
        })?;
        let pid = child.id();
        let arena = |error| StartError::Arena {
            program: program.display(),
            error,
        };
        // From here on, an early return drops `process`, which kills the bot and forgets it.
        let mut process = BotProcess {
            exit: pid.and_then(pidfd),
            stdin: None,
            stdout: None,
            line_wait: None,
            stop: wiring.stop.clone(),
            lines: LineBuffer::with_max_len(MAX_LINE_LEN),
            chunk: vec![0; CHUNK].into_boxed_slice(),
            pid,
            cpu: pid.map(sys::CpuReader::new),
            cpu_seen: None,
            child,
        };
        if let Some(stdin) = process.child.stdin.take() {
            process.stdin = Some(non_blocking(stdin.into_owned_fd(), true).map_err(arena)?);
        }
        if let Some(stderr) = process.child.stderr.take() {
            let stderr = non_blocking(stderr.into_owned_fd(), false).map_err(arena)?;
            copy_to_log(stderr, log.clone()).map_err(arena)?;
        }
        if let Some(stdout) = process.child.stdout.take() {
            // The log's copier blocks in `read`; the protocol stream is waited for in a LineWait.
            let to_log = wiring.stdout_to_log;
            let stdout = non_blocking(stdout.into_owned_fd(), !to_log).map_err(arena)?;
            if to_log {
                copy_to_log(stdout, log.clone()).map_err(arena)?;
            } else {
                let exit = process.exit.as_ref().map(AsFd::as_fd);
                let line_wait = LineWait::new(stdout.as_fd(), exit, wiring.stop.as_ref());
                process.line_wait = Some(line_wait.map_err(arena)?);
                process.stdout = Some(stdout);
            }
        }
        Ok(process)
    }

    /// Writes `text` (whole lines, each ending in `\n`) in one write, so the bot wakes once.
    /// Blocks while the bot's stdin pipe is full (no deadline, as a bot that stops reading its
    /// input is caught by the time limit of the answer it owes) or until the run stops.
    pub fn write(&mut self, text: &str) -> Result<(), Fault> {
        let mut rest = text.as_bytes();
        while !rest.is_empty() {
            let stdin = self
                .stdin
                .as_ref()
                .ok_or_else(|| Fault::new(FaultKind::Io, "stdin already closed"))?;
            let e = match sys::write(stdin, rest) {
                Ok(n) => {
                    rest = &rest[n..];
                    continue;
                }
                Err(e) => e,
            };
            match e.kind() {
                std::io::ErrorKind::Interrupted => {}
                std::io::ErrorKind::WouldBlock => {
                    if wait(
                        &[Some(stdin.as_fd())],
                        Interest::Write,
                        None,
                        self.stop.as_ref(),
                    ) == Woke::Stopped
                    {
                        return Err(stopping());
                    }
                }
                _ => return Err(self.exit_fault(format!("cannot write to the bot: {e}"))),
            }
        }
        Ok(())
    }

    /// Closes the bot's stdin: end of input, for a program that reads to the end (a per-move
    /// program's board).
    pub fn close_stdin(&mut self) {
        self.stdin = None;
    }

    /// The next line from stdout, or the fault that prevents one before `deadline`. A bot that
    /// exits is a crash at once, even when a process it started still holds its stdout open.
    pub fn read_line(&mut self, deadline: Instant) -> Result<String, Fault> {
        loop {
            if let Some(line) = self.buffered() {
                return line;
            }
            let (Some(stdout), Some(line_wait)) = (&self.stdout, &self.line_wait) else {
                return Err(self.closed());
            };
            // Without a pidfd, the exit is looked at between short waits.
            let until = match self.exit {
                None => deadline.min(Instant::now() + EXIT_POLL),
                Some(_) => deadline,
            };
            let exit = self.exit.as_ref().map(AsFd::as_fd);
            match line_wait.wait(stdout.as_fd(), exit, until) {
                Woke::Ready(0) => {
                    if let Some(line) = self.read_more() {
                        return line;
                    }
                }
                Woke::Ready(_) => return self.last_words(),
                Woke::Stopped => return Err(stopping()),
                Woke::Deadline if Instant::now() >= deadline => {
                    return Err(Fault::new(FaultKind::Timeout, "no answer in time"))
                }
                Woke::Deadline => {
                    self.cpu_time();
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        return self.last_words();
                    }
                }
            }
        }
    }

    /// A line the bot already wrote, without waiting; `None` if there is none (yet).
    pub fn try_read_line(&mut self) -> Option<Result<String, Fault>> {
        if let Some(line) = self.buffered() {
            return Some(line);
        }
        self.stdout.as_ref()?;
        self.read_more()
    }

    /// One non-blocking read of stdout into the buffer, and the next line if one is complete.
    /// `None` when nothing is there yet (or no line is complete).
    fn read_more(&mut self) -> Option<Result<String, Fault>> {
        let stdout = self.stdout.as_ref()?;
        match sys::read(stdout, &mut self.chunk) {
            Err(e)
                if matches!(
                    e.kind(),
                    std::io::ErrorKind::WouldBlock | std::io::ErrorKind::Interrupted
                ) =>
            {
                None
            }
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

    /// The bot exited while a line was due: a line it wrote just before exiting is still owed
    /// to the caller; without one, the exit is a crash.
    fn last_words(&mut self) -> Result<String, Fault> {
        let until = Instant::now() + LAST_WORDS;
        while let Some(stdout) = self.stdout.as_ref() {
            if wait(&[Some(stdout.as_fd())], Interest::Read, Some(until), None) != Woke::Ready(0) {
                break;
            }
            if let Some(line) = self.read_more() {
                return line;
            }
        }
        Err(self.closed())
    }

    /// The fault once stdout has ended or the bot exited: a crash, with the exit status if it
    /// arrives within a moment.
    fn closed(&mut self) -> Fault {
        let until = Instant::now() + EXIT_STATUS_WAIT;
        loop {
            self.cpu_time();
            if let Ok(Some(status)) = self.child.try_wait() {
                return Fault::new(FaultKind::Crash, format!("exited ({status})"));
            }
            let exit = self.exit.as_ref().map(AsFd::as_fd);
            let step = match exit {
                Some(_) => until,
                None => until.min(Instant::now() + EXIT_POLL),
            };
            if Instant::now() >= until
                || wait(&[exit], Interest::Read, Some(step), self.stop.as_ref()) == Woke::Stopped
            {
                return Fault::new(FaultKind::Crash, "closed its stdout");
            }
        }
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
        self.cpu_time();
        match self.child.try_wait() {
            Ok(Some(status)) => Fault::new(FaultKind::Crash, format!("exited ({status})")),
            _ => Fault::new(FaultKind::Io, detail),
        }
    }

    /// Waits for the process to exit (no timeout: wrap it in one), then kills and reaps what
    /// is left of its group.
    pub async fn wait(&mut self) -> Option<std::process::ExitStatus> {
        self.stdin = None;
        self.cpu_time();
        let status = self.child.wait().await.ok();
        self.kill_group();
        if let Some(pid) = self.pid {
            sys::reap_group(pid).await;
        }
        self.forget();
        status
    }

    /// Kills the whole process group with SIGKILL and reaps the child.
    pub async fn kill(&mut self) {
        self.cpu_time();
        self.kill_group();
        let _ = self.child.start_kill();
        self.wait().await;
    }

    /// The CPU time the bot's process tree has used since it started ([`sys::tree_cpu`]): read
    /// now while the process is there (running, or exited and not yet reaped), else the last
    /// reading, which every reaping of the child is preceded by. `None` where the system does
    /// not say.
    pub fn cpu_time(&mut self) -> Option<Duration> {
        // The reader's files are the process's own: once it is reaped they read nothing, even
        // if its pid is reused.
        if let Some(cpu) = self.cpu.as_mut().and_then(sys::CpuReader::read) {
            self.cpu_seen = Some(cpu);
        }
        self.cpu_seen
    }

    /// The CPU time [`BotProcess::cpu_time`] read last, without reading it again.
    pub fn last_cpu_time(&self) -> Option<Duration> {
        self.cpu_seen
    }

    /// SIGKILL to the process group created at spawn (the bot and whatever it started in it).
    fn kill_group(&self) {
        if let Some(pid) = self.pid {
            sys::kill_group(pid);
        }
    }

    /// The process is gone: no longer a live bot, and what it left outside its group dies.
    fn forget(&mut self) {
        if let Some(pid) = self.pid.take() {
            sys::forget(pid);
        }
    }
}

impl Drop for BotProcess {
    fn drop(&mut self) {
        // kill_on_drop kills the leader; the group and the registry are ours to tidy.
        self.kill_group();
        self.forget();
    }
}

/// Starts a bot process during a game, where a failure can only be recorded as the bot's
/// forfeit (a ManKalah agent's per-game process, a per-move program's process): the arena's own
/// trouble (no file descriptors, memory or process slots) is retried as every start is
/// ([`ARENA_RETRY`]), since it is not the bot's fault.
pub async fn spawn_in_game(
    program: &Program,
    dir: Option<&Path>,
    log: &BotLog,
    wiring: &Wiring,
) -> Result<BotProcess, Fault> {
    let mut attempt = 0;
    loop {
        match BotProcess::spawn(program, dir, log, wiring) {
            Ok(process) => return Ok(process),
            Err(StartError::Arena { .. }) if attempt < ARENA_RETRY.retries => {
                attempt += 1;
                kill_orphans();
                tokio::time::sleep(ARENA_RETRY.wait).await;
            }
            Err(StartError::Bot(fault)) => return Err(fault),
            Err(other) => return Err(Fault::new(FaultKind::Spawn, other.to_string())),
        }
    }
}

/// `fd` (a pipe handed over by tokio, which may have made it blocking) with `O_NONBLOCK` set
/// (`on`) or cleared.
fn non_blocking(fd: std::io::Result<OwnedFd>, on: bool) -> std::io::Result<OwnedFd> {
    let fd = fd?;
    sys::set_nonblocking(&fd, on)?;
    Ok(fd)
}

/// The fault that ends a wait because the run is stopping. The game it interrupts is not
/// recorded (the worker sees the stop), so the kind only matters to the code in between.
fn stopping() -> Fault {
    Fault::new(FaultKind::Io, "the arena is stopping")
}

/// Copies stderr (or a KGP agent's stdout) to the player's log (which caps it) on a thread of
/// its own, to the end, so that the bot never blocks on a full pipe whatever the game slot's
/// thread is waiting for.
fn copy_to_log(pipe: OwnedFd, log: BotLog) -> std::io::Result<()> {
    let mut pipe = std::fs::File::from(pipe);
    std::thread::Builder::new()
        .name("bot-log".into())
        .spawn(move || {
            let mut chunk = vec![0u8; 8192];
            loop {
                match pipe.read(&mut chunk) {
                    Ok(0) => break,
                    Ok(n) => log.write(&chunk[..n]),
                    Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
                    Err(_) => break,
                }
            }
            log.flush();
        })
        .map(drop)
}
