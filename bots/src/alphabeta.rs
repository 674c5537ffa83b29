//! `alphabeta`: negamax with alpha-beta pruning, iterative deepening and a transposition table,
//! plus the site's three playing levels (docs/bots.md).
//!
//! Design decisions, and why:
//!
//! - **Scores are final store differences** from the mover's view, in quarter seeds internally
//!   ([`SCALE`]), so an exact game value needs no mate-distance bookkeeping and TT scores need no
//!   ply adjustment. A finished game scores its final difference; the horizon evaluation is the
//!   store difference plus a quarter seed per seed on the mover's side minus the opponent's
//!   (seeds at home go to their owner at a Kalah end, and they are the mover's material).
//! - **Extra turns:** when a sow leaves the same player to move, the child is searched with the
//!   *same* window and no sign flip, and the sow is **free**: depth counts turns (changes of the
//!   player to move), not sows. This keeps a whole extra-turn chain inside the horizon (cutting
//!   a chain half-way misjudges it badly) and terminates because every extra-turn sow puts a seed
//!   into a store; [`MAX_PLY`] bounds it anyway. Congkak is the exception: its relay sowing makes
//!   extra turns so frequent and chains so long that free chains blow the tree up, so there an
//!   extra-turn sow costs a ply like any other (depth counts sows). `swap` (pie rule) keeps the seat but changes the
//!   player, so it flips the sign and costs a ply like any other change of player.
//! - **Proofs:** a subtree whose every leaf was a finished game is *solved*; its TT entry gets the
//!   depth [`SOLVED`] so later iterations may use it at any depth. An iteration that used no
//!   horizon evaluation and no unsolved TT entry has proved its score: it is reported as
//!   `score exact` and deepening stops.
//! - **Move ordering:** TT move, then extra-turn sows, then by the static gain of the sow
//!   (captures first); children are made once (copy-make) and reused for ordering and search.
//! - **Noise** (the Easy and Normal levels): every root move gets an exact score (full window),
//!   and the move is drawn from softmax(score / temperature) with the game seed's generator.
//! - **Hard on Kalah** first looks its position up in its opening book (`book.rs`), then lets
//!   the exact solver try within part of its node budget (`exact.rs`); both moves are proven
//!   optimal. Only at the level's own settings, so fixed-depth searches are as before.
//!
//! The TT key is [`State::key`], which ignores the sow count and Oware's repetition history, so
//! near the sow cap or an Oware repetition a TT score can be slightly off; the move played is
//! always legal.

use std::time::Duration;

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use mancala_protocol::{Info, OptionDecl, OptionKind, Score};
use mancala_rules::{GameKind, Move, Position, Ruleset, Side, MAX_MOVES};
use mancala_solver::BoardSpec;

use crate::elo::EloCurve;
use crate::engine_loop::{Bot, Search};
use crate::exact::Exact;
use crate::state::{same_player, with_state, State, WithState};

/// Internal score units per seed.
pub const SCALE: i32 = 4;
const INF: i32 = 1 << 20;
/// Deepest ply (sows from the root) the search goes; a guard, extra-turn chains are finite.
pub const MAX_PLY: u32 = 160;
/// Deepest iteration (in turns).
pub const MAX_DEPTH: u32 = 64;
/// TT depth of a solved subtree.
const SOLVED: u8 = u8::MAX;

/// Hard's node budget per move: about a tenth of a second in release builds. Solver nodes
/// spent on a move (below) count against it.
pub const HARD_NODES: u64 = 300_000;

/// Hard tries the solver (`exact.rs`) first when at most this many seeds are in the pits ...
pub const HARD_SOLVE_SEEDS: u32 = 39;
/// ... for at most this many solver nodes.
pub const HARD_SOLVE_NODES: u64 = 150_000;

/// The deep solver's budget a move (`Skill` above 20, [`SkillKnobs::exact`]), with any number of
/// seeds in the pits: about a second of one core.
pub const DEEP_SOLVE_NODES: u64 = 2_000_000;

/// A named playing strength (the site's levels). See docs/bots.md for the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Level {
    Easy,
    Normal,
    Hard,
}

impl Level {
    pub const ALL: [Level; 3] = [Level::Easy, Level::Normal, Level::Hard];

    pub fn as_str(self) -> &'static str {
        match self {
            Level::Easy => "Easy",
            Level::Normal => "Normal",
            Level::Hard => "Hard",
        }
    }

    /// Depth cap in turns. It applies under a clock too (a clock can only cut a search
    /// shorter), so a level plays the same moves whatever the time control, as long as the
    /// clock is not too short for it.
    pub fn depth(self) -> u32 {
        match self {
            Level::Easy => 2,
            Level::Normal => 4,
            Level::Hard => 20,
        }
    }

    /// Node budget per `go` (a deterministic stand-in for a clock): an iteration that would
    /// exceed it is abandoned, and none starts once half of it is spent.
    pub fn nodes(self) -> Option<u64> {
        match self {
            Level::Easy | Level::Normal => None,
            Level::Hard => Some(HARD_NODES),
        }
    }

    /// Softmax temperature over the root scores, in seeds (0 = always a best move).
    pub fn noise(self) -> f64 {
        match self {
            Level::Easy => 1.5,
            Level::Normal => 0.5,
            Level::Hard => 0.0,
        }
    }
}

impl std::str::FromStr for Level {
    type Err = String;
    fn from_str(s: &str) -> Result<Level, String> {
        Level::ALL
            .into_iter()
            .find(|l| l.as_str().eq_ignore_ascii_case(s.trim()))
            .ok_or_else(|| format!("`{s}`: expected Easy, Normal or Hard"))
    }
}

/// The `Skill` scale, from the weakest setting to the strongest (docs/bots.md, "Elo"). The
/// `Elo` option picks a skill through the Elo curve (`elo.rs`); `Skill` sets one directly (what
/// `arena calibrate --curve` turns).
pub const SKILL_MIN: f64 = -5.0;
/// See [`SKILL_MIN`].
pub const SKILL_MAX: f64 = 25.0;

/// What a skill plays with: a search of `depth` turns and a softmax of `noise` seeds over its root
/// moves' scores, so a weaker skill makes more and larger small inaccuracies on every move rather
/// than rare blunders; a `nodes` budget, not a clock, so that a busy machine plays the same moves.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SkillKnobs {
    /// Depth in turns, fractional: each move searches `⌊depth⌋` turns, or one more with
    /// probability `depth − ⌊depth⌋` (drawn from the game seed's generator), so the strength
    /// moves smoothly with the skill.
    pub depth: f64,
    /// Softmax temperature in seeds (0 = a best move).
    pub noise: f64,
    /// Node budget per move, if any (as Hard's: an iteration that would pass it is abandoned).
    pub nodes: Option<u64>,
    /// The chance that a move first asks Hard's opening book and endgame solver (Kalah, 6 pits),
    /// drawn per move: the strongest skills know what Hard knows, and the skills below them
    /// know it a little less often, so that the strength does not jump where they start.
    pub extras: f64,
    /// The chance that a move (after the book) is first asked of the deep solver
    /// ([`Exact::deep`], within [`DEEP_SOLVE_NODES`]), drawn per move: above Skill 20 the
    /// strength grows toward perfect play, a move at a time.
    pub exact: f64,
}

/// One row of the skill scale's shape: the knobs at `skill`.
struct ShapeRow {
    skill: f64,
    depth: f64,
    noise: f64,
    /// 0 = no node budget.
    nodes: f64,
    extras: f64,
    exact: f64,
}

/// The skill scale's shape: the knobs at a few skills, linear in between (the node budget
/// geometric): noise that falls with the skill while the search deepens, so a weaker skill
/// errs a little on many moves rather than a lot on few; at the top a node budget, the book and
/// the solver, as Hard has. Below Skill 0 (issue 46: the site's weakest people, under 600) only
/// the noise grows, to near-random sows, while the won-endings rail still finishes a won game;
/// the rows from Skill 0 up are those the curve's first 4,674 games were played with. Chosen
/// from rated trial settings of depth and noise (docs/bots.md, "Elo"); `arena analyse
/// --profile` compares the mistakes' shape with people's.
const SHAPE: [ShapeRow; 8] = [
    ShapeRow {
        skill: -5.0,
        depth: 1.0,
        noise: 10.0,
        nodes: 0.0,
        extras: 0.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 0.0,
        depth: 1.0,
        noise: 4.0,
        nodes: 0.0,
        extras: 0.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 5.0,
        depth: 2.0,
        noise: 2.0,
        nodes: 0.0,
        extras: 0.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 10.0,
        depth: 3.0,
        noise: 1.0,
        nodes: 0.0,
        extras: 0.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 14.0,
        depth: 5.0,
        noise: 0.4,
        nodes: 0.0,
        extras: 0.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 17.0,
        depth: 8.0,
        noise: 0.0,
        nodes: 150_000.0,
        extras: 1.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 20.0,
        depth: 20.0,
        noise: 0.0,
        nodes: 600_000.0,
        extras: 1.0,
        exact: 0.0,
    },
    ShapeRow {
        skill: 25.0,
        depth: 20.0,
        noise: 0.0,
        nodes: 600_000.0,
        extras: 1.0,
        exact: 1.0,
    },
];

