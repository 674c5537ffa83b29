//! Table tests for every message in both directions, round-trip properties, and no-panic
//! properties over garbage.

#![allow(clippy::unwrap_used, clippy::expect_used)]

use proptest::prelude::*;

use super::*;
use mancala_rules::Move;

use Move::{Pit, Swap};

fn go(f: impl FnOnce(&mut GoLimits)) -> ToBot {
    let mut l = GoLimits::default();
    f(&mut l);
    ToBot::Go(l)
}

fn info(f: impl FnOnce(&mut Info)) -> FromBot {
    let mut i = Info::default();
    f(&mut i);
    FromBot::Info(i)
}

fn opt(name: &str, kind: OptionKind) -> FromBot {
    FromBot::Option(OptionDecl {
        name: name.into(),
        kind,
    })
}

fn s(x: &str) -> String {
    x.to_owned()
}

/// `to!(line, value)`: `line` parses to `value`; `to!(line => canonical, value)` also checks the
/// writer's canonical form. `to_err!(line)`: a parse error.
macro_rules! to {
    ($line:expr, $want:expr) => {{
        let got = ToBot::parse($line).unwrap_or_else(|e| panic!("{:?}: {e}", $line));
        assert_eq!(got, $want, "parsing {:?}", $line);
    }};
    ($line:expr => $canon:expr, $want:expr) => {{
        to!($line, $want);
        assert_eq!($want.to_string(), $canon, "writing {:?}", $want);
    }};
}
macro_rules! to_err {
    ($line:expr, $kind:pat) => {{
        match ToBot::parse($line) {
            Err(e) => assert!(matches!(e.kind, $kind), "{:?}: wrong error {e:?}", $line),
            Ok(v) => panic!("{:?} parsed to {v:?}, expected an error", $line),
        }
    }};
}
macro_rules! from {
    ($line:expr, $want:expr) => {{
        let got = FromBot::parse($line).unwrap_or_else(|e| panic!("{:?}: {e}", $line));
        assert_eq!(got, $want, "parsing {:?}", $line);
    }};
    ($line:expr => $canon:expr, $want:expr) => {{
        from!($line, $want);
        assert_eq!($want.to_string(), $canon, "writing {:?}", $want);
    }};
}
macro_rules! from_err {
    ($line:expr, $kind:pat) => {{
        match FromBot::parse($line) {
            Err(e) => assert!(matches!(e.kind, $kind), "{:?}: wrong error {e:?}", $line),
            Ok(v) => panic!("{:?} parsed to {v:?}, expected an error", $line),
        }
    }};
}

use ParseErrorKind as K;

#[test]
fn to_bot_simple_commands() {
    to!("mancala" => "mancala", ToBot::Mancala);
    to!("isready" => "isready", ToBot::IsReady);
    to!("stop" => "stop", ToBot::Stop);
    to!("quit" => "quit", ToBot::Quit);
    to!("quit\r\n", ToBot::Quit);
    to!("quit\n", ToBot::Quit);
    to!("  \tisready \t ", ToBot::IsReady);
    to_err!("isready now", K::Unexpected { .. });
    to_err!("quit 0", K::Unexpected { .. });
    to_err!("mancala 1", K::Unexpected { .. });
}

#[test]
fn to_bot_unknown_lines() {
    to!("" => "", ToBot::Unknown(s("")));
    to!("\r\n", ToBot::Unknown(s("")));
    to!("   ", ToBot::Unknown(s("   ")));
    to!("uci" => "uci", ToBot::Unknown(s("uci")));
    to!("Quit", ToBot::Unknown(s("Quit")));
    to!("xyzzy 3 4\r", ToBot::Unknown(s("xyzzy 3 4")));
    to!("bestmove 3", ToBot::Unknown(s("bestmove 3")));
    to!("gone", ToBot::Unknown(s("gone")));
}

#[test]
fn to_bot_setoption() {
    let set = |n: &str, v: Option<&str>| ToBot::SetOption {
        name: s(n),
        value: v.map(s),
    };
    to!("setoption name Hash value 16" => "setoption name Hash value 16", set("Hash", Some("16")));
    to!("setoption name Clear Hash" => "setoption name Clear Hash", set("Clear Hash", None));
    to!(
        "setoption  name  Book File \t value  my  book.txt ",
        set("Book File", Some("my  book.txt"))
    );
    to!("setoption name Style value <empty>" => "setoption name Style value <empty>", set("Style", Some("")));
    to!("setoption name Style value", set("Style", Some("")));
    to!(
        "setoption name A value b value c",
        set("A", Some("b value c"))
    );
    to_err!("setoption", K::Missing { .. });
    to_err!("setoption value 3", K::Unexpected { .. });
    to_err!("setoption name value 3", K::Missing { .. });
    to_err!("setoption name", K::Missing { .. });
    to_err!("setoption Hash 3", K::Unexpected { .. });
}

