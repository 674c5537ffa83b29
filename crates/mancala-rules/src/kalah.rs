//! Kalah sowing, capture, extra turns and end (docs/rules.md, Kalah rules K1–K8 and variants),
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
use super::packed::{Packed, CLEAR, LOW_PATH, PREFIX_LO, SOW_LO, TABLES, UNIT};
use super::ruleset::{Ruleset, Sweep};
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

/// The Kalah variant flags a move reads (all ignored by the standard-Kalah instance, except
/// `sweep`, which only matters once the game ends).
#[derive(Clone, Copy, Debug)]
pub(crate) struct KalahFlags {
    pub(crate) first_extra_turn: bool,
    pub(crate) empty_capture: bool,
    pub(crate) end_on_no_move: bool,
    /// The owner sweep (`sweep=owner`); `false` for `sweep=none`.
    pub(crate) sweep: bool,
}

impl KalahFlags {
    #[inline(always)]
    pub(crate) fn of(r: &Ruleset) -> KalahFlags {
        KalahFlags {
            first_extra_turn: r.first_extra_turn(),
            empty_capture: r.empty_capture(),
            end_on_no_move: r.end_on_no_move(),
            sweep: r.sweep() == Sweep::Owner,
        }
    }
}

/// 0xFF in each pit of side `s` (0 South, 1 North) of a board with `n` pits, in the low word.
pub(crate) const fn row_mask(n: usize, s: usize) -> u128 {
    let row = u128::MAX >> (128 - 8 * n);
    row << (8 * s * (n + 1))
}

/// The pits of side `s` (0 or 1) as the low bytes of a word (byte `k` for pit `k + 1`), from
/// the low word of a board with `N` pits: two constant shifts and a select, not a variable
/// 128-bit shift.
#[inline(always)]
pub(crate) fn row_n<const N: usize>(cells: u128, s: usize) -> u64 {
    const { assert!(N >= 1 && N <= 7) };
    let south = cells as u64;
    let north = (cells >> (8 * (N + 1))) as u64;
    (if s == 0 { south } else { north }) & (u64::MAX >> (64 - 8 * N))
}

/// Bit `k` set for each non-zero byte `k` of `row` (8 bytes).
#[inline(always)]
pub(crate) fn nonzero_bytes(row: u64) -> u32 {
    // Bytes that are not zero get their top bit set (no carry crosses a byte)...
    const LOW7: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let top = (((row & LOW7).wrapping_add(LOW7)) | row) & !LOW7;
    // ...and the top bits are gathered into the low byte, byte k to bit k.
    ((top >> 7).wrapping_mul(0x0102_0408_1020_4080) >> 56) as u32
}

/// `e` wrapped once round the path of length `L = 2N+1`, for `e < 2L`: a byte load instead of a
/// compare and a conditional move.
const fn wrap_table<const N: usize>() -> [u8; 2 * LOW_PATH] {
    let mut t = [0u8; 2 * LOW_PATH];
    let l = 2 * N + 1;
    let mut e = 0;
    while e < 2 * l && e < 2 * LOW_PATH {
        t[e] = if e >= l { e - l } else { e } as u8;
        e += 1;
    }
    t
}

/// `[a, o]` for the mover `s` and the relative position `last` of the last seed: the cell `a`
/// it fell in and the cell `o` opposite, for `last < N` (the own pits); 0 and 0 otherwise.
const fn capture_cells<const N: usize>() -> [[[u8; 2]; 16]; 2] {
    let mut t = [[[0u8; 2]; 16]; 2];
    let mut s = 0;
    while s < 2 {
        let off = s * (N + 1);
        let mut last = 0;
        while last < N {
            let o = (off + 2 * N - last) % (2 * N + 2);
            t[s][last] = [(off + last) as u8, o as u8];
            last += 1;
        }
        s += 1;
    }
    t
}

/// The sum of the bytes of `row` (at most 255 in all: a ruleset has at most 162 seeds).
#[inline(always)]
fn byte_sum(row: u64) -> u64 {
    row.wrapping_mul(0x0101_0101_0101_0101) >> 56
}

/// Sows `seeds` (> 0) picked up from relative position `i` (`0..2N`, not the store `N`) of the
/// mover `s` on the low word of a board with `N` pits (up to 7); the origin must hold exactly
/// `seeds`. Returns the cells and the relative position of the last seed.
#[inline(always)]
pub(crate) fn sow_low<const N: usize>(
    cells: u128,
    s: usize,
    i: usize,
    seeds: usize,
) -> (u128, usize) {
    const { assert!(N >= 1 && N <= 7) };
    let l = 2 * N + 1;
    let s = s & 1; // 0 or 1 already; the masks spare bounds checks
    let i = i & 15;
    let e = i + seeds; // the last seed's relative position, not yet wrapped
    if e < 2 * l {
        // At most one wrap: one table entry (origin emptied, the sown path added).
        let last = const { wrap_table::<N>() }[e] as usize;
        (cells.wrapping_add(SOW_LO[N][s][i][e]), last)
    } else {
        // Several laps (rare): the whole laps in bulk, then the remainder.
        let prefix = &PREFIX_LO[N][s];
        let last = e % l;
        let cells = (cells & CLEAR[cell_of(N, s * (N + 1), i) & 15])
            .wrapping_add(prefix[last + 1])
            .wrapping_add(prefix[l].wrapping_mul((e / l) as u128))
            .wrapping_sub(prefix[i + 1]);
        (cells, last)
    }
}

