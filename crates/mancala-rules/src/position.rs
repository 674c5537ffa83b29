//! [`Position`]: what the referee, the CLI and the bots play on. A [`Board`] plus, for Oware, the
//! positions since the last capture (the repetition rule). For Kalah and Congkak the history is
//! an empty `Vec` that never allocates, and every call goes straight to the `Board`.

use super::board::Board;
use super::oware::rep_key;
use super::ruleset::{GameKind, Ruleset};
use super::{GameResult, IllegalMove, Move, MoveList, Side};

/// A game in progress or finished, of any ruleset. See the module docs.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pub(crate) board: Board,
    /// Oware: repetition keys of the positions since the last capture (or the start), not
    /// including the current one. Always empty for the other games.
    pub(crate) history: Vec<u128>,
}

impl Position {
    /// The start position of `ruleset`, South to move.
    pub fn new(ruleset: Ruleset) -> Position {
        Position {
            board: Board::new(ruleset),
            history: Vec::new(),
        }
    }

    /// The `Copy` board (all the state except Oware's repetition history).
    #[inline]
    pub fn board(&self) -> &Board {
        &self.board
    }

    pub fn ruleset(&self) -> Ruleset {
        self.board.ruleset
    }

    /// The side to move; `None` once the game is over.
    #[inline]
    pub fn to_move(&self) -> Option<Side> {
        self.board.mover
    }

    #[inline]
    pub fn is_over(&self) -> bool {
        self.board.is_over()
    }

    #[inline]
    pub fn legal_moves(&self) -> MoveList {
        self.board.legal_moves()
    }

    pub fn is_legal(&self, mv: Move) -> bool {
        self.board.is_legal(mv)
    }

    /// Plays `mv`, or returns why it is illegal and leaves the position unchanged.
    pub fn play(&mut self, mv: Move) -> Result<(), IllegalMove> {
        match self.board.illegal_reason(mv) {
            Some(reason) => Err(IllegalMove { mv, reason }),
            None => {
                self.play_unchecked(mv);
                Ok(())
            }
        }
    }

    /// Plays a legal move without checking it (search on generated moves).
    #[inline]
    pub fn play_unchecked(&mut self, mv: Move) {
        match (self.board.ruleset.kind(), mv) {
            (GameKind::Oware, Move::Pit(k)) => {
                self.board
                    .play_oware(k as usize - 1, Some(&mut self.history));
                if self.board.is_over() {
                    self.history.clear();
                }
            }
            _ => self.board.play_unchecked(mv),
        }
    }

    /// `side`'s pits 1..N in that side's own numbering.
    #[inline]
    pub fn pits(&self, side: Side) -> &[u8] {
        self.board.pits(side)
    }

    /// Seeds in `side`'s store (Oware: captured seeds).
    #[inline]
    pub fn store(&self, side: Side) -> u32 {
        self.board.store(side)
    }

    /// Sows so far (extra-turn sows count, `swap` does not).
    pub fn sows(&self) -> u32 {
        self.board.sows
    }

    /// The final result, once the game is over.
    pub fn result(&self) -> Option<GameResult> {
        self.board.result()
    }

    /// Whether the pie rule's `swap` was played (the players exchanged seats).
    pub fn swapped(&self) -> bool {
        self.board.swapped()
    }

    /// A 64-bit key for transposition tables (see [`Board::hash_key`]). The Oware repetition
    /// history is not part of it.
    #[inline]
    pub fn hash_key(&self) -> u64 {
        self.board.hash_key()
    }

    /// Oware: how many earlier positions since the last capture the repetition rule remembers.
    pub fn repetition_history_len(&self) -> usize {
        self.history.len()
    }

    pub(crate) fn current_rep_key(&self) -> u128 {
        rep_key(&self.board)
    }
}

/// The number of distinct move sequences of length `depth` from `pos` (each sow is a move, and so
/// is `swap`; a finished game has no moves). Make/unmake by copy: Kalah and Congkak recurse on
/// the `Copy` [`Board`], Oware on cloned `Position`s (it needs the repetition history).
pub fn perft(pos: &Position, depth: u32) -> u64 {
    if pos.board.ruleset.kind() == GameKind::Oware {
        perft_position(pos, depth)
    } else {
        perft_board(&pos.board, depth)
    }
}

fn perft_board(b: &Board, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = b.legal_moves();
    if depth == 1 {
        // The leaves are played, not bulk-counted; `black_box` keeps the optimiser from
        // dropping a move whose result nobody reads.
        for &mv in moves.iter() {
            let mut child = *b;
            child.play_unchecked(mv);
            std::hint::black_box(&child);
        }
        return moves.len() as u64;
    }
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut child = *b;
        child.play_unchecked(mv);
        nodes += perft_board(&child, depth - 1);
    }
    nodes
}

fn perft_position(p: &Position, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = p.legal_moves();
    let mut nodes = 0;
    for &mv in moves.iter() {
        let mut child = p.clone();
        child.play_unchecked(mv);
        nodes += perft_position(&child, depth - 1);
    }
    nodes
}