#[test]
fn to_bot_newgame() {
    let ng = |r: &str, seed| ToBot::NewGame {
        ruleset: s(r),
        seed,
    };
    to!("newgame kalah" => "newgame kalah", ng("kalah", None));
    to!("newgame kalah:pits=6,seeds=5,empty_capture=true seed 42"
        => "newgame kalah:pits=6,seeds=5,empty_capture=true seed 42",
        ng("kalah:pits=6,seeds=5,empty_capture=true", Some(42)));
    to!(
        "newgame oware seed 18446744073709551615",
        ng("oware", Some(u64::MAX))
    );
    to!("newgame\tcongkak\tseed\t0\r", ng("congkak", Some(0)));
    to_err!("newgame", K::Missing { .. });
    to_err!("newgame seed 3", K::Missing { .. });
    to_err!("newgame kalah seed", K::Missing { .. });
    to_err!("newgame kalah seed -1", K::BadNumber { .. });
    to_err!(
        "newgame kalah seed 18446744073709551616",
        K::BadNumber { .. }
    );
    to_err!("newgame kalah seed x", K::BadNumber { .. });
    to_err!("newgame kalah pits=6 seeds=4", K::Unexpected { .. });
    to_err!("newgame kalah seed 1 2", K::Unexpected { .. });
}

#[test]
fn to_bot_position() {
    let pos = |start, moves: &[Move]| ToBot::Position {
        start,
        moves: moves.to_vec(),
    };
    let st = |x: &str| PositionStart::State(s(x));
    to!("position startpos" => "position startpos", pos(PositionStart::Startpos, &[]));
    to!("position startpos moves", pos(PositionStart::Startpos, &[]));
    to!("position startpos moves 3 6 swap 1" => "position startpos moves 3 6 swap 1",
        pos(PositionStart::Startpos, &[Pit(3), Pit(6), Swap, Pit(1)]));
    to!(
        "position  startpos  moves  3\t4 ",
        pos(PositionStart::Startpos, &[Pit(3), Pit(4)])
    );
    to!("position k6/4,4,4,4,4,4/4,4,4,4,4,4/0,0/s" => "position k6/4,4,4,4,4,4/4,4,4,4,4,4/0,0/s",
        pos(st("k6/4,4,4,4,4,4/4,4,4,4,4,4/0,0/s"), &[]));
    to!("position S:1,2 moves 255" => "position S:1,2 moves 255", pos(st("S:1,2"), &[Pit(255)]));
    to_err!("position", K::Missing { .. });
    to_err!("position moves 3", K::Missing { .. });
    to_err!("position startpos 3 4", K::Unexpected { .. });
    to_err!("position startpos moves 3 x", K::BadMove(_));
    to_err!("position startpos moves 0", K::BadMove(_));
    to_err!("position startpos moves 256", K::BadMove(_));
    to_err!("position startpos moves -1", K::BadMove(_));
    to_err!("position startpos moves Swap", K::BadMove(_));
}

#[test]
fn to_bot_go() {
    to!("go" => "go", go(|_| {}));
    to!("go movetime 1000" => "go movetime 1000", go(|l| l.movetime = Some(1000)));
    to!("go time 5000 inc 100" => "go time 5000 inc 100", go(|l| {
        l.time = Some(5000);
        l.inc = Some(100);
    }));
    to!(
        "go inc 100 time 5000",
        go(|l| {
            l.time = Some(5000);
            l.inc = Some(100);
        })
    );
    to!("go depth 8" => "go depth 8", go(|l| l.depth = Some(8)));
    to!("go nodes 10000" => "go nodes 10000", go(|l| l.nodes = Some(10000)));
    to!("go infinite" => "go infinite", go(|l| l.infinite = true));
    to!("go nodes 5 depth 3 movetime 0" => "go movetime 0 depth 3 nodes 5", go(|l| {
        l.nodes = Some(5);
        l.depth = Some(3);
        l.movetime = Some(0);
    }));
    to_err!("go movetime", K::Missing { .. });
    to_err!("go movetime abc", K::BadNumber { .. });
    to_err!("go movetime -5", K::BadNumber { .. });
    to_err!("go depth 4294967296", K::BadNumber { .. });
    to_err!("go depth 3 depth 4", K::Duplicate { keyword: "depth" });
    to_err!(
        "go infinite infinite",
        K::Duplicate {
            keyword: "infinite"
        }
    );
    to_err!("go wtime 100", K::Unexpected { .. });
    to_err!("go 100", K::Unexpected { .. });
}

