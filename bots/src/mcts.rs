//! `mcts`: UCT (Monte Carlo tree search with UCB1) and uniformly random playouts: a player
//! that samples whole games instead of evaluating positions, so its mistakes differ from the
//! alpha-beta bot's (docs/bots.md).
//!
//! - A node's statistics are kept from the view of the player who made the move into it (the
//!   player to move in its parent), so selection at any node maximises the mean reward of the
//!   player choosing there. Extra turns need no special case: the parent of an extra-turn sow has
//!   the same player to move as the child. Players are named by their seat before any pie-rule
//!   `swap` ([`State::mover_player`]), and each playout's result is credited by seat at its end.
//! - Rewards are in [0, 1]: win 1, draw 0.5, loss 0; UCB1 with exploration constant
//!   `Exploration` (default √2); unvisited children first, in move order.
//! - Each iteration expands all children of the leaf it reaches and plays out from one of them;
//!   the playout picks uniformly among the legal moves until the game ends (the sow cap bounds
//!   it).
//! - The move played is the most visited root child. `info score` is the mean final store
//!   difference of that child's playouts (a rough estimate in seeds).
//!
//! Budget: `Iterations` playouts per move when `go` gives no limit; `go nodes N` means N
//! playouts; `movetime` / `time`+`inc` and `stop` end the search early (checked every 64
//! playouts). No tree is kept between moves.

use std::time::Duration;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use mancala_protocol::{Info, OptionDecl, OptionKind, Score};
use mancala_rules::{Move, Position, Ruleset, Side};

use crate::engine_loop::{Bot, Search};
use crate::state::{with_state, State, WithState};

/// Default playouts per move.
pub const DEFAULT_ITERATIONS: u64 = 20_000;
/// The tree stops growing at this many nodes (about 100 MB); playouts go on.
const MAX_NODES: usize = 2_000_000;

struct Node {
    mv: Move,
    /// Index of the first child; children are contiguous.
    first: u32,
    children: u8,
    expanded: bool,
    visits: u32,
    /// Sum of rewards for the player who moved into this node.
    reward: f64,
    /// Sum of final store differences for that player.
    diff: i64,
}

impl Node {
    fn new(mv: Move) -> Node {
        Node {
            mv,
            first: 0,
            children: 0,
            expanded: false,
            visits: 0,
            reward: 0.0,
            diff: 0,
        }
    }
}

/// The search settings.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    pub iterations: u64,
    pub exploration: f64,
}

/// The result of [`search`].
#[derive(Clone, Debug)]
pub struct Outcome {
    pub best: Move,
    pub iterations: u64,
    /// Visits of each root move.
    pub visits: Vec<(Move, u32)>,
}

struct Run<'x, 'a> {
    settings: Settings,
    rng: &'x mut ChaCha8Rng,
    search: &'x mut Search<'a>,
}

/// Reward for `player` (pre-swap seat) of the finished game `end`, and their store difference.
fn reward<S: State>(end: &S, player: Side) -> (f64, i32) {
    let seat = end.seat_of(player);
    let d = end.store_diff(seat);
    let r = match d.cmp(&0) {
        std::cmp::Ordering::Greater => 1.0,
        std::cmp::Ordering::Equal => 0.5,
        std::cmp::Ordering::Less => 0.0,
    };
    (r, d)
}

