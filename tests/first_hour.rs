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