/// One Kalah move on the low word of a board with `N` pits (up to 7), the rules without the
/// bookkeeping: the sow, the extra turn, the capture, the end of the game and its sweep. Pit `i`
/// (0-based, `i < N`) of side `s` (0 South, 1 North) holds `seeds` > 0; `first_sow` says whether
/// this is the game's first sow (only read with `first_extra_turn=false`). Returns the cells,
/// the side to move next (0 or 1) and, if the game ended (the sow cap aside, which the caller
/// counts), why; the cells are then swept. `STD` promises standard Kalah (only `f.sweep` read).
///
/// What [`Board::play_kalah_n`] and the Kalah perft share, so that both play the same rules.
#[inline(always)]
pub(crate) fn kalah_move_n<const N: usize, const STD: bool>(
    cells: u128,
    s: usize,
    i: usize,
    seeds: usize,
    first_sow: bool,
    f: KalahFlags,
) -> (u128, usize, Option<EndReason>) {
    const { assert!(N >= 1 && N <= 7) };
    let s = s & 1; // 0 or 1 already; the masks spare bounds checks
    let (mut cells, last) = sow_low::<N>(cells, s, i, seeds);

    // The extra turn without a branch (rule 3).
    let extra = (last == N) & (STD || !first_sow || f.first_extra_turn);
    let next = s ^ (!extra) as usize;
    // The capture (rule 4): the last seed in an own pit that was empty (now 1) and the opposite
    // pit not empty. The three tests are combined without branches (`black_box` keeps the
    // compiler from splitting them into three) and one branch is taken on the result: each test
    // alone is close to a coin flip for a branch predictor, while a capture is rare (a
    // branch-free capture, doing its work on every move, measured slower still).
    let [a, o] = const { capture_cells::<N>() }[s][last & 15];
    let (a, o) = (a as usize & 15, o as usize & 15);
    let bytes = cells.to_le_bytes();
    let opposite = bytes[o];
    let no_opposite = (opposite == 0) & (STD || !f.empty_capture);
    let miss = (bytes[a] ^ 1) | (last >= N) as u8 | no_opposite as u8;
    if std::hint::black_box(miss) == 0 {
        let store = if s == 0 { N } else { 2 * N + 1 };
        cells = (cells & CLEAR[a] & CLEAR[o]).wrapping_add(times(UNIT[store], opposite as u64 + 1));
    }

    // The end (rule 5): a row empty, or with `end_on_no_move` the next mover's row.
    // A row is empty when its bytes shifted to the top of a word are zero (two shifts, no
    // 64-bit mask constant to load).
    let empty = |s: usize| {
        let row = if s == 0 {
            cells as u64
        } else {
            (cells >> (8 * (N + 1))) as u64
        };
        row << (64 - 8 * N) == 0
    };
    let end = if !STD && f.end_on_no_move {
        empty(next).then_some(EndReason::NoMove)
    } else {
        (empty(0) | empty(1)).then_some(EndReason::SideEmpty)
    };
    if end.is_some() && f.sweep {
        cells = sweep_n::<N>(cells);
    }
    (cells, next, end)
}

/// The owner sweep on the low word of a board with `N` pits: each side's pits into its store.
#[inline]
pub(crate) fn sweep_n<const N: usize>(cells: u128) -> u128 {
    let south = byte_sum(row_n::<N>(cells, 0));
    let north = byte_sum(row_n::<N>(cells, 1));
    (cells & !const { row_mask(N, 0) | row_mask(N, 1) })
        .wrapping_add(times(UNIT[N], south))
        .wrapping_add(times(UNIT[(2 * N + 1) & 15], north))
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
    /// up to 7: [`kalah_move_n`] on the low word, then the sow count, the pie state and the sow
    /// cap. `STD` promises that [`Ruleset::is_standard_kalah`] holds, so that no variant flag is
    /// read.
    #[inline(always)]
    pub(crate) fn play_kalah_n<const N: usize, const STD: bool>(&mut self, i: usize) {
        const { assert!(N >= 1 && N <= 7) };
        debug_assert_eq!(self.ruleset.pits(), N);
        debug_assert!(!STD || self.ruleset.is_standard_kalah());
        let Some(side) = self.mover else { return };
        let s = side.index();
        let seeds = self.cells[(s * (N + 1) + i) & 15] as usize; // the mask spares a bounds check
        let (cells, next, end) = kalah_move_n::<N, STD>(
            self.low_cells(),
            s,
            i,
            seeds,
            self.sows == 0,
            KalahFlags::of(&self.ruleset),
        );
        self.set_low_cells(cells);
        self.sows += 1;
        let next = if next == 0 { Side::South } else { Side::North };
        if !STD {
            self.pie_after_sow(next);
        }
        if let Some(reason) = end {
            // Already swept by `kalah_move_n`.
            self.mover = None;
            self.end = Some(reason);
            return;
        }
        if self.sows >= self.ruleset.sow_cap() {
            self.finish(EndReason::SowCap);
            return;
        }
        self.mover = Some(next);
    }

    /// The non-empty pits of `side` as a bit mask (bit `k` for pit `k + 1`), for `N` up to 7.
    #[cfg(test)]
    pub(crate) fn pit_mask_n<const N: usize>(&self, side: Side) -> u32 {
        nonzero_bytes(row_n::<N>(self.low_cells(), side.index()))
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
