//! Solver tests: brute force cross-checks on tiny boards, hand-worked positions, known values.

use std::sync::Arc;

use super::*;
use mancala_rules::Ruleset;

fn spec(rules: &str) -> BoardSpec {
    BoardSpec::from_ruleset(&rules.parse::<Ruleset>().unwrap()).unwrap()
}

fn never(_: u64) -> bool {
    false
}

/// Start-position value of `rules` with a fresh solver (TT `mib` MiB, database up to `k`).
fn start_value(rules: &str, db_seeds: Option<usize>) -> i32 {
    let r: Ruleset = rules.parse().unwrap();
    let sp = BoardSpec::from_ruleset(&r).unwrap();
    let db = db_seeds.map(|k| Arc::new(Db::build(sp, k)));
    let mut s = Solver::new(sp, 16, db);
    s.solve(&sp.start(r.seeds() as u8), 0, &mut never).unwrap()
}

#[test]
fn hand_worked_positions() {
    let sp = spec("kalah:pits=2,seeds=1");
    // Mover: pits [1, 0]; opponent [0, 1]. Pit 1 -> lands in own empty pit 2, captures the
    // opponent's pit 1 (0 seeds): no capture under standard rules; then the opponent plays its
    // pit 2 into its store, its side is empty: game over, we sweep 1. Value 0 (1 - 1).
    let mut b = SBoard::default();
    b.c[0] = 1;
    b.c[9] = 1;
    assert_eq!(minimax(&sp, &b), 0);
    // Mover [0, 1], opponent [1, 0]: pit 2 goes to the store (+1), our side is empty: game over,
    // opponent sweeps 1. Value 0.
    let mut b = SBoard::default();
    b.c[1] = 1;
    b.c[8] = 1;
    assert_eq!(minimax(&sp, &b), 0);
    // Mover [0, 2], opponent [0, 3]: pit 2 sows store + opponent pit 1; opponent [1,3] vs our
    // empty side: game over, value 1 - 4 = -3.
    let mut b = SBoard::default();
    b.c[1] = 2;
    b.c[9] = 3;
    assert_eq!(minimax(&sp, &b), -3);
    // Kalah(1,1): pit 1 (1 seed) into the store, our side empties, opponent sweeps 1: value 0.
    let sp1 = spec("kalah:pits=1,seeds=1");
    assert_eq!(minimax(&sp1, &sp1.start(1)), 0);
}

#[test]
fn matches_brute_force_on_tiny_boards() {
    for rules in [
        "kalah:pits=2,seeds=2",
        "kalah:pits=2,seeds=3",
        "kalah:pits=3,seeds=2",
        "kalah:pits=3,seeds=2,empty_capture=true",
        "kalah:pits=2,seeds=4,sweep=none",
        "kalah:pits=3,seeds=1,end_on_no_move=true",
        "kalah:pits=1,seeds=6",
    ] {
        let r: Ruleset = rules.parse().unwrap();
        let sp = BoardSpec::from_ruleset(&r).unwrap();
        let start = sp.start(r.seeds() as u8);
        let want = minimax(&sp, &start);
        for db in [None, Some(3), Some(6)] {
            assert_eq!(start_value(rules, db), want, "{rules} db {db:?}");
        }
        // Every position reached by a few random-ish moves, too.
        let mut s = Solver::new(sp, 1, None);
        let mut b = start;
        for step in 0..20 {
            if !b.mover_can_move() {
                break;
            }
            assert_eq!(
                s.solve(&b, step % 3 - 1, &mut never),
                Some(minimax(&sp, &b))
            );
            let moves: Vec<usize> = (0..sp.pits).filter(|&i| b.c[i] != 0).collect();
            let sow = b.sow(&sp, moves[step as usize % moves.len()]);
            if sow.over {
                break;
            }
            b = sow.next;
        }
    }
}

