//! Process-level tests: each bundled bot binary, and the Python example bot, spoken to over
//! the protocol (docs/protocol.md) as the arena would: handshake, options, games played to the
//! end with every `bestmove` checked by the rules engine, `stop` during `go infinite`, `quit`.
//! Searches are limited by depth or nodes; the clock only appears as generous timeouts.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver};
use std::time::{Duration, Instant};

use mancala_protocol::FromBot;
use mancala_rules::{Move, Position, Ruleset};

struct Bot {
    child: Child,
    stdin: ChildStdin,
    lines: Receiver<String>,
}

impl Bot {
    fn spawn(cmd: &mut Command) -> Bot {
        let mut child = cmd
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .expect("spawn bot");
        let stdin = child.stdin.take().unwrap();
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in BufReader::new(stdout).lines() {
                let Ok(line) = line else { break };
                if tx.send(line).is_err() {
                    break;
                }
            }
        });
        Bot {
            child,
            stdin,
            lines,
        }
    }

    fn bin(name: &str) -> Bot {
        Bot::spawn(&mut Command::new(name))
    }

    fn send(&mut self, line: &str) {
        writeln!(self.stdin, "{line}").unwrap();
        self.stdin.flush().unwrap();
    }

    /// Lines until one for which `done` holds (returned last), within `timeout`.
    fn until(&mut self, timeout: Duration, done: impl Fn(&FromBot) -> bool) -> Vec<FromBot> {
        let end = Instant::now() + timeout;
        let mut got = Vec::new();
        loop {
            let left = end.saturating_duration_since(Instant::now());
            let line = self
                .lines
                .recv_timeout(left)
                .unwrap_or_else(|_| panic!("no answer within {timeout:?}; got {got:?}"));
            let msg = FromBot::parse(&line).unwrap_or_else(|e| panic!("bad line `{line}`: {e}"));
            let stop = done(&msg);
            got.push(msg);
            if stop {
                return got;
            }
        }
    }

    fn handshake(&mut self) -> Vec<FromBot> {
        self.send("mancala");
        self.until(Duration::from_secs(10), |m| matches!(m, FromBot::MancalaOk))
    }

    fn ready(&mut self) {
        self.send("isready");
        self.until(Duration::from_secs(10), |m| matches!(m, FromBot::ReadyOk));
    }

    fn bestmove(&mut self, timeout: Duration) -> Move {
        let lines = self.until(timeout, |m| matches!(m, FromBot::BestMove(_)));
        match lines.last() {
            Some(FromBot::BestMove(mv)) => *mv,
            _ => unreachable!(),
        }
    }

    /// Sends `quit` and checks that the process exits in time: within 10 s, which a bot that
    /// ignores `quit` (or goes on searching) never is, and one that exits is even with four
    /// busy loops on two cores.
    fn quit(mut self) {
        self.send("quit");
        let end = Instant::now() + Duration::from_secs(10);
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                assert!(status.success(), "exit status {status}");
                return;
            }
            assert!(Instant::now() < end, "did not exit within 10 s of quit");
            std::thread::sleep(Duration::from_millis(10));
        }
    }
}

fn moves_text(moves: &[Move]) -> String {
    if moves.is_empty() {
        "position startpos".into()
    } else {
        let list: Vec<String> = moves.iter().map(|m| m.to_string()).collect();
        format!("position startpos moves {}", list.join(" "))
    }
}

/// Plays one whole game with `bot` moving for both sides (`go` as given), checking each move.
fn play_game(bot: &mut Bot, rules: &str, seed: u64, go: &str) -> Vec<Move> {
    let ruleset: Ruleset = rules.parse().unwrap();
    bot.send(&format!("newgame {rules} seed {seed}"));
    bot.ready();
    let mut pos = Position::new(ruleset);
    let mut moves = Vec::new();
    while !pos.is_over() {
        bot.send(&moves_text(&moves));
        bot.send(go);
        let mv = bot.bestmove(Duration::from_secs(20));
        assert!(pos.is_legal(mv), "{rules}: illegal {mv} at {pos}");
        pos.play(mv).unwrap();
        moves.push(mv);
    }
    moves
}

const RUST_BOTS: [(&str, &str); 4] = [
    (env!("CARGO_BIN_EXE_mancala-random"), "go"),
    (env!("CARGO_BIN_EXE_mancala-greedy"), "go"),
    (env!("CARGO_BIN_EXE_mancala-alphabeta"), "go depth 3"),
    (env!("CARGO_BIN_EXE_mancala-mcts"), "go nodes 300"),
];

#[test]
fn rust_bots_handshake_and_play_every_game_legally() {
    for (path, go) in RUST_BOTS {
        let mut bot = Bot::bin(path);
        let hello = bot.handshake();
        assert!(hello.iter().any(|m| matches!(m, FromBot::Id { .. })));
        for rules in [
            "kalah",
            "kalah:pits=4,seeds=3",
            "kalah:pie=true",
            "oware",
            "congkak",
        ] {
            play_game(&mut bot, rules, 3, go);
        }
        bot.quit();
    }
}

