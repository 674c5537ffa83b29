//! The certificate of the Elo settings (issue 46): `arena gate bands.elo.example.toml`
//! holds `Elo=800/1100/1400/1700` of the bundled alpha-beta bot each inside its band against the
//! site's levels held at their Elos on the site's human scale; and a round robin of the four
//! settings rates them in the asked order.
//!
//! The bots must play at their real speed, so these tests take the release build of the bots
//! (`cargo build --release -p mancala-bots --bins`, which `scripts/test.sh` runs first) beside
//! this build's `arena`: a folder holding a hard link to the `arena` binary and links to the
//! release bots, which `arena` finds as its bundled bots. Every setting is limited by depth and
//! nodes, never by the clock, so the games and the verdict are the same on a busy machine.
//! `scripts/test.sh` runs the round robin (`--ignored a_round_robin`); the gate, ~500 games and
//! ~11 minutes, is run by hand and by the regression recipe (docs/regression-testing.md, "The Elo
//! certificate", has both costs).

mod util;

use std::path::{Path, PathBuf};

use util::*;

/// A folder with this build's `arena` and the release bots as its bundled bots.
fn release_arena(dir: &Dir) -> PathBuf {
    let arena = PathBuf::from(env!("CARGO_BIN_EXE_arena"));
    let release = arena
        .parent()
        .and_then(Path::parent)
        .expect("target folder")
        .join("release");
    let here = dir.join("bin");
    std::fs::create_dir_all(&here).unwrap();
    let linked = here.join("arena");
    if std::fs::hard_link(&arena, &linked).is_err() {
        std::fs::copy(&arena, &linked).unwrap();
    }
    for bot in ["random", "greedy", "alphabeta", "mcts", "solver"] {
        let name = format!("mancala-{bot}");
        let path = release.join(&name);
        assert!(
            path.exists(),
            "{} is missing: build the release bots first (cargo build --release -p mancala-bots --bins)",
            path.display()
        );
        std::os::unix::fs::symlink(&path, here.join(&name)).unwrap();
    }
    linked
}

fn run(arena: &Path, args: &[&str]) -> std::process::Output {
    std::process::Command::new(arena)
        .args(args)
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .output()
        .expect("run arena")
}

#[test]
#[ignore = "~500 games of the release bots, ~11 min: run by hand (docs/regression-testing.md)"]
fn the_elo_settings_pass_their_gate() {
    let dir = Dir::new("elo-gate");
    let arena = release_arena(&dir);
    let out = dir.join("gate");
    let o = run(
        &arena,
        &[
            "gate",
            "bands.elo.example.toml",
            "--concurrency",
            "2",
            "--handshake-timeout",
            "300000",
            "--out",
            &out.display().to_string(),
        ],
    );
    let (stdout, stderr) = (text(&o.stdout), text(&o.stderr));
    assert_eq!(o.status.code(), Some(0), "{stdout}\n{stderr}");
    let gate: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("gate.json")).unwrap()).unwrap();
    assert_eq!(gate["verdict"], "pass", "{gate}");
    let levels = gate["levels"].as_array().unwrap();
    let names: Vec<&str> = levels.iter().map(|l| l["name"].as_str().unwrap()).collect();
    assert_eq!(names, ["elo-800", "elo-1100", "elo-1400", "elo-1700"]);
    eprintln!("{stdout}");
}

#[test]
#[ignore = "plays the release bots: scripts/test.sh runs it"]
fn a_round_robin_of_the_elo_settings_rates_them_in_order() {
    let dir = Dir::new("elo-order");
    let arena = release_arena(&dir);
    let out = dir.join("rr");
    let mut args: Vec<String> = [
        "run",
        "--quiet",
        "--openings",
        "openings/kalah-6x4-balanced.txt",
        "--pairs",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "46",
        "--out",
        &out.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    for elo in [1100, 1700, 800, 1400] {
        args.extend([
            "--bot".to_string(),
            format!("name=elo-{elo} bundled=alphabeta option.Elo={elo}"),
        ]);
    }
    let o = run(&arena, &args.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(o.status.success(), "{}", text(&o.stderr));
    let mut reader = csv::Reader::from_path(out.join("ratings.csv")).unwrap();
    let mut rated: Vec<(String, f64)> = reader
        .deserialize::<std::collections::BTreeMap<String, String>>()
        .map(|r| {
            let r = r.unwrap();
            (r["name"].clone(), r["elo"].parse().unwrap())
        })
        .collect();
    rated.sort_by(|a, b| a.1.total_cmp(&b.1));
    eprintln!("rated: {rated:?}");
    let order: Vec<&str> = rated.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(
        order,
        ["elo-800", "elo-1100", "elo-1400", "elo-1700"],
        "{rated:?}"
    );
}
