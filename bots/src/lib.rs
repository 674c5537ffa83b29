//! The bundled bots: search algorithms as library code, each binary in `src/bin/` only the
//! protocol loop ([`engine_loop::run`]) around one of them. See docs/bots.md.
//!
//! - [`random`]: a uniformly random legal move.
//! - [`greedy`]: the move that fills its own store most by the end of its turn.
//! - [`alphabeta`]: negamax alpha-beta with iterative deepening and a TT; the Easy, Normal and
//!   Hard levels.
//! - [`elo`]: the Elo curve that `option.Elo` is read on.
//! - [`book`]: Hard's opening book of solved Kalah positions.
//! - [`exact`]: the solver inside a node budget, Hard's endgame play.
//! - [`solver`]: perfect Kalah play from the exact solver (`mancala_solver`).
//! - [`mcts`]: UCT with random playouts.
//!
//! [`state`] lets the searches run on the `Copy` board (Kalah, Congkak) or the full position
//! (Oware).

pub mod alphabeta;
pub mod book;
pub mod elo;
pub mod engine_loop;
pub mod exact;
pub mod greedy;
pub mod mcts;
pub mod random;
pub mod solver;
pub mod state;

use mancala_rules::Position;

/// The value of `pos` for the side to move, in seeds of final store margin, from the alpha-beta
/// bot's search to `depth` turns with no noise and no node limit, on a fresh transposition table
/// of `tt_mib` MiB (the size changes which entries survive, and so can change the value).
/// `None` when the game is over. For valuing positions outside a game (`arena openings`): no
/// protocol loop, no clock, no `info` lines.
pub fn value(pos: &Position, depth: u32, tt_mib: usize) -> Option<f64> {
    let stop = std::sync::atomic::AtomicU64::new(0);
    let mut sink = std::io::sink();
    let mut ctx = engine_loop::Search::new(Default::default(), &stop, &mut sink);
    let settings = alphabeta::Settings {
        depth,
        noise: 0.0,
        nodes: None,
        eval: alphabeta::Eval::default(),
    };
    let mut tt = alphabeta::Tt::new(tt_mib);
    let last = alphabeta::search(pos, settings, &mut tt, &mut ctx).last?;
    Some(f64::from(last.score) / f64::from(alphabeta::SCALE))
}

#[cfg(test)]
mod tests {
    use mancala_rules::{Position, Ruleset};

    fn kalah(state: &str) -> Position {
        Position::from_state(Ruleset::kalah(6, 4), state).unwrap()
    }

    #[test]
    fn values_are_the_final_margins_of_hand_worked_endings() {
        // South's one seed goes into the store, which empties South's row: the game ends and
        // North keeps its 2 (rules.md, Kalah rules 3 and 5): 22–26, −4 for South.
        assert_eq!(
            super::value(&kalah("s/0.0.0.0.0.1/0.0.0.0.0.2/21.24/40"), 1, 1),
            Some(-4.0)
        );
        // South's last seed lands in its empty pit 2 and takes it and North's 3 opposite (rule
        // 4), which empties South's row: 24–24.
        assert_eq!(
            super::value(&kalah("s/1.0.0.0.0.0/0.0.0.0.3.0/20.24/40"), 1, 1),
            Some(0.0)
        );
        // North to move: its pit 1 seed takes South's 3 in pit 5 (6 + 1 − 2), 26–22, and the
        // value is the mover's: −4 for North.
        assert_eq!(
            super::value(&kalah("n/0.0.0.0.3.0/1.0.0.0.0.0/26.18/40"), 1, 1),
            Some(-4.0)
        );
        // A finished game has no value to search for.
        let over = kalah("x/0.0.0.0.0.0/0.0.0.0.0.0/21.27/41/end=side_empty");
        assert_eq!(super::value(&over, 4, 1), None);
    }
}
