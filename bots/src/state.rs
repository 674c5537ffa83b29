//! [`State`]: the few position operations the searches need, over both the `Copy`
//! [`Board`] (Kalah and Congkak: make/unmake is a 40-byte copy) and the full [`Position`] (Oware,
//! whose repetition rule needs the history that a `Board` lacks). The searches are generic over
//! it and pick the cheaper type at the root with [`with_state`].
//!
//! It also fixes who a *player* is when the pie rule's `swap` exchanges seats: a player is named
//! by the seat they held before any swap ([`State::mover_player`]), so a result can be credited
//! to the right player however the seats changed.

use mancala_rules::{Board, GameKind, Move, MoveList, Position, Side};

/// What search code needs from a position. See the module docs.
pub trait State: Clone {
    /// The seat to move, `None` once the game is over.
    fn mover(&self) -> Option<Side>;
    fn moves(&self) -> MoveList;
    /// Plays a move from [`State::moves`].
    fn play(&mut self, mv: Move);
    fn store(&self, side: Side) -> u32;
    fn pits(&self, side: Side) -> &[u8];
    fn key(&self) -> u64;
    fn swapped(&self) -> bool;

    /// The player to move, named by their seat before any `swap`.
    #[inline]
    fn mover_player(&self) -> Option<Side> {
        self.mover()
            .map(|s| if self.swapped() { s.other() } else { s })
    }

    /// The seat `player` (named as in [`State::mover_player`]) sits in now.
    #[inline]
    fn seat_of(&self, player: Side) -> Side {
        if self.swapped() {
            player.other()
        } else {
            player
        }
    }

    /// `side`'s store minus the other side's.
    #[inline]
    fn store_diff(&self, side: Side) -> i32 {
        self.store(side) as i32 - self.store(side.other()) as i32
    }

    /// Seeds in `side`'s pits.
    #[inline]
    fn row_sum(&self, side: Side) -> i32 {
        self.pits(side).iter().map(|&c| c as i32).sum()
    }
}

/// `Board` and `Position` have the same inherent methods; the trait only forwards to them.
macro_rules! forward_state {
    ($ty:ty) => {
        impl State for $ty {
            #[inline]
            fn mover(&self) -> Option<Side> {
                self.to_move()
            }
            #[inline]
            fn moves(&self) -> MoveList {
                self.legal_moves()
            }
            #[inline]
            fn play(&mut self, mv: Move) {
                self.play_unchecked(mv)
            }
            #[inline]
            fn store(&self, side: Side) -> u32 {
                <$ty>::store(self, side)
            }
            #[inline]
            fn pits(&self, side: Side) -> &[u8] {
                <$ty>::pits(self, side)
            }
            #[inline]
            fn key(&self) -> u64 {
                self.hash_key()
            }
            #[inline]
            fn swapped(&self) -> bool {
                <$ty>::swapped(self)
            }
        }
    };
}

forward_state!(Board);
forward_state!(Position);

/// Something generic over [`State`] that [`with_state`] can run on the right type.
pub trait WithState {
    type Output;
    fn run<S: State>(self, root: S) -> Self::Output;
}

/// Runs `f` on the cheapest [`State`] that referees `pos` completely: the `Copy` board for Kalah
/// and Congkak, the position (with its repetition history) for Oware.
pub fn with_state<F: WithState>(pos: &Position, f: F) -> F::Output {
    if pos.ruleset().kind() == GameKind::Oware {
        f.run(pos.clone())
    } else {
        f.run(*pos.board())
    }
}

/// Does the sow `mv` by `parent`'s mover leave the same *player* to move (an extra turn)? `swap`
/// never does: the seat stays, the player changes.
#[inline]
pub fn same_player<S: State>(parent: &S, mv: Move, child: &S) -> bool {
    matches!(mv, Move::Pit(_)) && child.mover().is_some() && child.mover() == parent.mover()
}
