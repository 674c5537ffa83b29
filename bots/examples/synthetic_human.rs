//! A synthetic human: a protocol-speaking player whose mistakes are made the way a model of a
//! person makes them, for trying out `arena analyse --profile` (the shape of the mistakes of the
//! `Elo` settings against people of their rating, docs/bots.md) where no games of real people
//! with their moves are at hand. It is a stand-in with a stated model, not a claim about the
//! site's players: rerun the comparison on the site's own PGN.
//!
//! The model, different in kind from the alpha-beta bot's skill scale (a fixed-depth search and
//! a softmax over its scores):
//! - **Lookahead:** each move looks `1 + B` turns ahead, `B ~ Binomial(3, strength)`: a weak
//!   player mostly sees the sow itself and its captures, a strong one two to four turns.
//! - **Misjudged values:** every sow's value (the search's, in seeds) is perceived with Gaussian
//!   noise whose spread falls with the strength and grows with the seeds in the pit sown (a
//!   big pit is hard to count round the board): `sd = (0.3 + 3.2·(1 − strength)) · (1 + n/8)`.
//! - The sow with the largest perceived value is played.
//!
//! Options: `Strength` (string, 0 to 1). Seeded by `newgame`'s seed, so a run repeats.
//!
//! `cargo build --release -p mancala-bots --example synthetic_human`, then
//! `arena run --bot name=h30 cmd=target/release/examples/synthetic_human option.Strength=0.3 ...`
//! (`scripts/mistake-profile.sh` runs a whole synthetic site).

use mancala_bots::alphabeta::{self, Eval, Settings, Tt, SCALE};
use mancala_bots::engine_loop::{self, Bot, Search};
use mancala_protocol::{OptionDecl, OptionKind};
use mancala_rules::{Move, Position, Ruleset};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

struct Human {
    strength: f64,
    rng: ChaCha8Rng,
    tt: Tt,
}

impl Human {
    /// A standard normal draw (Box–Muller).
    fn gauss(&mut self) -> f64 {
        let u: f64 = self.rng.gen::<f64>().max(f64::MIN_POSITIVE);
        let v: f64 = self.rng.gen();
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * v).cos()
    }
}

impl Bot for Human {
    fn name(&self) -> String {
        "synthetic human".into()
    }

    fn options(&self) -> Vec<OptionDecl> {
        vec![OptionDecl {
            name: "Strength".into(),
            kind: OptionKind::String {
                default: "0.5".into(),
            },
        }]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        if !name.eq_ignore_ascii_case("strength") {
            return Err(format!("unknown option `{name}`"));
        }
        self.strength = value
            .trim()
            .parse::<f64>()
            .ok()
            .filter(|s| (0.0..=1.0).contains(s))
            .ok_or_else(|| format!("`{value}`: expected a strength from 0 to 1"))?;
        Ok(())
    }

    fn new_game(&mut self, _ruleset: Ruleset, seed: u64) {
        self.rng = ChaCha8Rng::seed_from_u64(seed);
        self.tt.clear();
    }

    fn think(&mut self, pos: &Position, search: &mut Search<'_>) -> Move {
        let extra = (0..3)
            .filter(|_| self.rng.gen::<f64>() < self.strength)
            .count() as u32;
        let settings = Settings {
            depth: 1 + extra,
            // Any noise makes the search score every root move exactly; the choice is ours.
            noise: 1.0,
            nodes: None,
            eval: Eval::default(),
        };
        self.tt.clear();
        let out = alphabeta::search(pos, settings, &mut self.tt, search);
        let fallback = pos.legal_moves().first().copied().unwrap_or(Move::Pit(1));
        let Some(it) = out.last else { return fallback };
        let base = 0.3 + 3.2 * (1.0 - self.strength);
        let mover = pos.to_move();
        let mut best = (f64::MIN, fallback);
        for &(mv, score) in &it.root_scores {
            let seeds = match (mv, mover) {
                (Move::Pit(k), Some(side)) => f64::from(pos.board().pits(side)[usize::from(k) - 1]),
                _ => 0.0,
            };
            let seen =
                f64::from(score) / f64::from(SCALE) + base * (1.0 + seeds / 8.0) * self.gauss();
            if seen > best.0 {
                best = (seen, mv);
            }
        }
        best.1
    }
}

fn main() {
    engine_loop::run(&mut Human {
        strength: 0.5,
        rng: ChaCha8Rng::seed_from_u64(0),
        tt: Tt::new(4),
    });
}
