//! The solver from the outside (issue 8): `arena solve` on boards whose values plain minimax
//! confirms (src/solver/tests.rs), and the mistake meter on a real run: the solver bot never
//! errs, the random bot does, and report.html / summary.md show the table.

mod util;

use util::*;

/// `arena ARGS...` with the solver's database cache in `cache`; asserts success, returns stdout.
fn arena_with_cache(cache: &Dir, args: &[&str]) -> String {
    succeeded(
        args,
        arena_env(args, &[("MANCALA_SOLVER_DB", cache.path())]),
    )
}

#[test]
fn solve_prints_value_margin_and_best_moves() {
    let cache = Dir::new("solve-cache");
    // Kalah(3,2): the first player wins by 4 (plain minimax agrees, src/solver/tests.rs).
    let out = arena_with_cache(&cache, &["solve", "--rules", "kalah:pits=3,seeds=2"]);
    assert!(out.contains("value     +4"), "{out}");
    assert!(out.contains("margin    +4"), "{out}");
    assert!(out.contains("best      "), "{out}");
    assert!(out.contains("nodes     "), "{out}");
    // The database was built for the game's 12 seeds and cached; the second run maps the file.
    assert!(out.contains("seeds<=12") && out.contains("built"), "{out}");
    let again = arena_with_cache(&cache, &["solve", "--rules", "kalah:pits=3,seeds=2"]);
    assert!(again.contains("mapped in"), "{again}");
    // Kalah(3,3) with empty capture is +2, also by search alone (no database).
    let out = arena_with_cache(
        &cache,
        &[
            "solve",
            "--rules",
            "kalah:pits=3,seeds=3,empty_capture=true",
            "--db-seeds",
            "0",
        ],
    );
    assert!(out.contains("margin    +2"), "{out}");
    // A ruleset the solver cannot solve is a clear error.
    let bad = arena(&["solve", "--rules", "oware"]);
    assert!(!bad.status.success());
    assert!(
        text(&bad.stderr).contains("only solves Kalah"),
        "{}",
        text(&bad.stderr)
    );
}

