//! The Elo knob (issue 46): `option.Elo` on the bundled alpha-beta bot plays through the arena;
//! `arena calibrate --curve` writes an Elo curve the bot reads back (`option.EloCurve`); and
//! `arena analyse` counts the seeds lost per sow of every rating bracket and level
//! (`analysis-losses.csv`) and sets a level beside the people of its rating (`--profile`).
//! Small boards and few games: the strength figures are in docs/bots.md, and the certificate of
//! the bundled settings (`bands.elo.example.toml`) is `tests/elo_gate.rs`.

mod util;

use std::collections::BTreeMap;
use std::path::Path;

use mancala_arena::rules::{Move, Position, Ruleset, Side};
use mancala_arena::solver::{BoardSpec, Solver};
use mancala_bots::elo::EloCurve;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use util::*;

type Row = BTreeMap<String, String>;

/// A player's expected loss profile: sows per loss bin, seeds lost and sows per phase.
type Expected = ([u64; 6], [i64; 3], [u64; 3]);

fn csv_rows(path: &Path) -> Vec<Row> {
    let mut reader = csv::Reader::from_path(path).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    reader.deserialize().map(|r| r.expect("row")).collect()
}

fn num(r: &Row, k: &str) -> f64 {
    r[k].parse()
        .unwrap_or_else(|_| panic!("{k} = {:?} in {r:?}", r.get(k)))
}

/// `arena run --bot name=x bundled=alphabeta option.Elo=1300`: the player words take the option
/// (a spin the bot declares), the games are played to their end, and a value outside the
/// declared range is refused before any game with the range.
#[test]
fn an_elo_setting_plays_through_the_arena() {
    let dir = Dir::new("elo-run");
    let out = dir.join("run");
    let alphabeta = bot("alphabeta");
    let stdout = arena_ok(&[
        "run",
        "--quiet",
        "--bot",
        &format!("name=x cmd={alphabeta} option.Elo=1300"),
        "--bot",
        &format!("name=y cmd={alphabeta} option.Elo=700 option.LimitStrength=true"),
        "--pairs",
        "2",
        "--concurrency",
        "2",
        "--seed",
        "3",
        "--out",
        &out.display().to_string(),
    ]);
    let rows = games(&out);
    assert_eq!(rows.len(), 4, "{stdout}");
    assert!(
        rows.iter().all(|r| r["termination"] == "normal"),
        "{rows:?}"
    );
    let run = std::fs::read_to_string(out.join("run.json")).unwrap();
    assert!(run.contains("\"Elo\"") && run.contains("1300"), "{run}");
    let o = arena(&[
        "run",
        "--bot",
        &format!("name=x cmd={alphabeta} option.Elo=2500"),
        "--bot",
        "random",
        "--pairs",
        "1",
        "--out",
        &dir.join("refused").display().to_string(),
    ]);
    assert!(!o.status.success());
    let err = text(&o.stderr);
    assert!(err.contains("Elo") && err.contains("500 to 2000"), "{err}");
}

/// The settings above Skill 20 use a 24-seed table the bot never builds (it took longer than a
/// bot gets to be ready, and on a fresh machine `Elo=1850` forfeited both games by timeout):
/// with an empty cache folder the games are played, and the first `info string` says the deep
/// solver is off and how to build its table.
#[test]
fn the_strongest_settings_play_from_an_empty_cache() {
    let dir = Dir::new("elo-empty-cache");
    let cache = dir.join("cache");
    std::fs::create_dir_all(&cache).unwrap();
    let out = dir.join("run");
    let alphabeta = bot("alphabeta");
    let o = arena_env(
        &[
            "run",
            "--quiet",
            "--bot",
            &format!("name=x cmd={alphabeta} option.Elo=1850"),
            "--bot",
            "random",
            "--pairs",
            "1",
            "--nodes",
            "3000",
            "--out",
            &out.display().to_string(),
        ],
        &[("MANCALA_SOLVER_DB", &cache)],
    );
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = games(&out);
    assert_eq!(rows.len(), 2);
    assert!(
        rows.iter()
            .all(|r| r["termination"] == "normal" && r["forfeit"].is_empty()),
        "{rows:?}"
    );
    let jsonl = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let logs: String = std::fs::read_dir(out.join("logs"))
        .unwrap()
        .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap_or_default())
        .collect();
    assert!(
        (jsonl + &logs).contains("deep solver off"),
        "the missing table is not said"
    );
}

