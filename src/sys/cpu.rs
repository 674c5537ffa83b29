//! What the kernel counts of a bot's CPU time and of the machine's load, read from `/proc`
//! (Linux; elsewhere there is nothing to read and every answer is `None`).
//!
//! A bot's CPU time is its process tree's: the leader (the process the arena started, whose
//! process group is the bot's) and every descendant still alive, found through each thread's
//! `/proc/PID/task/TID/children`, each with the time of the children it has already reaped
//! (`cutime`, `cstime`). So a shell wrapper's program, a launcher's JVM and a bot's helper
//! processes count, and so does everything their threads did. What a descendant left behind
//! outside the tree (a double fork re-parented to the arena) is not counted. The kernel counts
//! in clock ticks (`sysconf(_SC_CLK_TCK)`, 10 ms on most systems): that is the resolution.

use std::time::Duration;

/// The most processes of one bot's tree that are read (a fork bomb must not make each sample
/// read the whole process table).
const MAX_TREE: usize = 64;

/// The CPU time (user and system, with that of the children already reaped) that the process
/// `pid` and its live descendants have used since they started; `None` where there is no such
/// process, or no `/proc` to read it from. A zombie (exited, not yet reaped) still counts.
pub fn tree_cpu(pid: u32) -> Option<Duration> {
    let ticks_per_second = ticks_per_second()?;
    let mut total = process_ticks(pid)?;
    let mut todo = children(pid);
    let mut seen = 1;
    while let Some(child) = todo.pop() {
        if seen >= MAX_TREE {
            break;
        }
        seen += 1;
        // A child that ended between the two reads was reaped by its parent: its time is in
        // the parent's `cutime` from then on.
        if let Some(ticks) = process_ticks(child) {
            total += ticks;
            todo.extend(children(child));
        }
    }
    Some(Duration::from_nanos(
        total.saturating_mul(1_000_000_000) / ticks_per_second,
    ))
}

/// A bot's CPU time read again and again at the cost of two `pread`s: its `/proc/PID/stat` and
/// its main thread's `children` list are kept open (two descriptors, opened at the first read),
/// and only a child's own tree is read the long way. [`tree_cpu`]'s answer, except that it
/// follows only the children of the main thread (the one a launcher, a shell or an interpreter
/// starts its program from), so that a sow costs the arena microseconds, not tens of them.
#[derive(Debug)]
pub struct CpuReader {
    pid: u32,
    files: Option<(std::fs::File, std::fs::File)>,
    buf: Vec<u8>,
}

impl CpuReader {
    pub fn new(pid: u32) -> CpuReader {
        CpuReader {
            pid,
            files: None,
            buf: vec![0; 1024],
        }
    }

    /// The CPU time of the process and its main thread's descendants (`None`: no such process
    /// any more, or nothing to read it from).
    pub fn read(&mut self) -> Option<Duration> {
        use std::os::unix::fs::FileExt;
        let ticks_per_second = ticks_per_second()?;
        if self.files.is_none() {
            let open = |path: String| std::fs::File::open(path).ok();
            let stat = open(format!("/proc/{}/stat", self.pid))?;
            let children = open(format!("/proc/{}/task/{}/children", self.pid, self.pid))?;
            self.files = Some((stat, children));
        }
        let (stat, children) = self.files.as_ref()?;
        let n = stat.read_at(&mut self.buf, 0).ok()?;
        let mut total = stat_ticks(std::str::from_utf8(&self.buf[..n]).ok()?)?;
        let n = children.read_at(&mut self.buf, 0).unwrap_or(0);
        let kids: Vec<u32> = std::str::from_utf8(&self.buf[..n])
            .unwrap_or("")
            .split_whitespace()
            .filter_map(|w| w.parse().ok())
            .take(MAX_TREE)
            .collect();
        for kid in kids {
            total += tree_cpu(kid).map_or(0, |d| {
                (d.as_nanos() * u128::from(ticks_per_second) / 1_000_000_000) as u64
            });
        }
        Some(Duration::from_nanos(
            total.saturating_mul(1_000_000_000) / ticks_per_second,
        ))
    }
}

/// Clock ticks a second, for the times of `/proc/PID/stat`.
fn ticks_per_second() -> Option<u64> {
    #[cfg(target_os = "linux")]
    {
        Some(rustix::param::clock_ticks_per_second()).filter(|&t| t > 0)
    }
    #[cfg(not(target_os = "linux"))]
    {
        None
    }
}

