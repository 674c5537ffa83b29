//! A gate on a session (`arena gate`): the levels play colour-swapped pairs against a reference
//! pool whose Elos are held fixed (a gauntlet), each level with its own two-edge sequential test
//! (`rating::gate`); a decided level plays no more games, and the run stops when every level is
//! decided (or, failing fast, when one is proven outside). The tests take the completed pairs in
//! pair order, so the verdicts do not depend on which games finished first. `gate.json` holds
//! the result.

use std::collections::HashMap;
use std::path::PathBuf;

use anyhow::{Context, Result};

use super::order::PairOrder;
use super::{Finish, Finished, Session};
use crate::plan::pool::Reference;
use crate::rating::gate::{Band, GateSettings, GateVerdict, LevelGate, LevelStatus, Verdict};
use crate::run_folder::games::GameRecord;
use crate::run_folder::gate::{GateFile, GateLevel, PoolMember};
use crate::run_folder::RunKind;
use crate::tournament::events::{OnGame, RunSink, Steer};
use crate::vocab::schedule::encounters;
use crate::vocab::{BotSpec, Format, GameFlags};

/// Exit codes of `arena gate`, for CI: every level inside its band, some level proven outside,
/// the budget spent with some level undecided.
pub const EXIT_PASS: u8 = 0;
pub const EXIT_OUTSIDE: u8 = 3;
pub const EXIT_UNDECIDED: u8 = 4;

/// The prefix of the reference players' names in the run folder, so that a level and the
/// reference player it is compared with (the old build's `easy`) can share a name in the file.
pub const REF_PREFIX: &str = "ref-";

/// The confidence level of the estimates' intervals.
pub const CONFIDENCE: f64 = 0.95;

/// A level to check: its player and its band.
pub struct Level {
    pub spec: BotSpec,
    pub band: Band,
}

/// A gate as the bands file and the flags made it.
pub struct GatePlan {
    pub levels: Vec<Level>,
    pub pool: Vec<Reference>,
    pub settings: GateSettings,
    pub game: GameFlags,
    /// Game pairs per level and reference player, at most.
    pub max_pairs: u32,
    pub seed: u64,
    /// Stop as soon as one level is proven outside its band.
    pub fail_fast: bool,
    /// Where the pool's Elos came from, in words (the bands file's `reference_source` and its
    /// `reference_ratings`), for `gate.json`.
    pub reference_source: Option<String>,
}

impl GatePlan {
    /// The reference pool's fixed Elos, in order.
    pub fn pool_elos(&self) -> Vec<f64> {
        self.pool.iter().map(|r| r.elo.unwrap_or(0.0)).collect()
    }
}

/// A level's test after one of its pairs, as the caller is told it.
pub struct LevelUpdate<'a> {
    pub name: &'a str,
    pub status: LevelStatus,
    pub verdict: Verdict,
}

/// How a gate ended: `gate.json`'s content (with the exit code) and the session's end.
pub struct GateEnd {
    pub file: GateFile,
    pub finished: Finished,
}

/// Who a player of the run is.
#[derive(Clone, Copy)]
enum Role {
    Level(usize),
    Reference(usize),
}

/// The observer: completes each level's pairs against each reference player and takes them in
/// pair order ([`PairOrder`]): a pair is judged once every earlier pair of an undecided level is
/// in, so each level's verdict, and the gate's, is a function of the games' results, never of
/// the order they finished in. It feeds each level's test, retires a decided level (its pairs
/// after the deciding one are passed over) and stops the run when the gate is decided.
struct Observer<'a> {
    names: Vec<String>,
    roles: HashMap<String, Role>,
    /// The level of each encounter of the schedule, in order (pair `p` is encounter
    /// `p % len`).
    encounter_levels: Vec<usize>,
    tests: Vec<LevelGate>,
    order: PairOrder<(usize, usize)>,
    fail_fast: bool,
    /// The reason the run was stopped for, once it was.
    stopped: Option<String>,
    on_pair: &'a mut dyn FnMut(&LevelUpdate<'_>),
}