/// The knobs of `skill` (clamped to [`SKILL_MIN`]..=[`SKILL_MAX`]).
pub fn skill_knobs(skill: f64) -> SkillKnobs {
    let s = skill.clamp(SKILL_MIN, SKILL_MAX);
    let at = SHAPE
        .windows(2)
        .position(|w| s <= w[1].skill)
        .unwrap_or(SHAPE.len() - 2);
    let (a, b) = (&SHAPE[at], &SHAPE[at + 1]);
    let f = (s - a.skill) / (b.skill - a.skill);
    let lerp = |x: f64, y: f64| x + f * (y - x);
    // A budget only where both ends have one (the search's own cap rules below it).
    let nodes = (a.nodes > 0.0 && b.nodes > 0.0).then(|| {
        (a.nodes.ln() + f * (b.nodes.ln() - a.nodes.ln()))
            .exp()
            .round() as u64
    });
    SkillKnobs {
        depth: lerp(a.depth, b.depth).max(1.0),
        noise: lerp(a.noise, b.noise).max(0.0),
        nodes,
        extras: lerp(a.extras, b.extras).clamp(0.0, 1.0),
        exact: lerp(a.exact, b.exact).clamp(0.0, 1.0),
    }
}

/// The `Elo` option's range (spin): wider than the site's players and levels (600 to 1900);
/// an Elo beyond the curve's ends plays the nearer end.
pub const ELO_MIN: i64 = 500;
/// See [`ELO_MIN`].
pub const ELO_MAX: i64 = 2000;
/// `Elo`'s declared default; it plays only once set.
pub const ELO_DEFAULT: i64 = 1350;

/// Won endings: with at most this many seeds in the pits, a skill first tries to prove the game's
/// result within [`RAIL_NODES`]; when it proves a win it plays only sows proven to keep the win
/// (its noise then chooses among them by their exact values), so no setting is unable to finish
/// a won ending.
pub const RAIL_SEEDS: u32 = 16;
/// See [`RAIL_SEEDS`].
pub const RAIL_NODES: u64 = 50_000;

/// The weights of the horizon evaluation, in internal units ([`SCALE`] per seed), each a
/// `spin` option `Eval...` of the bot (docs/bots.md, docs/tuning.md). Every feature is taken
/// from the mover's view as *mine − theirs* except the two row sums, which have a weight each.
/// The defaults are the evaluation the levels were calibrated with
/// (`SCALE × store difference + own seeds − their seeds`), so they play exactly as before the
/// weights existed (`bots/tests/eval_pin.rs`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Eval {
    /// Store difference.
    pub store: i32,
    /// Seeds in the mover's own pits.
    pub own_seeds: i32,
    /// Seeds in the opponent's pits (subtracted).
    pub their_seeds: i32,
    /// Seeds in the pit next to the store (pit N), mine − theirs.
    pub near_store: i32,
    /// Empty pits of mine whose opposite pit holds seeds (a capture target), mine − theirs.
    pub capture: i32,
    /// Pits whose sow ends exactly in the store (an extra turn), mine − theirs.
    pub extra_turn: i32,
    /// Non-empty pits (moves available), mine − theirs.
    pub mobility: i32,
}

impl Default for Eval {
    fn default() -> Self {
        Eval {
            store: SCALE,
            own_seeds: 1,
            their_seeds: 1,
            near_store: 0,
            capture: 0,
            extra_turn: 0,
            mobility: 0,
        }
    }
}

/// Range of every `Eval...` option.
pub const EVAL_MIN: i64 = -64;
/// Range of every `Eval...` option.
pub const EVAL_MAX: i64 = 64;

impl Eval {
    /// The option names with their defaults, in declaration order.
    pub fn options(&self) -> [(&'static str, i32); 7] {
        [
            ("EvalStore", self.store),
            ("EvalOwnSeeds", self.own_seeds),
            ("EvalTheirSeeds", self.their_seeds),
            ("EvalNearStore", self.near_store),
            ("EvalCapture", self.capture),
            ("EvalExtraTurn", self.extra_turn),
            ("EvalMobility", self.mobility),
        ]
    }

    /// The weight behind option `name` (case-insensitive), if it is one.
    fn slot(&mut self, name: &str) -> Option<&mut i32> {
        Some(match name.to_ascii_lowercase().as_str() {
            "evalstore" => &mut self.store,
            "evalownseeds" => &mut self.own_seeds,
            "evaltheirseeds" => &mut self.their_seeds,
            "evalnearstore" => &mut self.near_store,
            "evalcapture" => &mut self.capture,
            "evalextraturn" => &mut self.extra_turn,
            "evalmobility" => &mut self.mobility,
            _ => return None,
        })
    }

    /// Only the weights the defaults use are non-zero: the board-shape features can be skipped.
    #[inline]
    fn simple(&self) -> bool {
        self.near_store == 0 && self.capture == 0 && self.extra_turn == 0 && self.mobility == 0
    }
}

/// The board-shape features of one side, as *(pit N seeds, capture targets, store-ending
/// sows, non-empty pits)*; pits are numbered toward the side's own store (docs/rules.md), so
/// pit `k` (index `k-1`) with `N+1-k` seeds ends its sow in the store, and is opposite the
/// other side's pit `N+1-k`.
#[inline]
fn shape(mine: &[u8], theirs: &[u8]) -> [i32; 4] {
    let n = mine.len();
    let mut capture = 0;
    let mut extra = 0;
    let mut mobility = 0;
    for (i, &c) in mine.iter().enumerate() {
        if c == 0 {
            if theirs.get(n - 1 - i).is_some_and(|&o| o > 0) {
                capture += 1;
            }
        } else {
            mobility += 1;
            if c as usize == n - i {
                extra += 1;
            }
        }
    }
    [
        mine.last().map_or(0, |&c| c as i32),
        capture,
        extra,
        mobility,
    ]
}

/// The search settings a `go` runs with (after options and the `go` limits are combined).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Settings {
    /// Deepest iteration, in turns.
    pub depth: u32,
    /// Softmax temperature in seeds; 0 = no noise.
    pub noise: f64,
    /// Node budget (besides `go nodes`): see [`Level::nodes`].
    pub nodes: Option<u64>,
    /// The horizon evaluation's weights.
    pub eval: Eval,
}

/// One TT slot (16 bytes packed, see [`Tt`]).
#[derive(Clone, Copy, Default)]
struct Entry {
    key: u64,
    score: i32,
    /// 0 = none, 1..=9 = pit, 10 = swap.
    mv: u8,
    depth: u8,
    bound: u8,
}

const LOWER: u8 = 1;
const UPPER: u8 = 2;
const EXACT: u8 = 3;

fn encode(mv: Move) -> u8 {
    match mv {
        Move::Pit(k) => k,
        Move::Swap => 10,
    }
}

fn decode(code: u8) -> Option<Move> {
    match code {
        0 => None,
        10 => Some(Move::Swap),
        k => Some(Move::Pit(k)),
    }
}

/// The transposition table: a power-of-two array of [`Entry`], always-replace.
///
/// Slots are stored packed as two zero-initialised words, so a table of any size is allocated
/// (and cleared) with zeroed pages from the operating system instead of being written slot by
/// slot: a `Hash` of gigabytes costs nothing until the search touches it.
pub struct Tt {
    slots: Vec<[u64; 2]>,
    mask: usize,
}

impl Entry {
    fn pack(self) -> [u64; 2] {
        let meta = u64::from(self.score as u32)
            | u64::from(self.mv) << 32
            | u64::from(self.depth) << 40
            | u64::from(self.bound) << 48;
        [self.key, meta]
    }

    fn unpack([key, meta]: [u64; 2]) -> Entry {
        Entry {
            key,
            score: meta as u32 as i32,
            mv: (meta >> 32) as u8,
            depth: (meta >> 40) as u8,
            bound: (meta >> 48) as u8,
        }
    }
}

impl Tt {
    /// A table of at most `mb` megabytes (at least 1024 entries).
    pub fn new(mb: usize) -> Tt {
        let want = (mb.max(1) << 20) / std::mem::size_of::<[u64; 2]>();
        let mut n = 1024;
        while n * 2 <= want {
            n *= 2;
        }
        Tt {
            slots: vec![[0; 2]; n],
            mask: n - 1,
        }
    }

    pub fn clear(&mut self) {
        self.slots = vec![[0; 2]; self.slots.len()];
    }

    #[inline]
    fn probe(&self, key: u64) -> Option<Entry> {
        let e = Entry::unpack(self.slots[key as usize & self.mask]);
        (e.key == key && e.bound != 0).then_some(e)
    }

    #[inline]
    fn store(&mut self, key: u64, score: i32, mv: Move, depth: u8, bound: u8) {
        self.slots[key as usize & self.mask] = Entry {
            key,
            score,
            mv: encode(mv),
            depth,
            bound,
        }
        .pack();
    }
}

/// What one completed iteration found.
#[derive(Clone, Debug)]
pub struct Iteration {
    pub depth: u32,
    pub best: Move,
    /// Internal units ([`SCALE`] per seed), mover's view.
    pub score: i32,
    /// The score is a proven game value.
    pub exact: bool,
    /// With noise: the exact score of every root move (internal units).
    pub root_scores: Vec<(Move, i32)>,
    /// With noise: whether each root move's score (same order) is a proven game value.
    pub root_proven: Vec<bool>,
}