#[test]
fn database_matches_brute_force() {
    let sp = spec("kalah:pits=3,seeds=1");
    let db = Db::build(sp, 7);
    // Every non-terminal position with up to 7 seeds over 6 pits.
    let mut checked = 0;
    for code in 0..8u32.pow(6) {
        let mut b = SBoard::default();
        let mut x = code;
        for j in 0..6 {
            b.c[if j < 3 { j } else { 8 + j - 3 }] = (x % 8) as u8;
            x /= 8;
        }
        let seeds = b.seeds();
        if seeds > 7 || !b.mover_can_move() || (b.key() >> 64) == 0 {
            continue;
        }
        assert_eq!(db.get(&b, seeds), Some(minimax(&sp, &b)));
        checked += 1;
    }
    assert!(checked > 1000);
}

#[test]
fn best_moves_are_optimal() {
    let sp = spec("kalah:pits=3,seeds=3");
    let mut s = Solver::new(sp, 4, None);
    let b = sp.start(3);
    let (v, best) = s.best_moves(&b, 0, &mut never).unwrap();
    assert_eq!(v, minimax(&sp, &b));
    for i in 0..3 {
        let mv = s.move_value(&b, i, 0, &mut never).unwrap();
        assert_eq!(best.contains(&i), mv == v, "pit {}", i + 1);
        assert!(mv <= v);
    }
}

#[test]
fn abort_reports_none() {
    let sp = spec("kalah:pits=6,seeds=4");
    let mut s = Solver::new(sp, 1, None);
    let mut calls = 0;
    let got = s.solve(&sp.start(4), 0, &mut |_| {
        calls += 1;
        true
    });
    assert_eq!(got, None);
    assert_eq!(calls, 1);
}

/// Kalah(N,S) start values for N, S <= 4 (docs/solved.md): (pits, seeds, standard capture,
/// empty capture), the first player's margin with perfect play.
pub const SMALL_TABLE: [(u8, u8, i32, i32); 16] = [
    (1, 1, 0, 0),
    (1, 2, -2, -2),
    (1, 3, 6, 6),
    (1, 4, -2, -2),
    (2, 1, 2, 2),
    (2, 2, -2, -2),
    (2, 3, -2, -2),
    (2, 4, -10, -12),
    (3, 1, 0, 0),
    (3, 2, 4, 4),
    (3, 3, 2, 2),
    (3, 4, 2, 2),
    (4, 1, 2, 2),
    (4, 2, 6, 6),
    (4, 3, 6, 8),
    (4, 4, 2, 2),
];

#[test]
fn small_boards_table() {
    for (n, sd, standard, empty) in SMALL_TABLE {
        let db = if n >= 3 { Some(10) } else { None };
        let a = start_value(&format!("kalah:pits={n},seeds={sd}"), db);
        let b = start_value(&format!("kalah:pits={n},seeds={sd},empty_capture=true"), db);
        assert_eq!((a, b), (standard, empty), "Kalah({n},{sd})");
    }
}

#[test]
fn small_boards_match_brute_force_without_tables() {
    // The table's smallest entries, from plain minimax (no TT, no database).
    for (n, sd, standard, empty) in SMALL_TABLE {
        if 2 * n as u32 * sd as u32 > 12 {
            continue;
        }
        let a = spec(&format!("kalah:pits={n},seeds={sd}"));
        let b = spec(&format!("kalah:pits={n},seeds={sd},empty_capture=true"));
        assert_eq!(minimax(&a, &a.start(sd)), standard, "Kalah({n},{sd})");
        assert_eq!(
            minimax(&b, &b.start(sd)),
            empty,
            "Kalah({n},{sd}) empty capture"
        );
    }
}

