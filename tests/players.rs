//! One player, every command (issue 42): `sprt`, `gate`, `calibrate`, `tune` and `check-bot`
//! each take a player in the words of `run --bot` (docs/players.md), with real processes: a
//! bundled name alone, a bundled bot with options, a program given by `cmd=`, and a KGP agent of
//! `tests/agents/` (refused, with the reason, where a command sets options). What was played is
//! read back from each run folder's `run.json`. Small boards and fixed depths keep them quick.

mod util;

use std::path::{Path, PathBuf};

use serde_json::Value;
use util::*;

/// A small board that every player here plays (the KGP agent included).
const RULES: &str = "kalah:pits=4,seeds=3";

fn kgp_agent() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/agents/kgp_agent.py")
        .display()
        .to_string()
}

/// The player words of the KGP agent.
fn kgp_words() -> Vec<String> {
    vec![
        "name=kgp".into(),
        format!("cmd=python3 {} {{host}} {{port}}", kgp_agent()),
        "protocol=kgp".into(),
    ]
}

/// The players of a run folder as its `run.json` records them.
fn players(dir: &Path) -> Vec<Value> {
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("run.json")).unwrap()).unwrap();
    json["config"]["players"].as_array().unwrap().clone()
}

/// The program a recorded player runs (its path, or its command line's first word).
fn program(player: &Value) -> String {
    player["program"]["program"]
        .as_str()
        .unwrap_or_default()
        .to_string()
}

/// A recorded player's options as `NAME=VALUE` words.
fn options(player: &Value) -> Vec<String> {
    player["options"]
        .as_array()
        .unwrap()
        .iter()
        .map(|o| format!("{}={}", o[0].as_str().unwrap(), o[1].as_str().unwrap()))
        .collect()
}

fn arena_words(words: &[String]) -> std::process::Output {
    let refs: Vec<&str> = words.iter().map(String::as_str).collect();
    arena(&refs)
}

fn strings(words: &[&str]) -> Vec<String> {
    words.iter().map(|w| w.to_string()).collect()
}

/// Runs `arena HEAD... <the small game's flags> --out OUT TAIL...`: the settings every command
/// here plays with (a small board, one opening sow, depth 1, no plots), then its own words.
fn play(head: &[&str], out: &Path, tail: &[String]) -> std::process::Output {
    let mut words = strings(head);
    words.extend(strings(&[
        "--rules",
        RULES,
        "--opening-plies",
        "1",
        "--depth",
        "1",
        "--quiet",
        "--no-plots",
        "--out",
    ]));
    words.push(out.display().to_string());
    words.extend(tail.iter().cloned());
    arena_words(&words)
}

/// Games that ended by the rules (or KGP's early end, which a KGP agent may take): no forfeit.
fn assert_played_out(dir: &Path) {
    let rows = games(dir);
    assert!(!rows.is_empty(), "no games in {}", dir.display());
    for g in rows {
        assert!(
            g["termination"] == "normal" || g["termination"] == "adjudicated",
            "{g:?}"
        );
    }
}

// --- sprt ------------------------------------------------------------------------------------

fn sprt(dir: &Dir, name: &str, base: &[String], test: &[String]) -> PathBuf {
    let out = dir.join(name);
    let head = ["sprt", "--elo0", "0", "--elo1", "50", "--max-pairs", "2"];
    let words = [
        vec!["--base".to_string()],
        base.to_vec(),
        vec!["--test".to_string()],
        test.to_vec(),
    ]
    .concat();
    let o = play(&head, &out, &words);
    // 0 H1, 3 H0, 4 inconclusive: any verdict; not an error.
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "{words:?}: {}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert_played_out(&out);
    out
}