#[test]
fn from_bot_simple_commands() {
    from!("mancalaok" => "mancalaok", FromBot::MancalaOk);
    from!("readyok" => "readyok", FromBot::ReadyOk);
    from!(" readyok\r\n", FromBot::ReadyOk);
    from_err!("readyok 1", K::Unexpected { .. });
    from_err!("mancalaok yes", K::Unexpected { .. });
    from!("" => "", FromBot::Unknown(s("")));
    from!("uciok", FromBot::Unknown(s("uciok")));
    from!("Bestmove 3", FromBot::Unknown(s("Bestmove 3")));
    from!("isready", FromBot::Unknown(s("isready")));
    from!(
        "debug: thinking...",
        FromBot::Unknown(s("debug: thinking..."))
    );
}

#[test]
fn from_bot_id() {
    let id = |key, v: &str| FromBot::Id { key, value: s(v) };
    from!("id name minimax 1.2" => "id name minimax 1.2", id(IdKey::Name, "minimax 1.2"));
    from!("id author The  Team \r", id(IdKey::Author, "The  Team"));
    from!("id name type", id(IdKey::Name, "type"));
    from_err!("id", K::Missing { .. });
    from_err!("id name", K::Missing { .. });
    from_err!("id name   ", K::Missing { .. });
    from_err!("id version 3", K::Unexpected { .. });
}

#[test]
fn from_bot_bestmove() {
    from!("bestmove 3" => "bestmove 3", FromBot::BestMove(Pit(3)));
    from!("bestmove swap" => "bestmove swap", FromBot::BestMove(Swap));
    from!("bestmove\t12\r", FromBot::BestMove(Pit(12)));
    from_err!("bestmove", K::Missing { .. });
    from_err!("bestmove x", K::BadMove(_));
    from_err!("bestmove 0", K::BadMove(_));
    from_err!("bestmove +3", K::BadMove(_));
    from_err!("bestmove 3 4", K::Unexpected { .. });
    from_err!("bestmove 3 ponder 4", K::Unexpected { .. });
}

#[test]
fn from_bot_info() {
    from!("info depth 12 score 8 nodes 345678 nps 1000000 time 345 pv 3 6"
    => "info depth 12 score 8 nodes 345678 nps 1000000 time 345 pv 3 6",
    info(|i| {
        i.depth = Some(12);
        i.score = Some(Score::Seeds(8));
        i.nodes = Some(345678);
        i.nps = Some(1000000);
        i.time = Some(345);
        i.pv = vec![Pit(3), Pit(6)];
    }));
    from!("info score exact +8" => "info score exact 8", info(|i| i.score = Some(Score::Exact(8))));
    from!("info score -3" => "info score -3", info(|i| i.score = Some(Score::Seeds(-3))));
    from!(
        "info seldepth 20 depth 9",
        info(|i| {
            i.depth = Some(9);
            i.seldepth = Some(20);
        })
    );
    from!("info string hello  world " => "info string hello  world",
        info(|i| i.string = Some(s("hello  world"))));
    from!("info string" => "info string", info(|i| i.string = Some(s(""))));
    from!(
        "info string depth 3 bestmove 4",
        info(|i| i.string = Some(s("depth 3 bestmove 4")))
    );
    from!("info" => "info", info(|_| {}));
    from!("info pv" => "info", info(|_| {}));
    from!("info pv swap 1 2 depth 4" => "info depth 4 pv swap 1 2", info(|i| {
        i.pv = vec![Swap, Pit(1), Pit(2)];
        i.depth = Some(4);
    }));
    from!(
        "info depth 3 pv 1 2 string done",
        info(|i| {
            i.depth = Some(3);
            i.pv = vec![Pit(1), Pit(2)];
            i.string = Some(s("done"));
        })
    );
    // Unknown tokens are skipped; a repeated keyword overwrites.
    from!(
        "info hashfull 500 depth 2 currmove 4 depth 3",
        info(|i| i.depth = Some(3))
    );
    from!("info pv 3 x 4", info(|i| i.pv = vec![Pit(3)]));
    from_err!("info depth", K::Missing { .. });
    from_err!("info depth x", K::BadNumber { .. });
    from_err!("info depth -1", K::BadNumber { .. });
    from_err!("info score", K::Missing { .. });
    from_err!("info score cp 30", K::BadNumber { .. });
    from_err!("info score exact", K::Missing { .. });
    from_err!("info score 99999999999", K::BadNumber { .. });
    from_err!("info nodes 1.5", K::BadNumber { .. });
    from_err!("info time -3", K::BadNumber { .. });
}

