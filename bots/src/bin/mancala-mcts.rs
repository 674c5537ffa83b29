//! The `mcts` bot (docs/bots.md).

fn main() {
    mancala_bots::engine_loop::run(&mut mancala_bots::mcts::MctsBot::default());
}