/// The result of [`search`].
#[derive(Clone, Debug)]
pub struct Outcome {
    /// Deepest completed iteration, if any.
    pub last: Option<Iteration>,
    pub nodes: u64,
}

struct Searcher<'s, 'a> {
    tt: &'s mut Tt,
    search: &'s Search<'a>,
    budget: Option<Duration>,
    node_limit: u64,
    nodes: u64,
    /// Horizon evaluations and unsolved TT cutoffs so far: unchanged over a subtree = solved.
    heuristic: u64,
    abort: bool,
    /// Extra-turn sows cost no depth (Kalah, Oware); in Congkak they cost a ply like any sow.
    free_extra: bool,
    eval: Eval,
}

/// The static evaluation of `pos` (not over) from its mover's view, weighted by `w`.
#[inline]
fn evaluate<S: State>(pos: &S, w: &Eval) -> i32 {
    let Some(me) = pos.mover() else { return 0 };
    let them = me.other();
    let base = w.store * pos.store_diff(me) + w.own_seeds * pos.row_sum(me)
        - w.their_seeds * pos.row_sum(them);
    if w.simple() {
        return base;
    }
    let (mine, theirs) = (pos.pits(me), pos.pits(them));
    let a = shape(mine, theirs);
    let b = shape(theirs, mine);
    base + w.near_store * (a[0] - b[0])
        + w.capture * (a[1] - b[1])
        + w.extra_turn * (a[2] - b[2])
        + w.mobility * (a[3] - b[3])
}

/// The value of a finished game for the player who moved into it from `parent`.
#[inline]
fn terminal<S: State>(parent: &S, mv: Move, child: &S) -> i32 {
    let Some(me) = parent.mover() else { return 0 };
    // A game never ends on `swap`, but keep the seat bookkeeping honest anyway.
    let seat = if mv == Move::Swap { me.other() } else { me };
    SCALE * child.store_diff(seat)
}

impl Searcher<'_, '_> {
    /// The depth left after an extra-turn sow from a node with `depth` left.
    #[inline]
    fn extra_depth(&self, depth: u32) -> u32 {
        if self.free_extra {
            depth
        } else {
            depth - 1
        }
    }

    #[inline]
    fn check_limits(&mut self) {
        // The clock and the stop signal are read every 1024 nodes.
        let every = self.nodes & 1023 == 0;
        if self.nodes >= self.node_limit
            || (every && (self.search.stopped() || self.search.out_of_time(self.budget)))
        {
            self.abort = true;
        }
    }

    /// Children of `pos` in search order: (move, child, ordering key), best first.
    #[inline]
    fn children<S: State>(
        &self,
        pos: &S,
        tt_move: Option<Move>,
    ) -> ([Option<(Move, S)>; MAX_MOVES], usize) {
        let me = pos.mover();
        let moves = pos.moves();
        let mut kids: [Option<(Move, S)>; MAX_MOVES] = std::array::from_fn(|_| None);
        let mut keys = [0i32; MAX_MOVES];
        let base = me.map_or(0, |m| pos.store_diff(m));
        for (i, &mv) in moves.iter().enumerate() {
            let mut child = pos.clone();
            child.play(mv);
            let key = if Some(mv) == tt_move {
                i32::MAX
            } else {
                let extra = if same_player(pos, mv, &child) {
                    1000
                } else {
                    0
                };
                let gain = me.map_or(0, |m| child.store_diff(m)) - base;
                extra + gain
            };
            keys[i] = key;
            kids[i] = Some((mv, child));
        }
        let n = moves.len();
        // Insertion sort, descending; stable so pit order breaks ties.
        for i in 1..n {
            let mut j = i;
            while j > 0 && keys[j - 1] < keys[j] {
                keys.swap(j - 1, j);
                kids.swap(j - 1, j);
                j -= 1;
            }
        }
        (kids, n)
    }

    fn negamax<S: State>(
        &mut self,
        pos: &S,
        depth: u32,
        mut alpha: i32,
        beta: i32,
        ply: u32,
    ) -> i32 {
        self.nodes += 1;
        self.check_limits();
        if self.abort {
            return 0;
        }
        let key = pos.key();
        let mut tt_move = None;
        if let Some(e) = self.tt.probe(key) {
            tt_move = decode(e.mv);
            if e.depth == SOLVED || e.depth as u32 >= depth {
                let cut = match e.bound {
                    EXACT => true,
                    LOWER => e.score >= beta,
                    _ => e.score <= alpha,
                };
                if cut {
                    if e.depth != SOLVED {
                        self.heuristic += 1;
                    }
                    return e.score;
                }
            }
        }
        if depth == 0 || ply >= MAX_PLY {
            self.heuristic += 1;
            return evaluate(pos, &self.eval);
        }
        let alpha0 = alpha;
        let h0 = self.heuristic;
        let (kids, n) = self.children(pos, tt_move);
        let mut best = -INF;
        let mut best_mv = Move::Pit(1);
        for (mv, child) in kids[..n].iter().flatten() {
            let v = if child.mover().is_none() {
                terminal(pos, *mv, child)
            } else if same_player(pos, *mv, child) {
                self.negamax(child, self.extra_depth(depth), alpha, beta, ply + 1)
            } else {
                -self.negamax(child, depth - 1, -beta, -alpha, ply + 1)
            };
            if self.abort {
                return 0;
            }
            if v > best {
                best = v;
                best_mv = *mv;
                if v > alpha {
                    alpha = v;
                    if alpha >= beta {
                        break;
                    }
                }
            }
        }
        let bound = if best <= alpha0 {
            UPPER
        } else if best >= beta {
            LOWER
        } else {
            EXACT
        };
        let d = if self.heuristic == h0 {
            SOLVED
        } else {
            depth.min(254) as u8
        };
        self.tt.store(key, best, best_mv, d, bound);
        best
    }

    /// One iteration at the root. With `all_scores`, every root move is searched with a full
    /// window (exact scores for the softmax). `None` if the search was stopped.
    fn root<S: State>(&mut self, pos: &S, depth: u32, all_scores: bool) -> Option<Iteration> {
        let tt_move = self.tt.probe(pos.key()).and_then(|e| decode(e.mv));
        let h0 = self.heuristic;
        let (kids, n) = self.children(pos, tt_move);
        let mut alpha = -INF;
        let beta = INF;
        let mut best: Option<(Move, i32)> = None;
        let mut root_scores = Vec::with_capacity(n);
        let mut root_proven = Vec::with_capacity(n);
        for (mv, child) in kids[..n].iter().flatten() {
            let a = if all_scores { -INF } else { alpha };
            let h_move = self.heuristic;
            let v = if child.mover().is_none() {
                terminal(pos, *mv, child)
            } else if same_player(pos, *mv, child) {
                self.negamax(child, self.extra_depth(depth), a, beta, 1)
            } else {
                -self.negamax(child, depth - 1, -beta, -a, 1)
            };
            if self.abort {
                return None;
            }
            root_scores.push((*mv, v));
            root_proven.push(self.heuristic == h_move);
            if best.map_or(true, |(_, b)| v > b) {
                best = Some((*mv, v));
                alpha = alpha.max(v);
            }
        }
        let (best, score) = best?;
        let exact = self.heuristic == h0;
        self.tt.store(
            pos.key(),
            score,
            best,
            if exact { SOLVED } else { depth as u8 },
            EXACT,
        );
        Some(Iteration {
            depth,
            best,
            score,
            exact,
            root_scores: if all_scores { root_scores } else { Vec::new() },
            root_proven: if all_scores { root_proven } else { Vec::new() },
        })
    }
}

/// The principal variation from the TT, starting with `first` (at most `max` sows).
fn pv<S: State>(tt: &Tt, root: &S, first: Move, max: usize) -> Vec<Move> {
    let mut line = vec![first];
    let mut pos = root.clone();
    pos.play(first);
    while line.len() < max && pos.mover().is_some() {
        let Some(mv) = tt.probe(pos.key()).and_then(|e| decode(e.mv)) else {
            break;
        };
        if !pos.moves().contains(&mv) {
            break;
        }
        pos.play(mv);
        line.push(mv);
    }
    line
}

struct Deepen<'x, 'a> {
    tt: &'x mut Tt,
    search: &'x mut Search<'a>,
    settings: Settings,
    free_extra: bool,
}

