//! Nothing lost, nothing misattributed (issue 15), with real processes and real file-system
//! situations: the folder lock, bounded processes under a low open-file limit, the log cap, stray
//! `bestmove`s, options checked before play, SIGTERM, orphaned daemons, huge schedules, and the
//! input the arena refuses before playing.

mod util;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use util::*;

fn bot_arg(name: &str, cmd: &str) -> Vec<String> {
    vec!["--bot".into(), format!("name={name}"), format!("cmd={cmd}")]
}

fn arena_words(words: &[String]) -> std::process::Output {
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    arena(&refs)
}

/// Starts `arena WORDS...` in the background.
fn spawn_arena(words: &[String]) -> Child {
    bin_dir();
    Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(words)
        .env("TMPDIR", arena_tmp())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start arena")
}

/// Starts `arena WORDS...` in the background and waits until its run folder `out` has its
/// `run.json` (the bots started and the first games are under way).
fn start_run(words: &[String], out: &Path) -> Child {
    let child = spawn_arena(words);
    assert!(
        wait_until(Duration::from_secs(20), || out.join("run.json").exists()),
        "the run did not start"
    );
    child
}

/// Waits (at most `limit`) until `check` holds.
fn wait_until(limit: Duration, mut check: impl FnMut() -> bool) -> bool {
    let start = Instant::now();
    while start.elapsed() < limit {
        if check() {
            return true;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    false
}

fn alive(pid: u32) -> bool {
    // A zombie is dead for our purposes; /proc/PID/stat's third field is its state.
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| {
            !s.rsplit(')')
                .next()
                .unwrap_or("")
                .trim_start()
                .starts_with('Z')
        })
        .unwrap_or(false)
}

fn pids_in(path: &Path) -> Vec<u32> {
    std::fs::read_to_string(path)
        .unwrap_or_default()
        .split_whitespace()
        .filter_map(|p| p.parse().ok())
        .collect()
}

fn signal(child: &Child, sig: i32) {
    // SAFETY: kill(2) to a child we started.
    unsafe {
        libc::kill(child.id() as libc::pid_t, sig);
    }
}

#[test]
fn one_writer_per_folder_and_sigterm_is_like_ctrl_c() {
    let dir = Dir::new("rel-lock");
    let out = dir.join("run");
    let pids = dir.join("pids");
    // A bot that hangs on its first `go` and ignores its closed stdin: only a kill stops it.
    let hang = format!(
        "python3 {} hang --pid-file {} -- {}",
        misbehave(),
        pids.display(),
        bot("random")
    );
    let words = run_words(
        &out,
        &["--pairs", "2", "--movetime", "4000", "--concurrency", "1"],
        &[bot_arg("hang", &hang), bot_arg("r", &bot("random"))],
    );
    let first = start_run(&words, &out);
    // A second writer, here a resume of the same folder, fails at once naming the first.
    let started = Instant::now();
    let second = arena(&["run", "--resume", out.to_str().unwrap(), "--quiet"]);
    let err = text(&second.stderr);
    assert!(!second.status.success(), "{err}");
    assert!(err.contains(&format!("pid {}", first.id())), "{err}");
    assert!(
        started.elapsed() < Duration::from_secs(15),
        "it waited instead of failing"
    );
    // SIGTERM (Slurm's and Kubernetes' first word) stops the run like Ctrl-C.
    signal(&first, libc::SIGTERM);
    let done = first.wait_timeout_or_kill(Duration::from_secs(20));
    let err = text(&done.stderr);
    assert!(!done.status.success(), "{err}");
    assert!(err.contains("SIGTERM") && err.contains("--resume"), "{err}");
    let all = pids_in(&pids);
    assert!(!all.is_empty());
    for pid in all {
        assert!(!alive(pid), "bot process {pid} outlived the SIGTERM");
    }
    // The folder is not locked any more, and resumable.
    let again = arena(&[
        "run",
        "--resume",
        out.to_str().unwrap(),
        "--quiet",
        "--no-plots",
    ]);
    assert!(
        !text(&again.stderr).contains("being written"),
        "{}",
        text(&again.stderr)
    );
}

/// `Child::wait_with_output` with a deadline (then SIGKILL).
trait WaitTimeout {
    fn wait_timeout_or_kill(self, limit: Duration) -> std::process::Output;
}

impl WaitTimeout for Child {
    fn wait_timeout_or_kill(mut self, limit: Duration) -> std::process::Output {
        let start = Instant::now();
        while start.elapsed() < limit {
            if let Ok(Some(_)) = self.try_wait() {
                return self.wait_with_output().expect("output");
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let _ = self.kill();
        self.wait_with_output().expect("output")
    }
}

#[test]
fn a_signal_ends_every_slot_waiting_out_a_long_think_at_once() {
    let dir = Dir::new("rel-stop-wait");
    let out = dir.join("run");
    let hang = format!("python3 {} hang", misbehave());
    // Both games of the pair at once: each slot soon waits on the hanging bot, for up to 60 s.
    let words = run_words(
        &out,
        &["--pairs", "1", "--movetime", "60000", "--concurrency", "2"],
        &[bot_arg("hang", &hang), bot_arg("r", &bot("random"))],
    );
    let child = start_run(&words, &out);
    std::thread::sleep(Duration::from_millis(1500));
    let stopped = Instant::now();
    signal(&child, libc::SIGINT);
    let done = child.wait_timeout_or_kill(Duration::from_secs(30));
    let err = text(&done.stderr);
    assert!(!done.status.success(), "{err}");
    assert!(err.contains("SIGINT") && err.contains("--resume"), "{err}");
    // Not the 60 s of the think: the stop reached the slots' waits (20 s: a margin for a busy
    // machine, far from the think).
    assert!(
        stopped.elapsed() < Duration::from_secs(20),
        "the run took {:?} to stop",
        stopped.elapsed()
    );
    // The games cut short are not results (nobody timed out): `--resume` plays them.
    let rows = if out.join("games.csv").exists() {
        games(&out)
    } else {
        Vec::new()
    };
    assert!(rows.is_empty(), "{rows:?}");
}

#[test]
fn many_players_under_a_low_open_file_limit_play_without_spawn_forfeits() {
    let dir = Dir::new("rel-nofile");
    let out = dir.join("run");
    let random = bot("random");
    let mut words = run_words(
        &out,
        &["--pairs", "1", "--concurrency", "2", "--depth", "1"],
        &[],
    );
    for i in 0..24 {
        words.extend(bot_arg(&format!("p{i:02}"), &random));
    }
    // Soft and hard limit 100: the arena cannot raise it, and must keep few bots alive.
    let script = format!(
        "ulimit -n 100 && exec {} {}",
        env!("CARGO_BIN_EXE_arena"),
        words
            .iter()
            .map(|w| format!("'{}'", w.replace('\'', "'\\''")))
            .collect::<Vec<_>>()
            .join(" ")
    );
    bin_dir();
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = games(&out);
    assert_eq!(rows.len(), 24 * 23);
    assert!(
        rows.iter().all(|r| r["forfeit"].is_empty()),
        "{:?}",
        rows.iter().find(|r| !r["forfeit"].is_empty())
    );
    // Far too low to start two bots: a clear error that names the limit, nobody's loss.
    let tiny = dir.join("tiny");
    let words = run_words(
        &tiny,
        &["--pairs", "1"],
        &[bot_arg("a", &random), bot_arg("b", &random)],
    );
    let script = format!(
        "ulimit -n 14 && exec {} {}",
        env!("CARGO_BIN_EXE_arena"),
        words.join(" ")
    );
    let o = Command::new("sh").args(["-c", &script]).output().unwrap();
    assert_out_of_open_files(&o, 14);
    assert!(!tiny.join("games.csv").exists() && !tiny.join("run.json").exists());
}

/// A run the open-file limit `limit` stopped: it says the arena ran out of open files, names the
/// limit, and blames no player (no panic, no "cannot start", no forfeit).
fn assert_out_of_open_files(o: &std::process::Output, limit: u64) {
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("the arena itself ran out of open files")
            && err.contains(&format!("limit is {limit}"))
            && err.contains("no player is at fault"),
        "{err}"
    );
    assert!(
        !err.contains("panicked") && !err.contains("cannot start:") && !err.contains("--drop"),
        "{err}"
    );
}

#[test]
fn the_arenas_own_trouble_before_the_first_game_blames_no_player() {
    let dir = Dir::new("rel-nofile-preflight");
    let random = bot("random");
    // One slot, so the limits hit the same step everywhere: with the fewest files the slot's
    // runtime cannot be built, with a few more the bots cannot be started (and are retried).
    for limit in [12, 14, 18] {
        let out = dir.join(&format!("run-{limit}"));
        let words = run_words(
            &out,
            &["--pairs", "1", "--concurrency", "1"],
            &[bot_arg("a", &random), bot_arg("b", &random)],
        );
        let script = format!(
            "ulimit -n {limit} && exec {} {}",
            env!("CARGO_BIN_EXE_arena"),
            words.join(" ")
        );
        let o = Command::new("sh").args(["-c", &script]).output().unwrap();
        assert_out_of_open_files(&o, limit);
        assert!(!out.join("games.csv").exists(), "limit {limit}");
    }
}

#[test]
fn a_flood_of_stderr_is_capped_per_run_with_head_and_tail() {
    let dir = Dir::new("rel-logcap");
    let out = dir.join("run");
    let flood = format!("python3 {} flood-crash", misbehave());
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "3", "--log-cap", "1M"],
        &[bot_arg("flood", &flood), bot_arg("r", &bot("random"))],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    // Six games, six starts of 9 MiB each: one log of at most the cap plus its note.
    let log = out.join("logs/flood.stderr.log");
    let bytes = std::fs::read(&log).unwrap();
    assert!(bytes.len() < (1 << 20) + 512, "{} bytes", bytes.len());
    let text = String::from_utf8_lossy(&bytes);
    assert!(
        text.contains("bytes of stderr dropped"),
        "no truncation note"
    );
    assert!(text.starts_with("eeee") && text.ends_with("eeee"));
}

/// How many games `out/games.csv` holds (lines past the header; a line being written counts).
fn rows_in(out: &Path) -> usize {
    std::fs::read_to_string(out.join("games.csv"))
        .map_or(0, |t| t.lines().count().saturating_sub(1))
}

#[test]
fn a_flood_of_stderr_stays_within_the_cap_across_resumes() {
    let dir = Dir::new("rel-logcap-resume");
    let out = dir.join("run");
    let log = out.join("logs/flood.stderr.log");
    // Every game the bot thinks 300 ms, then writes 9 MiB to stderr and crashes.
    let flood = format!("python3 {} flood-crash --delay 300", misbehave());
    let first = run_words(
        &out,
        &["--pairs", "20", "--concurrency", "1", "--log-cap", "1M"],
        &[bot_arg("flood", &flood), bot_arg("r", &bot("random"))],
    );
    // Resumed as the Slurm recipe does, without the first run's flags: the cap is the run's.
    let resume: Vec<String> = [
        "run",
        "--quiet",
        "--no-plots",
        "--concurrency",
        "1",
        "--resume",
        out.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    // The run and three resumes, each stopped by SIGTERM (a scheduler's requeue) once it has
    // recorded one more game: each stop leaves the log with its head, a note and a tail.
    for (n, words) in [&first, &resume, &resume, &resume].into_iter().enumerate() {
        let before = rows_in(&out);
        let child = spawn_arena(words);
        let played = wait_until(Duration::from_secs(30), || rows_in(&out) > before);
        signal(&child, libc::SIGTERM);
        let done = child.wait_timeout_or_kill(Duration::from_secs(20));
        assert!(played, "run {n} played nothing: {}", text(&done.stderr));
        assert!(
            text(&done.stderr).contains("SIGTERM"),
            "{}",
            text(&done.stderr)
        );
        // The cap, plus the note's one line (docs/tournament.md, "Logs").
        let len = std::fs::metadata(&log).unwrap().len();
        assert!(len < (1 << 20) + 512, "{len} bytes after run {n}");
    }
    let bytes = std::fs::read(&log).unwrap();
    let text = String::from_utf8_lossy(&bytes);
    assert_eq!(text.matches("bytes of stderr dropped").count(), 1);
    assert!(text.starts_with("eeee") && text.ends_with("eeee"));
}

#[test]
fn stray_and_second_bestmoves_answer_nothing() {
    let dir = Dir::new("rel-stray");
    // `bestmove 6` after every `readyok`, and no answer to `go`: a timeout, never a move 6.
    let out = dir.join("stray");
    let stray = format!("python3 {} stray", misbehave());
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1", "--movetime", "300"],
        &[bot_arg("stray", &stray), bot_arg("r", &bot("random"))],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for row in games(&out) {
        assert_eq!(row["termination"], "timeout", "{row:?}");
        assert_eq!(row["forfeit"], "stray");
    }
    let log = std::fs::read_to_string(out.join("logs/stray.stderr.log")).unwrap();
    assert!(log.contains("discarded `bestmove 6`"), "{log}");
    // Every answer twice: the second copy must not answer the next position.
    let out = dir.join("double");
    let double = format!("python3 {} double -- {}", misbehave(), bot("greedy"));
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "3"],
        &[bot_arg("double", &double), bot_arg("r", &bot("random"))],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for row in games(&out) {
        assert_eq!(row["termination"], "normal", "{row:?}");
    }
}

#[test]
fn options_are_checked_against_the_declarations_before_play() {
    let dir = Dir::new("rel-options");
    let out = dir.join("run");
    let bad = [
        "--bot",
        "name=hard",
        "bundled=alphabeta",
        "option.Level=impossible",
    ];
    let mut words = run_words(&out, &["--pairs", "1"], &[bot_arg("r", &bot("random"))]);
    words.extend(bad.iter().map(|s| s.to_string()));
    let o = arena_words(&words);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("player `hard`") && err.contains("impossible") && err.contains("Level"),
        "{err}"
    );
    assert!(
        err.contains("easy") || err.contains("Easy"),
        "the declaration is shown: {err}"
    );
    assert!(!out.join("games.csv").exists());
    let mut words = run_words(&out, &["--pairs", "1"], &[bot_arg("r", &bot("random"))]);
    words.extend(
        [
            "--bot",
            "name=x",
            "bundled=alphabeta",
            "option.NoSuchOption=1",
        ]
        .iter()
        .map(|s| s.to_string()),
    );
    let err = text(&arena_words(&words).stderr);
    assert!(err.contains("no option `NoSuchOption`"), "{err}");
    // Names match ignoring case, as in UCI.
    let ok = dir.join("ok");
    let mut words = run_words(
        &ok,
        &["--pairs", "1", "--depth", "1"],
        &[bot_arg("r", &bot("random"))],
    );
    words.extend(
        ["--bot", "name=e", "bundled=alphabeta", "option.level=EASY"]
            .iter()
            .map(|s| s.to_string()),
    );
    let o = arena_words(&words);
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn daemons_a_bot_leaves_behind_die_with_it() {
    let dir = Dir::new("rel-daemon");
    let pids = dir.join("pids");
    let daemon = format!(
        "python3 {} daemon --pid-file {} -- {}",
        misbehave(),
        pids.display(),
        bot("random")
    );
    let o = arena_words(&run_words(
        &dir.join("run"),
        &["--pairs", "1"],
        &[bot_arg("d", &daemon), bot_arg("r", &bot("random"))],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let daemons: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().count() == 1)
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    assert!(!daemons.is_empty(), "the daemons wrote their pids");
    for pid in daemons {
        assert!(!alive(pid), "daemon {pid} outlived the run");
    }
    // check-bot too.
    std::fs::remove_file(&pids).unwrap();
    let o = arena(&[
        "check-bot",
        "--margin-ms",
        "1000",
        "--ruleset",
        "kalah",
        "--",
        "python3",
        &misbehave(),
        "daemon",
        "--pid-file",
        pids.to_str().unwrap(),
        "--",
        &bot("random"),
    ]);
    assert!(o.status.success(), "{}", text(&o.stdout));
    let daemons: Vec<u32> = std::fs::read_to_string(&pids)
        .unwrap()
        .lines()
        .filter(|l| l.split_whitespace().count() == 1)
        .filter_map(|l| l.trim().parse().ok())
        .collect();
    for pid in daemons {
        assert!(!alive(pid), "daemon {pid} outlived check-bot");
    }
}

#[test]
fn a_huge_schedule_starts_at_once_in_little_memory() {
    let dir = Dir::new("rel-huge");
    let out = dir.join("run");
    let words = run_words(
        &out,
        &["--pairs", "4294967295", "--concurrency", "1"],
        &[bot_arg("a", &bot("random")), bot_arg("b", &bot("random"))],
    );
    let child = spawn_arena(&words);
    let played = wait_until(Duration::from_secs(30), || {
        std::fs::read_to_string(out.join("games.csv")).is_ok_and(|t| t.lines().count() > 2)
    });
    let rss_kib: u64 = std::fs::read_to_string(format!("/proc/{}/status", child.id()))
        .unwrap_or_default()
        .lines()
        .find(|l| l.starts_with("VmRSS:"))
        .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        .unwrap_or(0);
    signal(&child, libc::SIGINT);
    let done = child.wait_timeout_or_kill(Duration::from_secs(20));
    assert!(played, "no game in 30 s: {}", text(&done.stderr));
    assert!(rss_kib < 200 * 1024, "the arena uses {rss_kib} KiB");
    let err = text(&done.stderr);
    assert!(err.contains("SIGINT") && err.contains("--resume"), "{err}");
}

#[test]
fn input_the_arena_refuses_before_playing() {
    let dir = Dir::new("rel-input");
    let random = bot("random");
    let two = [bot_arg("a", &random), bot_arg("b", &random)];
    let refused = |name: &str, extra: &[&str], bots: &[Vec<String>], needle: &str| {
        let out = dir.join(name);
        let o = arena_words(&run_words(&out, extra, bots));
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{name}: accepted");
        assert!(err.contains(needle), "{name}: {err}");
        assert!(!out.join("games.csv").exists(), "{name}: games were played");
    };
    refused("conc", &["--concurrency", "0"], &two, "--concurrency");
    refused(
        "movetime",
        &["--movetime", "99999999999999"],
        &two,
        "more than a week",
    );
    refused("tc", &["--tc", "1e30+0"], &two, "more than a week");
    refused(
        "handshake",
        &["--handshake-timeout", "0"],
        &two,
        "--handshake-timeout",
    );
    refused("level", &["--level", "1.5"], &two, "--level");
    refused(
        "anchor",
        &["--anchor", "nobody=1200"],
        &two,
        "no player is named `nobody`",
    );
    refused("name", &["--name", "../escape"], &two, "--name");
    let missing_dir = vec![
        "--bot".to_string(),
        "name=c".to_string(),
        format!("cmd={random}"),
        "dir=/nonexistent/folder".to_string(),
    ];
    refused(
        "dir",
        &[],
        &[two[0].clone(), missing_dir],
        "working directory /nonexistent/folder",
    );
    let newline = vec!["--bot".into(), "name=x\ny".into(), format!("cmd={random}")];
    refused(
        "newline",
        &[],
        &[two[0].clone(), newline],
        "control character",
    );
    let long = vec![
        "--bot".into(),
        format!("name={}", "n".repeat(65)),
        format!("cmd={random}"),
    ];
    refused("long", &[], &[two[0].clone(), long], "longer than 64");
    // An option whose `setoption` line would pass the protocol's 64 KiB line limit (#32).
    let huge = vec![
        "--bot".into(),
        "name=h".into(),
        format!("cmd={random}"),
        format!("option.Book={}", "b".repeat(100 << 10)),
    ];
    refused(
        "huge-option",
        &[],
        &[two[0].clone(), huge],
        "its `setoption` line would be 102427 bytes",
    );

    // A tournament file without players.
    let file = dir.join("empty.toml");
    std::fs::write(&file, "pairs = 2\n").unwrap();
    let o = arena(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.join("toml").to_str().unwrap(),
    ]);
    assert!(
        text(&o.stderr).contains("has no players"),
        "{}",
        text(&o.stderr)
    );

    // --out at someone's own folder: refused, nothing overwritten.
    let mine = dir.join("mine");
    std::fs::create_dir_all(&mine).unwrap();
    std::fs::write(mine.join("notes.txt"), "keep me").unwrap();
    let o = arena_words(&run_words(&mine, &["--pairs", "1"], &two));
    assert!(
        text(&o.stderr).contains("not a run folder"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(
        std::fs::read_to_string(mine.join("notes.txt")).unwrap(),
        "keep me"
    );
    assert!(!mine.join("games.csv").exists());

    // A finished run: resume flags that would be ignored, and a run.json that no longer matches.
    let run = dir.join("run");
    let o = arena_words(&run_words(&run, &["--pairs", "1", "--seed", "4"], &two));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let run_s = run.to_str().unwrap();
    let o = arena(&["run", "--resume", run_s, "--seed", "5", "--pairs", "9"]);
    let err = text(&o.stderr);
    assert!(
        err.contains("--pairs") && err.contains("--seed") && err.contains("ignored"),
        "{err}"
    );
    let json = std::fs::read_to_string(run.join("run.json")).unwrap();
    std::fs::write(
        run.join("run.json"),
        json.replace("\"name\": \"a\"", "\"name\": \"z\""),
    )
    .unwrap();
    let o = arena(&["run", "--resume", run_s, "--quiet"]);
    let err = text(&o.stderr);
    assert!(err.contains("no longer matches"), "{err}");
}

#[test]
fn names_logs_and_bytes_stay_apart_and_printable() {
    let dir = Dir::new("rel-names");
    let out = dir.join("run");
    let random = bot("random");
    let nul = format!("python3 {} malformed-nul", misbehave());
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1"],
        &[
            bot_arg("a/b", &random),
            bot_arg("a b", &random),
            bot_arg("a_b", &nul),
        ],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let logs: Vec<PathBuf> = std::fs::read_dir(out.join("logs"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert_eq!(logs.len(), 3, "{logs:?}");
    let csv = std::fs::read(out.join("games.csv")).unwrap();
    assert!(!csv.contains(&0u8), "a NUL byte reached games.csv");
    assert!(
        String::from_utf8_lossy(&csv).contains("\\0"),
        "the NUL is written as \\0"
    );
    // `arena rate` says what the schedule does not contain.
    let mut text_csv = String::from_utf8(csv).unwrap();
    text_csv.push_str("999,499,0,ghost,a b,kalah,,1-0,30,18,10,normal,,,1,1,1,1,1,0,0,0,0\n");
    std::fs::write(out.join("games.csv"), text_csv).unwrap();
    let o = arena(&["rate", out.to_str().unwrap(), "--bootstrap", "0"]);
    let err = text(&o.stderr);
    assert!(err.contains("players not in run.json: ghost"), "{err}");
    assert!(err.contains("game ids 999"), "{err}");
}

#[test]
fn check_bots_default_transcript_is_new_under_a_name_no_one_can_plant() {
    let dir = Dir::new("rel-check-plant");
    let tmp = dir.join("tmp");
    std::fs::create_dir_all(&tmp).unwrap();
    let victim = dir.join("victim");
    std::fs::write(&victim, "precious").unwrap();
    // The shell plants symlinks where a name made of the pid alone would go (the pid is known:
    // `exec` hands it to the arena), then becomes `arena check-bot` with TMPDIR there.
    bin_dir();
    let script = format!(
        "ln -s '{v}' \"$TMPDIR/arena-check-bot-$$.txt\" && ln -s '{v}' \"$TMPDIR/arena-check-bot-$$.stderr.log\" && echo $$ && exec '{arena}' check-bot --ruleset kalah --margin-ms 1000 -- '{bot}'",
        v = victim.display(),
        arena = env!("CARGO_BIN_EXE_arena"),
        bot = bot("random"),
    );
    let run = || {
        Command::new("sh")
            .args(["-c", &script])
            .env("TMPDIR", &tmp)
            .output()
            .unwrap()
    };
    let mut random_parts = Vec::new();
    for o in [run(), run()] {
        let out = text(&o.stdout);
        let pid = out.lines().next().unwrap_or_default();
        let transcript = out
            .lines()
            .find_map(|l| l.split("transcript: ").nth(1))
            .map(PathBuf::from)
            .unwrap_or_else(|| panic!("no transcript: {out}{}", text(&o.stderr)));
        assert_eq!(transcript.parent(), Some(tmp.as_path()));
        // The pid, then 64 bits no one could know in advance.
        let name = transcript.file_name().unwrap().to_str().unwrap();
        let random = name
            .strip_prefix(&format!("arena-check-bot-{pid}-"))
            .and_then(|r| r.strip_suffix(".txt"))
            .unwrap_or_else(|| panic!("{name}"));
        assert!(
            random.len() == 16 && random.chars().all(|c| c.is_ascii_hexdigit()),
            "{name}"
        );
        random_parts.push(random.to_string());
        // Both files are the arena's own, new and regular, the transcript written.
        for path in [&transcript, &transcript.with_extension("stderr.log")] {
            let meta = std::fs::symlink_metadata(path).unwrap();
            assert!(meta.file_type().is_file(), "{}", path.display());
        }
        assert!(std::fs::metadata(&transcript).unwrap().len() > 0);
    }
    assert_ne!(random_parts[0], random_parts[1]);
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), "precious");
}

#[test]
fn merge_and_sprt_hold_the_folder_lock_against_a_second_writer() {
    let dir = Dir::new("rel-lock-writers");
    let random = bot("random");
    // A second writer, a resume of the folder: its output and how long it took (stopped after
    // 15 s, as a resume let in would go on playing).
    let second_writer = |folder: &Path| {
        let started = Instant::now();
        let child = spawn_arena(
            &["run", "--resume", folder.to_str().unwrap(), "--quiet"].map(String::from),
        );
        wait_until(Duration::from_secs(15), || !alive(child.id()));
        signal(&child, libc::SIGTERM);
        (
            child.wait_timeout_or_kill(Duration::from_secs(10)),
            started.elapsed(),
        )
    };
    // Refused at once, naming the holder's pid.
    let refused = |(o, took): (std::process::Output, Duration), holder: u32| {
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{err}");
        assert!(
            err.contains("being written by another arena process")
                && err.contains(&format!("pid {holder}")),
            "{err}"
        );
        assert!(took < Duration::from_secs(15), "it waited");
    };

    // `arena sprt`, stopped in its first game by a bot that never answers.
    let sprt_out = dir.join("sprt");
    let hang = format!("python3 {} hang", misbehave());
    let sprt = start_run(
        &[
            "sprt",
            "--base",
            &hang,
            "--test",
            &random,
            "--elo0",
            "0",
            "--elo1",
            "10",
            "--movetime",
            "60000",
            "--concurrency",
            "1",
            "--quiet",
            "--no-plots",
            "--out",
            sprt_out.to_str().unwrap(),
        ]
        .map(String::from),
        &sprt_out,
    );
    let (second, holder) = (second_writer(&sprt_out), sprt.id());
    signal(&sprt, libc::SIGTERM);
    let done = sprt.wait_timeout_or_kill(Duration::from_secs(20));
    refused(second, holder);
    assert!(
        text(&done.stderr).contains("SIGTERM"),
        "{}",
        text(&done.stderr)
    );

    // `arena merge` takes the same lock on its output: with the output held by another writer
    // (here the test, as a running arena holds it), the merge is refused at once, naming the
    // holder, and writes nothing. (A merge can no longer be held up mid-write by a FIFO in its
    // output to show it from the other side: a FIFO there is refused, issue 32.)
    let shard = dir.join("shard");
    let o = arena_words(&run_words(
        &shard,
        &["--pairs", "1"],
        &[bot_arg("a", &random), bot_arg("b", &random)],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let merged = dir.join("merged");
    std::fs::create_dir_all(&merged).unwrap();
    let lock_path = merged.join(".arena.lock");
    std::fs::write(&lock_path, format!("{}\n", std::process::id())).unwrap();
    let lock = std::fs::File::open(&lock_path).unwrap();
    use std::os::fd::AsRawFd;
    // SAFETY: flock(2) on a descriptor this test owns.
    assert_eq!(
        unsafe { libc::flock(lock.as_raw_fd(), libc::LOCK_EX | libc::LOCK_NB) },
        0
    );
    let started = Instant::now();
    let o = arena(&["merge", merged.to_str().unwrap(), shard.to_str().unwrap()]);
    refused((o, started.elapsed()), std::process::id());
    assert!(!merged.join("games.csv").exists() && !merged.join("run.json").exists());
    drop(lock);
    // A FIFO in the output is refused at once, not waited on.
    let fifo = std::ffi::CString::new(merged.join("games.jsonl").to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    let (o, took) = arena_within(
        &["merge", merged.to_str().unwrap(), shard.to_str().unwrap()],
        Duration::from_secs(30),
    );
    assert!(took < Duration::from_secs(20), "the merge waited on a FIFO");
    assert!(!o.status.success(), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("games.jsonl"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn check_bot_transcripts_are_safe_and_a_grandchild_does_not_hide_a_crash() {
    let dir = Dir::new("rel-check");
    let o = arena(&[
        "check-bot",
        "--transcript",
        "/nonexistent/folder/t.txt",
        "--",
        &bot("random"),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stderr));
    assert!(text(&o.stderr).contains("does not exist"));
    // Two runs, two new transcript files.
    let path = |o: &std::process::Output| {
        text(&o.stdout)
            .lines()
            .find_map(|l| l.split("transcript: ").nth(1).map(str::to_string))
            .unwrap()
    };
    let args = [
        "check-bot",
        "--ruleset",
        "kalah",
        "--margin-ms",
        "1000",
        "--",
        &bot("random"),
    ];
    let (a, b) = (arena(&args), arena(&args));
    assert_ne!(path(&a), path(&b));
    let _ = std::fs::remove_file(path(&a));
    let _ = std::fs::remove_file(path(&b));
    // The bot exits on `go` while a process it started keeps its stdout open: a crash, found
    // when the bot exits, not a timeout after the whole (long) move time.
    let out = dir.join("run");
    let bad = format!("python3 {} crash-keep-out", misbehave());
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1", "--movetime", "120000"],
        &[bot_arg("bad", &bad), bot_arg("r", &bot("random"))],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for row in games(&out) {
        assert_eq!(row["termination"], "crash", "{row:?}");
    }
}

/// A bot that prints `id name ...` lines without end during its handshake (a long handshake
/// timeout): what the arena keeps of them is bounded, and the flood is a `garbage` fault, in a
/// tournament and in check-bot alike (#32: 3.5 GiB in 8 s before, and no end).
#[test]
fn a_handshake_flood_is_a_garbage_fault_in_bounded_memory() {
    let dir = Dir::new("rel-id-flood");
    let out = dir.join("run");
    let flood = format!("python3 {} id-flood", misbehave());
    let words = run_words(
        &out,
        &["--pairs", "1", "--handshake-timeout", "60000"],
        &[bot_arg("flood", &flood), bot_arg("b", &bot("random"))],
    );
    let mut child = spawn_arena(&words);
    let mut peak = 0;
    let ended = wait_until(Duration::from_secs(50), || {
        peak = peak.max(peak_rss_kib(child.id()));
        matches!(child.try_wait(), Ok(Some(_)))
    });
    if !ended {
        let _ = child.kill();
    }
    let done = child.wait_with_output().unwrap();
    assert!(ended, "still running after 50 s: {}", text(&done.stderr));
    assert!(peak < 300 * 1024, "the arena peaked at {peak} KiB");
    // The arena's check before the first game refuses the player, naming the flood.
    let err = text(&done.stderr);
    let refused = "player `flood` cannot start: garbage: more than 512 `id` or `option` lines";
    assert!(err.contains(refused), "{err}");

    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .env("TMPDIR", arena_tmp())
        .args([
            "check-bot",
            "--timeout-ms",
            "60000",
            "--",
            "python3",
            &misbehave(),
            "id-flood",
        ])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut peak = 0;
    let ended = wait_until(Duration::from_secs(50), || {
        peak = peak.max(peak_rss_kib(child.id()));
        matches!(child.try_wait(), Ok(Some(_)))
    });
    if !ended {
        let _ = child.kill();
    }
    let done = child.wait_with_output().unwrap();
    assert!(ended, "check-bot still running after 50 s");
    assert!(peak < 300 * 1024, "check-bot peaked at {peak} KiB");
    let report = text(&done.stdout);
    assert!(
        report.contains("FAIL") && report.contains("`id` or `option` lines"),
        "{report}"
    );
}

/// A signal while the bots are still starting (a bot slow to finish its handshake): no bot may
/// outlive the arena (#32: 2 of 5, 3 of 8 and 6 of 10 tries left one running); SIGHUP (a closed
/// terminal, a scheduler's hangup) is handled like SIGTERM.
#[test]
fn a_signal_during_the_start_leaves_no_bot_behind() {
    let dir = Dir::new("rel-start-signal");
    for (try_no, sig) in [libc::SIGTERM, libc::SIGINT, libc::SIGHUP, libc::SIGTERM]
        .into_iter()
        .enumerate()
    {
        let out = dir.join(&format!("run{try_no}"));
        let pids = dir.join(&format!("pids{try_no}"));
        let slow = format!(
            "python3 {} slow-handshake --pid-file {}",
            misbehave(),
            pids.display()
        );
        let words = run_words(
            &out,
            &["--pairs", "1", "--handshake-timeout", "20000"],
            &[bot_arg("slow", &slow), bot_arg("b", &bot("random"))],
        );
        let child = spawn_arena(&words);
        assert!(
            wait_until(Duration::from_secs(20), || !pids_in(&pids).is_empty()),
            "the bot did not start"
        );
        std::thread::sleep(Duration::from_millis(300));
        signal(&child, sig);
        let done = child.wait_timeout_or_kill(Duration::from_secs(20));
        let err = text(&done.stderr);
        assert!(
            err.contains("while starting the bots"),
            "signal {sig}: {err}"
        );
        assert_ne!(
            done.status.code(),
            None,
            "signal {sig} killed the arena: {err}"
        );
        std::thread::sleep(Duration::from_millis(200));
        for pid in pids_in(&pids) {
            assert!(!alive(pid), "signal {sig}: bot {pid} outlived the arena");
        }
    }
}

/// `kill -9` of the arena: a bot that ignores the end of its input (hanging in a move) still
/// dies with it (the parent-death signal, on Linux).
#[test]
fn a_killed_arena_takes_its_bots_with_it() {
    let dir = Dir::new("rel-kill-9");
    let out = dir.join("run");
    let pids = dir.join("pids");
    let hang = format!("python3 {} hang --pid-file {}", misbehave(), pids.display());
    let words = run_words(
        &out,
        &["--pairs", "1", "--movetime", "60000"],
        &[bot_arg("hang", &hang), bot_arg("b", &bot("random"))],
    );
    let mut child = start_run(&words, &out);
    // The preflight's bot has quit; wait for the game's.
    assert!(
        wait_until(Duration::from_secs(20), || pids_in(&pids).len() >= 2),
        "the game's bot did not start"
    );
    std::thread::sleep(Duration::from_millis(500));
    child.kill().unwrap();
    child.wait().unwrap();
    // At once, by the kernel; 15 s for a busy machine to get round to it.
    let gone = wait_until(Duration::from_secs(15), || {
        pids_in(&pids).into_iter().all(|pid| !alive(pid))
    });
    let left: Vec<u32> = pids_in(&pids).into_iter().filter(|&p| alive(p)).collect();
    for &pid in &left {
        // SAFETY: kill(2) of a leftover test bot.
        unsafe {
            libc::kill(pid as libc::pid_t, libc::SIGKILL);
        }
    }
    assert!(gone, "bots {left:?} outlived the killed arena");
}

/// Messages that misled (#32): each now says what was wrong and where.
#[test]
fn messages_say_what_was_wrong_and_where() {
    let dir = Dir::new("rel-messages");
    let random = bot("random");
    // A byte-order mark before `mancalaok`: the handshake failure shows what was received.
    let bom = format!("python3 {} bom", misbehave());
    let out = dir.join("bom");
    let o = arena_words(&run_words(
        &out,
        &["--handshake-timeout", "1000"],
        &[bot_arg("bom", &bom), bot_arg("b", &random)],
    ));
    let err = text(&o.stderr);
    assert!(
        err.contains("\"\\u{feff}mancalaok\"") && err.contains("byte-order mark"),
        "{err}"
    );
    // check-bot cannot write its transcript (its log beside it can be): an error, not a silent
    // exit 0; and a transcript under /proc cannot even have its log.
    let folder = dir.join("t.txt");
    std::fs::create_dir_all(&folder).unwrap();
    let folder = folder.display().to_string();
    let o = arena(&["check-bot", "--transcript", &folder, "--", &random]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!("cannot write the transcript to {folder}")),
        "{err}"
    );
    let o = arena(&["check-bot", "--transcript", "/proc/version", "--", &random]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o.stdout));
    assert!(
        text(&o.stderr).contains("/proc/version"),
        "{}",
        text(&o.stderr)
    );
    // A NaN anchor is refused before rating.
    let out = dir.join("played");
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1", "--movetime", "50"],
        &[bot_arg("a", &random), bot_arg("b", &random)],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let played = out.display().to_string();
    let o = arena(&["rate", &played, "--anchor", "a=NaN"]);
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("`NaN` is not a number"),
        "{}",
        text(&o.stderr)
    );
    // A bundled name that is a path is no bundled bot.
    let file = dir.join("sh.toml");
    std::fs::write(
        &file,
        "[[bot]]\nname = \"sh\"\nbundled = \"../../../bin/sh\"\n",
    )
    .unwrap();
    let o = arena(&[
        "run",
        "--out",
        &dir.join("sh").display().to_string(),
        &file.display().to_string(),
    ]);
    assert!(
        text(&o.stderr).contains("there is no bundled bot `../../../bin/sh`"),
        "{}",
        text(&o.stderr)
    );
    // max_pairs = 0 in a bands file is named as the file's key, not as --pairs.
    let example =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("bands.example.toml"))
            .unwrap();
    let openings = Path::new(env!("CARGO_MANIFEST_DIR")).join("openings/kalah-6x4-balanced.txt");
    let bands = example.replace("max_pairs = 300", "max_pairs = 0").replace(
        "openings = \"openings/kalah-6x4-balanced.txt\"",
        &format!("openings = {:?}", openings.display().to_string()),
    );
    let file = dir.join("bands.toml");
    std::fs::write(&file, bands).unwrap();
    let o = arena(&[
        "gate",
        &file.display().to_string(),
        "--out",
        &dir.join("g").display().to_string(),
    ]);
    let err = text(&o.stderr);
    assert!(
        err.contains("bands.toml: max_pairs must be at least 1"),
        "{err}"
    );
    assert!(!err.contains("--pairs"), "{err}");
}

// Issue 32: hostile folders and files.

/// `arena WORDS...` with a deadline (then SIGKILL): a command that hangs fails the test instead
/// of the suite.
fn arena_within(words: &[&str], limit: Duration) -> (std::process::Output, Duration) {
    let started = Instant::now();
    let child = spawn_arena(&words.iter().map(|w| w.to_string()).collect::<Vec<_>>());
    let out = child.wait_timeout_or_kill(limit);
    (out, started.elapsed())
}

/// A finished one-pair run of two random bots in `out`.
fn small_run(out: &Path) {
    let random = bot("random");
    let o = arena_words(&run_words(
        out,
        &["--pairs", "1"],
        &[bot_arg("a", &random), bot_arg("b", &random)],
    ));
    assert!(o.status.success(), "{}", text(&o.stderr));
}

#[test]
fn r32_run_folder_files_are_never_links_or_fifos() {
    let dir = Dir::new("rel-r32-links");
    let out = dir.join("run");
    small_run(&out);
    let out_s = out.to_str().unwrap();
    let games = out.join("games.csv");
    let saved = std::fs::read(&games).unwrap();
    // A victim outside the folder, as large as a real file someone would miss.
    let victim = dir.join("precious.txt");
    let precious = "precious data\n".repeat(1 << 16);
    std::fs::write(&victim, &precious).unwrap();

    // games.csv a link: refused, naming the file, and the link's target left whole.
    std::fs::remove_file(&games).unwrap();
    std::os::unix::fs::symlink(&victim, &games).unwrap();
    let (o, _) = arena_within(
        &["run", "--resume", out_s, "--quiet"],
        Duration::from_secs(60),
    );
    let err = text(&o.stderr);
    assert!(!o.status.success(), "resume through a link: {err}");
    assert!(
        err.contains("games.csv") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        precious,
        "the target was written"
    );
    let (o, _) = arena_within(&["rate", out_s], Duration::from_secs(60));
    assert!(!o.status.success() && text(&o.stderr).contains("symbolic link"));
    assert_eq!(std::fs::read_to_string(&victim).unwrap(), precious);
    std::fs::remove_file(&games).unwrap();
    std::fs::write(&games, &saved).unwrap();

    // A bot's log a link to a file larger than the log cap: the bot's stderr does not go into
    // the target, and the target is not cut to the cap.
    let log = out.join("logs/a.stderr.log");
    std::fs::remove_file(&log).unwrap();
    std::os::unix::fs::symlink(&victim, &log).unwrap();
    let (o, _) = arena_within(
        &[
            "run",
            "--resume",
            out_s,
            "--quiet",
            "--no-plots",
            "--log-cap",
            "64K",
        ],
        Duration::from_secs(60),
    );
    let err = text(&o.stderr);
    assert!(!o.status.success(), "a log through a link: {err}");
    assert!(
        err.contains("a.stderr.log") && err.contains("symbolic link"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(&victim).unwrap(),
        precious,
        "the target was cut"
    );
    std::fs::remove_file(&log).unwrap();

    // games.csv a FIFO: every reader says so at once instead of waiting for a writer.
    std::fs::remove_file(&games).unwrap();
    let fifo = std::ffi::CString::new(games.to_str().unwrap()).unwrap();
    // SAFETY: mkfifo(3) with a valid C string.
    assert_eq!(unsafe { libc::mkfifo(fifo.as_ptr(), 0o600) }, 0);
    for words in [
        vec!["run", "--resume", out_s, "--quiet", "--no-plots"],
        vec!["rate", out_s],
        vec!["plot", out_s],
    ] {
        let (o, took) = arena_within(&words, Duration::from_secs(30));
        let err = text(&o.stderr);
        assert!(
            took < Duration::from_secs(20),
            "{words:?} waited on the FIFO"
        );
        assert!(!o.status.success(), "{words:?}: {err}");
        assert!(
            err.contains("games.csv") && err.contains("FIFO"),
            "{words:?}: {err}"
        );
    }
}

/// The `arena ...` command quoted in backticks after `lead` in `text`, split into words by a
/// POSIX shell as a user pasting it would have it split (the leading `arena` dropped).
fn pasted_command(text: &str, lead: &str) -> Vec<String> {
    let at = text
        .find(lead)
        .unwrap_or_else(|| panic!("no `{lead}` in {text}"));
    let rest = &text[at + lead.len()..];
    let start = rest.find("`arena ").expect("a command in backticks") + "`arena ".len();
    let command = &rest[start..start + rest[start..].find('`').expect("closing backtick")];
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "for w in {command}; do printf '%s\\n' \"$w\"; done"
        ))
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "`{command}` is not valid shell: {}",
        text_of(&o.stderr)
    );
    text_of(&o.stdout).lines().map(String::from).collect()
}

fn text_of(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

#[test]
fn r32_printed_resume_commands_paste_into_a_shell() {
    let dir = Dir::new("rel-r32-quote");
    let out = dir.join("with space/it's $HOME run");
    let out_s = out.to_str().unwrap().to_string();
    small_run(&out);
    // Starting again into the finished folder: the hint to rate it again (a finished run has
    // nothing to resume).
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1"],
        &[bot_arg("a", &bot("random")), bot_arg("b", &bot("random"))],
    ));
    assert!(!o.status.success());
    assert_eq!(
        pasted_command(&text(&o.stderr), "choose another --out ("),
        ["rate", out_s.as_str()]
    );

    // Interrupted by SIGTERM while a bot thinks: the hint to finish it.
    let hang = format!("python3 {} hang", misbehave());
    let out2 = dir.join("with space/second run");
    let child = start_run(
        &run_words(
            &out2,
            &["--pairs", "1", "--movetime", "60000"],
            &[bot_arg("h", &hang), bot_arg("r", &bot("random"))],
        ),
        &out2,
    );
    signal(&child, libc::SIGTERM);
    let o = child.wait_timeout_or_kill(Duration::from_secs(20));
    let err = text(&o.stderr);
    assert!(err.contains("SIGTERM"), "{err}");
    assert_eq!(
        pasted_command(&err, "resume with "),
        ["run", "--resume", out2.to_str().unwrap()]
    );
}

#[test]
fn r32_a_run_folder_deleted_mid_run_stops_the_run_naming_it() {
    let dir = Dir::new("rel-r32-deleted");
    let out = dir.join("run");
    let random = bot("random");
    let child = start_run(
        &run_words(
            &out,
            &["--pairs", "100000", "--concurrency", "1"],
            &[bot_arg("a", &random), bot_arg("b", &random)],
        ),
        &out,
    );
    assert!(
        wait_until(Duration::from_secs(30), || rows_in(&out) > 2),
        "no games"
    );
    std::fs::remove_dir_all(&out).unwrap();
    let o = child.wait_timeout_or_kill(Duration::from_secs(20));
    let err = text(&o.stderr);
    assert!(
        o.status.code().is_some(),
        "still playing 20 s after the folder was deleted"
    );
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains(out.to_str().unwrap()) && err.contains("deleted"),
        "{err}"
    );
}

#[test]
fn r32_logs_as_a_file_is_named() {
    let dir = Dir::new("rel-r32-logs");
    let out = dir.join("run");
    std::fs::create_dir_all(&out).unwrap();
    std::fs::write(out.join("logs"), "not a folder\n").unwrap();
    let random = bot("random");
    let o = arena_words(&run_words(
        &out,
        &["--pairs", "1"],
        &[bot_arg("a", &random), bot_arg("b", &random)],
    ));
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains(out.join("logs").to_str().unwrap()) && err.contains("not a folder"),
        "{err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("logs")).unwrap(),
        "not a folder\n"
    );
}