/// The published answers on the standard board. Kalah(6,3) runs in the normal suite; the
/// Kalah(6,4) answers need the release profile (about a minute with their databases, built once
/// and cached) and are run by `scripts/test.sh` as
/// `cargo test --release -p mancala-arena --lib solver::tests::known_kalah_6_4 -- --ignored`;
/// Kalah(6,5) = +10 takes 750–852 s of CPU (under 9 minutes wall) with the documented
/// `arena solve` (docs/solved.md, "Kalah(6,5)").
#[test]
fn known_kalah_6_3() {
    assert_eq!(start_value("kalah:seeds=3", Some(14)), 2);
}

#[test]
#[ignore = "release profile: scripts/test.sh runs it"]
fn known_kalah_6_4() {
    assert_eq!(start_value_big("kalah", 18), 8);
}

#[test]
#[ignore = "release profile: scripts/test.sh runs it"]
fn known_kalah_6_4_empty_capture() {
    assert_eq!(start_value_big("kalah:empty_capture=true", 18), 10);
}

#[test]
#[ignore = "Kalah(6,5): a 1.2 GiB database and, from guess 0 on one thread, well over the 750 s of CPU of the documented arena solve (docs/solved.md)"]
fn known_kalah_6_5() {
    assert_eq!(start_value_big("kalah:seeds=5", 24), 10);
}

/// A Kalah(6,5) position 14 sows deep (48 seeds left in the pits; sows 6 6 4 2 1 6 1 3 6 3 5
/// 3 3 5, each a 1-based pit of the side to move): the mover gains +2 from here (the first
/// player's margin is 0). Checked three ways with `examples/probe` (release build): with the
/// K = 24 database and MTD(f) from guess 2 (2.0 M nodes), with K = 18 from guess 0 (27.6 M
/// nodes), and here with K = 18 from guess −4 on two search threads. About 37 s of CPU in
/// release (`scripts/test.sh` runs it); far too slow for the debug suite.
#[test]
#[ignore = "release profile: scripts/test.sh runs it"]
fn kalah_6_5_fourteen_sows_deep() {
    let r: Ruleset = "kalah:seeds=5".parse().unwrap();
    let sp = BoardSpec::from_ruleset(&r).unwrap();
    let mut b = sp.start(5);
    for pit in [6, 6, 4, 2, 1, 6, 1, 3, 6, 3, 5, 3, 3, 5] {
        let s = b.sow(&sp, pit - 1);
        assert!(!s.over);
        b = s.next;
    }
    assert_eq!(b.seeds(), 48);
    let db = Arc::new(Db::load_or_build(sp, 18, db::default_dir().as_deref()));
    let mut s = Solver::new(sp, 256, Some(db));
    s.set_threads(2);
    assert_eq!(s.solve(&b, -4, &mut never), Some(2));
}

/// Like [`start_value`] with a 1 GiB TT and the cached database.
fn start_value_big(rules: &str, k: usize) -> i32 {
    let r: Ruleset = rules.parse().unwrap();
    let sp = BoardSpec::from_ruleset(&r).unwrap();
    let db = Arc::new(Db::load_or_build(sp, k, db::default_dir().as_deref()));
    let mut s = Solver::new(sp, 1024, Some(db));
    s.solve(&sp.start(r.seeds() as u8), 0, &mut never).unwrap()
}

#[test]
fn parallel_database_build_equals_single_threaded() {
    for rules in [
        "kalah:pits=3,seeds=1",
        "kalah:pits=4,seeds=1,empty_capture=true",
    ] {
        let sp = spec(rules);
        let one = Db::build_with_threads(sp, 9, 1);
        let three = Db::build_with_threads(sp, 9, 3);
        assert_eq!(one.bytes(), three.bytes());
        for k in 0..=9 {
            assert!(one.level(k) == three.level(k), "{rules}: level {k}");
        }
    }
}