#[test]
fn sprt_takes_every_form_of_the_player_words() {
    let dir = Dir::new("players-sprt");
    // A bundled name alone, on both sides (`normal`: Hard loads its book and database at its
    // first game, seconds on a loaded machine, which `go depth`'s safety timeout would count).
    let out = sprt(&dir, "names", &strings(&["random"]), &strings(&["normal"]));
    let p = players(&out);
    assert!(program(&p[0]).ends_with("mancala-random"), "{p:?}");
    assert!(program(&p[1]).ends_with("mancala-alphabeta"), "{p:?}");
    assert_eq!(options(&p[1]), ["Level=normal"]);
    // A bundled bot with options (a bundled name's own give way to the words').
    let out = sprt(
        &dir,
        "options",
        &strings(&[
            "name=x",
            "bundled=alphabeta",
            "option.Level=easy",
            "option.Noise=0",
        ]),
        &strings(&["hard", "option.Level=normal"]),
    );
    let p = players(&out);
    assert_eq!(p[0]["name"], "base");
    assert_eq!(options(&p[0]), ["Level=easy", "Noise=0"]);
    assert_eq!(options(&p[1]), ["Level=normal"]);
    // A program given by cmd=, and a KGP agent.
    let random = bot("random");
    let out = sprt(&dir, "kgp", &[format!("cmd={random}")], &kgp_words());
    let p = players(&out);
    assert_eq!(program(&p[0]), random);
    assert_eq!(p[1]["protocol"], "kgp");
    assert_eq!(p[1]["name"], "test");
}

