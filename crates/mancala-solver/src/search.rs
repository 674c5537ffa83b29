//! The exact search: MTD(f) over a fail-soft alpha-beta with a bounds transposition table.
//!
//! Design decisions, and why:
//!
//! - **Value = future gain** (see `board.rs`): `v(p) = max over sows of gain + (extra turn ?
//!   v(child) : -v(child))`, so an extra turn keeps the window and the sign, a change of player
//!   negates both. Values are small integers in `[-seeds, +seeds]` (seeds left in the pits), which
//!   also bounds every node before searching it.
//! - **TT of bounds, exact keys**: an entry keeps a proven lower and upper bound of the exact
//!   value (never a depth: every result here is exact), the best move and a work estimate for
//!   replacement. Keys are the full 128-bit pit vector, so a hit can never be a collision.
//!   MTD(f)'s null-window passes refine the same bounds until they meet.
//! - **Enhanced transposition cutoffs**: every child is made first and its TT bucket or
//!   database entry prefetched, then all are looked up (TT, endgame database, or a finished
//!   game); if one already proves `>= beta` the node is cut without a search. Prefetching makes
//!   the lookups' cache misses overlap: without it ETC cost more time than it saved.
//! - **Move ordering**: the TT move, then by immediate gain (captures; an extra turn counts 3
//!   seeds more: 12 % fewer nodes on the fixed set than extra turns first), then by the
//!   seeds the sow leaves on the mover's side (Kalah(6,5) positions: 24 % fewer
//!   nodes), then the pit nearest the store. That last tie-break alone cut the nodes of a Kalah(6,4)
//!   position 6.5× (40.6 M to 6.2 M); ordering by the children's TT bounds did not help (5.8 M
//!   without, 6.2 M with), so it is not used.
//! - **No iterative deepening by default**: with ETC, heuristic passes before the exact one cost
//!   more nodes than they save (Kalah(6,4), K = 20: 35.5 M nodes with passes to 24 sows, 23.8 M
//!   without). [`Solver::set_id_depth`] still offers them; their leaf is "no further gain",
//!   rounded to the parity every exact value has (value ≡ seeds in the pits, mod 2).
//! - **Endgame databases** (`db.rs`) answer every position with few seeds at once.
//! - **Aborting**: a caller's check runs every 4096 nodes; an aborted search stores nothing more
//!   and reports `None`, so the table only ever holds proven bounds.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering::Relaxed};
use std::sync::Arc;

use super::board::{BoardSpec, SBoard, Sow};
use super::db::Db;
use super::values::{Known, ValueCache};

/// One TT entry (24 bytes in the table, see [`Tt`]): the key, bounds, best move, log2 of the
/// subtree's nodes, depth.
#[derive(Clone, Copy, Default)]
struct Entry {
    key_lo: u64,
    key_hi: u64,
    lo: i8,
    hi: i8,
    mv: u8,
    work: u8,
    /// [`EXACT`]: the bounds are proven. Otherwise the bounds of a depth-limited search of this
    /// many sows (heuristic, used only by the iterative-deepening passes).
    depth: u8,
}

/// Depth of a proven entry, and the depth argument of an exact search.
pub const EXACT: u8 = u8::MAX;

/// The transposition table: two-slot buckets, the slot with less work is replaced.
///
/// Shared by search threads without locks: a slot is three words, the entry's data and the
/// two key halves each XOR-ed with the data. A reader recomputes the key from the three words
/// it loaded; a slot torn by a concurrent write then fails the key check (a miss) instead of
/// pairing one position's key with another's bounds. Two racing writes can lose a merge of
/// bounds, never make one wrong.
pub struct Tt {
    slots: Vec<AtomicU64>,
    mask: usize,
}

/// Words per slot: key_lo ^ data, key_hi ^ data, data.
const WORDS: usize = 3;

impl Entry {
    fn pack(&self) -> u64 {
        u64::from_le_bytes([
            self.lo as u8,
            self.hi as u8,
            self.mv,
            self.work,
            self.depth,
            0,
            0,
            0,
        ])
    }

