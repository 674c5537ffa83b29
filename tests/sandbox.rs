//! The walls of a bot (#48, points 1 to 3), with real processes, bubblewrap and a pseudo-terminal:
//! every bot in a session of its own (no controlling terminal to type into), the sandbox's
//! private `/dev`, `/dev/shm`, `/tmp` and `/run`, its memory limit as a player word, and a
//! sandbox that cannot start stopping the run without blaming a player. Each line of
//! docs/tournament.md's "Sandbox" section is checked here or in
//! `tests/reliability.rs::a_sandboxed_bot_can_neither_signal_its_opponent_nor_write_outside_nor_connect`.

mod util;

use std::ffi::CString;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};

use util::*;

/// Whether bubblewrap is here; CI must have it.
fn have_bwrap(test: &str) -> bool {
    if Path::new("/usr/bin/bwrap").exists() {
        return true;
    }
    assert!(!in_ci(), "CI must install bubblewrap (.ci/run)");
    skipped(test, "bubblewrap (/usr/bin/bwrap) is not installed");
    false
}

/// `--bot` words for misbehave.py's `escape` mode forwarding to the random bot, its report in
/// `report`, with `extra` words (`sandbox=true`, `dir=...`, `memory=...`) and `flags` for the
/// script.
fn escape_bot(name: &str, report: &Path, flags: &str, extra: &[String]) -> Vec<String> {
    let mut words = vec![
        "--bot".to_string(),
        format!("name={name}"),
        format!(
            "cmd=python3 {} escape --report {} {flags} -- {}",
            misbehave(),
            report.display(),
            bot("random")
        ),
    ];
    words.extend(extra.iter().cloned());
    words
}

