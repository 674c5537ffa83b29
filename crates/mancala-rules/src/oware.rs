//! Oware (abapa) sowing, captures, grand slam, feeding and the end of the game
//! (docs/rules.md, Oware rules O1–O8).
//!
//! Houses are numbered `h = 0..12` around the board: South's houses 1..6 are `h = 0..5`, North's
//! `h = 6..11`; sowing goes up (counter-clockwise) and wraps. In `cells` house `h` is at `h` for
//! `h < 6` and `h + 1` after it (South's store cell holds South's captures). The repetition rule
//! needs the positions since the last capture; the caller passes that history in
//! (`Position` does, `Board` passes none and so never ends a game by repetition).

use super::board::{store_index, Board};
use super::packed::{CLEAR, UNIT};
use super::{EndReason, Side};

const HOUSES: usize = 12;

#[inline(always)]
fn cell(h: usize) -> usize {
    if h < 6 {
        h
    } else {
        h + 1
    }
}

/// The positions since the last capture, as the repetition rule needs them: a `Vec` (what
/// [`crate::Position`] keeps) or perft's [`RepStack`].
pub(crate) trait RepHistory {
    /// A capture: no earlier position can occur again.
    fn clear(&mut self);
    /// Remembers `before` (the position the move was played from) and says whether `now` is a
    /// position remembered since the last capture.
    fn push_and_find(&mut self, before: u128, now: u128) -> bool;
}

impl RepHistory for Vec<u128> {
    #[inline]
    fn clear(&mut self) {
        Vec::clear(self);
    }

    #[inline(always)]
    fn push_and_find(&mut self, before: u128, now: u128) -> bool {
        self.push(before);
        self.contains(&now)
    }
}

/// One history stack for a whole perft, so that a node costs no allocation: a node's entries
/// are `entries[start..]` (a capture moves `start` up instead of clearing), and the caller
/// truncates `entries` back after each move.
pub(crate) struct RepStack<'a> {
    pub(crate) entries: &'a mut Vec<u128>,
    pub(crate) start: usize,
}

impl RepHistory for RepStack<'_> {
    #[inline]
    fn clear(&mut self) {
        self.start = self.entries.len();
    }

    #[inline(always)]
    fn push_and_find(&mut self, before: u128, now: u128) -> bool {
        self.entries.push(before);
        self.entries[self.start..].contains(&now)
    }
}

/// The repetition key: the twelve houses and the side to move, exactly (no hashing). House `h`
/// is byte `h`, the mover (0 South, 1 North, 2 over) byte 12: the cells of the low word with
/// the two stores masked out and North's houses moved down one byte.
#[inline]
pub(crate) fn rep_key(board: &Board) -> u128 {
    let c = board.low_cells();
    const SOUTH: u128 = (1 << 48) - 1; // houses 0..6 in cells 0..6
    const NORTH: u128 = SOUTH << 48; // houses 6..12 in cells 7..13, one byte down
    let m = match board.mover {
        Some(Side::South) => 0u128,
        Some(Side::North) => 1,
        None => 2,
    };
    (c & SOUTH) | ((c >> 8) & NORTH) | m << 96
}

/// `PREFIX[k]`: one seed in the cell of each house `j % 12` for `j < k` (two laps of houses).
static PREFIX: [u128; 2 * HOUSES + 1] = {
    let mut t = [0u128; 2 * HOUSES + 1];
    let mut k = 1;
    while k <= 2 * HOUSES {
        let h = (k - 1) % HOUSES;
        let c = if h < 6 { h } else { h + 1 };
        t[k] = t[k - 1] + (1u128 << (8 * c));
        k += 1;
    }
    t
};

impl Board {
    /// Plays Oware house `i` (0-based) of the side to move; it must be legal. `history` holds the
    /// repetition keys of the positions since the last capture, before this move; it is updated.
    /// Returns whether seeds were captured.
    pub(crate) fn play_oware<H: RepHistory>(&mut self, i: usize, history: Option<&mut H>) -> bool {
        let Some(side) = self.mover else { return false };
        let before = history.as_ref().map(|_| rep_key(self));
        let base = if side == Side::South { 0 } else { 6 };
        let origin = base + i;
        let origin_cell = cell(origin);
        let seeds = self.cells[origin_cell] as usize;

        // Sow, skipping the origin house (rule 2), on the cells as one word: full laps of 11
        // houses in bulk, then the remainder (at most 10 houses, never back at the origin) as
        // the difference of two prefixes.
        let laps = (seeds / (HOUSES - 1)) as u64;
        let rem = seeds % (HOUSES - 1);
        let mut c = self.low_cells() & CLEAR[origin_cell];
        if laps > 0 {
            let all = PREFIX[HOUSES].wrapping_sub(UNIT[origin_cell]);
            c = c.wrapping_add(all.wrapping_mul(laps as u128));
        }
        c = c
            .wrapping_add(PREFIX[origin + rem + 1])
            .wrapping_sub(PREFIX[origin + 1]);
        self.set_low_cells(c);
        // The last house: a whole number of laps ends just before the origin.
        let h = if rem == 0 {
            (origin + HOUSES - 1) % HOUSES
        } else {
            (origin + rem) % HOUSES
        };

        // Capture backwards along the opponent's row (rule 3), unless a grand slam (rule 4).
        let opp = side.other();
        let opp_base = 6 - base;
        let mut captured: u32 = 0;
        if (opp_base..opp_base + 6).contains(&h) {
            let mut j = h;
            loop {
                let c = self.cells[cell(j)];
                if c != 2 && c != 3 {
                    break;
                }
                captured += c as u32;
                if j == opp_base {
                    break;
                }
                j -= 1;
            }
            if captured > 0 && captured == self.row_sum(opp) {
                captured = 0; // grand slam: played, captures nothing
            }
            if captured > 0 {
                let mut j = h;
                while j >= opp_base {
                    let c = self.cells[cell(j)];
                    if c != 2 && c != 3 {
                        break;
                    }
                    self.cells[cell(j)] = 0;
                    if j == 0 {
                        break;
                    }
                    j -= 1;
                }
                self.cells[store_index(6, side)] += captured as u8;
            }
        }
        self.sows += 1;
        self.mover = Some(opp);

        // End checks, in this order: majority, no move / no feeding, repetition, sow cap.
        let half = self.ruleset.total_seeds() / 2;
        let (s, n) = (self.store(Side::South), self.store(Side::North));
        if s > half || n > half || (s == half && n == half) {
            self.finish(EndReason::Majority);
            return captured > 0;
        }
        if !self.oware_has_move() {
            // The player to move cannot feed the opponent: they take their own seeds (rule 5).
            self.finish(EndReason::NoFeeding);
            return captured > 0;
        }
        if let (Some(history), Some(before)) = (history, before) {
            if captured > 0 {
                history.clear();
            } else if history.push_and_find(before, rep_key(self)) {
                self.finish(EndReason::Repetition);
                return false;
            }
        }
        if self.sows >= self.ruleset.sow_cap() {
            self.finish(EndReason::SowCap);
        }
        captured > 0
    }

    /// Whether the side to move has a legal move ([`Board::legal_moves`] not empty), without
    /// building the list: a non-empty row does, unless the opponent's row is empty, when a
    /// house must hold enough seeds to reach it (the feeding obligation).
    #[inline]
    fn oware_has_move(&self) -> bool {
        let Some(side) = self.mover else { return false };
        if self.row_empty(side) {
            return false;
        }
        if !self.row_empty(side.other()) {
            return true;
        }
        self.pits(side)
            .iter()
            .enumerate()
            .any(|(i, &c)| c as usize >= 6 - i)
    }
}
