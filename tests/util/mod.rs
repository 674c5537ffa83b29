//! Shared helpers for the integration tests: temporary folders, the `arena` binary, the bundled
//! bot binaries and the misbehaving test bots.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;

/// A temporary folder removed when dropped.
pub struct Dir(pub PathBuf);

impl Dir {
    pub fn new(name: &str) -> Dir {
        let path = std::env::temp_dir().join(format!("arena-test-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&path);
        std::fs::create_dir_all(&path).expect("create temp dir");
        Dir(path)
    }

    pub fn path(&self) -> &Path {
        &self.0
    }

    pub fn join(&self, rel: &str) -> PathBuf {
        self.0.join(rel)
    }
}

impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The folder holding the workspace's binaries (`target/<profile>/`), with the bots built.
pub fn bin_dir() -> &'static Path {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let arena = PathBuf::from(env!("CARGO_BIN_EXE_arena"));
        let dir = arena.parent().expect("binary folder").to_path_buf();
        if !dir.join("mancala-random").exists() {
            // `scripts/test.sh` builds every binary first; a plain `cargo test` may not have.
            let cargo = std::env::var("CARGO").unwrap_or_else(|_| "cargo".into());
            let status = Command::new(cargo)
                .args(["build", "--workspace", "--bins"])
                .current_dir(env!("CARGO_MANIFEST_DIR"))
                .status()
                .expect("run cargo build");
            assert!(status.success(), "building the bots failed");
        }
        dir
    })
}

/// The path of a bundled bot binary, e.g. `bot("random")`.
pub fn bot(name: &str) -> String {
    bin_dir()
        .join(format!("mancala-{name}"))
        .display()
        .to_string()
}

/// The misbehaving bot script (tests/bots/misbehave.py).
pub fn misbehave() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/bots/misbehave.py")
        .display()
        .to_string()
}

/// The temporary folder of every `arena` the tests start (`TMPDIR`): inside the target folder,
/// so that what the arena keeps there on purpose (check-bot's transcripts, named in its output)
/// does not pile up in the system's temporary folder over many suite runs.
pub fn arena_tmp() -> &'static str {
    env!("CARGO_TARGET_TMPDIR")
}

/// Runs `arena ARGS...` and returns its output.
pub fn arena(args: &[&str]) -> Output {
    arena_env(args, &[])
}

/// Runs `arena ARGS...` with extra environment variables and returns its output.
pub fn arena_env(args: &[&str], env: &[(&str, &Path)]) -> Output {
    bin_dir();
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .env("TMPDIR", arena_tmp())
        .envs(env.iter().copied())
        .output()
        .expect("run arena")
}

pub fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// Runs arena and asserts it succeeded, returning stdout.
pub fn arena_ok(args: &[&str]) -> String {
    succeeded(args, arena(args))
}

