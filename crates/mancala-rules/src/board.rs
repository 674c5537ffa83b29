//! [`Board`]: the `Copy` state of a game of any ruleset, and the rules every game shares
//! (whose turn, legal moves, the pie rule, the end-of-game sweep, the result).
//!
//! Layout: one fixed `[u8; 24]` for all games, `N` = pits per side:
//! `cells[0..N]` South's pits 1..N, `cells[N]` South's store, `cells[N+1..2N+1]` North's pits
//! 1..N, `cells[2N+1]` North's store (Oware: the captured seeds). The spare bytes stay zero, so
//! the cells can be read as two little-endian words (`packed.rs`) and a row tested by a mask.
//!
//! A `Board` referees Kalah and Congkak completely. For Oware it has no memory of earlier
//! positions, so it cannot apply the repetition rule: [`crate::Position`] adds that. Search
//! code that copies positions by value can use `Board` for Kalah and Congkak.

use super::packed::{Packed, TABLES};
use super::ruleset::{GameKind, Ruleset, Sweep};
use super::{BySide, EndReason, GameResult, IllegalMove, IllegalReason, Move, MoveList, Side};

pub(crate) const CELLS: usize = 24;

/// Where the pie rule stands (only ever `Off` when the ruleset has `pie=false`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(crate) enum Pie {
    Off,
    /// South's first turn is still going on.
    Pending,
    /// North is to move for the first time: `swap` is legal.
    Offered,
    /// North answered with a pit move.
    Declined,
    /// North answered `swap`: the players exchanged seats.
    Swapped,
}

/// The complete state of a game without history. See the module docs.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Board {
    pub(crate) cells: [u8; CELLS],
    pub(crate) ruleset: Ruleset,
    pub(crate) sows: u32,
    /// `None` once the game is over.
    pub(crate) mover: Option<Side>,
    pub(crate) pie: Pie,
    pub(crate) end: Option<EndReason>,
}

/// Offset of `side`'s pit 1 in `cells`.
#[inline(always)]
pub(crate) fn row_offset(n: usize, side: Side) -> usize {
    // Arithmetic, not a match: the side to move is not predictable (extra turns).
    side.index() * (n + 1)
}

/// Index of `side`'s store in `cells`.
#[inline(always)]
pub(crate) fn store_index(n: usize, side: Side) -> usize {
    side.index() * (n + 1) + n
}

impl Board {
    /// The start position: every pit holds the ruleset's seeds, stores empty, South to move.
    pub fn new(ruleset: Ruleset) -> Board {
        let n = ruleset.pits();
        let mut cells = [0u8; CELLS];
        for side in Side::BOTH {
            let off = row_offset(n, side);
            cells[off..off + n].fill(ruleset.seeds() as u8);
        }
        Board {
            cells,
            ruleset,
            sows: 0,
            mover: Some(Side::South),
            pie: if ruleset.pie() {
                Pie::Pending
            } else {
                Pie::Off
            },
            end: None,
        }
    }

    pub fn ruleset(&self) -> Ruleset {
        self.ruleset
    }

