//! Rules engine tests: worked examples (docs/rules.md and the seed pages), every variant on and
//! off, seeded random-game properties in every ruleset, the ruleset string, perft against a
//! naive reference implementation of Kalah, and the `arena replay` / `arena perft` commands.

use mancala_arena::rules::{
    perft, EndReason, GameKind, IllegalReason, Move, Position, Ruleset, Side, Sweep,
};
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

fn rules(s: &str) -> Ruleset {
    s.parse().unwrap_or_else(|e| panic!("{s}: {e}"))
}

fn pos(r: &str, state: &str) -> Position {
    Position::from_state(rules(r), state).unwrap_or_else(|e| panic!("{e}"))
}

fn play_all(p: &mut Position, moves: &[u8]) {
    for &m in moves {
        p.play(Move::Pit(m))
            .unwrap_or_else(|e| panic!("{e} in {p}"));
    }
}

/// A deliberately simple Kalah: one seed at a time, `%` for the wrap, explicit skip of the
/// opponent's store. Written from docs/rules.md without looking at the engine's code paths.
mod reference {
    #[derive(Clone, Debug)]
    pub struct Kalah {
        pub n: usize,
        /// South pits 0..n, South store n, North pits n+1..2n+1, North store 2n+1.
        pub cells: Vec<u32>,
        pub mover: usize, // 0 south, 1 north
        pub over: bool,
        pub sows: u32,
        pub cap: u32,
    }

    impl Kalah {
        pub fn new(n: usize, seeds: u32, cap: u32) -> Kalah {
            let mut cells = vec![seeds; 2 * n + 2];
            cells[n] = 0;
            cells[2 * n + 1] = 0;
            Kalah {
                n,
                cells,
                mover: 0,
                over: false,
                sows: 0,
                cap,
            }
        }

        pub fn row(&self, side: usize) -> &[u32] {
            let start = if side == 0 { 0 } else { self.n + 1 };
            &self.cells[start..start + self.n]
        }

        pub fn moves(&self) -> Vec<usize> {
            if self.over {
                return vec![];
            }
            (1..=self.n)
                .filter(|&k| self.row(self.mover)[k - 1] > 0)
                .collect()
        }

        pub fn play(&mut self, pit: usize) {
            let n = self.n;
            let me = self.mover;
            let own_store = if me == 0 { n } else { 2 * n + 1 };
            let opp_store = if me == 0 { 2 * n + 1 } else { n };
            let mut idx = if me == 0 { pit - 1 } else { n + pit };
            let mut seeds = self.cells[idx];
            self.cells[idx] = 0;
            while seeds > 0 {
                idx = (idx + 1) % (2 * n + 2);
                if idx == opp_store {
                    continue;
                }
                self.cells[idx] += 1;
                seeds -= 1;
            }
            let own_pit = if me == 0 {
                idx < n
            } else {
                idx > n && idx < 2 * n + 1
            };
            if idx == own_store {
                // extra turn
            } else {
                if own_pit && self.cells[idx] == 1 {
                    let opposite = 2 * n - idx;
                    if self.cells[opposite] > 0 {
                        self.cells[own_store] += self.cells[opposite] + 1;
                        self.cells[opposite] = 0;
                        self.cells[idx] = 0;
                    }
                }
                self.mover = 1 - me;
            }
            self.sows += 1;
            let empty = |s: usize| self.row(s).iter().all(|&c| c == 0);
            if empty(0) || empty(1) || self.sows >= self.cap {
                self.over = true;
                for s in 0..2 {
                    let sum: u32 = self.row(s).iter().sum();
                    let start = if s == 0 { 0 } else { n + 1 };
                    for c in &mut self.cells[start..start + n] {
                        *c = 0;
                    }
                    self.cells[if s == 0 { n } else { 2 * n + 1 }] += sum;
                }
            }
        }

        pub fn perft(&self, depth: u32) -> u64 {
            if depth == 0 {
                return 1;
            }
            self.moves()
                .into_iter()
                .map(|m| {
                    let mut c = self.clone();
                    c.play(m);
                    c.perft(depth - 1)
                })
                .sum()
        }
    }
}

mod reference_comparison {
    use super::*;

    /// Kalah(6,4) perft, depths 1..=10. Obtained from this engine (`arena perft --depth 10`)
    /// and cross-checked against `reference::Kalah` (the naive implementation above) for depths
    /// 1..=9 in `perft_matches_reference` below, and move-by-move on thousands of random games.
    /// A sow is a move (extra-turn sows count as separate plies). Depth 11 is 65_870_758.
    pub const KALAH_6_4: [u64; 10] = [
        6, 35, 185, 942, 4690, 23233, 114430, 563055, 2763490, 13519607,
    ];

    #[test]
    fn perft_matches_reference() {
        let r = reference::Kalah::new(6, 4, 400);
        let p = Position::new(Ruleset::default());
        for d in 1..=9u32 {
            let want = r.perft(d);
            assert_eq!(perft(&p, d), want, "depth {d}");
            assert_eq!(KALAH_6_4[d as usize - 1], want, "depth {d}");
        }
    }

    #[test]
    fn perft_kalah_6_4_recorded_counts() {
        let p = Position::new(Ruleset::default());
        for d in 1..=10u32 {
            assert_eq!(perft(&p, d), KALAH_6_4[d as usize - 1], "depth {d}");
        }
    }

