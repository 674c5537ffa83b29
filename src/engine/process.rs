//! The operating-system side of a bot: its own process group, piped stdin/stdout, stderr copied
//! to a capped log file, and a reader task that turns stdout into bounded lines.

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, ChildStdin, Command};
use tokio::sync::mpsc;

use super::{line_channel, Fault, FaultKind, LineResult, Program};
use crate::protocol::{LineBuffer, LineError, MAX_LINE_LEN};

/// How much of one bot process's stderr is kept in its log; the rest is read and dropped.
const STDERR_LOG_CAP: u64 = 8 << 20;

/// A spawned bot: the child, its stdin, and the lines its stdout produced.
pub struct BotProcess {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<LineResult>,
    pid: Option<u32>,
}

impl BotProcess {
    /// Starts the program in a new process group (so that killing the group also kills whatever
    /// the bot started) with stderr appended to `stderr_log`.
    pub fn spawn(
        program: &Program,
        dir: Option<&Path>,
        stderr_log: &Path,
    ) -> Result<BotProcess, Fault> {
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
            cmd.current_dir(dir);
        }
        cmd.stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        #[cfg(unix)]
        cmd.process_group(0);
        let mut child = cmd.spawn().map_err(|e| {
            Fault::new(
                FaultKind::Spawn,
                format!("cannot start `{}`: {e}", program.display()),
            )
        })?;
        let pid = child.id();
        let stdin = child.stdin.take();
        let (tx, lines) = line_channel();
        if let Some(stdout) = child.stdout.take() {
            tokio::spawn(read_lines(stdout, tx));
        }
        if let Some(stderr) = child.stderr.take() {
            let log = stderr_log.to_path_buf();
            tokio::spawn(copy_stderr(stderr, log));
        }
        Ok(BotProcess {
            child,
            stdin,
            lines,
            pid,
        })
    }

    /// Writes one line and flushes it.
    pub async fn write_line(&mut self, line: &str) -> Result<(), Fault> {
        let stdin = self
            .stdin
            .as_mut()
            .ok_or_else(|| Fault::new(FaultKind::Io, "stdin already closed"))?;
        let mut buf = Vec::with_capacity(line.len() + 1);
        buf.extend_from_slice(line.as_bytes());
        buf.push(b'\n');
        let write = async {
            stdin.write_all(&buf).await?;
            stdin.flush().await
        };
        write
            .await
            .map_err(|e| self.exit_fault(format!("cannot write to the bot: {e}")))
    }

    /// The next line from stdout, or the fault that prevents one before `deadline`.
    pub async fn read_line(&mut self, deadline: Instant) -> Result<String, Fault> {
        let deadline = tokio::time::Instant::from_std(deadline);
        match tokio::time::timeout_at(deadline, self.lines.recv()).await {
            Err(_) => Err(Fault::new(FaultKind::Timeout, "no answer in time")),
            Ok(Some(line)) => line,
            Ok(None) => {
                // stdout closed: the bot exited or closed it. Give the exit status a moment.
                let status =
                    tokio::time::timeout(Duration::from_millis(200), self.child.wait()).await;
                let detail = match status {
                    Ok(Ok(status)) => format!("exited ({status})"),
                    _ => "closed its stdout".to_string(),
                };
                Err(Fault::new(FaultKind::Crash, detail))
            }
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
        self.child.wait().await.ok()
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
    }
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

/// Reads stdout into bounded lines. An over-long line or bytes that are not UTF-8 end the stream
/// with a fault: the bot is broken and will be killed.
async fn read_lines(mut stdout: tokio::process::ChildStdout, tx: mpsc::Sender<LineResult>) {
    let mut buffer = LineBuffer::with_max_len(MAX_LINE_LEN);
    let mut chunk = vec![0u8; 8192];
    loop {
        while let Some(line) = buffer.next_line() {
            let item = line.map_err(|e| match e {
                LineError::TooLong { .. } => Fault::new(
                    FaultKind::LineTooLong,
                    format!("a line longer than {MAX_LINE_LEN} bytes"),
                ),
                LineError::InvalidUtf8 { .. } => {
                    Fault::new(FaultKind::Garbage, "output that is not UTF-8")
                }
                other => Fault::new(FaultKind::Garbage, other.to_string()),
            });
            let fatal = item.is_err();
            if tx.send(item).await.is_err() || fatal {
                return;
            }
        }
        match stdout.read(&mut chunk).await {
            Ok(0) | Err(_) => return,
            Ok(n) => buffer.push(&chunk[..n]),
        }
    }
}

/// Appends stderr to the bot's log, up to [`STDERR_LOG_CAP`] bytes, and drains the rest so the
/// bot never blocks on a full pipe.
async fn copy_stderr(mut stderr: tokio::process::ChildStderr, log: std::path::PathBuf) {
    let mut file = tokio::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&log)
        .await
        .ok();
    let mut written = 0u64;
    let mut chunk = vec![0u8; 8192];
    loop {
        match stderr.read(&mut chunk).await {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                if let Some(f) = file.as_mut() {
                    if written < STDERR_LOG_CAP {
                        let keep = n.min((STDERR_LOG_CAP - written) as usize);
                        if f.write_all(&chunk[..keep]).await.is_err() {
                            file = None;
                        }
                        written += keep as u64;
                    }
                }
            }
        }
    }
    if let Some(mut f) = file {
        let _ = f.flush().await;
    }
}
