//! Kalah sowing, capture, extra turns and end (shared/rules.md, Kalah rules 1–7 and variants),
//! and the sowing path Kalah and Congkak share.
//!
//! The path is written in *relative* positions: for the mover, `p = 0..N-1` are their pits
//! 1..N, `p = N` their store, `p = N+1..2N` the opponent's pits 1..N; the opponent's store is not
//! on the path, which is a cycle of length `L = 2N+1`. In `cells` the relative position `p` is at
//! `p + off` (wrapping at `2N+2`), `off = 0` for South and `N+1` for North. The speed comes from
//! this: a sow, whole laps included, is a few word additions from a precomputed table of path
//! prefixes ([`Packed::sow`]), with no per-seed loop and no division unless the seeds go round
//! more than once, and a Kalah move works on the cells in registers from load to store.

use super::board::{row_offset, store_index, Board, CELLS};
use super::packed::{Packed, TABLES};
use super::EndReason;

/// Sows `seeds` seeds (> 0) picked up from relative position `start` and returns the relative
/// position of the last seed. `off` is the mover's row offset, `n` the pits per side; the cell
/// at `start` must hold exactly `seeds`. See [`Packed::sow`].
#[inline(always)]
pub(crate) fn sow_path(
    cells: &mut [u8; CELLS],
    n: usize,
    off: usize,
    start: usize,
    seeds: u32,
) -> usize {
    let mut packed = Packed::load::<true>(cells);
    let last = packed.sow::<true>(n, off, start, cell_of(n, off, start), seeds as u8);
    packed.store::<true>(cells);
    last
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
        // Up to 7 pits the board fits in the low 16 cells: a narrower, faster instance.
        if self.ruleset.pits() <= 7 {
            self.play_kalah_in::<false>(i)
        } else {
            self.play_kalah_in::<true>(i)
        }
    }

    #[inline(always)]
    fn play_kalah_in<const WIDE: bool>(&mut self, i: usize) {
        let Some(side) = self.mover else { return };
        let n = self.ruleset.pits();
        let off = row_offset(n, side);
        let mut cells = Packed::load::<WIDE>(&self.cells);
        let last = cells.sow::<WIDE>(n, off, i, off + i, self.cells[off + i]);

        let mut next = side.other();
        if last == n && (self.sows > 0 || self.ruleset.first_extra_turn()) {
            next = side; // last seed in the own store: extra turn (rule 3)
        } else if last < n {
            let a = off + last;
            if cells.get::<WIDE>(a) == 1 {
                // The pit was empty before the last seed landed (rule 4).
                let o = cell_of(n, off, 2 * n - last);
                let opposite = cells.get::<WIDE>(o);
                if opposite != 0 || self.ruleset.empty_capture() {
                    cells.sub_at::<WIDE>(a, 1);
                    cells.sub_at::<WIDE>(o, opposite);
                    cells.add_at::<WIDE>(store_index(n, side), opposite + 1);
                }
            }
        }
        cells.store::<WIDE>(&mut self.cells);
        self.sows += 1;
        self.pie_after_sow(next);

        let rows = &TABLES[n].row;
        if self.ruleset.end_on_no_move() {
            if cells.is_zero_under::<WIDE>(rows[next.index()]) {
                self.finish(EndReason::NoMove);
                return;
            }
        } else if cells.is_zero_under::<WIDE>(rows[0]) || cells.is_zero_under::<WIDE>(rows[1]) {
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