    fn unpack(key_lo: u64, key_hi: u64, data: u64) -> Entry {
        let d = data.to_le_bytes();
        Entry {
            key_lo,
            key_hi,
            lo: d[0] as i8,
            hi: d[1] as i8,
            mv: d[2],
            work: d[3],
            depth: d[4],
        }
    }
}

impl Tt {
    /// A table of about `mib` MiB (rounded down to a power of two buckets, at least 1024 slots).
    pub fn new(mib: usize) -> Tt {
        let want = (mib << 20) / (2 * WORDS * 8);
        let mut buckets = 512usize;
        while buckets * 2 <= want {
            buckets *= 2;
        }
        let words = super::huge_vec(buckets * 2 * WORDS, 0u64);
        let mut words = std::mem::ManuallyDrop::new(words);
        // SAFETY: AtomicU64 has the same size and bit validity as u64, and on the 64-bit
        // targets this crate runs on the same alignment (checked below).
        const _: () = assert!(std::mem::align_of::<AtomicU64>() == std::mem::align_of::<u64>());
        let slots = unsafe {
            Vec::from_raw_parts(
                words.as_mut_ptr() as *mut AtomicU64,
                words.len(),
                words.capacity(),
            )
        };
        Tt {
            slots,
            mask: buckets - 1,
        }
    }

    pub fn bytes(&self) -> usize {
        self.slots.len() * 8
    }

    pub fn clear(&self) {
        for w in &self.slots {
            w.store(0, Relaxed);
        }
    }

    /// Index of the first word of the key's bucket.
    #[inline(always)]
    fn bucket(&self, key: u128) -> usize {
        let lo = key as u64;
        let hi = (key >> 64) as u64;
        let h = (lo ^ hi.rotate_left(29).wrapping_mul(0x9E37_79B9_7F4A_7C15))
            .wrapping_mul(0xD6E8_FEB8_6659_FD93);
        ((h >> 32) as usize & self.mask) * 2 * WORDS
    }

    #[inline(always)]
    fn prefetch(&self, key: u128) {
        super::prefetch_line(&self.slots[self.bucket(key)]);
    }

    /// The entry in slot `at` (word index), whatever key it holds.
    #[inline(always)]
    fn load(&self, at: usize) -> Entry {
        let w = &self.slots[at..at + WORDS];
        let data = w[2].load(Relaxed);
        Entry::unpack(w[0].load(Relaxed) ^ data, w[1].load(Relaxed) ^ data, data)
    }

    #[inline(always)]
    fn save(&self, at: usize, e: &Entry) {
        let w = &self.slots[at..at + WORDS];
        let data = e.pack();
        w[2].store(data, Relaxed);
        w[0].store(e.key_lo ^ data, Relaxed);
        w[1].store(e.key_hi ^ data, Relaxed);
    }

    #[inline(always)]
    fn probe(&self, key: u128) -> Option<Entry> {
        let i = self.bucket(key);
        let (lo, hi) = (key as u64, (key >> 64) as u64);
        (0..2)
            .map(|s| self.load(i + s * WORDS))
            .find(|e| e.key_lo == lo && e.key_hi == hi)
    }

    #[inline(always)]
    fn store(&self, key: u128, lo: i32, hi: i32, mv: u8, work: u8, depth: u8) {
        let i = self.bucket(key);
        let (klo, khi) = (key as u64, (key >> 64) as u64);
        let pair = [self.load(i), self.load(i + WORDS)];
        let fresh = |depth: u8| Entry {
            key_lo: klo,
            key_hi: khi,
            lo: i8::MIN,
            hi: i8::MAX,
            depth,
            ..Entry::default()
        };
        let (slot, mut e) = match pair.iter().position(|e| e.key_lo == klo && e.key_hi == khi) {
            Some(s) => (s, pair[s]),
            None => {
                // Replace the cheaper entry; heuristic entries go before proven ones.
                let cost = |e: &Entry| (e.depth == EXACT) as u16 * 256 + e.work as u16;
                let s = if cost(&pair[0]) <= cost(&pair[1]) {
                    0
                } else {
                    1
                };
                (s, fresh(depth))
            }
        };
        if e.depth == EXACT && depth != EXACT {
            return; // never weaken a proof with a heuristic result
        }
        if e.depth != depth {
            // A deeper or proven result replaces a shallower one.
            if depth < e.depth {
                return;
            }
            e = fresh(depth);
        }
        e.lo = e.lo.max(lo as i8);
        e.hi = e.hi.min(hi as i8);
        e.mv = mv;
        e.work = e.work.max(work);
        self.save(i + slot * WORDS, &e);
    }
}

