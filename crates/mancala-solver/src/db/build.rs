//! Building one database level from the levels below it, block by block, in sequential passes.
//!
//! Why not position by position: a position's children are spread all over the lower levels
//! (and its own), so valuing positions one at a time costs a cache miss per child, about
//! 300 ns a position in all (docs/solved.md). Here the level is cut into blocks by the seeds in
//! each row, and every read is made where it is local:
//!
//! - Level `k` holds the positions `(A, B)`, mover's row `A` with `a` seeds and opponent's row
//!   `B` with `b = k − a`, laid out row by row: each row `A` holds the `B`s of its sum in order
//!   (the file format, unchanged). Block `(a, b)` is those rows; `P = (a, b)` and `Q = (b, a)`
//!   make a pair.
//! - A sow of `A` that ends in the store (an extra turn) leads to `(A', B)`: row `A'` of a lower
//!   level, column `B` unchanged. For a fixed `A` that is a whole row, read in order
//!   (`own` in [`Builder::pass`]).
//! - Any other sow of `A` leads to `(B', A')` (the opponent moves): `B'` is `B` plus a few seeds
//!   in its first pits, or `B` with the captured pit emptied; `A'` depends on `A` alone. For a
//!   fixed `B` these are a dozen rows, each read at the columns `A'`; so this part is computed
//!   with `B` outside and `A` inside (`other` in [`Builder::pass`], transposed afterwards).
//! - The sows that stay in the level (no seed reaches a store or the other side, no capture)
//!   lead from `(A, B)` to `(B, A')`, `A'` before `A` in the row order, and from `(B, A)` to
//!   `(A, B')`. So, going through the rows `A` in order, `P`'s row `A` is the lower levels' best
//!   against the already final rows `A'` of `Q` transposed (whole rows again), and then `Q`'s
//!   column `A` follows from `P`'s row `A` (a gather within one row) ([`Builder::resolve`]).
//!
//! Pairs of blocks are independent: threads take them largest first. The values are exactly
//! those of the position-by-position recursion (the tests compare the two).

use std::sync::Mutex;

use super::rows::{add_delta, board, delta_id, Moves, Mv, Rows};
use super::UNKNOWN;
use crate::board::BoardSpec;

/// What the passes share: the rows and their sows up to the largest level, and where each row
/// starts in each level.
pub(super) struct Builder {
    spec: BoardSpec,
    rows: Rows,
    moves: Moves,
    /// `start[start_at[id] + lvl]`: the index of row `id`'s first entry in level `lvl` (for
    /// every level from the row's sum up; a row's levels side by side, so that the few rows a
    /// pass reads stay in the cache whatever the level).
    start: Vec<u64>,
    start_at: Vec<usize>,
    /// The increments used by some sow (`delta` of [`Mv`]), by the sum of the row sowing.
    deltas: Vec<Vec<u8>>,
}

/// The opponent's row after one increment, for the sows of the inner rows of a pass.
#[derive(Clone, Copy, Default)]
struct Opp {
    /// Where the row's starts are in [`Builder::start`] (`at + lvl`).
    at: usize,
    sum: u8,
    pits: [u8; 8],
    /// The same for the row with pit `o` emptied (a capture).
    zero_at: [usize; 8],
}

impl Builder {
    pub fn new(spec: BoardSpec, max: usize, binom: &[[u64; 17]]) -> Builder {
        let n = spec.pits;
        let m = 2 * n;
        let rows = Rows::new(n, max, binom);
        let moves = Moves::new(&rows, max);
        let (mut start, mut start_at) = (Vec::new(), Vec::new());
        for id in rows.up_to(max) {
            let pits = rows.pits(id);
            start_at.push(start.len() - rows.sum(id));
            for lvl in rows.sum(id)..=max {
                let mut r = lvl;
                let mut idx = 0u64;
                for (j, &x) in pits[..n].iter().enumerate() {
                    let t = m - 1 - j;
                    let x = x as usize;
                    idx += binom[r + t][t] - binom[r - x + t][t];
                    r -= x;
                }
                start.push(idx);
            }
        }
        let deltas = (0..=max)
            .map(|s| {
                let mut d: Vec<u8> = (0..rows.count(s))
                    .flat_map(|r| moves.flip(rows.id(s, r)).iter().map(|mv| mv.delta))
                    .collect();
                d.sort_unstable();
                d.dedup();
                d
            })
            .collect();
        Builder {
            spec,
            rows,
            moves,
            start,
            start_at,
            deltas,
        }
    }

