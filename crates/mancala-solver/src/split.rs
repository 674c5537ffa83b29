//! Splitting one solve into independent subproblems (a cluster's array jobs), and merging their
//! results into the root's exact value.
//!
//! The tree below the root is expanded to a fixed number of sows (an extra turn is a sow and
//! keeps the side); the positions reached are the *leaves*, each solved on its own (with the
//! shared read-only database), transpositions among them solved once. Finished games inside the
//! split tree are valued on the spot.
//!
//! Why a window: solving every leaf exactly costs far more than the root's search, which cuts
//! most of them. Instead the root gets the window `(g − 1, g + 1)` around a guess `g` of the
//! root's parity (every value has the parity of the seeds in the pits, so `g` is the only value
//! inside), every leaf the window its paths give it (the union over paths), and a leaf is
//! searched only until its value is exact or proven outside its window (MTD(f) stopped early).
//! Merging is negamax over `[lo, hi]` intervals; by induction over the tree, a node whose value
//! lies inside its window comes out exact, one below it gets `hi <= alpha`, one above
//! `lo >= beta`. So the root is exact when the guess was right, and otherwise a proven bound
//! that says which way to guess again. A full window (`guess = None`) makes every leaf exact.

use std::collections::HashMap;

use super::board::{BoardSpec, SBoard};

/// One subproblem: a position and the window it must be decided in.
#[derive(Clone, Debug, PartialEq)]
pub struct Leaf {
    pub board: SBoard,
    /// Exclusive window, from the leaf mover's view: solve until exact, `<= alpha` or `>= beta`.
    pub alpha: i32,
    pub beta: i32,
}

/// Where a sow of the split tree leads.
#[derive(Clone, Copy, Debug)]
enum To {
    Node(usize),
    Leaf(usize),
    Over,
}

#[derive(Clone, Copy, Debug)]
struct Edge {
    gain: i32,
    extra: bool,
    to: To,
}

/// The split of one root position; see the module docs.
#[derive(Clone, Debug)]
pub struct Split {
    pub root: SBoard,
    pub depth: usize,
    /// The root's exclusive window.
    pub alpha: i32,
    pub beta: i32,
    /// The root: a node, or a leaf when `depth` is 0.
    top: To,
    /// Interior nodes' sows.
    nodes: Vec<Vec<Edge>>,
    pub leaves: Vec<Leaf>,
}

impl Split {
    /// Expands `root` (a position with a legal move) `depth` sows deep. `guess`: the root value
    /// to prove (rounded up to the root's parity); `None` solves every leaf exactly.
    pub fn new(spec: &BoardSpec, root: SBoard, depth: usize, guess: Option<i32>) -> Split {
        let seeds = root.seeds();
        let (alpha, beta) = match guess {
            Some(g) => {
                let g = (g + (g - seeds).rem_euclid(2)).clamp(-seeds, seeds);
                (g - 1, g + 1)
            }
            None => (-seeds - 1, seeds + 1),
        };
        let mut split = Split {
            root,
            depth,
            alpha,
            beta,
            top: To::Over,
            nodes: Vec::new(),
            leaves: Vec::new(),
        };
        let mut index = HashMap::new();
        split.top = split.expand(spec, &root, depth, alpha, beta, &mut index);
        split
    }

    /// Adds the node of `b` (`left` sows still to expand, window `(alpha, beta)`) and returns
    /// where it is.
    fn expand(
        &mut self,
        spec: &BoardSpec,
        b: &SBoard,
        left: usize,
        alpha: i32,
        beta: i32,
        index: &mut HashMap<u128, usize>,
    ) -> To {
        if left == 0 {
            let at = *index.entry(b.key()).or_insert_with(|| {
                self.leaves.push(Leaf {
                    board: *b,
                    alpha,
                    beta,
                });
                self.leaves.len() - 1
            });
            let leaf = &mut self.leaves[at];
            leaf.alpha = leaf.alpha.min(alpha);
            leaf.beta = leaf.beta.max(beta);
            return To::Leaf(at);
        }
        let me = self.nodes.len();
        self.nodes.push(Vec::new());
        for i in 0..spec.pits {
            if b.c[i] == 0 {
                continue;
            }
            let s = b.sow(spec, i);
            let to = if s.over {
                To::Over
            } else if s.extra {
                self.expand(spec, &s.next, left - 1, alpha - s.gain, beta - s.gain, index)
            } else {
                self.expand(spec, &s.next, left - 1, s.gain - beta, s.gain - alpha, index)
            };
            self.nodes[me].push(Edge {
                gain: s.gain,
                extra: s.extra,
                to,
            });
        }
        To::Node(me)
    }