/// Asserts that `arena ARGS` exited 0 (showing its output if not); returns stdout.
pub fn succeeded(args: &[&str], out: Output) -> String {
    assert!(
        out.status.success(),
        "arena {args:?} failed: {}\n{}",
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// The rows of a run's games.csv as maps column → value.
pub fn games(dir: &Path) -> Vec<std::collections::BTreeMap<String, String>> {
    let mut reader = csv::Reader::from_path(dir.join("games.csv")).expect("games.csv");
    reader.deserialize().map(|r| r.expect("row")).collect()
}

/// A response read off the wire: status, headers (names lower-cased) and body.
pub struct HttpResponse {
    pub status: u16,
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl HttpResponse {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// One HTTP/1.1 request over a plain socket, the target sent exactly as given (no client-side
/// normalisation of `..`, which is what the traversal tests need).
pub fn http(
    addr: &str,
    method: &str,
    target: &str,
    headers: &[(&str, &str)],
    body: &str,
) -> HttpResponse {
    use std::io::{Read, Write};
    let mut stream = std::net::TcpStream::connect(addr).expect("connect");
    stream
        .set_read_timeout(Some(std::time::Duration::from_secs(120)))
        .unwrap();
    let mut req = format!("{method} {target} HTTP/1.1\r\nConnection: close\r\n");
    if !headers.iter().any(|(n, _)| n.eq_ignore_ascii_case("host")) {
        req.push_str(&format!("Host: {addr}\r\n"));
    }
    for (n, v) in headers {
        req.push_str(&format!("{n}: {v}\r\n"));
    }
    req.push_str(&format!("Content-Length: {}\r\n\r\n{body}", body.len()));
    stream.write_all(req.as_bytes()).expect("send");
    // Read the head, then exactly the body it announces (a server may keep the connection).
    let mut reader = std::io::BufReader::new(stream);
    let mut head = String::new();
    loop {
        let mut line = String::new();
        use std::io::BufRead;
        if reader.read_line(&mut line).expect("read response") == 0 || line == "\r\n" {
            break;
        }
        head.push_str(&line);
    }
    let mut lines = head.lines();
    let status = lines
        .next()
        .and_then(|l| l.split_whitespace().nth(1))
        .and_then(|s| s.parse().ok())
        .expect("status line");
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    let find = |name: &str| {
        headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
    };
    let mut body = Vec::new();
    if method == "HEAD" {
    } else if let Some(len) = find("content-length").and_then(|v| v.parse::<usize>().ok()) {
        body.resize(len, 0);
        reader.read_exact(&mut body).expect("read body");
    } else if find("transfer-encoding").is_some_and(|v| v.contains("chunked")) {
        use std::io::BufRead;
        loop {
            let mut size = String::new();
            reader.read_line(&mut size).expect("chunk size");
            let size = usize::from_str_radix(size.trim(), 16).expect("chunk size");
            let mut chunk = vec![0; size + 2];
            reader.read_exact(&mut chunk).expect("chunk");
            if size == 0 {
                break;
            }
            body.extend_from_slice(&chunk[..size]);
        }
    } else {
        reader.read_to_end(&mut body).expect("read body");
    }
    HttpResponse {
        status,
        headers,
        body: String::from_utf8_lossy(&body).into_owned(),
    }
}

/// Says on the terminal, past the test harness's output capture (which would swallow a
/// `println!` of a passing test), that `test` was skipped and why.
pub fn skipped(test: &str, reason: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stderr(), "SKIPPED {test}: {reason}");
}

/// Whether a value of the `CI` variable means "running in CI": any non-empty value.
pub fn ci_value_counts(value: Option<&str>) -> bool {
    value.is_some_and(|v| !v.is_empty())
}

/// Whether the tests run in CI (`CI` set to a non-empty value), where a test may not skip.
pub fn in_ci() -> bool {
    ci_value_counts(std::env::var("CI").ok().as_deref())
}

/// The peak resident memory of a running process, in KiB (0 once it is gone): for the tests
/// that bound what a flood costs the arena.
pub fn peak_rss_kib(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmHWM:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0)
}

/// Runs `cmd` to its end and returns its output and its peak resident memory in KiB, from the
/// kernel's own count for that one child (`wait4`'s `ru_maxrss`), so that a test can bound what
/// an input costs whatever else runs.
// The child is reaped by `wait4` below (which `Child::wait` cannot give the peak of).
#[allow(clippy::zombie_processes)]
pub fn output_and_peak_rss(cmd: &mut Command) -> (Output, u64) {
    use std::io::Read;
    use std::process::Stdio;
    let mut child = cmd
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start the command");
    let mut stdout = child.stdout.take().unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let out = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stdout.read_to_end(&mut v);
        v
    });
    let err = std::thread::spawn(move || {
        let mut v = Vec::new();
        let _ = stderr.read_to_end(&mut v);
        v
    });
    let mut status = 0;
    // SAFETY: an all-zero rusage is valid, and wait4 fills it in for our own child.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = child.id() as libc::pid_t;
    // SAFETY: waits for (and reaps) the child started above; `child` is not waited for again.
    let waited = unsafe { libc::wait4(pid, &mut status, 0, &mut usage) };
    assert_eq!(waited, pid, "wait4: {}", std::io::Error::last_os_error());
    use std::os::unix::process::ExitStatusExt;
    let output = Output {
        status: std::process::ExitStatus::from_raw(status),
        stdout: out.join().unwrap(),
        stderr: err.join().unwrap(),
    };
    (output, usage.ru_maxrss as u64)
}

/// The `games.csv` columns that measure time (wall and the bots' CPU): they differ from run to
/// run, so tests that compare runs leave them out.
pub const TIMING_COLUMNS: [&str; 7] = [
    "wall_ms",
    "first_think_ms",
    "first_max_ms",
    "second_think_ms",
    "second_max_ms",
    "first_cpu_ms",
    "second_cpu_ms",
];

/// The path of a reference agent of another protocol in `tests/agents/`, as a string.
pub fn agent(file: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents")
        .join(file)
        .display()
        .to_string()
}

/// `arena run --quiet --no-plots --out OUT EXTRA... BOTS...` as argument words.
pub fn run_words(out: &Path, extra: &[&str], bots: &[Vec<String>]) -> Vec<String> {
    let mut words: Vec<String> = ["run", "--quiet", "--no-plots", "--out"]
        .iter()
        .map(|s| s.to_string())
        .collect();
    words.push(out.display().to_string());
    words.extend(extra.iter().map(|s| s.to_string()));
    for b in bots {
        words.extend(b.iter().cloned());
    }
    words
}

/// The site's scale: `arena rate site.pgn --loose-anchors loose.csv --prior 0` (Ordo's setting)
/// of the shared anchors fixture, written into `dir/site-ratings` (well under a second).
pub fn site_scale(dir: &Dir) -> PathBuf {
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ratings-anchors");
    let out = dir.join("site-ratings");
    arena_ok(&[
        "rate",
        &fixture.join("site.pgn").display().to_string(),
        "--loose-anchors",
        &fixture.join("loose.csv").display().to_string(),
        "--prior",
        "0",
        "--bootstrap",
        "0",
        "--no-png",
        "--out",
        &out.display().to_string(),
    ]);
    out
}