#[test]
fn from_bot_option() {
    use OptionKind::*;
    from!("option name Hash type spin default 16 min 1 max 1024"
        => "option name Hash type spin default 16 min 1 max 1024",
        opt("Hash", Spin { default: 16, min: 1, max: 1024 }));
    from!(
        "option name Noise type spin max 100 min -100 default -5",
        opt(
            "Noise",
            Spin {
                default: -5,
                min: -100,
                max: 100
            }
        )
    );
    from!("option name Use Book type check default true" => "option name Use Book type check default true",
        opt("Use Book", Check { default: true }));
    from!("option name Book File type string default book.bin"
        => "option name Book File type string default book.bin",
        opt("Book File", String { default: s("book.bin") }));
    from!("option name Log type string default <empty>" => "option name Log type string default <empty>",
        opt("Log", String { default: s("") }));
    from!(
        "option name Log type string default",
        opt("Log", String { default: s("") })
    );
    from!(
        "option name Motto type string default  play  fair ",
        opt(
            "Motto",
            String {
                default: s("play  fair")
            }
        )
    );
    from!("option name Level type combo default Normal var Easy var Normal var Hard"
        => "option name Level type combo default Normal var Easy var Normal var Hard",
        opt("Level", Combo { default: s("Normal"), vars: vec![s("Easy"), s("Normal"), s("Hard")] }));
    from!(
        "option name Style type combo var Very Solid var Risky default Very Solid",
        opt(
            "Style",
            Combo {
                default: s("Very Solid"),
                vars: vec![s("Very Solid"), s("Risky")]
            }
        )
    );
    from!("option name Clear Hash type button" => "option name Clear Hash type button",
        opt("Clear Hash", Button));
    from!(
        "option  name \t Max  Depth  type spin default 0 min 0 max 0\r",
        opt(
            "Max  Depth",
            Spin {
                default: 0,
                min: 0,
                max: 0
            }
        )
    );

    from_err!("option", K::Missing { .. });
    from_err!("option type spin", K::Unexpected { .. });
    from_err!(
        "option name type spin default 1 min 0 max 2",
        K::Missing { .. }
    );
    from_err!("option name Hash", K::Missing { .. });
    from_err!("option name Hash type", K::Missing { .. });
    from_err!(
        "option name Hash type int default 1",
        K::UnknownOptionType(_)
    );
    from_err!(
        "option name Hash type spin default 1 min 0",
        K::Missing { .. }
    );
    from_err!("option name Hash type spin min 0 max 9", K::Missing { .. });
    from_err!(
        "option name Hash type spin default x min 0 max 9",
        K::BadNumber { .. }
    );
    from_err!(
        "option name Hash type spin default 1 1 min 0 max 9",
        K::BadNumber { .. }
    );
    from_err!(
        "option name Hash type spin default 10 min 0 max 9",
        K::BadOption(_)
    );
    from_err!(
        "option name Hash type spin default 5 min 9 max 0",
        K::BadOption(_)
    );
    from_err!(
        "option name Hash type spin default 1 min 0 max 9 var 3",
        K::Unexpected { .. }
    );
    from_err!(
        "option name Hash type spin default 1 default 2 min 0 max 9",
        K::Duplicate { .. }
    );
    from_err!("option name Hash type spin 16", K::Unexpected { .. });
    from_err!("option name Own type check default yes", K::BadOption(_));
    from_err!("option name Own type check", K::Missing { .. });
    from_err!(
        "option name Own type check default true min 0",
        K::Unexpected { .. }
    );
    from_err!("option name Log type string", K::Missing { .. });
    from_err!(
        "option name Level type combo default Easy",
        K::Missing { .. }
    );
    from_err!(
        "option name Level type combo default Easy var Hard",
        K::BadOption(_)
    );
    from_err!("option name Go type button default 1", K::Unexpected { .. });
}

