//! What a new user meets in the first hour (issue 28): the messages of the usual mistakes say
//! what is true and what to do next. Each test asserts the key part of the text.

mod util;

use util::*;

/// Runs `arena ARGS` expecting a failure; returns stderr.
fn refused(args: &[&str]) -> String {
    let o = arena(args);
    let err = text(&o.stderr);
    assert!(
        !o.status.success(),
        "arena {args:?} succeeded: {}{err}",
        text(&o.stdout)
    );
    err
}

#[test]
fn a_mistyped_bundled_bot_is_named_with_the_bundled_bots() {
    let dir = Dir::new("first-hour-bundled");
    let out = dir.join("run");
    let err = refused(&[
        "run",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        "name=a",
        "bundled=alphabet",
        "--bot",
        "name=b",
        "bundled=random",
    ]);
    assert!(
        err.contains(
            "there is no bundled bot `alphabet`: the bundled bots are random, greedy, alphabeta, mcts, solver"
        ),
        "{err}"
    );
    assert!(!err.contains("not built"), "{err}");
}

#[test]
fn a_count_or_a_time_out_of_range_says_what_it_must_be() {
    for args in [
        &["run", "--pairs", "-1"][..],
        &["run", "--pairs=-1"],
        &["run", "--pairs", "0"],
    ] {
        let err = refused(args);
        assert!(
            err.contains("'--pairs <PAIRS>': must be a whole number, at least 1"),
            "{args:?}: {err}"
        );
        assert!(
            !err.contains("-- -1") && !err.contains("4294967295"),
            "{err}"
        );
    }
    for args in [&["run", "--movetime=-5"][..], &["run", "--movetime", "-5"]] {
        let err = refused(args);
        assert!(
            err.contains(
                "'--movetime <MOVETIME>': must be a whole number of milliseconds, at least 1"
            ),
            "{args:?}: {err}"
        );
        assert!(!err.contains("invalid digit"), "{err}");
    }
}

#[test]
fn rate_says_what_the_path_is_and_lists_the_run_folders_below_it() {
    let dir = Dir::new("first-hour-rate");
    let missing = dir.join("nothing-here");
    let err = refused(&["rate", missing.to_str().unwrap()]);
    assert!(
        err.contains(&format!("{} does not exist", missing.display())),
        "{err}"
    );
    let file = dir.join("games.txt");
    std::fs::write(&file, "x").unwrap();
    let err = refused(&["rate", file.to_str().unwrap()]);
    assert!(
        err.contains(&format!(
            "{} is a file: arena rate takes a run folder (the folder holding games.csv)",
            file.display()
        )),
        "{err}"
    );
    // The results folder above two runs.
    let results = dir.join("results");
    for run in ["a", "b"] {
        std::fs::create_dir_all(results.join(run)).unwrap();
        std::fs::write(
            results.join(run).join("games.csv"),
            "game_id,first,second,result\n",
        )
        .unwrap();
    }
    let err = refused(&["rate", results.to_str().unwrap()]);
    assert!(
        err.contains(&format!(
            "{} is not a run folder (no games.csv); the run folders in it: {}, {}",
            results.display(),
            results.join("a").display(),
            results.join("b").display()
        )),
        "{err}"
    );
}

#[test]
fn serve_takes_a_host_name_and_says_what_to_do_when_the_port_is_taken() {
    let dir = Dir::new("first-hour-serve");
    // A folder that does not exist is an error, not a silent empty dashboard.
    let missing = dir.join("no-such-results");
    let err = refused(&["serve", missing.to_str().unwrap(), "--bind", "127.0.0.1:0"]);
    assert!(
        err.contains(&format!("{} does not exist", missing.display())),
        "{err}"
    );
    // A port in use: the message suggests a free one.
    let taken = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let addr = taken.local_addr().unwrap().to_string();
    let err = refused(&["serve", dir.path().to_str().unwrap(), "--bind", &addr]);
    assert!(
        err.contains(&format!("{addr} is in use")) && err.contains("--bind 127.0.0.1:0"),
        "{err}"
    );
    // `localhost:PORT` is an address like `127.0.0.1:PORT` (this port is taken, so the
    // command fails after resolving the name, not on its syntax).
    let port = taken.local_addr().unwrap().port();
    let err = refused(&[
        "serve",
        dir.path().to_str().unwrap(),
        "--bind",
        &format!("localhost:{port}"),
    ]);
    assert!(err.contains("is in use"), "{err}");
    assert!(!err.contains("invalid"), "{err}");
}

