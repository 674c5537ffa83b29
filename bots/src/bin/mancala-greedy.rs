//! The `greedy` bot (docs/bots.md).

fn main() {
    mancala_bots::engine_loop::run(&mut mancala_bots::greedy::GreedyBot::default());
}