/// `arena calibrate --curve`: the curve over the whole knob range, fitted to the step folders'
/// games, in the file format the bot reads: monotone, over `Skill`, recording its pool and
/// where the Elos came from; the bot then plays `Elo=` on it (`option.EloCurve`). A `--curve`
/// into a folder that does not exist is refused before any game.
#[test]
fn calibrate_writes_an_elo_curve_the_bot_reads() {
    let dir = Dir::new("elo-curve");
    let cal = dir.join("cal");
    let curve = dir.join("curve.txt");
    let alphabeta = bot("alphabeta");
    let args = |curve: &Path, out: &Path| -> Vec<String> {
        [
            "calibrate",
            "--quiet",
            "--bot",
            &alphabeta,
            "--knob",
            "option.Skill=0..12",
            "--targets",
            "900",
            "--reference",
            "random=600,greedy=1000",
            "--rules",
            "kalah:pits=4,seeds=3",
            "--opening-plies",
            "1",
            "--initial-points",
            "4",
            "--tolerance",
            "400",
            "--max-games",
            "64",
            "--max-pairs",
            "2",
            "--concurrency",
            "2",
            "--seed",
            "7",
            "--curve",
            &curve.display().to_string(),
            "--out",
            &out.display().to_string(),
        ]
        .iter()
        .map(|s| s.to_string())
        .collect()
    };
    let refused = dir.join("refused");
    let a = args(&dir.join("no-such-folder/curve.txt"), &refused);
    let o = arena(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("does not exist"),
        "{}",
        text(&o.stderr)
    );
    assert!(!refused.join("step-00-skill-0").exists());

    let a = args(&curve, &cal);
    let stdout = arena_ok(&a.iter().map(String::as_str).collect::<Vec<_>>());
    assert!(stdout.contains("Elo curve (monotone"), "{stdout}");
    let text_file = std::fs::read_to_string(&curve).unwrap();
    assert_eq!(
        text_file,
        std::fs::read_to_string(cal.join("elo-curve.txt")).unwrap()
    );
    let c = EloCurve::parse(&text_file).unwrap_or_else(|e| panic!("{e}\n{text_file}"));
    assert_eq!((c.knob.as_str(), c.lo, c.hi), ("Skill", 0.0, 12.0));
    let co = &c.coefficients;
    assert!(co.windows(2).all(|w| w[0] <= w[1]) || co.windows(2).all(|w| w[0] >= w[1]));
    assert_eq!(c.info("reference"), Some("random=600.0 greedy=1000.0"));
    assert_eq!(c.info("reference_source"), Some("reference Elos typed"));
    assert_eq!(c.info("rules"), Some("kalah:pits=4,seeds=3"));
    // Every game of the steps is in the fit.
    let played: usize = std::fs::read_dir(&cal)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("step-"))
        .map(|e| games(&e.path()).len())
        .sum();
    assert_eq!(c.info("games"), Some(played.to_string().as_str()));
    assert_eq!(c.points.len(), 21);
    for p in &c.points {
        assert!((c.elo(p.x) - p.elo).abs() < 0.1 && p.low <= p.elo && p.elo <= p.high);
    }
    assert!(cal.join("elo-curve.svg").exists() && cal.join("elo-curve.png").exists());

    // The bot plays an Elo on that curve.
    let (min, max) = c.elo_range();
    let elo = ((min + max) / 2.0).round() as i64;
    let run = dir.join("run");
    arena_ok(&[
        "run",
        "--quiet",
        "--rules",
        "kalah:pits=4,seeds=3",
        "--bot",
        &format!(
            "name=x cmd={alphabeta} option.EloCurve={} option.Elo={elo}",
            curve.display()
        ),
        "--bot",
        "random",
        "--pairs",
        "1",
        "--out",
        &run.display().to_string(),
    ]);
    assert_eq!(games(&run).len(), 2);
}

/// A synthetic player of the loss-profile test: its rating and how it errs.
struct Model {
    name: String,
    rating: f64,
    /// The chance of a mistake where a losing sow exists ...
    err: f64,
    /// ... and whether it then takes the costliest losing sow (else the cheapest).
    blunders: bool,
}