#[test]
fn ruleset_names_are_not_case_sensitive() {
    let out = arena_ok(&["replay", "--rules", "Kalah", "3"]);
    let same = arena_ok(&["replay", "--rules", "kalah", "3"]);
    assert_eq!(out, same);
    let out = arena_ok(&["replay", "--rules", "OWARE", "1"]);
    assert_eq!(out, arena_ok(&["replay", "--rules", "oware", "1"]));
}

#[test]
fn a_bot_that_cannot_start_leaves_no_folder_and_an_option_typo_is_named() {
    let dir = Dir::new("first-hour-start");
    let out = dir.join("run");
    let err = refused(&[
        "run",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        "name=missing",
        "cmd=/nonexistent/bot",
        "--bot",
        "name=b",
        "bundled=random",
    ]);
    assert!(err.contains("player `missing` cannot start"), "{err}");
    assert!(!out.exists(), "a run that never started leaves no folder");
    // An option the bot does not have: the error names it and the options the bot offers,
    // and does not send the user to an empty log.
    let err = refused(&[
        "run",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
        "--bot",
        "name=a",
        "bundled=alphabeta",
        "option.Levl=easy",
        "--bot",
        "name=b",
        "bundled=random",
    ]);
    assert!(
        err.contains("player `a` cannot start") && err.contains("`Levl`"),
        "{err}"
    );
    assert!(err.contains("Level"), "the bot's options are listed: {err}");
    assert!(!err.contains("its stderr"), "{err}");
    assert!(!out.exists());
    // The same for every command that plays (they share the session): an SPRT whose bot
    // cannot start leaves no folder either (it left a lock, logs/ and sprt.csv).
    let sprt_out = dir.join("sprt");
    let err = refused(&[
        "sprt",
        "--quiet",
        "--out",
        sprt_out.to_str().unwrap(),
        "--base",
        "/nonexistent/bot",
        "--test",
        &bin_dir().join("mancala-random").display().to_string(),
        "--elo0",
        "0",
        "--elo1",
        "10",
    ]);
    assert!(err.contains("cannot start"), "{err}");
    assert!(
        !sprt_out.exists(),
        "an SPRT that never started leaves no folder"
    );
}

#[test]
fn the_run_line_counts_in_words_and_the_gauntlet_player_is_always_shown() {
    let dir = Dir::new("first-hour-gauntlet");
    let out = dir.join("run");
    let mut args = vec![
        "run".to_string(),
        "--no-plots".into(),
        "--pairs".into(),
        "1".into(),
        "--seed".into(),
        "2".into(),
        "--out".into(),
        out.display().to_string(),
        "--gauntlet".into(),
        "mine".into(),
        "--bot".into(),
        "name=mine".into(),
        "bundled=random".into(),
    ];
    for i in 1..=5 {
        args.extend([
            "--bot".into(),
            format!("name=g{i}"),
            "bundled=greedy".into(),
        ]);
    }
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = arena(&args);
    let err = text(&o.stderr);
    assert!(o.status.success(), "{err}");
    assert!(err.contains("(1 pair per encounter)"), "{err}");
    let last = err
        .lines()
        .rfind(|l| l.contains("10/10 games"))
        .unwrap_or_else(|| panic!("no final progress line: {err}"));
    assert!(last.contains("mine "), "the gauntlet player: {last}");
}

#[test]
fn margin_says_its_unit_in_each_command() {
    let run = arena_ok(&["run", "--help"]);
    assert!(run.contains("--margin <MS>"), "{run}");
    let gate = arena_ok(&["gate", "--help"]);
    assert!(gate.contains("--margin <ELO>"), "{gate}");
}