/// The solver: a TT, an optional endgame database and counters. Reuse one across positions of
/// the same rules (the TT then carries over; values never depend on the history).
pub struct Solver {
    spec: BoardSpec,
    tt: Arc<Tt>,
    db: Option<Arc<Db>>,
    db_seeds: i32,
    /// Nodes (calls of the alpha-beta) since the solver was made or [`Solver::reset_nodes`].
    pub nodes: u64,
    /// Endgame database hits.
    pub db_hits: u64,
    aborted: bool,
    id_depth: u8,
    /// Print every MTD(f) pass (depth, test, result, nodes) to stderr (`SOLVER_TRACE=1`).
    trace: bool,
    /// Search threads of an exact pass ([`Solver::set_threads`]).
    threads: usize,
    /// With several threads: the positions each thread is searching now (ABDADA), so that a
    /// thread defers a move another one is already on. Shared with the helpers.
    busy: Option<Arc<Vec<AtomicU64>>>,
    /// Values proven before, here or by other programs ([`Solver::set_values`]).
    values: Option<Arc<ValueCache>>,
    /// A helper thread of [`Solver::pass`]: it puts off a node's first child too when another
    /// thread is on it. Why: the main thread never defers its first child (young brothers
    /// wait), and a helper that did the same searched the main thread's first children beside
    /// it, node for node (Kalah(6,5), K = 30: 134–136 M nodes on two threads against 125 M on
    /// one; deferring them, 126–127 M; docs/solved.md).
    helper: bool,
}

/// Slots of the table of positions being searched (a power of two).
const BUSY_SLOTS: usize = 1 << 14;

