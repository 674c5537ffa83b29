//! `random`: a uniformly random legal move, from the seed the arena gives with `newgame`.

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use mancala_rules::{Move, Position, Ruleset};

use crate::engine_loop::{Bot, Search};

pub struct RandomBot {
    rng: ChaCha8Rng,
}

impl Default for RandomBot {
    fn default() -> Self {
        RandomBot {
            rng: ChaCha8Rng::seed_from_u64(0),
        }
    }
}

impl RandomBot {
    /// The move for `pos`: uniform over the legal moves (`swap` included where allowed).
    pub fn choose(&mut self, pos: &Position) -> Move {
        *pos.legal_moves()
            .choose(&mut self.rng)
            .expect("think is only called on unfinished games")
    }
}

impl Bot for RandomBot {
    fn name(&self) -> String {
        format!("random {}", env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self, _ruleset: Ruleset, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn think(&mut self, pos: &Position, _search: &mut Search<'_>) -> Move {
        self.choose(pos)
    }
}
