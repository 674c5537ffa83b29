//! Regression testing with real bots (issue 18): `arena gate` passes a level identical to its
//! reference, fails one that got weaker and says when the budget ran out; `arena openings`
//! writes valued suites that `--openings` reads; `arena sprt` and `arena gate` default to the
//! bundled suite on Kalah(6,4); the CI recipe's shell script (docs/regression-testing.md) passes
//! an unchanged build and fails one that weakens a level. Limits are fixed depths or the levels'
//! own caps, never a clock.

mod util;

use std::path::{Path, PathBuf};

use util::*;

/// A bands file with one reference player, `easy` at 1000, and the levels given.
fn bands(dir: &Dir, levels: &str) -> PathBuf {
    let path = dir.join("bands.toml");
    let text = format!("opening_plies = 2\nconcurrency = 2\n[reference]\neasy = 1000\n{levels}",);
    std::fs::write(&path, text).unwrap();
    path
}

fn level(name: &str, options: &str, band: &str) -> String {
    format!(
        "[[bot]]\nname = \"{name}\"\ncmd = \"{}\"\noptions = {{ {options} }}\nband = \"{band}\"\n",
        bot("alphabeta")
    )
}

fn gate(bands: &Path, out: &Path, extra: &[&str]) -> std::process::Output {
    let (b, o) = (bands.display().to_string(), out.display().to_string());
    let mut args = vec![
        "gate",
        b.as_str(),
        "--quiet",
        "--seed",
        "3",
        "--out",
        o.as_str(),
    ];
    args.extend(extra);
    arena(&args)
}

#[test]
fn gate_passes_an_unchanged_level_and_fails_a_weakened_one() {
    let dir = Dir::new("gate");
    let levels = level("same", "Level = \"easy\"", "1000 ± 100")
        + &level("weak", "Level = \"easy\", Noise = \"30\"", "1000 ± 100");
    let file = bands(&dir, &levels);
    let out = dir.join("run");
    let o = gate(&file, &out, &["--max-pairs", "400"]);
    let stdout = text(&o.stdout);
    assert_eq!(o.status.code(), Some(3), "{stdout}\n{}", text(&o.stderr));
    assert!(
        stdout.contains("weak is below its band 1000 ± 100: Elo"),
        "{stdout}"
    );
    assert!(stdout.contains("gate FAILED"), "{stdout}");
    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gate.json")).unwrap()).unwrap();
    assert_eq!(json["verdict"], "fail");
    assert_eq!(json["exit_code"], 3);
    assert_eq!(json["levels"][0]["name"], "same");
    assert_eq!(json["levels"][0]["verdict"], "inside");
    assert_eq!(json["levels"][1]["verdict"], "below");
    assert_eq!(json["pool"][0]["name"], "ref-easy");
    // A decided level plays no more: far fewer games than the budget.
    assert!(games(&out).len() < 2 * 2 * 400);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(html.contains("id=\"gate\"") && html.contains("FAILED"));
    let md = std::fs::read_to_string(out.join("summary.md")).unwrap();
    assert!(md.contains("**Gate: FAILED"), "{md}");
}

#[test]
fn gate_without_enough_budget_is_undecided() {
    let dir = Dir::new("gate-budget");
    let file = bands(&dir, &level("same", "Level = \"easy\"", "1000 ± 100"));
    let o = gate(&file, &dir.join("run"), &["--max-pairs", "2", "--no-plots"]);
    assert_eq!(o.status.code(), Some(4), "{}", text(&o.stderr));
    assert!(text(&o.stdout).contains("gate undecided"));
}

#[test]
fn a_bad_bands_file_is_a_usage_error_with_the_file_named() {
    let dir = Dir::new("gate-bad");
    let file = bands(&dir, &level("easy", "Level = \"easy\"", "1000 50"));
    let o = gate(&file, &dir.join("run"), &[]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("bands.toml") && err.contains("ELO ± TOLERANCE"),
        "{err}"
    );
}