    #[test]
    fn perft_other_sizes_match_reference() {
        for (n, s) in [(1u8, 1u8), (3, 3), (4, 6), (8, 8), (6, 5), (2, 8)] {
            let r = reference::Kalah::new(n as usize, s as u32, 400);
            let p = Position::new(Ruleset::kalah(n, s));
            for d in 1..=5 {
                assert_eq!(perft(&p, d), r.perft(d), "kalah({n},{s}) depth {d}");
            }
        }
    }

    #[test]
    fn random_games_match_reference_move_by_move() {
        let mut rng = ChaCha8Rng::seed_from_u64(7);
        for game in 0..3000 {
            let (n, s) = [(6u8, 4u8), (6, 6), (4, 3), (8, 8), (1, 5), (7, 2)][game % 6];
            let cap = if game % 5 == 0 { 30 } else { 400 };
            let mut r = reference::Kalah::new(n as usize, s as u32, cap);
            let mut p = Position::new(Ruleset::kalah(n, s).with_sow_cap(cap));
            loop {
                assert_eq!(
                    p.pits(Side::South),
                    r.row(0).iter().map(|&c| c as u8).collect::<Vec<_>>()
                );
                assert_eq!(
                    p.pits(Side::North),
                    r.row(1).iter().map(|&c| c as u8).collect::<Vec<_>>()
                );
                assert_eq!(p.store(Side::South), r.cells[n as usize]);
                assert_eq!(p.store(Side::North), r.cells[2 * n as usize + 1]);
                assert_eq!(p.is_over(), r.over);
                if r.over {
                    break;
                }
                assert_eq!(p.to_move().unwrap().index(), r.mover);
                let moves: Vec<usize> = p
                    .legal_moves()
                    .iter()
                    .map(|m| match m {
                        Move::Pit(k) => *k as usize,
                        Move::Swap => 0,
                    })
                    .collect();
                assert_eq!(moves, r.moves());
                let m = *moves.choose(&mut rng).unwrap();
                p.play(Move::Pit(m as u8)).unwrap();
                r.play(m);
            }
        }
    }
}

/// The five worked Kalah positions of seeds/001 (Thai page of the site) and the other examples
/// of its "sowing", "extra turn", "capture" and "game end" sections, set up with `from_state`.
mod seed_001 {
    use super::*;

    /// "13 seeds go round the board once: your pits 2–6, your store, the opponent's six pits,
    /// skipping their store, back to pit 1 you just emptied. It is empty and the opposite pit has
    /// 3 seeds, so you capture 4 and your store is 16."
    #[test]
    fn thirteen_seed_lap_captures_four_into_store_of_16() {
        let mut p = pos("kalah", "s/13.2.2.2.2.2/1.1.1.1.1.2/11.7/10");
        p.play(Move::Pit(1)).unwrap();
        assert_eq!(p.store(Side::South), 16);
        assert_eq!(p.pits(Side::South), [0, 3, 3, 3, 3, 3]);
        assert_eq!(p.pits(Side::North), [2, 2, 2, 2, 2, 0]);
        assert_eq!(p.to_move(), Some(Side::North));
    }

    /// "Your last seed lands in your store, but now your pits are all empty, so the game ends at
    /// once, no extra turn. The opponent moves the 21 seeds left on their side into their store:
    /// 27 to 21, the opponent wins."
    #[test]
    fn last_seed_in_store_empties_row_and_ends_27_21() {
        let mut p = pos("kalah", "s/0.0.0.0.0.1/4.4.4.3.3.3/20.6/40");
        p.play(Move::Pit(6)).unwrap();
        let r = p.result().unwrap();
        assert_eq!(r.score.south, 21);
        assert_eq!(r.score.north, 27);
        assert_eq!(r.winner, Some(Side::North));
        assert_eq!(r.end, EndReason::SideEmpty);
        assert_eq!(p.to_move(), None);
    }

    /// "Sow 4 seeds from your pit 3 into pits 4, 5 and 6 and the last one into your store: you
    /// play again." (The start position: "at the start your pit 3 is such a pit".)
    #[test]
    fn pit_3_with_4_seeds_gives_an_extra_turn() {
        let mut p = Position::new(rules("kalah"));
        p.play(Move::Pit(3)).unwrap();
        assert_eq!(p.pits(Side::South), [4, 4, 0, 5, 5, 5]);
        assert_eq!(p.store(Side::South), 1);
        assert_eq!(p.to_move(), Some(Side::South));
        assert_eq!(p.sows(), 1);
    }

    /// "Your last seed lands in your empty pit 2. The opposite pit (the opponent's pit 5) holds
    /// 5 seeds, so you take them with your seed: 6 seeds into the store, which now has 16."
    #[test]
    fn capture_of_5_plus_1_brings_store_to_16() {
        let mut p = pos("kalah", "s/1.0.3.3.3.3/2.2.2.2.5.2/10.10/20");
        p.play(Move::Pit(1)).unwrap();
        assert_eq!(p.store(Side::South), 16);
        assert_eq!(p.pits(Side::South), [0, 0, 3, 3, 3, 3]);
        assert_eq!(p.pits(Side::North), [2, 2, 2, 2, 0, 2]);
        assert_eq!(p.to_move(), Some(Side::North));
    }