/// A position's slot in the busy table and its (nonzero) fingerprint there.
#[inline(always)]
fn busy_slot(key: u128) -> (usize, u64) {
    let h =
        ((key as u64) ^ ((key >> 64) as u64).rotate_left(23)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    ((h >> 50) as usize & (BUSY_SLOTS - 1), h | 1)
}

/// Move-ordering bonus of an extra turn, in units of a seed of immediate gain (4096): it ranks
/// as if it gained 3 seeds more (a plain extra turn, gain 1, ties with a sow gaining 4 and
/// goes after a larger capture). Extra turns above every capture (the old rule) cost 14 % more
/// nodes on the fixed set (docs/solved.md "Where the nodes go"); 2 or 4 seeds, 1.5 %.
const EXTRA_TURN_RANK: i32 = 3 * 4096;

/// Upper bound of moves (pits) per side.
const MAXP: usize = 8;

/// [`Solver::prefetch`]'s answer for a child the database does not cover.
const NOT_IN_DB: usize = usize::MAX;

impl Solver {
    /// A solver for `spec` with a TT of `tt_mib` MiB and an optional database (for the same
    /// spec).
    pub fn new(spec: BoardSpec, tt_mib: usize, db: Option<Arc<Db>>) -> Solver {
        if let Some(db) = &db {
            assert_eq!(db.spec(), spec, "database built for other rules");
        }
        let db_seeds = db.as_ref().map_or(-1, |d| d.max_seeds() as i32);
        Solver {
            spec,
            tt: Arc::new(Tt::new(tt_mib)),
            db,
            db_seeds,
            nodes: 0,
            db_hits: 0,
            aborted: false,
            id_depth: 0,
            trace: std::env::var_os("SOLVER_TRACE").is_some(),
            threads: 1,
            busy: None,
            values: None,
            helper: false,
        }
    }

    /// Search exact passes with `threads` threads sharing the TT (default 1). The helpers
    /// search the same null window; positions one thread is on are deferred by the others
    /// (simplified ABDADA; a helper defers a node's first child too), so they split the tree;
    /// the pass ends when the first thread finishes, and the value is the same exact one.
    pub fn set_threads(&mut self, threads: usize) {
        self.threads = threads.max(1);
        self.busy = (self.threads > 1)
            .then(|| Arc::new((0..BUSY_SLOTS).map(|_| AtomicU64::new(0)).collect()));
    }

    /// A helper thread's solver: the same tables, its own counters.
    fn helper(&self) -> Solver {
        Solver {
            spec: self.spec,
            tt: Arc::clone(&self.tt),
            db: self.db.clone(),
            db_seeds: self.db_seeds,
            nodes: 0,
            db_hits: 0,
            aborted: false,
            id_depth: self.id_depth,
            trace: false,
            threads: 1,
            busy: self.busy.clone(),
            values: self.values.clone(),
            helper: true,
        }
    }

    /// One null-window pass `ab(b, beta - 1, beta)`, with helper threads when configured and
    /// the position is big enough to be worth them.
    fn pass(
        &mut self,
        b: &SBoard,
        beta: i32,
        depth: u8,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> i32 {
        if self.threads == 1 || depth != EXACT || b.seeds() <= self.db_seeds + 12 {
            return self.ab(b, beta - 1, beta, depth, abort);
        }
        let stop = AtomicBool::new(false);
        let helpers: Vec<Solver> = (1..self.threads).map(|_| self.helper()).collect();
        std::thread::scope(|scope| {
            let running: Vec<_> = helpers
                .into_iter()
                .map(|mut h| {
                    let stop = &stop;
                    scope.spawn(move || {
                        h.ab(b, beta - 1, beta, depth, &mut |_| stop.load(Relaxed));
                        (h.nodes, h.db_hits)
                    })
                })
                .collect();
            let r = self.ab(b, beta - 1, beta, depth, abort);
            stop.store(true, Relaxed);
            for h in running {
                let (nodes, hits) = h.join().expect("solver helper panicked");
                self.nodes += nodes;
                self.db_hits += hits;
            }
            r
        })
    }

    pub fn spec(&self) -> BoardSpec {
        self.spec
    }

    pub fn db(&self) -> Option<&Db> {
        self.db.as_deref()
    }

    pub fn tt_bytes(&self) -> usize {
        self.tt.bytes()
    }

    pub fn reset_nodes(&mut self) {
        self.nodes = 0;
        self.db_hits = 0;
    }

    pub fn clear_tt(&mut self) {
        self.tt.clear();
    }

    /// Exact value of `b` (mover's future gain), or `None` if `abort` said stop. `guess` is the
    /// first MTD(f) probe (any value; a close one saves passes). With a value cache, a position
    /// proven before is answered from it (no nodes), and a new proof above the database is
    /// added to it.
    pub fn solve(
        &mut self,
        b: &SBoard,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<i32> {
        let cached = self.values.clone().filter(|_| b.seeds() > self.db_seeds);
        if let Some(known) = cached.as_ref().and_then(|c| c.get(b)) {
            return Some(known.value);
        }
        let bad_before = self.db.as_ref().map_or(0, |d| d.bad_reads());
        let v = self
            .bounds(b, guess, abort)
            .and_then(|(lo, hi)| (lo == hi).then_some(lo))?;
        // Never keep a value found while the database served entries that cannot be true
        // (they were bypassed, but the file is damaged), nor one that cannot be true itself.
        let sound = self.db.as_ref().map_or(0, |d| d.bad_reads()) == bad_before
            && crate::board::plausible(&self.spec, b.seeds(), v);
        if let Some(c) = cached.filter(|_| sound) {
            // The proof's root move, checked (cheap: the TT holds its bound), goes with it.
            let best = self.checked_tt_move(b, v, abort);
            c.insert(b, Known { value: v, best });
        }
        Some(v)
    }

    /// A proven optimal pit of `b` (0-based) that the value cache holds.
    pub fn cached_best(&self, b: &SBoard) -> Option<usize> {
        self.values.as_ref()?.get(b)?.best
    }

    /// The TT's move for `b` if it is proven to keep the value `v`. Why the check: the TT
    /// keeps the move of the last search of `b`, and one that failed low (or another thread's
    /// search in another window) leaves a move that is only the best of bounds. Cheap after a
    /// solve: the TT holds the bound that decides it.
    fn checked_tt_move(
        &mut self,
        b: &SBoard,
        v: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<usize> {
        self.tt_move(b)
            .filter(|&i| self.move_at_least(b, i, v, abort) == Some(true))
    }

    /// A proven optimal sow of `b` (0-based pit), whose exact value is `v`, or `None` if
    /// `abort` stopped the search first. Every caller that shows or plays an optimal sow asks
    /// here: the pit the value cache kept with the value, else the TT's move once checked, else
    /// the first other pit proven to keep `v` (pit order).
    pub fn optimal_move(
        &mut self,
        b: &SBoard,
        v: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<usize> {
        if let Some(m) = self
            .values
            .as_ref()
            .and_then(|c| c.get(b))
            .filter(|k| k.value == v)
        {
            if let Some(m) = m.best {
                return Some(m);
            }
        }
        let tt = self.tt_move(b);
        if let Some(m) = tt {
            if self.move_at_least(b, m, v, abort)? {
                return Some(m);
            }
        }
        for i in (0..self.spec.pits).filter(|&i| b.c[i] != 0 && Some(i) != tt) {
            if self.move_at_least(b, i, v, abort)? {
                return Some(i);
            }
        }
        // Unreachable for an exact `v`: some sow keeps the value.
        None
    }

    /// The exact value of `b` and a proven optimal sow ([`Solver::solve`] then
    /// [`Solver::optimal_move`]), or `None` if `abort` stopped the search first.
    pub fn solve_with_move(
        &mut self,
        b: &SBoard,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<(i32, usize)> {
        let v = self.solve(b, guess, abort)?;
        Some((v, self.optimal_move(b, v, abort)?))
    }

    /// Answer and remember root values with `values` (see [`Solver::solve`]).
    pub fn set_values(&mut self, values: Arc<ValueCache>) {
        self.values = Some(values);
    }

    /// The value cache, if one is set.
    pub fn values(&self) -> Option<&ValueCache> {
        self.values.as_deref()
    }

    /// Another solver on the same tables (TT, database, value cache), with its own counters:
    /// for threads that each solve their own positions and share what they learn.
    pub fn sharing_tables(&self) -> Solver {
        Solver {
            trace: self.trace,
            helper: false,
            ..self.helper()
        }
    }

    /// MTD(f) toward the exact value; returns the proven `(lo, hi)` bounds (equal when solved,
    /// or the bounds reached when aborted — `None` only if nothing at all is known).
    pub fn bounds(
        &mut self,
        b: &SBoard,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<(i32, i32)> {
        assert!(b.mover_can_move(), "solve called on a finished position");
        self.aborted = false;
        let mut g = guess;
        // Iterative deepening with the heuristic leaf fills the TT with good moves and gives
        // MTD(f) a close first guess; worth it only above the database.
        if b.seeds() > self.db_seeds + 4 {
            let mut d = 2;
            while d <= self.id_depth {
                let (lo, hi) = self.mtd(b, g, d, abort);
                if self.aborted {
                    return Some((-b.seeds(), b.seeds()));
                }
                g = lo.max(hi.min(g));
                d += 2;
            }
        }
        Some(self.mtd(b, g, EXACT, abort))
    }

    /// Exact MTD(f) stopped as soon as the value is known to lie outside the exclusive window
    /// `(alpha, beta)`: the proven `(lo, hi)`, exact (`lo == hi`), or `hi <= alpha`, or
    /// `lo >= beta` (a subproblem of a split solve, `split.rs`). `None` if aborted.
    pub fn bounds_within(
        &mut self,
        b: &SBoard,
        alpha: i32,
        beta: i32,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<(i32, i32)> {
        assert!(b.mover_can_move(), "solve called on a finished position");
        self.aborted = false;
        let g = guess.clamp(alpha + 1, (beta - 1).max(alpha + 1));
        let r = self.mtd_within(b, g, EXACT, (alpha, beta), abort);
        (!self.aborted).then_some(r)
    }

    /// MTD(f) at `depth`: null-window passes until the bounds meet (or an abort).
    fn mtd(
        &mut self,
        b: &SBoard,
        guess: i32,
        depth: u8,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> (i32, i32) {
        self.mtd_within(b, guess, depth, (i32::MIN, i32::MAX), abort)
    }

    /// [`Solver::mtd`], stopped once the bounds leave the exclusive window `stop`.
    fn mtd_within(
        &mut self,
        b: &SBoard,
        guess: i32,
        depth: u8,
        stop: (i32, i32),
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> (i32, i32) {
        let seeds = b.seeds();
        let (mut lo, mut hi) = (-seeds, seeds);
        let mut g = guess.clamp(lo, hi);
        while lo < hi && hi > stop.0 && lo < stop.1 {
            let beta = if g == lo { g + 1 } else { g };
            let before = self.nodes;
            let r = self.pass(b, beta, depth, abort);
            if self.trace {
                eprintln!(
                    "pass depth {depth} beta {beta} -> {r}  nodes {}",
                    self.nodes - before
                );
            }
            if self.aborted {
                return (lo, hi);
            }
            g = r;
            if g < beta {
                hi = g;
            } else {
                lo = g;
            }
        }
        (lo, hi)
    }

    /// Deepest iterative-deepening pass (sows) before the exact search; 0 turns it off.
    pub fn set_id_depth(&mut self, depth: u8) {
        self.id_depth = depth.min(EXACT - 1);
    }

    /// Whether sowing pit `i` in `b` is worth at least `t` (`None` if aborted).
    pub fn move_at_least(
        &mut self,
        b: &SBoard,
        i: usize,
        t: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<bool> {
        self.aborted = false;
        let s = b.sow(&self.spec, i);
        let ok = if s.over {
            s.gain >= t
        } else if s.extra {
            // gain + v >= t  <=>  v >= t - gain
            let u = t - s.gain;
            self.ab(&s.next, u - 1, u, EXACT, abort) >= u
        } else {
            // gain - v >= t  <=>  v <= gain - t
            let u = s.gain - t;
            self.ab(&s.next, u, u + 1, EXACT, abort) <= u
        };
        (!self.aborted).then_some(ok)
    }

    /// The exact value of sowing pit `i` in `b` (`None` if aborted).
    pub fn move_value(
        &mut self,
        b: &SBoard,
        i: usize,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<i32> {
        let s = b.sow(&self.spec, i);
        if s.over {
            return Some(s.gain);
        }
        let sign = if s.extra { 1 } else { -1 };
        let v = self.solve(&s.next, sign * (guess - s.gain), abort)?;
        Some(s.gain + sign * v)
    }

    /// The exact value and every optimal move (0-based pits) of `b` (`guess`: see [`Solver::solve`]).
    pub fn best_moves(
        &mut self,
        b: &SBoard,
        guess: i32,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> Option<(i32, Vec<usize>)> {
        let v = self.solve(b, guess, abort)?;
        let mut best = Vec::new();
        for i in 0..self.spec.pits {
            if b.c[i] != 0 && self.move_at_least(b, i, v, abort)? {
                best.push(i);
            }
        }
        Some((v, best))
    }

    /// The move the TT holds for `b` (after a solve: an optimal one), if any.
    pub fn tt_move(&self, b: &SBoard) -> Option<usize> {
        self.tt
            .probe(b.key())
            .map(|e| e.mv as usize)
            .filter(|&m| m < self.spec.pits && b.c[m] != 0)
    }

    /// Whether another search thread is on `b` now (see [`Solver::set_threads`]).
    #[inline(always)]
    fn is_busy(&self, b: &SBoard) -> bool {
        let (slot, fp) = busy_slot(b.key());
        self.busy
            .as_ref()
            .is_some_and(|table| table[slot].load(Relaxed) == fp)
    }

    /// Starts loading where `b`'s value lives: its database entry or its TT bucket. Returns the
    /// entry's index in the database ([`NOT_IN_DB`] when the TT holds it), for
    /// [`Solver::exact_at`].
    #[inline(always)]
    fn prefetch(&self, b: &SBoard, seeds: i32) -> usize {
        if seeds <= self.db_seeds {
            if let Some(db) = &self.db {
                let at = db.index(b, seeds);
                db.prefetch_at(seeds, at);
                return at;
            }
        }
        self.tt.prefetch(b.key());
        NOT_IN_DB
    }

    /// [`Solver::exact_of`] of a child whose database index [`Solver::prefetch`] gave.
    #[inline(always)]
    fn exact_at(&mut self, seeds: i32, at: usize) -> Option<i32> {
        if at == NOT_IN_DB {
            return None;
        }
        let db = self.db.as_ref()?;
        self.db_hits += 1;
        db.get_at(seeds, at)
    }

    #[inline(always)]
    fn exact_of(&mut self, b: &SBoard, seeds: i32) -> Option<i32> {
        if seeds <= self.db_seeds {
            if let Some(db) = &self.db {
                self.db_hits += 1;
                return db.get(b, seeds);
            }
        }
        None
    }

    /// The heuristic leaf value of the iterative-deepening passes: no further gain, rounded to
    /// the parity every exact value of `b` has (value ≡ seeds in the pits, mod 2) toward the side
    /// with more seeds in its pits.
    #[inline(always)]
    fn leaf(b: &SBoard, seeds: i32) -> i32 {
        if seeds & 1 == 0 {
            0
        } else if 2 * b.mover_seeds() > seeds {
            1
        } else {
            -1
        }
    }

    /// Fail-soft alpha-beta on the future gain of `b` (a position with a legal move). `depth`
    /// is [`EXACT`] for a proof; otherwise sows left before the heuristic leaf value, clamped
    /// into the proven bounds.
    ///
    /// Every child is made first and its TT bucket or database entry prefetched, then all are
    /// looked up at once (enhanced transposition cutoffs and move ordering): the lookups are
    /// cache misses that then overlap instead of stalling one after another.
    fn ab(
        &mut self,
        b: &SBoard,
        mut alpha: i32,
        mut beta: i32,
        depth: u8,
        abort: &mut dyn FnMut(u64) -> bool,
    ) -> i32 {
        self.nodes += 1;
        if self.nodes & 4095 == 0 && abort(self.nodes) {
            self.aborted = true;
        }
        if self.aborted {
            return 0;
        }
        let seeds = b.seeds();
        if let Some(v) = self.exact_of(b, seeds) {
            return v;
        }
        let key = b.key();
        let (mut lo, mut hi) = (-seeds, seeds);
        let mut tt_mv = u8::MAX;
        if let Some(e) = self.tt.probe(key) {
            if e.depth == EXACT || (depth != EXACT && e.depth >= depth) {
                lo = lo.max(e.lo as i32);
                hi = hi.min(e.hi as i32);
            }
            tt_mv = e.mv;
        }
        if lo >= beta || lo == hi {
            return lo;
        }
        if hi <= alpha {
            return hi;
        }
        if depth == 0 {
            return Self::leaf(b, seeds).clamp(lo, hi);
        }
        alpha = alpha.max(lo);
        beta = beta.min(hi);
        let nodes_before = self.nodes;
        let child_depth = if depth == EXACT { EXACT } else { depth - 1 };

        // Make every child once and prefetch where its value lives.
        let n = self.spec.pits;
        let mut sows = [Sow::default(); MAXP];
        let mut kid_seeds = [0i32; MAXP];
        let mut kid_at = [NOT_IN_DB; MAXP];
        for i in 0..n {
            if b.c[i] != 0 {
                let s = b.sow(&self.spec, i);
                if !s.over {
                    let cs = s.next.seeds();
                    kid_seeds[i] = cs;
                    kid_at[i] = self.prefetch(&s.next, cs);
                }
                sows[i] = s;
            }
        }
        // Look every child up (finished game, database, TT): a cutoff, or bounds of each move's
        // value (from the mover's view) that spare searching moves that cannot matter.
        let mut mlo = [0i32; MAXP];
        let mut mhi = [0i32; MAXP];
        let mut order = [0u8; MAXP];
        let mut score = [0i32; MAXP];
        let mut count = 0usize;
        let mut best = i32::MIN;
        let mut best_mv = 0u8;
        for i in 0..n {
            if b.c[i] == 0 {
                continue;
            }
            let s = sows[i];
            let (l, h) = if s.over {
                (s.gain, s.gain)
            } else {
                let cs = kid_seeds[i];
                let (cl, ch) = match self.exact_at(cs, kid_at[i]) {
                    Some(v) => (v, v),
                    None => match self.tt.probe(s.next.key()) {
                        Some(e)
                            if e.depth == EXACT || (depth != EXACT && e.depth >= child_depth) =>
                        {
                            ((e.lo as i32).max(-cs), (e.hi as i32).min(cs))
                        }
                        _ => (-cs, cs),
                    },
                };
                if s.extra {
                    (s.gain + cl, s.gain + ch)
                } else {
                    (s.gain - ch, s.gain - cl)
                }
            };
            if l >= beta {
                // Enhanced transposition cutoff.
                self.tt.store(key, l, hi, i as u8, 0, depth);
                return l;
            }
            if l > best {
                best = l;
                best_mv = i as u8;
            }
            mlo[i] = l;
            mhi[i] = h;
            // By immediate gain (captures), an extra turn counting 3 seeds more, then by
            // the seeds left on the mover's own side (fewer handed to the opponent), then the
            // pit nearest the store: sowing it leaves the pits before it (and their extra
            // turns) untouched.
            let own = if s.over {
                0
            } else if s.extra {
                s.next.mover_seeds()
            } else {
                kid_seeds[i] - s.next.mover_seeds()
            };
            let mut sc = s.gain * 4096 + own * 16 + i as i32;
            if i as u8 == tt_mv {
                sc += 1 << 24;
            }
            if s.extra {
                sc += EXTRA_TURN_RANK;
            }
            score[i] = sc;
            order[count] = i as u8;
            count += 1;
        }
        // Insertion sort, best score first.
        for a in 1..count {
            let mut j = a;
            while j > 0 && score[order[j] as usize] > score[order[j - 1] as usize] {
                order.swap(j, j - 1);
                j -= 1;
            }
        }
        let alpha_t = alpha;
        alpha = alpha.max(best);
        // The largest upper bound over the moves: what a fail-low returns.
        let mut upper = i32::MIN;
        let mut cut = false;
        // With helper threads (high in the tree only: the table is probed per child): say this
        // node is being searched, and put off children another thread is searching now.
        let mark = match &self.busy {
            Some(table) if seeds > self.db_seeds + 8 => {
                let (slot, fp) = busy_slot(key);
                table[slot].store(fp, Relaxed);
                Some((slot, fp))
            }
            _ => None,
        };
        let mut deferred = [0u8; MAXP];
        let (mut nd, mut k, mut searched) = (0, 0, 0);
        while k < count + nd {
            let first_round = k < count;
            let i = if first_round {
                order[k]
            } else {
                deferred[k - count]
            } as usize;
            k += 1;
            if cut || mhi[i] <= alpha || mlo[i] == mhi[i] {
                // Cannot improve (or already exact, and counted in `best`).
                upper = upper.max(mhi[i]);
                continue;
            }
            let s = sows[i];
            if first_round
                && (searched > 0 || self.helper)
                && mark.is_some()
                && self.is_busy(&s.next)
            {
                deferred[nd] = i as u8;
                nd += 1;
                continue;
            }
            searched += 1;
            let v = if s.extra {
                s.gain + self.ab(&s.next, alpha - s.gain, beta - s.gain, child_depth, abort)
            } else {
                s.gain - self.ab(&s.next, s.gain - beta, s.gain - alpha, child_depth, abort)
            };
            if self.aborted {
                break;
            }
            // A result <= alpha is an upper bound, inside the window it is exact.
            upper = upper.max(v.min(mhi[i]));
            if v > best {
                best = v;
                best_mv = i as u8;
                if v > alpha {
                    alpha = v;
                    if v >= beta {
                        cut = true;
                    }
                }
            }
        }
        if let (Some((slot, fp)), Some(table)) = (mark, &self.busy) {
            let _ = table[slot].compare_exchange(fp, 0, Relaxed, Relaxed);
        }
        if self.aborted {
            return 0;
        }
        let work = (64 - (self.nodes - nodes_before).leading_zeros()) as u8;
        let (nlo, nhi, ret) = if best >= beta {
            (best, hi, best)
        } else if best <= alpha_t {
            (lo, upper, upper)
        } else {
            (best, best, best)
        };
        self.tt.store(key, nlo, nhi, best_mv, work, depth);
        ret
    }
}