#[test]
fn alphabeta_options_and_levels() {
    let mut bot = Bot::bin(env!("CARGO_BIN_EXE_mancala-alphabeta"));
    let hello = bot.handshake();
    let names: Vec<String> = hello
        .iter()
        .filter_map(|m| match m {
            FromBot::Option(d) => Some(format!("{} {}", d.name, d.kind.type_name())),
            _ => None,
        })
        .collect();
    assert_eq!(
        names,
        [
            "Level combo",
            "Depth spin",
            "Noise string",
            // A strength on the site's human scale (#46).
            "LimitStrength check",
            "Elo spin",
            "EloCurve string",
            "Skill string",
            "Hash spin",
            // The evaluation's weights, for `arena tune` (#31).
            "EvalStore spin",
            "EvalOwnSeeds spin",
            "EvalTheirSeeds spin",
            "EvalNearStore spin",
            "EvalCapture spin",
            "EvalExtraTurn spin",
            "EvalMobility spin",
        ]
    );
    for level in ["Easy", "Normal", "Hard"] {
        bot.send(&format!("setoption name Level value {level}"));
        bot.send("setoption name Noise value 0.35");
        bot.send("setoption name Hash value 1");
        bot.ready();
        play_game(&mut bot, "kalah", 9, "go");
    }
    // A bad value is reported, not fatal.
    bot.send("setoption name Noise value lots");
    let lines = bot.until(Duration::from_secs(5), |m| matches!(m, FromBot::Info(_)));
    assert!(
        matches!(&lines[0], FromBot::Info(i) if i.string.as_deref().unwrap_or("").contains("Noise"))
    );
    bot.quit();
}

#[test]
fn alphabeta_reports_search_info_and_exact_scores() {
    let mut bot = Bot::bin(env!("CARGO_BIN_EXE_mancala-alphabeta"));
    bot.handshake();
    bot.send("newgame kalah seed 1");
    bot.send("position startpos");
    bot.send("go depth 4");
    let lines = bot.until(Duration::from_secs(10), |m| {
        matches!(m, FromBot::BestMove(_))
    });
    let infos: Vec<_> = lines
        .iter()
        .filter_map(|m| match m {
            FromBot::Info(i) => Some(i),
            _ => None,
        })
        .collect();
    assert_eq!(
        infos.iter().map(|i| i.depth.unwrap()).collect::<Vec<_>>(),
        [1, 2, 3, 4]
    );
    let FromBot::BestMove(best) = lines.last().unwrap() else {
        unreachable!()
    };
    assert_eq!(infos.last().unwrap().pv.first(), Some(best));
    // A nearly finished game is solved: North's last seeds, one sow from the end.
    bot.send("position s/0.0.0.0.0.1/0.0.0.0.0.1/20.26/0");
    bot.send("go depth 10");
    let lines = bot.until(Duration::from_secs(10), |m| {
        matches!(m, FromBot::BestMove(_))
    });
    assert!(lines.iter().any(|m| matches!(
        m,
        FromBot::Info(i) if i.score == Some(mancala_protocol::Score::Exact(-6))
    )));
    bot.quit();
}

#[test]
fn the_same_seed_repeats_the_game() {
    for (path, go) in [
        (env!("CARGO_BIN_EXE_mancala-alphabeta"), "go"),
        (env!("CARGO_BIN_EXE_mancala-mcts"), "go nodes 300"),
        (env!("CARGO_BIN_EXE_mancala-greedy"), "go"),
    ] {
        let game = |seed| {
            let mut bot = Bot::bin(path);
            bot.handshake();
            bot.send("setoption name Level value Easy");
            let moves = play_game(&mut bot, "kalah", seed, go);
            bot.quit();
            moves
        };
        assert_eq!(game(42), game(42), "{path}");
    }
}

#[test]
fn stop_ends_an_infinite_search_quickly() {
    for path in [
        env!("CARGO_BIN_EXE_mancala-alphabeta"),
        env!("CARGO_BIN_EXE_mancala-mcts"),
    ] {
        let mut bot = Bot::bin(path);
        bot.handshake();
        bot.send("newgame kalah seed 1");
        bot.send("position startpos");
        bot.send("go infinite");
        std::thread::sleep(Duration::from_millis(300));
        bot.send("stop");
        // An infinite search never answers; a stopped one does within a moment, which on a
        // busy machine can be seconds.
        let mv = bot.bestmove(Duration::from_secs(10));
        assert!(Position::new(Ruleset::default()).is_legal(mv));
        bot.quit();
    }
}

#[test]
fn quit_during_infinite_search_exits() {
    let mut bot = Bot::bin(env!("CARGO_BIN_EXE_mancala-alphabeta"));
    bot.handshake();
    bot.send("newgame kalah seed 1");
    bot.send("position startpos");
    bot.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    // The bot may still print its bestmove; it must exit in time either way.
    bot.quit();
}

fn python_bot() -> Bot {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/python/random_bot.py");
    Bot::spawn(Command::new("python3").arg(script))
}

#[test]
fn python_bot_speaks_the_protocol_and_plays_legal_kalah() {
    let mut bot = python_bot();
    bot.handshake();
    bot.ready();
    for rules in [
        "kalah",
        "kalah:pits=4,seeds=3",
        "kalah:pits=3,seeds=8,empty_capture=true",
        "kalah:pie=true",
        "kalah:end_on_no_move=true,sweep=none",
    ] {
        for seed in 0..10 {
            play_game(&mut bot, rules, seed, "go");
        }
    }
    // A position string is understood too.
    bot.send("newgame kalah seed 1");
    bot.send("position s/0.0.0.0.2.0/4.4.4.4.4.4/12.10/7");
    bot.send("go");
    assert_eq!(bot.bestmove(Duration::from_secs(5)), Move::Pit(5));
    let a = play_game(&mut bot, "kalah", 77, "go");
    let b = play_game(&mut bot, "kalah", 77, "go");
    assert_eq!(a, b, "same seed, same game");
    bot.quit();
}

#[test]
fn python_bot_declines_other_games() {
    let mut bot = python_bot();
    bot.handshake();
    bot.send("newgame oware seed 1");
    let lines = bot.until(Duration::from_secs(5), |m| matches!(m, FromBot::Info(_)));
    assert!(
        matches!(&lines[0], FromBot::Info(i) if i.string.as_deref().unwrap_or("").contains("kalah only"))
    );
    bot.quit();
}