impl WithState for Deepen<'_, '_> {
    type Output = Outcome;
    fn run<S: State>(self, root: S) -> Outcome {
        let Deepen {
            tt,
            search,
            settings,
            free_extra,
        } = self;
        let budget = search.time_budget();
        // Time already spent on this `go` before the search (Hard's solver stage): the
        // iterations share what is left.
        let spent = search.started.elapsed();
        let node_limit = search
            .limits
            .nodes
            .unwrap_or(u64::MAX)
            .min(settings.nodes.unwrap_or(u64::MAX))
            .max(1);
        let mut last: Option<Iteration> = None;
        let mut nodes = 0;
        let mut heuristic = 0;
        for depth in 1..=settings.depth.clamp(1, MAX_DEPTH) {
            // Depth 1 always completes (it takes microseconds), so there is always a searched
            // move; `stop` still ends it.
            let mut s = Searcher {
                tt: &mut *tt,
                search: &*search,
                budget: if depth == 1 { None } else { budget },
                node_limit: if depth == 1 { u64::MAX } else { node_limit },
                nodes,
                heuristic,
                abort: false,
                free_extra,
                eval: settings.eval,
            };
            let it = s.root(&root, depth, settings.noise > 0.0);
            nodes = s.nodes;
            heuristic = s.heuristic;
            let Some(it) = it else { break };
            let ms = search.started.elapsed().as_millis() as u64;
            let info = Info {
                depth: Some(depth),
                score: Some(if it.exact {
                    Score::Exact(it.score / SCALE)
                } else {
                    Score::Seeds(round_div(it.score, SCALE))
                }),
                nodes: Some(nodes),
                nps: Some(nodes * 1000 / ms.max(1)),
                time: Some(ms),
                pv: pv(tt, &root, it.best, depth as usize * 2 + 2),
                ..Info::default()
            };
            search.info(&info);
            let done = it.exact;
            last = Some(it);
            if done || search.stopped() || nodes.saturating_mul(2) >= node_limit {
                break;
            }
            // An iteration costs several times the previous one: do not start one that cannot
            // finish.
            if let Some(b) = budget {
                if (search.started.elapsed() - spent) * 2 >= b.saturating_sub(spent) {
                    break;
                }
            }
        }
        Outcome { last, nodes }
    }
}

fn round_div(a: i32, b: i32) -> i32 {
    (a as f64 / b as f64).round() as i32
}

/// Iterative deepening on `pos` with `settings`, reporting `info` after each iteration.
pub fn search(pos: &Position, settings: Settings, tt: &mut Tt, search: &mut Search<'_>) -> Outcome {
    with_state(
        pos,
        Deepen {
            tt,
            search,
            settings,
            free_extra: pos.ruleset().kind() != GameKind::Congkak,
        },
    )
}

/// Draws a root move from softmax(score / temperature) (scores in internal units,
/// temperature in seeds).
pub fn sample_softmax(
    scores: &[(Move, i32)],
    temperature: f64,
    rng: &mut impl Rng,
) -> Option<Move> {
    let max = scores.iter().map(|&(_, s)| s).max()?;
    let weights: Vec<f64> = scores
        .iter()
        .map(|&(_, s)| (((s - max) as f64 / SCALE as f64) / temperature).exp())
        .collect();
    let total: f64 = weights.iter().sum();
    let mut x = rng.gen::<f64>() * total;
    for (&(mv, _), w) in scores.iter().zip(&weights) {
        if x < *w {
            return Some(mv);
        }
        x -= w;
    }
    scores.last().map(|&(mv, _)| mv)
}

/// The alpha-beta bot with its options (docs/bots.md).
pub struct AlphaBetaBot {
    level: Level,
    /// `Depth` option: 0 = the level's cap.
    depth: u32,
    /// `Noise` option: `None` = the level's.
    noise: Option<f64>,
    /// `Eval...` options.
    eval: Eval,
    hash_mb: usize,
    tt: Tt,
    rng: ChaCha8Rng,
    /// Hard's solver, built on first use (`exact.rs`).
    exact: Option<Exact>,
    /// The strongest skills' solver ([`Exact::deep`]) for the board rules it was asked for
    /// (kept for the process: a table cached later does not change its strength), or why
    /// there is none.
    deep: Option<(Option<BoardSpec>, Result<Exact, String>)>,
    /// `Skill` option: a point of the skill scale, `None` = not set.
    skill: Option<f64>,
    /// `Elo` option, once set.
    elo: Option<i64>,
    /// `LimitStrength` option: `false` turns `Elo` and `Skill` off (the level plays).
    limit_strength: bool,
    /// The Elo curve `Elo` is read on: `EloCurve`'s file, or the bundled one.
    curve: EloCurve,
    /// The won-ending proof's own table, so that it never deepens the skill's search.
    rail_tt: Tt,
    /// The skill was announced (`info string`) in this game.
    announced: bool,
}

impl Default for AlphaBetaBot {
    fn default() -> Self {
        AlphaBetaBot {
            level: Level::Hard,
            depth: 0,
            noise: None,
            eval: Eval::default(),
            hash_mb: 16,
            tt: Tt::new(16),
            rng: ChaCha8Rng::seed_from_u64(0),
            exact: None,
            deep: None,
            skill: None,
            elo: None,
            limit_strength: true,
            curve: EloCurve::bundled(),
            rail_tt: Tt::new(1),
            announced: false,
        }
    }
}

impl AlphaBetaBot {
    /// The settings for a `go` with these limits: `go depth` beats the `Depth` option, which
    /// beats the level's cap; `go infinite` (without `depth`) lifts the cap.
    /// The level's node budget only goes with the level's own depth cap.
    pub fn settings(&self, limits: &mancala_protocol::GoLimits) -> Settings {
        if let Some(knobs) = self.strength().map(skill_knobs) {
            let depth = match limits.depth {
                Some(d) => d,
                None if limits.infinite => MAX_DEPTH,
                None => knobs.depth.floor() as u32,
            };
            return Settings {
                depth: depth.clamp(1, MAX_DEPTH),
                noise: knobs.noise,
                nodes: knobs.nodes,
                eval: self.eval,
            };
        }
        let mut nodes = None;
        let depth = if let Some(d) = limits.depth {
            d
        } else if limits.infinite {
            MAX_DEPTH
        } else if self.depth > 0 {
            self.depth
        } else {
            nodes = self.level.nodes();
            self.level.depth()
        };
        Settings {
            depth: depth.clamp(1, MAX_DEPTH),
            noise: self.noise.unwrap_or(self.level.noise()),
            nodes,
            eval: self.eval,
        }
    }

    /// Searches `pos` and picks the move (see the module docs). At the Hard level's own
    /// settings, first its book, then the solver within [`HARD_SOLVE_NODES`]; the search gets
    /// the node budget the solver left.
    pub fn choose(&mut self, pos: &Position, search: &mut Search<'_>) -> Move {
        let mut settings = self.settings(&search.limits);
        let knobs = self.strength().map(|s| (s, skill_knobs(s)));
        if let Some((skill, k)) = knobs {
            if !self.announced {
                self.announced = true;
                let mut said = self.describe_strength(skill);
                if k.exact > 0.0 && self.deep_for(&pos.ruleset()).is_none() {
                    if let Some((_, Err(why))) = &self.deep {
                        said += &format!("; deep solver off: {why}: those moves are Skill 20's");
                    }
                }
                search.info(&Info {
                    string: Some(said),
                    ..Info::default()
                });
            }
            // The fractional depth: one turn deeper with probability frac(depth).
            let frac = k.depth - k.depth.floor();
            if search.limits.depth.is_none()
                && !search.limits.infinite
                && frac > 0.0
                && self.rng.gen::<f64>() < frac
            {
                settings.depth = (settings.depth + 1).min(MAX_DEPTH);
            }
            if let Some(mv) = self.won_ending_move(pos, settings.noise) {
                return mv;
            }
        }
        let extras = match knobs {
            Some((_, k)) => k.extras > 0.0 && self.rng.gen::<f64>() < k.extras,
            None => self.hard_extras(&settings),
        };
        // Drawn only above Skill 20, so the skills below play the games they were rated on;
        // without its table the move is Skill 20's (said at the game's start).
        let deep = matches!(knobs, Some((_, k)) if k.exact > 0.0 && self.rng.gen::<f64>() < k.exact)
            && self.deep_for(&pos.ruleset()).is_some();
        if extras || deep {
            if let Some(mv) = book_move(pos, search) {
                return mv;
            }
            let proven = if deep {
                // Its nodes are not taken from the search's: it is the stage above the search.
                self.deep_move(pos, search).map_err(|_| 0)
            } else {
                self.solver_move(pos, search)
            };
            match proven {
                Ok(mv) => return mv,
                Err(spent) => {
                    settings.nodes = settings.nodes.map(|n| n.saturating_sub(spent).max(1));
                }
            }
        }
        let out = self::search(pos, settings, &mut self.tt, search);
        let fallback = pos.legal_moves().first().copied().unwrap_or(Move::Pit(1));
        let Some(it) = out.last else { return fallback };
        if settings.noise > 0.0 && !it.root_scores.is_empty() {
            sample_softmax(&it.root_scores, settings.noise, &mut self.rng).unwrap_or(it.best)
        } else {
            it.best
        }
    }

    /// The book and the solver play only at the Hard level's own settings (its node budget, no
    /// noise), so `Depth`, `go depth` and `Noise` search exactly as before.
    fn hard_extras(&self, settings: &Settings) -> bool {
        self.level == Level::Hard && settings.nodes.is_some() && settings.noise == 0.0
    }

    /// The skill this bot plays at, if its strength is limited: `Elo` read on the curve, else
    /// `Skill`; `None` with `LimitStrength=false` or neither set (the level plays).
    pub fn strength(&self) -> Option<f64> {
        if !self.limit_strength {
            return None;
        }
        match self.elo {
            Some(elo) => Some(self.curve.knob_for(elo as f64).0),
            None => self.skill,
        }
    }

