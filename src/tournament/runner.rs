//! Runs a tournament: workers take games from the schedule, each with its own bot processes,
//! and send finished games to the one task that writes the results folder.
//!
//! A worker keeps one process per player and reuses it across games; a bot that faulted is
//! killed (with its process group) and started afresh when next needed. A player whose bot fails
//! to start `max_start_failures` times in a row is dropped: its remaining games are skipped (and
//! a later `--resume` plays them). Ctrl-C stops the workers, kills every bot and leaves the folder
//! ready for `--resume`.

use std::collections::{HashMap, VecDeque};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tokio::sync::{mpsc, watch};

use super::config::{Opening, OpeningSource, RunConfig};
use super::progress::Progress;
use super::referee::{self, GameSetup, Played};
use super::schedule::{self, Pairing};
use crate::engine::{Engine, Fault, FaultKind};
use crate::rules::Ruleset;
use crate::run_folder::games::{self, GameRecord, ResultsWriter};
use crate::run_folder::logs::{logs_dir, stderr_log_path};
use crate::run_folder::{pgn, RunFile};

/// A run ready to play: the checked configuration (what `run.json` stores), how many games to
/// play at once, and the run folder. `arena run`, `sprt` and `calibrate` each build one from
/// their own arguments.
#[derive(Clone, Debug)]
pub struct RunPlan {
    pub config: RunConfig,
    pub concurrency: usize,
    pub out: PathBuf,
}

/// How a plan is carried out this time; none of it changes which games are played or their
/// results.
#[derive(Clone, Debug, Default)]
pub struct RunMode {
    /// Continue a run folder: play exactly the games it is missing.
    pub resume: bool,
    /// Play only the game pairs whose id ≡ index (mod count).
    pub shard: Option<(u64, u64)>,
    /// Print progress (a bar on a terminal, plain lines otherwise).
    pub progress: bool,
}

/// What a finished (or interrupted) run did.
#[derive(Debug)]
pub struct RunOutcome {
    pub played: usize,
    pub skipped: usize,
    pub interrupted: bool,
    /// The observer ended the run early.
    pub stopped: bool,
    pub dropped: Vec<String>,
    pub forfeits: usize,
}

/// Every game of the run with the opening it starts from, in game-id order.
pub fn schedule_games(
    config: &RunConfig,
    ruleset: Ruleset,
) -> Result<Vec<(Pairing, Arc<Opening>)>> {
    let pairings = schedule::pairings(config.players.len(), &config.format, config.pairs);
    let pair_count = pairings.len() / 2;
    let openings: Vec<Arc<Opening>> = match &config.openings {
        OpeningSource::Random { plies } => {
            schedule::random_openings(ruleset, *plies, pair_count, config.seed)
                .into_iter()
                .map(|moves| Arc::new(Opening { state: None, moves }))
                .collect()
        }
        OpeningSource::List { file, openings } => {
            if openings.is_empty() {
                bail!("the openings file {file} holds no openings");
            }
            // Checked here too, not only when the file was read: run.json may have been edited.
            for (i, opening) in openings.iter().enumerate() {
                opening
                    .position(ruleset)
                    .map_err(|e| anyhow::anyhow!("opening {} of {file}: {e}", i + 1))?;
            }
            (0..pair_count)
                .map(|p| Arc::new(openings[p % openings.len()].clone()))
                .collect()
        }
    };
    Ok(pairings
        .into_iter()
        .map(|g| (g, openings[g.pair_id as usize].clone()))
        .collect())
}

/// What the run does next, as an observer of [`run_observed`] decides after each game.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Steer {
    /// Go on.
    Continue,
    /// Play no more games of these players (indices into the configuration's players): their
    /// games not yet started are skipped, as a dropped player's are (a gate's level that is
    /// decided).
    Retire(Vec<usize>),
    /// Stop the run cleanly (an SPRT that reached a decision).
    Stop,
}

/// Runs (or resumes) the tournament into `plan.out`.
pub async fn run(plan: &RunPlan, mode: &RunMode) -> Result<RunOutcome> {
    run_observed(plan, mode, &mut |_| Steer::Continue).await
}

