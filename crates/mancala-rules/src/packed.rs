//! [`Packed`]: the 24 cells of a [`Board`](super::Board) held in two registers, and the
//! precomputed tables that make a Kalah or Congkak sow a few word additions.
//!
//! Why: the sowing loop (one seed at a time, with a wrap test per seed and a trip count that
//! changes every move) cost more in branch mispredictions than in arithmetic. Here a sow of any
//! length is `cells + prefix[last+1] - prefix[start+1] + laps·prefix[L]`, one division only when
//! the seeds go round more than once, and the end-of-game tests are masks on the same registers.
//! No byte can carry into the next: a ruleset has at most 162 seeds.

use super::board::CELLS;

/// Cells 0..16 in `lo`, 16..24 in `hi`, little-endian (cell `a` is byte `a`). Kalah up to 7 pits
/// and Oware live entirely in `lo`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Packed {
    lo: u128,
    hi: u64,
}

impl Packed {
    const ZERO: Packed = Packed { lo: 0, hi: 0 };

    /// With `WIDE = false` the caller guarantees every cell in play is below 16 (Kalah up to 7
    /// pits): `hi` is then left out of loads, stores and tests, and all the work on it is dead
    /// code the compiler drops.
    #[inline(always)]
    pub(crate) fn load<const WIDE: bool>(cells: &[u8; CELLS]) -> Packed {
        let mut lo = [0u8; 16];
        let mut hi = [0u8; 8];
        lo.copy_from_slice(&cells[..16]);
        if WIDE {
            hi.copy_from_slice(&cells[16..]);
        }
        Packed {
            lo: u128::from_le_bytes(lo),
            hi: u64::from_le_bytes(hi),
        }
    }

    #[inline(always)]
    pub(crate) fn store<const WIDE: bool>(self, cells: &mut [u8; CELLS]) {
        cells[..16].copy_from_slice(&self.lo.to_le_bytes());
        if WIDE {
            cells[16..].copy_from_slice(&self.hi.to_le_bytes());
        }
    }

    /// `v` at cell `a` (all other cells zero). Branch-free: which register holds `a` depends on
    /// the side to move, which a predictor cannot guess.
    #[inline(always)]
    fn at<const WIDE: bool>(a: usize, v: u8) -> Packed {
        let in_lo = (!WIDE || a < 16) as u64;
        Packed {
            lo: ((v as u64 * in_lo) as u128) << (8 * (a & 15)),
            hi: (v as u64 * (1 - in_lo)) << (8 * (a & 7)),
        }
    }

    #[inline(always)]
    pub(crate) fn get<const WIDE: bool>(self, a: usize) -> u8 {
        if !WIDE || a < 16 {
            (self.lo >> (8 * a)) as u8
        } else {
            (self.hi >> (8 * (a - 16))) as u8
        }
    }

    /// Cellwise `self + k·other`; the caller guarantees no cell leaves 0..=255.
    #[inline(always)]
    fn add_times(self, other: Packed, k: u64) -> Packed {
        Packed {
            lo: self.lo.wrapping_add(other.lo.wrapping_mul(k as u128)),
            hi: self.hi.wrapping_add(other.hi.wrapping_mul(k)),
        }
    }

    #[inline(always)]
    fn add(self, other: Packed) -> Packed {
        Packed {
            lo: self.lo.wrapping_add(other.lo),
            hi: self.hi.wrapping_add(other.hi),
        }
    }

    #[inline(always)]
    fn sub(self, other: Packed) -> Packed {
        Packed {
            lo: self.lo.wrapping_sub(other.lo),
            hi: self.hi.wrapping_sub(other.hi),
        }
    }

    /// Adds `v` to cell `a` (no cell may leave 0..=255).
    #[inline(always)]
    pub(crate) fn add_at<const WIDE: bool>(&mut self, a: usize, v: u8) {
        *self = self.add(Packed::at::<WIDE>(a, v));
    }

    /// Subtracts `v` from cell `a` (no cell may leave 0..=255).
    #[inline(always)]
    pub(crate) fn sub_at<const WIDE: bool>(&mut self, a: usize, v: u8) {
        *self = self.sub(Packed::at::<WIDE>(a, v));
    }

    /// Whether every cell under `mask` (bytes 0 or 0xFF) is zero.
    #[inline(always)]
    pub(crate) fn is_zero_under<const WIDE: bool>(self, mask: Packed) -> bool {
        let hi = if WIDE { self.hi & mask.hi } else { 0 };
        (self.lo & mask.lo) | hi as u128 == 0
    }

    /// Sows `seeds` (> 0) picked up from relative position `start` of the path of a mover with
    /// `n` pits and row offset `off` (see `kalah.rs`), and returns the relative position of the
    /// last seed. `origin` is the cell of `start`, which must hold exactly `seeds`.
    #[inline(always)]
    pub(crate) fn sow<const WIDE: bool>(
        &mut self,
        n: usize,
        off: usize,
        start: usize,
        origin: usize,
        seeds: u8,
    ) -> usize {
        let l = 2 * n + 1;
        let e = start + seeds as usize; // the last seed's relative position, not yet wrapped
        let prefix = &TABLES[n].prefix[(off != 0) as usize];
        let (sown, last) = if e < 2 * l {
            // At most one wrap: the prefix table runs over two laps.
            (prefix[e + 1], if e >= l { e - l } else { e })
        } else {
            // Several laps (rare): the whole laps in bulk, then the remainder.
            let last = e % l;
            (prefix[last + 1].add_times(prefix[l], (e / l) as u64), last)
        };
        *self = self
            .add(sown)
            .sub(prefix[start + 1])
            .sub(Packed::at::<WIDE>(origin, seeds));
        last
    }
}