#[test]
fn writer_keeps_one_line() {
    let m = FromBot::Info(Info {
        string: Some(s("a\nbestmove 1\r\nb")),
        ..Info::default()
    });
    assert_eq!(m.to_string(), "info string a bestmove 1  b");
    let m = ToBot::SetOption {
        name: s("x\ny"),
        value: Some(s("1\r")),
    };
    assert_eq!(m.to_string(), "setoption name x y value 1 ");
    let m = FromBot::Unknown(s("a\nb"));
    assert_eq!(m.to_string(), "a b");
}

#[test]
fn errors_keep_a_short_copy_of_the_line() {
    let long = format!("bestmove {}", "x".repeat(10_000));
    let e = FromBot::parse(&long).unwrap_err();
    assert!(e.line.chars().count() <= 121, "{}", e.line.len());
    assert!(e.to_string().len() < 400);
    let e = FromBot::parse("bestmove é").unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid move `é`: expected a pit number (1, 2, ...) or `swap` in `bestmove é`"
    );
    // Multi-byte characters are cut on a boundary.
    let e = ToBot::parse(&format!("go depth {}", "é".repeat(500))).unwrap_err();
    assert!(e.line.ends_with('…'));
}

#[test]
fn from_str_matches_parse() {
    assert_eq!(
        "bestmove 4".parse::<FromBot>(),
        FromBot::parse("bestmove 4")
    );
    assert_eq!("go depth 2".parse::<ToBot>(), ToBot::parse("go depth 2"));
}

// ---------------------------------------------------------------------------------------------
// The line buffer.

fn drain(lb: &mut LineBuffer) -> Vec<Result<String, LineError>> {
    std::iter::from_fn(|| lb.next_line()).collect()
}

#[test]
fn line_buffer_splits_lf_and_crlf() {
    let mut lb = LineBuffer::new();
    lb.push(b"a\nb\r\n\nc\rd\r\n\r\n");
    assert_eq!(
        drain(&mut lb),
        [Ok(s("a")), Ok(s("b")), Ok(s("")), Ok(s("c\rd")), Ok(s(""))]
    );
    lb.push(b"tail");
    assert_eq!(drain(&mut lb), []);
    assert_eq!(lb.finish(), Some(Ok(s("tail"))));
    assert_eq!(lb.finish(), None);
}

#[test]
fn line_buffer_limits() {
    let mut lb = LineBuffer::with_max_len(4);
    lb.push(b"1234\n1234\r\n12345\n12");
    assert_eq!(
        drain(&mut lb),
        [
            Ok(s("1234")),
            Ok(s("1234")),
            Err(LineError::TooLong { limit: 4 })
        ]
    );
    // The too-long error comes before the end of the line arrives, and only once.
    lb.push(b"345");
    assert_eq!(drain(&mut lb), [Err(LineError::TooLong { limit: 4 })]);
    lb.push(&[b'x'; 100_000]);
    assert_eq!(drain(&mut lb), []);
    lb.push(b"x\nok\n");
    assert_eq!(drain(&mut lb), [Ok(s("ok"))]);
    // `1234\r` then more: too long once the next byte is not the line end.
    lb.push(b"1234\r");
    assert_eq!(drain(&mut lb), []);
    lb.push(b"5");
    assert_eq!(drain(&mut lb), [Err(LineError::TooLong { limit: 4 })]);
    lb.push(b"\n");
    // A too-long unterminated last line is not reported twice.
    lb.push(b"123456");
    assert_eq!(drain(&mut lb), [Err(LineError::TooLong { limit: 4 })]);
    assert_eq!(lb.finish(), None);
}

#[test]
fn line_buffer_invalid_utf8() {
    let mut lb = LineBuffer::new();
    lb.push(b"bestmove \xff3\nreadyok\n");
    assert_eq!(
        drain(&mut lb),
        [
            Err(LineError::InvalidUtf8 {
                lossy: s("bestmove \u{fffd}3")
            }),
            Ok(s("readyok"))
        ]
    );
    // A multi-byte character split across pushes is fine.
    lb.push("é".as_bytes().get(..1).unwrap());
    lb.push("é\n".as_bytes().get(1..).unwrap());
    assert_eq!(drain(&mut lb), [Ok(s("é"))]);
    // The log copy of a bad line is short.
    lb.push(&[[0xffu8].as_slice(), &[b'a'; 5000], b"\n"].concat());
    match lb.next_line() {
        Some(Err(LineError::InvalidUtf8 { lossy })) => assert_eq!(lossy.chars().count(), 121),
        other => panic!("{other:?}"),
    }
}