/// Like [`run`], calling `observer` with every finished game (after it is on disk); what it
/// returns can retire players or stop the run early, cleanly.
pub async fn run_observed(
    plan: &RunPlan,
    mode: &RunMode,
    observer: &mut (dyn FnMut(&GameRecord) -> Steer + Send),
) -> Result<RunOutcome> {
    let config = &plan.config;
    config.validate().map_err(anyhow::Error::msg)?;
    let ruleset = config.rules;
    let dir = &plan.out;
    std::fs::create_dir_all(logs_dir(dir))
        .with_context(|| format!("cannot create {}", dir.display()))?;

    let done = if mode.resume {
        let (done, notes) = games::repair(dir)?;
        for note in notes {
            eprintln!("resume: {note}");
        }
        done
    } else {
        if !games::read_games(dir).unwrap_or_default().is_empty() || RunFile::exists(dir) {
            bail!(
                "{} already holds a run: use `--resume {}` to finish it, or choose another --out",
                dir.display(),
                dir.display()
            );
        }
        RunFile::new(config.clone(), mode.shard).write(dir)?;
        Default::default()
    };

    let all = schedule_games(config, ruleset)?;
    let in_shard = |g: &Pairing| mode.shard.map_or(true, |(i, n)| g.pair_id % n == i);
    let total = all.iter().filter(|(g, _)| in_shard(g)).count();
    let queue: VecDeque<_> = all
        .into_iter()
        .filter(|(g, _)| in_shard(g) && !done.contains(&g.game_id))
        .collect();
    let todo = queue.len();

    let shared = Arc::new(Shared {
        config: config.clone(),
        ruleset,
        logs: logs_dir(dir),
        queue: Mutex::new(queue),
        health: Mutex::new(Health {
            failures: vec![0; config.players.len()],
            dropped: vec![false; config.players.len()],
            retired: vec![false; config.players.len()],
        }),
    });
    let (tx, mut rx) = mpsc::channel::<GameRecord>(64);
    let (stop_tx, stop_rx) = watch::channel(false);
    let mut workers = Vec::new();
    for _ in 0..plan.concurrency.max(1).min(todo.max(1)) {
        workers.push(tokio::spawn(worker(
            shared.clone(),
            tx.clone(),
            stop_rx.clone(),
        )));
    }
    drop(tx);

    let mut writer = ResultsWriter::open(dir)?;
    let mut progress = Progress::new(total, done.len(), mode.progress);
    let mut outcome = RunOutcome {
        played: 0,
        skipped: 0,
        interrupted: false,
        stopped: false,
        dropped: Vec::new(),
        forfeits: 0,
    };
    let mut ctrl_c = std::pin::pin!(tokio::signal::ctrl_c());
    loop {
        tokio::select! {
            record = rx.recv() => match record {
                Some(record) => {
                    writer.append(&record)?;
                    outcome.played += 1;
                    if record.row.forfeit.is_some() {
                        outcome.forfeits += 1;
                    }
                    progress.game(&record.row);
                    if !outcome.stopped {
                        match observer(&record) {
                            Steer::Continue => {}
                            Steer::Retire(players) => {
                                let mut health = shared.health.lock().expect("health lock");
                                for p in players {
                                    if let Some(r) = health.retired.get_mut(p) {
                                        *r = true;
                                    }
                                }
                            }
                            Steer::Stop => {
                                outcome.stopped = true;
                                let _ = stop_tx.send(true);
                            }
                        }
                    }
                }
                None => break,
            },
            _ = &mut ctrl_c, if !outcome.interrupted => {
                outcome.interrupted = true;
                let _ = stop_tx.send(true);
                eprintln!("\ninterrupted: stopping the bots; finish the run with `arena run --resume {}`", dir.display());
            }
        }
    }
    for w in workers {
        w.await.context("a worker task panicked")?;
    }
    progress.finish();
    pgn::write_pgn(dir)?;
    let health = shared.health.lock().expect("health lock");
    outcome.dropped = config
        .players
        .iter()
        .zip(&health.dropped)
        .filter(|(_, d)| **d)
        .map(|(p, _)| p.name.clone())
        .collect();
    outcome.skipped = todo - outcome.played;
    Ok(outcome)
}

struct Shared {
    config: RunConfig,
    ruleset: Ruleset,
    logs: PathBuf,
    queue: Mutex<VecDeque<(Pairing, Arc<Opening>)>>,
    health: Mutex<Health>,
}

