//! The bundled bots: search algorithms as library code, each binary in `src/bin/` only the
//! protocol loop ([`engine_loop::run`]) around one of them. See docs/bots.md.
//!
//! - [`random`]: a uniformly random legal move.
//! - [`greedy`]: the move that fills its own store most by the end of its turn.
//! - [`alphabeta`]: negamax alpha-beta with iterative deepening and a TT; the Easy, Normal and
//!   Hard levels.
//! - [`solver`]: perfect Kalah play from the exact solver (`mancala_solver`).
//! - [`mcts`]: UCT with random playouts.
//!
//! [`state`] lets the searches run on the `Copy` board (Kalah, Congkak) or the full position
//! (Oware).

pub mod alphabeta;
pub mod engine_loop;
pub mod greedy;
pub mod mcts;
pub mod random;
pub mod solver;
pub mod state;
