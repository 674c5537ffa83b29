//! The `solver` bot: perfect Kalah play (docs/bots.md).

fn main() {
    mancala_bots::engine_loop::run(&mut mancala_bots::solver::SolverBot::default());
}