#[test]
fn openings_writes_a_valued_suite_that_runs() {
    let dir = Dir::new("openings");
    let file = dir.join("suite.txt");
    let f = file.display().to_string();
    arena_ok(&[
        "openings",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--plies",
        "3",
        "--count",
        "6",
        "--value",
        "-4..4",
        "--seed",
        "2",
        "--threads",
        "1",
        "--quiet",
        "--out",
        &f,
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    let mut lines = text.lines();
    let header = lines.next().unwrap();
    assert!(header.starts_with("# arena openings --rules kalah:pits=4,seeds=3 --plies 3 --count 6 --value -4..4 --seed 2: 6 openings"), "{header}");
    assert!(
        header.contains("exact perfect-play values from the solver"),
        "{header}"
    );
    assert!(lines.next().unwrap().starts_with("# values: "));
    let openings: Vec<&str> = lines.collect();
    assert_eq!(openings.len(), 6);
    for line in &openings {
        let (moves, value) = line.split_once("  # ").unwrap();
        assert_eq!(moves.split(' ').count(), 3, "{line}");
        let v: i32 = value.parse().unwrap();
        assert!((-4..=4).contains(&v), "{line}");
    }
    // The same command writes the same file (apart from the time in the header).
    let again = dir.join("again.txt");
    let a = again.display().to_string();
    arena_ok(&[
        "openings",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--plies",
        "3",
        "--count",
        "6",
        "--value",
        "-4..4",
        "--seed",
        "2",
        "--threads",
        "2",
        "--quiet",
        "--out",
        &a,
    ]);
    let body = |t: &str| t.lines().skip(1).map(str::to_string).collect::<Vec<_>>();
    assert_eq!(body(&text), body(&std::fs::read_to_string(&again).unwrap()));
    // A tournament plays from it.
    let out = dir.join("run");
    let o = out.display().to_string();
    arena_ok(&[
        "run",
        "--quiet",
        "--no-plots",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--openings",
        &f,
        "--pairs",
        "2",
        "--out",
        &o,
        "--bot",
        "name=a",
        &format!("cmd={}", bot("greedy")),
        "--bot",
        "name=b",
        &format!("cmd={}", bot("random")),
    ]);
    let rows = games(&out);
    assert_eq!(rows[0]["opening"], openings[0].split("  #").next().unwrap());
}

#[test]
fn openings_of_other_rules_are_valued_by_search() {
    let dir = Dir::new("openings-oware");
    let file = dir.join("oware.txt");
    let f = file.display().to_string();
    arena_ok(&[
        "openings",
        "--rules",
        "oware",
        "--plies",
        "2",
        "--count",
        "4",
        "--depth",
        "3",
        "--threads",
        "1",
        "--quiet",
        "--out",
        &f,
    ]);
    let text = std::fs::read_to_string(&file).unwrap();
    assert!(
        text.contains("heuristic values from a depth-3 alpha-beta search"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 4);
}

#[test]
fn sprt_defaults_to_the_bundled_suite_on_kalah_6_4() {
    let dir = Dir::new("sprt-suite");
    let out = dir.join("sprt");
    let o = out.display().to_string();
    let status = arena(&[
        "sprt",
        "--quiet",
        "--no-plots",
        "--base",
        &bot("random"),
        "--test",
        &bot("greedy"),
        "--elo0",
        "0",
        "--elo1",
        "100",
        "--max-pairs",
        "3",
        "--out",
        &o,
    ]);
    assert!(matches!(status.status.code(), Some(0 | 3 | 4)));
    assert_played_the_bundled_suite(&out);
}

#[test]
fn gate_defaults_to_the_bundled_suite_on_kalah_6_4() {
    let dir = Dir::new("gate-suite");
    let file = dir.join("bands.toml");
    let bands = format!(
        "concurrency = 2\n[reference]\neasy = 1000\n{}",
        level("same", "Level = \"easy\"", "1000 ± 100")
    );
    std::fs::write(&file, bands).unwrap();
    let out = dir.join("run");
    let o = gate(&file, &out, &["--max-pairs", "2", "--no-plots"]);
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "{}",
        text(&o.stderr)
    );
    assert_played_the_bundled_suite(&out);
}

/// `run.json` names a bundled Kalah(6,4) suite and the first pair started from its first opening.
fn assert_played_the_bundled_suite(out: &Path) {
    let run: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("run.json")).unwrap()).unwrap();
    let openings = &run["config"]["openings"];
    assert_eq!(openings["kind"], "list", "{run}");
    let file = openings["file"].as_str().unwrap();
    assert!(file.starts_with("bundled:openings/kalah-6x4-"), "{file}");
    let suite = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join(file.trim_start_matches("bundled:")),
    )
    .unwrap();
    let first = suite
        .lines()
        .find(|l| !l.starts_with('#'))
        .and_then(|l| l.split("  #").next())
        .unwrap();
    let rows = games(out);
    assert!(rows
        .iter()
        .any(|r| r["pair_id"] == "0" && r["opening"] == first));
}

