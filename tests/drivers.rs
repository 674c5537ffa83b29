//! The ManKalah, KGP and per-move drivers (issues 19 and 27) with real processes and a real
//! loopback socket: the reference agents of `tests/agents/` (written from the protocols'
//! published descriptions, the KGP one checking the official server's conventions) in a round
//! robin with a bundled bot, every misbehaviour a forfeit with its reason, no process left behind,
//! and `check-bot --protocol`.

mod util;

use std::path::Path;

use util::*;

/// ManKalah's game, which both drivers play.
const MANKALAH: &str = "kalah:pits=7,seeds=7,pie=true,first_extra_turn=false";

/// `--bot` words for a reference agent: `protocol` is mankalah, kgp or per-move, `flags` its
/// mode, `tag`
/// a word on its command line that finds its processes afterwards.
fn agent_bot(name: &str, protocol: &str, flags: &str, tag: &str) -> Vec<String> {
    let cmd = match protocol {
        "mankalah" => format!("python3 {} {flags} --{tag}", agent("mankalah_agent.py")),
        "per-move" => format!("python3 {} {flags} --{tag}", agent("per_move_agent.py")),
        _ => format!(
            "python3 {} {{host}} {{port}} {flags} --{tag}",
            agent("kgp_agent.py")
        ),
    };
    vec![
        "--bot".into(),
        format!("name={name}"),
        format!("cmd={cmd}"),
        format!("protocol={protocol}"),
    ]
}

/// Processes whose command line holds `tag` (none may outlive the arena).
fn processes_with(tag: &str) -> Vec<String> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").into_iter().flatten().flatten() {
        if let Ok(cmdline) = std::fs::read(entry.path().join("cmdline")) {
            let cmdline = String::from_utf8_lossy(&cmdline).replace('\0', " ");
            if cmdline.contains(tag) {
                found.push(cmdline);
            }
        }
    }
    found
}

/// The detail of a game stopped at KGP's early end (every game with a KGP agent may end so).
const KGP_EARLY_END: &str = "KGP early end: a store holds more than half the seeds";

/// A game played to its end: the rules' end, or KGP's early end.
fn played_out(g: &std::collections::BTreeMap<String, String>) -> bool {
    g["termination"] == "normal"
        || (g["termination"] == "adjudicated" && g["detail"] == KGP_EARLY_END)
}

fn run(out: &Path, extra: &[&str], bots: &[Vec<String>]) -> std::process::Output {
    let out_text = out.display().to_string();
    let mut words: Vec<&str> = vec!["run", "--quiet", "--no-plots", "--out", &out_text];
    words.extend_from_slice(&["--rules", MANKALAH, "--opening-plies", "0"]);
    words.extend_from_slice(extra);
    let bots: Vec<&str> = bots.iter().flatten().map(String::as_str).collect();
    words.extend_from_slice(&bots);
    arena(&words)
}