/// The seeds lost per sow, counted by size and phase (`analysis-losses.csv`), against games
/// whose every sow's loss is known as they are made: people of one bracket who err often and
/// cheaply, a level of their rating that errs rarely and expensively. Then `--profile` sets the
/// level beside the people, prints both and draws `mistake-profile.svg/png`.
#[test]
fn the_loss_profile_counts_the_seeds_lost_per_sow() {
    let rules: Ruleset = "kalah:pits=4,seeds=3".parse().unwrap();
    let spec = BoardSpec::from_ruleset(&rules).unwrap();
    let mut solver = Solver::new(spec, 16, None);
    let mut players: Vec<Model> = (0..4)
        .map(|i| Model {
            name: format!("p{i}"),
            rating: 1310.0 + 20.0 * i as f64,
            err: 0.4,
            blunders: false,
        })
        .collect();
    players.push(Model {
        name: "bot".into(),
        rating: 1350.0,
        err: 0.15,
        blunders: true,
    });
    // Expected per group: sows per loss bin (0, 1–2, 3–4, 5–8, 9–16, 17+), and seeds lost and
    // sows per phase (Kalah(4,3) has 24 seeds: middle game above 18 in the pits, else ending).
    let bin = |l: i32| {
        [0, 2, 4, 8, 16, i32::MAX]
            .iter()
            .position(|&h| l <= h)
            .unwrap()
    };
    let mut want: BTreeMap<&str, Expected> = BTreeMap::new();
    let mut rng = ChaCha8Rng::seed_from_u64(46);
    let mut pgn = String::new();
    for g in 0..40 {
        let w = rng.gen_range(0..players.len());
        let b = (w + rng.gen_range(1..players.len())) % players.len();
        let mut pos = Position::new(rules);
        let mut moves = Vec::new();
        while let Some(side) = pos.to_move() {
            let m = &players[if side == Side::South { w } else { b }];
            let (board, _) = spec.board_of(pos.board()).unwrap();
            let v = solver.solve(&board, 0, &mut |_| false).unwrap();
            let losses: Vec<(usize, i32)> = (0..4)
                .filter(|&i| board.c[i] != 0)
                .map(|i| {
                    (
                        i,
                        v - solver.move_value(&board, i, v, &mut |_| false).unwrap(),
                    )
                })
                .collect();
            let best: Vec<usize> = losses.iter().filter(|l| l.1 == 0).map(|l| l.0).collect();
            let mut losing: Vec<(usize, i32)> =
                losses.iter().copied().filter(|l| l.1 > 0).collect();
            losing.sort_by_key(|l| (l.1, l.0));
            let (pick, loss) = if !losing.is_empty() && rng.gen_bool(m.err) {
                if m.blunders {
                    losing[losing.len() - 1]
                } else {
                    losing[0]
                }
            } else {
                (best[rng.gen_range(0..best.len())], 0)
            };
            let seeds = board.seeds();
            let group = if m.name == "bot" {
                "bot"
            } else {
                "1300–1400"
            };
            let e = want.entry(group).or_default();
            e.0[bin(loss)] += 1;
            let phase = if seeds > 18 { 1 } else { 2 };
            e.1[phase] += i64::from(loss);
            e.2[phase] += 1;
            let mv = Move::Pit(pick as u8 + 1);
            pos.play(mv).unwrap();
            moves.push(mv.to_string());
        }
        let outcome = match pos.result().unwrap().winner {
            None => "1/2-1/2",
            Some(Side::South) => "1-0",
            Some(Side::North) => "0-1",
        };
        pgn.push_str(&format!(
            "[Round \"{}\"]\n[White \"{}\"]\n[Black \"{}\"]\n[Result \"{outcome}\"]\n[Variant \"{rules}\"]\n[WhiteElo \"{}\"]\n[BlackElo \"{}\"]\n\n{} {outcome}\n\n",
            g + 1,
            players[w].name,
            players[b].name,
            players[w].rating,
            players[b].rating,
            moves.join(" ")
        ));
    }
    let dir = Dir::new("loss-profile");
    let file = dir.join("synthetic.pgn");
    std::fs::write(&file, &pgn).unwrap();
    let out = dir.join("out");
    let o = arena_env(
        &[
            "analyse",
            &file.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--level",
            "bot",
            "--profile",
            "bot",
            "--db-seeds",
            "12",
            "--no-report",
        ],
        &[("XDG_CACHE_HOME", dir.path())],
    );
    let stdout = succeeded(&["analyse"], o);
    let rows = csv_rows(&out.join("analysis-losses.csv"));
    let got: Vec<&str> = rows.iter().map(|r| r["group"].as_str()).collect();
    assert_eq!(got, ["1300–1400", "bot"]);
    let labels = [
        "loss_0",
        "loss_1_2",
        "loss_3_4",
        "loss_5_8",
        "loss_9_16",
        "loss_17_up",
    ];
    for r in &rows {
        let (bins, lost, sows) = want[r["group"].as_str()];
        let n: u64 = bins.iter().sum();
        assert_eq!(num(r, "sows") as u64, n, "{r:?}");
        for (label, count) in labels.iter().zip(bins) {
            assert!(
                (num(r, label) - count as f64 / n as f64).abs() < 1e-9,
                "{label}: {r:?} against {bins:?}"
            );
        }
        let total: i64 = lost.iter().sum();
        assert!((num(r, "mean_loss") - total as f64 / n as f64).abs() < 1e-9);
        assert!((num(r, "middle_loss") - lost[1] as f64 / sows[1] as f64).abs() < 1e-9);
        assert!((num(r, "ending_loss") - lost[2] as f64 / sows[2] as f64).abs() < 1e-9);
        assert_eq!(num(r, "opening_loss"), 0.0);
    }
    assert_eq!(rows[1]["kind"], "player");
    assert_eq!(num(&rows[1], "rating"), 1350.0);
    // The people err cheaply and often, the level rarely and expensively: more of the people's
    // sows lose 1–2 seeds, and the level's mistakes are the larger.
    assert!(
        num(&rows[0], "loss_1_2") > num(&rows[1], "loss_1_2"),
        "{rows:?}"
    );
    assert!(
        num(&rows[0], "loss_0") < num(&rows[1], "loss_0"),
        "{rows:?}"
    );
    assert!(stdout.contains("the shape of the mistakes"), "{stdout}");
    assert!(stdout.contains("people 1300–1400"), "{stdout}");
    assert!(out.join("mistake-profile.svg").exists() && out.join("mistake-profile.png").exists());
    // A level the games do not rate is refused by name.
    let o = arena_env(
        &[
            "analyse",
            &file.display().to_string(),
            "--out",
            &dir.join("again").display().to_string(),
            "--profile",
            "nobody",
            "--db-seeds",
            "12",
            "--no-report",
        ],
        &[("XDG_CACHE_HOME", dir.path())],
    );
    assert!(!o.status.success());
    assert!(
        text(&o.stderr).contains("--profile `nobody`"),
        "{}",
        text(&o.stderr)
    );
    // A level with no people at its rating (the bot's tags moved to 1550) is named and left
    // out; the other level (p3, 1370, beside p0–p2) is still compared and drawn.
    let moved = dir.join("moved.pgn");
    let (mut white, mut black) = (String::new(), String::new());
    let mut lines = Vec::new();
    for l in pgn.lines() {
        if let Some(name) = l.strip_prefix("[White \"") {
            white = name.trim_end_matches("\"]").to_string();
        } else if let Some(name) = l.strip_prefix("[Black \"") {
            black = name.trim_end_matches("\"]").to_string();
        }
        lines.push(match l.split(' ').next() {
            Some("[WhiteElo") if white == "bot" => "[WhiteElo \"1550\"]".to_string(),
            Some("[BlackElo") if black == "bot" => "[BlackElo \"1550\"]".to_string(),
            _ => l.to_string(),
        });
    }
    std::fs::write(&moved, lines.join("\n") + "\n").unwrap();
    let out = dir.join("moved");
    let o = arena_env(
        &[
            "analyse",
            &moved.display().to_string(),
            "--out",
            &out.display().to_string(),
            "--level",
            "bot",
            "--level",
            "p3",
            "--profile",
            "bot,p3",
            "--db-seeds",
            "12",
            "--no-report",
        ],
        &[("XDG_CACHE_HOME", dir.path())],
    );
    let stdout = succeeded(&["analyse", "--profile", "bot,p3"], o.clone());
    assert!(
        text(&o.stderr).contains("--profile `bot`: no people rated 1500–1600"),
        "{}",
        text(&o.stderr)
    );
    assert!(stdout.contains("people 1300–1400"), "{stdout}");
    assert!(out.join("mistake-profile.svg").exists() && out.join("mistake-profile.png").exists());
}
