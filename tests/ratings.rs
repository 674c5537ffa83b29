//! Ratings you can quote (issue 14): `arena rate` against independent programs on the same games.
//!
//! `tests/fixtures/ratings-draws/` is a copy of the shared fixture: 4,800 games among a, b, c, d
//! with about 31 % draws, as a results folder and as PGN, with the output of Ordo 1.2.6
//! (`ordo.txt`, `ordo -p games.pgn -a 1200 -W -D -z 200.24 -s 200`) and BayesElo 0058
//! (`bayeselo.txt`) on those games. The arena follows Ordo's method (the expected-score
//! equations), so each rating must be within 4 Elo of Ordo's; the d − a gap between 190 and 202
//! (Ordo 198.0, BayesElo 194).

mod util;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use util::*;

fn fixture() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/ratings-draws")
}

/// A writable copy of the fixture's results folder (games.csv and run.json).
fn fixture_copy(dir: &Dir) -> PathBuf {
    let out = dir.join("run");
    std::fs::create_dir_all(&out).unwrap();
    for f in ["games.csv", "run.json"] {
        std::fs::copy(fixture().join(f), out.join(f)).unwrap();
    }
    out
}

/// Ordo's ratings from `ordo.txt` (`   1 d         :  1298.3    8.9 ...`).
fn ordo() -> BTreeMap<String, f64> {
    let text = std::fs::read_to_string(fixture().join("ordo.txt")).unwrap();
    text.lines()
        .filter_map(|line| {
            let (left, right) = line.split_once(':')?;
            let name = left.split_whitespace().nth(1)?.to_string();
            let rating = right.split_whitespace().next()?.parse().ok()?;
            Some((name, rating))
        })
        .collect()
}

/// `ratings.csv` as name → Elo.
fn rated(dir: &Path) -> BTreeMap<String, f64> {
    let mut reader = csv::Reader::from_path(dir.join("ratings.csv")).unwrap();
    reader
        .deserialize::<BTreeMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (r["name"].clone(), r["elo"].parse().unwrap())
        })
        .collect()
}

#[test]
fn ratings_agree_with_ordo_on_a_drawish_round_robin() {
    let ordo = ordo();
    assert_eq!(ordo.len(), 4, "{ordo:?}");
    let dir = Dir::new("ratings-ordo");
    let run = fixture_copy(&dir);
    let run_arg = run.to_str().unwrap();
    arena_ok(&["rate", run_arg, "--bootstrap", "200"]);
    let ours = rated(&run);
    for (name, theirs) in &ordo {
        let elo = ours[name];
        assert!(
            (elo - theirs).abs() <= 4.0,
            "{name}: arena {elo:.1}, Ordo {theirs:.1}"
        );
    }
    let gap = ours["d"] - ours["a"];
    assert!((190.0..=202.0).contains(&gap), "d − a = {gap:.1}");
    // The first-mover advantage on the same scale: Ordo says 32.54 ± 4.55 (1 SD).
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(run.join("summary.json")).unwrap()).unwrap();
    let adv = summary["first_move_advantage"]["elo"].as_f64().unwrap();
    assert!((adv - 32.54).abs() < 1.0, "first-move advantage {adv}");
    // The joint table and the pairwise table agree on d − a (the pentanomial score's Elo).
    let pairwise = summary["pairwise"].as_array().unwrap();
    let ad = pairwise
        .iter()
        .find(|p| p["player"] == "a" && p["opponent"] == "d")
        .unwrap();
    let pair_gap = -ad["elo_penta"].as_f64().unwrap();
    assert!(
        (pair_gap - gap).abs() < 5.0,
        "pairwise {pair_gap:.1}, joint {gap:.1}"
    );

    // Without the prior the fit is Ordo's exactly (Ordo has none with these switches).
    arena_ok(&["rate", run_arg, "--bootstrap", "0", "--prior", "0"]);
    let plain = rated(&run);
    for (name, theirs) in &ordo {
        let elo = plain[name];
        assert!(
            (elo - theirs).abs() <= 0.1,
            "{name}: arena {elo:.2}, Ordo {theirs:.1}"
        );
    }
}

#[test]
fn rate_into_a_closed_pipe_exits_quietly() {
    // `arena rate DIR | head -0`: the reader is gone before the table is written.
    let dir = Dir::new("ratings-pipe");
    let run = fixture_copy(&dir);
    bin_dir();
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(["rate", run.to_str().unwrap(), "--bootstrap", "0"])
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take());
    let out = child.wait_with_output().unwrap();
    let stderr = text(&out.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
    assert!(out.status.success(), "{:?}: {stderr}", out.status);
}