#[test]
fn a_mankalah_agent_a_kgp_agent_and_a_bundled_bot_play_a_round_robin() {
    let dir = Dir::new("drivers-rr");
    let tag = format!("rr-{}", std::process::id());
    let greedy = vec![
        "--bot".into(),
        "name=greedy".into(),
        "bundled=greedy".into(),
    ];
    // A per-move program in a few lines of shell, its tag in its arguments.
    let shell = vec![
        "--bot".into(),
        "name=first-pit".into(),
        format!("cmd={} --{tag}", agent("per_move_first_pit.sh")),
        "protocol=per-move".into(),
    ];
    let bots = [
        agent_bot("mk", "mankalah", "", &tag),
        agent_bot("mk-swap", "mankalah", "--swap", &tag),
        greedy,
        shell,
    ];
    // The KGP agent comes from a tournament file, with its `protocol` key.
    let file = dir.join("kgp.toml");
    let cmd = format!(
        "python3 {} {{host}} {{port}} --{tag}",
        agent("kgp_agent.py")
    );
    let toml = format!("[[bot]]\nname = \"kgp\"\ncmd = {cmd:?}\nprotocol = \"kgp\"\n");
    std::fs::write(&file, toml).unwrap();
    let file = file.display().to_string();
    let out = dir.join("run");
    // The agents answer at once; a Python interpreter started for each ManKalah game (and
    // for each per-move sow) is slow on a loaded machine, on its CPU time it is not.
    let extra = [
        "--pairs",
        "2",
        "--movetime",
        "1000",
        "--time-by",
        "cpu",
        &file,
    ];
    let output = run(&out, &extra, &bots);
    succeeded(&[], output);
    let games = games(&out);
    assert_eq!(games.len(), 40, "10 encounters x 2 pairs x 2 games");
    for g in &games {
        assert!(played_out(g), "{g:?}");
        assert_eq!(g["rules"], MANKALAH);
    }
    // The swapping agent swapped as North, and the game went on with the seats exchanged.
    let jsonl = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let swaps = jsonl.lines().filter(|l| l.contains("\"swap\"")).count();
    assert!(
        swaps >= 8,
        "mk-swap plays North in 8 games and swaps each time: {swaps}"
    );
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    for name in ["mk", "mk-swap", "kgp", "greedy", "first-pit"] {
        assert!(
            ratings.lines().any(|l| l.contains(&format!(",{name},"))),
            "{ratings}"
        );
    }
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}

/// Every misbehaving agent against the bundled random bot: `(mode, expected termination when
/// the agent moves first, when it moves second)`, alternatives separated by `|`.
/// Returns the folder, which holds the run.
fn faults(protocol: &str, cases: &[(&str, &str, &str)]) -> Dir {
    let dir = Dir::new(&format!("drivers-faults-{protocol}"));
    let tag = format!("faults-{protocol}-{}", std::process::id());
    let mut bots = vec![vec![
        "--bot".into(),
        "name=random".into(),
        "bundled=random".into(),
    ]];
    for (mode, _, _) in cases {
        let mut bot = agent_bot(mode, protocol, &format!("--{mode}"), &tag);
        if protocol == "kgp" {
            // The strict rule: a missing move loses (the official server's random move is
            // `a_kgp_agent_that_makes_no_move_gets_random_moves_as_the_official_server_plays`).
            bot.push("kgp_missing_move=forfeit".into());
        }
        bots.push(bot);
    }
    let out = dir.join("run");
    // On the agents' CPU time: a loaded machine cannot make a well-behaved one lose on time (a
    // hanging one, which uses none, loses at the wall-time cap, 4 × the limit).
    let extra = ["--pairs", "1", "--movetime", "1000", "--gauntlet", "random"];
    let extra = [&extra[..], &["--time-by", "cpu"]].concat();
    succeeded(&[], run(&out, &extra, &bots));
    let games = games(&out);
    assert_eq!(games.len(), 2 * cases.len());
    for (mode, as_first, as_second) in cases {
        for g in games
            .iter()
            .filter(|g| g["first"] == *mode || g["second"] == *mode)
        {
            let expected = if g["first"] == *mode {
                as_first
            } else {
                as_second
            };
            let what = format!("{protocol} --{mode}: {g:?}");
            if *expected == "normal" {
                assert!(played_out(g), "{what}");
                continue;
            }
            assert!(expected.split('|').any(|e| g["termination"] == e), "{what}");
            if !played_out(g) {
                assert_eq!(g["forfeit"], *mode, "{what}");
                assert!(!g["detail"].is_empty(), "{what}");
            }
        }
    }
    assert_eq!(processes_with(&tag), Vec::<String>::new());
    dir
}