    /// `elo 1300 = skill 7.42 (curve ...)`, the line a game with a limited strength starts with.
    fn describe_strength(&self, skill: f64) -> String {
        let k = skill_knobs(skill);
        let mut knobs = format!("depth {:.2}, noise {:.2}", k.depth, k.noise);
        if let Some(n) = k.nodes {
            knobs += &format!(", {n} nodes");
        }
        if k.extras > 0.0 {
            knobs += &format!(", book and solver on {:.0}% of moves", 100.0 * k.extras);
        }
        if k.exact > 0.0 {
            knobs += &format!(", deep solver on {:.0}% of moves", 100.0 * k.exact);
        }
        match self.elo {
            Some(elo) => {
                let (_, inside) = self.curve.knob_for(elo as f64);
                let (lo, hi) = self.curve.elo_range();
                format!(
                    "elo {elo} = skill {skill:.3} ({knobs}){} on the curve of {}",
                    if inside {
                        String::new()
                    } else {
                        format!(", the nearest the curve reaches ({lo:.0}..{hi:.0})")
                    },
                    self.curve.info("rules").unwrap_or("unstated rules"),
                )
            }
            None => format!("skill {skill:.3} ({knobs})"),
        }
    }

    /// In a won ending (at most [`RAIL_SEEDS`] seeds in the pits, the win proven within
    /// [`RAIL_NODES`]), a sow proven to keep the win, drawn by `noise` over the winning sows'
    /// exact values; `None` elsewhere (the skill's own search decides).
    fn won_ending_move(&mut self, pos: &Position, noise: f64) -> Option<Move> {
        let seeds = pos.board().row_sum(Side::South) + pos.board().row_sum(Side::North);
        if seeds > RAIL_SEEDS || pos.legal_moves().len() < 2 {
            return None;
        }
        let proof = Settings {
            depth: MAX_DEPTH,
            noise: 1.0,
            nodes: Some(RAIL_NODES),
            eval: Eval::default(),
        };
        let stop = std::sync::atomic::AtomicU64::new(0);
        let mut sink = std::io::sink();
        let mut quiet = Search::new(mancala_protocol::GoLimits::default(), &stop, &mut sink);
        self.rail_tt.clear();
        let it = self::search(pos, proof, &mut self.rail_tt, &mut quiet).last?;
        let winners: Vec<(Move, i32)> = it
            .root_scores
            .iter()
            .zip(&it.root_proven)
            .filter(|&(&(_, score), &proven)| proven && score > 0)
            .map(|(&ms, _)| ms)
            .collect();
        if winners.is_empty() {
            return None;
        }
        if noise > 0.0 {
            sample_softmax(&winners, noise, &mut self.rng)
        } else {
            // The first of the best, in search order.
            winners
                .iter()
                .fold(None, |best: Option<(Move, i32)>, &(m, v)| match best {
                    Some((_, b)) if b >= v => best,
                    _ => Some((m, v)),
                })
                .map(|(m, _)| m)
        }
    }

    /// Hard's solver for `ruleset`'s board rules (built when they change), if it solves them.
    fn exact_for(&mut self, ruleset: &Ruleset) -> Option<&mut Exact> {
        if self.exact.as_ref().map(Exact::spec) != BoardSpec::from_ruleset(ruleset).ok() {
            self.exact = Exact::new(ruleset);
        }
        self.exact.as_mut()
    }

    /// Hard's solver stage: a proven optimal move if the solver finds one within
    /// [`HARD_SOLVE_NODES`] (and half the clock budget, if any), else the solver nodes spent.
    /// Tried only with at most [`HARD_SOLVE_SEEDS`] seeds in the pits, where it mostly succeeds.
    fn solver_move(&mut self, pos: &Position, search: &mut Search<'_>) -> Result<Move, u64> {
        let seeds = pos.board().row_sum(Side::South) + pos.board().row_sum(Side::North);
        if seeds > HARD_SOLVE_SEEDS {
            return Err(0);
        }
        let Some(exact) = self.exact_for(&pos.ruleset()) else {
            return Err(0);
        };
        prove(exact, pos, HARD_SOLVE_NODES, "solver", search)
    }

    /// The strongest skills' solver ([`Exact::deep`] with the default cache folder), opened
    /// when the board rules change; `None` when there is none.
    fn deep_for(&mut self, ruleset: &Ruleset) -> Option<&mut Exact> {
        let spec = BoardSpec::from_ruleset(ruleset).ok();
        if self.deep.as_ref().map(|(s, _)| *s) != Some(spec) {
            let dir = mancala_solver::db::default_dir();
            let deep = Exact::deep(ruleset, dir.as_deref());
            if let Err(why) = &deep {
                // Also on stderr, which the arena keeps in the player's log.
                eprintln!("warning: deep solver off: {why}: those moves are Skill 20's");
            }
            self.deep = Some((spec, deep));
        }
        self.deep.as_mut().and_then(|(_, d)| d.as_mut().ok())
    }

    /// The deep solver's stage (above Skill 20): a proven optimal move within
    /// [`DEEP_SOLVE_NODES`], whatever the seeds in the pits, else the nodes spent.
    fn deep_move(&mut self, pos: &Position, search: &mut Search<'_>) -> Result<Move, u64> {
        let Some(exact) = self.deep_for(&pos.ruleset()) else {
            return Err(0);
        };
        prove(exact, pos, DEEP_SOLVE_NODES, "deep solver", search)
    }
}

/// `exact`'s proven optimal move on `pos` within `nodes` (and `go nodes`, and half the clock
/// budget, if any), reported as an exact score with `label`; else the solver nodes spent.
fn prove(
    exact: &mut Exact,
    pos: &Position,
    nodes: u64,
    label: &str,
    search: &mut Search<'_>,
) -> Result<Move, u64> {
    let cap = search.limits.nodes.unwrap_or(u64::MAX).min(nodes);
    let half = search.time_budget().map(|b| b / 2);
    let proven = exact.try_move(pos.board(), cap, &|| {
        search.stopped() || search.out_of_time(half)
    })?;
    let ms = search.started.elapsed().as_millis() as u64;
    search.info(&Info {
        score: Some(Score::Exact(proven.margin)),
        nodes: Some(proven.nodes),
        nps: Some(proven.nodes * 1000 / ms.max(1)),
        time: Some(ms),
        pv: vec![proven.mv],
        string: Some(label.into()),
        ..Info::default()
    });
    Ok(proven.mv)
}

/// Hard's book move (`book.rs`), reported as an exact score.
fn book_move(pos: &Position, search: &mut Search<'_>) -> Option<Move> {
    let entry = crate::book::for_ruleset(&pos.ruleset())?.lookup(pos.board())?;
    let mover = pos.to_move()?;
    let diff = pos.store(mover) as i32 - pos.store(mover.other()) as i32;
    let mv = Move::Pit(entry.pit);
    search.info(&Info {
        score: Some(Score::Exact(diff + entry.value)),
        nodes: Some(0),
        pv: vec![mv],
        string: Some("book".into()),
        ..Info::default()
    });
    Some(mv)
}

