//! The schedule: which players meet, in which game pairs, from which opening. Pure.
//!
//! Game ids are stable: a pair `p` holds games `2p` (the encounter's first-listed player moves
//! first) and `2p + 1` (colours swapped), both from opening `p`. Pairs are numbered round by
//! round, encounter by encounter, so the schedule, the openings and every seed are a function of
//! the run seed and the ids alone, whatever the concurrency, the shard, or a resume.

use serde::{Deserialize, Serialize};

use rand::seq::SliceRandom;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

use crate::rules::{Move, Position, Ruleset};

/// Who plays whom.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Format {
    /// Every pair of players.
    RoundRobin,
    /// Each listed player (by index) against every other player; challengers do not meet each
    /// other.
    Gauntlet { challengers: Vec<usize> },
}

/// One game of the schedule.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Pairing {
    pub game_id: u64,
    pub pair_id: u64,
    pub round: u32,
    /// Player index moving first (seated south).
    pub first: usize,
    pub second: usize,
}

/// The encounters (unordered pairs of player indices) of a format, in a fixed order.
pub fn encounters(players: usize, format: &Format) -> Vec<(usize, usize)> {
    let lazy = Encounters::new(players, format);
    (0..lazy.len()).map(|k| lazy.get(k)).collect()
}

/// The encounters of a format computed from their index, never stored: a round robin of `n`
/// players has `n(n-1)/2` of them, and a list of them grew with the square of the players
/// (10,000 players took 785 MiB before the first game). A round robin lists `(a, b)` with
/// `a < b` in lexicographic order; a gauntlet each challenger, in the order given, against every
/// player of the field (the players who are not challengers) in index order.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Encounters {
    RoundRobin {
        players: u64,
    },
    Gauntlet {
        challengers: Vec<usize>,
        field: Vec<usize>,
    },
}

impl Encounters {
    fn new(players: usize, format: &Format) -> Encounters {
        match format {
            Format::RoundRobin => Encounters::RoundRobin {
                players: players as u64,
            },
            Format::Gauntlet { challengers } => Encounters::Gauntlet {
                challengers: challengers.clone(),
                field: (0..players).filter(|p| !challengers.contains(p)).collect(),
            },
        }
    }

    fn len(&self) -> u64 {
        match self {
            Encounters::RoundRobin { players: n } => n * n.saturating_sub(1) / 2,
            Encounters::Gauntlet { challengers, field } => (challengers.len() * field.len()) as u64,
        }
    }

    /// Encounter `k` (below [`Encounters::len`]).
    fn get(&self, k: u64) -> (usize, usize) {
        match self {
            Encounters::RoundRobin { players: n } => {
                // Encounters before those of player `a` as the first: a(2n - a - 1)/2.
                let before = |a: u64| a * (2 * n - a - 1) / 2;
                // The largest `a` with before(a) <= k.
                let (mut lo, mut hi) = (0, n - 1);
                while hi - lo > 1 {
                    let mid = (lo + hi) / 2;
                    if before(mid) <= k {
                        lo = mid;
                    } else {
                        hi = mid;
                    }
                }
                let b = lo + 1 + (k - before(lo));
                (lo as usize, b as usize)
            }
            Encounters::Gauntlet { challengers, field } => {
                let width = field.len() as u64;
                (
                    challengers[(k / width) as usize],
                    field[(k % width) as usize],
                )
            }
        }
    }
}

/// The games of a run as a function of their ids: `pairs` rounds, each playing one pair per
/// encounter, pair `p` being encounter `p mod E` of round `p / E`. Nothing is stored per game or
/// per encounter, so a schedule of billions of games, or of a million players, costs nothing.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Schedule {
    encounters: Encounters,
    pairs: u32,
}

impl Schedule {
    pub fn new(players: usize, format: &Format, pairs: u32) -> Schedule {
        Schedule {
            encounters: Encounters::new(players, format),
            pairs,
        }
    }

    /// Game pairs in the whole schedule.
    pub fn pair_count(&self) -> u64 {
        self.encounters.len() * u64::from(self.pairs)
    }

    /// Games in the whole schedule.
    pub fn game_count(&self) -> u64 {
        2 * self.pair_count()
    }

    /// Games in shard `index` of `count` (the pairs whose id ≡ index mod count), or in the whole
    /// schedule.
    pub fn games_in_shard(&self, shard: Option<(u64, u64)>) -> u64 {
        match shard {
            None => self.game_count(),
            Some((index, count)) => {
                let pairs = self.pair_count();
                2 * (pairs / count + u64::from(pairs % count > index))
            }
        }
    }