#[test]
fn every_mankalah_misbehaviour_is_a_forfeit_with_its_reason() {
    faults(
        "mankalah",
        &[
            ("crash", "crash", "crash"),
            ("hang", "timeout", "timeout"),
            ("illegal", "illegal_move", "illegal_move"),
            ("garbage", "malformed_move", "malformed_move"),
            // Seated North it believes it is South and moves before South did: caught when it
            // is asked to move (malformed), or, when that early MOVE arrives just as it is
            // asked, taken as its answer (as ManKalah's engine would) and a later stale answer
            // is illegal.
            ("wrong-side", "normal", "malformed_move|illegal_move"),
        ],
    );
}

#[test]
fn every_kgp_misbehaviour_is_a_forfeit_with_its_reason() {
    let dir = faults(
        "kgp",
        &[
            ("crash", "crash", "crash"),
            ("hang", "timeout", "timeout"),
            ("illegal", "illegal_move", "illegal_move"),
            ("garbage", "garbage", "garbage"),
            // It reads the board as if it moved North (an older draft of the spec): a pit it
            // picks may be empty on its real side, which is an illegal move.
            ("wrong-side", "normal|illegal_move", "normal|illegal_move"),
            // Not a fault: the agent's own pings are answered (it exits if one is not).
            ("ping", "normal", "normal"),
            // Its moves name a state never sent: ignored, and the timeout says so (#32).
            ("wrong-ref", "timeout", "timeout"),
            // A `yield` before any move (jkgp's race).
            ("yield-first", "malformed_move", "malformed_move"),
        ],
    );
    let games = games(&dir.join("run"));
    let wrong = games.iter().find(|g| g["forfeit"] == "wrong-ref").unwrap();
    assert!(
        wrong["detail"].contains("2 move or yield commands named another state")
            && wrong["detail"].contains("(kgp_missing_move=forfeit;"),
        "{wrong:?}"
    );
    let yielded = games
        .iter()
        .find(|g| g["forfeit"] == "yield-first")
        .unwrap();
    assert!(
        yielded["detail"].starts_with("yield before any move (kgp_missing_move=forfeit;"),
        "{yielded:?}"
    );
}

/// As the official server (go-kgp) judges an agent: one that sends no move by the move time
/// (it is alive: it answers the ping that follows), that names another state, or that yields
/// before any move gets a random legal move and the game goes on. The moves are marked in
/// `games.jsonl` and the agent's log, counted per agent in `games.csv`, `summary.json` and the
/// ratings table, and drawn from the game's seed: the same run plays the same games again.
#[test]
fn a_kgp_agent_that_makes_no_move_gets_random_moves_as_the_official_server_plays() {
    let dir = Dir::new("drivers-kgp-random");
    let tag = format!("kgp-random-{}", std::process::id());
    let mut bots = vec![bundled("random")];
    for mode in ["hang", "wrong-ref", "yield-first"] {
        bots.push(agent_bot(mode, "kgp", &format!("--{mode}"), &tag));
    }
    let play = |name: &str| {
        let out = dir.join(name);
        let extra = ["--pairs", "1", "--movetime", "100", "--gauntlet", "random"];
        let o = run(&out, &[&extra[..], &["--concurrency", "1"]].concat(), &bots);
        succeeded(&[], o);
        out
    };
    let out = play("run");
    let rows = games(&out);
    assert_eq!(rows.len(), 6);
    let jsonl = std::fs::read_to_string(out.join("games.jsonl")).unwrap();
    let records: Vec<serde_json::Value> = jsonl
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .collect();
    let mut counted = std::collections::BTreeMap::<String, u64>::new();
    for g in &rows {
        assert!(played_out(g) && g["forfeit"].is_empty(), "{g:?}");
        let agent = if g["first"] == "random" {
            "second"
        } else {
            "first"
        };
        let name = &g[agent];
        let random: u64 = g[&format!("{agent}_random")].parse().unwrap();
        assert!(random > 0, "{g:?}");
        let other = if agent == "first" { "second" } else { "first" };
        assert_eq!(g[&format!("{other}_random")], "0", "{g:?}");
        *counted.entry(name.clone()).or_default() += random;
        // The record marks the agent's random sows, and only those.
        let record = records
            .iter()
            .find(|r| r["game_id"].as_u64() == g["game_id"].parse().ok())
            .unwrap();
        let seat = u64::from(agent == "second");
        let marked = record["random"].as_array().unwrap();
        assert_eq!(marked.len() as u64, random, "{record}");
        for sow in marked {
            let mover = &record["movers"][sow.as_u64().unwrap() as usize];
            assert_eq!(mover.as_u64(), Some(seat), "{record}");
        }
    }
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap()).unwrap();
    for (name, n) in &counted {
        assert_eq!(
            summary["random_moves"][name].as_u64(),
            Some(*n),
            "{summary}"
        );
        let log = std::fs::read_to_string(out.join(format!("logs/{name}.stderr.log"))).unwrap();
        assert!(log.contains("played a random move"), "{name}: {log}");
    }
    assert_eq!(summary["random_moves"].as_object().unwrap().len(), 3);
    // The ratings table has the column (`arena rate` prints it).
    let table = arena_ok(&["rate", out.to_str().unwrap()]);
    assert!(table.contains("random moves"), "{table}");
    // Drawn from the games' seeds: the hanging agent's games are the same again.
    let again = play("again");
    let moves = |dir: &Path, who: &str| -> Vec<String> {
        let text = std::fs::read_to_string(dir.join("games.jsonl")).unwrap();
        let mut games: Vec<(u64, String)> = text
            .lines()
            .map(|l| serde_json::from_str::<serde_json::Value>(l).unwrap())
            .filter(|r| r["first"] == who || r["second"] == who)
            .map(|r| (r["game_id"].as_u64().unwrap(), r["moves"].to_string()))
            .collect();
        games.sort();
        games.into_iter().map(|(_, m)| m).collect()
    };
    assert_eq!(moves(&out, "hang"), moves(&again, "hang"));
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}