// ---------------------------------------------------------------------------------------------
// Properties.

fn any_move() -> impl Strategy<Value = Move> {
    prop_oneof![(1u8..=255).prop_map(Pit), Just(Swap)]
}

/// Words that can never be a keyword (keywords are lower case): capitalised or digits first.
fn word() -> impl Strategy<Value = String> {
    "[A-Z0-9][A-Za-z0-9_.=:,/-]{0,7}"
}

/// Free text of one or more words, single- or double-spaced, no keyword.
fn text() -> impl Strategy<Value = String> {
    prop::collection::vec((word(), prop::bool::ANY), 1..4).prop_map(|ws| {
        let mut out = String::new();
        for (i, (w, wide)) in ws.into_iter().enumerate() {
            if i > 0 {
                out.push_str(if wide { "  " } else { " " });
            }
            out.push_str(&w);
        }
        out
    })
}

/// A line with a first token no command starts with (no command begins with x, y or z).
fn unknown_line() -> impl Strategy<Value = String> {
    "[xyz][ -~]{0,30}"
}

fn any_to_bot() -> impl Strategy<Value = ToBot> {
    let start = prop_oneof![
        Just(PositionStart::Startpos),
        "[A-Za-z0-9][!-~]{0,20}".prop_map(PositionStart::State),
    ];
    let limits = (
        prop::option::of(any::<u64>()),
        prop::option::of(any::<u64>()),
        prop::option::of(any::<u64>()),
        prop::option::of(any::<u32>()),
        prop::option::of(any::<u64>()),
        any::<bool>(),
    )
        .prop_map(|(movetime, time, inc, depth, nodes, infinite)| GoLimits {
            movetime,
            time,
            inc,
            depth,
            nodes,
            infinite,
        });
    prop_oneof![
        Just(ToBot::Mancala),
        Just(ToBot::IsReady),
        Just(ToBot::Stop),
        Just(ToBot::Quit),
        (
            text(),
            prop::option::of(prop_oneof![Just(String::new()), text()])
        )
            .prop_map(|(name, value)| ToBot::SetOption { name, value }),
        (
            "[a-z][a-z0-9_]{0,7}(:[a-z_]{1,8}=[a-z0-9]{1,5}(,[a-z_]{1,8}=[a-z0-9]{1,5}){0,3})?",
            prop::option::of(any::<u64>())
        )
            .prop_filter("not the word seed", |(r, _)| r != "seed")
            .prop_map(|(ruleset, seed)| ToBot::NewGame { ruleset, seed }),
        (start, prop::collection::vec(any_move(), 0..20))
            .prop_map(|(start, moves)| ToBot::Position { start, moves }),
        limits.prop_map(ToBot::Go),
        unknown_line().prop_map(ToBot::Unknown),
    ]
}

fn any_option_kind() -> impl Strategy<Value = OptionKind> {
    let spin = (any::<i64>(), any::<i64>(), any::<i64>()).prop_map(|(a, b, c)| {
        let mut v = [a, b, c];
        v.sort();
        OptionKind::Spin {
            min: v[0],
            default: v[1],
            max: v[2],
        }
    });
    let combo = (
        prop::collection::vec(text(), 1..5),
        any::<prop::sample::Index>(),
    )
        .prop_map(|(vars, i)| OptionKind::Combo {
            default: vars[i.index(vars.len())].clone(),
            vars,
        });
    prop_oneof![
        spin,
        any::<bool>().prop_map(|default| OptionKind::Check { default }),
        prop_oneof![Just(String::new()), text()].prop_map(|default| OptionKind::String { default }),
        combo,
        Just(OptionKind::Button),
    ]
}

