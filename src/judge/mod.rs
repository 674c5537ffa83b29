//! Judging games: every sow a player chose, against perfect play (the mistake meter behind
//! `arena analyse`; the tables made of the verdicts are `run_folder::mistakes`).
//!
//! A sow's *loss* is `v(best) − v(played)` from the mover's view, both exact ([`exact`]).
//! Opening sows (the run's `opening`, not chosen by the players) and `swap` are not counted.
//! Each position gets a node budget; a position the solver cannot prove within it is
//! *unproven* and left out of the rates. Games no exact solver fits (Oware, Congkak) are judged
//! by a deep search instead ([`estimate`]), labelled as estimates; which way a game goes is
//! `crate::valuer`'s rule, shared with `arena openings`.
//!
//! Each position of a game is proven once (the next sow's position is the one this sow leads
//! to); worker threads take games as they free up and share one solver's tables per ruleset
//! (TT, the mapped database, the value cache), so the costly first positions of a set of games
//! are proven once. The database is the one worth building for these games on this machine
//! (`mancala_solver::auto::plan_games`), opened by `mancala_solver::open`.

pub mod estimate;
pub mod exact;
pub mod input;
pub mod times;

use std::collections::{BTreeMap, HashMap};
use std::sync::atomic::{AtomicUsize, Ordering::Relaxed};

use anyhow::Context;

use crate::rules::{GameKind, Move, Position, Ruleset};
use crate::run_folder::games::GameRecord;
use crate::run_folder::mistakes::{JudgedGame, JudgedSow};
use crate::solver::auto::{Expected, Setup};
use crate::solver::{db, open, plan_games_here, BoardSpec, Opening, Solver};
use crate::valuer::Method;

pub use times::SowTimes;

/// How games are judged (`arena analyse`'s flags).
#[derive(Clone, Debug, PartialEq)]
pub struct JudgeOptions {
    /// Solver nodes per position; a position not proven within them is unproven.
    pub nodes: u64,
    /// Worker threads; games are dealt out in turn.
    pub threads: usize,
    /// Games no exact solver fits: the search depth of the estimate (turns); 0 skips them.
    pub estimate_depth: u32,
    /// The solver's TT (MiB), one per ruleset shared by the threads (`None`: the default
    /// setup's, at most 2 GiB).
    pub tt_mib: Option<usize>,
    /// The endgame database (seeds); `None`: the one worth building for the games
    /// (`mancala_solver::auto::plan_games`).
    pub db_seeds: Option<usize>,
    /// Answer from and add to the value cache (positions proven before, by any program).
    pub value_cache: bool,
}

impl Default for JudgeOptions {
    fn default() -> Self {
        JudgeOptions {
            nodes: 20_000_000,
            threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
            estimate_depth: 12,
            tt_mib: None,
            db_seeds: None,
            value_cache: true,
        }
    }
}

/// The TT of a judge when the setup's would be larger: 2 GiB holds a set of games' proofs.
pub const JUDGE_TT_MIB: usize = 2048;

/// What judging reports as it goes.
pub enum JudgeEvent<'a> {
    /// The setup for `games` games of `rules`, and what it is expected to cost (`None` when
    /// `--db-seeds` chose it).
    Setup {
        rules: Ruleset,
        games: usize,
        setup: &'a Setup,
        expected: Option<Expected>,
    },
    /// Opening that ruleset's solver (a database build, its progress, the value cache).
    Solver(Opening<'a>),
    /// `done` of `total` games judged.
    Game { done: usize, total: usize },
    /// The value cache's new positions kept (or why not), at the end.
    ValuesKept {
        path: &'a std::path::Path,
        kept: Result<usize, String>,
    },
}

/// What judging found: the games in game-id order, the games skipped (not Kalah, with
/// `estimate_depth` 0), the Kalah games skipped under a rule the solver does not model (by
/// the sentence naming it), the solver nodes spent and the time each sow took.
pub struct Judged {
    pub games: Vec<JudgedGame>,
    pub skipped_games: usize,
    /// Kalah games the solver refuses, by why (`mancala_solver::check_rules`): neither proven
    /// nor estimated, so that no unmeasured sow is counted.
    pub unmodelled: BTreeMap<String, usize>,
    pub nodes: u64,
    pub times: SowTimes,
}