/// 10,000 players (a 430 KB tournament file): the schedule's 50 million encounters are computed
/// from their index, not stored (#32: 785 MiB before the first game, 11.8 GiB for 100,000).
#[test]
fn ten_thousand_players_start_in_little_memory() {
    let dir = Dir::new("rel-many-players");
    let file = dir.join("many.toml");
    let mut toml = String::from("pairs = 1\n");
    for i in 0..10_000 {
        toml.push_str(&format!(
            "[[bot]]\nname = \"p{i}\"\ncmd = \"{}\"\n",
            bot("random")
        ));
    }
    std::fs::write(&file, toml).unwrap();
    let out = dir.join("run");
    let words: Vec<String> = [
        "run",
        "--quiet",
        "--no-plots",
        "--concurrency",
        "1",
        "--out",
        out.to_str().unwrap(),
        file.to_str().unwrap(),
    ]
    .map(String::from)
    .to_vec();
    let child = spawn_arena(&words);
    // The schedule is made before the bots start; give the arena a moment past it.
    let mut peak = 0;
    wait_until(Duration::from_secs(4), || {
        peak = peak.max(peak_rss_kib(child.id()));
        false
    });
    signal(&child, libc::SIGINT);
    let done = child.wait_timeout_or_kill(Duration::from_secs(30));
    assert!(peak > 0, "the arena was gone: {}", text(&done.stderr));
    assert!(peak < 200 * 1024, "the arena peaked at {peak} KiB");
}