fn any_from_bot() -> impl Strategy<Value = FromBot> {
    let score = prop_oneof![
        any::<i32>().prop_map(Score::Seeds),
        any::<i32>().prop_map(Score::Exact)
    ];
    let info = (
        (
            prop::option::of(any::<u32>()),
            prop::option::of(any::<u32>()),
            prop::option::of(score),
            prop::option::of(any::<u64>()),
        ),
        (
            prop::option::of(any::<u64>()),
            prop::option::of(any::<u64>()),
            prop::collection::vec(any_move(), 0..12),
            prop::option::of(prop_oneof![Just(String::new()), "[!-~][ -~]{0,40}[!-~]"]),
        ),
    )
        .prop_map(
            |((depth, seldepth, score, nodes), (nps, time, pv, string))| Info {
                depth,
                seldepth,
                score,
                nodes,
                nps,
                time,
                pv,
                string,
            },
        );
    prop_oneof![
        (
            prop_oneof![Just(IdKey::Name), Just(IdKey::Author)],
            "[!-~]([ -~]{0,30}[!-~])?"
        )
            .prop_map(|(key, value)| FromBot::Id { key, value }),
        (text(), any_option_kind())
            .prop_map(|(name, kind)| FromBot::Option(OptionDecl { name, kind })),
        Just(FromBot::MancalaOk),
        Just(FromBot::ReadyOk),
        info.prop_map(FromBot::Info),
        any_move().prop_map(FromBot::BestMove),
        unknown_line().prop_map(FromBot::Unknown),
    ]
}

proptest! {
    #[test]
    fn to_bot_round_trips(m in any_to_bot()) {
        let line = m.to_string();
        prop_assert!(!line.contains(['\n', '\r']));
        prop_assert_eq!(ToBot::parse(&line), Ok(m.clone()));
        prop_assert_eq!(ToBot::parse(&format!("{line}\r\n")), Ok(m));
    }

    #[test]
    fn from_bot_round_trips(m in any_from_bot()) {
        let line = m.to_string();
        prop_assert!(!line.contains(['\n', '\r']));
        prop_assert_eq!(FromBot::parse(&line), Ok(m.clone()));
        prop_assert_eq!(FromBot::parse(&format!("{line}\n")), Ok(m));
    }

    /// Any text: no panic, and whatever parses writes back to a line that parses to the same.
    #[test]
    fn parsers_never_panic(line in "\\PC{0,200}") {
        if let Ok(m) = ToBot::parse(&line) {
            if !matches!(m, ToBot::Unknown(_)) {
                prop_assert_eq!(ToBot::parse(&m.to_string()), Ok(m));
            }
        }
        if let Ok(m) = FromBot::parse(&line) {
            if !matches!(m, FromBot::Unknown(_)) {
                prop_assert_eq!(FromBot::parse(&m.to_string()), Ok(m));
            }
        }
    }

    /// Lines built from protocol words, to reach deep into the grammar.
    #[test]
    fn parsers_never_panic_on_protocol_words(
        words in prop::collection::vec(prop_oneof![
            Just("go"), Just("position"), Just("startpos"), Just("moves"), Just("setoption"),
            Just("name"), Just("value"), Just("type"), Just("option"), Just("spin"),
            Just("combo"), Just("var"), Just("default"), Just("min"), Just("max"), Just("info"),
            Just("score"), Just("exact"), Just("pv"), Just("string"), Just("bestmove"),
            Just("newgame"), Just("seed"), Just("depth"), Just("3"), Just("-1"), Just("swap"),
            Just("<empty>"), Just(""), Just("\t"), Just("é"), Just("99999999999999999999"),
        ], 0..12),
    ) {
        let line = words.join(" ");
        let _ = ToBot::parse(&line);
        let _ = FromBot::parse(&line);
    }

    /// Any bytes, any chunking: no panic, lines within the limit, and for clean input the same
    /// lines as splitting the whole stream at once.
    #[test]
    fn line_buffer_never_panics(
        bytes in prop::collection::vec(
            prop_oneof![4 => any::<u8>(), 1 => Just(b'\n'), 1 => Just(b'\r'), 2 => Just(b'a')],
            0..400,
        ),
        cuts in prop::collection::vec(any::<prop::sample::Index>(), 0..6),
        max in 0usize..40,
    ) {
        let mut cut_at: Vec<usize> = cuts.iter().map(|c| c.index(bytes.len() + 1)).collect();
        cut_at.sort();
        let mut lb = LineBuffer::with_max_len(max);
        let mut got = Vec::new();
        let mut prev = 0;
        for c in cut_at.into_iter().chain([bytes.len()]) {
            lb.push(&bytes[prev..c]);
            prev = c;
            got.extend(std::iter::from_fn(|| lb.next_line()));
        }
        got.extend(lb.finish());
        got.extend(std::iter::from_fn(|| lb.next_line()));

        let mut whole = LineBuffer::with_max_len(max);
        whole.push(&bytes);
        let mut want: Vec<_> = std::iter::from_fn(|| whole.next_line()).collect();
        want.extend(whole.finish());
        prop_assert_eq!(&got, &want);

        let mut ok_lines = 0;
        for item in &got {
            match item {
                Ok(line) => {
                    ok_lines += 1;
                    prop_assert!(line.len() <= max);
                    prop_assert!(!line.contains('\n'));
                    let _ = FromBot::parse(line);
                    let _ = ToBot::parse(line);
                }
                Err(LineError::TooLong { limit }) => prop_assert_eq!(*limit, max),
                Err(LineError::InvalidUtf8 { lossy }) => prop_assert!(!lossy.contains('\n')),
            }
        }
        // With no error, the lines are exactly the stream split at LF with CRLF ends dropped.
        if got.iter().all(Result::is_ok) {
            let mut expected: Vec<Vec<u8>> =
                bytes.split(|&b| b == b'\n').map(|l| l.strip_suffix(b"\r").unwrap_or(l).to_vec()).collect();
            // An empty stream, or one ending in LF, leaves an empty last piece that is not a line.
            if matches!(bytes.last(), None | Some(b'\n')) {
                expected.pop();
            }
            prop_assert_eq!(ok_lines, expected.len());
            let got_bytes: Vec<Vec<u8>> =
                got.iter().flatten().map(|l| l.as_bytes().to_vec()).collect();
            prop_assert_eq!(got_bytes, expected);
        }
    }
}

