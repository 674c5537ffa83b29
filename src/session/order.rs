//! Decisions in a fixed order (docs/tournament.md, "Decisions in pair order"). Games finish in
//! whatever order the machine lets them, and the games under way when a test decides still
//! finish after it. An observer that decides (the SPRT's stop, a gate level's verdict) therefore
//! takes completed pairs in pair-id order only: pair `p` is handed on once every pair before it
//! is in (or will never come), and nothing that finishes later can change a decision taken at an
//! earlier pair. So the verdict, the exit code and the files that record it are a function of
//! the games' results alone, never of their finishing order. Pure.

use std::collections::{BTreeMap, HashMap};

/// Completed game pairs, handed on in pair-id order.
///
/// Each game is given with the half points (0, 1 or 2) of the player the observer follows and
/// `T`, what the observer wants to know of the pair (a gate's level and reference player); a
/// pair is complete with its second game.
#[derive(Debug)]
pub struct PairOrder<T> {
    /// The next pair id to hand on.
    next: u64,
    /// Pairs with one game in: its half points and `T`.
    open: HashMap<u64, (u8, T)>,
    /// Complete pairs not handed on yet: both games' half points (0..=4) and `T`.
    ready: BTreeMap<u64, (u8, T)>,
}

impl<T> Default for PairOrder<T> {
    fn default() -> Self {
        PairOrder {
            next: 0,
            open: HashMap::new(),
            ready: BTreeMap::new(),
        }
    }
}

/// A completed pair as it is handed on.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Pair<T> {
    pub id: u64,
    /// The followed player's half points in the pair's two games, 0..=4.
    pub half_points: u8,
    pub info: T,
}

impl<T> PairOrder<T> {
    /// A game of pair `pair` in which the followed player scored `half` half points (0, 1 or
    /// 2). A pair already handed on or passed over is left alone (a game of a pair a decision
    /// skipped).
    pub fn game(&mut self, pair: u64, half: u8, info: T) {
        if pair < self.next || self.ready.contains_key(&pair) {
            return;
        }
        match self.open.remove(&pair) {
            Some((first, info)) => {
                self.ready.insert(pair, (first + half.min(2), info));
            }
            None => {
                self.open.insert(pair, (half.min(2), info));
            }
        }
    }

    /// The next pair in order, if it is complete. Pairs for which `absent` holds (pairs that
    /// will never come, or whose result no longer matters: another encounter's, a decided
    /// level's) are passed over, and a game of theirs already in is dropped.
    pub fn next(&mut self, absent: impl Fn(u64) -> bool) -> Option<Pair<T>> {
        loop {
            if let Some((half_points, info)) = self.ready.remove(&self.next) {
                let id = self.next;
                self.next += 1;
                return Some(Pair {
                    id,
                    half_points,
                    info,
                });
            }
            if !absent(self.next) {
                return None;
            }
            self.open.remove(&self.next);
            self.next += 1;
        }
    }

    /// The complete pairs left, in order, passing over the gaps: for the end of a run that
    /// played everything it could (a gap is then a pair that was never played, as a dropped
    /// player's).
    pub fn rest(&mut self) -> Vec<Pair<T>> {
        let rest = std::mem::take(&mut self.ready);
        self.open.clear();
        if let Some((&last, _)) = rest.iter().next_back() {
            self.next = last + 1;
        }
        rest.into_iter()
            .map(|(id, (half_points, info))| Pair {
                id,
                half_points,
                info,
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ids<T>(pairs: &[Pair<T>]) -> Vec<u64> {
        pairs.iter().map(|p| p.id).collect()
    }

    #[test]
    fn pairs_come_out_in_order_whatever_order_their_games_finish_in() {
        let mut order = PairOrder::default();
        let mut out = Vec::new();
        // Games of pairs 2, 1, 0, 3 (its first only), in a scrambled order.
        for (pair, half) in [(2, 2), (1, 0), (2, 1), (0, 2), (1, 1), (3, 2), (0, 2)] {
            order.game(pair, half, ());
            while let Some(p) = order.next(|_| false) {
                out.push(p);
            }
        }
        assert_eq!(ids(&out), [0, 1, 2]);
        let halves: Vec<u8> = out.iter().map(|p| p.half_points).collect();
        assert_eq!(halves, [4, 1, 3]);
        // Pair 3 is not complete: nothing is left to hand on.
        assert!(order.rest().is_empty());
    }

    #[test]
    fn a_pair_waits_for_every_earlier_one() {
        let mut order = PairOrder::default();
        for half in [1, 1] {
            order.game(1, half, "b");
        }
        assert_eq!(order.next(|_| false), None);
        order.game(0, 2, "a");
        assert_eq!(order.next(|_| false), None, "pair 0 has one game in");
        order.game(0, 0, "a");
        let first = order.next(|_| false).unwrap();
        assert_eq!((first.id, first.half_points, first.info), (0, 2, "a"));
        assert_eq!(order.next(|_| false).map(|p| p.id), Some(1));
    }

    #[test]
    fn absent_pairs_are_passed_over_and_their_games_dropped() {
        let mut order = PairOrder::default();
        // Pair 1 belongs to a level that is decided: its game in flight comes in anyway.
        order.game(1, 2, 'x');
        order.game(2, 2, 'y');
        order.game(2, 2, 'y');
        order.game(0, 0, 'z');
        order.game(0, 0, 'z');
        let absent = |p: u64| p == 1;
        assert_eq!(order.next(absent).map(|p| p.id), Some(0));
        assert_eq!(order.next(absent).map(|p| p.id), Some(2));
        // The second game of pair 1, late: it stays passed over.
        order.game(1, 2, 'x');
        order.game(1, 2, 'x');
        assert_eq!(order.next(|_| false), None);
        assert!(order.rest().is_empty());
    }

    #[test]
    fn the_rest_passes_over_the_gaps_in_order() {
        let mut order = PairOrder::default();
        for pair in [5, 3, 3, 5] {
            order.game(pair, 1, ());
        }
        assert_eq!(order.next(|_| false), None);
        assert_eq!(ids(&order.rest()), [3, 5]);
        // After the rest, a late game of an earlier pair is left alone.
        order.game(4, 1, ());
        order.game(4, 1, ());
        assert_eq!(order.next(|_| false), None);
    }
}