    /// The index of row `id`'s first entry in level `lvl`.
    #[inline(always)]
    fn start(&self, lvl: usize, id: usize) -> usize {
        self.start[self.start_at[id] + lvl] as usize
    }

    /// Level `k` from the complete levels `lower[0..k]`, on `threads` threads; `progress(n)`
    /// after each `n` entries.
    pub fn level(
        &self,
        lower: &[&[i8]],
        k: usize,
        threads: usize,
        progress: &(dyn Fn(u64) + Sync),
    ) -> Vec<i8> {
        let rows = &self.rows;
        let size: usize = rows.up_to(k).map(|id| rows.count(k - rows.sum(id))).sum();
        let mut level = super::super::huge_vec(size, UNKNOWN);
        // Every row of the level as its own slice, grouped by the mover's seeds.
        let mut order: Vec<usize> = rows.up_to(k).collect();
        order.sort_unstable_by_key(|&id| self.start(k, id));
        let mut slices: Vec<Option<&mut [i8]>> = (0..order.len()).map(|_| None).collect();
        let mut rest: &mut [i8] = &mut level;
        for &id in &order {
            let (row, tail) = rest.split_at_mut(rows.count(k - rows.sum(id)));
            slices[id] = Some(row);
            rest = tail;
        }
        let mut by_sum: Vec<Vec<&mut [i8]>> = (0..=k).map(|_| Vec::new()).collect();
        for (id, slice) in slices.into_iter().enumerate() {
            by_sum[rows.sum(id)].push(slice.expect("every row placed"));
        }
        let mut tasks = Vec::new();
        for a in 1..=k / 2 {
            let b = k - a;
            let p = std::mem::take(&mut by_sum[a]);
            let q = (a != b).then(|| std::mem::take(&mut by_sum[b]));
            tasks.push(Task::Pair { a, b, p, q });
        }
        if self.spec.end_on_no_move && k > 0 {
            // The opponent's row may be empty: positions (A, 0), a handful.
            tasks.push(Task::Alone(std::mem::take(&mut by_sum[k])));
        }
        // The finished positions (a side without seeds) are left as they are.
        let valued: usize = tasks.iter().map(Task::entries).sum();
        progress((size - valued) as u64);
        tasks.sort_by_key(|t| std::cmp::Reverse(t.entries()));
        let queue = Mutex::new(tasks.into_iter());
        std::thread::scope(|scope| {
            for _ in 0..threads.max(1) {
                scope.spawn(|| {
                    // Two blocks' room, grown to the first (largest) task and kept.
                    let (mut t1, mut t2) = (Vec::new(), Vec::new());
                    loop {
                        let task = queue.lock().expect("task queue").next();
                        let Some(task) = task else { break };
                        let entries = task.entries();
                        match task {
                            Task::Pair { a, b, p, q } => {
                                self.pair(lower, a, b, p, q, (&mut t1, &mut t2))
                            }
                            Task::Alone(p) => self.alone(lower, k, p),
                        }
                        progress(entries as u64);
                    }
                });
            }
        });
        level
    }