/// Consecutive start failures per player, who has been dropped, and who the observer retired.
struct Health {
    failures: Vec<u32>,
    dropped: Vec<bool>,
    retired: Vec<bool>,
}

impl Health {
    /// Whether a game between these players is still to be played.
    fn plays(&self, pairing: &Pairing) -> bool {
        [pairing.first, pairing.second]
            .iter()
            .all(|&p| !self.dropped[p] && !self.retired[p])
    }
}

async fn worker(
    shared: Arc<Shared>,
    tx: mpsc::Sender<GameRecord>,
    mut stop: watch::Receiver<bool>,
) {
    let mut engines: HashMap<usize, Engine> = HashMap::new();
    loop {
        if *stop.borrow() {
            break;
        }
        let Some((pairing, opening)) = shared.queue.lock().expect("queue lock").pop_front() else {
            break;
        };
        if !shared.health.lock().expect("health lock").plays(&pairing) {
            continue;
        }
        let played = tokio::select! {
            played = play_one(&shared, &mut engines, pairing, &opening) => played,
            _ = stop.changed() => None,
        };
        match played {
            Some(played) => {
                if let Some(faulty) = played.faulty {
                    let player = if faulty == 0 {
                        pairing.first
                    } else {
                        pairing.second
                    };
                    if let Some(mut engine) = engines.remove(&player) {
                        engine.kill().await;
                    }
                }
                if tx.send(played.record).await.is_err() {
                    break;
                }
            }
            None => break,
        }
    }
    for (_, engine) in engines.drain() {
        if *stop.borrow() {
            let mut engine = engine;
            engine.kill().await;
        } else {
            engine.quit(Duration::from_secs(1)).await;
        }
    }
}

/// Plays one game, starting the players' bots if needed. `None` when the game could not be
/// played because a player has just been dropped.
async fn play_one(
    shared: &Shared,
    engines: &mut HashMap<usize, Engine>,
    pairing: Pairing,
    opening: &Opening,
) -> Option<Played> {
    let config = &shared.config;
    let players = [pairing.first, pairing.second];
    let names = players.map(|p| config.players[p].name.as_str());
    let setup = GameSetup {
        game_id: pairing.game_id,
        pair_id: pairing.pair_id,
        round: pairing.round,
        ruleset: shared.ruleset,
        opening,
        time: &config.time,
        adjudicate: config.adjudicate,
        names,
        seeds: [
            schedule::bot_seed(config.seed, pairing.game_id, true),
            schedule::bot_seed(config.seed, pairing.game_id, false),
        ],
    };
    for (slot, &player) in players.iter().enumerate() {
        if engines.contains_key(&player) {
            continue;
        }
        let spec = &config.players[player];
        let log = stderr_log_path(&shared.logs, &spec.name);
        match Engine::start(spec, &log, Duration::from_millis(config.time.handshake_ms)).await {
            Ok(engine) => {
                shared.health.lock().expect("health lock").failures[player] = 0;
                engines.insert(player, engine);
            }
            Err(fault) => {
                let mut health = shared.health.lock().expect("health lock");
                if health.dropped[player] {
                    return None;
                }
                health.failures[player] += 1;
                if health.failures[player] >= config.max_start_failures {
                    health.dropped[player] = true;
                    eprintln!(
                        "dropping `{}` from the run: its bot failed to start {} times in a row (last: {fault}); see {}",
                        spec.name,
                        health.failures[player],
                        log.display()
                    );
                }
                return Some(referee::start_failure(&setup, slot, start_fault(fault)));
            }
        }
    }
    let mut first = engines.remove(&players[0])?;
    let mut second = engines.remove(&players[1])?;
    let played = referee::play_game(&setup, [&mut first, &mut second]).await;
    engines.insert(players[0], first);
    engines.insert(players[1], second);
    Some(played)
}

/// A start failure keeps its kind (spawn or handshake); anything else during start is reported
/// as a handshake failure.
fn start_fault(fault: Fault) -> Fault {
    match fault.kind {
        FaultKind::Spawn | FaultKind::Handshake => fault,
        _ => Fault::new(FaultKind::Handshake, fault.to_string()),
    }
}
