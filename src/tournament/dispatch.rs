//! The games still to play, handed out one at a time in game-id order, computed from the
//! schedule as they are asked for: nothing is stored per game, so a run of billions of games
//! starts at once and its memory does not grow with `--pairs`.
//!
//! Random openings come from one seeded stream, opening `p` for pair `p`, so the dispatcher
//! walks every pair in order (fast-forwarding through pairs of other shards and games already
//! played) to keep the stream in step. On `--resume` it first checks that the games already in
//! the folder are the ones `run.json` schedules (same players, rules and openings).

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;

use anyhow::{bail, Result};

use crate::run_folder::games::GameRow;
use crate::vocab::config::{Opening, OpeningSource, RunConfig};
use crate::vocab::schedule::{Pairing, RandomOpenings, Schedule};

/// Where each pair's opening comes from.
enum Openings {
    Random(Box<RandomOpenings>),
    List(Vec<Arc<Opening>>),
}

impl Openings {
    fn new(config: &RunConfig) -> Result<Openings> {
        Ok(match &config.openings {
            OpeningSource::Random { plies } => Openings::Random(Box::new(RandomOpenings::new(
                config.rules,
                *plies,
                config.seed,
            ))),
            OpeningSource::List { file, openings } => {
                if openings.is_empty() {
                    bail!("the openings file {file} holds no openings");
                }
                // Checked here too, not only when the file was read: run.json may have been edited.
                for (i, opening) in openings.iter().enumerate() {
                    opening
                        .position(config.rules)
                        .map_err(|e| anyhow::anyhow!("opening {} of {file}: {e}", i + 1))?;
                }
                Openings::List(openings.iter().cloned().map(Arc::new).collect())
            }
        })
    }

    /// The opening of `pair`; pairs must be asked for in order, from 0 (the random stream is
    /// one sequence).
    fn next(&mut self, pair: u64) -> Arc<Opening> {
        match self {
            Openings::Random(stream) => Arc::new(Opening {
                state: None,
                moves: stream.next_opening(),
            }),
            Openings::List(list) => list[(pair % list.len() as u64) as usize].clone(),
        }
    }
}

/// The next games of a run.
pub struct Dispatcher {
    schedule: Schedule,
    openings: Openings,
    shard: Option<(u64, u64)>,
    done: BTreeSet<u64>,
    next_pair: u64,
    /// The second game of the pair whose first game was just handed out.
    pending: Option<(Pairing, Arc<Opening>)>,
}

impl Dispatcher {
    /// The games of `config` (in `shard`, if any) that are not among `done_rows`. Checks every
    /// done row's game id, players, rules and opening against the schedule at once.
    pub fn new(
        config: &RunConfig,
        shard: Option<(u64, u64)>,
        done_rows: &[GameRow],
    ) -> Result<Dispatcher> {
        let schedule = Schedule::new(config.players.len(), &config.format, config.pairs);
        let openings = Openings::new(config)?;
        let name = |i: usize| config.players[i].name.as_str();
        let mut played = HashMap::new();
        for row in done_rows {
            let mismatch = |what: String| {
                anyhow::anyhow!(
                    "run.json no longer matches the games already in the folder: game {} {what}; restore run.json or start a new run folder",
                    row.game_id
                )
            };
            if row.game_id >= schedule.game_count() {
                return Err(mismatch(format!(
                    "is past the end of the schedule ({} games)",
                    schedule.game_count()
                )));
            }
            let p = schedule.pairing(row.game_id);
            if (row.first.as_str(), row.second.as_str()) != (name(p.first), name(p.second)) {
                return Err(mismatch(format!(
                    "was played by {} against {}, the schedule has {} against {}",
                    row.first,
                    row.second,
                    name(p.first),
                    name(p.second)
                )));
            }
            if row.rules != config.rules {
                return Err(mismatch(format!(
                    "was played under {}, run.json says {}",
                    row.rules, config.rules
                )));
            }
            played.insert(row.game_id, row.opening.to_string());
        }
        check_openings(&played, Openings::new(config)?)?;
        Ok(Dispatcher {
            schedule,
            openings,
            shard,
            done: done_rows.iter().map(|r| r.game_id).collect(),
            next_pair: 0,
            pending: None,
        })
    }

    /// Games of the run (in the shard), played or not.
    pub fn total(&self) -> u64 {
        self.schedule.games_in_shard(self.shard)
    }

    /// The next game to play, `None` when none is left.
    pub fn next_game(&mut self) -> Option<(Pairing, Arc<Opening>)> {
        if let Some(game) = self.pending.take() {
            return Some(game);
        }
        while self.next_pair < self.schedule.pair_count() {
            let pair = self.next_pair;
            self.next_pair += 1;
            let opening = self.openings.next(pair);
            if self.shard.is_some_and(|(i, n)| pair % n != i) {
                continue;
            }
            let mut todo = [2 * pair, 2 * pair + 1]
                .into_iter()
                .filter(|game_id| !self.done.contains(game_id))
                .map(|game_id| (self.schedule.pairing(game_id), opening.clone()));
            if let Some(first) = todo.next() {
                self.pending = todo.next();
                return Some(first);
            }
        }
        None
    }
}

/// Checks that every game already in the folder (`played`: game id → its opening) started from
/// the opening `run.json` gives its pair, before any game is played: found only when the run
/// reached that pair, an edited seed or openings file would have had earlier pairs played under
/// it first. Walks the openings up to the last pair played, as the run itself will.
fn check_openings(played: &HashMap<u64, String>, mut openings: Openings) -> Result<()> {
    let Some(last_pair) = played.keys().max().map(|id| id / 2) else {
        return Ok(());
    };
    for pair in 0..=last_pair {
        let line = openings.next(pair).to_string();
        for game_id in [2 * pair, 2 * pair + 1] {
            match played.get(&game_id) {
                Some(played) if *played != line => bail!(
                    "run.json no longer matches the games already in the folder: game {game_id} started from `{played}`, run.json gives its pair `{line}`; restore run.json or start a new run folder"
                ),
                _ => {}
            }
        }
    }
    Ok(())
}