    /// Values the blocks `(a, b)` (rows `p`) and `(b, a)` (rows `q`; `None` when `a == b`).
    fn pair(
        &self,
        lower: &[&[i8]],
        a: usize,
        b: usize,
        mut p: Vec<&mut [i8]>,
        q: Option<Vec<&mut [i8]>>,
        scratch: (&mut Vec<i8>, &mut Vec<i8>),
    ) {
        let (na, nb) = (self.rows.count(a), self.rows.count(b));
        let (t1, t2) = scratch;
        for t in [&mut *t1, &mut *t2] {
            if t.len() < na * nb {
                *t = super::super::huge_vec(na * nb, UNKNOWN);
            }
        }
        let (qt, fp) = (&mut t1[..na * nb], &mut t2[..na * nb]);
        qt.fill(UNKNOWN);
        fp.fill(UNKNOWN);
        match q {
            None => {
                // One block: `(B, A)` is in it too.
                self.pass(lower, a, a, &mut p, fp);
                transpose_max(fp, &mut p);
                transpose_rows_max(&p, qt);
                self.resolve(a, a, &mut p, qt);
            }
            Some(mut q) => {
                self.pass(lower, a, b, &mut p, qt);
                self.pass(lower, b, a, &mut q, fp);
                transpose_max(fp, &mut p);
                transpose_rows_max(&q, qt);
                self.resolve(a, b, &mut p, qt);
                transpose_into_rows(qt, &mut q);
            }
        }
    }

    /// With the outer rows `X` of sum `x` and the inner rows `Y` of sum `y`: `own[X][Y]` takes
    /// the best of `X`'s extra-turn sows at `(X, Y)`, and `other[X][Y]` the best of `Y`'s sows
    /// that leave the level and pass the turn, at `(Y, X)` (see the module docs).
    fn pass(&self, lower: &[&[i8]], x: usize, y: usize, own: &mut [&mut [i8]], other: &mut [i8]) {
        let rows = &self.rows;
        let n = rows.n;
        let ny = rows.count(y);
        let ec = self.spec.empty_capture;
        let eonm = self.spec.end_on_no_move;
        let sw = i32::from(self.spec.sweep);
        let mut opp = vec![Opp::default(); delta_id(n, 40, n) + 1];
        // Columns of `y + n·laps` seeds for each `Y` (extra turns after laps), made when needed.
        let mut lapped: Vec<Option<Vec<u32>>> = Vec::new();
        for (xi, own_row) in own.iter_mut().enumerate() {
            let xid = rows.id(x, xi);
            // `X`'s sows ending in its store: `(X', Y + laps)`, a row of a lower level.
            for mv in self.moves.extra(xid) {
                let laps = mv.delta as usize / (n + 1);
                let mine = mv.sum as i32;
                let theirs = (y + n * laps) as i32;
                let over = if eonm {
                    mine == 0
                } else {
                    mine == 0 || theirs == 0
                };
                let g = mv.store as i32;
                if over {
                    let v = (g + sw * (mine - theirs)) as i8;
                    for o in own_row.iter_mut() {
                        *o = (*o).max(v);
                    }
                    continue;
                }
                let lvl = (mine + theirs) as usize;
                let at = self.start(lvl, mv.row as usize);
                let src = &lower[lvl][at..at + rows.count(theirs as usize)];
                let g = g as i8;
                if laps == 0 {
                    for (o, &s) in own_row.iter_mut().zip(src) {
                        *o = (*o).max(g + s);
                    }
                } else {
                    if lapped.len() <= laps {
                        lapped.resize(laps + 1, None);
                    }
                    let map = lapped[laps].get_or_insert_with(|| {
                        (0..ny)
                            .map(|j| {
                                let p =
                                    add_delta(n, rows.pits(rows.id(y, j)), delta_id(n, laps, 0));
                                rows.rank_of_id(rows.id_of(&p)) as u32
                            })
                            .collect()
                    });
                    for (o, &c) in own_row.iter_mut().zip(map.iter()) {
                        *o = (*o).max(g + src[c as usize]);
                    }
                }
            }
            // `Y`'s sows that pass the turn: `(X + δ, Y')`, or `X + δ` with a pit captured.
            let xpits = rows.pits(xid);
            for &d in &self.deltas[y] {
                let pits = add_delta(n, xpits, d as usize);
                let row = rows.id_of(&pits);
                let mut zero_at = [0usize; 8];
                for (o, z) in zero_at[..n].iter_mut().enumerate() {
                    let mut zp = pits;
                    zp[o] = 0;
                    *z = self.start_at[rows.id_of(&zp)];
                }
                opp[d as usize] = Opp {
                    at: self.start_at[row],
                    sum: rows.sum(row) as u8,
                    pits,
                    zero_at,
                };
            }
            let out = &mut other[xi * ny..(xi + 1) * ny];
            for (j, o) in out.iter_mut().enumerate() {
                let mut best = i32::from(i8::MIN);
                for mv in self.moves.flip(rows.id(y, j)) {
                    let d = &opp[mv.delta as usize];
                    let (gain, mine, theirs, at, col) = match self.captures(mv, d, ec) {
                        Some(c) => (
                            mv.store as i32 + 1 + c,
                            mv.sum as i32 - 1,
                            d.sum as i32 - c,
                            d.zero_at[n - 1 - mv.land as usize],
                            mv.cap_rank,
                        ),
                        None if mv.delta == 0 => continue, // stays in the level: `resolve`
                        None => (mv.store as i32, mv.sum as i32, d.sum as i32, d.at, mv.rank),
                    };
                    let over = if eonm {
                        theirs == 0
                    } else {
                        mine == 0 || theirs == 0
                    };
                    let v = if over {
                        gain + sw * (mine - theirs)
                    } else {
                        let lvl = (mine + theirs) as usize;
                        let at = self.start[at + lvl] as usize + col as usize;
                        gain - i32::from(lower[lvl][at])
                    };
                    best = best.max(v);
                }
                *o = best as i8;
            }
        }
    }