impl Bot for AlphaBetaBot {
    fn name(&self) -> String {
        format!("alphabeta {}", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<OptionDecl> {
        let eval = Eval::default().options().map(|(name, default)| OptionDecl {
            name: name.into(),
            kind: OptionKind::Spin {
                default: default.into(),
                min: EVAL_MIN,
                max: EVAL_MAX,
            },
        });
        let mut decls = vec![
            OptionDecl {
                name: "Level".into(),
                kind: OptionKind::Combo {
                    default: Level::Hard.as_str().into(),
                    vars: Level::ALL.iter().map(|l| l.as_str().to_string()).collect(),
                },
            },
            OptionDecl {
                name: "Depth".into(),
                kind: OptionKind::Spin {
                    default: 0,
                    min: 0,
                    max: MAX_DEPTH as i64,
                },
            },
            OptionDecl {
                name: "Noise".into(),
                kind: OptionKind::String {
                    default: "auto".into(),
                },
            },
            OptionDecl {
                name: "LimitStrength".into(),
                kind: OptionKind::Check { default: true },
            },
            OptionDecl {
                name: "Elo".into(),
                kind: OptionKind::Spin {
                    default: ELO_DEFAULT,
                    min: ELO_MIN,
                    max: ELO_MAX,
                },
            },
            OptionDecl {
                name: "EloCurve".into(),
                kind: OptionKind::String {
                    default: String::new(),
                },
            },
            OptionDecl {
                name: "Skill".into(),
                kind: OptionKind::String {
                    default: String::new(),
                },
            },
            OptionDecl {
                name: "Hash".into(),
                kind: OptionKind::Spin {
                    default: 16,
                    min: 1,
                    max: 4096,
                },
            },
        ];
        decls.extend(eval);
        decls
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        match name.to_ascii_lowercase().as_str() {
            "level" => self.level = value.parse()?,
            "depth" => {
                let d: u32 = value
                    .trim()
                    .parse()
                    .map_err(|_| format!("`{value}`: expected 0..={MAX_DEPTH}"))?;
                if d > MAX_DEPTH {
                    return Err(format!("`{value}`: expected 0..={MAX_DEPTH}"));
                }
                self.depth = d;
            }
            "noise" => {
                let v = value.trim();
                if v.is_empty() || v.eq_ignore_ascii_case("auto") {
                    self.noise = None;
                } else {
                    let t: f64 = v.parse().map_err(|_| {
                        format!("`{value}`: expected a temperature in seeds (0, 0.35, 1.5) or auto")
                    })?;
                    if !(t.is_finite() && t >= 0.0) {
                        return Err(format!("`{value}`: the temperature must be >= 0"));
                    }
                    self.noise = Some(t);
                }
            }
            "limitstrength" => {
                self.limit_strength = match value.trim().to_ascii_lowercase().as_str() {
                    "true" => true,
                    "false" => false,
                    _ => return Err(format!("`{value}`: expected true or false")),
                };
            }
            "elo" => {
                let elo = value
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|e| (ELO_MIN..=ELO_MAX).contains(e))
                    .ok_or_else(|| format!("`{value}`: expected {ELO_MIN}..={ELO_MAX}"))?;
                self.elo = Some(elo);
            }
            "elocurve" => {
                let path = value.trim();
                self.curve = if path.is_empty() {
                    EloCurve::bundled()
                } else {
                    let text = std::fs::read_to_string(path)
                        .map_err(|e| format!("EloCurve `{path}`: {e}"))?;
                    let curve =
                        EloCurve::parse(&text).map_err(|e| format!("EloCurve `{path}`: {e}"))?;
                    if !curve.knob.eq_ignore_ascii_case("Skill") {
                        return Err(format!(
                            "EloCurve `{path}`: a curve over `{}`; this bot's curve is over `Skill`",
                            curve.knob
                        ));
                    }
                    curve
                };
            }
            "skill" => {
                let v = value.trim();
                self.skill = if v.is_empty() {
                    None
                } else {
                    Some(
                        v.parse::<f64>()
                            .ok()
                            .filter(|s| (SKILL_MIN..=SKILL_MAX).contains(s))
                            .ok_or_else(|| {
                                format!(
                                    "`{value}`: expected a skill from {SKILL_MIN} to {SKILL_MAX} \
                                     (a decimal), or empty"
                                )
                            })?,
                    )
                };
            }
            "hash" => {
                let mb: usize = value
                    .trim()
                    .parse()
                    .ok()
                    .filter(|&m| (1..=4096).contains(&m))
                    .ok_or_else(|| format!("`{value}`: expected 1..=4096 (MB)"))?;
                if mb != self.hash_mb {
                    self.hash_mb = mb;
                    self.tt = Tt::new(mb);
                }
            }
            _ => {
                let Some(slot) = self.eval.slot(name) else {
                    return Err(format!("unknown option `{name}`"));
                };
                *slot = value
                    .trim()
                    .parse::<i64>()
                    .ok()
                    .filter(|w| (EVAL_MIN..=EVAL_MAX).contains(w))
                    .ok_or_else(|| format!("`{value}`: expected {EVAL_MIN}..={EVAL_MAX}"))?
                    as i32;
            }
        }
        Ok(())
    }

    /// Hard loads its opening book and builds its solver's database for standard Kalah here,
    /// once per process, before the handshake's `readyok` (another Kalah board at its
    /// `newgame`).
    fn ready(&mut self) {
        if self.level == Level::Hard {
            crate::book::kalah6();
            self.exact_for(&Ruleset::kalah(6, 4));
        }
    }

    fn new_game(&mut self, ruleset: Ruleset, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.tt.clear();
        self.announced = false;
        let extras = match self.strength() {
            Some(skill) => skill_knobs(skill).extras > 0.0,
            None => self.level == Level::Hard,
        };
        if extras {
            // Built here, before `readyok`, rather than on the first move's clock.
            if let Some(exact) = self.exact_for(&ruleset) {
                exact.new_game();
            }
        }
        if self.strength().is_some_and(|s| skill_knobs(s).exact > 0.0) {
            if let Some(deep) = self.deep_for(&ruleset) {
                deep.new_game();
            }
        }
    }

    fn think(&mut self, pos: &Position, search: &mut Search<'_>) -> Move {
        self.choose(pos, search)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_protocol::GoLimits;
    use rand::seq::SliceRandom;
    use std::sync::atomic::AtomicU64;

    /// Plain minimax over whole games (no pruning, no TT): the final store difference for the
    /// player to move in `pos`, in seeds.
    fn minimax(pos: &Position) -> i32 {
        let me = pos.to_move().unwrap();
        let mut best = i32::MIN;
        for &mv in pos.legal_moves().iter() {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let v = match child.to_move() {
                None => child.store_diff(if mv == Move::Swap { me.other() } else { me }),
                Some(_) if same_player(pos, mv, &child) => minimax(&child),
                Some(_) => -minimax(&child),
            };
            best = best.max(v);
        }
        best
    }

    fn run(pos: &Position, settings: Settings) -> Outcome {
        let stop = AtomicU64::new(0);
        let mut out = Vec::new();
        let mut search = Search::new(GoLimits::default(), &stop, &mut out);
        super::search(pos, settings, &mut Tt::new(1), &mut search)
    }

    fn unlimited() -> Settings {
        Settings {
            depth: MAX_DEPTH,
            noise: 0.0,
            nodes: None,
            eval: Eval::default(),
        }
    }

    #[test]
    fn proves_the_same_value_as_plain_minimax_on_tiny_boards() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        for rules in [
            "kalah:pits=2,seeds=2",
            "kalah:pits=3,seeds=2",
            "kalah:pits=3,seeds=3,pie=true",
        ] {
            let ruleset: Ruleset = rules.parse().unwrap();
            for game in 0..12 {
                let mut pos = Position::new(ruleset);
                // The start position, then positions along a random game.
                for _ in 0..game {
                    if pos.is_over() {
                        break;
                    }
                    let mv = *pos.legal_moves().choose(&mut rng).unwrap();
                    pos.play(mv).unwrap();
                }
                if pos.is_over() {
                    continue;
                }
                let truth = minimax(&pos);
                let it = run(&pos, unlimited()).last.unwrap();
                assert!(it.exact, "{rules} {pos}: not proved");
                assert_eq!(it.score, SCALE * truth, "{rules} {pos}");
                // The chosen move achieves the value.
                let mut child = pos.clone();
                child.play(it.best).unwrap();
                let v = match child.to_move() {
                    None => child.store_diff(pos.to_move().unwrap()),
                    Some(_) if same_player(&pos, it.best, &child) => minimax(&child),
                    Some(_) => -minimax(&child),
                };
                assert_eq!(v, truth, "{rules} {pos}: move {}", it.best);
            }
        }
    }

    fn kalah(state: &str) -> Position {
        Position::from_state("kalah".parse().unwrap(), state).unwrap()
    }

    /// The value of `mv` in `pos` by plain minimax, for `pos`'s mover.
    fn minimax_move(pos: &Position, mv: Move) -> i32 {
        let mut child = pos.clone();
        child.play(mv).unwrap();
        match child.to_move() {
            None => child.store_diff(pos.to_move().unwrap()),
            Some(_) if same_player(pos, mv, &child) => minimax(&child),
            Some(_) => -minimax(&child),
        }
    }

    #[test]
    fn takes_the_extra_turn_when_it_is_the_only_best_move() {
        // Random positions of Kalah(3,3) whose unique best move (by plain minimax) is a sow that
        // gives an extra turn: the unlimited search must choose it and prove its value.
        let ruleset: Ruleset = "kalah:pits=3,seeds=3".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(11);
        let mut found = 0;
        for game in 0..300 {
            let mut pos = Position::new(ruleset);
            for _ in 0..game % 7 {
                if pos.is_over() {
                    break;
                }
                let mv = *pos.legal_moves().choose(&mut rng).unwrap();
                pos.play(mv).unwrap();
            }
            if pos.is_over() {
                continue;
            }
            let values: Vec<(Move, i32)> = pos
                .legal_moves()
                .iter()
                .map(|&mv| (mv, minimax_move(&pos, mv)))
                .collect();
            let best = values.iter().map(|&(_, v)| v).max().unwrap();
            let winners: Vec<Move> = values
                .iter()
                .filter(|&&(_, v)| v == best)
                .map(|&(m, _)| m)
                .collect();
            let [winner] = winners[..] else { continue };
            let mut child = pos.clone();
            child.play(winner).unwrap();
            if !same_player(&pos, winner, &child) {
                continue;
            }
            found += 1;
            let it = run(&pos, unlimited()).last.unwrap();
            assert_eq!(it.best, winner, "{pos}");
            assert!(it.exact);
            assert_eq!(it.score, SCALE * best, "{pos}");
        }
        assert!(found >= 5, "only {found} test positions");
    }

    #[test]
    fn finds_the_capture() {
        // South's pit 1 (1 seed) lands in the empty pit 2, opposite North's 9 seeds.
        let pos = kalah("s/1.0.0.0.0.2/0.0.0.0.9.0/20.16/0");
        let it = run(&pos, unlimited()).last.unwrap();
        assert_eq!(it.best, Move::Pit(1));
        assert!(it.exact);
        assert_eq!(it.score, SCALE * (32 - 16));
    }

    #[test]
    fn evaluation_features_count_what_they_say() {
        // South to move: pits 1.0.0.0.0.2 against North's 0.0.0.0.9.0, stores 20-16.
        let pos = kalah("s/1.0.0.0.0.2/0.0.0.0.9.0/20.16/0");
        let board = *pos.board();
        let base = 4 * (20 - 16) + 3 - 9;
        assert_eq!(evaluate(&board, &Eval::default()), base);
        let with = |f: fn(&mut Eval)| {
            let mut w = Eval::default();
            f(&mut w);
            evaluate(&board, &w) - base
        };
        // Pit 6: 2 seeds against North's 0.
        assert_eq!(with(|w| w.near_store = 3), 3 * 2);
        // South's empty pit 2 faces North's 9 (pit 5); North's empty pits 1 and 6 face South's
        // pits 6 and 1.
        assert_eq!(with(|w| w.capture = 1), 1 - 2);
        // No sow of either side ends in its store; South's pit 6 with 1 seed would.
        assert_eq!(with(|w| w.extra_turn = 1), 0);
        let pos = kalah("s/1.0.0.0.0.1/0.0.0.0.9.0/20.17/0");
        assert_eq!(
            evaluate(
                pos.board(),
                &Eval {
                    extra_turn: 5,
                    ..Eval::default()
                }
            ) - evaluate(pos.board(), &Eval::default()),
            5
        );
        assert_eq!(with(|w| w.mobility = 1), 2 - 1);
        assert_eq!(with(|w| w.store = 5), 4);
    }

    #[test]
    fn eval_options_are_declared_and_set() {
        let mut bot = AlphaBetaBot::default();
        let names: Vec<String> = bot.options().into_iter().map(|d| d.name).collect();
        for (name, _) in Eval::default().options() {
            assert!(names.iter().any(|n| n == name), "{name}");
        }
        bot.set_option("EvalCapture", "7").unwrap();
        bot.set_option("evalstore", "-3").unwrap();
        assert_eq!(bot.eval.capture, 7);
        assert_eq!(bot.eval.store, -3);
        assert!(bot.set_option("EvalMobility", "65").is_err());
        assert!(bot.set_option("EvalMobility", "x").is_err());
        assert_eq!(bot.settings(&GoLimits::default()).eval, bot.eval);
    }

    /// `bot`'s move in `pos` on a bare `go`, and the `info` lines it printed.
    fn hard_move(bot: &mut AlphaBetaBot, pos: &Position) -> (Move, String) {
        let stop = AtomicU64::new(0);
        let mut out = Vec::new();
        let mv = {
            let mut search = Search::new(GoLimits::default(), &stop, &mut out);
            bot.think(pos, &mut search)
        };
        (mv, String::from_utf8(out).unwrap())
    }

    /// On Kalah(3,3) Hard's own database holds every position, so each of its moves, along
    /// games against random moves, is proven and keeps the value plain minimax gives.
    #[test]
    fn hard_plays_proven_optimal_moves_where_its_solver_reaches() {
        let ruleset: Ruleset = "kalah:pits=3,seeds=3".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(30);
        let mut bot = AlphaBetaBot::default();
        for game in 0..4 {
            bot.new_game(ruleset, game);
            let mut pos = Position::new(ruleset);
            while !pos.is_over() {
                let mv = if pos.to_move() == Some(Side::South) {
                    let (mv, info) = hard_move(&mut bot, &pos);
                    // Final margins, as `score exact` reports them.
                    let best = minimax(&pos);
                    assert_eq!(minimax_move(&pos, mv), best, "{pos}: {mv}");
                    assert!(info.contains(&format!("score exact {best} ")), "{info}");
                    assert!(info.contains("string solver"), "{info}");
                    mv
                } else {
                    *pos.legal_moves().choose(&mut rng).unwrap()
                };
                pos.play(mv).unwrap();
            }
        }
    }

    /// Above Skill 20 the deep solver answers a share of the moves, all of them at Skill 25
    /// (where every move is then optimal by plain minimax, the won-ending rail's included);
    /// Skill 20 never draws it, so the skills below play the games they were rated on.
    #[test]
    fn the_strongest_skills_play_the_deep_solvers_proven_moves() {
        let ruleset: Ruleset = "kalah:pits=3,seeds=3".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(31);
        let mut deep = Vec::new();
        for skill in ["25", "22.5", "20"] {
            let mut bot = AlphaBetaBot::default();
            bot.set_option("Skill", skill).unwrap();
            let mut deep_moves = 0;
            for game in 0..6 {
                bot.new_game(ruleset, game);
                let mut pos = Position::new(ruleset);
                while !pos.is_over() {
                    let mv = if pos.to_move() == Some(Side::South) {
                        let (mv, info) = hard_move(&mut bot, &pos);
                        if info.contains("string deep solver") {
                            deep_moves += 1;
                            assert!(info.contains(&format!("score exact {} ", minimax(&pos))));
                        }
                        if skill == "25" {
                            assert_eq!(minimax_move(&pos, mv), minimax(&pos), "{pos}: {mv}");
                        }
                        mv
                    } else {
                        *pos.legal_moves().choose(&mut rng).unwrap()
                    };
                    pos.play(mv).unwrap();
                }
            }
            if skill == "20" {
                assert!(bot.deep.is_none());
            }
            deep.push(deep_moves);
        }
        assert!(deep[0] > deep[1] && deep[1] > 0 && deep[2] == 0, "{deep:?}");
    }

    /// #47: Hard built its Kalah(6,4) database at the first `newgame` (about a second there).
    /// It is built at the handshake's `isready` instead, once per process: the `newgame` that
    /// follows keeps that very solver. The other levels load nothing.
    #[test]
    fn hard_loads_its_tables_at_isready_and_newgame_keeps_them() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap();
        let mut bot = AlphaBetaBot::default();
        assert!(bot.exact.is_none());
        bot.ready();
        let loaded: *const Exact = bot.exact.as_ref().expect("loaded at isready");
        assert_eq!(bot.exact.as_ref().map(Exact::spec), Some(spec));
        bot.new_game(Ruleset::kalah(6, 4), 1);
        assert!(std::ptr::eq(bot.exact.as_ref().unwrap(), loaded));
        let mut easy = AlphaBetaBot::default();
        easy.set_option("level", "easy").unwrap();
        easy.ready();
        assert!(easy.exact.is_none());
    }

