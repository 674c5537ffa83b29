//! Kalah sowing, capture, extra turns and end (shared/rules.md, Kalah rules 1–7 and variants),
//! and the sowing path Kalah and Congkak share.
//!
//! The path is written in *relative* positions: for the mover, `p = 0..N-1` are their pits
//! 1..N, `p = N` their store, `p = N+1..2N` the opponent's pits 1..N; the opponent's store is not
//! on the path, which is a cycle of length `L = 2N+1`. In `cells` the relative position `p` is at
//! `p + off` (wrapping at `2N+2`), `off = 0` for South and `N+1` for North. The speed comes from
//! this: whole laps are added in bulk (one division per move, and only when the seeds reach a
//! full lap), then the remainder is walked with no division.

use super::board::{store_index, Board, CELLS};
use super::{EndReason, Side};

/// Sows `seeds` seeds (> 0) starting after relative position `start` and returns the relative
/// position of the last seed. `off` is the mover's row offset, `n` the pits per side.
#[inline(always)]
pub(crate) fn sow_path(
    cells: &mut [u8; CELLS],
    n: usize,
    off: usize,
    start: usize,
    seeds: u32,
) -> usize {
    let l = 2 * n + 1;
    let total = 2 * n + 2;
    let mut rem = seeds as usize;
    if rem >= l {
        let laps = (rem / l) as u8;
        rem %= l;
        for c in cells[..total].iter_mut() {
            *c += laps;
        }
        // The opponent's store is skipped.
        let skip = if off == 0 { 2 * n + 1 } else { n };
        cells[skip] -= laps;
    }
    let mut p = start;
    for _ in 0..rem {
        p += 1;
        if p == l {
            p = 0;
        }
        let mut a = p + off;
        if a >= total {
            a -= total;
        }
        cells[a] += 1;
    }
    p
}

/// The cell of relative position `p` for a mover with row offset `off`.
#[inline(always)]
pub(crate) fn cell_of(n: usize, off: usize, p: usize) -> usize {
    let a = p + off;
    if a >= 2 * n + 2 {
        a - (2 * n + 2)
    } else {
        a
    }
}

impl Board {
    /// Plays Kalah pit `i` (0-based) of the side to move, which must be non-empty.
    #[inline]
    pub(crate) fn play_kalah(&mut self, i: usize) {
        let Some(side) = self.mover else { return };
        let n = self.ruleset.pits();
        let off = if side == Side::South { 0 } else { n + 1 };
        let seeds = self.cells[off + i];
        self.cells[off + i] = 0;
        let last = sow_path(&mut self.cells, n, off, i, seeds as u32);

        let mut next = side.other();
        if last == n {
            next = side; // last seed in the own store: extra turn (rule 3)
        } else if last < n {
            let a = off + last;
            if self.cells[a] == 1 {
                // The pit was empty before the last seed landed (rule 4).
                let o = cell_of(n, off, 2 * n - last);
                let opposite = self.cells[o];
                if opposite != 0 || self.ruleset.empty_capture() {
                    self.cells[store_index(n, side)] += opposite + 1;
                    self.cells[a] = 0;
                    self.cells[o] = 0;
                }
            }
        }
        self.sows += 1;
        self.pie_after_sow(next);

        if self.ruleset.end_on_no_move() {
            if self.row_empty(next) {
                self.finish(EndReason::NoMove);
                return;
            }
        } else if self.row_empty(Side::South) || self.row_empty(Side::North) {
            self.finish(EndReason::SideEmpty);
            return;
        }
        if self.sows >= self.ruleset.sow_cap() {
            self.finish(EndReason::SowCap);
            return;
        }
        self.mover = Some(next);
    }
}
