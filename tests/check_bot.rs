//! `arena check-bot` against real processes: the bundled bots (the solver too) pass, broken
//! bots fail with the reason, and a program that cannot start exits 2.

mod util;

use util::*;

fn check(args: &[&str]) -> (i32, String) {
    check_env(args, &[])
}

fn check_env(args: &[&str], env: &[(&str, &std::path::Path)]) -> (i32, String) {
    // A generous margin: these tests are about the protocol, not about speed on a loaded machine.
    let mut all = vec![
        "check-bot",
        "--timeout-ms",
        "5000",
        "--margin-ms",
        "1000",
        "--",
    ];
    all.extend_from_slice(args);
    let out = arena_env(&all, env);
    (
        out.status.code().unwrap_or(-1),
        text(&out.stdout) + &text(&out.stderr),
    )
}

#[test]
fn every_bundled_bot_passes() {
    for name in ["random", "greedy", "alphabeta", "mcts"] {
        let (code, out) = check(&[&bot(name)]);
        assert_eq!(code, 0, "{name}:\n{out}");
        assert!(out.contains("12 checks: "), "{out}");
    }
}

#[test]
fn the_solver_bot_passes() {
    // A fresh database cache folder: the bot builds its small default database at `newgame`.
    let cache = Dir::new("check-solver");
    let (code, out) = check_env(&[&bot("solver")], &[("MANCALA_SOLVER_DB", cache.path())]);
    assert_eq!(code, 0, "solver:\n{out}");
    assert!(out.contains("12 checks: 12 passed"), "{out}");
}

#[test]
fn the_python_bot_is_checked_on_the_rulesets_it_declares() {
    // It plays Kalah only and says so (`id rulesets kalah`): check-bot checks it on Kalah
    // boards only, and says what was declared (issue 16: before, `newgame oware` hung it).
    let py = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/random_bot.py");
    let out = arena(&[
        "check-bot",
        "--margin-ms",
        "1000",
        "--",
        "python3",
        py.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("rulesets: kalah; checked in kalah, kalah:pits=4,seeds=3, kalah:pie=true"),
        "{stdout}"
    );
    // Asked for a ruleset it does not declare, check-bot warns and skips it.
    let out = arena(&[
        "check-bot",
        "--margin-ms",
        "1000",
        "--ruleset",
        "oware",
        "--ruleset",
        "kalah",
        "--",
        "python3",
        py.to_str().unwrap(),
    ]);
    let stdout = text(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(
        stdout.contains("--ruleset oware: not declared by the bot"),
        "{stdout}"
    );
}

#[test]
fn a_bot_is_not_scheduled_on_a_ruleset_it_does_not_declare() {
    let dir = Dir::new("check-rulesets");
    let py = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("bots/python/random_bot.py");
    let cmd = format!("cmd=python3 {}", py.display());
    let random = format!("cmd={}", bot("random"));
    let out_dir = dir.join("run");
    let o = arena(&[
        "run",
        "--quiet",
        "--no-plots",
        "--rules",
        "oware",
        "--pairs",
        "1",
        "--out",
        out_dir.to_str().unwrap(),
        "--bot",
        "name=py",
        &cmd,
        "--bot",
        "name=r",
        &random,
    ]);
    let err = text(&o.stderr);
    assert!(!o.status.success(), "{err}");
    assert!(
        err.contains("player `py` does not play oware: it declares kalah"),
        "{err}"
    );
    assert!(!out_dir.join("games.csv").exists());
}

#[test]
fn an_illegal_move_fails_the_check() {
    let (code, out) = check(&["python3", &misbehave(), "illegal", "--", &bot("random")]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("FAIL games") && out.contains("bestmove 99"),
        "{out}"
    );
}

#[test]
fn a_bot_that_never_finishes_the_handshake_fails_it() {
    let (code, out) = check(&["python3", &misbehave(), "no-handshake"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL handshake"), "{out}");
    // It printed a line, so its stdout reaches the arena: no word about flushing.
    assert!(!out.contains("flush"), "{out}");
}

/// The most common reason a handshake times out: a bot that answers but never flushes its
/// stdout (Python's `print` on a pipe, C's `printf`), so that nothing reaches the arena.
/// check-bot says so, with the call to make (issue 47).
#[test]
fn a_bot_that_does_not_flush_is_told_to() {
    let (code, out) = check(&["python3", &misbehave(), "unflushed"]);
    assert_eq!(code, 1, "{out}");
    assert!(out.contains("FAIL handshake"), "{out}");
    for says in [
        "nothing at all",
        "flush stdout after every line",
        "fflush(stdout)",
        "print(..., flush=True)",
    ] {
        assert!(out.contains(says), "no `{says}` in:\n{out}");
    }
}

#[test]
fn a_missing_program_exits_2() {
    let (code, out) = check(&["/nonexistent/bot"]);
    assert_eq!(code, 2, "{out}");
}

/// A kit bot started without the kit on its path dies with a traceback: the report ends with
/// the tail of its stderr, so the reason is on the screen, not only in the log file.
#[test]
fn a_bot_that_dies_shows_the_end_of_its_stderr() {
    let (code, out) = check(&["python3", "-c", "import mancala_kit_not_on_the_path"]);
    assert_ne!(code, 0, "{out}");
    assert!(out.contains("crash") || out.contains("exited"), "{out}");
    assert!(
        out.contains("its stderr ends with")
            && out.contains("ModuleNotFoundError: No module named 'mancala_kit_not_on_the_path'"),
        "{out}"
    );
}