    /// The seeds the last seed of `mv` captures against the opponent's row `d`, if it does.
    #[inline(always)]
    fn captures(&self, mv: &Mv, d: &Opp, ec: bool) -> Option<i32> {
        if !mv.cand {
            return None;
        }
        let c = d.pits[self.rows.n - 1 - mv.land as usize];
        (c > 0 || ec).then_some(i32::from(c))
    }

    /// Adds the sows that stay in the level: rows `A` of `p` in order, each against the final
    /// rows before it of `qt` (`Q` transposed), then `qt`'s row `A` against `p`'s.
    fn resolve(&self, a: usize, b: usize, p: &mut [&mut [i8]], qt: &mut [i8]) {
        let rows = &self.rows;
        let n = rows.n;
        let ec = self.spec.empty_capture;
        let nb = rows.count(b);
        let zeros = |id: usize| -> u8 {
            let pits = rows.pits(id);
            (0..n).fold(0, |m, o| m | (u8::from(pits[o] == 0) << o))
        };
        let col_zeros: Vec<u8> = (0..nb).map(|j| zeros(rows.id(b, j))).collect();
        for ai in 0..p.len() {
            let aid = rows.id(a, ai);
            let prow = &mut *p[ai];
            for mv in self.moves.flip(aid).iter().filter(|mv| mv.delta == 0) {
                let from = mv.rank as usize;
                debug_assert!(from < ai, "a sow within the level leads to an earlier row");
                let src = &qt[from * nb..(from + 1) * nb];
                if !mv.cand {
                    for (o, &s) in prow.iter_mut().zip(src) {
                        *o = (*o).max(-s);
                    }
                } else if !ec {
                    let bit = 1u8 << (n - 1 - mv.land as usize);
                    for ((o, &s), &z) in prow.iter_mut().zip(src).zip(&col_zeros) {
                        if z & bit != 0 {
                            *o = (*o).max(-s);
                        }
                    }
                }
            }
            let azero = zeros(aid);
            let out = &mut qt[ai * nb..(ai + 1) * nb];
            for (j, o) in out.iter_mut().enumerate() {
                let mut best = *o;
                for mv in self.moves.flip(rows.id(b, j)) {
                    if mv.delta != 0 {
                        continue;
                    }
                    if mv.cand && (ec || azero & (1 << (n - 1 - mv.land as usize)) == 0) {
                        continue; // a capture: valued in `pass`
                    }
                    best = best.max(-prow[mv.rank as usize]);
                }
                *o = best;
            }
        }
    }