impl Observer<'_> {
    fn game(&mut self, record: &GameRecord) -> Steer {
        if self.stopped.is_some() {
            return Steer::Continue;
        }
        let row = &record.row;
        let points = row.result.score();
        let roles = (self.roles.get(&row.first), self.roles.get(&row.second));
        let (level, opponent, level_points) = match roles {
            (Some(&Role::Level(l)), Some(&Role::Reference(r))) => (l, r, points),
            (Some(&Role::Reference(r)), Some(&Role::Level(l))) => (l, r, 1.0 - points),
            _ => return Steer::Continue,
        };
        let half = (level_points * 2.0).round() as u8;
        self.order.game(row.pair_id, half, (level, opponent));
        let mut retired = Vec::new();
        loop {
            let (tests, levels) = (&self.tests, &self.encounter_levels);
            // A decided level's later pairs no longer count; a pair of no level never comes.
            let absent = |pair: u64| {
                let level = levels.get((pair % levels.len().max(1) as u64) as usize);
                level.map_or(true, |&l| tests[l].verdict().is_decided())
            };
            let Some(pair) = self.order.next(absent) else {
                break;
            };
            let (level, opponent) = pair.info;
            if let Some(stop) = self.pair(level, opponent, pair.half_points) {
                self.stopped = Some(stop.clone());
                return Steer::Stop(stop);
            }
            if self.tests[level].verdict().is_decided() {
                retired.push(level);
            }
        }
        if retired.is_empty() {
            Steer::Continue
        } else {
            Steer::Retire(retired)
        }
    }

    /// One pair of `level` against reference player `opponent`, in order: the level's test
    /// updated and told. `Some` with the reason to stop when it decides the gate.
    fn pair(&mut self, level: usize, opponent: usize, half: u8) -> Option<String> {
        let test = &mut self.tests[level];
        let verdict = test.add_pair(opponent, half);
        (self.on_pair)(&LevelUpdate {
            name: &self.names[level],
            status: test.status(CONFIDENCE),
            verdict,
        });
        if !verdict.is_decided() {
            None
        } else if self.fail_fast && verdict.is_outside() {
            Some(format!(
                "the gate failed: `{}` is outside its band",
                self.names[level]
            ))
        } else if self.tests.iter().all(|t| t.verdict().is_decided()) {
            Some("the gate decided every level".to_string())
        } else {
            None
        }
    }

    /// The end of the run: the complete pairs still waiting (behind a pair that was never
    /// played) are judged in order, for the levels still undecided.
    fn finish(&mut self) {
        if self.stopped.is_some() {
            return;
        }
        for pair in self.order.rest() {
            let (level, opponent) = pair.info;
            if self.tests[level].verdict().is_decided() {
                continue;
            }
            if self.pair(level, opponent, pair.half_points).is_some() {
                return;
            }
        }
    }
}

/// Plays `gate` into the new folder `out` until every level is decided or the budget is spent,
/// with `sinks` after the gate's observer; writes `gate.json`, then rates and reports the folder
/// when `report`. An interrupted gate is an error naming the folder. The game settings default
/// to the bundled opening suite on Kalah(6,4), as an SPRT's do.
pub fn play(
    gate: &GatePlan,
    out: PathBuf,
    report: bool,
    on_pair: &mut dyn FnMut(&LevelUpdate<'_>),
    sinks: &mut [&mut dyn RunSink],
) -> Result<GateEnd> {
    let game = gate.game.settings_with_suite()?;
    let n = gate.levels.len();
    let pool_elos = gate.pool_elos();
    let tests = gate
        .levels
        .iter()
        .map(|l| {
            LevelGate::new(l.band, &pool_elos, &gate.settings, n)
                .with_context(|| format!("level `{}`", l.spec.name))
        })
        .collect::<Result<Vec<_>>>()?;
    let mut players: Vec<BotSpec> = gate.levels.iter().map(|l| l.spec.clone()).collect();
    for r in &gate.pool {
        players.push(r.spec_named(&format!("{REF_PREFIX}{}", r.name))?);
    }
    let roles = players
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let role = if i < n {
                Role::Level(i)
            } else {
                Role::Reference(i - n)
            };
            (p.name.clone(), role)
        })
        .collect();
    let format = Format::Gauntlet {
        challengers: (0..n).collect(),
    };
    let encounter_levels = encounters(players.len(), &format)
        .into_iter()
        .map(|(a, b)| a.min(b))
        .collect();
    let plan = game.plan("gate", players, format, gate.max_pairs, gate.seed, out)?;
    let session = Session::open_new(plan, RunKind::Gate)?;
    let dir = session.dir().to_path_buf();
    let mut observer = Observer {
        names: gate.levels.iter().map(|l| l.spec.name.clone()).collect(),
        roles,
        encounter_levels,
        tests,
        order: PairOrder::default(),
        fail_fast: gate.fail_fast,
        stopped: None,
        on_pair,
    };
    let mut sink = OnGame(|record: &GameRecord| observer.game(record));
    let outcome = session.play_after(&mut sink, sinks)?;
    outcome.check(&dir, false, false)?;
    observer.finish();
    let verdicts: Vec<Verdict> = observer.tests.iter().map(LevelGate::verdict).collect();
    let verdict = GateVerdict::of(&verdicts);
    let file = GateFile {
        settings: gate.settings,
        confidence: CONFIDENCE,
        max_pairs: gate.max_pairs,
        pool: gate
            .pool
            .iter()
            .zip(&pool_elos)
            .map(|(r, &elo)| PoolMember {
                name: format!("{REF_PREFIX}{}", r.name),
                elo,
            })
            .collect(),
        levels: observer
            .names
            .iter()
            .zip(&observer.tests)
            .map(|(name, t)| GateLevel {
                name: name.clone(),
                status: t.status(CONFIDENCE),
            })
            .collect(),
        reference_source: gate.reference_source.clone(),
        verdict,
        exit_code: match verdict {
            GateVerdict::Pass => EXIT_PASS,
            GateVerdict::Fail => EXIT_OUTSIDE,
            GateVerdict::Undecided => EXIT_UNDECIDED,
        },
    };
    file.write(&dir)?;
    let finished = session.finish(outcome, &Finish::sequential_test(report));
    Ok(GateEnd { file, finished })
}