    /// "Here the opposite pit is empty, so nothing is captured: the seed stays in your pit 2 and
    /// your turn ends."
    #[test]
    fn own_empty_pit_with_empty_opposite_captures_nothing() {
        let mut p = pos("kalah", "s/1.0.3.3.3.3/2.2.2.2.0.7/10.10/20");
        p.play(Move::Pit(1)).unwrap();
        assert_eq!(p.pits(Side::South), [0, 1, 3, 3, 3, 3]);
        assert_eq!(p.store(Side::South), 10);
        assert_eq!(p.to_move(), Some(Side::North));
    }

    /// "Your pit 6 has 2 seeds: one goes into your store and the last lands in the opponent's
    /// empty pit 1. Nothing is captured and your turn ends."
    #[test]
    fn landing_on_opponents_empty_pit_ends_the_turn() {
        let mut p = pos("kalah", "s/4.4.4.4.4.2/0.4.4.4.4.4/3.3/12");
        p.play(Move::Pit(6)).unwrap();
        assert_eq!(p.pits(Side::North), [1, 4, 4, 4, 4, 4]);
        assert_eq!(p.store(Side::South), 4);
        assert_eq!(p.to_move(), Some(Side::North));
    }

    /// "Your pit 6 has 5 seeds: one into your store and four into the opponent's pits 1 to 4. The
    /// last seed falls into an occupied pit, so your turn ends."
    #[test]
    fn five_seeds_from_pit_6_end_in_occupied_opponent_pit() {
        let mut p = pos("kalah", "s/4.4.4.4.0.5/4.4.4.4.4.4/0.3/6");
        p.play(Move::Pit(6)).unwrap();
        assert_eq!(p.pits(Side::North), [5, 5, 5, 5, 4, 4]);
        assert_eq!(p.store(Side::South), 1);
        assert_eq!(p.to_move(), Some(Side::North));
    }
}

/// docs/rules.md statements, one test each.
mod rules_md {
    use super::*;

    /// Kalah rule 1: North sows its pits, its store, South's pits, skipping South's store.
    #[test]
    fn north_sows_through_its_own_store_and_skips_souths() {
        let mut p = pos("kalah", "n/1.1.1.1.1.1/1.1.1.1.1.12/2.23/30");
        p.play(Move::Pit(6)).unwrap();
        // 12 seeds: North store, South 1..6, (skip South store), North 1..5.
        assert_eq!(p.store(Side::North), 24);
        assert_eq!(p.store(Side::South), 2);
        assert_eq!(p.pits(Side::South), [2, 2, 2, 2, 2, 2]);
        assert_eq!(p.pits(Side::North), [2, 2, 2, 2, 2, 0]);
    }

    /// Kalah rule 3: extra turns chain (pit 6 with 1 seed, then pit 5 with 2, ...).
    #[test]
    fn extra_turns_chain() {
        let mut p = pos("kalah", "s/4.4.4.3.2.1/4.4.4.4.4.4/2.4/10");
        for m in [6, 5, 6, 4] {
            p.play(Move::Pit(m)).unwrap();
            assert_eq!(p.to_move(), Some(Side::South), "after pit {m}");
        }
        assert_eq!(p.store(Side::South), 6);
    }

    /// Kalah rule 6: 24–24 is a draw.
    #[test]
    fn equal_stores_are_a_draw() {
        let mut p = pos("kalah", "s/0.0.0.0.0.1/0.0.0.0.0.1/23.23/50");
        p.play(Move::Pit(6)).unwrap();
        let r = p.result().unwrap();
        assert_eq!((r.score.south, r.score.north, r.winner), (24, 24, None));
    }

    /// Oware rule 2: with 12 seeds the origin house is skipped; the 12th seed goes to the next.
    #[test]
    fn oware_twelve_seeds_skip_the_origin() {
        let mut p = pos("oware", "s/12.0.0.0.0.0/6.6.6.6.6.6/0.0/0");
        p.play(Move::Pit(1)).unwrap();
        assert_eq!(p.pits(Side::South), [0, 2, 1, 1, 1, 1]);
        assert_eq!(p.pits(Side::North), [7, 7, 7, 7, 7, 7]);
    }

    /// Oware rule 3: chained captures backwards along the opponent's row, stopping at a house
    /// that does not hold 2 or 3.
    #[test]
    fn oware_chained_capture_stops_at_first_non_2_or_3() {
        // South house 6 with 3 seeds: North 1, 2, 3 get one each -> 2, 3, 2; the last seed is
        // in North 3 and the chain goes back 3 -> 2 -> 1, capturing 7.
        let mut p = pos("oware", "s/4.4.4.4.4.3/1.2.1.5.5.5/3.3/10");
        p.play(Move::Pit(6)).unwrap();
        assert_eq!(p.pits(Side::North), [0, 0, 0, 5, 5, 5]);
        assert_eq!(p.store(Side::South), 3 + 7);
        // Chain broken by a 4 in North 1.
        let mut p = pos("oware", "s/4.4.4.4.4.3/3.2.1.5.5.5/3.1/10");
        p.play(Move::Pit(6)).unwrap();
        assert_eq!(p.pits(Side::North), [4, 0, 0, 5, 5, 5]);
        assert_eq!(p.store(Side::South), 3 + 5);
    }

