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
                self.expand(
                    spec,
                    &s.next,
                    left - 1,
                    alpha - s.gain,
                    beta - s.gain,
                    index,
                )
            } else {
                self.expand(
                    spec,
                    &s.next,
                    left - 1,
                    s.gain - beta,
                    s.gain - alpha,
                    index,
                )
            };
            self.nodes[me].push(Edge {
                gain: s.gain,
                extra: s.extra,
                to,
            });
        }
        To::Node(me)
    }

    /// The root's proven `[lo, hi]` from the leaves' results so far (in leaf order, each from
    /// its mover's view; `None`: not solved, bounded by its seeds). Exact when `lo == hi`;
    /// decided (see [`Split::root_decided`]) once every needed leaf is solved.
    pub fn merge(&self, results: &[Option<(i32, i32)>]) -> (i32, i32) {
        self.interval(self.top, &self.intervals(results), results)
    }

    /// Whether the root's bounds `(lo, hi)` answer the split: exact, or outside its window.
    pub fn root_decided(&self, (lo, hi): (i32, i32)) -> bool {
        lo == hi || lo >= self.beta || hi <= self.alpha
    }

    /// The leaves that can still change the root's bounds' decision: not solved, and below no
    /// decided node (exact, or proven outside its window) on some path. Why: once a sibling
    /// refutes a move, the other replies need no search (the cutoffs a single alpha-beta gets);
    /// a node only ever becomes more decided as results come in, so a leaf once not needed
    /// stays so.
    pub fn needed(&self, results: &[Option<(i32, i32)>]) -> Vec<bool> {
        let nodes = self.intervals(results);
        let mut need = vec![false; self.leaves.len()];
        self.mark(self.top, self.alpha, self.beta, &nodes, results, &mut need);
        need
    }

    /// Every interior node's `[lo, hi]` (children come after their parent, so backwards).
    fn intervals(&self, results: &[Option<(i32, i32)>]) -> Vec<(i32, i32)> {
        assert_eq!(results.len(), self.leaves.len(), "one result per leaf");
        let mut out = vec![(0, 0); self.nodes.len()];
        for n in (0..self.nodes.len()).rev() {
            let mut best = (i32::MIN, i32::MIN);
            for e in &self.nodes[n] {
                let (lo, hi) = self.edge(e, self.interval(e.to, &out, results));
                best = (best.0.max(lo), best.1.max(hi));
            }
            out[n] = best;
        }
        out
    }

    /// The `[lo, hi]` of what `to` leads to, from its mover's view.
    fn interval(&self, to: To, nodes: &[(i32, i32)], results: &[Option<(i32, i32)>]) -> (i32, i32) {
        match to {
            To::Node(n) => nodes[n],
            To::Leaf(l) => results[l].unwrap_or_else(|| {
                let s = self.leaves[l].board.seeds();
                (-s, s)
            }),
            To::Over => (0, 0),
        }
    }

    fn mark(
        &self,
        to: To,
        alpha: i32,
        beta: i32,
        nodes: &[(i32, i32)],
        results: &[Option<(i32, i32)>],
        need: &mut [bool],
    ) {
        match to {
            To::Over => {}
            To::Leaf(l) => need[l] |= results[l].is_none(),
            To::Node(n) => {
                let (lo, hi) = nodes[n];
                if lo == hi || lo >= beta || hi <= alpha {
                    return;
                }
                for e in &self.nodes[n] {
                    let (a, b) = if e.extra {
                        (alpha - e.gain, beta - e.gain)
                    } else {
                        (e.gain - beta, e.gain - alpha)
                    };
                    self.mark(e.to, a, b, nodes, results, need);
                }
            }
        }
    }

    /// A sow's value interval from its child's (a finished game: its gain).
    fn edge(&self, e: &Edge, (lo, hi): (i32, i32)) -> (i32, i32) {
        match e.to {
            To::Over => (e.gain, e.gain),
            _ if e.extra => (e.gain + lo, e.gain + hi),
            _ => (e.gain - hi, e.gain - lo),
        }
    }

    /// Whether `(lo, hi)` decides `leaf`: exact, or proven outside its window.
    pub fn decided(leaf: &Leaf, (lo, hi): (i32, i32)) -> bool {
        lo == hi || lo >= leaf.beta || hi <= leaf.alpha
    }
}

/// Most subproblems a split may have: each is a result file in the plan folder, and every step
/// rebuilds the whole split and reads the folder's results.
pub const MAX_LEAVES: u64 = 100_000;

/// Most memory a split's tree may take (bytes): interior nodes at [`NODE_BYTES`], leaves at
/// [`LEAF_BYTES`].
pub const MAX_SPLIT_BYTES: u64 = 1 << 30;