#[test]
fn every_per_move_misbehaviour_is_a_forfeit_with_its_reason() {
    let dir = faults(
        "per-move",
        &[
            ("silent", "crash", "crash"),
            ("garbage", "malformed_move", "malformed_move"),
            ("overrun", "timeout", "timeout"),
            ("one-based", "illegal_move", "illegal_move"),
            // Not a fault: its last move before the move time counts, and it is stopped there.
            ("keep-thinking", "normal", "normal"),
        ],
    );
    // What each forfeit says, and the silent program's stderr in its log.
    let out = dir.join("run");
    let detail = |name: &str| {
        let games = games(&out);
        let g = games.iter().find(|g| g["forfeit"] == name).unwrap();
        g["detail"].clone()
    };
    assert_eq!(
        detail("silent"),
        "exited (exit status: 1) without printing a move"
    );
    assert_eq!(
        detail("garbage"),
        "`e4` is not a pit number (print 0-indexed pits only)"
    );
    // Silent (and sleeping, so using no CPU) at the move time (1000 ms of CPU with the margin's
    // 100 ms for a first move), it is held to the wall-time cap: a starved timeout, as far as
    // the arena can tell.
    let overrun = detail("overrun");
    let capped = "no move printed within the wall-time cap of 4,400 ms (4 × 1,100 ms) (starved: ";
    assert!(overrun.starts_with(capped), "{overrun}");
    assert!(
        detail("one-based").contains("numbered 0 to 6 (per-move programs print 0-indexed pits)"),
        "{}",
        detail("one-based")
    );
    let log = std::fs::read_to_string(out.join("logs/silent.stderr.log")).unwrap();
    assert!(log.contains("no idea what to play"), "{log}");
}