    /// Oware rule 6: the game ends by majority as soon as a player has 25.
    #[test]
    fn oware_majority_ends_the_game() {
        let mut p = pos("oware", "s/1.1.1.1.1.1/1.1.1.1.1.1/24.12/30");
        p.play(Move::Pit(6)).unwrap(); // North 1: 1 -> 2, captured: South 26
        let r = p.result().unwrap();
        assert_eq!(r.end, EndReason::Majority);
        assert_eq!(r.winner, Some(Side::South));
        assert_eq!(r.score.south + r.score.north, 48);
    }
}

/// Every variant switched on and off in a position where it changes the outcome.
mod variants {
    use super::*;

    #[test]
    fn empty_capture() {
        let state = "s/1.0.3.3.3.3/2.2.2.2.0.7/10.10/20";
        let mut off = pos("kalah", state);
        off.play(Move::Pit(1)).unwrap();
        assert_eq!((off.pits(Side::South)[1], off.store(Side::South)), (1, 10));
        let mut on = pos("kalah:empty_capture=true", state);
        on.play(Move::Pit(1)).unwrap();
        assert_eq!((on.pits(Side::South)[1], on.store(Side::South)), (0, 11));
    }

    #[test]
    fn sweep_none_changes_the_winner() {
        let state = "s/0.0.0.0.0.1/4.4.4.3.3.3/20.6/40";
        let mut owner = pos("kalah", state);
        owner.play(Move::Pit(6)).unwrap();
        assert_eq!(owner.result().unwrap().winner, Some(Side::North));
        let mut none = pos("kalah:sweep=none", state);
        none.play(Move::Pit(6)).unwrap();
        let r = none.result().unwrap();
        assert_eq!(
            (r.score.south, r.score.north, r.winner),
            (21, 6, Some(Side::South))
        );
        assert_eq!(none.pits(Side::North), [4, 4, 4, 3, 3, 3]);
        assert_eq!(rules("kalah:sweep=none").sweep(), Sweep::None);
    }

    #[test]
    fn end_on_no_move() {
        // South's last two seeds: one into the store, one to North: South's row is empty.
        let state = "s/0.0.0.0.0.2/4.4.4.3.3.3/20.5/40";
        let mut default = pos("kalah", state);
        default.play(Move::Pit(6)).unwrap();
        assert_eq!(default.result().unwrap().end, EndReason::SideEmpty);
        let mut variant = pos("kalah:end_on_no_move=true", state);
        variant.play(Move::Pit(6)).unwrap();
        assert_eq!(variant.to_move(), Some(Side::North));
        // North's pit 6 (3 seeds): store, South 1, South 2: South can move again.
        variant.play(Move::Pit(6)).unwrap();
        assert_eq!(variant.pits(Side::South), [1, 1, 0, 0, 0, 0]);
        // A side to move with nothing to play ends the game (NoMove): South's extra turn with an
        // empty row.
        let mut p = pos(
            "kalah:end_on_no_move=true",
            "s/0.0.0.0.0.1/4.4.4.3.3.3/20.6/40",
        );
        p.play(Move::Pit(6)).unwrap();
        assert_eq!(p.result().unwrap().end, EndReason::NoMove);
    }

    #[test]
    fn first_sow_without_extra_turn() {
        // ManKalah's game: Kalah(7,7), pie rule, and the first sow never earns an extra turn.
        let spec = "kalah:pits=7,seeds=7,pie=true,first_extra_turn=false";
        assert_eq!(rules(spec).to_string(), spec);
        assert!(rules("kalah").first_extra_turn());
        // Pit 1's seven seeds: pits 2..7 and the store.
        let mut p = Position::new(rules(spec));
        p.play(Move::Pit(1)).unwrap();
        assert_eq!((p.store(Side::South), p.to_move()), (1, Some(Side::North)));
        assert!(p.legal_moves().contains(&Move::Swap));
        let mut usual = Position::new(rules("kalah:pits=7,seeds=7,pie=true"));
        usual.play(Move::Pit(1)).unwrap();
        assert_eq!(usual.to_move(), Some(Side::South));
        // Every later sow follows rule 3: North's pit 1 ends in North's store, North again.
        p.play(Move::Pit(1)).unwrap();
        assert_eq!((p.store(Side::North), p.to_move()), (1, Some(Side::North)));
        // Without the pie rule too, and from a state with no sow yet.
        let mut q = pos(
            "kalah:pits=7,seeds=7,first_extra_turn=false",
            &Position::new(rules("kalah:pits=7,seeds=7")).to_string(),
        );
        q.play(Move::Pit(1)).unwrap();
        assert_eq!(q.to_move(), Some(Side::North));
    }