/// `utime + stime + cutime + cstime` of `/proc/PID/stat`, in clock ticks.
fn process_ticks(pid: u32) -> Option<u64> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).ok()?;
    stat_ticks(&stat)
}

/// The four CPU times of a `/proc/PID/stat` line, summed: fields 14 to 17, counted after the
/// command name (which is in parentheses and may hold spaces and parentheses itself). Pure.
fn stat_ticks(stat: &str) -> Option<u64> {
    let after_name = &stat[stat.rfind(')')? + 1..];
    // After the name: state (field 3), ..., utime is field 14, so the 12th word from here.
    let fields: Vec<&str> = after_name.split_whitespace().skip(11).take(4).collect();
    if fields.len() < 4 {
        return None;
    }
    fields
        .iter()
        .map(|f| f.parse::<u64>().ok())
        .sum::<Option<u64>>()
}

/// The children of every thread of `pid` (`/proc/PID/task/TID/children`; empty where the
/// kernel does not list them).
fn children(pid: u32) -> Vec<u32> {
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    for task in tasks.flatten() {
        let path = task.path().join("children");
        if let Ok(text) = std::fs::read_to_string(path) {
            out.extend(
                text.split_whitespace()
                    .filter_map(|w| w.parse::<u32>().ok()),
            );
        }
    }
    out
}

/// The machine's load average over the last minute (`/proc/loadavg`), if the system says.
pub fn load_average() -> Option<f64> {
    let text = std::fs::read_to_string("/proc/loadavg").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cpu_fields_are_read_after_the_command_name() {
        // A name with spaces and parentheses, as a program may call itself.
        let stat = "4242 (a (b) c) S 1 4242 4242 0 -1 4194560 100 0 0 0 \
                    25 7 3 1 20 0 1 0 100 1000 10 18446744073709551615";
        assert_eq!(stat_ticks(stat), Some(25 + 7 + 3 + 1));
        assert_eq!(stat_ticks("12 (short) S 1 2"), None);
        assert_eq!(stat_ticks("no name here"), None);
    }

    /// A shell that runs a busy child, waits for it, then sleeps: the child's time is the
    /// shell's tree's while it runs (as a descendant) and after it ended (in the shell's
    /// `cutime`). CPU time only, no durations: the machine may be as busy as it likes.
    #[cfg(target_os = "linux")]
    #[test]
    fn a_process_tree_counts_its_children_running_and_reaped() {
        use std::process::Stdio;
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build()
            .unwrap();
        let _inside = runtime.enter();
        let mut cmd = tokio::process::Command::new("sh");
        cmd.args([
            "-c",
            "sh -c 'i=0; while [ $i -lt 300000 ]; do i=$((i+1)); done'; exec sleep 600",
        ])
        .stdin(Stdio::null())
        .process_group(0);
        // Registered as a bot, as every child of a process that runs bots must be: the other
        // tests of this process kill the children that are not (`kill_orphans`).
        let mut shell = super::super::spawn_registered(&mut cmd).unwrap();
        let pid = shell.id().unwrap();
        let ticks = |t: u64| Duration::from_nanos(t * 1_000_000_000 / ticks_per_second().unwrap());
        let (mut running_seen, mut reaped_seen) = (false, false);
        for _ in 0..30_000 {
            let (Some(tree), Some(own)) = (tree_cpu(pid), process_ticks(pid).map(ticks)) else {
                break;
            };
            // The busy child's time, counted before its parent reaped it.
            running_seen |= tree > own;
            // After: in the shell's (now `sleep`'s) own `cutime`.
            if own >= Duration::from_millis(100) {
                reaped_seen = true;
                break;
            }
            std::thread::sleep(Duration::from_millis(5));
        }
        // The kept-open reader says what the long way says (the busy child is reaped by now).
        let mut reader = CpuReader::new(pid);
        assert_eq!(reader.read(), tree_cpu(pid));
        assert_eq!(reader.read(), tree_cpu(pid));
        super::super::kill_group(pid);
        let _ = runtime.block_on(shell.wait());
        assert_eq!(reader.read(), None, "a reaped process has no time to read");
        super::super::forget(pid);
        assert!(running_seen, "a running child's time was never counted");
        assert!(reaped_seen, "a reaped child's time was never counted");
        assert_eq!(tree_cpu(pid), None, "a reaped process has no time to read");
        assert!(load_average().is_some_and(|l| l >= 0.0));
    }
}
