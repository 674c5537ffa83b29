//! The site's own scale (issue #29): `arena calibrate` with the reference pool's Elos read from a
//! rating of the site's games between rated humans and the AI levels, its matchmaking table over
//! those humans, and `arena gate` holding the calibrated levels to their bands on that scale.
//!
//! The scale is the arena's own rating of the shared `ratings-anchors` fixture's games, made in
//! the test: `arena rate site.pgn --loose-anchors loose.csv` (every human a loose anchor at its
//! site rating, sd 60; Ordo's `-y`, which it matches within 0.01 Elo, `tests/ratings.rs`:
//! hard 1685.44, normal 1261.08, easy 897.78, 30 humans). Fast bundled bots stand in for the site's levels
//! (random for easy, greedy for normal, alpha-beta at Normal without noise, depth 4, for hard), so
//! the pool's real strengths are not those Elos: the test checks the plumbing end to end, not
//! that the stand-ins play like the site's levels.

mod util;

use std::path::Path;

use util::*;

/// Ordo's `-y` Elos of the levels (`ordo-loose.csv`), which the arena's rating matches.
const ORDO_LEVELS: [f64; 3] = [897.78, 1261.08, 1685.44];

/// The reference pool: the site's level names, played by fast bundled bots.
fn pool_args() -> Vec<String> {
    vec![
        "--reference-bot".into(),
        format!("name=easy cmd={}", bot("random")),
        "--reference-bot".into(),
        format!("name=normal cmd={}", bot("greedy")),
        "--reference-bot".into(),
        format!(
            "name=hard cmd={} option.Level=normal option.Noise=0",
            bot("alphabeta")
        ),
    ]
}

fn json(path: &Path) -> serde_json::Value {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    serde_json::from_str(&text).unwrap()
}