    #[test]
    fn pie_rule() {
        let mut off = Position::new(rules("kalah"));
        play_all(&mut off, &[3, 1]);
        assert_eq!(off.to_move(), Some(Side::North));
        assert!(!off.legal_moves().contains(&Move::Swap));
        assert_eq!(
            off.play(Move::Swap).unwrap_err().reason,
            IllegalReason::SwapNotAllowed
        );

        let mut on = Position::new(rules("kalah:pie=true"));
        on.play(Move::Pit(3)).unwrap();
        // Still South's first turn (extra turn): no swap yet.
        assert!(!on.is_legal(Move::Swap));
        on.play(Move::Pit(1)).unwrap();
        assert!(on.legal_moves().contains(&Move::Swap));
        let before = on.clone();
        on.play(Move::Swap).unwrap();
        assert!(on.swapped());
        assert_eq!(on.to_move(), Some(Side::North));
        assert_eq!(on.sows(), before.sows());
        assert_eq!(on.pits(Side::South), before.pits(Side::South));
        assert!(!on.is_legal(Move::Swap));
        // Declining: a pit move, after which swap is gone for good.
        let mut declined = before.clone();
        declined.play(Move::Pit(1)).unwrap();
        assert!(!declined.swapped());
        assert!(declined.legal_moves().iter().all(|m| *m != Move::Swap));
        // Round trip of every pie state.
        for p in [&before, &on, &declined] {
            assert_eq!(
                &Position::from_state(p.ruleset(), &p.to_state_string()).unwrap(),
                p
            );
        }
    }

    #[test]
    fn sow_cap() {
        let mut capped = Position::new(rules("kalah:sow_cap=3"));
        play_all(&mut capped, &[3, 1, 1]);
        let r = capped.result().unwrap();
        assert_eq!(r.end, EndReason::SowCap);
        assert_eq!(r.score.south + r.score.north, 48);
        let mut free = Position::new(rules("kalah"));
        play_all(&mut free, &[3, 1, 1]);
        assert!(!free.is_over());
        let mut oware = Position::new(rules("oware:sow_cap=1"));
        oware.play(Move::Pit(1)).unwrap();
        assert_eq!(oware.result().unwrap().end, EndReason::SowCap);
    }

    #[test]
    fn oware_grand_slam_captures_nothing() {
        // South 6 (2 seeds) makes North 1 and 2 hold 2 and 3: every North seed.
        let mut slam = pos("oware", "s/4.4.4.4.4.2/1.2.0.0.0.0/12.11/20");
        slam.play(Move::Pit(6)).unwrap();
        assert_eq!(slam.pits(Side::North), [2, 3, 0, 0, 0, 0]);
        assert_eq!(slam.store(Side::South), 12);
        // With one more North seed elsewhere the same move captures 5.
        let mut capture = pos("oware", "s/4.4.4.4.4.2/1.2.0.0.1.0/12.10/20");
        capture.play(Move::Pit(6)).unwrap();
        assert_eq!(capture.pits(Side::North), [0, 0, 0, 0, 1, 0]);
        assert_eq!(capture.store(Side::South), 17);
    }

    #[test]
    fn oware_feeding_obligation() {
        let p = pos("oware", "s/1.0.0.0.0.1/0.0.0.0.0.0/23.23/40");
        assert_eq!(&*p.legal_moves(), &[Move::Pit(6)]);
        let mut q = p.clone();
        let err = q.play(Move::Pit(1)).unwrap_err();
        assert_eq!(err.reason, IllegalReason::FeedingObligation);
        assert_eq!(q, p);
        // Without the obligation (North has seeds) house 1 is fine.
        let p = pos("oware", "s/1.0.0.0.0.1/0.0.0.0.0.1/23.22/40");
        assert!(p.is_legal(Move::Pit(1)));
    }

    #[test]
    fn oware_no_feeding_move_ends_the_game() {
        // North's last seed goes to South 1; South (2 seeds in house 1) cannot reach North.
        let mut p = pos("oware", "n/1.0.0.0.0.0/0.0.0.0.0.1/23.23/40");
        p.play(Move::Pit(6)).unwrap();
        let r = p.result().unwrap();
        assert_eq!(r.end, EndReason::NoFeeding);
        assert_eq!(
            (r.score.south, r.score.north, r.winner),
            (25, 23, Some(Side::South))
        );
    }

    #[test]
    fn oware_repetition_ends_the_game() {
        // Two lone seeds march round the board and the start position comes back after 12 sows.
        let start = "s/0.0.0.0.0.1/0.0.0.0.0.1/23.23/0";
        let mut p = pos("oware", start);
        let mut b = *p.board();
        let mut sows = 0;
        while !p.is_over() {
            let mv = p.legal_moves()[0];
            p.play(mv).unwrap();
            b.play(mv).unwrap();
            sows += 1;
            if sows < 12 {
                assert!(!p.is_over());
                let q = Position::from_state(p.ruleset(), &p.to_state_string()).unwrap();
                assert_eq!(q, p, "rep history round-trips");
            }
        }
        assert_eq!(sows, 12);
        let r = p.result().unwrap();
        assert_eq!(r.end, EndReason::Repetition);
        assert_eq!((r.score.south, r.score.north, r.winner), (24, 24, None));
        // The history-free Board does not see the repetition.
        assert!(!b.is_over());
    }

