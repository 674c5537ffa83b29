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
use super::packed::{Packed, CLEAR, PREFIX_LO, TABLES, UNIT};
use super::{EndReason, Side};

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

/// `unit · k` for a `unit` with one byte set to 1 and `k` < 256: two 64-bit multiplications,
/// no carry between the words (a full 128-bit multiplication costs several more).
#[inline(always)]
fn times(unit: u128, k: u64) -> u128 {
    let lo = (unit as u64).wrapping_mul(k);
    let hi = ((unit >> 64) as u64).wrapping_mul(k);
    (hi as u128) << 64 | lo as u128
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
        // The pit count as a constant: table addresses, lap length, row masks and the division
        // of a multi-lap sow all fold away. Up to 7 pits the board fits in the low 16 cells.
        // Standard Kalah (no variant flag set) is its own instance that reads no flag.
        macro_rules! by_pits {
            ($std:literal) => {
                match self.ruleset.pits() {
                    1 => self.play_kalah_n::<1, $std>(i),
                    2 => self.play_kalah_n::<2, $std>(i),
                    3 => self.play_kalah_n::<3, $std>(i),
                    4 => self.play_kalah_n::<4, $std>(i),
                    5 => self.play_kalah_n::<5, $std>(i),
                    6 => self.play_kalah_n::<6, $std>(i),
                    7 => self.play_kalah_n::<7, $std>(i),
                    _ => self.play_kalah_in::<true>(i),
                }
            };
        }
        if self.ruleset.is_standard_kalah() {
            by_pits!(true)
        } else {
            by_pits!(false)
        }
    }

    /// Kalah pit `i` (0-based, non-empty, `i < N`) of the side to move, for `N = ruleset.pits()`
    /// up to 7: the cells stay in one `u128` from load to store; emptying the origin and the
    /// capture are masks from tables, not variable shifts. `STD` promises that
    /// [`Ruleset::is_standard_kalah`] holds, so that no variant flag is read.
    #[inline(always)]
    pub(crate) fn play_kalah_n<const N: usize, const STD: bool>(&mut self, i: usize) {
        const { assert!(N >= 1 && N <= 7) };
        debug_assert_eq!(self.ruleset.pits(), N);
        debug_assert!(!STD || self.ruleset.is_standard_kalah());
        let Some(side) = self.mover else { return };
        let s = side.index();
        let l = 2 * N + 1;
        let off = s * (N + 1);
        let origin = (off + i) & 15; // < 16 always; the mask only spares a bounds check
        let seeds = self.cells[origin] as usize;
        let prefix = &PREFIX_LO[N][s];
        let mut lo = [0u8; 16];
        lo.copy_from_slice(&self.cells[..16]);
        let mut cells = u128::from_le_bytes(lo) & CLEAR[origin];
        let e = i + seeds; // the last seed's relative position, not yet wrapped
        let last = if e < 2 * l {
            cells = cells.wrapping_add(prefix[e + 1]);
            if e >= l {
                e - l
            } else {
                e
            }
        } else {
            // Several laps (rare): the whole laps in bulk, then the remainder.
            let last = e % l;
            cells = cells
                .wrapping_add(prefix[last + 1])
                .wrapping_add(prefix[l].wrapping_mul((e / l) as u128));
            last
        };
        cells = cells.wrapping_sub(prefix[i + 1]);

        // The extra turn without a branch (rule 3); the capture test branches (a branch-free
        // capture measured slower: it is rare enough that its work costs more than its
        // mispredictions).
        let first_extra = STD || self.ruleset.first_extra_turn();
        let extra = (last == N) & ((self.sows > 0) | first_extra);
        let next = if extra { side } else { side.other() };
        if last < N {
            let a = (off + last) & 15;
            let bytes = cells.to_le_bytes();
            if bytes[a] == 1 {
                // The pit was empty before the last seed landed (rule 4).
                let o = cell_of(N, off, 2 * N - last) & 15;
                let opposite = bytes[o];
                if opposite != 0 || (!STD && self.ruleset.empty_capture()) {
                    let store = if s == 0 { N } else { 2 * N + 1 };
                    cells = (cells & CLEAR[a] & CLEAR[o])
                        .wrapping_add(times(UNIT[store], opposite as u64 + 1));
                }
            }
        }
        self.cells[..16].copy_from_slice(&cells.to_le_bytes());
        self.sows += 1;
        if !STD {
            self.pie_after_sow(next);
        }

        let rows = &TABLES[N].row;
        let empty = |s: usize| Packed::low(cells).is_zero_under::<false>(rows[s]);
        if !STD && self.ruleset.end_on_no_move() {
            if empty(next.index()) {
                self.finish(EndReason::NoMove);
                return;
            }
        } else if empty(0) | empty(1) {
            self.finish(EndReason::SideEmpty);
            return;
        }
        if self.sows >= self.ruleset.sow_cap() {
            self.finish(EndReason::SowCap);
            return;
        }
        self.mover = Some(next);
    }

    /// The non-empty pits of `side` as a bit mask (bit `k` for pit `k + 1`), for `N` up to 7.
    #[inline(always)]
    pub(crate) fn pit_mask_n<const N: usize>(&self, side: Side) -> u32 {
        const { assert!(N >= 1 && N <= 7) };
        let mut lo = [0u8; 16];
        lo.copy_from_slice(&self.cells[..16]);
        let row = (u128::from_le_bytes(lo) >> (8 * side.index() * (N + 1))) as u64;
        let row = row & (u64::MAX >> (64 - 8 * N)); // pits 1..N, store dropped
                                                    // Bytes that are not zero get their top bit set (no carry crosses a byte)...
        const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
        let top = (((row & LOW7).wrapping_add(LOW7)) | row) & !LOW7;
        // ...and the top bits are gathered into the low byte, byte k to bit k.
        ((top >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
    }

    /// The general Kalah move (8 pits: the board spills into the high word).
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
