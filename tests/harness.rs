//! The tournament harness with real bot processes: schedules, determinism, every fault a bot can
//! commit, and resume after `kill -9`. Limits are by depth or generous time, never asserted
//! timings.

mod util;

use std::collections::BTreeMap;
use std::path::Path;
use std::time::{Duration, Instant};

use util::*;

fn without_timing(mut rows: Vec<BTreeMap<String, String>>) -> Vec<BTreeMap<String, String>> {
    for row in &mut rows {
        for col in TIMING_COLUMNS {
            row.remove(col);
        }
    }
    rows.sort_by_key(|r| r["game_id"].parse::<u64>().unwrap());
    rows
}

fn bot_arg(name: &str, cmd: &str) -> Vec<String> {
    vec!["--bot".into(), format!("name={name}"), format!("cmd={cmd}")]
}

fn run_args(out: &Path, extra: &[&str], bots: &[Vec<String>]) -> Vec<String> {
    let mut args: Vec<String> = vec![
        "run".into(),
        "--quiet".into(),
        "--no-plots".into(),
        "--out".into(),
        out.display().to_string(),
    ];
    args.extend(extra.iter().map(|s| s.to_string()));
    for b in bots {
        args.extend(b.iter().cloned());
    }
    args
}

fn arena_run(out: &Path, extra: &[&str], bots: &[Vec<String>]) -> std::process::Output {
    let args = run_args(out, extra, bots);
    let refs: Vec<&str> = args.iter().map(String::as_str).collect();
    arena(&refs)
}