    /// The positions `(A, 0)` of level `k` (the opponent has no seeds; they exist only under
    /// `end_on_no_move`), one at a time: every child is in a lower level or ends the game.
    fn alone(&self, lower: &[&[i8]], k: usize, mut p: Vec<&mut [i8]>) {
        let rows = &self.rows;
        let n = rows.n;
        let empty = [0u8; 8];
        for (ai, cell) in p.iter_mut().enumerate() {
            let b = board(n, rows.pits(rows.id(k, ai)), &empty);
            let mut best = i32::MIN;
            for i in (0..n).filter(|&i| b.c[i] != 0) {
                let s = b.sow(&self.spec, i);
                let v = if s.over {
                    s.gain
                } else {
                    let mut mine = [0u8; 8];
                    let mut theirs = [0u8; 8];
                    mine[..n].copy_from_slice(&s.next.c[..n]);
                    theirs[..n].copy_from_slice(&s.next.c[8..8 + n]);
                    let lvl = s.next.seeds() as usize;
                    assert!(lvl < k, "a sow from (A, 0) stays in the level");
                    let at =
                        self.start(lvl, rows.id_of(&mine)) + rows.rank_of_id(rows.id_of(&theirs));
                    let cv = i32::from(lower[lvl][at]);
                    if s.extra {
                        s.gain + cv
                    } else {
                        s.gain - cv
                    }
                };
                best = best.max(v);
            }
            cell[0] = best as i8;
        }
    }
}

/// A pair of blocks (or the one-sided block of `end_on_no_move`) to value.
enum Task<'a> {
    Pair {
        a: usize,
        b: usize,
        p: Vec<&'a mut [i8]>,
        q: Option<Vec<&'a mut [i8]>>,
    },
    Alone(Vec<&'a mut [i8]>),
}

impl Task<'_> {
    fn entries(&self) -> usize {
        let rows = |r: &Vec<&mut [i8]>| r.iter().map(|x| x.len()).sum::<usize>();
        match self {
            Task::Pair { p, q, .. } => rows(p) + q.as_ref().map_or(0, rows),
            Task::Alone(p) => rows(p),
        }
    }
}

/// Side of the square tiles the transposes go by (a tile of each side stays in the L1 cache).
const TILE: usize = 64;

/// Calls `f(i, j)` for every `i < rows`, `j < cols`, tile by tile: for transposes, whose reads
/// and writes then both stay within a few cache lines at a time.
#[inline(always)]
fn tiled(rows: usize, cols: usize, mut f: impl FnMut(usize, usize)) {
    for i0 in (0..rows).step_by(TILE) {
        for j0 in (0..cols).step_by(TILE) {
            for i in i0..(i0 + TILE).min(rows) {
                for j in j0..(j0 + TILE).min(cols) {
                    f(i, j);
                }
            }
        }
    }
}

/// `out[i][j] = max(out[i][j], src[j * out.len() + i])`: `src` holds `out` transposed.
fn transpose_max(src: &[i8], out: &mut [&mut [i8]]) {
    let (rows, cols) = (out.len(), out.first().map_or(0, |r| r.len()));
    tiled(rows, cols, |i, j| {
        out[i][j] = out[i][j].max(src[j * rows + i])
    });
}

/// `out[i * src.len() + j] = max(.., src[j][i])`: `out` becomes at least `src` transposed.
fn transpose_rows_max(src: &[&mut [i8]], out: &mut [i8]) {
    let (rows, cols) = (src.first().map_or(0, |r| r.len()), src.len());
    tiled(rows, cols, |i, j| {
        out[i * cols + j] = out[i * cols + j].max(src[j][i]);
    });
}

/// `out[j][i] = src[i * out.len() + j]`: the rows of `out` from `src` transposed.
fn transpose_into_rows(src: &[i8], out: &mut [&mut [i8]]) {
    let (rows, cols) = (out.first().map_or(0, |r| r.len()), out.len());
    tiled(rows, cols, |i, j| out[j][i] = src[i * cols + j]);
}