    /// Game `game_id` (below [`Schedule::game_count`]).
    pub fn pairing(&self, game_id: u64) -> Pairing {
        let pair_id = game_id / 2;
        let e = self.encounters.len();
        let (a, b) = self.encounters.get(pair_id % e);
        let (first, second) = if game_id % 2 == 0 { (a, b) } else { (b, a) };
        Pairing {
            game_id,
            pair_id,
            round: (pair_id / e) as u32,
            first,
            second,
        }
    }

    /// Every game in game-id order.
    pub fn iter(&self) -> impl Iterator<Item = Pairing> + '_ {
        (0..self.game_count()).map(|g| self.pairing(g))
    }
}

/// Every game of the run, in game-id order (see [`Schedule`]).
pub fn pairings(players: usize, format: &Format, pairs: u32) -> Vec<Pairing> {
    Schedule::new(players, format, pairs).iter().collect()
}

/// SplitMix64 finaliser: derives independent 64-bit seeds from the run seed and ids.
pub fn derive_seed(run_seed: u64, stream: u64, id: u64) -> u64 {
    let mut z = run_seed
        ^ stream.wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ id.wrapping_mul(0xD1B5_4A32_D192_ED03);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// Seed streams, so the openings and the bots never share random numbers.
pub mod stream {
    pub const OPENINGS: u64 = 1;
    pub const BOT: u64 = 2;
    pub const BOOTSTRAP: u64 = 3;
}

/// The seed a bot gets for one game (`newgame ... seed N`): a function of the run seed, the game
/// and the player's seat at the start.
pub fn bot_seed(run_seed: u64, game_id: u64, first_player: bool) -> u64 {
    derive_seed(
        run_seed,
        stream::BOT,
        game_id * 2 + u64::from(!first_player),
    )
}

/// `count` openings of `plies` random legal sows each (see [`RandomOpenings`]). Opening `p` is
/// for pair `p`.
pub fn random_openings(
    ruleset: Ruleset,
    plies: u32,
    count: usize,
    run_seed: u64,
) -> Vec<Vec<Move>> {
    let mut stream = RandomOpenings::new(ruleset, plies, run_seed);
    (0..count).map(|_| stream.next_opening()).collect()
}

/// The random openings of a run, pair by pair: one seeded stream, each opening `plies` random
/// legal sows (never `swap`, never a finished game), not used before unless 64 tries found
/// nothing new (the space of short openings is small). Generated as the pairs are played, so a
/// run of billions of pairs starts at once; the memory of openings already used stops growing at
/// [`RandomOpenings::MEMORY`] distinct openings (after that, repeats are possible).
pub struct RandomOpenings {
    ruleset: Ruleset,
    plies: u32,
    rng: ChaCha8Rng,
    seen: std::collections::HashSet<Vec<Move>>,
}

impl RandomOpenings {
    pub const MEMORY: usize = 1 << 20;
    const TRIES: usize = 64;

    pub fn new(ruleset: Ruleset, plies: u32, run_seed: u64) -> RandomOpenings {
        RandomOpenings {
            ruleset,
            plies,
            rng: ChaCha8Rng::seed_from_u64(derive_seed(run_seed, stream::OPENINGS, 0)),
            seen: std::collections::HashSet::new(),
        }
    }

    /// The next pair's opening.
    pub fn next_opening(&mut self) -> Vec<Move> {
        let mut opening = random_opening(self.ruleset, self.plies, &mut self.rng);
        for _ in 0..Self::TRIES {
            if !self.seen.contains(&opening) {
                break;
            }
            opening = random_opening(self.ruleset, self.plies, &mut self.rng);
        }
        if self.seen.len() < Self::MEMORY {
            self.seen.insert(opening.clone());
        }
        opening
    }
}

fn random_opening(ruleset: Ruleset, plies: u32, rng: &mut ChaCha8Rng) -> Vec<Move> {
    'retry: for _ in 0..1000 {
        let mut pos = Position::new(ruleset);
        let mut moves = Vec::with_capacity(plies as usize);
        for _ in 0..plies {
            let legal: Vec<Move> = pos
                .legal_moves()
                .iter()
                .copied()
                .filter(|m| *m != Move::Swap)
                .collect();
            let Some(&mv) = legal.choose(rng) else {
                continue 'retry;
            };
            pos.play_unchecked(mv);
            moves.push(mv);
            if pos.is_over() {
                continue 'retry;
            }
        }
        return moves;
    }
    // Every line this long ends the game (tiny boards): play from the start position.
    Vec::new()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_robin_pairs_alternate_the_first_player() {
        let games = pairings(3, &Format::RoundRobin, 2);
        assert_eq!(games.len(), 3 * 2 * 2);
        for pair in games.chunks(2) {
            assert_eq!(pair[0].pair_id, pair[1].pair_id);
            assert_eq!(
                (pair[0].first, pair[0].second),
                (pair[1].second, pair[1].first)
            );
            assert_eq!(pair[0].game_id + 1, pair[1].game_id);
        }
        let ids: Vec<u64> = games.iter().map(|g| g.game_id).collect();
        assert_eq!(ids, (0..12).collect::<Vec<_>>());
    }

    /// The encounters computed from their index are the nested loops' list, in order.
    #[test]
    fn encounters_from_their_index_are_the_listed_ones() {
        for n in 0..40 {
            let mut listed = Vec::new();
            for a in 0..n {
                for b in a + 1..n {
                    listed.push((a, b));
                }
            }
            assert_eq!(encounters(n, &Format::RoundRobin), listed, "{n} players");
        }
        let gauntlet = Format::Gauntlet {
            challengers: vec![4, 1],
        };
        let field = [0, 2, 3, 5];
        let listed: Vec<_> = [4, 1]
            .iter()
            .flat_map(|&c| field.iter().map(move |&f| (c, f)))
            .collect();
        assert_eq!(encounters(6, &gauntlet), listed);
        // A million players: the last encounter, at once and in no memory.
        let huge = Encounters::new(1_000_000, &Format::RoundRobin);
        assert_eq!(huge.len(), 499_999_500_000);
        assert_eq!(huge.get(huge.len() - 1), (999_998, 999_999));
        assert_eq!(huge.get(999_999), (1, 2));
    }

    #[test]
    fn gauntlet_meets_only_the_field() {
        let enc = encounters(
            4,
            &Format::Gauntlet {
                challengers: vec![0, 1],
            },
        );
        assert_eq!(enc, vec![(0, 2), (0, 3), (1, 2), (1, 3)]);
    }

    #[test]
    fn openings_are_distinct_legal_and_reproducible() {
        let rules: Ruleset = "kalah".parse().unwrap();
        let a = random_openings(rules, 4, 50, 7);
        let b = random_openings(rules, 4, 50, 7);
        assert_eq!(a, b);
        let distinct: std::collections::HashSet<_> = a.iter().collect();
        assert_eq!(distinct.len(), 50);
        for opening in &a {
            let mut pos = Position::new(rules);
            for &mv in opening {
                pos.play(mv).unwrap();
            }
            assert!(!pos.is_over());
        }
    }

    #[test]
    fn the_schedule_is_a_function_of_the_ids() {
        let s = Schedule::new(4, &Format::RoundRobin, 3);
        assert_eq!(s.game_count(), 6 * 3 * 2);
        let all: Vec<Pairing> = s.iter().collect();
        for g in &all {
            assert_eq!(s.pairing(g.game_id), *g);
        }
        // Shards split the pairs without overlap or gap.
        for n in 1..=5 {
            let total: u64 = (0..n).map(|i| s.games_in_shard(Some((i, n)))).sum();
            assert_eq!(total, s.game_count());
            for i in 0..n {
                let counted = all.iter().filter(|g| g.pair_id % n == i).count() as u64;
                assert_eq!(s.games_in_shard(Some((i, n))), counted);
            }
        }
        // A schedule of billions of games is cheap to make and to index.
        let huge = Schedule::new(6, &Format::RoundRobin, u32::MAX);
        assert_eq!(huge.game_count(), 2 * 15 * u64::from(u32::MAX));
        let last = huge.pairing(huge.game_count() - 1);
        assert_eq!((last.round, last.first, last.second), (u32::MAX - 1, 5, 4));
    }

    #[test]
    fn derived_seeds_differ_by_stream_and_id() {
        assert_ne!(derive_seed(1, 1, 0), derive_seed(1, 2, 0));
        assert_ne!(derive_seed(1, 1, 0), derive_seed(1, 1, 1));
        assert_ne!(bot_seed(5, 3, true), bot_seed(5, 3, false));
    }
}