/// Plays one pair of a flooding KGP agent (`mode`) against random with `--movetime 300`,
/// watching the arena: whether it ended within 60 s, its peak resident memory in KiB, and the
/// games. No agent process may be left.
fn flooding_agent(mode: &str) -> (bool, u64, Vec<std::collections::BTreeMap<String, String>>) {
    let dir = Dir::new(&format!("drivers-{mode}"));
    let tag = format!("{mode}-{}", std::process::id());
    let out = dir.join("run");
    let out_text = out.display().to_string();
    let mut words: Vec<String> = ["run", "--quiet", "--no-plots", "--out", &out_text]
        .map(String::from)
        .to_vec();
    words.extend(["--pairs", "1", "--movetime", "300"].map(String::from));
    words.extend(agent_bot("flood", "kgp", &format!("--{mode}"), &tag));
    words.extend(bundled("random"));
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(&words)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    let mut peak_kib = 0;
    let ended = loop {
        peak_kib = peak_kib.max(peak_rss_kib(child.id()));
        if child.try_wait().unwrap().is_some() {
            break true;
        }
        // A hung game never ends; this one ends at the move time, seconds on a busy machine.
        if started.elapsed() > std::time::Duration::from_secs(60) {
            child.kill().unwrap();
            child.wait().unwrap();
            break false;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let games = if ended { games(&out) } else { Vec::new() };
    assert_eq!(processes_with(&tag), Vec::<String>::new());
    (ended, peak_kib, games)
}

/// An agent that floods `ping` and never reads: the driver's `pong`s fill the socket, and a write
/// without a deadline hung the game for ever. Every write has the read's deadline, so the game
/// ends at the move time plus the margin as a forfeit (#32).
#[test]
fn a_kgp_agent_that_floods_pings_and_never_reads_cannot_hang_a_game() {
    let (ended, _, games) = flooding_agent("ping-flood");
    assert!(ended, "the run hung for 60 s");
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["forfeit"], "flood", "{g:?}");
        // The pong that cannot be written, or the flood counted as such.
        let kind = g["termination"].as_str();
        assert!(kind == "timeout" || kind == "garbage", "{g:?}");
    }
}

/// An agent sending `set info:name` without end: what is kept is one name, and the flood is a
/// `garbage` forfeit (#32: 1 GiB to 3.6 GiB in 5 s before).
#[test]
fn a_kgp_agent_flooding_set_info_is_garbage_in_bounded_memory() {
    let (ended, peak_kib, games) = flooding_agent("set-flood");
    assert!(ended, "the run did not end in 60 s");
    assert!(peak_kib < 200 * 1024, "the arena peaked at {peak_kib} KiB");
    assert_eq!(games.len(), 2);
    for g in &games {
        assert_eq!(g["termination"], "garbage", "{g:?}");
        assert_eq!(g["forfeit"], "flood", "{g:?}");
    }
}

#[test]
fn a_kgp_agent_that_never_yields_moves_at_the_stop() {
    let dir = Dir::new("drivers-no-yield");
    let tag = format!("noyield-{}", std::process::id());
    let bots = [
        agent_bot("slow", "kgp", "--no-yield", &tag),
        vec![
            "--bot".into(),
            "name=random".into(),
            "bundled=random".into(),
        ],
    ];
    let out = dir.join("run");
    succeeded(&[], run(&out, &["--pairs", "1", "--movetime", "50"], &bots));
    for g in games(&out) {
        assert!(played_out(&g), "{g:?}");
        // The agent's moves took the whole move time: it was stopped, it did not yield.
        let (think, max) = if g["first"] == "slow" {
            (&g["first_think_ms"], &g["first_max_ms"])
        } else {
            (&g["second_think_ms"], &g["second_max_ms"])
        };
        let max: u64 = max.parse().unwrap();
        assert!(think.parse::<u64>().unwrap() > 0 && max >= 50, "{g:?}");
    }
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}