#[test]
fn mistake_meter_on_a_real_run() {
    let dir = Dir::new("analyse");
    let out = dir.join("run");
    let out_s = out.display().to_string();
    let (solver, random) = (bot("solver"), bot("random"));
    let solver_cmd = format!("cmd={solver}");
    let random_cmd = format!("cmd={random}");
    arena_with_cache(
        &dir,
        &[
            "run",
            "--quiet",
            "--out",
            &out_s,
            "--rules",
            "kalah:pits=4,seeds=3",
            "--pairs",
            "4",
            "--seed",
            "5",
            "--movetime",
            "5000",
            "--bootstrap",
            "0",
            "--no-plots",
            "--bot",
            "name=perfect",
            &solver_cmd,
            "--bot",
            "name=random",
            &random_cmd,
        ],
    );
    let table = arena_with_cache(&dir, &["analyse", &out_s]);
    assert!(
        table.contains("perfect") && table.contains("random"),
        "{table}"
    );
    let mut reader = csv::Reader::from_path(out.join("analysis.csv")).expect("analysis.csv");
    let rows: Vec<std::collections::BTreeMap<String, String>> =
        reader.deserialize().map(|r| r.expect("row")).collect();
    let row = |name: &str| {
        rows.iter()
            .find(|r| r["player"] == name)
            .expect(name)
            .clone()
    };
    let num = |r: &std::collections::BTreeMap<String, String>, k: &str| -> f64 {
        r[k].parse().unwrap_or_else(|_| panic!("{k} = {}", r[k]))
    };
    let (perfect, rand) = (row("perfect"), row("random"));
    for r in [&perfect, &rand] {
        assert_eq!(num(r, "games"), 8.0);
        // Kalah(4,3) has 24 seeds: the database covers every position, so every sow is proven.
        assert_eq!(num(r, "unproven"), 0.0, "{r:?}");
        assert!(num(r, "sows") >= 8.0 * 3.0, "{r:?}");
    }
    assert_eq!(
        num(&perfect, "mistakes"),
        0.0,
        "the solver bot plays proven moves"
    );
    assert_eq!(num(&perfect, "seeds_lost"), 0.0);
    assert!(num(&rand, "mistakes") > 0.0, "random play errs: {rand:?}");
    assert!(num(&rand, "seeds_lost_per_game") > 0.0);
    let rate = num(&rand, "mistake_rate");
    assert!((rate - num(&rand, "mistakes") / num(&rand, "proven")).abs() < 1e-9);
    // Exact values: the split of the games over worker threads changes nothing.
    let csv = std::fs::read_to_string(out.join("analysis.csv")).unwrap();
    // A folder rated on another scale (here anchored by `arena rate`) keeps its ratings.csv:
    // the analysis reads it for the players' ratings and does not rate the folder again.
    arena_with_cache(
        &dir,
        &["rate", &out_s, "--anchor", "random=900", "--bootstrap", "0"],
    );
    let anchored = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    for threads in ["1", "3"] {
        arena_with_cache(
            &dir,
            &["analyse", &out_s, "--threads", threads, "--no-report"],
        );
        let again = std::fs::read_to_string(out.join("analysis.csv")).unwrap();
        assert_eq!(again, csv, "--threads {threads}");
    }
    assert_eq!(
        std::fs::read_to_string(out.join("ratings.csv")).unwrap(),
        anchored
    );
    let mut reader = csv::Reader::from_path(out.join("analysis-brackets.csv")).unwrap();
    let brackets: Vec<std::collections::BTreeMap<String, String>> =
        reader.deserialize().map(|r| r.expect("row")).collect();
    let random_row = brackets.iter().find(|r| r["group"] == "random").unwrap();
    assert_eq!(num(random_row, "rating"), 900.0, "{brackets:?}");
    // The arena's own PGN export of the same games, analysed as PGN, judges them the same
    // (game ids are the export's order, which is the run's).
    let pgn_out = dir.join("from-pgn");
    let pgn_out_s = pgn_out.display().to_string();
    let games_pgn = out.join("games.pgn").display().to_string();
    arena_with_cache(
        &dir,
        &["analyse", &games_pgn, "--out", &pgn_out_s, "--no-report"],
    );
    for file in ["analysis.csv", "analysis-worst.csv", "analysis-games.csv"] {
        let read = |d: &std::path::Path| std::fs::read_to_string(d.join(file)).expect(file);
        // The folder's games carry the fitted ratings; the PGN export has no Elo tags.
        let unrated = |text: String| -> Vec<String> {
            text.lines()
                .map(|l| {
                    let mut cells: Vec<&str> = l.split(',').collect();
                    if file == "analysis-games.csv" {
                        cells[4] = "";
                    }
                    cells.join(",")
                })
                .collect()
        };
        assert_eq!(unrated(read(&pgn_out)), unrated(read(&out)), "{file}");
    }
    // Every player of a results folder is a level at its fitted rating.
    let brackets = std::fs::read_to_string(out.join("analysis-brackets.csv")).unwrap();
    assert!(
        brackets.contains("perfect,player,") && brackets.contains("random,player,"),
        "{brackets}"
    );
    // People from a PGN with Elo tags beside the run's bots at the run's ratings (--ratings).
    let people = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/analyse/hand-written.pgn")
        .display()
        .to_string();
    let mixed = dir.join("mixed");
    let mixed_s = mixed.display().to_string();
    arena_with_cache(
        &dir,
        &[
            "analyse",
            &people,
            &games_pgn,
            "--ratings",
            &out_s,
            "--out",
            &mixed_s,
            "--no-report",
        ],
    );
    let mut reader = csv::Reader::from_path(mixed.join("analysis-brackets.csv")).unwrap();
    let groups: Vec<std::collections::BTreeMap<String, String>> =
        reader.deserialize().map(|r| r.unwrap()).collect();
    let mut reader = csv::Reader::from_path(out.join("ratings.csv")).unwrap();
    let ratings: Vec<std::collections::BTreeMap<String, String>> =
        reader.deserialize().map(|r| r.unwrap()).collect();
    let elo = |name: &str| -> f64 {
        ratings.iter().find(|r| r["name"] == name).unwrap()["elo"]
            .parse()
            .unwrap()
    };
    let got: Vec<(&str, &str)> = groups
        .iter()
        .map(|r| (r["group"].as_str(), r["kind"].as_str()))
        .collect();
    assert_eq!(
        got[..2],
        [("1100–1200", "bracket"), ("1400–1500", "bracket")]
    );
    for level in ["perfect", "random"] {
        let row = groups.iter().find(|r| r["group"] == level).expect(level);
        let at: f64 = row["rating"].parse().unwrap();
        assert!((at - elo(level)).abs() < 1e-6, "{level}: {at}");
        assert_eq!(row["games"], "8");
    }
    // The report shows the table.
    let html = std::fs::read_to_string(out.join("report.html")).expect("report.html");
    assert!(
        html.contains("id=\"mistakes\""),
        "report.html lacks the mistake meter"
    );
    assert!(
        html.contains("id=\"worst-sows\"") && html.contains("href=\"#game="),
        "report.html lacks the costliest sows with their viewer links"
    );
    assert!(html.contains("id=\"plot-mistakes_by_rating\""));
    let md = std::fs::read_to_string(out.join("summary.md")).expect("summary.md");
    assert!(
        md.contains("Mistake meter"),
        "summary.md lacks the mistake meter"
    );
}