/// Judges every sow of `records` on worker threads (see the module docs).
pub fn judge(
    records: &[GameRecord],
    opts: &JudgeOptions,
    on: &(dyn Fn(JudgeEvent) + Sync),
) -> anyhow::Result<Judged> {
    let solvers = open_solvers(records, opts, on);
    let threads = opts.threads.clamp(1, records.len().max(1));
    let (next, done) = (AtomicUsize::new(0), AtomicUsize::new(0));
    let game_done = || {
        let n = done.fetch_add(1, Relaxed) + 1;
        on(JudgeEvent::Game {
            done: n,
            total: records.len(),
        });
    };
    // Each worker takes the next game not yet taken; the values are exact whoever proves them.
    let parts: Vec<anyhow::Result<Judged>> = std::thread::scope(|scope| {
        let workers: Vec<_> = (0..threads)
            .map(|_| {
                let (solvers, next, game_done) = (&solvers, &next, &game_done);
                let games = std::iter::from_fn(move || records.get(next.fetch_add(1, Relaxed)));
                scope.spawn(move || judge_games(games, solvers, opts, game_done))
            })
            .collect();
        workers
            .into_iter()
            .map(|w| w.join().expect("judging worker panicked"))
            .collect()
    });
    let mut all = Judged {
        games: Vec::new(),
        skipped_games: 0,
        unmodelled: BTreeMap::new(),
        nodes: 0,
        times: SowTimes::default(),
    };
    for part in parts {
        let part = part?;
        all.skipped_games += part.skipped_games;
        for (why, n) in part.unmodelled {
            *all.unmodelled.entry(why).or_default() += n;
        }
        all.nodes += part.nodes;
        all.games.extend(part.games);
        all.times.extend(part.times);
    }
    for values in solvers.values().filter_map(|s| s.values()) {
        let kept = values.flush().map_err(|e| e.to_string());
        on(JudgeEvent::ValuesKept {
            path: values.path(),
            kept,
        });
    }
    all.games.sort_by_key(|g| g.game_id);
    Ok(all)
}

/// One solver per ruleset the solver values (its database loaded or built once, its TT and
/// value cache), whose tables every worker shares: a position one worker proves, the others
/// find.
fn open_solvers(
    records: &[GameRecord],
    opts: &JudgeOptions,
    on: &(dyn Fn(JudgeEvent) + Sync),
) -> HashMap<BoardSpec, Solver> {
    let mut games: Vec<(Ruleset, BoardSpec, usize)> = Vec::new();
    for rec in records {
        let rules = rec.row.rules;
        if !Method::for_ruleset(rules, 0, 0).is_exact() {
            continue;
        }
        let Ok(spec) = BoardSpec::from_ruleset(&rules) else {
            continue;
        };
        match games.iter_mut().find(|(_, s, _)| *s == spec) {
            Some((r, _, n)) => {
                *n += 1;
                // The largest game of these board rules decides the database.
                if rules.seeds() > r.seeds() {
                    *r = rules;
                }
            }
            None => games.push((rules, spec, 1)),
        }
    }
    let dir = db::default_dir();
    let mut solvers = HashMap::new();
    for (rules, spec, n) in games {
        let (mut setup, expected) = plan_games_here(&spec, rules.seeds(), n);
        let expected = match opts.db_seeds {
            Some(k) => {
                let cached = dir
                    .as_deref()
                    .map_or_else(Vec::new, |d| db::cached_seeds(spec, d));
                setup = setup.with_db_seeds(&spec, k, &cached);
                setup.resume_from(dir.as_deref(), &spec);
                None
            }
            None => Some(expected),
        };
        setup.tt_mib = opts.tt_mib.unwrap_or(setup.tt_mib.min(JUDGE_TT_MIB));
        setup.threads = 1;
        on(JudgeEvent::Setup {
            rules,
            games: n,
            setup: &setup,
            expected,
        });
        let solver = open(spec, &setup, dir.as_deref(), opts.value_cache, &|o| {
            on(JudgeEvent::Solver(o))
        });
        solvers.insert(spec, solver);
    }
    solvers
}