    #[test]
    fn congkak_relay_sowing() {
        let state = "s/1.1.0.3.0/0.0.10.10.10/10.5/10";
        let mut p = pos("congkak:holes=5", state);
        p.play(Move::Pit(1)).unwrap();
        // S2 (now 2) is picked up, then S4 (now 4), whose last seed dies in empty North 2.
        assert_eq!(p.pits(Side::South), [0, 0, 1, 0, 1]);
        assert_eq!(p.store(Side::South), 11);
        assert_eq!(p.pits(Side::North), [1, 1, 10, 10, 10]);
        assert_eq!(p.to_move(), Some(Side::North));
        assert_eq!(p.sows(), 11);
    }

    #[test]
    fn congkak_lap_cap_refuses_the_relay() {
        let state = "s/1.1.0.3.0/0.0.10.10.10/10.5/10";
        let mut p = pos("congkak:holes=5,lap_cap=1", state);
        p.play(Move::Pit(1)).unwrap();
        assert_eq!(p.pits(Side::South), [0, 2, 0, 3, 0]);
        assert_eq!(p.to_move(), Some(Side::North));
    }

    #[test]
    fn congkak_mati_bela() {
        let mut p = pos("congkak:holes=5", "s/0.1.0.3.0/0.0.10.10.11/10.5/10");
        p.play(Move::Pit(2)).unwrap();
        assert_eq!(p.store(Side::South), 21);
        assert_eq!(p.pits(Side::North), [0, 0, 0, 10, 11]);
        assert_eq!(p.pits(Side::South), [0, 0, 0, 3, 0]);
        // Opposite hole empty: nothing captured, the seed stays.
        let mut q = pos("congkak:holes=5", "s/0.1.0.3.0/0.0.0.10.21/10.5/10");
        q.play(Move::Pit(2)).unwrap();
        assert_eq!(q.pits(Side::South), [0, 0, 1, 3, 0]);
        assert_eq!(q.store(Side::South), 10);
    }

    #[test]
    fn congkak_bonus_sow_from_own_store() {
        let mut p = pos("congkak:holes=5", "s/0.0.0.2.1/5.5.5.5.5/11.11/10");
        p.play(Move::Pit(5)).unwrap();
        assert_eq!(p.to_move(), Some(Side::South));
        p.play(Move::Pit(4)).unwrap();
        assert_eq!(p.to_move(), Some(Side::South));
        assert_eq!(p.store(Side::South), 13);
    }

    #[test]
    fn congkak_remainder_goes_to_the_other_player() {
        // South's last seed lands in its store: a bonus sow with no seeds ends the game, and the
        // seeds on the board go to North.
        let mut p = pos("congkak:holes=5", "s/0.0.0.0.1/5.5.5.5.5/12.12/10");
        p.play(Move::Pit(5)).unwrap();
        let r = p.result().unwrap();
        assert_eq!(r.end, EndReason::NoMove);
        assert_eq!((r.score.south, r.score.north), (13, 37));
        // A mati bela that empties North's row: North to move has no seeds, South gets the rest.
        let mut q = pos("congkak:holes=5", "s/1.0.0.0.2/0.0.0.5.0/20.22/10");
        q.play(Move::Pit(1)).unwrap();
        let r = q.result().unwrap();
        assert_eq!(
            (r.score.south, r.score.north, r.end),
            (28, 22, EndReason::NoMove)
        );
    }
}

/// Seeded random games in several parameterisations of every ruleset.
mod properties {
    use super::*;

    const RULESETS: &[&str] = &[
        "kalah",
        "kalah:pits=4,seeds=3",
        "kalah:pits=8,seeds=8",
        "kalah:pits=1,seeds=1",
        "kalah:seeds=6,empty_capture=true,sweep=none",
        "kalah:end_on_no_move=true,pie=true",
        "kalah:pie=true,sow_cap=20",
        "oware",
        "oware:seeds=6",
        "oware:seeds=5,sow_cap=50",
        "congkak",
        "congkak:holes=5",
        "congkak:holes=9",
        "congkak:holes=6,seeds=2,lap_cap=20",
        "congkak:sow_cap=30",
    ];

    fn check_game(r: Ruleset, rng: &mut ChaCha8Rng) {
        let mut p = Position::new(r);
        let total = r.total_seeds();
        loop {
            let on_board: u32 = Side::BOTH
                .iter()
                .map(|&s| p.pits(s).iter().map(|&c| c as u32).sum::<u32>() + p.store(s))
                .sum();
            assert_eq!(on_board, total, "seeds conserved in {p}");
            assert!(p.sows() <= r.sow_cap());
            let back = Position::from_state(r, &p.to_state_string())
                .unwrap_or_else(|e| panic!("{r}: {e}"));
            assert_eq!(back, p, "state round trip");
            assert_eq!(back.hash_key(), p.hash_key());
            let moves = p.legal_moves();
            for k in 0..=r.pits() as u8 + 1 {
                let mv = Move::Pit(k);
                assert_eq!(moves.contains(&mv), p.is_legal(mv), "{r} {p} pit {k}");
                if !p.is_legal(mv) {
                    let mut q = p.clone();
                    assert!(q.play(mv).is_err());
                    assert_eq!(q, p, "illegal move left the position unchanged");
                }
            }
            assert_eq!(moves.contains(&Move::Swap), p.is_legal(Move::Swap));
            if let Some(res) = p.result() {
                assert!(moves.is_empty());
                if !(r.kind() == GameKind::Kalah && r.sweep() == Sweep::None) {
                    assert_eq!(res.score.south + res.score.north, total, "{r} {p}");
                }
                break;
            }
            assert!(!moves.is_empty(), "{r}: side to move has moves in {p}");
            // Prefer pit moves, but take swap sometimes.
            let mv = *moves.choose(rng).unwrap();
            let side = p.to_move();
            p.play(mv).unwrap();
            if mv == Move::Swap {
                assert!(p.swapped());
                assert_eq!(p.to_move(), side);
            }
        }
    }