/// The CI recipe (`scripts/regression-gate.sh`, docs/regression-testing.md) on the bundled
/// bots, with the build steps skipped: `OLD` is this build's binaries, `NEW` its alpha-beta bot
/// (unchanged) or a wrapper that weakens the Normal level (a "change to the search": every
/// `setoption name Level value normal` is followed by `Noise 2`, four times the level's noise).
#[test]
fn the_ci_recipe_passes_an_unchanged_build_and_fails_a_weakened_one() {
    let dir = Dir::new("ci-recipe");
    // The bands file the repository ships for the bundled levels.
    let bands = Path::new(env!("CARGO_MANIFEST_DIR")).join("bands.example.toml");
    let weak = dir.join("weak-alphabeta");
    std::fs::write(
        &weak,
        format!(
            "#!/bin/sh\nsed -u 's/^setoption name Level value normal$/&\\nsetoption name Noise value 2/I' | {}\n",
            bot("alphabeta")
        ),
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&weak, std::fs::Permissions::from_mode(0o755)).unwrap();
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/regression-gate.sh");
    let recipe = |new: &str, out: &Path| {
        let o = std::process::Command::new(&script)
            .env("OLD", bin_dir())
            .env("NEW", new)
            .env("BANDS", &bands)
            // The Elo settings' certificate has its own test (tests/elo_gate.rs, release bots).
            .env("ELO_BANDS", "")
            .env("OUT", out)
            .env(
                "SPRT_ARGS",
                "--elo0 -150 --elo1 0 --max-pairs 300 --concurrency 1 --seed 5",
            )
            .env("GATE_ARGS", "--concurrency 1 --seed 5 --max-pairs 200")
            .output()
            .expect("run scripts/regression-gate.sh");
        (o.status.code(), text(&o.stdout), text(&o.stderr))
    };
    let (code, stdout, stderr) = recipe(&bot("alphabeta"), &dir.join("same"));
    assert_eq!(code, Some(0), "{stdout}\n{stderr}");
    assert!(stdout.contains("sprt: exit 0, passed") && stdout.contains("gate: exit 0, passed"));
    for f in [
        "sprt/report.html",
        "sprt/sprt.json",
        "gate/report.html",
        "gate/gate.json",
    ] {
        assert!(dir.join("same").join(f).exists(), "{f}");
    }
    let (code, stdout, stderr) = recipe(&weak.display().to_string(), &dir.join("weak"));
    assert_eq!(code, Some(1), "{stdout}\n{stderr}");
    assert!(stdout.contains("gate: exit 3, REGRESSION"), "{stdout}");
    assert!(stdout.contains("sprt: exit 3, REGRESSION"), "{stdout}");
    assert!(stdout.contains("normal is below its band"), "{stdout}");
    assert!(!stdout.contains("easy is below"), "{stdout}");
}

/// `arena serve` over a gate's folder: listed as kind `gate`, finished although the decided
/// levels skipped most of the schedule, and the run page shows the gate's verdict and table.
#[test]
fn the_dashboard_shows_a_gate_run() {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
    let dir = Dir::new("gate-serve");
    let root = dir.join("results");
    let bands = Path::new(env!("CARGO_MANIFEST_DIR")).join("bands.example.toml");
    let o = gate(
        &bands,
        &root.join("g"),
        &["--concurrency", "1", "--no-plots"],
    );
    assert_eq!(o.status.code(), Some(0), "{}", text(&o.stderr));
    assert!(games(&root.join("g")).len() < 2 * 2 * 2 * 300);
    let mut child = Command::new(env!("CARGO_BIN_EXE_arena"))
        .args([
            "serve",
            &root.display().to_string(),
            "--bind",
            "127.0.0.1:0",
        ])
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .expect("start arena serve");
    let mut line = String::new();
    BufReader::new(child.stdout.take().unwrap())
        .read_line(&mut line)
        .unwrap();
    let addr = line
        .trim()
        .trim_start_matches("listening on http://")
        .trim_end_matches('/')
        .to_string();
    let index = http(&addr, "GET", "/", &[], "");
    let page = http(&addr, "GET", "/run?id=g", &[], "");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(index.status, 200);
    let row = index
        .body
        .lines()
        .find(|l| l.contains("data-run=\"g\""))
        .unwrap_or_else(|| panic!("{}", index.body));
    assert!(
        row.contains("<td class=\"name\">gate</td>") && row.contains("finished"),
        "{row}"
    );
    assert_eq!(page.status, 200);
    assert!(page.body.contains("<h2>Gate</h2>"), "{}", page.body);
    assert!(page.body.contains("passed: every level is inside its band"));
}
