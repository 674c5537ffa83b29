//! The `random` bot: a uniformly random legal move (docs/bots.md).

fn main() {
    mancala_bots::engine_loop::run(&mut mancala_bots::random::RandomBot::default());
}