    /// The side to move, `None` once the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        self.mover
    }

    #[inline]
    pub fn is_over(&self) -> bool {
        self.mover.is_none()
    }

    /// `side`'s pits 1..N, in that side's own numbering.
    #[inline]
    pub fn pits(&self, side: Side) -> &[u8] {
        let n = self.ruleset.pits();
        let off = row_offset(n, side);
        &self.cells[off..off + n]
    }

    /// Seeds in `side`'s store (Oware: seeds captured so far).
    #[inline]
    pub fn store(&self, side: Side) -> u32 {
        self.cells[store_index(self.ruleset.pits(), side)] as u32
    }

    /// Sows played so far (extra-turn sows count, `swap` does not).
    #[inline]
    pub fn sows(&self) -> u32 {
        self.sows
    }

    /// Whether North answered the first turn with `swap` (the players exchanged seats).
    pub fn swapped(&self) -> bool {
        self.pie == Pie::Swapped
    }

    /// Seeds in `side`'s pits.
    #[inline]
    pub fn row_sum(&self, side: Side) -> u32 {
        self.pits(side).iter().map(|&c| c as u32).sum()
    }

    /// Cells 0..16 as one little-endian word (cell `a` is byte `a`).
    #[inline(always)]
    pub(crate) fn low_cells(&self) -> u128 {
        let mut lo = [0u8; 16];
        lo.copy_from_slice(&self.cells[..16]);
        u128::from_le_bytes(lo)
    }

    /// Stores cells 0..16 from one little-endian word.
    #[inline(always)]
    pub(crate) fn set_low_cells(&mut self, lo: u128) {
        self.cells[..16].copy_from_slice(&lo.to_le_bytes());
    }

    /// Whether all of `side`'s pits are empty: one mask test on the packed cells.
    #[inline(always)]
    pub(crate) fn row_empty(&self, side: Side) -> bool {
        Packed::load::<true>(&self.cells)
            .is_zero_under::<true>(TABLES[self.ruleset.pits()].row[side.index()])
    }

    /// The result once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        let end = self.end?;
        let score = BySide::new(self.store(Side::South), self.store(Side::North));
        let winner = match score.south.cmp(&score.north) {
            std::cmp::Ordering::Greater => Some(Side::South),
            std::cmp::Ordering::Less => Some(Side::North),
            std::cmp::Ordering::Equal => None,
        };
        Some(GameResult { score, winner, end })
    }

    /// The legal moves, pits in increasing order then `swap`.
    ///
    /// Branch-free over the pits (every pit is written, the length grows only for a legal one):
    /// whether a pit is empty is what a branch predictor cannot guess.
    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::new();
        let Some(side) = self.mover else { return list };
        let n = self.ruleset.pits();
        let off = row_offset(n, side);
        let row = &self.cells[off..off + n];
        // Oware's feeding obligation: a pit is legal only if its seeds reach the other row.
        let feed = self.ruleset.kind() == GameKind::Oware && self.row_empty(side.other());
        let mut len = 0;
        for (i, &c) in row.iter().enumerate() {
            let need = if feed { n - i } else { 1 };
            list.moves[len] = Move::Pit(i as u8 + 1);
            len += (c as usize >= need) as usize;
        }
        list.len = len as u8;
        if self.pie == Pie::Offered {
            list.push(Move::Swap);
        }
        list
    }

    /// Why `mv` is illegal here, or `None` if it is legal.
    pub fn illegal_reason(&self, mv: Move) -> Option<IllegalReason> {
        let Some(side) = self.mover else {
            return Some(IllegalReason::GameOver);
        };
        let n = self.ruleset.pits();
        match mv {
            Move::Swap => (self.pie != Pie::Offered).then_some(IllegalReason::SwapNotAllowed),
            Move::Pit(k) if k == 0 || k as usize > n => {
                Some(IllegalReason::PitOutOfRange { pits: n as u8 })
            }
            Move::Pit(k) => {
                let i = k as usize - 1;
                let c = self.cells[row_offset(n, side) + i] as usize;
                if c == 0 {
                    Some(IllegalReason::EmptyPit)
                } else if self.ruleset.kind() == GameKind::Oware
                    && self.row_empty(side.other())
                    && c < n - i
                {
                    Some(IllegalReason::FeedingObligation)
                } else {
                    None
                }
            }
        }
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.illegal_reason(mv).is_none()
    }

    /// Plays `mv` if it is legal; otherwise returns why and leaves the board unchanged.
    /// For Oware, a `Board` does not apply the repetition rule (use `Position`).
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        match self.illegal_reason(mv) {
            Some(reason) => Err(IllegalMove { mv, reason }),
            None => {
                self.play_unchecked(mv);
                Ok(())
            }
        }
    }

    /// Plays a move known to be legal (one from [`Board::legal_moves`]). An illegal move gives
    /// an unspecified (but memory-safe) board.
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        match mv {
            Move::Swap => self.pie = Pie::Swapped,
            Move::Pit(k) => match self.ruleset.kind() {
                GameKind::Kalah => self.play_kalah(k as usize - 1),
                GameKind::Congkak => self.play_congkak(k as usize - 1),
                GameKind::Oware => {
                    self.play_oware::<Vec<u128>>(k as usize - 1, None);
                }
            },
        }
    }

    /// After a Kalah or Congkak pit move: update the pie state for the side to move next.
    #[inline(always)]
    pub(crate) fn pie_after_sow(&mut self, next: Side) {
        if self.pie == Pie::Off {
            return; // the common case first: one compare
        }
        match self.pie {
            Pie::Off => {}
            Pie::Offered => self.pie = Pie::Declined,
            Pie::Pending if next == Side::North => self.pie = Pie::Offered,
            _ => {}
        }
    }

    /// Ends the game: each player takes the seeds left in their own pits, except Kalah with
    /// `sweep=none`. (Congkak's rule 5 gives the remainder to the player not to move; when it
    /// applies, the player to move has no seeds, so that is the same as each owner taking theirs.)
    pub(crate) fn finish(&mut self, reason: EndReason) {
        self.mover = None;
        self.end = Some(reason);
        if self.ruleset.kind() == GameKind::Kalah && self.ruleset.sweep() == Sweep::None {
            return;
        }
        let n = self.ruleset.pits();
        for side in Side::BOTH {
            let off = row_offset(n, side);
            let sum: u32 = self.cells[off..off + n].iter().map(|&c| c as u32).sum();
            self.cells[off..off + n].fill(0);
            self.cells[store_index(n, side)] += sum as u8;
        }
    }

    /// A 64-bit hash of everything that decides the future of the game except the sow count
    /// (so transpositions that differ only in move number share a key): pits, stores, the side
    /// to move and the pie state. Not incremental; a few multiplications.
    #[inline]
    pub fn hash_key(&self) -> u64 {
        let w = |i: usize| {
            let mut b = [0u8; 8];
            b.copy_from_slice(&self.cells[i..i + 8]);
            u64::from_le_bytes(b)
        };
        let tag = match self.mover {
            Some(Side::South) => 1u64,
            Some(Side::North) => 2,
            None => 3,
        } | (self.pie as u64) << 2;
        let mut h = mix(w(0) ^ 0x9E37_79B9_7F4A_7C15);
        h = mix(h ^ w(8));
        h = mix(h ^ w(16) ^ tag.rotate_left(40));
        h
    }
}

#[inline(always)]
fn mix(mut x: u64) -> u64 {
    // splitmix64 finaliser
    x = (x ^ (x >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    x ^ (x >> 31)
}