/// Longest sowing path: Congkak with 9 holes, `L = 2·9 + 1`.
const MAX_PATH: usize = 19;

/// Per pit count `n`: sowing prefixes and row masks.
pub(crate) struct Tables {
    /// `prefix[s][k]`: one seed in each cell for each of the first `k` relative positions of the
    /// path of the mover `s` (0 South, 1 North), for `k` up to two laps (`2L`).
    prefix: [[Packed; 2 * MAX_PATH + 1]; 2],
    /// `row[s]`: 0xFF in each of side `s`'s pits.
    pub(crate) row: [Packed; 2],
}

/// `CLEAR[a]`: all ones except cell `a` (0..16), to empty one cell of the low word with an AND
/// instead of a variable-width 128-bit shift. `CLEAR[16]` is all ones (empties nothing).
pub(crate) static CLEAR: [u128; 17] = {
    let mut t = [!0u128; 17];
    let mut a = 0;
    while a < 16 {
        t[a] = !(0xFFu128 << (8 * a));
        a += 1;
    }
    t
};

/// `UNIT[a]`: 1 in cell `a` (0..16) of the low word.
pub(crate) static UNIT: [u128; 16] = {
    let mut t = [0u128; 16];
    let mut a = 0;
    while a < 16 {
        t[a] = 1 << (8 * a);
        a += 1;
    }
    t
};

/// `PREFIX_LO[n][s]`: the low words of `TABLES[n].prefix[s]` for `n` up to 7 (the boards that
/// live in the low word), 16 bytes apart instead of 32.
pub(crate) static PREFIX_LO: [[[u128; 2 * MAX_PATH + 1]; 2]; 8] = {
    let tables = build_tables();
    let mut t = [[[0u128; 2 * MAX_PATH + 1]; 2]; 8];
    let mut n = 1;
    while n <= 7 {
        let mut s = 0;
        while s < 2 {
            let mut k = 0;
            while k < 2 * MAX_PATH + 1 {
                t[n][s][k] = tables[n].prefix[s][k].lo;
                k += 1;
            }
            s += 1;
        }
        n += 1;
    }
    t
};

/// Longest path of a board that lives in the low word (7 pits): `2·7 + 1`.
pub(crate) const LOW_PATH: usize = 15;

/// `SOW_LO[n][s][i][e]`, for `n` up to 7: what a sow from relative position `i` (a Kalah pit
/// `0..n`, or for a Congkak relay any hole `0..2n`) of the mover `s` whose last seed reaches
/// relative position `e` (not wrapped, `i < e < 2L`: at most one wrap) adds to the low word,
/// the origin emptied included: `prefix[e+1] - prefix[i+1] - (e-i)` at the origin, wrapping.
/// With it a sow of up to two laps is one 128-bit addition from memory (the origin's `CLEAR`
/// mask and the two prefix reads folded into one entry). Entries with `e <= i` are unused.
pub(crate) static SOW_LO: [[[[u128; 2 * LOW_PATH]; 16]; 2]; 8] = {
    let tables = build_tables();
    let mut t = [[[[0u128; 2 * LOW_PATH]; 16]; 2]; 8];
    let mut n = 1;
    while n <= 7 {
        let l = 2 * n + 1;
        let mut s = 0;
        while s < 2 {
            let prefix = &tables[n].prefix[s];
            let off = if s == 0 { 0 } else { n + 1 };
            let mut i = 0;
            while i < l {
                let mut e = i + 1;
                while e < 2 * l {
                    let origin = ((e - i) as u128) << (8 * ((off + i) % (2 * n + 2)));
                    t[n][s][i][e] = prefix[e + 1]
                        .lo
                        .wrapping_sub(prefix[i + 1].lo)
                        .wrapping_sub(origin);
                    e += 1;
                }
                i += 1;
            }
            s += 1;
        }
        n += 1;
    }
    t
};

/// Indexed by pits per side, 1..=9 (index 0 unused).
pub(crate) static TABLES: [Tables; 10] = build_tables();

/// `p` with `v` added to cell `a` (no carry: tables hold at most 2 per cell).
const fn add(p: Packed, a: usize, v: u8) -> Packed {
    if a < 16 {
        Packed {
            lo: p.lo + ((v as u128) << (8 * a)),
            hi: p.hi,
        }
    } else {
        Packed {
            lo: p.lo,
            hi: p.hi + ((v as u64) << (8 * (a - 16))),
        }
    }
}

const fn build_tables() -> [Tables; 10] {
    const EMPTY: Tables = Tables {
        prefix: [[Packed::ZERO; 2 * MAX_PATH + 1]; 2],
        row: [Packed::ZERO; 2],
    };
    let mut t = [EMPTY; 10];
    let mut n = 1;
    while n <= 9 {
        let mut s = 0;
        while s < 2 {
            let off = if s == 0 { 0 } else { n + 1 };
            let mut k = 1;
            while k <= 2 * (2 * n + 1) {
                let cell = ((k - 1) % (2 * n + 1) + off) % (2 * n + 2);
                t[n].prefix[s][k] = add(t[n].prefix[s][k - 1], cell, 1);
                k += 1;
            }
            let mut i = 0;
            while i < n {
                t[n].row[s] = add(t[n].row[s], off + i, 0xFF);
                i += 1;
            }
            s += 1;
        }
        n += 1;
    }
    t
}
