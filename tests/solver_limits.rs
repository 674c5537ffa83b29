//! The solver refuses what it does not model (issue 48, points 5, 6, 7 and 12): rules it leaves
//! out (the pie rule, a low sow cap), boards whose values do not fit its value type, split-solve
//! leaves that do not belong to their plan or hold impossible values, and split plans too large
//! to hold; each with a sentence naming what and a non-zero exit, never a value printed as
//! proven. Small boards and a temporary `MANCALA_SOLVER_DB`.

mod util;

use std::path::Path;
use std::process::Output;

use util::*;

/// `arena ARGS...` with the solver's cache folder in `cache`.
fn arena_in(cache: &Dir, args: &[&str]) -> Output {
    arena_env(args, &[("MANCALA_SOLVER_DB", cache.path())])
}

/// Asserts `out` failed with `what` on stderr and printed no value on stdout.
fn refused(out: &Output, what: &str) -> String {
    let (stdout, stderr) = (text(&out.stdout), text(&out.stderr));
    assert!(
        !out.status.success(),
        "expected a refusal naming `{what}`, got success:\n{stdout}\n{stderr}"
    );
    assert!(stderr.contains(what), "stderr lacks `{what}`:\n{stderr}");
    assert!(!stdout.contains("value "), "a value was printed:\n{stdout}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    stderr
}

#[test]
fn solve_refuses_rules_it_does_not_model() {
    let cache = Dir::new("limits-rules");
    // Kalah(4,2) is +6 without the rules below; with the pie rule it is −4, with a cap of one
    // sow 0, neither of which the solver's values know.
    for (rules, what) in [
        ("kalah:pits=4,seeds=2,pie=true", "pie rule (`pie=true`"),
        (
            "kalah:pits=4,seeds=2,sow_cap=1",
            "sow cap below 400 (`sow_cap=1`",
        ),
    ] {
        for extra in [&[][..], &["--all-best"], &["--value-only"]] {
            let mut args = vec!["solve", "--rules", rules, "--db-seeds", "0"];
            args.extend_from_slice(extra);
            refused(&arena_in(&cache, &args), what);
        }
        let plan = cache.join(&format!("plan-{}", rules.len()));
        let plan = plan.display().to_string();
        let out = arena_in(
            &cache,
            &["solve", "--rules", rules, "--split", "2", "--plan", &plan],
        );
        refused(&out, what);
        assert!(!Path::new(&plan).join("plan.json").exists());
    }
    // Without them the same board is solved as before.
    let out = arena_in(
        &cache,
        &[
            "solve",
            "--rules",
            "kalah:pits=4,seeds=2",
            "--db-seeds",
            "0",
        ],
    );
    assert!(text(&out.stdout).contains("value     +6"), "{out:?}");
}

#[test]
fn solve_refuses_boards_past_its_value_type() {
    let cache = Dir::new("limits-8x8");
    // Kalah(8,8), 128 seeds all in the pits: South sows pit 7 into its empty pit 8, captures
    // North's last seed and sweeps the rest: +128, one more than a signed byte holds.
    let past = "s/21.21.21.21.21.21.1.0/1.0.0.0.0.0.0.0/0.0/60";
    for extra in [&[][..], &["--all-best", "--no-value-cache"]] {
        let mut args = vec![
            "solve",
            "--rules",
            "kalah:pits=8,seeds=8",
            "--position",
            past,
            "--db-seeds",
            "0",
        ];
        args.extend_from_slice(extra);
        refused(
            &arena_in(&cache, &args),
            "at most 127 seeds in the pits (its values are kept in one signed byte); this one has 128",
        );
    }
    // One seed already in a store: 127 in the pits, value +127 (the largest that fits), proven
    // and cached, then read back from the cache.
    let fits = "s/21.21.21.21.20.21.1.0/1.0.0.0.0.0.0.0/1.0/60";
    let args = [
        "solve",
        "--rules",
        "kalah:pits=8,seeds=8",
        "--position",
        fits,
        "--db-seeds",
        "0",
        "--all-best",
    ];
    for _ in 0..2 {
        let out = succeeded(&args, arena_in(&cache, &args));
        assert!(out.contains("value     +127"), "{out}");
        assert!(out.contains("margin    +128"), "{out}");
        assert!(out.contains("best      7\n"), "{out}");
    }
}

/// Plans Kalah(4,3) (`rules`) two sows deep in `plan` and solves every subproblem.
fn plan_and_solve(cache: &Dir, plan: &str, rules: &str) {
    let args = [
        "solve",
        "--rules",
        rules,
        "--split",
        "2",
        "--plan",
        plan,
        "--db-seeds",
        "0",
    ];
    succeeded(&args, arena_in(cache, &args));
    let args = ["solve", "--plan", plan, "--shard", "0/1", "--db-seeds", "0"];
    succeeded(&args, arena_in(cache, &args));
}

/// The leaf files of a plan folder.
fn leaf_files(plan: &str) -> Vec<std::path::PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(Path::new(plan).join("leaves"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty());
    files
}

#[test]
fn merge_refuses_impossible_leaf_values() {
    let cache = Dir::new("limits-values");
    let plan = cache.join("plan").display().to_string();
    plan_and_solve(&cache, &plan, "kalah:pits=4,seeds=3");
    let merged = succeeded(
        &["merge"],
        arena_in(&cache, &["solve", "--plan", &plan, "--merge"]),
    );
    assert!(merged.contains("value     +6  (exact"), "{merged}");
    for file in leaf_files(&plan) {
        let mut leaf: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(&file).unwrap()).unwrap();
        leaf["lo"] = 1000.into();
        leaf["hi"] = 1000.into();
        std::fs::write(&file, leaf.to_string()).unwrap();
    }
    let err = refused(
        &arena_in(&cache, &["solve", "--plan", &plan, "--merge"]),
        "leaves/",
    );
    assert!(
        err.contains("[1000, 1000] cannot be true") && err.contains("seeds in the pits"),
        "{err}"
    );
    // An exact value inside the bound but of the wrong parity (every value has the parity of
    // the seeds in the pits, Kalah's `sweep=owner`) is refused too.
    let file = &leaf_files(&plan)[0];
    let mut leaf: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(file).unwrap()).unwrap();
    let key = leaf["key"].as_str().unwrap().to_string();
    let seeds: i64 = (0..key.len())
        .step_by(2)
        .map(|i| i64::from_str_radix(&key[i..i + 2], 16).unwrap())
        .sum();
    for f in leaf_files(&plan).iter().skip(1) {
        std::fs::remove_file(f).unwrap();
    }
    leaf["lo"] = (seeds - 1).into();
    leaf["hi"] = (seeds - 1).into();
    std::fs::write(file, leaf.to_string()).unwrap();
    let err = refused(
        &arena_in(&cache, &["solve", "--plan", &plan, "--merge"]),
        "parity",
    );
    assert!(err.contains(&file.display().to_string()), "{err}");
}