#[test]
fn help_puts_run_first_and_says_what_the_defaults_are() {
    let top = arena_ok(&["--help"]);
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .filter_map(|l| l.split_whitespace().next())
        .collect();
    assert_eq!(commands.first(), Some(&"run"), "{top}");
    let run = arena_ok(&["run", "--help"]);
    assert!(
        run.contains("With neither a tournament file nor --bot, plays the six bundled bots"),
        "{run}"
    );
    for cmd in ["sprt", "gate"] {
        let help = arena_ok(&[cmd, "--help"]);
        // A flag's entry: its line and its help below it, up to the blank line.
        let entry = |flag: &str| {
            let start = help
                .find(&format!("  {flag}"))
                .unwrap_or_else(|| panic!("{cmd}: no {flag}: {help}"));
            help[start..].split("\n\n").next().unwrap().to_string()
        };
        assert!(entry("--seed").contains("[default: 1"), "{cmd}: {help}");
        assert!(entry("-q, --quiet").contains("progress"), "{cmd}: {help}");
        let plies = entry("--opening-plies");
        assert!(!plies.contains("[default: 2]"), "{cmd}: {plies}");
        assert!(plies.contains("bundled opening suite"), "{cmd}: {plies}");
    }
}

/// A test that skips its check says so through `util::skipped` (past the harness's capture,
/// which swallows `eprintln!` of a passing test), never with a print of its own.
#[test]
fn every_skip_goes_through_the_shared_helper() {
    let tests = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("tests");
    let mut printed = Vec::new();
    for entry in std::fs::read_dir(&tests).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "rs") {
            let source = std::fs::read_to_string(&path).unwrap();
            let literal = ["\"SKIP", "PED"].concat();
            if source.contains(&literal) {
                printed.push(path.display().to_string());
            }
        }
    }
    assert!(printed.is_empty(), "skips printed by hand in {printed:?}");
}

/// CI is on when `CI` holds a value; an empty `CI=` is not CI.
#[test]
fn an_empty_ci_variable_is_not_ci() {
    assert!(!util::ci_value_counts(None));
    assert!(!util::ci_value_counts(Some("")));
    assert!(util::ci_value_counts(Some("true")));
    assert!(util::ci_value_counts(Some("1")));
}

/// The test command's last line counts what passed, failed, was ignored and skipped its check.
#[test]
fn the_test_summary_counts_ignored_and_skipped_tests() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let log = "\
running 12 tests
test result: ok. 10 passed; 0 failed; 2 ignored; 0 measured; 0 filtered out; finished in 1.00s
SKIPPED report_renders_in_a_headless_browser: /usr/bin/chromium is not installed
running 4 tests
test result: FAILED. 3 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.50s
";
    let dir = Dir::new("first-hour-summary");
    let file = dir.join("log");
    std::fs::write(&file, log).unwrap();
    let o = std::process::Command::new("awk")
        .arg("-f")
        .arg(root.join("scripts/test-summary.awk"))
        .arg(&file)
        .output()
        .expect("run awk");
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(
        text(&o.stdout).trim(),
        "tests: 13 passed, 1 failed, 2 ignored; 1 of the passed skipped its check (see the SKIPPED line)"
    );
}

/// The README's test command says what it costs: the time, the disk and the databases it
/// writes outside the checkout, and the tests that skip without a Slurm cluster.
#[test]
fn the_readme_says_what_the_tests_cost() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let readme = std::fs::read_to_string(root.join("README.md")).unwrap();
    let section = readme
        .split("scripts/test.sh")
        .nth(1)
        .and_then(|s| s.split("### Platforms").next())
        .unwrap();
    assert!(!readme.contains("about a minute with their databases"));
    for fact in [
        "about 20 minutes",
        "`target/`",
        "~/.cache/mancala-arena/solver",
        "tests/slurm.rs",
        "only `.ci/run` starts",
    ] {
        assert!(section.contains(fact), "README lacks {fact}: {section}");
    }
}

/// The second pass of issue 28: the errors of a wrong path name it as missing (`analyse` said
/// "no games", `merge` and `run --resume` quoted an OS error about a `run.json` inside it).
#[test]
fn a_missing_folder_is_called_missing_by_every_command() {
    let dir = Dir::new("first-hour-missing");
    let missing = dir.join("nothing-here");
    let m = missing.to_str().unwrap();
    let out = dir.join("merged");
    for args in [
        vec!["analyse", m],
        vec!["merge", out.to_str().unwrap(), m],
        vec!["run", "--resume", m],
    ] {
        let err = refused(&args);
        assert!(
            err.contains(&format!("{m} does not exist")),
            "{args:?}: {err}"
        );
    }
    assert!(!out.exists(), "merge left {}", out.display());
}

