//! The exact Kalah solver (`arena solve`, `arena analyse`, the `solver` bot): perfect-play values
//! of Kalah(N,S) positions for every board size the rules engine supports and the variants
//! `empty_capture`, `sweep` and `end_on_no_move`.
//!
//! - `board.rs`: the solver's own board (pits only, mover's view), checked against the rules
//!   engine.
//! - `search.rs`: MTD(f) + alpha-beta with a bounds TT, enhanced transposition cutoffs.
//! - `db.rs`: endgame databases for positions with few seeds in the pits, cached on disk.
//!
//! A *value* is always the final store difference the side to move can force from here on
//! (future gain); add the current store difference for the final margin. See docs/solved.md.
//!
//! Pure computation except [`db::Db::load_or_build`]'s cache file.

pub mod board;
pub mod db;
pub mod search;

pub use board::{SBoard, Sow, Spec};
pub use db::Db;
pub use search::Solver;

/// Plain minimax without pruning or tables: the reference the tests check the solver against
/// (tiny boards only).
pub fn minimax(spec: &Spec, b: &SBoard) -> i32 {
    let mut best = i32::MIN;
    for i in 0..spec.pits {
        if b.c[i] == 0 {
            continue;
        }
        let s = b.sow(spec, i);
        let v = if s.over {
            s.gain
        } else if s.extra {
            s.gain + minimax(spec, &s.next)
        } else {
            s.gain - minimax(spec, &s.next)
        };
        best = best.max(v);
    }
    best
}

#[cfg(test)]
mod tests;
