//! Processes that are not the bot the arena started (#48, points 8 and 9), with real processes
//! and a real loopback socket: a stranger connecting to a KGP agent's port is refused and the
//! agent that never connects is a crash; a child that outlives its bot's move or its bot is
//! ended with the bot's process group, what it prints afterwards is never taken for a move, and
//! what a per-move program prints is bounded.

mod util;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

use util::*;

/// Runs the arena, killing it if it has not ended after `limit` (a hang is a failure, shown by
/// what it had written by then).
fn arena_killed_after(words: &[String], env: &[(&str, &Path)], limit: Duration) -> (Output, bool) {
    bin_dir();
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(words)
        .envs(env.iter().copied())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let start = std::time::Instant::now();
    let mut killed = false;
    while child.try_wait().unwrap().is_none() {
        if start.elapsed() > limit {
            let _ = child.kill();
            killed = true;
            break;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    (child.wait_with_output().unwrap(), killed)
}

type Output = std::process::Output;

fn random_bot() -> Vec<String> {
    vec![
        "--bot".into(),
        "name=random".into(),
        "bundled=random".into(),
    ]
}

/// A stranger: whoever reads the port an agent leaks (`KGP_LEAK`) connects to it with the
/// reference KGP client, as a process of the test's (not the agent's), and notes each state it
/// is sent in `states`.
struct Stranger {
    stop: Arc<AtomicBool>,
    thread: Option<std::thread::JoinHandle<Vec<Child>>>,
}

impl Stranger {
    fn watch(leak: PathBuf, states: PathBuf) -> Stranger {
        let stop = Arc::new(AtomicBool::new(false));
        let flag = stop.clone();
        let thread = std::thread::spawn(move || {
            let mut seen = String::new();
            let mut children = Vec::new();
            while !flag.load(Ordering::SeqCst) {
                let now = std::fs::read_to_string(&leak).unwrap_or_default();
                if !now.is_empty() && now != seen {
                    seen = now.clone();
                    let port = now.split_whitespace().nth(1).unwrap().to_string();
                    let connected = PathBuf::from(format!("{}.stranger", leak.display()));
                    let _ = std::fs::remove_file(&connected);
                    children.push(
                        Command::new("python3")
                            .args([&agent("kgp_agent.py"), "127.0.0.1", &port])
                            .env("KGP_CONNECTED", &connected)
                            .env("KGP_STATES", &states)
                            .stdout(std::process::Stdio::null())
                            .stderr(std::process::Stdio::null())
                            .spawn()
                            .unwrap(),
                    );
                }
                std::thread::sleep(Duration::from_millis(10));
            }
            children
        });
        Stranger {
            stop,
            thread: Some(thread),
        }
    }
}

impl Drop for Stranger {
    fn drop(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        if let Some(thread) = self.thread.take() {
            for mut child in thread.join().unwrap_or_default() {
                let _ = child.kill();
                let _ = child.wait();
            }
        }
    }
}

fn kgp_leaker(mode: &str) -> Vec<String> {
    vec![
        "--bot".into(),
        "name=agent".into(),
        format!(
            "cmd=python3 {} {{host}} {{port}} --{mode}",
            agent("kgp_agent.py")
        ),
        "protocol=kgp".into(),
    ]
}

/// #48 point 8: the arena took the first connection on the agent's port, whoever made it. A
/// stranger that read the port played the agent's games (it was sent every state) while the
/// real agent exited after 0.3 s without connecting, and the run ended with its games recorded
/// and exit 0. Now a connection is taken only from a process of the agent's own, a stranger is
/// refused with a line in the agent's log, and the agent that never connects is a crash.
#[test]
fn a_stranger_on_a_kgp_port_is_refused_and_an_agent_that_never_connects_is_a_crash() {
    let dir = Dir::new("kgp-stranger");
    // The agent leaks its port and exits without connecting.
    let (o, killed, _, states) = run_with_stranger(&dir, "exit");
    let err = text(&o.stderr);
    assert!(!killed, "the run hung: {err}");
    let states_sent = std::fs::read_to_string(&states).unwrap_or_default();
    assert_eq!(states_sent, "", "the stranger was sent states");
    assert!(!o.status.success(), "the run ended well: {err}");
    assert!(
        err.contains("player `agent` cannot start") && err.contains("crash"),
        "{err}"
    );

    // The agent leaks its port, waits for the stranger to connect, then connects itself.
    let (o, killed, out, states) = run_with_stranger(&dir, "late");
    let err = text(&o.stderr);
    assert!(!killed && o.status.success(), "{err}");
    let states_sent = std::fs::read_to_string(&states).unwrap_or_default();
    assert_eq!(states_sent, "", "the stranger was sent states");
    let log = std::fs::read_to_string(out.join("logs/agent.stderr.log")).unwrap();
    assert!(log.contains("[arena] refused a connection"), "{log}");
    let games = games(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_ne!(g["forfeit"], "agent", "{g:?}");
    }
}

/// One game pair of a KGP agent that leaks its port (the `KGP_LEAK` file) against random,
/// with a stranger watching for the leak; the run's output, whether it had to be killed, its
/// folder and the file of the states sent to the stranger. `tag` names the files.
fn run_with_stranger(
    dir: &Dir,
    tag: &str,
) -> (
    std::process::Output,
    bool,
    std::path::PathBuf,
    std::path::PathBuf,
) {
    let leak = dir.join(&format!("leak-{tag}"));
    let states = dir.join(&format!("states-{tag}"));
    let stranger = Stranger::watch(leak.clone(), states.clone());
    let out = dir.join(tag);
    let words = run_words(
        &out,
        &["--pairs", "1", "--movetime", "1000", "--concurrency", "1"],
        &[kgp_leaker(&format!("leak-{tag}")), random_bot()],
    );
    let (o, killed) = arena_killed_after(&words, &[("KGP_LEAK", &leak)], Duration::from_secs(120));
    drop(stranger);
    (o, killed, out, states)
}

/// A per-move player; `clock`: its `time_by` (on `cpu` a Python start slowed by a busy
/// machine is not counted against it).
fn per_move(name: &str, mode: &str, clock: &str) -> Vec<String> {
    vec![
        "--bot".into(),
        format!("name={name}"),
        format!(
            "cmd=python3 {} --{mode} --bp-{}",
            agent("per_move_agent.py"),
            std::process::id()
        ),
        "protocol=per-move".into(),
        format!("time_by={clock}"),
    ]
}

/// #48 point 9, per-move programs: a program whose child went on printing after the program
/// exited kept the arena reading (no game ended), a program that went on printing past the move
/// time had what it printed then taken for its move (`99`, no pit on this board: an illegal
/// move), and 50 MiB printed before the move were read whole. Now the program's process group
/// ends when it exits (and at the move time), nothing is read after that or after the move
/// time, and a program that prints more than the bound for one move is a `garbage` forfeit.
#[test]
fn what_a_per_move_programs_children_print_after_it_is_not_its_move() {
    let dir = Dir::new("per-move-children");
    let out = dir.join("run");
    let words = run_words(
        &out,
        &[
            "--pairs",
            "1",
            "--movetime",
            "2000",
            "--concurrency",
            "1",
            "--rules",
            "kalah:pits=4,seeds=3",
            "--gauntlet",
            "random",
        ],
        &[
            random_bot(),
            per_move("forever", "child-forever", "cpu"),
            // On wall time: it sleeps between lines, and its `99` comes 3 s after its move.
            per_move("drip", "drip", "wall"),
            per_move("flood", "flood", "cpu"),
        ],
    );
    let (o, killed) = arena_killed_after(&words, &[], Duration::from_secs(180));
    let err = text(&o.stderr);
    let games: Vec<BTreeMap<String, String>> = if out.join("games.csv").exists() {
        games(&out)
    } else {
        Vec::new()
    };
    assert!(
        !killed,
        "the run hung: {} games in {games:?}\n{err}",
        games.len()
    );
    assert!(o.status.success(), "{err}");
    assert_eq!(games.len(), 6, "{games:?}");
    for g in &games {
        let who = if g["first"] == "random" {
            &g["second"]
        } else {
            &g["first"]
        };
        if who == "flood" {
            assert_eq!(g["termination"], "garbage", "{g:?}");
            assert_eq!(g["forfeit"], "flood", "{g:?}");
        } else {
            assert_eq!(g["termination"], "normal", "{g:?}");
        }
    }
    let left = std::fs::read_dir("/proc")
        .unwrap()
        .flatten()
        .filter_map(|e| std::fs::read(e.path().join("cmdline")).ok())
        .map(|c| String::from_utf8_lossy(&c).replace('\0', " "))
        .filter(|c| c.contains(&format!("--bp-{}", std::process::id())))
        .count();
    assert_eq!(left, 0);
}

/// #48 point 9, native bots: a bot that exits while a child of its process group goes on
/// printing kept the arena reading the child's lines, up to taking its `bestmove` for the dead
/// bot's (each game took as long as the child printed). Now the bot's exit ends its process
/// group at once and the move is a crash with the bot's exit status.
#[test]
fn a_bot_that_exits_is_a_crash_whatever_its_child_prints() {
    let dir = Dir::new("native-exit-child");
    let out = dir.join("run");
    let cmd = format!("python3 {} exit-child-prints", misbehave());
    let words = run_words(
        &out,
        &[
            "--pairs",
            "1",
            "--movetime",
            "2000",
            "--concurrency",
            "1",
            "--rules",
            "kalah:pits=4,seeds=3",
            "--opening-plies",
            "0",
        ],
        &[
            vec!["--bot".into(), "name=exits".into(), format!("cmd={cmd}")],
            random_bot(),
        ],
    );
    let (o, killed) = arena_killed_after(&words, &[], Duration::from_secs(120));
    let err = text(&o.stderr);
    assert!(!killed && o.status.success(), "{err}");
    let games = games(&out);
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["termination"], "crash", "{g:?}");
        assert_eq!(g["forfeit"], "exits", "{g:?}");
        assert!(g["detail"].contains("exit status: 3"), "{g:?}");
    }
}