#[test]
fn sprt_shorthand_still_works_and_a_bad_word_names_the_keys() {
    let dir = Dir::new("players-sprt-short");
    // The bare command line and --X-option, as scripts wrote them before.
    let out = dir.join("short");
    let (ab, greedy) = (bot("alphabeta"), bot("greedy"));
    let head = [
        "sprt",
        "--base",
        &ab,
        "--base-option",
        "Level=easy",
        "--test",
        &greedy,
        "--elo0",
        "0",
        "--elo1",
        "50",
        "--max-pairs",
        "1",
    ];
    let o = play(&head, &out, &[]);
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "{}",
        text(&o.stderr)
    );
    let p = players(&out);
    assert_eq!(options(&p[0]), ["Level=easy"]);
    assert!(program(&p[1]).ends_with("mancala-greedy"));
    let o = arena(&[
        "sprt",
        "--base",
        "name=a",
        "bundld=random",
        "--test",
        "random",
        "--elo0",
        "0",
        "--elo1",
        "5",
        "--out",
        dir.join("bad").to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(
        err.contains("unknown key `bundld` (keys: name, bundled, cmd, shell, protocol"),
        "{err}"
    );
    assert!(!dir.join("bad").exists());
}

// --- gate ------------------------------------------------------------------------------------

/// A bands file: `random` at 1000 as the pool, and one level `lvl` (bundled greedy) with
/// `options`.
fn bands(dir: &Dir, options: &str) -> PathBuf {
    let path = dir.join(&format!("bands-{}.toml", options.len()));
    let text = format!(
        "rules = \"{RULES}\"\nopening_plies = 1\ndepth = 1\n[reference]\nrandom = 1000\n\
         [[bot]]\nname = \"lvl\"\nbundled = \"greedy\"\noptions = {{ {options} }}\nband = \"1200 ± 400\"\n"
    );
    std::fs::write(&path, text).unwrap();
    path
}

fn gate(dir: &Dir, name: &str, bands: &Path, bot_words: &[String]) -> PathBuf {
    let out = dir.join(name);
    let mut words = strings(&[
        "gate",
        bands.to_str().unwrap(),
        "--max-pairs",
        "1",
        "--quiet",
    ]);
    words.extend(strings(&[
        "--no-plots",
        "--out",
        out.to_str().unwrap(),
        "--bot",
    ]));
    words.extend(bot_words.iter().cloned());
    let o = arena_words(&words);
    assert!(
        matches!(o.status.code(), Some(0 | 3 | 4)),
        "{words:?}: {}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    assert_played_out(&out);
    out
}

/// The level as the gate played it (the pool's players are named `ref-…`).
fn level(out: &Path) -> Value {
    players(out)
        .into_iter()
        .find(|p| p["name"] == "lvl")
        .expect("the level played")
}

#[test]
fn gate_bot_takes_every_form_of_the_player_words() {
    let dir = Dir::new("players-gate");
    let with_level = bands(&dir, "Level = \"easy\"");
    // A bundled name alone: its program, under the level's name and options.
    let lvl = level(&gate(&dir, "name", &with_level, &strings(&["hard"])));
    assert!(program(&lvl).ends_with("mancala-alphabeta"), "{lvl:?}");
    assert_eq!(options(&lvl), ["Level=easy"]);
    // A bundled bot with options: the flag's own join the level's.
    let lvl = level(&gate(
        &dir,
        "options",
        &with_level,
        &strings(&["alphabeta", "option.Noise=0"]),
    ));
    assert_eq!(options(&lvl), ["Level=easy", "Noise=0"]);
    // A program given by cmd= (a bare command line too, the old form).
    let no_options = bands(&dir, "");
    let greedy = bot("greedy");
    let lvl = level(&gate(&dir, "cmd", &no_options, &[format!("cmd={greedy}")]));
    assert_eq!(program(&lvl), greedy);
    let lvl = level(&gate(
        &dir,
        "bare",
        &no_options,
        std::slice::from_ref(&greedy),
    ));
    assert_eq!(program(&lvl), greedy);
    // A KGP agent in place of the level's bot.
    let lvl = level(&gate(&dir, "kgp", &no_options, &kgp_words()));
    assert_eq!(lvl["protocol"], "kgp");
}

// --- calibrate -------------------------------------------------------------------------------

fn calibrate(dir: &Dir, name: &str, extra: &[String]) -> (Option<i32>, String, PathBuf) {
    let out = dir.join(name);
    let head = [
        "calibrate",
        "--targets",
        "1100",
        "--max-games",
        "4",
        "--initial-points",
        "2",
        "--max-pairs",
        "1",
    ];
    let mut words = extra.to_vec();
    if !extra.iter().any(|w| w == "--knob") {
        words.extend(strings(&["--knob", "option.Noise=0..4"]));
    }
    let o = play(&head, &out, &words);
    (o.status.code(), text(&o.stderr), out)
}

/// The candidate as the first calibration step played it.
fn candidate(out: &Path) -> Value {
    let step = std::fs::read_dir(out)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| {
            p.file_name()
                .unwrap()
                .to_string_lossy()
                .starts_with("step-")
        })
        .min()
        .expect("a step folder");
    players(&step)
        .into_iter()
        .find(|p| p["name"] == "candidate")
        .unwrap()
}

#[test]
fn calibrate_takes_every_form_of_the_player_words() {
    let dir = Dir::new("players-calibrate");
    let pool = strings(&["--reference", "random=1000,greedy=1300"]);
    let ok = |(code, err, out): (Option<i32>, String, PathBuf)| {
        assert_eq!(code, Some(0), "{err}");
        out
    };
    // A bundled name alone.
    let words = [strings(&["--bot", "alphabeta"]), pool.clone()].concat();
    let c = candidate(&ok(calibrate(&dir, "name", &words)));
    assert!(program(&c).ends_with("mancala-alphabeta"));
    assert!(options(&c)[0].starts_with("Noise="), "{c:?}");
    // A bundled bot with options; the knob's own value gives way to the knob.
    let words = [
        strings(&["--bot", "easy", "option.Noise=9", "option.Hash=2"]),
        pool.clone(),
    ]
    .concat();
    let out = ok(calibrate(&dir, "options", &words));
    let o = options(&candidate(&out));
    assert_eq!(&o[..2], ["Level=easy", "Hash=2"], "{o:?}");
    assert!(o[2].starts_with("Noise=") && o[2] != "Noise=9", "{o:?}");
    // The calibrated levels keep the player's words (calibrated.toml reads as [[bot]] tables).
    let toml = std::fs::read_to_string(out.join("calibrated.toml")).unwrap();
    assert!(toml.contains("Level = \"easy\""), "{toml}");
    // A program given by cmd=, and a KGP agent in the reference pool (with its Elo).
    let ab = bot("alphabeta");
    let mut kgp_ref = kgp_words();
    kgp_ref.push("elo=1000".into());
    let words = [
        vec!["--bot".to_string(), format!("cmd={ab}")],
        strings(&["--reference", "greedy=1300", "--reference-bot"]),
        kgp_ref,
    ]
    .concat();
    let out = ok(calibrate(&dir, "cmd-kgp", &words));
    assert_eq!(program(&candidate(&out)), ab);
    let step = players(
        &out.join(
            std::fs::read_dir(&out)
                .unwrap()
                .flatten()
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .filter(|n| n.starts_with("step-"))
                .min()
                .unwrap(),
        ),
    );
    assert!(
        step.iter()
            .any(|p| p["protocol"] == "kgp" && p["name"] == "kgp"),
        "{step:?}"
    );
}

#[test]
fn calibrate_refuses_a_knob_its_player_cannot_take_before_any_game() {
    let dir = Dir::new("players-calibrate-refused");
    let pool = strings(&["--reference", "random=1000,greedy=1300"]);
    // A KGP agent has no options at all.
    let words = [vec!["--bot".to_string()], kgp_words(), pool.clone()].concat();
    let (code, err, out) = calibrate(&dir, "kgp", &words);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("a calibration's knob sets options of the bot, and the kgp protocol has none"),
        "{err}"
    );
    assert!(!out.exists());
    // A knob the bot does not declare: the options it does declare are named.
    let mut words = [strings(&["--bot", "alphabeta"]), pool].concat();
    words.extend(strings(&["--knob", "option.Nois=0..4"]));
    let (code, err, out) = calibrate(&dir, "undeclared", &words);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--knob: the bot declares no option `Nois`; it declares Level, Depth, Noise"),
        "{err}"
    );
    assert!(!out.exists(), "a refused calibration leaves no folder");
}

