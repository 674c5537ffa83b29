//! `arena tune` end to end (issue #31), with the bundled alpha-beta at fixed depths so that every
//! game, and so the whole trajectory, is deterministic: a tune cut by `kill -9` and resumed ends
//! with the same trajectory, files and result as one that ran through; the verification SPRT
//! reports its verdict; parameters can come from the bot's own declarations; the iterations
//! play the whole opening suite.

mod util;

use std::path::Path;
use std::time::{Duration, Instant};

use util::*;

const PARAMS: &str = "# two evaluation weights of the bundled alpha-beta\n\
                      EvalCapture, 0, -16, 16, 2, 0.05\n\
                      EvalMobility, int, 0, -16, 16, 2, 0.05\n";

fn tune_args(out: &Path, params: &Path, iterations: &str) -> Vec<String> {
    [
        "tune",
        "--quiet",
        "--no-plots",
        "--bot",
        &bot("alphabeta"),
        // Not Hard: its solver's set-up at every `newgame` (0.65 s of CPU in a debug build)
        // would be most of these tests' time. That a slow set-up on a busy machine no longer
        // costs a game (what made this trajectory differ at iteration 22 after a resume, #43)
        // is tests/load.rs's `a_bot_that_gets_ready_slowly_without_cpu_is_waited_for`.
        "--bot-option",
        "Level=normal",
        "--params",
        params.to_str().unwrap(),
        "--iterations",
        iterations,
        "--pairs-per-iteration",
        "2",
        "--depth",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--no-verify",
        "--out",
        out.to_str().unwrap(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect()
}

fn read(path: &Path) -> String {
    std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

#[test]
fn a_tune_cut_by_kill_9_resumes_on_the_same_trajectory() {
    let dir = Dir::new("tune-resume");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let full = dir.join("full");
    let cut = dir.join("cut");
    let iterations = "30";

    let args = tune_args(&full, &params, iterations);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    let trajectory = read(&full.join("tune.csv"));
    assert_eq!(trajectory.lines().count(), 31, "{trajectory}");
    // The tune moved: some iteration had a decisive result.
    assert!(
        trajectory
            .lines()
            .skip(1)
            .any(|l| l.split(',').nth(2) != Some("0")),
        "{trajectory}"
    );

    let args = tune_args(&cut, &params, iterations);
    bin_dir();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(&args)
        .spawn()
        .unwrap();
    let started = Instant::now();
    // Kill it in the middle of an iteration: once iteration 8 has a game on disk.
    loop {
        let n = std::fs::read_to_string(cut.join("iter-0008/games.csv"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n >= 2 || started.elapsed() > Duration::from_secs(120) {
            break;
        }
        std::thread::sleep(Duration::from_millis(2));
    }
    child.kill().unwrap(); // SIGKILL: no chance to tidy up
    child.wait().unwrap();
    let so_far = read(&cut.join("tune.json"));
    assert!(
        so_far.contains("\"finished\": false"),
        "the tune must have been cut short"
    );

    let o = arena(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--resume",
        cut.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(&cut.join("tune.csv")), trajectory);
    assert_eq!(read(&cut.join("tuned.txt")), read(&full.join("tuned.txt")));
    assert_eq!(
        read(&cut.join("tuned.toml")),
        read(&full.join("tuned.toml"))
    );
    // Every iteration played the same games.
    for it in 0..30 {
        let name = format!("iter-{it:04}");
        let strip = |rows: Vec<std::collections::BTreeMap<String, String>>| {
            let mut rows: Vec<_> = rows
                .into_iter()
                .map(|mut r| {
                    r.retain(|k, _| !k.contains("ms"));
                    r
                })
                .collect();
            rows.sort_by_key(|r| r["game_id"].parse::<u64>().unwrap());
            rows
        };
        assert_eq!(
            strip(games(&cut.join(&name))),
            strip(games(&full.join(&name))),
            "{name}"
        );
    }
    // A resume of a finished tune replays it from disk and changes nothing.
    let o = arena(&["tune", "--no-plots", "--resume", cut.to_str().unwrap()]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(
        text(&o.stderr).contains("(from disk)"),
        "{}",
        text(&o.stderr)
    );
    assert_eq!(read(&cut.join("tune.csv")), trajectory);
}

#[test]
fn the_verification_reports_its_verdict_and_can_be_run_again() {
    let dir = Dir::new("tune-verify");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let out = dir.join("t");
    let mut args = tune_args(&out, &params, "4");
    args.retain(|a| a != "--no-verify");
    args.extend(
        [
            "--verify-depth",
            "3",
            "--verify-max-pairs",
            "6",
            "--elo0",
            "0",
            "--elo1",
            "5",
        ]
        .map(String::from),
    );
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = arena(&args);
    let code = o.status.code();
    assert!(
        matches!(code, Some(0 | 3 | 4)),
        "{code:?} {}",
        text(&o.stderr)
    );
    let stdout = text(&o.stdout);
    assert!(stdout.contains("verified"), "{stdout}");
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("tune.json"))).unwrap();
    let verdict = json["verify"]["verdict"].as_str().unwrap().to_string();
    let expected = match code {
        Some(0) => "H1",
        Some(3) => "H0",
        _ => "inconclusive",
    };
    assert_eq!(verdict, expected);
    assert!(json["verify"]["pairs"].as_u64().unwrap() <= 6);
    assert_eq!(json["finished"], true);
    // The verification's games are a run folder of its own, played at depth 3.
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("verify/run.json"))).unwrap();
    assert_eq!(run["config"]["time"]["depth"], 3, "{run}");
    // `--verify DIR` runs it again, into verify-2/, without playing the tune.
    let o = arena(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--verify",
        out.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), code, "{}", text(&o.stderr));
    assert!(out.join("verify-2/games.csv").exists());
    assert!(!out.join("iter-0004").exists());
}

#[test]
fn parameters_come_from_the_bots_declarations() {
    let dir = Dir::new("tune-declared");
    let out = dir.join("t");
    let o = arena(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--no-verify",
        "--bot",
        &bot("alphabeta"),
        "--tune-options",
        "EvalCapture,evalstore",
        "--iterations",
        "2",
        "--pairs-per-iteration",
        "1",
        "--depth",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let params = read(&out.join("params.txt"));
    assert!(
        params.contains("EvalCapture, int, 0, -64, 64, 6.4, 0.002"),
        "{params}"
    );
    assert!(
        params.contains("EvalStore, int, 4, -64, 64, 6.4, 0.002"),
        "{params}"
    );
    let tuned = read(&out.join("tuned.txt"));
    assert!(tuned.starts_with("EvalCapture,"), "{tuned}");
    // Not a spin option, or not an option at all: refused before a game.
    for (names, says) in [
        ("Noise", "not a spin option"),
        ("Nope", "declares no option"),
    ] {
        let o = arena(&[
            "tune",
            "--quiet",
            "--no-verify",
            "--bot",
            &bot("alphabeta"),
            "--tune-options",
            names,
            "--iterations",
            "1",
            "--depth",
            "1",
            "--out",
            dir.join(names).to_str().unwrap(),
        ]);
        assert!(!o.status.success());
        assert!(text(&o.stderr).contains(says), "{}", text(&o.stderr));
    }
}

#[test]
fn a_bad_parameters_file_is_refused_with_its_line() {
    let dir = Dir::new("tune-bad");
    let params = dir.join("p.txt");
    std::fs::write(
        &params,
        "EvalCapture, 0, -16, 16, 2, 0.05\nEvalStore, 40, 0, 16, 1, 0.002\n",
    )
    .unwrap();
    let args = tune_args(&dir.join("t"), &params, "2");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = arena(&args);
    assert!(!o.status.success());
    assert!(text(&o.stderr).contains("line 2"), "{}", text(&o.stderr));
    assert!(!dir.join("t/iter-0000").exists());
}

/// `--resume` and `--verify DIR` go on as the tune's `tune.json` says: a flag that sets up a tune
/// is refused, naming it with its value and the tune's own, before anything is played or
/// written; `--concurrency`, the output flags and the verification's flags apply, and the
/// verification's are recorded.
#[test]
fn resume_refuses_setup_flags_and_takes_the_verifications() {
    let dir = Dir::new("tune-resume-flags");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let out = dir.join("t");
    let mut args = tune_args(&out, &params, "2");
    // Depth 1, one pair an iteration, and no verification: quick.
    for (flag, value) in [("--depth", "1"), ("--pairs-per-iteration", "1")] {
        let at = args.iter().position(|a| a == flag).unwrap();
        args[at + 1] = value.to_string();
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    let before = read(&out.join("tune.json"));
    let out_s = out.to_str().unwrap();

    // A new tune into the finished one's folder is refused without offering --resume, which
    // would only replay it (issue 47).
    let o = arena(&args);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.contains("holds a finished tune"), "{err}");
    assert!(
        err.contains(&format!("arena tune --verify {out_s}")),
        "{err}"
    );
    assert!(!err.contains("--resume"), "{err}");

    for mode in ["--resume", "--verify"] {
        let o = arena(&[
            "tune",
            "--quiet",
            mode,
            out_s,
            "--iterations",
            "5",
            "--depth",
            "3",
            "--seed",
            "9",
            "--concurrency",
            "1",
        ]);
        assert_eq!(o.status.code(), Some(1), "{mode}: {}", text(&o.stderr));
        let err = text(&o.stderr);
        for says in [
            "--iterations 5 (the tune's: 2)",
            "--depth 3 (the tune's: 1)",
            "--seed 9 (the tune's: 5)",
            "would be ignored; drop them",
        ] {
            assert!(err.contains(says), "{mode}: no `{says}` in {err}");
        }
        assert!(!err.contains("--concurrency"), "{err}");
        assert_eq!(read(&out.join("tune.json")), before, "{mode} changed it");
        assert!(!out.join("iter-0002").exists() && !out.join("verify").exists());
    }

    // Allowed: --concurrency and the output flags (the finished tune is replayed from disk).
    let o = arena(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--resume",
        out_s,
        "--concurrency",
        "1",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(read(&out.join("tune.json")), before);

    // The verification's flags apply to a resumed tune that had none, and are recorded.
    let o = arena(&[
        "tune",
        "--quiet",
        "--no-plots",
        "--resume",
        out_s,
        "--verify-depth",
        "1",
        "--verify-max-pairs",
        "2",
        "--elo1",
        "50",
    ]);
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "{}",
        text(&o.stderr)
    );
    let json: serde_json::Value = serde_json::from_str(&read(&out.join("tune.json"))).unwrap();
    let verify = &json["setup"]["verify"];
    assert_eq!(verify["max_pairs"], 2, "{json}");
    assert_eq!(verify["elo1"], 50.0);
    assert_eq!(verify["elo0"], 0.0);
    assert_eq!(verify["game"]["depth"], 1);
    assert!(json["verify"]["pairs"].as_u64().unwrap() <= 2);
    let run: serde_json::Value = serde_json::from_str(&read(&out.join("verify/run.json"))).unwrap();
    assert_eq!(run["config"]["time"]["depth"], 1, "{run}");
    assert_eq!(json["steps"].as_array().unwrap().len(), 2);
}

/// #48 point 16: a tune whose games were mostly `crash` forfeits (12 of 16) exited 0, moved θ on
/// those results and never said so. Each iteration's forfeits are counted by reason and
/// printed, and a tune whose iteration was mostly forfeits stops with a non-zero exit naming
/// the reason, before θ moves on it.
#[test]
fn a_tune_counts_its_forfeits_and_stops_when_they_dominate() {
    let dir = Dir::new("tune-forfeits");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let out = dir.join("t");
    // Forwards to the real bot and crashes at its second `go` of each process.
    let crashing = format!(
        "cmd=python3 {} crash-on-go --after 1 -- {}",
        misbehave(),
        bot("alphabeta")
    );
    let o = arena(&[
        "tune",
        "--no-plots",
        "--no-verify",
        "--bot",
        "name=crashy",
        &crashing,
        "--params",
        params.to_str().unwrap(),
        "--iterations",
        "2",
        "--pairs-per-iteration",
        "3",
        "--depth",
        "1",
        "--concurrency",
        "1",
        "--out",
        out.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "the tune went on: {err}");
    assert!(err.contains("forfeit"), "{err}");
    assert!(err.contains("crash"), "{err}");
    // It stopped at the first iteration, before θ moved on its games.
    assert!(!out.join("iter-0001").exists(), "{err}");
    if let Ok(text) = std::fs::read_to_string(out.join("tune.json")) {
        let tune: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(tune["steps"].as_array().map(Vec::len), Some(0), "{tune}");
    }
}

/// An iteration is a short run and an openings list is used in order: every iteration replayed
/// the suite's first two openings, so the tune fitted the weights to those. Now each starts at a
/// place drawn from its seed.
#[test]
fn the_iterations_play_the_whole_opening_suite_not_its_first_openings() {
    let dir = Dir::new("tune-openings");
    let params = dir.join("params.txt");
    std::fs::write(&params, PARAMS).unwrap();
    let out = dir.join("tune");
    let args = tune_args(&out, &params, "8");
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    arena_ok(&args);
    let mut used = std::collections::BTreeSet::new();
    for it in 0..8 {
        for game in games(&out.join(format!("iter-{it:04}"))) {
            used.insert(game["opening"].clone());
        }
    }
    // Two pairs an iteration: the suite's first two openings in every one before.
    assert!(used.len() >= 8, "{} openings used: {used:?}", used.len());
}