// ---------------------------------------------------------------------------------------------
// The contract and the code agree.

/// Every `A>` / `<A` line in the transcripts of docs/protocol.md parses, to a known message.
#[test]
fn doc_transcripts_parse() {
    let doc = include_str!("../../../docs/protocol.md");
    let mut checked = 0;
    for raw in doc.lines() {
        let (dir, rest) = match raw.get(..2) {
            Some("A>" | "B>") => ("to", &raw[2..]),
            Some("<A" | "<B") => ("from", &raw[2..]),
            _ => continue,
        };
        let line = rest.split(" #").next().unwrap().trim();
        if line.contains("...") {
            continue; // an elided move list
        }
        if dir == "to" {
            let m = ToBot::parse(line).unwrap_or_else(|e| panic!("{raw}: {e}"));
            assert!(!matches!(m, ToBot::Unknown(_)), "{raw}");
            // The transcript shows lines exactly as the arena writes them.
            assert_eq!(m.to_string(), line);
        } else {
            let m = FromBot::parse(line).unwrap_or_else(|e| panic!("{raw}: {e}"));
            assert!(!matches!(m, FromBot::Unknown(_)), "{raw}");
        }
        checked += 1;
    }
    assert!(checked > 40, "only {checked} transcript lines found");
}

#[test]
fn option_values_are_checked_against_the_declaration() {
    let decl = |line: &str| match FromBot::parse(line).unwrap() {
        FromBot::Option(d) => d,
        other => panic!("{other:?}"),
    };
    let declared = vec![
        decl("option name Level type combo default Hard var Easy var Normal var Hard"),
        decl("option name Depth type spin default 6 min 1 max 40"),
        decl("option name Ponder type check default false"),
        decl("option name Book File type string default <empty>"),
    ];
    // Names match ignoring case; values come back with the declared spelling.
    let level = OptionDecl::find(&declared, "level").unwrap();
    assert_eq!(level.name, "Level");
    assert_eq!(level.accept("easy").unwrap().as_deref(), Some("Easy"));
    let err = level.accept("impossible").unwrap_err().to_string();
    assert!(
        err.contains("Level") && err.contains("Easy, Normal, Hard"),
        "{err}"
    );
    let depth = OptionDecl::find(&declared, "DEPTH").unwrap();
    assert_eq!(depth.accept("40").unwrap().as_deref(), Some("40"));
    assert!(depth
        .accept("41")
        .unwrap_err()
        .to_string()
        .contains("from 1 to 40"));
    assert!(depth.accept("deep").is_err());
    let ponder = OptionDecl::find(&declared, "Ponder").unwrap();
    assert_eq!(ponder.accept("TRUE").unwrap().as_deref(), Some("true"));
    assert!(ponder.accept("yes").is_err());
    assert!(OptionDecl::find(&declared, "book file").is_ok());
    let err = OptionDecl::find(&declared, "Hash").unwrap_err().to_string();
    assert!(
        err.contains("`Hash`") && err.contains("Depth (spin 1..40)"),
        "{err}"
    );
}