impl WithState for Run<'_, '_> {
    type Output = Outcome;
    fn run<S: State>(self, root: S) -> Outcome {
        let Run {
            settings,
            rng,
            search,
        } = self;
        let budget: Option<Duration> = search.time_budget();
        let limit = search.limits.nodes.unwrap_or(settings.iterations).max(1);
        let limit = if search.limits.infinite && search.limits.nodes.is_none() {
            u64::MAX
        } else {
            limit
        };
        let mut tree: Vec<Node> = vec![Node::new(Move::Pit(1))];
        // (node, player who moved into it)
        let mut path: Vec<(usize, Side)> = Vec::with_capacity(256);
        let mut done = 0u64;
        let mut max_depth = 0usize;
        while done < limit {
            if done % 64 == 0 && done > 0 && (search.stopped() || search.out_of_time(budget)) {
                break;
            }
            let mut pos = root.clone();
            let mut node = 0usize;
            path.clear();
            // Selection.
            while tree[node].expanded && tree[node].children > 0 {
                let parent_visits = tree[node].visits.max(1) as f64;
                let ln = parent_visits.ln();
                let first = tree[node].first as usize;
                let mut best = first;
                let mut best_u = f64::NEG_INFINITY;
                let n = tree[node].children as usize;
                for (c, ch) in tree[first..first + n].iter().enumerate() {
                    let u = if ch.visits == 0 {
                        f64::INFINITY
                    } else {
                        ch.reward / ch.visits as f64
                            + settings.exploration * (ln / ch.visits as f64).sqrt()
                    };
                    if u > best_u {
                        best_u = u;
                        best = first + c;
                    }
                }
                let player = pos.mover_player().unwrap_or(Side::South);
                pos.play(tree[best].mv);
                path.push((best, player));
                node = best;
            }
            // Expansion.
            if pos.mover().is_some() && !tree[node].expanded && tree.len() < MAX_NODES {
                let moves = pos.moves();
                tree[node].first = tree.len() as u32;
                tree[node].children = moves.len() as u8;
                tree[node].expanded = true;
                for &mv in moves.iter() {
                    tree.push(Node::new(mv));
                }
                let pick = tree[node].first as usize + rng.gen_range(0..moves.len());
                let player = pos.mover_player().unwrap_or(Side::South);
                pos.play(tree[pick].mv);
                path.push((pick, player));
            }
            max_depth = max_depth.max(path.len());
            // Playout.
            while pos.mover().is_some() {
                let moves = pos.moves();
                let mv = moves[rng.gen_range(0..moves.len())];
                pos.play(mv);
            }
            // Backpropagation.
            tree[0].visits += 1;
            for &(n, player) in &path {
                let (r, d) = reward(&pos, player);
                let node = &mut tree[n];
                node.visits += 1;
                node.reward += r;
                node.diff += d as i64;
            }
            done += 1;
        }
        let first = tree[0].first as usize;
        let kids = &tree[first..first + tree[0].children as usize];
        let best = kids
            .iter()
            .enumerate()
            .max_by_key(|&(i, k)| (k.visits, std::cmp::Reverse(i)))
            .map(|(_, k)| k);
        let fallback = root.moves().first().copied().unwrap_or(Move::Pit(1));
        let ms = search.started.elapsed().as_millis() as u64;
        if let Some(b) = best {
            let score = if b.visits > 0 {
                (b.diff as f64 / b.visits as f64).round() as i32
            } else {
                0
            };
            search.info(&Info {
                depth: Some(1),
                seldepth: Some(max_depth as u32),
                score: Some(Score::Seeds(score)),
                nodes: Some(done),
                nps: Some(done * 1000 / ms.max(1)),
                time: Some(ms),
                pv: vec![b.mv],
                string: Some(format!("win rate {:.3}", b.reward / b.visits.max(1) as f64)),
            });
        }
        Outcome {
            best: best.map_or(fallback, |b| b.mv),
            iterations: done,
            visits: kids.iter().map(|k| (k.mv, k.visits)).collect(),
        }
    }
}

/// Runs UCT on `pos` (see the module docs).
pub fn search(
    pos: &Position,
    settings: Settings,
    rng: &mut ChaCha8Rng,
    search: &mut Search<'_>,
) -> Outcome {
    with_state(
        pos,
        Run {
            settings,
            rng,
            search,
        },
    )
}

/// The MCTS bot with its options.
pub struct MctsBot {
    iterations: u64,
    exploration: f64,
    rng: ChaCha8Rng,
}

impl Default for MctsBot {
    fn default() -> Self {
        MctsBot {
            iterations: DEFAULT_ITERATIONS,
            exploration: std::f64::consts::SQRT_2,
            rng: ChaCha8Rng::seed_from_u64(0),
        }
    }
}

impl Bot for MctsBot {
    fn name(&self) -> String {
        format!("mcts {}", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<OptionDecl> {
        vec![
            OptionDecl {
                name: "Iterations".into(),
                kind: OptionKind::Spin {
                    default: DEFAULT_ITERATIONS as i64,
                    min: 1,
                    max: 100_000_000,
                },
            },
            OptionDecl {
                name: "Exploration".into(),
                kind: OptionKind::String {
                    default: "1.41421356".into(),
                },
            },
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name.to_ascii_lowercase().as_str() {
            "iterations" => {
                self.iterations = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|n| (1..=100_000_000).contains(n))
                    .ok_or_else(|| format!("`{value}`: expected 1..=100000000"))?;
            }
            "exploration" => {
                let c: f64 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}`: expected a number such as 1.41"))?;
                if !(c.is_finite() && c >= 0.0) {
                    return Err(format!("`{value}`: must be >= 0"));
                }
                self.exploration = c;
            }
            _ => return Err(format!("unknown option `{name}`")),
        }
        Ok(())
    }

    fn new_game(&mut self, _ruleset: Ruleset, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn think(&mut self, pos: &Position, search: &mut Search<'_>) -> Move {
        let settings = Settings {
            iterations: self.iterations,
            exploration: self.exploration,
        };
        self::search(pos, settings, &mut self.rng, search).best
    }
}