/// Bytes an interior node of the split holds: its edge list (a vector grown to 8 edges of 24
/// bytes, with the allocator's header) and its slot in the node list.
pub const NODE_BYTES: u64 = 256;

/// Bytes a leaf holds: the [`Leaf`], its entry in the transposition index and their growth.
pub const LEAF_BYTES: u64 = 100;

/// The size of a split, counted before it is made.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SplitSize {
    /// Subproblems: distinct positions `depth` sows below the root.
    pub leaves: u64,
    /// Interior nodes: the paths shorter than `depth` (the split tree is not merged above its
    /// leaves).
    pub nodes: u64,
}

impl SplitSize {
    /// Memory the split's tree takes (bytes, from [`NODE_BYTES`] and [`LEAF_BYTES`]).
    pub fn bytes(&self) -> u64 {
        self.nodes
            .saturating_mul(NODE_BYTES)
            .saturating_add(self.leaves.saturating_mul(LEAF_BYTES))
    }

    fn fits(&self) -> bool {
        self.leaves <= MAX_LEAVES && self.bytes() <= MAX_SPLIT_BYTES
    }
}

/// A split too large to make: what it would hold, and the largest depth that fits.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TooBig {
    pub depth: usize,
    /// The deepest level counted whole, and its size; the count stopped at the next level.
    pub counted: usize,
    pub size: SplitSize,
    /// Whether the level `counted` was counted whole (else it stopped past [`MAX_LEAVES`]).
    pub whole: bool,
    /// The subproblems `depth` sows deep, extrapolated from the growth of the counted levels
    /// (a lower bound when the count stopped at `depth` itself).
    pub leaves_about: u64,
    /// The largest depth whose split fits (0: the unsplit root).
    pub fits: usize,
}

impl std::fmt::Display for TooBig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "--split {}: a split {} sows deep would have ",
            self.depth, self.depth
        )?;
        if self.counted == self.depth {
            if self.whole {
                write!(f, "{} subproblems", self.size.leaves)?;
            } else {
                write!(f, "more than {MAX_LEAVES} subproblems")?;
            }
        } else {
            let more = if self.whole { "" } else { "more than " };
            let already = if self.whole {
                self.size.leaves
            } else {
                MAX_LEAVES
            };
            write!(
                f,
                "about {:.1e} subproblems ({more}{already} already {} sows deep)",
                self.leaves_about as f64, self.counted
            )?;
        }
        write!(
            f,
            "; a plan holds at most {MAX_LEAVES} subproblems and {} MiB of split tree; \
             the largest depth that fits is {}",
            MAX_SPLIT_BYTES >> 20,
            self.fits
        )
    }
}

impl std::error::Error for TooBig {}

impl Split {
    /// Counts the split of `root` `depth` sows deep without making it, level by level over
    /// distinct positions with their number of paths (so in the memory of one level, itself
    /// bounded by [`MAX_LEAVES`]), and refuses one that would not fit. Why: the tree grows
    /// about sixfold a sow, and making a split of depth 12 took 3 GiB before saying anything.
    pub fn check_size(spec: &BoardSpec, root: SBoard, depth: usize) -> Result<SplitSize, TooBig> {
        let mut level: HashMap<u128, u64> = HashMap::from([(root.key(), 1)]);
        let mut nodes = 0u64;
        let mut fits = 0;
        let mut counts: Vec<u64> = vec![1];
        for d in 1..=depth {
            // Every path to a position of the level above is an interior node of the tree.
            nodes = nodes.saturating_add(level.values().sum::<u64>());
            let mut next: HashMap<u128, u64> = HashMap::new();
            let mut stopped = false;
            'level: for (&key, &paths) in &level {
                let b = SBoard::from_key(key);
                for i in 0..spec.pits {
                    if b.c[i] == 0 {
                        continue;
                    }
                    let s = b.sow(spec, i);
                    if s.over {
                        continue;
                    }
                    let n = next.entry(s.next.key()).or_insert(0);
                    *n = n.saturating_add(paths);
                    if next.len() as u64 > MAX_LEAVES {
                        stopped = true;
                        break 'level;
                    }
                }
            }
            let size = SplitSize {
                leaves: next.len() as u64,
                nodes,
            };
            if stopped || !size.fits() {
                // The growth of the last whole levels, carried on to `depth`.
                let (last, before) = (size.leaves as f64, counts[counts.len() - 1] as f64);
                let growth = (last / before.max(1.0)).max(1.0);
                let about = last * growth.powi((depth - d) as i32);
                return Err(TooBig {
                    depth,
                    counted: d,
                    size,
                    whole: !stopped,
                    leaves_about: about.min(u64::MAX as f64) as u64,
                    fits,
                });
            }
            counts.push(size.leaves);
            fits = d;
            level = next;
        }
        Ok(SplitSize {
            leaves: level.len() as u64,
            nodes,
        })
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