    /// The root's proven `[lo, hi]` from every leaf's `[lo, hi]` (in leaf order, each from its
    /// mover's view): exact when `lo == hi`.
    pub fn merge(&self, results: &[(i32, i32)]) -> (i32, i32) {
        assert_eq!(results.len(), self.leaves.len(), "one result per leaf");
        match self.top {
            To::Node(n) => self.value(n, results),
            To::Leaf(l) => results[l],
            To::Over => unreachable!("the root has a legal move"),
        }
    }

    fn value(&self, node: usize, results: &[(i32, i32)]) -> (i32, i32) {
        let mut best = (i32::MIN, i32::MIN);
        for e in &self.nodes[node] {
            let (lo, hi) = match e.to {
                To::Over => (e.gain, e.gain),
                To::Node(n) => self.edge(e, self.value(n, results)),
                To::Leaf(l) => self.edge(e, results[l]),
            };
            best = (best.0.max(lo), best.1.max(hi));
        }
        best
    }

    /// A sow's value interval from its child's.
    fn edge(&self, e: &Edge, (lo, hi): (i32, i32)) -> (i32, i32) {
        if e.extra {
            (e.gain + lo, e.gain + hi)
        } else {
            (e.gain - hi, e.gain - lo)
        }
    }

    /// Whether `(lo, hi)` decides `leaf`: exact, or proven outside its window.
    pub fn decided(leaf: &Leaf, (lo, hi): (i32, i32)) -> bool {
        lo == hi || lo >= leaf.beta || hi <= leaf.alpha
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{minimax, Solver};
    use mancala_rules::Ruleset;

    fn spec(rules: &str) -> BoardSpec {
        BoardSpec::from_ruleset(&rules.parse::<Ruleset>().unwrap()).unwrap()
    }

    /// Solves every leaf within its window with a fresh solver (as separate jobs would) and
    /// merges.
    fn split_value(sp: &BoardSpec, root: SBoard, depth: usize, guess: Option<i32>) -> (i32, i32) {
        let split = Split::new(sp, root, depth, guess);
        let results: Vec<(i32, i32)> = split
            .leaves
            .iter()
            .map(|l| {
                let mut s = Solver::new(*sp, 1, None);
                let r = s
                    .bounds_within(&l.board, l.alpha, l.beta, 0, &mut |_| false)
                    .unwrap();
                assert!(Split::decided(l, r), "leaf not decided: {r:?} in {l:?}");
                r
            })
            .collect();
        split.merge(&results)
    }

    #[test]
    fn split_solves_agree_with_plain_minimax() {
        // Kalah(3,2) (+4) and Kalah(2,3) with empty capture (−2), by plain minimax at the root;
        // every depth, guesses right, too low, too high, and none.
        for rules in ["kalah:pits=3,seeds=2", "kalah:pits=2,seeds=3,empty_capture=true"] {
            let sp = spec(rules);
            let seeds = rules.split("seeds=").nth(1).unwrap()[..1].parse().unwrap();
            let root = sp.start(seeds);
            let v = minimax(&sp, &root);
            for depth in 0..=5 {
                assert_eq!(split_value(&sp, root, depth, None), (v, v), "{rules} depth {depth}");
                assert_eq!(split_value(&sp, root, depth, Some(v)), (v, v));
                let (lo, _) = split_value(&sp, root, depth, Some(v - 2));
                assert!(lo >= v - 1 && lo <= v, "{rules} depth {depth}: guess low, lo {lo}");
                let (_, hi) = split_value(&sp, root, depth, Some(v + 2));
                assert!(hi <= v + 1 && hi >= v, "{rules} depth {depth}: guess high, hi {hi}");
            }
        }
    }

    #[test]
    fn transpositions_among_leaves_are_one_leaf() {
        let sp = spec("kalah:pits=4,seeds=3");
        let split = Split::new(&sp, sp.start(3), 4, None);
        let mut keys: Vec<u128> = split.leaves.iter().map(|l| l.board.key()).collect();
        keys.sort_unstable();
        keys.dedup();
        assert_eq!(keys.len(), split.leaves.len());
    }
}