    /// From the start of Kalah(6,4) Hard plays its book move, whose value is the published
    /// one (+8, Irving et al. 2000); with its own depth set, it searches as before.
    #[test]
    fn hard_plays_the_book_at_its_own_settings_only() {
        let ruleset = Ruleset::kalah(6, 4);
        let pos = Position::new(ruleset);
        let entry = crate::book::kalah6().lookup(pos.board()).unwrap();
        let mut bot = AlphaBetaBot::default();
        bot.new_game(ruleset, 1);
        let (mv, info) = hard_move(&mut bot, &pos);
        assert_eq!(mv, Move::Pit(entry.pit));
        assert!(
            info.contains("score exact 8") && info.contains("string book"),
            "{info}"
        );
        bot.set_option("Depth", "3").unwrap();
        let (_, info) = hard_move(&mut bot, &pos);
        assert!(!info.contains("book") && info.contains("depth 3"), "{info}");
    }

    /// Oware has no solver and no book: Hard's move is its search's, as before.
    #[test]
    fn hard_on_oware_is_the_search_alone() {
        let pos = Position::new(Ruleset::oware());
        let mut bot = AlphaBetaBot::default();
        bot.new_game(Ruleset::oware(), 1);
        assert!(bot.exact.is_none());
        let (mv, info) = hard_move(&mut bot, &pos);
        assert!(!info.contains("exact"), "{info}");
        let settings = AlphaBetaBot::default().settings(&GoLimits::default());
        let stop = AtomicU64::new(0);
        let mut out = Vec::new();
        let mut search = Search::new(GoLimits::default(), &stop, &mut out);
        let it = super::search(&pos, settings, &mut Tt::new(16), &mut search).last;
        assert_eq!(Some(mv), it.map(|it| it.best));
    }

    #[test]
    fn the_skill_scale_is_monotone_from_weakest_to_strongest() {
        let mut last = skill_knobs(SKILL_MIN);
        assert_eq!((last.depth, last.noise, last.nodes), (1.0, 10.0, None));
        for i in 1..=240 {
            let k = skill_knobs(SKILL_MIN + (SKILL_MAX - SKILL_MIN) * i as f64 / 240.0);
            assert!(
                k.depth >= last.depth && k.noise <= last.noise,
                "{k:?} after {last:?}"
            );
            assert!(
                k.extras >= last.extras && (0.0..=1.0).contains(&k.extras),
                "{k:?}"
            );
            assert!(
                k.exact >= last.exact && (0.0..=1.0).contains(&k.exact),
                "{k:?}"
            );
            if let (Some(a), Some(b)) = (last.nodes, k.nodes) {
                assert!(b >= a, "{k:?}");
            }
            last = k;
        }
        assert_eq!(last.noise, 0.0);
        assert_eq!(last.extras, 1.0);
        assert_eq!(last.exact, 1.0);
        assert_eq!(skill_knobs(20.0).exact, 0.0);
        // Below Skill 0 only the noise grows: depth 1, no budget, no book or solver.
        let below = skill_knobs(-2.5);
        assert_eq!((below.depth, below.nodes, below.extras), (1.0, None, 0.0));
        assert!(below.noise > 4.0 && below.noise < 10.0, "{below:?}");
        // Outside the scale: its ends.
        assert_eq!(skill_knobs(-8.0), skill_knobs(SKILL_MIN));
        assert_eq!(skill_knobs(99.0), skill_knobs(SKILL_MAX));
    }