    #[test]
    fn random_games_keep_every_invariant() {
        let mut rng = ChaCha8Rng::seed_from_u64(2024);
        for (i, spec) in RULESETS.iter().enumerate() {
            let r = rules(spec);
            let games = if r.kind() == GameKind::Congkak {
                300
            } else {
                600
            };
            for _ in 0..games {
                check_game(r, &mut rng);
            }
            let _ = i;
        }
    }

    #[test]
    fn every_end_reason_occurs() {
        let mut seen = std::collections::HashSet::new();
        let mut rng = ChaCha8Rng::seed_from_u64(99);
        for spec in [
            "kalah",
            "kalah:end_on_no_move=true",
            "kalah:sow_cap=10",
            "oware",
            "congkak",
            "oware:sow_cap=60",
        ] {
            for _ in 0..2000 {
                let mut p = Position::new(rules(spec));
                while !p.is_over() {
                    let moves = p.legal_moves();
                    p.play_unchecked(moves[rng.gen_range(0..moves.len())]);
                }
                seen.insert(p.result().unwrap().end);
            }
        }
        for reason in EndReason::ALL {
            assert!(seen.contains(&reason), "{reason} never happened");
        }
    }
}

mod position_strings {
    use super::*;

    #[test]
    fn start_positions() {
        assert_eq!(
            Position::new(rules("kalah")).to_string(),
            "s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0"
        );
        assert_eq!(
            Position::new(rules("kalah:pie=true")).to_string(),
            "s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0/pie=pending"
        );
        assert_eq!(
            Position::new(rules("congkak")).to_string(),
            "s/7.7.7.7.7.7.7/7.7.7.7.7.7.7/0.0/0"
        );
    }

    #[test]
    fn errors() {
        let k = rules("kalah");
        for (s, needle) in [
            ("s/4.4.4.4.4/4.4.4.4.4.4/0.4/0", "south has 5 pits"),
            ("s/4.4.4.4.4.4/4.4.4.4.4.4/0.1/0", "holds 49 seeds"),
            ("q/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0", "mover"),
            ("s/4.4.4.4.4.4/4.4.4.4.4.4/0.0", "expected"),
            ("s/4.4.4.4.4.a/4.4.4.4.4.4/0.0/0", "not a number"),
            ("x/0.0.0.0.0.0/0.0.0.0.0.0/24.24/30", "no end="),
            ("s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0/end=sow_cap", "not over"),
            ("s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0/pie=offer", "no pie rule"),
            ("s/0.0.0.0.0.0/4.4.4.4.4.4/24.0/30", "row is empty"),
            ("s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/400", "sow cap"),
            (
                "x/0.0.0.0.0.0/0.0.0.0.0.0/24.24/30/end=repetition",
                "does not occur",
            ),
        ] {
            let e = Position::from_state(k, s).unwrap_err().to_string();
            assert!(e.contains(needle), "{s}: {e}");
        }
    }
}

mod ruleset_strings {
    use super::*;

    #[test]
    fn valid_and_canonical() {
        for (input, canonical) in [
            ("kalah", "kalah"),
            ("kalah:pits=6,seeds=4", "kalah"),
            (
                "kalah:seeds=5,pits=6,empty_capture=true",
                "kalah:seeds=5,empty_capture=true",
            ),
            (
                "kalah:pie=true,sweep=none,end_on_no_move=true,sow_cap=100",
                "kalah:sow_cap=100,sweep=none,end_on_no_move=true,pie=true",
            ),
            ("kalah:sweep=owner,pie=false", "kalah"),
            ("oware", "oware"),
            ("oware:seeds=6", "oware:seeds=6"),
            ("congkak", "congkak"),
            ("congkak:holes=7", "congkak"),
            ("congkak:holes=5", "congkak:holes=5"),
            ("congkak:holes=5,seeds=5", "congkak:holes=5"),
            ("congkak:holes=5,seeds=7", "congkak:holes=5,seeds=7"),
            ("congkak:lap_cap=50", "congkak:lap_cap=50"),
        ] {
            let r = rules(input);
            assert_eq!(r.to_string(), canonical, "{input}");
            assert_eq!(rules(canonical), r);
            let json = serde_json::to_string(&r).unwrap();
            assert_eq!(serde_json::from_str::<Ruleset>(&json).unwrap(), r);
        }
        let r = rules("congkak:holes=5");
        assert_eq!(
            (r.kind(), r.pits(), r.total_seeds(), r.sow_cap()),
            (GameKind::Congkak, 5, 50, 400)
        );
        assert_eq!(rules("oware:seeds=5").total_seeds(), 60);
    }

