//! `greedy`: the move that leaves the most seeds in its own store at the end of its turn.
//!
//! A turn is followed through extra turns: when a sow gives the mover another sow, greedy
//! continues with the continuation that maximises its store at the end of the turn (a full
//! search over its own chain of sows, the opponent never moves), and the move's value is that
//! maximum (within [`CHAIN_BUDGET`] positions per move, which only Congkak's long relay chains
//! reach). After `swap` (pie rule) the mover's store is the store of the seat it takes over.
//! A sow that ends the game is valued after the end-of-game sweep. Ties between first sows are
//! broken uniformly at random with the game seed's generator, so a game repeats with its seed.
//! It looks no further than its own turn: it never considers the opponent's reply.

use rand::Rng;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use mancala_rules::{Move, Position, Ruleset, Side};

use crate::engine_loop::{Bot, Search};
use crate::state::same_player;

pub struct GreedyBot {
    rng: ChaCha8Rng,
}

impl Default for GreedyBot {
    fn default() -> Self {
        GreedyBot {
            rng: ChaCha8Rng::seed_from_u64(0),
        }
    }
}

/// Positions greedy may visit in the extra-turn chains of one move choice. Kalah chains stay far
/// below it; Congkak's relay sowing can chain many sows, and there the chain search stops
/// (deterministically) when the budget is spent.
pub const CHAIN_BUDGET: u32 = 20_000;

/// The most seeds `player` (a seat) can have in its store when the turn that `pos` is in ends,
/// if `player` keeps sowing greedily while it is to move. Chains are finite: every extra-turn
/// sow puts a seed into the store. Once `budget` is spent, a position counts as its store.
fn best_turn_store(pos: &Position, player: Side, budget: &mut u32) -> u32 {
    let mut best = pos.store(player);
    for &mv in pos.legal_moves().iter() {
        if *budget == 0 {
            break;
        }
        *budget -= 1;
        let mut child = pos.clone();
        child.play_unchecked(mv);
        best = best.max(turn_value(pos, mv, &child, player, budget));
    }
    best
}

/// The value for `player` (the seat that moved in `parent`) of `child`, reached by `mv`.
fn turn_value(
    parent: &Position,
    mv: Move,
    child: &Position,
    player: Side,
    budget: &mut u32,
) -> u32 {
    if same_player(parent, mv, child) {
        best_turn_store(child, player, budget)
    } else if mv == Move::Swap {
        // The mover takes over the other seat.
        child.store(player.other())
    } else {
        child.store(player)
    }
}

impl GreedyBot {
    /// The greedy move for `pos` (see the module docs).
    pub fn choose(&mut self, pos: &Position) -> Move {
        let Some(me) = pos.to_move() else {
            return Move::Pit(1);
        };
        let moves = pos.legal_moves();
        let mut best: Vec<Move> = Vec::with_capacity(moves.len());
        let mut best_value = 0;
        let mut budget = CHAIN_BUDGET;
        for &mv in moves.iter() {
            let mut child = pos.clone();
            child.play_unchecked(mv);
            let v = turn_value(pos, mv, &child, me, &mut budget);
            if best.is_empty() || v > best_value {
                best.clear();
                best_value = v;
            }
            if v == best_value {
                best.push(mv);
            }
        }
        match best.len() {
            0 => Move::Pit(1),
            1 => best[0],
            n => best[self.rng.gen_range(0..n)],
        }
    }
}

impl Bot for GreedyBot {
    fn name(&self) -> String {
        format!("greedy {}", env!("CARGO_PKG_VERSION"))
    }

    fn new_game(&mut self, _ruleset: Ruleset, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
    }

    fn think(&mut self, pos: &Position, _search: &mut Search<'_>) -> Move {
        self.choose(pos)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kalah(state: &str) -> Position {
        Position::from_state("kalah".parse().unwrap(), state).unwrap()
    }

    #[test]
    fn takes_the_extra_turn_then_the_best_continuation() {
        // South: pit 6 holds 1 (lands in the store: extra turn), pit 5 holds 2 (pit 6, store:
        // also an extra turn).
        let pos = kalah("s/0.0.0.0.2.1/4.4.4.4.4.4/10.11/0");
        let mut bot = GreedyBot::default();
        // 6, 5, 6 again: store 10 -> 13 through the chain (then South's row is empty and the
        // game ends); 5 first gives 11, then 6 (now 2 seeds) ends on North's side: 12.
        assert_eq!(bot.choose(&pos), Move::Pit(6));
        assert_eq!(
            best_turn_store(&pos, Side::South, &mut CHAIN_BUDGET.clone()),
            13
        );
    }

    #[test]
    fn prefers_a_capture() {
        // South pit 1 holds 1: it lands in the empty pit 2 and captures North's pit 5 (9 seeds);
        // pit 6 only gives one seed to the store.
        let pos = kalah("s/1.0.0.0.0.2/0.0.0.0.9.0/20.16/0");
        let mut bot = GreedyBot::default();
        assert_eq!(bot.choose(&pos), Move::Pit(1));
    }
}
