//! Sharding and merging with real processes: N shards run as separate `arena` processes and
//! merged hold the same games and give the same ratings as one unsharded run, also when a shard
//! is killed with SIGKILL and resumed.

mod util;

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Child, Command};
use std::time::{Duration, Instant};

use util::*;

fn rows(dir: &Path) -> Vec<BTreeMap<String, String>> {
    let mut rows = games(dir);
    for row in &mut rows {
        for col in TIMING_COLUMNS {
            row.remove(col);
        }
    }
    rows.sort_by_key(|r| r["game_id"].parse::<u64>().unwrap());
    rows
}

fn run_args(out: &Path, extra: &[&str]) -> Vec<String> {
    let mut args: Vec<String> = [
        "run",
        "--quiet",
        "--no-plots",
        "--opening-plies",
        "3",
        "--concurrency",
        "1",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(["--out".to_string(), out.display().to_string()]);
    args.extend(extra.iter().map(|s| s.to_string()));
    for (flag, default) in [("--pairs", "4"), ("--seed", "77")] {
        if !extra.contains(&flag) {
            args.extend([flag.to_string(), default.to_string()]);
        }
    }
    for (name, b, opt) in [
        ("ab", "alphabeta", Some("option.Depth=2")),
        ("greedy", "greedy", None),
        ("random", "random", None),
    ] {
        args.push("--bot".into());
        args.push(format!("name={name}"));
        args.push(format!("cmd={}", bot(b)));
        if let Some(o) = opt {
            args.push(o.into());
        }
    }
    args
}

fn spawn(args: &[String]) -> Child {
    bin_dir();
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(args)
        .spawn()
        .expect("spawn arena")
}

#[test]
fn shards_merge_into_the_unsharded_run() {
    let dir = Dir::new("shards");
    let full = dir.join("full");
    let args = run_args(&full, &[]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&refs);

    // Three shards, each its own process, at the same time.
    let shard_dirs: Vec<_> = (0..3).map(|i| dir.join(&format!("shard{i}"))).collect();
    let children: Vec<Child> = shard_dirs
        .iter()
        .enumerate()
        .map(|(i, d)| spawn(&run_args(d, &["--shard", &format!("{i}/3")])))
        .collect();
    for mut c in children {
        assert!(c.wait().unwrap().success());
    }
    for (i, d) in shard_dirs.iter().enumerate() {
        for row in games(d) {
            let pair: u64 = row["pair_id"].parse().unwrap();
            assert_eq!(pair % 3, i as u64, "shard {i} played pair {pair}");
        }
    }
    let merged = dir.join("merged");
    let mut merge_args = vec!["merge".to_string(), merged.display().to_string()];
    merge_args.extend(shard_dirs.iter().map(|d| d.display().to_string()));
    let refs: Vec<&str> = merge_args.iter().map(String::as_str).collect();
    let out = arena_ok(&refs);
    assert!(out.contains("shard consistency"), "{out}");
    assert_eq!(rows(&merged), rows(&full));

    for d in [&full, &merged] {
        arena_ok(&["rate", d.to_str().unwrap(), "--bootstrap", "200"]);
    }
    let ratings = |d: &Path| std::fs::read_to_string(d.join("ratings.csv")).unwrap();
    assert_eq!(
        ratings(&merged),
        ratings(&full),
        "same games, same seed: same ratings"
    );
}

#[test]
fn a_killed_shard_resumes_and_still_merges() {
    let dir = Dir::new("shard-kill");
    let full = dir.join("full");
    let args = run_args(&full, &["--pairs", "30"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&refs);

    let s0 = dir.join("s0");
    let s1 = dir.join("s1");
    let mut child = spawn(&run_args(&s0, &["--pairs", "30", "--shard", "0/2"]));
    let started = Instant::now();
    while std::fs::read_to_string(s0.join("games.csv"))
        .map(|t| t.lines().count())
        .unwrap_or(0)
        < 10
    {
        assert!(
            started.elapsed() < Duration::from_secs(60),
            "the shard never got going"
        );
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    arena_ok(&[
        "run",
        "--quiet",
        "--no-plots",
        "--resume",
        s0.to_str().unwrap(),
    ]);
    let args = run_args(&s1, &["--pairs", "30", "--shard", "1/2"]);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&refs);

    let merged = dir.join("merged");
    arena_ok(&[
        "merge",
        merged.to_str().unwrap(),
        s0.to_str().unwrap(),
        s1.to_str().unwrap(),
    ]);
    assert_eq!(rows(&merged), rows(&full));
}

#[test]
fn folders_of_different_runs_are_refused() {
    let dir = Dir::new("shard-mismatch");
    let a = dir.join("a");
    let b = dir.join("b");
    for (d, seed) in [(&a, "1"), (&b, "2")] {
        let args = run_args(d, &["--shard", "0/2", "--seed", seed, "--pairs", "1"]);
        let refs: Vec<&str> = args.iter().map(String::as_str).collect();
        arena_ok(&refs);
    }
    let out = arena(&[
        "merge",
        dir.join("m").to_str().unwrap(),
        a.to_str().unwrap(),
        b.to_str().unwrap(),
    ]);
    assert!(!out.status.success());
    let err = text(&out.stderr);
    assert!(err.contains("differ in seed"), "{err}");
}

// Issue 32: what `arena merge` refuses.

fn arena_args(args: &[String]) -> std::process::Output {
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs)
}

#[test]
fn r32_merge_refuses_a_running_shard_and_a_foreign_out() {
    let dir = Dir::new("merge-r32");
    let shard = dir.join("shard0");
    let o = arena_args(&run_args(&shard, &["--shard", "0/2", "--pairs", "2"]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let shard_s = shard.display().to_string();

    // The shard still being written: its lock is held (here by the test, as a running
    // `arena run --shard` holds it). Refused, saying so, and nothing merged.
    let lock = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open(shard.join(".arena.lock"))
        .unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock(2) on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let out = dir.join("merged");
    let o = arena(&["merge", &out.display().to_string(), &shard_s]);
    let err = text(&o.stderr);
    assert!(
        !o.status.success(),
        "a running shard was merged: {}",
        text(&o.stdout)
    );
    assert!(
        err.contains("shard0") && err.contains("still being written"),
        "{err}"
    );
    assert!(!out.join("games.csv").exists(), "{err}");
    drop(lock);
    let o = arena(&["merge", &out.display().to_string(), &shard_s]);
    assert!(o.status.success(), "{}", text(&o.stderr));

    // An OUT holding someone's files: refused as `arena run --out` refuses it, untouched.
    let foreign = dir.join("foreign");
    std::fs::create_dir_all(&foreign).unwrap();
    std::fs::write(foreign.join("precious.txt"), "mine\n").unwrap();
    let o = arena(&["merge", &foreign.display().to_string(), &shard_s]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "merged into a foreign folder");
    assert!(
        err.contains("precious.txt") && err.contains("not a run folder"),
        "{err}"
    );
    let names: Vec<String> = std::fs::read_dir(&foreign)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["precious.txt"]);
}