#[test]
fn check_bot_checks_agents_of_every_protocol() {
    let good = arena(&[
        "check-bot",
        "--protocol",
        "mankalah",
        "--",
        "python3",
        &agent("mankalah_agent.py"),
    ]);
    let report = succeeded(&[], good);
    assert!(report.contains("PASS games"), "{report}");
    assert!(report.contains("first_extra_turn=false"), "{report}");
    let kgp = agent("kgp_agent.py");
    let good = arena(&[
        "check-bot",
        "--protocol",
        "kgp",
        "--",
        "python3",
        &kgp,
        "{host}",
        "{port}",
    ]);
    let report = succeeded(&[], good);
    assert_eq!(report.matches("PASS games").count(), 3, "{report}");
    let bad = arena(&[
        "check-bot",
        "--protocol",
        "kgp",
        "--",
        "python3",
        &kgp,
        "--illegal",
    ]);
    assert_eq!(bad.status.code(), Some(1));
    assert!(text(&bad.stdout).contains("illegal_move"));
    let missing = arena(&["check-bot", "--protocol", "kgp", "--", "/nonexistent/agent"]);
    assert_eq!(missing.status.code(), Some(2));
    // Per-move programs: a good one passes on each ruleset; a silent one fails, with its
    // stderr's last words on the screen.
    let per_move = agent("per_move_agent.py");
    let good = arena(&[
        "check-bot",
        "--protocol",
        "per-move",
        "--",
        "python3",
        &per_move,
    ]);
    let report = succeeded(&[], good);
    assert_eq!(report.matches("PASS games").count(), 3, "{report}");
    let silent = ["check-bot", "--protocol", "per-move", "--", "python3"];
    let bad = arena(&[&silent[..], &[per_move.as_str(), "--silent"]].concat());
    assert_eq!(bad.status.code(), Some(1));
    let out = text(&bad.stdout);
    assert!(
        out.contains("crash: exited (exit status: 1) without printing a move"),
        "{out}"
    );
    assert!(out.contains("its stderr ends with"), "{out}");
    assert!(out.contains("| no idea what to play"), "{out}");
    let missing = arena(&[
        "check-bot",
        "--protocol",
        "per-move",
        "--",
        "/no/such/program",
    ]);
    assert_eq!(missing.status.code(), Some(2));
    assert!(text(&missing.stderr).contains("cannot start `/no/such/program`: no such program"));
}

#[test]
fn mankalah_players_refuse_openings_and_options_before_play() {
    let dir = Dir::new("drivers-refuse");
    let tag = format!("refuse-{}", std::process::id());
    let random = vec![
        "--bot".into(),
        "name=random".into(),
        "bundled=random".into(),
    ];
    let out = dir.join("run");
    let out_text = out.display().to_string();
    let mut words = vec!["run", "--quiet", "--out", &out_text, "--rules", MANKALAH];
    let bots = [agent_bot("mk", "mankalah", "", &tag), random.clone()];
    let bot_words: Vec<&str> = bots.iter().flatten().map(String::as_str).collect();
    words.extend_from_slice(&bot_words);
    let refused = arena(&words);
    assert!(!refused.status.success());
    assert!(
        text(&refused.stderr).contains("--opening-plies 0"),
        "{}",
        text(&refused.stderr)
    );
    // A ManKalah agent cannot play a ruleset other than ManKalah's.
    let mut words = vec!["run", "--quiet", "--out", &out_text, "--rules", "kalah"];
    words.extend_from_slice(&["--opening-plies", "0"]);
    words.extend_from_slice(&bot_words);
    let other = arena(&words);
    assert!(!other.status.success());
    let err = text(&other.stderr);
    assert!(err.contains("does not play kalah"), "{err}");
    assert!(!out.join("games.csv").exists());
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}

/// A bundled bot's `--bot` words.
fn bundled(name: &str) -> Vec<String> {
    vec![
        "--bot".into(),
        format!("name={name}"),
        format!("bundled={name}"),
    ]
}