/// `--drop-unstartable` is a flag of `arena run` only: sprt and calibrate, whose bots cannot
/// start, do not point to it.
#[test]
fn only_run_suggests_drop_unstartable() {
    let dir = Dir::new("first-hour-drop");
    let sprt_out = dir.join("sprt");
    let err = refused(&[
        "sprt",
        "--base",
        "/nonexistent/bot",
        "--test",
        "/nonexistent/bot",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--movetime",
        "50",
        "--quiet",
        "--out",
        sprt_out.to_str().unwrap(),
    ]);
    assert!(err.contains("player `base` cannot start"), "{err}");
    assert!(!err.contains("--drop-unstartable"), "{err}");
    let cal_out = dir.join("cal");
    let err = refused(&[
        "calibrate",
        "--bot",
        "/nonexistent/bot",
        "--knob",
        "option.Noise=0..2",
        "--reference",
        "easy=1000,normal=1300",
        "--movetime",
        "50",
        "--quiet",
        "--out",
        cal_out.to_str().unwrap(),
    ]);
    assert!(err.contains("player `candidate` cannot start"), "{err}");
    assert!(!err.contains("--drop-unstartable"), "{err}");
    let run_out = dir.join("run");
    let err = refused(&[
        "run",
        "--quiet",
        "--out",
        run_out.to_str().unwrap(),
        "--bot",
        "name=a",
        "cmd=/nonexistent/bot",
        "--bot",
        "name=b",
        "bundled=random",
    ]);
    assert!(err.contains("--drop-unstartable plays the run"), "{err}");
}

/// Help of the second pass: every protocol a `--bot` may speak, and no bare `--seed`.
#[test]
fn help_lists_every_protocol_and_says_what_each_seed_is() {
    let run = arena_ok(&["run", "--help"]);
    assert!(
        run.contains("protocol=mancala|mankalah|kgp|per-move"),
        "{run}"
    );
    for cmd in ["calibrate", "check-bot"] {
        let help = arena_ok(&[cmd, "--help"]);
        // The flag's line and its continuation lines, up to the next flag.
        let start = help
            .find("--seed <SEED>")
            .unwrap_or_else(|| panic!("{cmd}: no --seed: {help}"));
        let rest = &help[start + "--seed <SEED>".len()..];
        let entry = rest
            .split("\n")
            .take_while(|l| !l.trim_start().starts_with('-'))
            .collect::<Vec<_>>()
            .join(" ")
            .replace("[default: 1]", "");
        assert!(
            entry.chars().any(char::is_alphabetic),
            "{cmd}: --seed says nothing but its default: {help}"
        );
    }
    let openings = arena_ok(&["openings", "--help"]);
    let quiet = openings
        .lines()
        .find(|l| l.contains("--quiet"))
        .expect("openings --quiet");
    assert!(quiet.contains("progress"), "{quiet}");
}

/// Re-running into a finished `--out` folder (issue 47): `--resume` cannot help a finished run,
/// so the message says the run is finished and what can be done with it instead; an
/// interrupted run is still offered `arena run --resume`.
#[test]
fn a_finished_out_folder_is_not_offered_resume() {
    let dir = Dir::new("first-hour-finished");
    let out = dir.join("run");
    let o = out.to_str().unwrap();
    let args = [
        "run",
        "--quiet",
        "--no-plots",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--pairs",
        "1",
        "--bot",
        "random",
        "--bot",
        "greedy",
        "--out",
        o,
    ];
    arena_ok(&args);
    let err = refused(&args);
    assert!(err.contains("holds a finished run (2 games)"), "{err}");
    assert!(err.contains("choose another --out"), "{err}");
    assert!(err.contains(&format!("arena rate {o}")), "{err}");
    assert!(!err.contains("--resume"), "{err}");

    // The same folder as an interrupted run (its process gone): `--resume` finishes it.
    std::fs::write(
        out.join("state.json"),
        "{\"state\": \"interrupted\", \"reason\": \"SIGINT\", \"at\": \"2025-01-01T00:00:00+00:00\"}\n",
    )
    .unwrap();
    let err = refused(&args);
    assert!(err.contains(&format!("arena run --resume {o}")), "{err}");
}
