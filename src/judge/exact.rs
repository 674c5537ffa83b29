//! One sow judged exactly: its loss against perfect play, and an optimal sow, both proven.

use crate::run_folder::mistakes::Verdict;
use crate::solver::{SBoard, Solver};

/// The exact verdict on sowing pit `i` (0-based) in `b`, or `None` when a search ran out of
/// its `budget` of nodes.
///
/// Why two exact values and no move tests: the loss is `v(b) − (gain ± v(child))`, and the
/// child is the game's next position, which the next sow needs exactly anyway; the TT (or the
/// value cache) answers it there at once. So each position of a game is proven once. The
/// optimal pit of a losing sow is the solver's proven one ([`Solver::optimal_move`]): the
/// TT's move alone may be the best of bounds only.
pub fn sow_verdict(solver: &mut Solver, b: &SBoard, i: usize, budget: u64) -> Option<Verdict> {
    let start = solver.nodes;
    let mut abort = |n: u64| n - start > budget;
    let v = solver.solve(b, 0, &mut abort)?;
    let s = b.sow(&solver.spec(), i);
    let played = if s.over {
        s.gain
    } else if s.extra {
        // First guess: the child's value if this sow was optimal.
        s.gain + solver.solve(&s.next, v - s.gain, &mut abort)?
    } else {
        s.gain - solver.solve(&s.next, s.gain - v, &mut abort)?
    };
    let loss = v - played;
    debug_assert!(loss >= 0, "a sow worth more than the position");
    let best = if loss == 0 {
        Some(i)
    } else {
        solver.optimal_move(b, v, &mut abort)
    };
    Some(Verdict {
        value: v,
        loss,
        best: best.map(|m| m as u8 + 1),
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::Ruleset;
    use crate::solver::{BoardSpec, Db};
    use rand::{Rng, SeedableRng};

    fn board(spec: &BoardSpec, mine: &[u8], theirs: &[u8]) -> SBoard {
        let mut b = SBoard::default();
        b.c[..spec.pits].copy_from_slice(mine);
        b.c[8..8 + spec.pits].copy_from_slice(theirs);
        b
    }

    /// Kalah with 2 pits a side, worked by hand. Mover [1, 1], opponent [0, 1]:
    /// - pit 2 into the store (+1), an extra turn on [1, 0]; pit 1 then lands in the empty pit
    ///   2 opposite the opponent's empty pit 1: no capture; the opponent's only sow puts its
    ///   seed in its store (+1 for it) and empties its side, so the mover sweeps its 1 (−1 for
    ///   it): the opponent gains 0, the mover +1 in all;
    /// - pit 1 into pit 2 (now 2 seeds); the opponent's seed into its store ends the game and
    ///   the mover sweeps 2: the opponent gains 1 − 2 = −1, the mover +1.
    ///
    /// Both keep +1: neither is a mistake, and each is its own optimal pit.
    #[test]
    fn a_hand_worked_position_with_two_optimal_sows() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(2, 1)).unwrap();
        let b = board(&spec, &[1, 1], &[0, 1]);
        let mut solver = Solver::new(spec, 1, None);
        for pit in [0, 1] {
            let v = sow_verdict(&mut solver, &b, pit, u64::MAX).unwrap();
            assert_eq!(
                v,
                Verdict {
                    value: 1,
                    loss: 0,
                    best: Some(pit as u8 + 1)
                }
            );
        }
    }

    /// Mover [2, 0], opponent [0, 3] (2 pits a side): pit 1 sows into pit 2 and the store (+1,
    /// an extra turn); pit 2 into the store (+1) empties the mover's side and the opponent
    /// sweeps its 3: 1 + 1 − 3 = −1, the only line. Mover [1, 2], opponent [2, 1]: its
    /// two sows' losses are checked against plain minimax.
    #[test]
    fn a_forced_line_loses_nothing_and_losses_match_minimax() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(2, 1)).unwrap();
        let mut solver = Solver::new(spec, 1, None);
        let b = board(&spec, &[2, 0], &[0, 3]);
        let v = sow_verdict(&mut solver, &b, 0, u64::MAX).unwrap();
        assert_eq!((v.value, v.loss, v.best), (-1, 0, Some(1)));
        let b = board(&spec, &[1, 2], &[2, 1]);
        let value = crate::solver::minimax(&spec, &b);
        for pit in [0, 1] {
            let v = sow_verdict(&mut solver, &b, pit, u64::MAX).unwrap();
            assert_eq!(v.value, value);
            let s = b.sow(&spec, pit);
            let played = if s.over {
                s.gain
            } else if s.extra {
                s.gain + crate::solver::minimax(&spec, &s.next)
            } else {
                s.gain - crate::solver::minimax(&spec, &s.next)
            };
            assert_eq!(v.loss, value - played);
        }
    }

    /// Along random Kalah(4,3) games judged by one solver whose TT carries over (as in
    /// `arena analyse`), every verdict agrees with the whole-game database (built and checked
    /// against plain recursion by the solver's tests): the value, the loss, and the optimal pit
    /// given for a losing sow keeps the value. The TT's move alone (the old rule) was not
    /// optimal at some of these positions.
    #[test]
    fn losing_sows_get_a_proven_optimal_pit() {
        let rules = Ruleset::kalah(4, 3);
        let spec = BoardSpec::from_ruleset(&rules).unwrap();
        let db = Db::build(spec, 24);
        let value = |b: &SBoard| db.get(b, b.seeds()).unwrap();
        let sow_value = |b: &SBoard, m: usize| {
            let s = b.sow(&spec, m);
            if s.over {
                s.gain
            } else if s.extra {
                s.gain + value(&s.next)
            } else {
                s.gain - value(&s.next)
            }
        };
        let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(1);
        let mut solver = Solver::new(spec, 16, None);
        let mut losing = 0;
        for _ in 0..400 {
            let mut b = spec.start(3);
            loop {
                let moves: Vec<usize> = (0..4).filter(|&i| b.c[i] != 0).collect();
                let i = moves[rng.gen_range(0..moves.len())];
                let v = sow_verdict(&mut solver, &b, i, u64::MAX).unwrap();
                assert_eq!(v.value, value(&b), "{b:?}");
                assert_eq!(v.loss, value(&b) - sow_value(&b, i), "{b:?} pit {i}");
                let best = v.best.expect("a proven optimal pit") as usize - 1;
                assert_eq!(
                    sow_value(&b, best),
                    v.value,
                    "{b:?}: pit {} given",
                    best + 1
                );
                losing += usize::from(v.loss > 0);
                let s = b.sow(&spec, i);
                if s.over {
                    break;
                }
                b = s.next;
            }
        }
        assert!(losing > 1000, "{losing} losing sows");
    }
}