#[test]
fn merge_refuses_leaves_of_another_plan() {
    let cache = Dir::new("limits-foreign");
    let plan = cache.join("plan").display().to_string();
    // Leaves left from an `empty_capture` plan, then standard Kalah(4,3) (true value +6)
    // planned again in the same folder: its merge must not use them.
    plan_and_solve(&cache, &plan, "kalah:pits=4,seeds=3,empty_capture=true");
    std::fs::remove_file(Path::new(&plan).join("plan.json")).unwrap();
    let args = [
        "solve",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--split",
        "2",
        "--plan",
        &plan,
        "--db-seeds",
        "0",
    ];
    succeeded(&args, arena_in(&cache, &args));
    let err = refused(
        &arena_in(&cache, &["solve", "--plan", &plan, "--merge"]),
        "belongs to another plan",
    );
    assert!(
        err.contains("leaves/") && err.contains("empty_capture=true"),
        "names the file and the rules that differ: {err}"
    );
    // The shards refuse them as well, rather than counting them as solved.
    refused(
        &arena_in(
            &cache,
            &[
                "solve",
                "--plan",
                &plan,
                "--shard",
                "0/1",
                "--db-seeds",
                "0",
            ],
        ),
        "belongs to another plan",
    );
    // With the stale leaves removed the plan solves and merges to the true +6.
    std::fs::remove_dir_all(Path::new(&plan).join("leaves")).unwrap();
    std::fs::create_dir(Path::new(&plan).join("leaves")).unwrap();
    let args = [
        "solve",
        "--plan",
        &plan,
        "--shard",
        "0/1",
        "--db-seeds",
        "0",
    ];
    succeeded(&args, arena_in(&cache, &args));
    let merged = succeeded(
        &["merge"],
        arena_in(&cache, &["solve", "--plan", &plan, "--merge"]),
    );
    assert!(merged.contains("value     +6  (exact"), "{merged}");
}

#[test]
fn split_refuses_a_plan_that_cannot_fit() {
    let cache = Dir::new("limits-split");
    let plan = cache.join("plan").display().to_string();
    let out = arena_in(
        &cache,
        &[
            "solve", "--rules", "kalah", "--split", "12", "--plan", &plan,
        ],
    );
    let err = refused(&out, "--split 12");
    assert!(
        err.contains("subproblems") && err.contains("the largest depth that fits is"),
        "{err}"
    );
    assert!(!Path::new(&plan).join("plan.json").exists());
}

#[test]
fn analyse_skips_and_counts_games_under_unmodelled_rules() {
    let dir = Dir::new("limits-analyse");
    let out = dir.join("run");
    let out_s = out.display().to_string();
    let random = format!("cmd={}", bot("random"));
    let args = [
        "run",
        "--quiet",
        "--out",
        &out_s,
        "--rules",
        "kalah:pits=4,seeds=2,pie=true",
        "--pairs",
        "2",
        "--seed",
        "3",
        "--bootstrap",
        "0",
        "--no-plots",
        "--bot",
        "name=a",
        &random,
        "--bot",
        "name=b",
        &random,
    ];
    succeeded(&args, arena_in(&dir, &args));
    let args = ["analyse", &out_s, "--no-report"];
    let table = succeeded(&args, arena_in(&dir, &args));
    assert!(
        table.contains("4 games skipped: the solver does not model the pie rule"),
        "{table}"
    );
    // No sow of those games is judged (nothing unmeasured is printed as 0).
    let worst = std::fs::read_to_string(out.join("analysis-worst.csv")).unwrap_or_default();
    assert_eq!(worst.lines().skip(1).count(), 0, "{worst}");
}

#[test]
fn openings_say_why_their_values_are_estimates() {
    let dir = Dir::new("limits-openings");
    let out = dir.join("openings.txt").display().to_string();
    let args = [
        "openings",
        "--rules",
        "kalah:pits=4,seeds=2,pie=true",
        "--plies",
        "2",
        "--count",
        "3",
        "--value=-20..20",
        "--depth",
        "2",
        "--max-evaluate",
        "5",
        "--out",
        &out,
    ];
    let run = arena_in(&dir, &args);
    succeeded(&args, run.clone());
    let err = text(&run.stderr);
    assert!(
        err.contains("not exact: the solver does not model the pie rule"),
        "{err}"
    );
    let written = std::fs::read_to_string(&out).unwrap();
    assert!(
        written.contains("heuristic values") && !written.contains("exact perfect-play"),
        "{written}"
    );
}