#[test]
fn threads_give_the_same_values() {
    // Kalah(4,4) and (5,3) with small databases: the passes are big enough for the helper
    // threads (and their deferrals) to run. Every position along a game must get one value.
    for (rules, seeds) in [
        ("kalah:pits=4,seeds=4", 4u8),
        ("kalah:pits=5,seeds=3,empty_capture=true", 3),
    ] {
        let sp = spec(rules);
        let db = Some(Arc::new(Db::build(sp, 4)));
        let mut b = sp.start(seeds);
        for step in 0..12 {
            if !b.mover_can_move() {
                break;
            }
            let mut one = Solver::new(sp, 4, db.clone());
            let mut three = Solver::new(sp, 4, db.clone());
            three.set_threads(3);
            let v = one.solve(&b, 0, &mut never);
            assert_eq!(three.solve(&b, 3, &mut never), v, "{rules} step {step}");
            let moves: Vec<usize> = (0..sp.pits).filter(|&i| b.c[i] != 0).collect();
            let sow = b.sow(&sp, moves[step % moves.len()]);
            if sow.over {
                break;
            }
            b = sow.next;
        }
    }
}

/// Random positions of Kalah(4,3) (random games, each position along them): the search with a
/// small database (its children's entries read by index) and a tiny TT (so replacement runs),
/// on one and two threads, from a deliberately wrong first guess, gives every position the
/// value of the whole-game database (K = 24 covers every position of the game; built by the
/// block builder, which `db::tests` checks against the position-by-position recursion).
#[test]
fn random_positions_match_the_whole_game_database() {
    let sp = spec("kalah:pits=4,seeds=3");
    let full = Db::build(sp, 24);
    let small = Some(Arc::new(Db::build(sp, 8)));
    let mut rng = 0x2545_F491_4F6C_DD1Du64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut checked = 0;
    for game in 0..12 {
        let mut b = sp.start(3);
        while b.mover_can_move() {
            let seeds = b.seeds();
            let want = full
                .get(&b, seeds)
                .expect("the whole-game database covers it");
            let mut s = Solver::new(sp, 1, small.clone());
            s.set_threads(1 + game % 2);
            let guess = (next() % 13) as i32 - 6;
            assert_eq!(s.solve(&b, guess, &mut never), Some(want), "game {game}");
            checked += 1;
            let moves: Vec<usize> = (0..sp.pits).filter(|&i| b.c[i] != 0).collect();
            let sow = b.sow(&sp, moves[next() as usize % moves.len()]);
            if sow.over {
                break;
            }
            b = sow.next;
        }
    }
    assert!(checked > 100, "{checked} positions");
}

/// Random positions of Kalah(4,4) on three search threads, where the helpers put off even a
/// node's first child while another thread is on it (`Solver::helper`): with a small database
/// (K = 8, so helpers run and defer at every position of more than 20 seeds) and a tiny TT,
/// from random first guesses, every position gets the value of the whole-game database
/// (K = 32 covers every position of the game).
#[test]
fn helper_threads_match_the_whole_game_database() {
    let sp = spec("kalah:pits=4,seeds=4");
    let full = Db::build(sp, 32);
    let small = Some(Arc::new(Db::build(sp, 8)));
    let mut rng = 0x9E37_79B9_7F4A_7C15u64;
    let mut next = move || {
        rng ^= rng << 13;
        rng ^= rng >> 7;
        rng ^= rng << 17;
        rng
    };
    let mut helped = 0;
    for game in 0..8 {
        let mut b = sp.start(4);
        while b.mover_can_move() && b.seeds() > 20 {
            let want = full
                .get(&b, b.seeds())
                .expect("the whole-game database covers it");
            let mut s = Solver::new(sp, 1, small.clone());
            s.set_threads(3);
            let guess = (next() % 17) as i32 - 8;
            assert_eq!(s.solve(&b, guess, &mut never), Some(want), "game {game}");
            helped += 1;
            let moves: Vec<usize> = (0..sp.pits).filter(|&i| b.c[i] != 0).collect();
            let sow = b.sow(&sp, moves[next() as usize % moves.len()]);
            if sow.over {
                break;
            }
            b = sow.next;
        }
    }
    assert!(helped >= 16, "{helped} positions");
}