fn run_words(out: &Path, bots: &[Vec<String>]) -> Vec<String> {
    let mut words: Vec<String> = [
        "run",
        "--quiet",
        "--no-plots",
        "--pairs",
        "1",
        "--movetime",
        "30000",
        "--concurrency",
        "1",
        "--out",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    words.push(out.display().to_string());
    for b in bots {
        words.extend(b.iter().cloned());
    }
    words
}

fn report(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path)
        .unwrap_or_else(|e| panic!("no report at {}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

/// A pseudo-terminal: the master and an open slave (kept so that its input stays queued), and
/// the slave's path.
struct Pty {
    _master: std::fs::File,
    slave: std::fs::File,
    path: CString,
}

fn open_pty() -> Pty {
    use std::os::fd::FromRawFd;
    // SAFETY: plain libc calls on descriptors this function owns; ptsname_r writes into the
    // buffer it is given.
    unsafe {
        let master = libc::posix_openpt(libc::O_RDWR | libc::O_NOCTTY);
        assert!(master >= 0, "posix_openpt");
        assert_eq!(libc::grantpt(master), 0);
        assert_eq!(libc::unlockpt(master), 0);
        let mut buf = [0 as libc::c_char; 128];
        assert_eq!(libc::ptsname_r(master, buf.as_mut_ptr(), buf.len()), 0);
        let path = std::ffi::CStr::from_ptr(buf.as_ptr()).to_owned();
        let slave = libc::open(
            path.as_ptr(),
            libc::O_RDWR | libc::O_NOCTTY | libc::O_NONBLOCK,
        );
        assert!(slave >= 0, "open the slave");
        Pty {
            _master: std::fs::File::from_raw_fd(master),
            slave: std::fs::File::from_raw_fd(slave),
            path,
        }
    }
}

/// What is waiting to be read on the terminal (what was typed into it, or pushed by TIOCSTI).
fn typed(pty: &Pty) -> String {
    use std::io::Read;
    let mut buf = vec![0; 4096];
    let mut got = Vec::new();
    let mut slave = &pty.slave;
    while let Ok(n) = slave.read(&mut buf) {
        if n == 0 {
            break;
        }
        got.extend_from_slice(&buf[..n]);
    }
    String::from_utf8_lossy(&got).into_owned()
}

/// #48 point 1: run from a terminal, a bot opened `/dev/tty` (the arena's controlling terminal)
/// and pushed `PWNED` and a newline into the shell's input with TIOCSTI, sandboxed or not
/// (bubblewrap ran without `--new-session`, the bot had only a process group of its own). Every
/// bot now starts in a session of its own: it has no controlling terminal, `/dev/tty` cannot be
/// opened, and nothing reaches the terminal's input.
#[test]
fn no_bot_can_type_into_the_arenas_terminal() {
    if !have_bwrap("no_bot_can_type_into_the_arenas_terminal") {
        return;
    }
    let dir = Dir::new("sandbox-tty");
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let (plain, boxed) = (dir.join("plain.json"), own.join("boxed.json"));
    let bots = [
        escape_bot("plain", &plain, "--tty-inject", &[]),
        escape_bot(
            "boxed",
            &boxed,
            "--tty-inject",
            &["sandbox=true".into(), format!("dir={}", own.display())],
        ),
    ];
    let pty = open_pty();
    let out = dir.join("run");
    let slave_path = pty.path.clone();
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_arena"));
    bin_dir();
    cmd.args(run_words(&out, &bots))
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    // SAFETY: between fork and exec, only async-signal-safe calls on a path made beforehand.
    unsafe {
        cmd.pre_exec(move || {
            // A session of its own whose controlling terminal is the pseudo-terminal, as a
            // shell's job has its terminal.
            if libc::setsid() < 0 {
                return Err(std::io::Error::last_os_error());
            }
            let fd = libc::open(slave_path.as_ptr(), libc::O_RDWR);
            if fd < 0 || libc::ioctl(fd, libc::TIOCSCTTY, 0) < 0 {
                return Err(std::io::Error::last_os_error());
            }
            libc::close(fd);
            Ok(())
        });
    }
    let o = cmd.output().expect("run arena");
    assert!(o.status.success(), "{}", text(&o.stderr));
    let input = typed(&pty);
    assert!(
        !input.contains("PWNED"),
        "a bot typed into the terminal: {input:?}"
    );
    for path in [&plain, &boxed] {
        let r = report(path);
        assert_ne!(r["tty"], "injected", "{}: {r}", path.display());
        assert_ne!(r["tty"], "opened", "{}: {r}", path.display());
    }
}

/// #48 point 2: the sandbox's own `/dev` (read-only, no host devices beyond the few a program
/// needs), a private `/dev/shm` of 64 MiB, an empty read-only `/tmp` and `/run` (no host sockets
/// to connect to), and the memory limit a player word (`memory=`). Played once without the
/// sandbox, so that each attempt is seen to work there.
#[test]
fn the_sandbox_walls_off_dev_shm_tmp_run_and_memory() {
    if !have_bwrap("the_sandbox_walls_off_dev_shm_tmp_run_and_memory") {
        return;
    }
    let dir = Dir::new("sandbox-walls");
    let socket_path = dir.join("host.sock");
    let listener = std::os::unix::net::UnixListener::bind(&socket_path).unwrap();
    listener.set_nonblocking(true).unwrap();
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let flags = |extra: &str| {
        format!(
            "--unix {} --shm-mib 80 --alloc-mib 320 {extra}",
            socket_path.display()
        )
    };
    let (plain, boxed) = (dir.join("plain.json"), own.join("boxed.json"));
    let bots = [
        escape_bot("plain", &plain, &flags(""), &[]),
        escape_bot(
            "boxed",
            &boxed,
            &flags("--dev-write"),
            &[
                "sandbox=true".into(),
                format!("dir={}", own.display()),
                "memory=256M".into(),
            ],
        ),
    ];
    let out = dir.join("run");
    let words = run_words(&out, &bots);
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    let o = arena(&refs);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let outside = report(&plain);
    assert_eq!(outside["unix"], "connected", "{outside}");
    assert!(outside["run"].as_u64().is_some_and(|n| n > 0), "{outside}");
    assert_eq!(outside["tmp"], "written", "{outside}");
    assert_eq!(outside["shm"], 80, "{outside}");
    assert_eq!(outside["alloc"], "allocated", "{outside}");
    let inside = report(&boxed);
    assert_ne!(inside["unix"], "connected", "{inside}");
    assert_eq!(inside["run"], 0, "{inside}");
    assert_ne!(inside["dev"], "written", "{inside}");
    assert_ne!(inside["tmp"], "written", "{inside}");
    assert_eq!(inside["shm"], "OSError after 64", "{inside}");
    assert_eq!(inside["alloc"], "MemoryError", "{inside}");
    assert_eq!(inside["tty"], "OSError", "{inside}");
    // The memory limit is the player's, kept in run.json.
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let players = &run["config"]["players"];
    assert_eq!(players[1]["memory"], 256 << 20, "{players}");
    // Both played their games out.
    for g in games(&out) {
        assert_eq!(g["termination"], "normal", "{g:?}");
    }
}

/// A `bwrap` first in `PATH` that runs the real one for its first `ok` calls and then fails as
/// bubblewrap does when it cannot set up a sandbox: a message on stderr and exit status 1.
fn failing_bwrap(dir: &Dir, ok: u32) -> PathBuf {
    let bin = dir.join(&format!("fake-bwrap-{ok}"));
    std::fs::create_dir_all(&bin).unwrap();
    let state = bin.join("calls");
    let script = format!(
        "#!/bin/sh\n\
         n=$(cat {state} 2>/dev/null || echo 0)\n\
         echo $((n + 1)) > {state}\n\
         if [ \"$n\" -lt {ok} ]; then exec /usr/bin/bwrap \"$@\"; fi\n\
         echo 'bwrap: Creating new namespace failed: the test broke it' >&2\n\
         exit 1\n",
        state = state.display()
    );
    let path = bin.join("bwrap");
    std::fs::write(&path, script).unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
    bin
}

/// #48 point 3: with a `bwrap` that fails from the start, the run stopped with "player `a`
/// cannot start: handshake ..."; with one that failed after the bots' check before the first
/// game, the run exited 0 with every game a `handshake` forfeit and both players rated. A
/// sandbox that cannot start is the arena's trouble: the run stops with bubblewrap's own
/// message, no player is blamed, no game is recorded and nothing is rated.
#[test]
fn a_sandbox_that_cannot_start_stops_the_run_and_blames_no_player() {
    if !have_bwrap("a_sandbox_that_cannot_start_stops_the_run_and_blames_no_player") {
        return;
    }
    let dir = Dir::new("sandbox-broken");
    for ok in [0, 2] {
        let bin = failing_bwrap(&dir, ok);
        let out = dir.join(&format!("run-{ok}"));
        let boxed = |name: &str| {
            vec![
                "--bot".to_string(),
                format!("name={name}"),
                format!("cmd={}", bot("random")),
                "sandbox=true".into(),
            ]
        };
        let words = run_words(&out, &[boxed("a"), boxed("b")]);
        let path = format!(
            "{}:{}",
            bin.display(),
            std::env::var("PATH").unwrap_or_default()
        );
        bin_dir();
        let o = Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(&words)
            .env("PATH", path)
            .output()
            .unwrap();
        let err = text(&o.stderr);
        let case = format!("after {ok} good starts: {err}");
        assert!(!o.status.success(), "{case}");
        assert!(err.contains("the test broke it"), "{case}");
        assert!(err.contains("no player is at fault"), "{case}");
        assert!(!err.contains("cannot start: handshake"), "{case}");
        assert!(!out.join("ratings.csv").exists(), "{case}");
        let rows = std::fs::read_to_string(out.join("games.csv")).unwrap_or_default();
        assert!(rows.lines().count() <= 1, "games were recorded: {rows}");
    }
}