    /// The skills from 0 up play exactly the knobs they had before the scale reached below 0
    /// (issue 46), so the games the curve was fitted to from there up stay valid: the old
    /// scale's rows written out here, interpolated as they were, at many points.
    #[test]
    fn the_skills_from_zero_up_keep_their_knobs() {
        // (skill, depth, noise, nodes (0 = none), extras, exact)
        const OLD: [(f64, f64, f64, f64, f64, f64); 7] = [
            (0.0, 1.0, 4.0, 0.0, 0.0, 0.0),
            (5.0, 2.0, 2.0, 0.0, 0.0, 0.0),
            (10.0, 3.0, 1.0, 0.0, 0.0, 0.0),
            (14.0, 5.0, 0.4, 0.0, 0.0, 0.0),
            (17.0, 8.0, 0.0, 150_000.0, 1.0, 0.0),
            (20.0, 20.0, 0.0, 600_000.0, 1.0, 0.0),
            (25.0, 20.0, 0.0, 600_000.0, 1.0, 1.0),
        ];
        let old = |s: f64| {
            let i = OLD.iter().rposition(|r| r.0 < s).unwrap_or(0).min(5);
            let (a, b) = (OLD[i], OLD[i + 1]);
            let f = (s - a.0) / (b.0 - a.0);
            let lerp = |x: f64, y: f64| x + f * (y - x);
            SkillKnobs {
                depth: lerp(a.1, b.1).max(1.0),
                noise: lerp(a.2, b.2).max(0.0),
                nodes: (a.3 > 0.0 && b.3 > 0.0)
                    .then(|| (a.3.ln() + f * (b.3.ln() - a.3.ln())).exp().round() as u64),
                extras: lerp(a.4, b.4).clamp(0.0, 1.0),
                exact: lerp(a.5, b.5).clamp(0.0, 1.0),
            }
        };
        // Every row, and 5,001 points: steps of 0.01, and the same shifted by a third of one.
        let points = OLD
            .iter()
            .map(|r| r.0)
            .chain((0..=2500).map(|i| i as f64 / 100.0))
            .chain((0..2500).map(|i| i as f64 / 100.0 + 1.0 / 300.0));
        for s in points {
            assert_eq!(skill_knobs(s), old(s), "Skill {s}");
        }
        assert_eq!(SKILL_MAX, 25.0);
        assert_eq!(skill_knobs(99.0), old(25.0));
    }

    #[test]
    fn elo_reads_the_curve_and_limit_strength_turns_it_off() {
        let limits = GoLimits::default();
        let mut bot = AlphaBetaBot::default();
        bot.set_option("Level", "normal").unwrap();
        let normal = bot.settings(&limits);
        assert_eq!(bot.strength(), None);
        bot.set_option("Elo", "1300").unwrap();
        let (skill, inside) = EloCurve::bundled().knob_for(1300.0);
        assert!(inside);
        assert_eq!(bot.strength(), Some(skill));
        let k = skill_knobs(skill);
        let got = bot.settings(&limits);
        assert_eq!((got.depth, got.noise), (k.depth.floor() as u32, k.noise));
        // `go depth` still caps a limited strength.
        let capped = mancala_protocol::GoLimits {
            depth: Some(1),
            ..GoLimits::default()
        };
        assert_eq!(bot.settings(&capped).depth, 1);
        bot.set_option("LimitStrength", "false").unwrap();
        assert_eq!(bot.strength(), None);
        assert_eq!(bot.settings(&limits), normal);
        bot.set_option("LimitStrength", "true").unwrap();
        // Elo wins over Skill; without Elo, Skill plays.
        bot.set_option("Skill", "2.5").unwrap();
        assert_eq!(bot.strength(), Some(skill));
        let mut plain = AlphaBetaBot::default();
        plain.set_option("Skill", "2.5").unwrap();
        assert_eq!(plain.strength(), Some(2.5));
        // An Elo beyond the curve plays its nearer end.
        plain.set_option("Elo", "2000").unwrap();
        assert_eq!(plain.strength(), Some(SKILL_MAX));
        // The spin's bottom, 500, is on the curve's part below Skill 0 (issue 46).
        plain.set_option("Elo", "500").unwrap();
        let (skill, inside) = EloCurve::bundled().knob_for(500.0);
        assert!(inside && (SKILL_MIN..0.0).contains(&skill), "{skill}");
        assert_eq!(plain.strength(), Some(skill));
    }

    #[test]
    fn strength_options_refuse_bad_values_with_what_fits() {
        let mut bot = AlphaBetaBot::default();
        let decls = bot.options();
        let elo = decls.iter().find(|d| d.name == "Elo").unwrap();
        assert_eq!(
            elo.kind,
            OptionKind::Spin {
                default: ELO_DEFAULT,
                min: ELO_MIN,
                max: ELO_MAX
            }
        );
        const { assert!(ELO_MIN <= 600 && ELO_MAX >= 1900) };
        for (name, value, want) in [
            ("Elo", "499", "expected 500..=2000"),
            ("Elo", "high", "expected 500..=2000"),
            ("Skill", "25.5", "expected a skill from -5 to 25"),
            ("Skill", "-5.5", "expected a skill from -5 to 25"),
            ("LimitStrength", "maybe", "expected true or false"),
            (
                "EloCurve",
                "/no/such/curve.txt",
                "EloCurve `/no/such/curve.txt`",
            ),
        ] {
            let e = bot.set_option(name, value).unwrap_err();
            assert!(e.contains(want), "{name}={value}: {e}");
        }
        // A curve file that is not one: the line and what is wrong.
        let dir = std::env::temp_dir().join(format!("elo-curve-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("bad.txt");
        std::fs::write(
            &path,
            "format mancala-elo-curve 1\nknob Depth\nrange 0 1\nfit bernstein 1\ncoefficients 1 2\n",
        )
        .unwrap();
        let e = bot
            .set_option("EloCurve", path.to_str().unwrap())
            .unwrap_err();
        assert!(e.contains("a curve over `Depth`"), "{e}");
        std::fs::write(&path, "format mancala-elo-curve 1\nrange 5 1\n").unwrap();
        let e = bot
            .set_option("EloCurve", path.to_str().unwrap())
            .unwrap_err();
        assert!(e.contains("line 2"), "{e}");
        // A good one is read: its range is what Elo now spans.
        std::fs::write(
            &path,
            "format mancala-elo-curve 1\nknob Skill\nrange 0 20\nfit bernstein 1\ncoefficients 1000 1100\n",
        )
        .unwrap();
        bot.set_option("EloCurve", path.to_str().unwrap()).unwrap();
        bot.set_option("Elo", "1050").unwrap();
        assert!((bot.strength().unwrap() - 10.0).abs() < 1e-6);
        bot.set_option("EloCurve", "").unwrap();
        assert_eq!(bot.curve, EloCurve::bundled());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// The weakest skill (the most noise) against a perfect defender, from won endings of
    /// Kalah(4,3) with few seeds left: it wins every one, by the margin or less, never losing
    /// the win (the rail of [`RAIL_SEEDS`]).
    #[test]
    fn the_weakest_skill_finishes_every_won_ending() {
        let ruleset: Ruleset = "kalah:pits=4,seeds=3".parse().unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(46);
        let mut tried = 0;
        for game in 0..400 {
            let mut pos = Position::new(ruleset);
            // Random play down to a small ending with the mover winning.
            while !pos.is_over()
                && pos.board().row_sum(Side::South) + pos.board().row_sum(Side::North) > 10
            {
                let mv = *pos.legal_moves().choose(&mut rng).unwrap();
                pos.play(mv).unwrap();
            }
            let Some(me) = pos.to_move() else { continue };
            // `minimax` is the final store difference with best play: the mover wins.
            if minimax(&pos) <= 0 {
                continue;
            }
            tried += 1;
            let mut bot = AlphaBetaBot::default();
            bot.set_option("Skill", &SKILL_MIN.to_string()).unwrap();
            bot.new_game(ruleset, game);
            while let Some(side) = pos.to_move() {
                let mv = if side == me {
                    hard_move(&mut bot, &pos).0
                } else {
                    // The defender: a best sow by plain minimax.
                    *pos.legal_moves()
                        .iter()
                        .max_by_key(|&&m| minimax_move(&pos, m))
                        .unwrap()
                };
                pos.play(mv).unwrap();
            }
            assert!(
                pos.store_diff(me) > 0,
                "game {game}: the won ending was lost"
            );
            if tried == 25 {
                break;
            }
        }
        assert!(tried >= 25, "only {tried} won endings");
    }

    #[test]
    fn noise_is_reproducible_and_zero_noise_is_the_best_move() {
        let pos = Position::new("kalah".parse().unwrap());
        let scores = run(
            &pos,
            Settings {
                depth: 3,
                noise: 1.0,
                nodes: None,
                eval: Eval::default(),
            },
        )
        .last
        .unwrap()
        .root_scores;
        assert_eq!(scores.len(), 6);
        let draw = |seed| {
            let mut rng = ChaCha8Rng::seed_from_u64(seed);
            (0..20)
                .map(|_| sample_softmax(&scores, 1.5, &mut rng).unwrap())
                .collect::<Vec<_>>()
        };
        assert_eq!(draw(5), draw(5));
        let best = scores.iter().max_by_key(|&&(_, s)| s).unwrap();
        let mut rng = ChaCha8Rng::seed_from_u64(1);
        assert_eq!(sample_softmax(&scores, 1e-9, &mut rng), Some(best.0));
    }
}