// --- tune ------------------------------------------------------------------------------------

fn tune(
    dir: &Dir,
    name: &str,
    bot_words: &[String],
    extra: &[&str],
) -> (Option<i32>, String, PathBuf) {
    let out = dir.join(name);
    let head = [
        "tune",
        "--iterations",
        "1",
        "--pairs-per-iteration",
        "1",
        "--no-verify",
    ];
    let words = [
        strings(extra),
        vec!["--bot".to_string()],
        bot_words.to_vec(),
    ]
    .concat();
    let o = play(&head, &out, &words);
    (o.status.code(), text(&o.stderr), out)
}

/// θ+ of the first iteration as it was played.
fn plus(out: &Path) -> Value {
    players(&out.join("iter-0000"))
        .into_iter()
        .find(|p| p["name"] == "plus")
        .unwrap()
}

#[test]
fn tune_takes_every_form_of_the_player_words() {
    let dir = Dir::new("players-tune");
    let tuned = ["--tune-options", "EvalMobility"];
    let ok = |(code, err, out): (Option<i32>, String, PathBuf)| {
        assert_eq!(code, Some(0), "{err}");
        out
    };
    // A bundled name alone.
    let p = plus(&ok(tune(&dir, "name", &strings(&["alphabeta"]), &tuned)));
    assert!(program(&p).ends_with("mancala-alphabeta"));
    assert!(options(&p)[0].starts_with("EvalMobility="), "{p:?}");
    // A bundled bot with options (the tuned one's own gives way to the tune).
    let words = strings(&["normal", "option.Hash=2", "option.EvalMobility=60"]);
    let out = ok(tune(&dir, "options", &words, &tuned));
    let o = options(&plus(&out));
    assert_eq!(&o[..2], ["Level=normal", "Hash=2"], "{o:?}");
    assert!(
        o[2].starts_with("EvalMobility=") && o[2] != "EvalMobility=60",
        "{o:?}"
    );
    let toml = std::fs::read_to_string(out.join("tuned.toml")).unwrap();
    assert!(toml.contains("Level = \"normal\""), "{toml}");
    // A program given by cmd=, and a params file.
    let params = dir.join("params.txt");
    std::fs::write(&params, "EvalCapture, 0, -8, 8, 2, 0.01\n").unwrap();
    let ab = bot("alphabeta");
    let p = plus(&ok(tune(
        &dir,
        "cmd",
        &[format!("cmd={ab}")],
        &["--params", params.to_str().unwrap()],
    )));
    assert_eq!(program(&p), ab);
    // A resumed tune plays the same player (recorded in tune.json).
    let json: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("cmd").join("tune.json")).unwrap())
            .unwrap();
    assert_eq!(json["setup"]["player"]["program"]["program"], ab.as_str());
}