#[test]
fn round_robin_plays_every_pair_with_colours_swapped() {
    let dir = Dir::new("rr");
    let out = dir.join("run");
    let bots = [
        bot_arg("r1", &bot("random")),
        bot_arg("r2", &bot("random")),
        bot_arg("g", &bot("greedy")),
    ];
    let o = arena_run(
        &out,
        &["--pairs", "3", "--seed", "5", "--movetime", "5000"],
        &bots,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = without_timing(games(&out));
    assert_eq!(rows.len(), 3 * 3 * 2, "3 encounters x 3 pairs x 2 games");
    for pair in rows.chunks(2) {
        assert_eq!(pair[0]["pair_id"], pair[1]["pair_id"]);
        assert_eq!(
            pair[0]["first"], pair[1]["second"],
            "colours swap inside a pair"
        );
        assert_eq!(
            pair[0]["opening"], pair[1]["opening"],
            "same opening inside a pair"
        );
        for row in pair {
            assert_eq!(row["termination"], "normal", "{row:?}");
            let total: u32 = row["score_first"].parse::<u32>().unwrap()
                + row["score_second"].parse::<u32>().unwrap();
            assert_eq!(total, 48, "seeds conserved in the final score");
        }
    }
    for file in ["run.json", "games.jsonl", "games.pgn"] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    let pgn = std::fs::read_to_string(out.join("games.pgn")).unwrap();
    assert_eq!(pgn.matches("[White ").count(), 18);
}

#[test]
fn same_seed_same_games_whatever_the_concurrency() {
    let dir = Dir::new("determinism");
    let bots = [
        vec![
            "--bot".into(),
            "name=ab".into(),
            format!("cmd={}", bot("alphabeta")),
            "option.Depth=3".into(),
        ],
        bot_arg("greedy", &bot("greedy")),
        bot_arg("random", &bot("random")),
    ];
    let common = [
        "--pairs",
        "2",
        "--seed",
        "42",
        "--opening-plies",
        "3",
        "--movetime",
        "10000",
    ];
    let a = dir.join("c1");
    let b = dir.join("c2");
    let o1 = arena_run(&a, &[&common[..], &["--concurrency", "1"]].concat(), &bots);
    let o2 = arena_run(&b, &[&common[..], &["--concurrency", "2"]].concat(), &bots);
    assert!(
        o1.status.success() && o2.status.success(),
        "{}{}",
        text(&o1.stderr),
        text(&o2.stderr)
    );
    let (ra, rb) = (without_timing(games(&a)), without_timing(games(&b)));
    assert_eq!(ra.len(), 12);
    assert_eq!(ra, rb);
    // A different seed gives different openings.
    let c = dir.join("seed43");
    let o3 = arena_run(
        &c,
        &["--pairs", "2", "--seed", "43", "--opening-plies", "3"],
        &bots,
    );
    assert!(o3.status.success());
    assert_ne!(ra, without_timing(games(&c)));
}

#[test]
fn gauntlet_from_a_toml_file() {
    let dir = Dir::new("toml");
    let toml = format!(
        r#"
name = "gauntlet-test"
rules = "kalah:pits=4,seeds=3"
gauntlet = ["challenger"]
pairs = 2
seed = 9
movetime = 5000

[[bot]]
name = "challenger"
cmd = "{greedy}"

[[bot]]
name = "r1"
cmd = "{random}"

[[bot]]
name = "r2"
cmd = "{random}"
"#,
        greedy = bot("greedy"),
        random = bot("random")
    );
    let file = dir.join("t.toml");
    std::fs::write(&file, toml).unwrap();
    let out = dir.join("run");
    arena_ok(&[
        "run",
        "--quiet",
        "--no-plots",
        file.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let rows = games(&out);
    assert_eq!(
        rows.len(),
        2 * 2 * 2,
        "challenger vs r1 and r2, 2 pairs each"
    );
    for row in &rows {
        assert!(
            row["first"] == "challenger" || row["second"] == "challenger",
            "field players never meet: {row:?}"
        );
        assert_eq!(row["rules"], "kalah:pits=4,seeds=3");
    }
}

#[test]
fn a_malformed_toml_file_is_a_clear_error() {
    let dir = Dir::new("badtoml");
    let file = dir.join("t.toml");
    std::fs::write(&file, "pairs = \"many\"\n").unwrap();
    let o = arena(&[
        "run",
        file.to_str().unwrap(),
        "--out",
        dir.join("run").to_str().unwrap(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("t.toml") && err.contains("pairs"), "{err}");
}

/// Plays `bad` (the misbehaving bot in `mode`) against a random bot and checks that every game
/// of `bad` is its loss by `termination`, and that the run finished.
fn fault_case(mode: &str, termination: &str, extra: &[&str]) -> Vec<BTreeMap<String, String>> {
    let dir = Dir::new(&format!("fault-{mode}"));
    let out = dir.join("run");
    let bad = format!("python3 {} {mode} -- {}", misbehave(), bot("random"));
    let bots = [bot_arg("bad", &bad), bot_arg("good", &bot("random"))];
    let mut args = vec![
        "--pairs",
        "1",
        "--movetime",
        "400",
        // No mode misbehaves in the handshake; Python starting a proxy on a loaded machine can
        // take more than a second.
        "--handshake-timeout",
        "5000",
    ];
    args.extend_from_slice(extra);
    let o = arena_run(&out, &args, &bots);
    assert!(o.status.success(), "{mode}: {}", text(&o.stderr));
    let rows = games(&out);
    assert!(!rows.is_empty(), "{mode}: no games recorded");
    for row in &rows {
        assert_eq!(row["termination"], termination, "{mode}: {row:?}");
        assert_eq!(row["forfeit"], "bad", "{mode}: {row:?}");
        let bad_won = (row["first"] == "bad" && row["result"] == "1-0")
            || (row["second"] == "bad" && row["result"] == "0-1");
        assert!(!bad_won, "{mode}: the faulty bot must lose: {row:?}");
    }
    rows
}

#[test]
fn a_bot_that_crashes_forfeits_and_is_restarted() {
    let rows = fault_case("crash-on-go", "crash", &[]);
    assert_eq!(
        rows.len(),
        2,
        "the crashed bot is restarted for the second game"
    );
}

#[test]
fn a_bot_that_hangs_forfeits_on_time() {
    fault_case("hang", "timeout", &[]);
}

#[test]
fn a_bot_that_is_too_slow_forfeits_on_time() {
    fault_case("slow", "timeout", &[]);
}

#[test]
fn an_illegal_move_forfeits() {
    let rows = fault_case("illegal", "illegal_move", &[]);
    assert!(rows[0]["detail"].contains("99"), "{:?}", rows[0]);
}

#[test]
fn a_malformed_move_forfeits() {
    fault_case("malformed", "malformed_move", &[]);
}

#[test]
fn garbage_output_forfeits() {
    fault_case("garbage", "garbage", &[]);
}

#[test]
fn an_endless_line_forfeits() {
    fault_case("endless-line", "line_too_long", &[]);
}

#[test]
fn a_bot_that_never_completes_the_handshake_is_dropped_after_repeated_failures() {
    let dir = Dir::new("no-handshake");
    let out = dir.join("run");
    // It passes the check before the first game, then never again.
    let state = dir.join("starts");
    let bad = format!(
        "python3 {} no-handshake --start-ok 1 --state {}",
        misbehave(),
        state.display()
    );
    let bots = [bot_arg("bad", &bad), bot_arg("good", &bot("random"))];
    let o = arena_run(
        &out,
        &[
            "--pairs",
            "3",
            // Long enough for Python to start on a loaded machine (the check before the first
            // game must pass); each failed start then waits it out.
            "--handshake-timeout",
            "2000",
            "--max-start-failures",
            "2",
        ],
        &bots,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = games(&out);
    assert_eq!(
        rows.len(),
        2,
        "two failed starts, then dropped: the other 4 games are skipped"
    );
    assert!(rows
        .iter()
        .all(|r| r["termination"] == "handshake" && r["forfeit"] == "bad"));
    assert!(
        text(&o.stderr).contains("dropping `bad`"),
        "{}",
        text(&o.stderr)
    );
}

#[test]
fn a_bot_that_cannot_start_is_an_error_before_the_first_game() {
    // Issue 15: not three rated losses, but an error at start naming the player; nothing is
    // written that would block the folder.
    let dir = Dir::new("exit-at-start");
    for (name, cmd, why) in [
        (
            "exits",
            format!("python3 {} exit-at-start", misbehave()),
            "handshake",
        ),
        ("missing", "/nonexistent/bot".to_string(), "No such file"),
    ] {
        let out = dir.join(name);
        let bots = [bot_arg(name, &cmd), bot_arg("good", &bot("random"))];
        let o = arena_run(&out, &["--pairs", "1"], &bots);
        let err = text(&o.stderr);
        assert!(!o.status.success(), "{err}");
        assert!(
            err.contains(&format!("player `{name}` cannot start")) && err.contains(why),
            "{err}"
        );
        assert!(!out.join("run.json").exists() && !out.join("games.csv").exists());
        // Asked to, the run goes on without it.
        let third = bot_arg("third", &bot("greedy"));
        let bots = [bot_arg(name, &cmd), bot_arg("good", &bot("random")), third];
        let o = arena_run(&out, &["--pairs", "1", "--drop-unstartable"], &bots);
        assert!(o.status.success(), "{}", text(&o.stderr));
        assert!(text(&o.stderr).contains(&format!("dropping player `{name}`")));
        let rows = games(&out);
        assert_eq!(rows.len(), 2, "only good against third");
        assert!(rows
            .iter()
            .all(|r| r["first"] != name && r["second"] != name));
    }
}

fn alive(pid: u32) -> bool {
    Path::new(&format!("/proc/{pid}")).exists()
}

#[test]
fn killed_bots_leave_no_process_behind() {
    let dir = Dir::new("zombies");
    let out = dir.join("run");
    let pids = dir.join("pids.txt");
    // The hanging bot has a child of its own (the real bot it forwards to): killing the process
    // group must take both, and they must be reaped.
    let bad = format!(
        "python3 {} hang --after 2 --pid-file {} -- {}",
        misbehave(),
        pids.display(),
        bot("random")
    );
    let bots = [bot_arg("bad", &bad), bot_arg("good", &bot("random"))];
    let o = arena_run(&out, &["--pairs", "1", "--movetime", "300"], &bots);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let text = std::fs::read_to_string(&pids).unwrap();
    let all: Vec<u32> = text
        .split_whitespace()
        .map(|p| p.parse().unwrap())
        .collect();
    assert_eq!(
        all.len(),
        6,
        "the check before the first game and two starts of the bad bot, each with a child: {text}"
    );
    for pid in all {
        assert!(!alive(pid), "process {pid} outlived the tournament");
    }
}

#[test]
fn resume_after_kill_9_finishes_exactly_the_missing_games() {
    let dir = Dir::new("resume");
    let full = dir.join("full");
    let cut = dir.join("cut");
    let bots = [bot_arg("g", &bot("greedy")), bot_arg("r", &bot("random"))];
    let common = ["--pairs", "150", "--seed", "11", "--concurrency", "2"];
    let o = arena_run(&full, &common, &bots);
    assert!(o.status.success(), "{}", text(&o.stderr));

    let args = run_args(&cut, &common, &bots);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(&args)
        .spawn()
        .unwrap();
    let started = Instant::now();
    loop {
        let n = std::fs::read_to_string(cut.join("games.csv"))
            .map(|t| t.lines().count())
            .unwrap_or(0);
        if n > 20 || started.elapsed() > Duration::from_secs(60) {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL
    child.wait().unwrap();
    let partial = games(&cut).len();
    assert!(
        partial < 300,
        "the run must have been cut short (got {partial} games)"
    );
    // Simulate a torn last line as well.
    use std::io::Write;
    std::fs::OpenOptions::new()
        .append(true)
        .open(cut.join("games.csv"))
        .unwrap()
        .write_all(b"999,4,0,g,r,kal")
        .unwrap();

    let o = arena(&[
        "run",
        "--quiet",
        "--no-plots",
        "--resume",
        cut.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(without_timing(games(&cut)), without_timing(games(&full)));
}

#[test]
fn resume_checks_every_played_opening_before_playing_a_game() {
    // The first pair is missing (as if its games were never played) and run.json's seed was
    // edited: the openings of the pairs after it no longer match. The resume must refuse before
    // it plays the first pair under the edited run.json.
    let dir = Dir::new("resume-openings");
    let out = dir.join("run");
    let bots = [bot_arg("g", &bot("greedy")), bot_arg("r", &bot("random"))];
    let o = arena_run(&out, &["--pairs", "3", "--seed", "21"], &bots);
    assert!(o.status.success(), "{}", text(&o.stderr));
    for (file, first_pair) in [
        ("games.csv", ["0,", "1,"]),
        ("games.jsonl", ["{\"game_id\":0,", "{\"game_id\":1,"]),
    ] {
        let path = out.join(file);
        let text = std::fs::read_to_string(&path).unwrap();
        let kept: Vec<&str> = text
            .lines()
            .filter(|l| !first_pair.iter().any(|p| l.starts_with(p)))
            .collect();
        assert_eq!(kept.len() + 2, text.lines().count(), "{file}: {text}");
        std::fs::write(&path, kept.join("\n") + "\n").unwrap();
    }
    let json = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(json.contains("\"seed\": 21"), "{json}");
    std::fs::write(
        out.join("run.json"),
        json.replace("\"seed\": 21", "\"seed\": 22"),
    )
    .unwrap();
    let before = std::fs::read_to_string(out.join("games.csv")).unwrap();
    let o = arena(&[
        "run",
        "--quiet",
        "--no-plots",
        "--resume",
        out.to_str().unwrap(),
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success());
    assert!(
        err.contains("no longer matches") && err.contains("game 2"),
        "{err}"
    );
    assert!(
        !err.contains("--resume"),
        "resuming again cannot help: {err}"
    );
    assert_eq!(
        std::fs::read_to_string(out.join("games.csv")).unwrap(),
        before,
        "no game may be played under the edited run.json"
    );
}

#[test]
fn adjudication_ends_decided_games_early_with_the_same_winner() {
    let dir = Dir::new("adjudicate");
    let bots = [bot_arg("g", &bot("greedy")), bot_arg("r", &bot("random"))];
    let plain = dir.join("plain");
    let adj = dir.join("adj");
    let common = ["--pairs", "10", "--seed", "3"];
    assert!(arena_run(&plain, &common, &bots).status.success());
    assert!(
        arena_run(&adj, &[&common[..], &["--adjudicate"]].concat(), &bots)
            .status
            .success()
    );
    let (a, b) = (without_timing(games(&plain)), without_timing(games(&adj)));
    let mut adjudicated = 0;
    for (p, q) in a.iter().zip(&b) {
        // The bots are seeded per game: the adjudicated game is a prefix of the full one.
        assert_eq!(
            p["result"], q["result"],
            "adjudication must not change the outcome"
        );
        if q["termination"] == "adjudicated" {
            adjudicated += 1;
            let (full, cut): (u32, u32) = (p["sows"].parse().unwrap(), q["sows"].parse().unwrap());
            assert!(cut < full, "{q:?}");
            // A store holds more than half the 48 seeds.
            assert!(
                q["score_first"].parse::<u32>().unwrap() > 24
                    || q["score_second"].parse::<u32>().unwrap() > 24
            );
        }
    }
    assert!(
        adjudicated > 0,
        "greedy vs random always has decided positions"
    );
}

#[test]
fn an_openings_file_sets_the_start_of_every_pair() {
    let dir = Dir::new("openings");
    let file = dir.join("openings.txt");
    std::fs::write(&file, "# comments and blank lines are skipped\n\n3 1\n6\n").unwrap();
    let out = dir.join("run");
    let bots = [bot_arg("a", &bot("random")), bot_arg("b", &bot("random"))];
    let o = arena_run(
        &out,
        &["--pairs", "3", "--openings", file.to_str().unwrap()],
        &bots,
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let openings: Vec<String> = without_timing(games(&out))
        .iter()
        .map(|r| r["opening"].clone())
        .collect();
    assert_eq!(
        openings,
        ["3 1", "3 1", "6", "6", "3 1", "3 1"],
        "used in order and cycled"
    );

    std::fs::write(&file, "3 3\n").unwrap();
    let o = arena_run(
        &dir.join("bad"),
        &["--openings", file.to_str().unwrap()],
        &bots,
    );
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(
        err.contains("openings.txt:1") && err.contains("empty"),
        "{err}"
    );
}

#[test]
fn a_game_clock_forfeits_a_slow_bot() {
    // 1 s for the whole game and no per-sow limit: a bot that takes 1.5 s for its 4th sow loses
    // on its clock.
    let dir = Dir::new("clock");
    let out = dir.join("run");
    let bad = format!(
        "python3 {} slow --after 3 -- {}",
        misbehave(),
        bot("random")
    );
    let bots = [bot_arg("bad", &bad), bot_arg("good", &bot("random"))];
    let o = arena_run(&out, &["--pairs", "1", "--tc", "1+0"], &bots);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    for row in &rows {
        assert_eq!(row["termination"], "timeout", "{row:?}");
        assert_eq!(row["forfeit"], "bad");
        assert!(row["detail"].starts_with("no bestmove within"), "{row:?}");
    }
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    assert_eq!(run["config"]["time"]["clock"]["base_ms"], 1000);
    assert!(
        run["config"]["time"]["movetime_ms"].is_null(),
        "--tc replaces the per-sow default"
    );
}

#[test]
fn the_documented_example_tournament_file_runs() {
    let dir = Dir::new("example-toml");
    let out = dir.join("run");
    let example = Path::new(env!("CARGO_MANIFEST_DIR")).join("tournament.example.toml");
    // `bundled=` resolves beside the arena binary; depth 1 keeps every game short.
    let o = arena(&[
        "run",
        example.to_str().unwrap(),
        "--pairs",
        "1",
        "--depth",
        "1",
        "--quiet",
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = games(&out);
    assert_eq!(
        rows.len(),
        5 * 4,
        "five players: 10 encounters, one pair each"
    );
    assert!(
        rows.iter().all(|r| r["termination"] == "normal"),
        "{rows:?}"
    );
}
