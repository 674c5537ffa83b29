//! The operating-system side of a bot: its own session and process group (no controlling
//! terminal), its walls ([`Walls`]: the sandbox, a memory limit), piped stdin/stdout, stderr copied
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
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::process::{Child, Command};

use super::log::BotLog;
use super::{BotSpec, Fault, FaultKind, Program, StartError};
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
/// socket), the run's [`Stop`] that ends its waits, and its walls.
#[derive(Clone, Default)]
pub struct Wiring {
    pub env: Vec<(String, String)>,
    pub stdout_to_log: bool,
    pub stop: Option<Stop>,
    pub walls: Walls,
}

/// What a player asked of its bot's walls (docs/tournament.md, "Sandbox"): the sandbox, and
/// the most memory its processes may each take (`memory=`; the sandbox's default otherwise).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Walls {
    pub sandbox: Sandbox,
    pub memory: Option<u64>,
}

impl Walls {
    /// The walls of `spec`'s bot; `network`: a sandboxed bot keeps the host's network (a KGP
    /// agent must reach its driver's port).
    pub fn of(spec: &BotSpec, network: bool) -> Walls {
        Walls {
            sandbox: Sandbox::of(spec.sandbox, network),
            memory: spec.memory,
        }
    }

    /// The `RLIMIT_DATA` of the bot's processes: the player's, or the sandbox's default.
    fn memory_limit(&self) -> Option<u64> {
        match self.sandbox {
            Sandbox::Off => self.memory,
            _ => Some(self.memory.unwrap_or(SANDBOX_MEMORY)),
        }
    }
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

/// The most memory (`RLIMIT_DATA`: heap and private mappings) a sandboxed bot may take unless
/// its player says (`memory=`).
pub const SANDBOX_MEMORY: u64 = 8 << 30;

/// The size of the sandbox's own `/dev/shm` (a tmpfs: shared memory is not counted by
/// `RLIMIT_DATA`, so it has a bound of its own).
pub const SANDBOX_SHM: u64 = 64 << 20;

/// The host's folders a sandboxed bot sees empty (and cannot write): where the host keeps its
/// sockets (a Unix socket can be connected to on a read-only mount) and its scratch files.
const HIDDEN: [&str; 4] = ["/run", "/var/run", "/tmp", "/var/tmp"];

/// The command that starts `program` (in `dir`, the bot's own folder, if given) inside the
/// sandbox: the whole file system read-only, but `/run`, `/tmp` and `/var/tmp` empty (the
/// program's own files under them bound back, read-only), `dir` writable; a private `/dev`
/// (read-only, bubblewrap's few devices) with a private `/dev/shm` of [`SANDBOX_SHM`], a fresh
/// `/proc`; new user, PID, IPC, UTS, cgroup and (unless `network`) network namespaces, and a
/// session of its own (no controlling terminal); bubblewrap dies with the arena. The process
/// group and the pipes are the same as a bot's without it.
fn sandboxed(program: &Program, dir: Option<&Path>, network: bool) -> Command {
    let mut cmd = Command::new(BWRAP);
    cmd.args(sandbox_args(program, dir, network));
    cmd.arg("--");
    match program {
        Program::Exec { program, args } => cmd.arg(program).args(args),
        Program::Shell { command } => cmd.args(["/bin/sh", "-c"]).arg(command),
    };
    cmd
}

/// bubblewrap's options for [`sandboxed`] (without the program).
fn sandbox_args(program: &Program, dir: Option<&Path>, network: bool) -> Vec<std::ffi::OsString> {
    let mut args: Vec<std::ffi::OsString> = Vec::new();
    let mut push = |words: &[&std::ffi::OsStr]| args.extend(words.iter().map(|w| w.to_os_string()));
    let os = |s: &'static str| std::ffi::OsStr::new(s);
    push(&[
        os("--unshare-all"),
        os("--die-with-parent"),
        os("--new-session"),
    ]);
    if network {
        push(&[os("--share-net")]);
    }
    let shm = SANDBOX_SHM.to_string();
    push(&[os("--ro-bind"), os("/"), os("/"), os("--dev"), os("/dev")]);
    push(&[
        os("--perms"),
        os("1777"),
        os("--size"),
        shm.as_ref(),
        os("--tmpfs"),
        os("/dev/shm"),
    ]);
    push(&[os("--proc"), os("/proc")]);
    let hidden: Vec<&str> = HIDDEN
        .into_iter()
        .filter(|h| std::fs::symlink_metadata(h).is_ok_and(|m| m.is_dir()))
        .collect();
    for h in &hidden {
        push(&[os("--tmpfs"), h.as_ref()]);
    }
    for own in own_files(program, dir, &hidden) {
        push(&[os("--ro-bind"), own.as_os_str(), own.as_os_str()]);
    }
    if let Some(dir) = dir {
        push(&[os("--bind"), dir.as_os_str(), dir.as_os_str()]);
        push(&[os("--setenv"), os("TMPDIR"), dir.as_os_str()]);
    }
    push(&[os("--remount-ro"), os("/dev")]);
    for h in &hidden {
        push(&[os("--remount-ro"), h.as_ref()]);
    }
    args
}

/// The program's own files that lie in a hidden folder and must stay visible: every word of
/// its command line that names an existing file or folder there (relative words resolved
/// against its working folder; a socket or a FIFO named there stays hidden), and that folder
/// itself.
fn own_files(program: &Program, dir: Option<&Path>, hidden: &[&str]) -> Vec<PathBuf> {
    let words: Vec<String> = match program {
        Program::Exec { program, args } => std::iter::once(program.display().to_string())
            .chain(args.iter().cloned())
            .collect(),
        Program::Shell { command } => shlex::split(command).unwrap_or_default(),
    };
    let cwd = dir
        .map(Path::to_path_buf)
        .or_else(|| std::env::current_dir().ok());
    let mut out: Vec<PathBuf> = Vec::new();
    let candidates = words
        .iter()
        .filter(|w| w.contains('/'))
        .map(|w| match &cwd {
            Some(cwd) => cwd.join(w),
            None => PathBuf::from(w),
        })
        .chain(cwd.clone().filter(|_| dir.is_none()));
    for path in candidates {
        let Ok(real) = path.canonicalize() else {
            continue;
        };
        if !(real.is_file() || real.is_dir()) {
            continue;
        }
        let inside = hidden.iter().any(|h| real.starts_with(h));
        let already = dir.is_some_and(|d| real.starts_with(d));
        if inside && !already && !out.contains(&real) {
            out.push(real);
        }
    }
    out
}

/// Whether the sandbox itself starts, with the walls a bot of `dir` (and `network`) gets: `true`
/// run inside it. `Err` is bubblewrap's own message: then the sandbox, not the bot, is at fault
/// (a start that failed is looked at this way before the bot is blamed).
pub async fn sandbox_starts(dir: Option<&Path>, network: bool) -> Result<(), String> {
    let probe = Program::Exec {
        program: "true".into(),
        args: Vec::new(),
    };
    let mut cmd = sandboxed(&probe, dir, network);
    cmd.stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .kill_on_drop(true);
    sys::new_session(&mut cmd);
    let child = match sys::spawn_registered(&mut cmd) {
        Ok(child) => child,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            return Err(format!(
                "bubblewrap (`{BWRAP}`, Debian's package bubblewrap) is not installed"
            ))
        }
        // The arena's own trouble is not the sandbox's: the caller's error stands.
        Err(_) => return Ok(()),
    };
    let pid = child.id();
    let waited = tokio::time::timeout(Duration::from_secs(30), child.wait_with_output()).await;
    if let Some(pid) = pid {
        sys::forget(pid);
    }
    match waited {
        Ok(Ok(out)) if !out.status.success() => {
            let said = String::from_utf8_lossy(&out.stderr).trim().to_string();
            Err(if said.is_empty() {
                format!("`{BWRAP}` {}", out.status)
            } else {
                said
            })
        }
        _ => Ok(()),
    }
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
    /// When the bot was seen to have exited (its process group was killed then).
    exited: Option<Instant>,
    /// Bytes read from stdout in all, and since the exit.
    read_total: u64,
    read_after_exit: u64,
    /// Reads the CPU time of the bot's process tree ([`BotProcess::cpu_time`]).
    cpu: Option<sys::CpuReader>,
    /// The CPU time at the last look, kept for after the process is reaped.
    cpu_seen: Option<Duration>,
}