    /// Solves the needed leaves within their windows, each with a fresh solver (as separate
    /// jobs would), in leaf order, and merges.
    fn split_value(sp: &BoardSpec, root: SBoard, depth: usize, guess: Option<i32>) -> (i32, i32) {
        let split = Split::new(sp, root, depth, guess);
        let mut results = vec![None; split.leaves.len()];
        for i in 0..split.leaves.len() {
            if !split.needed(&results)[i] {
                continue;
            }
            let l = &split.leaves[i];
            let mut s = Solver::new(*sp, 1, None);
            let r = s
                .bounds_within(&l.board, l.alpha, l.beta, 0, &mut |_| false)
                .unwrap();
            assert!(Split::decided(l, r), "leaf not decided: {r:?} in {l:?}");
            results[i] = Some(r);
        }
        assert!(split.needed(&results).iter().all(|&n| !n));
        let root = split.merge(&results);
        assert!(split.root_decided(root), "{root:?}");
        root
    }

    #[test]
    fn split_solves_agree_with_plain_minimax() {
        // Kalah(3,2) (+4) and Kalah(2,3) with empty capture (−2), by plain minimax at the root;
        // every depth, guesses right, too low, too high, and none.
        for rules in [
            "kalah:pits=3,seeds=2",
            "kalah:pits=2,seeds=3,empty_capture=true",
        ] {
            let sp = spec(rules);
            let seeds = rules.split("seeds=").nth(1).unwrap()[..1].parse().unwrap();
            let root = sp.start(seeds);
            let v = minimax(&sp, &root);
            for depth in 0..=5 {
                assert_eq!(
                    split_value(&sp, root, depth, None),
                    (v, v),
                    "{rules} depth {depth}"
                );
                assert_eq!(split_value(&sp, root, depth, Some(v)), (v, v));
                let (lo, _) = split_value(&sp, root, depth, Some(v - 2));
                assert!(
                    lo >= v - 1 && lo <= v,
                    "{rules} depth {depth}: guess low, lo {lo}"
                );
                let (_, hi) = split_value(&sp, root, depth, Some(v + 2));
                assert!(
                    hi <= v + 1 && hi >= v,
                    "{rules} depth {depth}: guess high, hi {hi}"
                );
            }
        }
    }

    /// The count made before a split agrees with the split it counts, and a split too large
    /// is refused with its size and the largest depth that fits (Kalah(6,4): 6, 35 and 185
    /// subproblems at depths 1–3, docs/solved.md).
    #[test]
    fn a_split_is_counted_before_it_is_made() {
        let sp = spec("kalah");
        let root = sp.start(4);
        for depth in 0..=4 {
            let size = Split::check_size(&sp, root, depth).unwrap();
            let split = Split::new(&sp, root, depth, Some(8));
            assert_eq!(size.leaves, split.leaves.len() as u64, "depth {depth}");
            assert_eq!(size.nodes, split.nodes.len() as u64, "depth {depth}");
        }
        let leaves = |d| Split::check_size(&sp, root, d).unwrap().leaves;
        assert_eq!((leaves(1), leaves(2), leaves(3)), (6, 35, 185));
        let err = Split::check_size(&sp, root, 12).unwrap_err();
        assert!(err.fits >= 3 && err.fits < 12, "{err:?}");
        assert!(Split::check_size(&sp, root, err.fits).is_ok());
        assert!(err.leaves_about > MAX_LEAVES, "{err:?}");
        let text = err.to_string();
        assert!(
            text.starts_with("--split 12: a split 12 sows deep would have about ")
                && text.contains(&format!("the largest depth that fits is {}", err.fits)),
            "{text}"
        );
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

    #[test]
    fn a_refuted_move_needs_no_more_replies() {
        // Kalah(3,2) is +4: with the guess +4, once one reply holds a bad first move below its
        // window, that move's other replies are not needed; and all leaves solved is a superset.
        let sp = spec("kalah:pits=3,seeds=2");
        let split = Split::new(&sp, sp.start(2), 2, Some(4));
        let mut results = vec![None; split.leaves.len()];
        let mut solved = 0;
        for i in 0..split.leaves.len() {
            if split.needed(&results)[i] {
                let l = &split.leaves[i];
                let mut s = Solver::new(sp, 1, None);
                results[i] = s.bounds_within(&l.board, l.alpha, l.beta, 0, &mut |_| false);
                solved += 1;
            }
        }
        assert!(
            solved < split.leaves.len(),
            "{solved} of {}",
            split.leaves.len()
        );
        assert_eq!(split.merge(&results), (4, 4));
    }
}
