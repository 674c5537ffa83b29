//! `arena rate` at real data sizes (issue 48 point 13, issue 47 point 5): the figures and the
//! terminal are bounded by what can be read, the files keep everything. The big pool is
//! `scripts/rate-bench.sh`'s generator (its `--pgn` mode), so the benchmark and the test read
//! the same kind of games; the time and memory of the full size are the script's to measure.

mod util;

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::process::Command;

use util::*;

/// The generator's PGN of `games` games among `players` players, written into `dir`.
fn generated_pgn(dir: &Dir, players: usize, games: usize) -> PathBuf {
    let script = Path::new(env!("CARGO_MANIFEST_DIR")).join("scripts/rate-bench.sh");
    let out = Command::new("bash")
        .arg(&script)
        .args(["--pgn", &players.to_string(), &games.to_string()])
        .output()
        .expect("run scripts/rate-bench.sh");
    assert!(out.status.success(), "{}", text(&out.stderr));
    let path = dir.join("site.pgn");
    std::fs::write(&path, &out.stdout).unwrap();
    path
}

/// The unordered pairs of players that met, read from the PGN's White and Black tags.
fn encounters(pgn: &Path) -> BTreeSet<(String, String)> {
    let text = std::fs::read_to_string(pgn).unwrap();
    let tag = |line: &str, name: &str| {
        line.strip_prefix(&format!("[{name} \""))
            .and_then(|rest| rest.strip_suffix("\"]"))
            .map(str::to_string)
    };
    let mut out = BTreeSet::new();
    let mut white = None;
    for line in text.lines() {
        if let Some(w) = tag(line, "White") {
            white = Some(w);
        } else if let Some(b) = tag(line, "Black") {
            let w = white.take().expect("White before Black");
            out.insert(if w < b { (w, b) } else { (b, w) });
        }
    }
    out
}

/// The distinct `playerNNNN` names in `text`.
fn players_named(text: &str) -> BTreeSet<&str> {
    text.match_indices("player")
        .filter_map(|(i, _)| text.get(i..i + 10))
        .filter(|s| s[6..].bytes().all(|b| b.is_ascii_digit()))
        .collect()
}

fn csv_rows(path: &Path) -> usize {
    csv::Reader::from_path(path).unwrap().records().count()
}

/// 300 players: the score matrix (its SVG and the report) shows at most 40 of them and says how
/// many are left out; the files stay small; `pairwise.csv` has every encounter and
/// `ratings.csv` every player.
#[test]
fn a_large_pool_gets_a_matrix_of_the_players_that_fit_and_every_encounter_in_the_files() {
    let dir = Dir::new("rate-scale-matrix");
    let pgn = generated_pgn(&dir, 300, 1500);
    let out = dir.join("site-ratings");
    let o = arena(&[
        "rate",
        pgn.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "0",
        "--no-png",
    ]);
    assert!(o.status.success(), "{}", text(&o.stderr));
    let svg = std::fs::read_to_string(out.join("matrix.svg")).unwrap();
    let shown = players_named(&svg).len();
    assert!(
        (2..=40).contains(&shown),
        "matrix.svg names {shown} players"
    );
    assert!(
        svg.contains(&format!("{shown} of 300 players, {} left out", 300 - shown)),
        "matrix.svg does not say how many players are left out"
    );
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    assert!(
        html.contains(&format!("{} more players are left out", 300 - shown)),
        "report.html does not say the matrix leaves players out"
    );
    // Before: 300 players made a matrix.svg of about 30 MB.
    let size = |f: &str| std::fs::metadata(out.join(f)).unwrap().len();
    assert!(
        size("matrix.svg") < 2_000_000,
        "matrix.svg {} bytes",
        size("matrix.svg")
    );
    assert!(
        size("report.html") < 10_000_000,
        "report.html {} bytes",
        size("report.html")
    );
    assert_eq!(csv_rows(&out.join("pairwise.csv")), encounters(&pgn).len());
    assert_eq!(csv_rows(&out.join("ratings.csv")), 300);
}

/// The anchors fixture's 33 players and their encounters: the terminal shows the best 20
/// players, counts the encounters and the anchors instead of listing them, and says where the
/// rest is; the files still hold every player and encounter.
#[test]
fn the_terminal_summary_of_many_players_is_bounded() {
    let dir = Dir::new("rate-scale-terminal");
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ratings-anchors/site.pgn");
    let out = dir.join("site-ratings");
    let args = [
        "rate",
        pgn.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "0",
        "--no-png",
        "--anchor-tags",
        "50",
    ];
    let stdout = arena_ok(&args);
    let lines = stdout.lines().count();
    // Before: 324 lines (every encounter; the anchor list on one line of 751 characters).
    assert!(lines <= 40, "{lines} lines:\n{stdout}");
    assert!(
        stdout.lines().all(|l| l.chars().count() <= 400),
        "a line longer than 400 characters:\n{stdout}"
    );
    assert!(
        stdout
            .contains("the best 20 of 33 players; all of them are in ratings.csv and report.html"),
        "{stdout}"
    );
    let encounters = encounters(&pgn).len();
    assert!(
        stdout.contains(&format!(
            "Pairwise: {encounters} encounters, each in pairwise.csv and report.html"
        )),
        "{stdout}"
    );
    assert!(
        stdout.contains("anchored at 30 players (30 loose;"),
        "{stdout}"
    );
    assert_eq!(csv_rows(&out.join("pairwise.csv")), encounters);
    assert_eq!(csv_rows(&out.join("ratings.csv")), 33);
    let html = std::fs::read_to_string(out.join("report.html")).unwrap();
    let rows = html.matches("<tr>").count();
    assert!(
        rows > encounters + 33,
        "report.html has {rows} table rows for {encounters} encounters and 33 players"
    );
}

/// `--quiet`: one line on stdout (the games, the players, the best, the files and the folder),
/// nothing about figures on stderr; the files are written as without it.
#[test]
fn quiet_prints_one_line() {
    let dir = Dir::new("rate-scale-quiet");
    let pgn = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ratings-anchors/site.pgn");
    let out = dir.join("site-ratings");
    let o = arena(&[
        "rate",
        pgn.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
        "--bootstrap",
        "0",
        "--no-png",
        "--quiet",
    ]);
    let stdout = succeeded(&[], o.clone());
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(
        stdout.starts_with("rated 1200 games among 33 players (best: "),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!(
            "ratings.csv, pairwise.csv, ladder.csv, summary.json, report.html in {}",
            out.display()
        )),
        "{stdout}"
    );
    assert!(text(&o.stderr).is_empty(), "{}", text(&o.stderr));
    for file in [
        "ratings.csv",
        "pairwise.csv",
        "ladder.csv",
        "summary.json",
        "report.html",
    ] {
        assert!(out.join(file).exists(), "{file} missing");
    }
    assert_eq!(csv_rows(&out.join("pairwise.csv")), encounters(&pgn).len());
}
