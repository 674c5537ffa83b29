//! The `alphabeta` bot (docs/bots.md).

fn main() {
    mancala_bots::engine_loop::run(&mut mancala_bots::alphabeta::AlphaBetaBot::default());
}