#[test]
fn calibrate_and_gate_on_the_site_human_scale() {
    let dir = Dir::new("human-scale");
    let cal_dir = dir.join("cal");
    let scale = site_scale(&dir);
    let ratings = scale.join("ratings.csv");
    let mut args: Vec<String> = [
        "calibrate",
        "--quiet",
        "--bot",
        &bot("alphabeta"),
        "--bot-option",
        "Level=normal",
        "--knob",
        "option.Noise=0.0..3.0",
        "--targets",
        "1100,1500",
        "--reference-ratings",
        &ratings.display().to_string(),
        "--level-name",
        "alphabeta-normal",
        "--tolerance",
        "120",
        "--max-games",
        "240",
        "--max-pairs",
        "2",
        "--band-tolerance",
        "150",
        "--opening-plies",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "5",
        "--out",
        &cal_dir.display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(pool_args());
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let stdout = arena_ok(&argv);
    eprintln!("{stdout}");

    // The pool was held at the rating's Elos, exactly, and every output says where they came from.
    let cal = json(&cal_dir.join("calibration.json"));
    let opponents: Vec<f64> = cal["opponents"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_f64().unwrap())
        .collect();
    assert_eq!(opponents.len(), 3);
    for (ours, ordo) in opponents.iter().zip(ORDO_LEVELS) {
        assert!(
            (ours - ordo).abs() < 0.02,
            "{opponents:?} vs Ordo {ORDO_LEVELS:?}"
        );
    }
    let anchor = json(&scale.join("summary.json"))["anchor"]
        .as_str()
        .unwrap()
        .to_string();
    assert!(
        anchor.starts_with("loose human00 = 1644 ± 60, "),
        "{anchor}"
    );
    let source = format!(
        "reference Elos from {} (anchor: {anchor}; 1200 games)",
        ratings.display()
    );
    // The terminal counts the thirty anchors; the files keep the whole list (issue 47).
    let counted = format!(
        "reference Elos from {} (anchor: 30 players, each in the rating's summary.json; 1200 games)",
        ratings.display()
    );
    assert!(stdout.contains(&counted), "{stdout}");
    assert!(!stdout.contains(&anchor), "{stdout}");
    for file in [
        "table.txt",
        "calibrated.toml",
        "bands.toml",
        "matchmaking.txt",
    ] {
        let text = std::fs::read_to_string(cal_dir.join(file)).unwrap();
        assert!(text.contains(&source), "{file}: {text}");
    }
    let targets = cal["targets"].as_array().unwrap();
    assert_eq!(targets.len(), 2);
    for t in targets {
        let x = t["x"].as_f64().unwrap();
        assert!((0.0..=3.0).contains(&x), "{t}");
    }

    // The matchmaking table: brackets of 50 from the weakest human (674.57) to the strongest
    // (1662.03), 650-700 to 1650-1700, holding the 30 humans and none of the levels.
    let csv = std::fs::read_to_string(cal_dir.join("matchmaking.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("bracket_low,bracket_high,centre,humans,level,value,value_low,value_high,elo,ci_low,ci_high,reachable,human_score")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 21, "{csv}");
    assert_eq!((rows[0][0], rows[20][1]), ("650.0", "1700.0"));
    let humans: usize = rows.iter().map(|r| r[3].parse::<usize>().unwrap()).sum();
    assert_eq!(humans, 30);
    let curve_elo = |x: f64| -> f64 {
        // The curve of calibration.json at x: E = Σ θ_j t^j, t the knob mapped to [-1, 1].
        let curve = &cal["curve"];
        let (lo, hi) = (curve["lo"].as_f64().unwrap(), curve["hi"].as_f64().unwrap());
        let t = 2.0 * (x - lo) / (hi - lo) - 1.0;
        let degree = curve["degree"].as_u64().unwrap() as usize;
        let beta = curve["beta"].as_array().unwrap();
        (0..=degree)
            .map(|j| beta[j].as_f64().unwrap() * t.powi(j as i32))
            .sum()
    };
    let mut reached = 0;
    for r in &rows {
        assert_eq!(r[4], "alphabeta-normal");
        let (centre, value): (f64, f64) = (r[2].parse().unwrap(), r[5].parse().unwrap());
        assert!((0.0..=3.0).contains(&value), "{r:?}");
        if r[11] == "true" {
            reached += 1;
            // At the value given a human at the centre scores 50 %: the curve's Elo there is
            // the centre (to the 3 decimals the value is written with).
            assert_eq!(r[12], "0.500");
            assert!((curve_elo(value) - centre).abs() < 2.0, "{r:?}");
            let (low, high): (f64, f64) = (r[6].parse().unwrap(), r[7].parse().unwrap());
            assert!(low <= value && value <= high, "{r:?}");
        } else {
            assert!(value == 0.0 || value == 3.0, "{r:?}");
            assert_ne!(r[12], "0.500");
        }
    }
    assert!(reached > 0, "{csv}");
    let mm = json(&cal_dir.join("matchmaking.json"));
    assert_eq!(mm["table"]["humans"], 30);
    let share = mm["table"]["levels"][0]["share"].as_f64().unwrap();
    assert!(share > 0.0 && share <= 1.0);
    let svg = std::fs::read_to_string(cal_dir.join("matchmaking.svg")).unwrap();
    assert!(svg.contains("alphabeta-normal: ") && svg.contains("% of humans"));
    assert!(cal_dir.join("matchmaking.png").exists());

    // The gate: the calibrated levels against the same pool, its Elos read from the rating by
    // the bands file (`reference_ratings`) instead of typed.
    let bands_text = std::fs::read_to_string(cal_dir.join("bands.toml")).unwrap();
    let mut bands: toml::Table = toml::from_str(&bands_text).unwrap();
    for player in bands["reference"]["bot"].as_array_mut().unwrap() {
        player.as_table_mut().unwrap().remove("elo");
    }
    bands.remove("reference_source");
    bands.insert(
        "reference_ratings".into(),
        toml::Value::String(scale.display().to_string()),
    );
    bands.insert("max_pairs".into(), toml::Value::Integer(60));
    let bands_file = dir.join("bands-on-the-site-scale.toml");
    std::fs::write(&bands_file, toml::to_string(&bands).unwrap()).unwrap();
    let gate_dir = dir.join("gate");
    let o = arena(&[
        "gate",
        &bands_file.display().to_string(),
        "--quiet",
        "--no-plots",
        "--seed",
        "7",
        "--out",
        &gate_dir.display().to_string(),
    ]);
    let gate_out = text(&o.stdout);
    eprintln!("{gate_out}");
    let gate = json(&gate_dir.join("gate.json"));
    assert_eq!(
        o.status.code(),
        gate["exit_code"].as_u64().map(|c| c as i32)
    );
    let pool: Vec<(String, f64)> = gate["pool"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| {
            (
                p["name"].as_str().unwrap().to_string(),
                p["elo"].as_f64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        pool,
        [
            ("ref-easy".to_string(), opponents[0]),
            ("ref-normal".to_string(), opponents[1]),
            ("ref-hard".to_string(), opponents[2])
        ]
    );
    assert_eq!(gate["reference_source"].as_str(), Some(source.as_str()));
    assert!(
        gate_out.contains(&format!("The pool's Elos: {source}.")),
        "{gate_out}"
    );
    let levels = gate["levels"].as_array().unwrap();
    assert_eq!(levels.len(), 2);
    assert_eq!(levels[0]["name"], "elo-1100");
    assert_eq!(levels[1]["name"], "elo-1500");
    // Each level's band is the curve's Elo at its setting ± 150, on the site's scale.
    for (level, t) in levels.iter().zip(targets) {
        assert_eq!(
            level["band"]["elo"].as_f64(),
            t["elo"].as_f64().map(f64::round)
        );
    }

    // The dashboard's calibration page has the matchmaking section and its figure.
    let page = served_page(dir.path(), "/run?id=cal");
    assert!(page.contains("<h2>Matchmaking</h2>"), "{page}");
    assert!(page.contains("Levels over the site") && page.contains("alphabeta-normal: "));
}

/// `arena serve ROOT` on a free port, one GET of `path`, and the body.
fn served_page(root: &Path, path: &str) -> String {
    use std::io::{BufRead, BufReader};
    use std::process::{Command, Stdio};
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
    let page = http(&addr, "GET", path, &[], "");
    let _ = child.kill();
    let _ = child.wait();
    assert_eq!(page.status, 200, "{}", page.body);
    page.body
}

#[test]
fn a_reference_player_missing_from_the_ratings_is_an_error_naming_it() {
    let dir = Dir::new("human-scale-missing");
    let scale = site_scale(&dir);
    let ratings = scale.join("ratings.csv");
    let mut args: Vec<String> = [
        "calibrate",
        "--quiet",
        "--bot",
        &bot("alphabeta"),
        "--knob",
        "option.Noise=0.0..3.0",
        "--reference-ratings",
        &ratings.display().to_string(),
        "--out",
        &dir.join("cal").display().to_string(),
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    args.extend(pool_args());
    args.extend([
        "--reference-bot".to_string(),
        format!("name=expert cmd={}", bot("greedy")),
    ]);
    let argv: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = arena(&argv);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains(&format!(
            "the reference player `expert` is not rated in {}",
            ratings.display()
        )) && err.contains("--reference-ratings"),
        "{err}"
    );
    assert!(!dir.join("cal").exists(), "nothing is played or written");

    // The gate says the same of a bands file whose `reference_ratings` lacks a player.
    let bands = dir.join("bands.toml");
    std::fs::write(
        &bands,
        format!(
            "reference_ratings = \"{}\"\n[[reference.bot]]\nname = \"expert\"\ncmd = \"{}\"\n\
             [[bot]]\nname = \"easy\"\ncmd = \"{}\"\nband = \"1000 ± 100\"\n",
            scale.display(),
            bot("greedy"),
            bot("alphabeta")
        ),
    )
    .unwrap();
    let o = arena(&[
        "gate",
        &bands.display().to_string(),
        "--quiet",
        "--out",
        &dir.join("gate").display().to_string(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("bands.toml")
            && err.contains("reference_ratings")
            && err.contains("the reference player `expert` is not rated in"),
        "{err}"
    );
}