#[test]
fn a_kgp_agent_s_games_end_early_where_kgp_would_with_the_same_winner() {
    // A KGP server ends a game once a store holds more than half the seeds; so does the arena
    // in every game with a KGP agent, without `--adjudicate`. The agent's `--official` mode
    // exits if it is ever sent such a board (jkgp's MinMaxAgent yields without a move there),
    // or a board with one legal pit, or a new state before the `stop` after its yield.
    let dir = Dir::new("drivers-early-end");
    let tag = format!("early-{}", std::process::id());
    let bots = [
        agent_bot("kgp", "kgp", "--official", &tag),
        bundled("random"),
    ];
    let out = dir.join("run");
    let extra = ["--pairs", "4", "--movetime", "1000"];
    succeeded(&[], run(&out, &extra, &bots));
    let half = 7 * 7; // ManKalah's 98 seeds
    let mut early = 0;
    for g in games(&out) {
        let (first, second): (u32, u32) = (
            g["score_first"].parse().unwrap(),
            g["score_second"].parse().unwrap(),
        );
        match g["termination"].as_str() {
            "normal" => {}
            "adjudicated" => {
                early += 1;
                assert_eq!(g["detail"], KGP_EARLY_END, "{g:?}");
                let winner = if first > half {
                    "1-0"
                } else {
                    assert!(second > half, "a store holds more than half: {g:?}");
                    "0-1"
                };
                assert_eq!(g["result"], winner, "{g:?}");
            }
            other => panic!("no fault expected, got {other}: {g:?}"),
        }
    }
    assert!(
        early > 0,
        "the agent's greedy moves decide games against random ones early"
    );
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}

#[test]
fn a_run_with_agents_of_both_protocols_resumes_after_kill_9() {
    let dir = Dir::new("drivers-resume");
    let tag = format!("resume-{}", std::process::id());
    let bots = [
        agent_bot("mk", "mankalah", "", &tag),
        agent_bot("kgp", "kgp", "", &tag),
        bundled("greedy"),
    ];
    let out = dir.join("run");
    let out_text = out.display().to_string();
    let mut words: Vec<&str> = vec!["run", "--quiet", "--no-plots", "--out", &out_text];
    words.extend_from_slice(&["--rules", MANKALAH, "--opening-plies", "0"]);
    // On the agents' CPU time: a loaded machine makes no game a forfeit.
    words.extend_from_slice(&["--pairs", "3", "--movetime", "1000", "--time-by", "cpu"]);
    let bot_words: Vec<&str> = bots.iter().flatten().map(String::as_str).collect();
    words.extend_from_slice(&bot_words);
    let mut child = std::process::Command::new(env!("CARGO_BIN_EXE_arena"))
        .args(&words)
        .spawn()
        .unwrap();
    let started = std::time::Instant::now();
    while started.elapsed() < std::time::Duration::from_secs(120) {
        let played = std::fs::read_to_string(out.join("games.csv"))
            .map(|t| t.lines().count().saturating_sub(1))
            .unwrap_or(0);
        if played >= 4 {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    child.kill().unwrap(); // SIGKILL: no chance to tidy up
    child.wait().unwrap();
    let cut = games(&out).len();
    assert!((4..18).contains(&cut), "cut short after {cut} games");

    let resumed = arena(&["run", "--quiet", "--no-plots", "--resume", &out_text]);
    succeeded(&[], resumed);
    let games = games(&out);
    let mut ids: Vec<u64> = games
        .iter()
        .map(|g| g["game_id"].parse().unwrap())
        .collect();
    ids.sort_unstable();
    assert_eq!(
        ids,
        (0..18).collect::<Vec<u64>>(),
        "3 encounters x 3 pairs x 2 games, once each"
    );
    for g in &games {
        assert!(played_out(g), "{g:?}");
    }
    let ratings = std::fs::read_to_string(out.join("ratings.csv")).unwrap();
    for name in ["mk", "kgp", "greedy"] {
        assert!(ratings.contains(&format!(",{name},")), "{ratings}");
    }
    // The agents the killed arena left (their pipes and sockets closed) and the resumed run's
    // are all gone.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(10);
    while !processes_with(&tag).is_empty() && std::time::Instant::now() < deadline {
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert_eq!(processes_with(&tag), Vec::<String>::new());
}
