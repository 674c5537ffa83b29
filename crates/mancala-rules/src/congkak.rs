//! Congkak sowing (docs/rules.md, Congkak rules G1–G7).
//!
//! Congkak is played clockwise with the store on the left: the mirror image of Kalah. Numbered
//! from the far end toward the mover's own store, the path is the same as Kalah's (own holes
//! k+1..N, own store, the opponent's holes 1..N, their store skipped, own hole 1, ...), so the
//! sowing uses Kalah's [`sow_path`]. What differs: relay sowing, the end rule, and the lap cap.

use super::board::{store_index, Board};
use super::kalah::{cell_of, sow_low, sow_path};
use super::packed::{CLEAR, UNIT};
use super::{EndReason, Side};

impl Board {
    /// Plays Congkak hole `i` (0-based) of the side to move, which must be non-empty.
    #[inline]
    pub(crate) fn play_congkak(&mut self, i: usize) {
        // The hole count as a constant and the board in one register up to 7 holes (the
        // default); 8 and 9 holes spill into the high word and take the general path.
        match self.ruleset.pits() {
            5 => self.play_congkak_n::<5>(i),
            6 => self.play_congkak_n::<6>(i),
            7 => self.play_congkak_n::<7>(i),
            _ => self.play_congkak_in(i),
        }
    }

    /// [`Board::play_congkak`] for `N` holes (up to 7): the cells stay in one `u128` through
    /// all the relays, each relay one [`sow_low`].
    #[inline(always)]
    fn play_congkak_n<const N: usize>(&mut self, i: usize) {
        const { assert!(N >= 1 && N <= 7) };
        let Some(side) = self.mover else { return };
        let s = side.index();
        let off = s * (N + 1);
        let lap_cap = self.ruleset.lap_cap();
        let mut cells = self.low_cells();
        let mut hand = self.cells[(off + i) & 15] as usize; // picked up by `sow_low`
        let mut from = i;
        let mut sown: u32 = 0;
        let mut next = side.other();
        loop {
            let last;
            (cells, last) = sow_low::<N>(cells, s, from, hand);
            sown += hand as u32;
            if last == N {
                next = side; // own store: bonus sow (rule 3)
                break;
            }
            let a = cell_of(N, off, last) & 15;
            let bytes = cells.to_le_bytes();
            let here = bytes[a];
            if here > 1 {
                // Occupied hole, either side: relay (rule 2), unless the lap cap is reached.
                if sown >= lap_cap {
                    break;
                }
                hand = here as usize; // picked up by `sow_low`
                from = last;
                continue;
            }
            // Empty hole: the lap dies. Mati bela on the own side (rule 4).
            if last < N {
                let o = cell_of(N, off, 2 * N - last) & 15;
                let opposite = bytes[o];
                if opposite != 0 {
                    let store = if s == 0 { N } else { 2 * N + 1 };
                    cells = (cells & CLEAR[a] & CLEAR[o])
                        .wrapping_add(UNIT[store].wrapping_mul(opposite as u128 + 1));
                }
            }
            break;
        }
        self.set_low_cells(cells);
        self.end_congkak_sow(next);
    }

    /// [`Board::play_congkak`] for any hole count (the board in two words).
    fn play_congkak_in(&mut self, i: usize) {
        let Some(side) = self.mover else { return };
        let n = self.ruleset.pits();
        let off = if side == Side::South { 0 } else { n + 1 };
        let lap_cap = self.ruleset.lap_cap();
        let mut hand = self.cells[off + i] as u32; // picked up by `sow_path`
        let mut from = i;
        let mut sown: u32 = 0;
        let mut next = side.other();
        loop {
            let last = sow_path(&mut self.cells, n, off, from, hand);
            sown += hand;
            if last == n {
                next = side; // own store: bonus sow (rule 3)
                break;
            }
            let a = cell_of(n, off, last);
            let here = self.cells[a];
            if here > 1 {
                // Occupied hole, either side: relay (rule 2), unless the lap cap is reached.
                if sown >= lap_cap {
                    break;
                }
                hand = here as u32; // picked up by `sow_path`
                from = last;
                continue;
            }
            // Empty hole: the lap dies. Mati bela on the own side (rule 4).
            if last < n {
                let o = cell_of(n, off, 2 * n - last);
                let opposite = self.cells[o];
                if opposite != 0 {
                    self.cells[store_index(n, side)] += opposite + 1;
                    self.cells[a] = 0;
                    self.cells[o] = 0;
                }
            }
            break;
        }
        self.end_congkak_sow(next);
    }

    /// After a Congkak sow: count it, the pie rule, the end (rule 5, the sow cap) or `next` moves.
    #[inline(always)]
    fn end_congkak_sow(&mut self, next: Side) {
        self.sows += 1;
        self.pie_after_sow(next);
        if self.row_empty(next) {
            // Rule 5: the player to move has no seeds; the rest goes to the other player.
            self.finish(EndReason::NoMove);
            return;
        }
        if self.sows >= self.ruleset.sow_cap() {
            self.finish(EndReason::SowCap);
            return;
        }
        self.mover = Some(next);
    }
}
