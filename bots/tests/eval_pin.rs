//! Pins the alpha-beta search's choice and score at fixed depths on a set of positions, so a
//! change to the evaluation (the tunable `Eval*` options, issue #31) provably keeps today's
//! Easy / Normal / Hard play with the default weights.
//!
//! The positions are those along seeded random games of Kalah(6,4), Oware and Congkak; at each
//! one, a search of every depth 1..=MAX gives a best move and a score (internal units). The
//! golden file `tests/data/eval-pin.txt` was written by this test on commit 3d269f5 (before the
//! evaluation had options): `MANCALA_UPDATE_PIN=1 cargo test -p mancala-bots --test eval_pin`
//! rewrites it (only do that for an intended change of play, and say so in the commit).

use std::fmt::Write as _;
use std::sync::atomic::AtomicU64;

use mancala_bots::alphabeta::{search, Eval, Settings, Tt};
use mancala_bots::engine_loop::Search;
use mancala_protocol::GoLimits;
use mancala_rules::{Position, Ruleset};
use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn transcript() -> String {
    let mut text = String::new();
    for (rules, games, max_depth) in [("kalah", 8, 5), ("oware", 4, 4), ("congkak", 4, 4)] {
        let ruleset: Ruleset = rules.parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        for _ in 0..games {
            let mut pos = Position::new(ruleset);
            let mut plies = 0;
            while !pos.is_over() && plies < 60 {
                if plies % 4 == 0 {
                    let _ = write!(text, "{rules} {}", pos.to_state_string());
                    for depth in 1..=max_depth {
                        let stop = AtomicU64::new(0);
                        let mut out = Vec::new();
                        let mut s = Search::new(GoLimits::default(), &stop, &mut out);
                        let settings = Settings {
                            depth,
                            noise: 0.0,
                            nodes: None,
                            eval: Eval::default(),
                        };
                        let it = search(&pos, settings, &mut Tt::new(1), &mut s)
                            .last
                            .unwrap();
                        let _ = write!(text, " {}:{}", it.best, it.score);
                    }
                    // With noise (Easy, Normal) every root move's exact score matters.
                    let stop = AtomicU64::new(0);
                    let mut out = Vec::new();
                    let mut s = Search::new(GoLimits::default(), &stop, &mut out);
                    let settings = Settings {
                        depth: 3,
                        noise: 1.0,
                        nodes: None,
                        eval: Eval::default(),
                    };
                    let it = search(&pos, settings, &mut Tt::new(1), &mut s)
                        .last
                        .unwrap();
                    text.push_str(" |");
                    for (mv, v) in it.root_scores {
                        let _ = write!(text, " {mv}:{v}");
                    }
                    text.push('\n');
                }
                let mv = *pos.legal_moves().choose(&mut rng).unwrap();
                pos.play(mv).unwrap();
                plies += 1;
            }
        }
    }
    text
}

#[test]
fn fixed_depth_searches_keep_their_moves_and_scores() {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/eval-pin.txt");
    let got = transcript();
    if std::env::var_os("MANCALA_UPDATE_PIN").is_some() {
        std::fs::write(path, &got).unwrap();
        return;
    }
    let want = std::fs::read_to_string(path).unwrap();
    assert!(want.lines().count() > 100, "too few pinned positions");
    for (i, (g, w)) in got.lines().zip(want.lines()).enumerate() {
        assert_eq!(g, w, "line {}", i + 1);
    }
    assert_eq!(got.lines().count(), want.lines().count());
}
