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