/// How often a wait checks for the bot's exit when there is no pidfd to watch.
const EXIT_POLL: Duration = Duration::from_millis(10);

/// How long the lines a bot wrote just before exiting are waited for, and then its exit status.
const LAST_WORDS: Duration = Duration::from_millis(50);
/// At most this much is read from stdout once the bot has exited (what a process that
/// escaped its group may go on writing is not read).
const LAST_WORDS_BYTES: u64 = 64 << 10;
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
        let sandbox = wiring.walls.sandbox;
        let mut cmd = match (program, sandbox) {
            (_, Sandbox::Closed | Sandbox::WithNetwork) => {
                sandboxed(program, dir, sandbox == Sandbox::WithNetwork)
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
        // A session of its own, hence a process group of its own, killed with it.
        sys::new_session(&mut cmd);
        if let Some(bytes) = wiring.walls.memory_limit() {
            sys::limit_data(&mut cmd, bytes);
        }
        let child = sys::spawn_registered(&mut cmd).map_err(|e| {
            if arena_resource(&e).is_some() {
                StartError::Arena {
                    program: program.display(),
                    error: e,
                }
            } else if sandbox != Sandbox::Off && e.kind() == std::io::ErrorKind::NotFound {
                StartError::Sandbox(format!(
                    "cannot start `{}` in its sandbox: bubblewrap (`{BWRAP}`, Debian's package \
                     bubblewrap) is not installed",
                    program.display()
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
            exited: None,
            read_total: 0,
            read_after_exit: 0,
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
    /// exits is a crash at once, even when a process it started still holds its stdout open:
    /// its process group is killed when the exit is seen, and only what it wrote by then (a
    /// bounded amount, for a moment) is still read.
    pub fn read_line(&mut self, deadline: Instant) -> Result<String, Fault> {
        loop {
            if let Some(line) = self.buffered() {
                return line;
            }
            if self.exited.is_some() {
                return self.last_words();
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
                Woke::Ready(_) => {
                    self.saw_exit();
                    return self.last_words();
                }
                Woke::Stopped => return Err(stopping()),
                Woke::Deadline if Instant::now() >= deadline => {
                    return Err(Fault::new(FaultKind::Timeout, "no answer in time"))
                }
                Woke::Deadline => {
                    self.cpu_time();
                    if matches!(self.child.try_wait(), Ok(Some(_))) {
                        self.saw_exit();
                        return self.last_words();
                    }
                }
            }
        }
    }

    /// Bytes read from the bot's stdout so far (what a per-move program printed, for its bound).
    pub fn bytes_read(&self) -> u64 {
        self.read_total
    }

    /// The process the arena started (bubblewrap's, for a sandboxed bot); `None` once it is gone.
    pub fn pid(&self) -> Option<u32> {
        self.pid
    }

    /// Whether the bot has exited, looked at without waiting (once it has, its process group is
    /// killed): a reader of a program whose child floods its stdout would otherwise see the
    /// exit only when the lines stop.
    pub fn check_exit(&mut self) -> bool {
        if self.exited.is_none() && matches!(self.child.try_wait(), Ok(Some(_))) {
            self.saw_exit();
        }
        self.exited.is_some()
    }

    /// The bot has exited: what it started in its process group dies now, so that nothing it
    /// left behind goes on writing to its stdout (or anything else).
    fn saw_exit(&mut self) {
        if self.exited.is_none() {
            self.exited = Some(Instant::now());
            self.kill_group();
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
                self.read_total += n as u64;
                if self.exited.is_some() {
                    self.read_after_exit += n as u64;
                }
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
    /// to the caller; without one, the exit is a crash. What is still in its stdout is read for
    /// at most [`LAST_WORDS`] after the exit and up to [`LAST_WORDS_BYTES`]; then the stream
    /// ends.
    fn last_words(&mut self) -> Result<String, Fault> {
        let until = self.exited.unwrap_or_else(Instant::now) + LAST_WORDS;
        while let Some(stdout) = self.stdout.as_ref() {
            if self.read_after_exit >= LAST_WORDS_BYTES
                || wait(&[Some(stdout.as_fd())], Interest::Read, Some(until), None)
                    != Woke::Ready(0)
            {
                self.stdout = None;
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