    #[test]
    fn invalid() {
        for (input, needle) in [
            ("chess", "known rulesets are kalah, oware, congkak"),
            ("kalah:holes=7", "valid keys are pits, seeds"),
            ("oware:pits=6", "valid keys are seeds, sow_cap"),
            ("kalah:pits=9", "1..=8"),
            ("kalah:pits=0", "1..=8"),
            ("kalah:seeds=x", "1..=8"),
            ("oware:seeds=3", "4..=6"),
            ("congkak:holes=10", "5..=9"),
            ("kalah:pie=yes", "true or false"),
            ("kalah:sweep=all", "owner or none"),
            ("kalah:pits", "expected key=value"),
            ("kalah:", "expected key=value"),
            ("kalah:pits=6,", "expected key=value"),
            ("kalah:pits=6,pits=5", "twice"),
            ("kalah:sow_cap=0", "1..=100000"),
            ("Kalahx", "unknown ruleset"),
        ] {
            let e = input.parse::<Ruleset>().unwrap_err().to_string();
            assert!(e.contains(needle), "{input}: {e}");
        }
        // The game's name in any case (issue 28: `--rules Kalah`); the keys stay lower case.
        assert_eq!("Kalah".parse::<Ruleset>(), "kalah".parse::<Ruleset>());
        assert_eq!(
            "OWARE:seeds=5".parse::<Ruleset>(),
            "oware:seeds=5".parse::<Ruleset>()
        );
        assert!("kalah:Pits=6".parse::<Ruleset>().is_err());
    }

    proptest::proptest! {
        #[test]
        fn display_round_trips(pits in 1u8..=8, seeds in 1u8..=8, cap in 1u32..1000, ec: bool, sweep: bool, eonm: bool, pie: bool) {
            let s = format!("kalah:pits={pits},seeds={seeds},sow_cap={cap},empty_capture={ec},sweep={},end_on_no_move={eonm},pie={pie}", if sweep {"none"} else {"owner"});
            let r: Ruleset = s.parse().unwrap();
            proptest::prop_assert_eq!(r.to_string().parse::<Ruleset>().unwrap(), r);
            proptest::prop_assert_eq!(r.pits(), pits as usize);
        }
    }
}

mod cli {
    use std::process::Command;

    fn arena(args: &[&str]) -> std::process::Output {
        Command::new(env!("CARGO_BIN_EXE_arena"))
            .args(args)
            .output()
            .unwrap()
    }

    #[test]
    fn replay_json() {
        let out = arena(&[
            "replay",
            "--rules",
            "kalah:pits=6,seeds=4",
            "--json",
            "3",
            "6",
        ]);
        assert!(out.status.success());
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["rules"], "kalah");
        assert_eq!(v["to_move"], "north");
        assert_eq!(v["pits"]["south"], serde_json::json!([4, 4, 0, 5, 5, 0]));
        assert_eq!(v["pits"]["north"], serde_json::json!([5, 5, 5, 5, 4, 4]));
        assert_eq!(v["stores"]["south"], 2);
        assert_eq!(v["sows"], 2);
        assert_eq!(v["over"], false);
        assert!(v["score"].is_null() && v["winner"].is_null());
    }

    #[test]
    fn replay_to_the_end_reports_score_and_winner() {
        let out = arena(&["replay", "--rules", "kalah:pits=1,seeds=1", "--json", "1"]);
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(v["over"], true);
        assert_eq!(v["score"], serde_json::json!({"south": 1, "north": 1}));
        assert_eq!(v["winner"], "draw");
    }

    #[test]
    fn replay_illegal_move_names_index_and_reason() {
        let out = arena(&["replay", "3", "3"]);
        assert_eq!(out.status.code(), Some(1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains("move 2"), "{err}");
        assert!(err.contains("empty"), "{err}");
        let out = arena(&["replay", "--rules", "kalah", "swap"]);
        assert_eq!(out.status.code(), Some(1));
        assert!(String::from_utf8_lossy(&out.stderr).contains("move 1"));
        let out = arena(&["replay", "--rules", "nope"]);
        assert_eq!(out.status.code(), Some(2));
    }

    #[test]
    fn replay_board_diagram() {
        let out = arena(&["replay", "--rules", "oware", "1"]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("north to move"), "{text}");
    }

    #[test]
    fn perft_small_depth() {
        let out = arena(&["perft", "--rules", "kalah", "--depth", "4"]);
        assert!(out.status.success());
        let text = String::from_utf8_lossy(&out.stdout);
        for n in ["6", "35", "185", "942"] {
            assert!(text.contains(&format!("nodes {n:>16}")), "{text}");
        }
    }
}

/// Found by the Python kit's cross-check (issue 16): South's first turn can end the game on a
/// tiny pie board; the state string then keeps `pie=offer` with `end=`, and must read back.
#[test]
fn a_first_turn_that_ends_a_pie_game_round_trips() {
    let r = rules("kalah:pits=1,seeds=7,pie=true");
    let mut p = Position::new(r);
    play_all(&mut p, &[1, 1]);
    assert!(p.is_over());
    let state = p.to_state_string();
    assert_eq!(state, "x/0/0/4.10/2/pie=offer/end=side_empty");
    assert_eq!(Position::from_state(r, &state).unwrap(), p);
    // With South still to move, an offer is still inconsistent.
    assert!(Position::from_state(r, "s/7/7/0.0/1/pie=offer").is_err());
}