/// Replays `games` with the shared solvers, judging each sow a player chose; calls
/// `game_done` after each game. Ratings are left for the caller.
fn judge_games<'a>(
    games: impl Iterator<Item = &'a GameRecord>,
    shared: &HashMap<BoardSpec, Solver>,
    opts: &JudgeOptions,
    game_done: &dyn Fn(),
) -> anyhow::Result<Judged> {
    let mut solvers: HashMap<BoardSpec, Solver> = HashMap::new();
    let mut judged = Vec::new();
    let mut skipped_games = 0;
    let mut unmodelled = BTreeMap::<String, usize>::new();
    let mut times = SowTimes::default();
    for rec in games {
        let row = &rec.row;
        let solver = match BoardSpec::from_ruleset(&row.rules) {
            Ok(spec) => shared.get(&spec).map(|s| (spec, s)),
            // Kalah under a rule the solver leaves out (the pie rule, a low sow cap): the
            // game is skipped and counted with the reason.
            Err(why) if row.rules.kind() == GameKind::Kalah => {
                *unmodelled.entry(why.to_string()).or_default() += 1;
                game_done();
                continue;
            }
            Err(_) => None,
        };
        let Some((spec, shared)) = solver else {
            if opts.estimate_depth == 0 {
                skipped_games += 1;
            } else {
                judged.push(estimate::estimate_game(
                    rec,
                    opts.estimate_depth,
                    &mut times,
                )?);
            }
            game_done();
            continue;
        };
        let solver = solvers
            .entry(spec)
            .or_insert_with(|| shared.sharing_tables());
        let (mut pos, mut game) = start_game(rec, None)?;
        // The sows after the opening, each with its mover (read_records checked the lengths).
        let skip = row.opening.moves.len();
        for (ply, &mv) in rec.moves.iter().enumerate() {
            let mover = ply.checked_sub(skip).map(|i| rec.movers[i]);
            if let (Some(mover), Move::Pit(k)) = (mover, mv) {
                let board = spec.board_of(pos.board());
                let started = std::time::Instant::now();
                let verdict = board.and_then(|(b, _)| {
                    exact::sow_verdict(solver, &b, usize::from(k) - 1, opts.nodes)
                });
                times.0.push((started.elapsed(), verdict.is_some()));
                game.sows.push(JudgedSow {
                    ply,
                    mover,
                    pit: k,
                    // Only proven sows use it: those have a solver board.
                    seeds: board.map_or(0, |(b, _)| b.seeds() as u32),
                    position: pos.to_state_string(),
                    verdict,
                });
            }
            pos.play(mv)
                .with_context(|| format!("game {}: move {}", row.game_id, ply + 1))?;
        }
        judged.push(game);
        game_done();
    }
    Ok(Judged {
        games: judged,
        skipped_games,
        unmodelled,
        nodes: solvers.values().map(|s| s.nodes).sum(),
        times,
    })
}

/// The position a game starts from (its opening's) and its record with no sow judged yet.
fn start_game(
    rec: &GameRecord,
    estimate_depth: Option<u32>,
) -> anyhow::Result<(Position, JudgedGame)> {
    let row = &rec.row;
    let pos = row
        .opening
        .start(row.rules)
        .map_err(|e| anyhow::anyhow!("game {}: {e}", row.game_id))?;
    let game = JudgedGame {
        game_id: row.game_id,
        players: [row.first.clone(), row.second.clone()],
        ratings: [None, None],
        sows: Vec::new(),
        estimate_depth,
    };
    Ok((pos, game))
}

/// Sows chosen by a player in `rec` (after its opening).
pub fn player_sows(rec: &GameRecord) -> usize {
    rec.moves.len().saturating_sub(rec.row.opening.moves.len())
}