#[test]
fn tune_refuses_what_its_player_cannot_take_before_any_game() {
    let dir = Dir::new("players-tune-refused");
    let (code, err, out) = tune(
        &dir,
        "kgp",
        &kgp_words(),
        &["--tune-options", "EvalMobility"],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("a tune sets options of the bot, and the kgp protocol has none"),
        "{err}"
    );
    assert!(!out.exists());
    let params = dir.join("params.txt");
    std::fs::write(&params, "EvalCaptur, 0, -8, 8, 2, 0.01\n").unwrap();
    let (code, err, out) = tune(
        &dir,
        "undeclared",
        &strings(&["alphabeta"]),
        &["--params", params.to_str().unwrap()],
    );
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("--params: the bot declares no option `EvalCaptur`; it declares Level, Depth"),
        "{err}"
    );
    assert!(!out.exists(), "a refused tune leaves no folder");
}

// --- check-bot -------------------------------------------------------------------------------

fn check_bot(words: &[String]) -> String {
    let mut all = strings(&["check-bot", "--ruleset", RULES]);
    all.extend(words.iter().cloned());
    let o = arena_words(&all);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{all:?}: {}\n{}",
        text(&o.stdout),
        text(&o.stderr)
    );
    text(&o.stdout)
}

#[test]
fn check_bot_takes_every_form_of_the_player_words() {
    // A bundled name alone, after --bot or after `--`.
    let report = check_bot(&strings(&["--bot", "greedy"]));
    assert!(report.contains("PASS handshake"), "{report}");
    assert!(check_bot(&strings(&["--", "random"])).contains("PASS games"));
    // A bundled bot with options: they are set before the checks (a bad value would fail).
    let report = check_bot(&strings(&[
        "--bot",
        "hard",
        "option.Depth=2",
        "option.Hash=2",
    ]));
    assert!(report.contains("PASS setoption"), "{report}");
    // A program given by cmd=, and the old form: the command line after `--`.
    let random = bot("random");
    assert!(check_bot(&["--bot".to_string(), format!("cmd={random}")]).contains("PASS games"));
    assert!(check_bot(&["--".to_string(), random]).contains("PASS games"));
    // A KGP agent, by its words.
    let mut words = vec!["--bot".to_string()];
    words.extend(kgp_words());
    let report = check_bot(&words);
    assert!(report.contains("PASS games"), "{report}");
}

/// A sandboxed player (bubblewrap) in an SPRT: the same words as in `run`, the same sandbox.
#[test]
fn sprt_plays_a_sandboxed_player() {
    if !Path::new("/usr/bin/bwrap").exists() {
        assert!(!in_ci(), "CI must install bubblewrap (.ci/run)");
        skipped(
            "sprt_plays_a_sandboxed_player",
            "bubblewrap (/usr/bin/bwrap) is not installed",
        );
        return;
    }
    let dir = Dir::new("players-sprt-sandbox");
    let own = dir.join("own");
    std::fs::create_dir_all(&own).unwrap();
    let test = [
        "greedy".to_string(),
        "sandbox=true".into(),
        format!("dir={}", own.display()),
    ];
    let out = sprt(&dir, "sandbox", &strings(&["random"]), &test);
    let p = players(&out);
    assert_eq!(p[1]["sandbox"], true);
    assert_eq!(p[1]["dir"], own.display().to_string());
}

/// Every command that names a player points its help to the one page that says how.
#[test]
fn every_player_flag_points_to_the_players_page() {
    for cmd in ["run", "sprt", "gate", "calibrate", "tune", "check-bot"] {
        let help = arena_ok(&[cmd, "--help"]);
        assert!(help.contains("docs/players.md"), "{cmd}: {help}");
        assert!(help.contains("<PLAYER>"), "{cmd}: {help}");
    }
}