/// The opt-in sandbox (#32): bots run as the same user, so a hostile bot could SIGKILL its
/// opponent (a `crash` forfeit for the victim), write anywhere and open connections. Played
/// once without the sandbox (each attack succeeds: the test can see them) and once with it
/// (each fails, the victim plays its game out).
#[test]
fn a_sandboxed_bot_can_neither_signal_its_opponent_nor_write_outside_nor_connect() {
    if !Path::new("/usr/bin/bwrap").exists() {
        assert!(!in_ci(), "CI must install bubblewrap (.ci/run)");
        skipped(
            "a_sandboxed_bot_can_neither_signal_its_opponent_nor_write_outside_nor_connect",
            "bubblewrap (/usr/bin/bwrap) is not installed",
        );
        return;
    }
    let listener = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let port = listener.local_addr().unwrap().port().to_string();
    let dir = Dir::new("rel-sandbox");
    let attack = |sandboxed: bool| {
        let tag = if sandboxed { "in" } else { "out" };
        let own = dir.join(&format!("own-{tag}"));
        std::fs::create_dir_all(&own).unwrap();
        let pids = dir.join(&format!("victim-{tag}.pids"));
        let outside = dir.join(&format!("outside-{tag}.txt"));
        let report = own.join("report.json");
        let random = bot("random");
        let victim = format!(
            "python3 {} behave --pid-file {} -- {random}",
            misbehave(),
            pids.display()
        );
        let hostile = vec![
            "--bot".to_string(),
            "name=hostile".into(),
            format!(
                "cmd=python3 {} hostile --target-file {} --outside {} --port {port} --report {} -- {random}",
                misbehave(),
                pids.display(),
                outside.display(),
                report.display()
            ),
            format!("dir={}", own.display()),
            format!("sandbox={sandboxed}"),
        ];
        let out = dir.join(&format!("run-{tag}"));
        let o = arena_words(&run_words(
            &out,
            &["--pairs", "1", "--movetime", "2000", "--concurrency", "1"],
            &[hostile, bot_arg("victim", &victim)],
        ));
        assert!(o.status.success(), "{tag}: {}", text(&o.stderr));
        let report = std::fs::read_to_string(&report).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let games = std::fs::read_to_string(out.join("games.csv")).unwrap();
        (report, outside.exists(), games)
    };
    let (report, wrote, games) = attack(false);
    assert!(report.contains("\"kill\": \"killed\""), "{report}");
    assert!(report.contains("\"connect\": \"connected\""), "{report}");
    assert!(wrote, "{report}");
    assert!(games.contains("crash,victim"), "{games}");
    let (report, wrote, games) = attack(true);
    assert!(!report.contains("killed"), "{report}");
    assert!(!report.contains("\"connected\""), "{report}");
    assert!(!wrote && !report.contains("\"written\""), "{report}");
    assert!(
        games.lines().skip(1).all(|g| g.contains(",normal,,")),
        "a game was not played out: {games}"
    );
}
