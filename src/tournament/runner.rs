//! Runs a tournament: workers take games from the [`Dispatcher`], each on a thread of its own
//! (a game slot, [`spawn_slot`]) with its own pool of bot processes, and send finished games to
//! the one task, on the caller's thread, that writes the results folder.
//!
//! Before the first game (docs/tournament.md, "Before the first game"): the folder is locked
//! (`.arena.lock`), the soft open-file limit is raised to the hard one, and every player's bot
//! is started once, through the handshake and its options: a player that cannot is an error
//! naming it (or, with `drop_unstartable`, dropped), and `run.json` is written only after that.
//! A start that fails on the arena's side is retried there too, and if the arena cannot even
//! start the threads to do it on, the run ends saying what it ran out of, blaming no player.
//!
//! During the run a worker keeps at most [`pool_size`] bots alive (started on demand, the least
//! recently used one stopped to make room) and reuses them across games; a bot that faulted is
//! killed with its process group and started afresh when next needed. A player whose bot fails
//! to start `max_start_failures` times in a row is dropped: its remaining games are skipped (and
//! a later `--resume` plays them). What fails on the arena's side (no file descriptors, memory,
//! process slots, disk) is never a bot's forfeit: the start is retried, and if it keeps failing
//! the run stops, saying why. SIGINT, SIGTERM and SIGHUP stop the workers, kill every bot, flush the
//! files and leave the folder ready for `--resume`.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::{bail, Context, Result};
use tokio::sync::{mpsc, watch};

use super::dispatch::Dispatcher;
use super::events::{RunEvent, RunSink, Signal, Steer, StopReason};
use super::pool::Pool;
use super::referee::{self, EarlyEnd, GameSetup, Played};
use crate::engine::{
    arena_resource, kill_live_bots, kill_orphans, last_lines, BotLog, BotSpec, Fault, FaultKind,
    Player, Protocol, SlotThread, StartError, Stop, DEFAULT_LOG_CAP,
};
use crate::run_folder::games::{self, GameRecord, ResultsWriter, Termination};
use crate::run_folder::logs::{logs_dir, stderr_log_path};
use crate::run_folder::state::{RecordedState, State};
use crate::run_folder::{pgn, RunFile, RunKind};
use crate::vocab::config::{Opening, RunConfig, RunPlan};
use crate::vocab::schedule::{self, Pairing};
use crate::vocab::{judging, shell_word};

/// How a plan is carried out this time; none of it changes the games played or their results.
#[derive(Clone, Debug)]
pub struct RunMode {
    /// Continue a run folder: play exactly the games it is missing.
    pub resume: bool,
    /// Play only the game pairs whose id ≡ index (mod count).
    pub shard: Option<(u64, u64)>,
    /// Which command plays it (recorded in a new folder's `run.json`).
    pub kind: RunKind,
    /// Drop a player whose bot cannot start before the first game instead of stopping.
    pub drop_unstartable: bool,
    /// Most bytes of each player's stderr kept in its log, for the whole run.
    pub log_cap: u64,
}

impl Default for RunMode {
    fn default() -> Self {
        RunMode {
            resume: false,
            shard: None,
            kind: RunKind::Tournament,
            drop_unstartable: false,
            log_cap: DEFAULT_LOG_CAP,
        }
    }
}

/// What a finished (or stopped) run did.
#[derive(Debug)]
pub struct RunOutcome {
    pub played: usize,
    pub skipped: u64,
    /// Why the run ended.
    pub stop: StopReason,
    pub dropped: Vec<String>,
    pub forfeits: usize,
}

impl RunOutcome {
    /// The signal that stopped the run (`SIGINT`, `SIGTERM`, `SIGHUP`), if one did.
    pub fn interrupted(&self) -> Option<Signal> {
        match self.stop {
            StopReason::Signal(s) => Some(s),
            _ => None,
        }
    }

    /// `Err` when the run did not end the way its command needs: a signal stopped it, or (unless
    /// `dropped_ok`) a player could not be started. Says where the games so far are, and for a
    /// tournament (`resumable`) how to finish it.
    pub fn check(&self, dir: &std::path::Path, resumable: bool, dropped_ok: bool) -> Result<()> {
        if let Some(signal) = self.interrupted() {
            if resumable {
                bail!(
                    "interrupted ({signal}): resume with `arena run --resume {}`",
                    shell_word(dir)
                );
            }
            bail!(
                "interrupted ({signal}): the games so far are in {}",
                dir.display()
            );
        }
        if !dropped_ok && !self.dropped.is_empty() {
            bail!(
                "{} could not be started; see {}",
                self.dropped.join(", "),
                dir.display()
            );
        }
        Ok(())
    }
}

/// Plays (or resumes) the plan into `plan.out`, which the caller (a [`super::session::Session`])
/// has checked and locked: starts every bot once, writes `run.json` and `state.json`, plays the
/// games, and sends every event to the results writer and then to `sinks`, in order; what a sink
/// returns can retire players or stop the run early, cleanly. Prints nothing.
pub async fn play(
    plan: &RunPlan,
    mode: &RunMode,
    sinks: &mut [&mut dyn RunSink],
) -> Result<RunOutcome> {
    let config = &plan.config;
    let dir = &plan.out;
    let files = crate::sys::raise_open_file_limit();

    let mut notes = Vec::new();
    let done_rows = if mode.resume {
        let (_, repaired) = games::repair(dir)?;
        notes.extend(repaired.into_iter().map(|n| format!("resume: {n}")));
        let (rows, warnings) = games::read_games_checked(dir)?;
        notes.extend(warnings.into_iter().map(|w| format!("warning: {w}")));
        rows
    } else {
        Vec::new()
    };
    let dispatcher = Dispatcher::new(config, mode.shard, &done_rows)?;
    let total = dispatcher.total();
    let done = done_rows.len() as u64;
    drop(done_rows);

    // Out of descriptors already (a low `ulimit -n`): the arena's trouble, said as such.
    let logs: Vec<BotLog> = config
        .players
        .iter()
        .map(|p| BotLog::new(&stderr_log_path(&logs_dir(dir), &p.name), mode.log_cap))
        .collect::<std::io::Result<_>>()
        .map_err(|e| match arena_resource(&e) {
            Some(_) => arena_trouble("opening the bots' logs", &e, files),
            None => e.into(),
        })?;
    let (stop_tx, stop_rx) = watch::channel(None::<StopReason>);
    let signals = tokio::spawn(watch_signals(stop_tx.clone()));
    // The slots' threads block in their bots' waits: the stop reaches them as an eventfd.
    let stop =
        Stop::new().map_err(|e| arena_trouble("creating the run's stop signal", &e, files))?;
    let stop_bridge = tokio::spawn({
        let (stop, stop_rx) = (stop.clone(), stop_rx.clone());
        async move {
            wait_for_stop(stop_rx).await;
            stop.trigger();
        }
    });
    // What the slots have to say (an arena-side retry, a player dropped), as events.
    let (say_tx, mut say_rx) = mpsc::unbounded_channel::<Said>();
    let interrupted = |reason: &StopReason| {
        anyhow::anyhow!(
            "interrupted ({}) while starting the bots: nothing was played",
            describe(reason)
        )
    };
    let dropped = tokio::select! {
        checked = preflight(config, &logs, plan.concurrency, mode, &stop, files, &say_tx) => {
            // A start the stop cut short fails as the bot's ("the arena is stopping"): the
            // stop, not the bot, is the reason.
            let stopped = stop_rx.borrow().clone();
            match (checked, stopped) {
                (Err(_), Some(reason)) => Err(interrupted(&reason)),
                (checked, _) => checked,
            }
        }
        reason = wait_for_stop(stop_rx.clone()) => Err(interrupted(&reason)),
    };
    let dropped = match dropped {
        Ok(dropped) => dropped,
        Err(err) => {
            signals.abort();
            stop.trigger();
            // The threads still starting bots are not waited for: their bots die now, and no
            // more start.
            kill_live_bots();
            flush_logs(&logs);
            while let Ok(said) = say_rx.try_recv() {
                said.emit(sinks)?;
            }
            return Err(err);
        }
    };
    if !mode.resume {
        RunFile {
            log_cap: Some(mode.log_cap),
            ..RunFile::new(mode.kind, config.clone(), mode.shard)
        }
        .write(dir)?;
    }
    RecordedState::now(State::Running, None).write(dir)?;
    for note in &notes {
        emit(sinks, &RunEvent::Warning(note))?;
    }
    while let Ok(said) = say_rx.try_recv() {
        said.emit(sinks)?;
    }
    emit(sinks, &RunEvent::Started { total, done })?;

    let shared = Arc::new(Shared {
        config: config.clone(),
        logs,
        queue: Mutex::new(dispatcher),
        pool_size: pool_size(files, plan.concurrency),
        open_files: files,
        stop,
        say: say_tx,
        health: Mutex::new(Health {
            failures: vec![0; config.players.len()],
            retired: vec![false; config.players.len()],
            dropped,
        }),
    });
    let (tx, mut rx) = mpsc::channel::<WorkerEvent>(64);
    let mut workers = Vec::new();
    let todo = total.saturating_sub(done);
    for slot in 0..(plan.concurrency as u64).min(todo.max(1)) {
        let task = {
            let (shared, tx, stop_rx) = (shared.clone(), tx.clone(), stop_rx.clone());
            move || worker(shared, tx, stop_rx)
        };
        match spawn_slot(format!("slot-{slot}"), task) {
            Ok(handle) => workers.push(handle),
            // No thread for this slot: the others play its share.
            Err(err) if !workers.is_empty() => emit(
                sinks,
                &RunEvent::Warning(&format!("playing on fewer game slots: {err}")),
            )?,
            Err(err) => return Err(arena_trouble("starting a game slot", &err, files)),
        }
    }
    drop(tx);

    let mut writer = ResultsWriter::open(dir)?;
    let (mut played, mut forfeits) = (0usize, 0usize);
    let mut starved = Starved::default();
    let mut decided: Option<String> = None;
    let mut failure: Option<anyhow::Error> = None;
    // Told once, when the first reason to stop arrives (the slots take a moment to end).
    let mut stopping = stop_rx.clone();
    let mut announced = false;
    loop {
        tokio::select! {
            Ok(()) = stopping.changed(), if !announced => {
                let reason = stopping.borrow_and_update().clone();
                if let Some(reason) = reason {
                    announced = true;
                    emit(sinks, &RunEvent::Stopping(&reason))?;
                }
            }
            event = rx.recv() => match event {
                Some(WorkerEvent::Game(record)) => {
                    if let Err(err) = writer.append_checked(&record) {
                        failure.get_or_insert(err.context(format!(
                            "cannot write the results of game {}",
                            record.row.game_id
                        )));
                        halt(&stop_tx, StopReason::Failed);
                        continue;
                    }
                    played += 1;
                    if record.row.forfeit.is_some() {
                        forfeits += 1;
                    }
                    starved.note(&record.row);
                    for sink in sinks.iter_mut() {
                        let steer = match sink.on(&RunEvent::Game(&record)) {
                            Ok(steer) => steer,
                            Err(err) => {
                                failure.get_or_insert(err);
                                halt(&stop_tx, StopReason::Failed);
                                break;
                            }
                        };
                        if decided.is_some() {
                            continue;
                        }
                        match steer {
                            Steer::Continue => {}
                            Steer::Retire(players) => {
                                let mut health = shared.health();
                                for p in players {
                                    if let Some(r) = health.retired.get_mut(p) {
                                        *r = true;
                                    }
                                }
                            }
                            Steer::Stop(why) => {
                                decided = Some(why.clone());
                                halt(&stop_tx, StopReason::Decided(why));
                            }
                        }
                    }
                }
                Some(WorkerEvent::Failed(err)) => {
                    failure.get_or_insert(err);
                    halt(&stop_tx, StopReason::Failed);
                }
                None => break,
            },
            Some(said) = say_rx.recv() => said.emit(sinks)?,
        }
    }
    while let Ok(said) = say_rx.try_recv() {
        said.emit(sinks)?;
    }
    let stopped_by = stop_rx.borrow().clone();
    signals.abort();
    stop_bridge.abort();
    // Every worker has ended (the channel closed): the joins only collect their threads.
    for w in workers {
        if w.join().is_err() {
            bail!("a game slot panicked");
        }
    }
    flush_logs(&shared.logs);
    kill_orphans();
    let stop = match (&failure, stopped_by) {
        (Some(_), _) => StopReason::Failed,
        (None, Some(reason)) => reason,
        (None, None) => StopReason::Completed,
    };
    let (state, reason) = stop.recorded();
    let reason = reason.or_else(|| failure.as_ref().map(|e| format!("{e:#}")));
    if let Some(err) = failure {
        // The folder could not be written (a full disk, the folder gone): what is written at
        // the end may fail the same way, and must not hide why the run stopped. `games.pgn`
        // is written again by `--resume` or `arena rate`.
        let _ = RecordedState::now(state, reason).write(dir);
        let _ = emit(sinks, &RunEvent::Stopped(&stop));
        return Err(err.context(format!(
            "the run stopped; the games finished so far are in {}: finish it with `arena run --resume {}`",
            dir.display(),
            shell_word(dir)
        )));
    }
    pgn::write_pgn(dir)?;
    RecordedState::now(state, reason).write(dir)?;
    if let Some(warning) = starved.warning() {
        emit(sinks, &RunEvent::Warning(&warning))?;
    }
    emit(sinks, &RunEvent::Stopped(&stop))?;
    let health = shared.health.lock().unwrap_or_else(|e| e.into_inner());
    let dropped = config
        .players
        .iter()
        .zip(&health.dropped)
        .filter(|(_, d)| **d)
        .map(|(p, _)| p.name.clone())
        .collect();
    Ok(RunOutcome {
        played,
        skipped: todo - played as u64,
        stop,
        dropped,
        forfeits,
    })
}

/// The run's starved timeouts (docs/tournament.md, "Starved moves"), per player in the order
/// they came.
#[derive(Default)]
struct Starved {
    players: Vec<(String, u64)>,
}

impl Starved {
    /// Counts `row`'s forfeit if it is a starved timeout.
    fn note(&mut self, row: &games::GameRow) {
        let starved = row.termination == Termination::Forfeit(FaultKind::Timeout)
            && judging::is_starved(&row.detail);
        let Some(name) = row.forfeit.as_ref().filter(|_| starved) else {
            return;
        };
        match self.players.iter_mut().find(|(n, _)| n == name) {
            Some((_, count)) => *count += 1,
            None => self.players.push((name.clone(), 1)),
        }
    }

    /// The warning the run ends with when any move timed out starved: how many and whose, the
    /// machine's load, and the remedy.
    fn warning(&self) -> Option<String> {
        let total: u64 = self.players.iter().map(|(_, n)| n).sum();
        if total == 0 {
            return None;
        }
        let whose: Vec<String> = self
            .players
            .iter()
            .map(|(name, n)| format!("`{name}` {n}"))
            .collect();
        let load = match crate::sys::load_average() {
            Some(load) => format!(
                "the machine's load average is {load:.1} on {} cores",
                std::thread::available_parallelism().map_or(1, |n| n.get())
            ),
            None => "the machine is busy".to_string(),
        };
        Some(format!(
            "warning: {total} move(s) timed out starved ({}): the bot had used less than half of its time \
             in CPU when the time was up, so the machine, not the bot, ran out of time ({load}); \
             those games measure the load, not the bots. Play on a quieter machine or with fewer \
             games at once (--concurrency), give more time per move, or count each bot's own \
             CPU time with --time-by cpu",
            whose.join(", ")
        ))
    }
}

/// Sends `event` to every sink (outside the game loop, where no sink steers the run).
fn emit(sinks: &mut [&mut dyn RunSink], event: &RunEvent<'_>) -> Result<()> {
    for sink in sinks.iter_mut() {
        sink.on(event)?;
    }
    Ok(())
}

/// What a game slot has to say while it plays, sent to the run's task as it happens.
enum Said {
    Warning(String),
    Dropped { name: String, message: String },
}

impl Said {
    fn emit(self, sinks: &mut [&mut dyn RunSink]) -> Result<()> {
        match &self {
            Said::Warning(text) => emit(sinks, &RunEvent::Warning(text)),
            Said::Dropped { name, message } => {
                emit(sinks, &RunEvent::PlayerDropped { name, message })
            }
        }
    }
}

/// The words for what stopped a run before it played.
fn describe(reason: &StopReason) -> String {
    match reason {
        StopReason::Signal(s) => s.to_string(),
        StopReason::Decided(why) => why.clone(),
        StopReason::Completed => "done".to_string(),
        StopReason::Failed => "error".to_string(),
    }
}

/// How many bots one worker keeps alive: at most 32, and no more than the open-file limit
/// allows for every worker (seven descriptors per bot: its pipes, pidfd and epoll set, and the
/// two `/proc` files its CPU time is read from; 64 kept for the arena's own files and the
/// slots' runtimes).
pub fn pool_size(open_files: u64, workers: usize) -> usize {
    let per_worker = open_files.saturating_sub(64) / 7 / workers.max(1) as u64;
    (per_worker as usize).clamp(2, 32)
}

/// Starts every player's bot once (handshake, options, `isready`), on `concurrency` slots at a
/// time, and stops it. Returns which players are dropped; an error names every player that
/// cannot start, unless `mode.drop_unstartable` (a bad option is always an error); only
/// `arena run`'s error points to that flag. A start that fails
/// on the arena's side is tried again, as during play; if it keeps failing, or no slot can be
/// started at all, the error says what the arena ran out of and blames no player.
async fn preflight(
    config: &RunConfig,
    logs: &[BotLog],
    concurrency: usize,
    mode: &RunMode,
    stop: &Stop,
    open_files: u64,
    say: &mpsc::UnboundedSender<Said>,
) -> Result<Vec<bool>> {
    let (drop_unstartable, kind) = (mode.drop_unstartable, mode.kind);
    let timeout = Duration::from_millis(config.time.handshake_ms);
    let players = Arc::new(config.players.clone());
    let (tx, mut rx) = mpsc::unbounded_channel();
    let next = Arc::new(std::sync::atomic::AtomicUsize::new(0));
    let (mut slots, mut slot_error) = (0, None);
    for slot in 0..concurrency.clamp(1, players.len().max(1)) {
        let (players, logs, tx, next) = (players.clone(), logs.to_vec(), tx.clone(), next.clone());
        let (rules, stop, say) = (config.rules, stop.clone(), say.clone());
        let started = spawn_slot(format!("preflight-{slot}"), move || async move {
            loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some(spec) = players.get(i) else { break };
                let started =
                    start_retrying(spec, &logs[i], timeout, &stop, &say, async || {}).await;
                let result = match started {
                    Ok(engine) => {
                        let plays = engine.info().plays(&rules);
                        let declared = engine.info().declared_rulesets();
                        engine.quit(Duration::from_secs(1)).await;
                        Ok(plays.then_some(()).ok_or(declared))
                    }
                    Err(err) => Err(err),
                };
                let arena_failed = matches!(
                    result,
                    Err(StartError::Arena { .. } | StartError::Sandbox(_))
                );
                if tx.send((i, result)).is_err() || arena_failed {
                    // The arena is short of something even after the retries: no more starts.
                    next.store(players.len(), std::sync::atomic::Ordering::Relaxed);
                    break;
                }
            }
        });
        // A slot that cannot start leaves its share to the others; with none, nothing starts.
        match started {
            Ok(_) => slots += 1,
            Err(err) => slot_error = Some(err),
        }
    }
    drop(tx);
    if let (0, Some(err)) = (slots, &slot_error) {
        return Err(arena_trouble("starting the bots", err, open_files));
    }
    let mut results: Vec<Option<Result<Result<(), String>, StartError>>> =
        (0..players.len()).map(|_| None).collect();
    while let Some((i, result)) = rx.recv().await {
        results[i] = Some(result);
    }
    // The arena's own trouble first: the starts it cut short have no result.
    for result in results.iter().flatten() {
        match result {
            Err(StartError::Arena { error, .. }) => {
                return Err(arena_trouble("starting the bots", error, open_files));
            }
            Err(sandbox @ StartError::Sandbox(_)) => bail!("{sandbox}"),
            _ => {}
        }
    }
    let results = results
        .into_iter()
        .map(|r| r.context("a thread starting the bots panicked"))
        .collect::<Result<Vec<_>>>()?;
    let mut dropped = vec![false; config.players.len()];
    let mut errors = Vec::new();
    for (player, ((spec, log), result)) in config.players.iter().zip(logs).zip(results).enumerate()
    {
        let err = match result {
            Ok(Ok(())) => continue,
            Ok(Err(declared)) => {
                errors.push(format!(
                    "player `{}` does not play {}: it declares {declared}",
                    spec.name, config.rules
                ));
                continue;
            }
            Err(err) => err,
        };
        let message = format!("player `{}` cannot start: {err}", spec.name);
        match err {
            StartError::Bot(_) if drop_unstartable => {
                // The run goes on: its log stays in the folder.
                let _ = say.send(Said::Dropped {
                    name: spec.name.clone(),
                    message: format!("dropping {message} (its stderr: {})", log.path().display()),
                });
                dropped[player] = true;
            }
            // The run stops before its first game and its folder goes: what the bot wrote
            // on stderr is quoted here, or nothing when it wrote nothing.
            _ => errors.push(message + &stderr_ending(log)),
        }
    }
    if !errors.is_empty() {
        bail!(
            "{}{}",
            errors.join("\n"),
            // Only `arena run` has the flag.
            if drop_unstartable || kind != RunKind::Tournament {
                ""
            } else {
                "\n(--drop-unstartable plays the run without players that cannot start)"
            }
        );
    }
    if config.players.len() - dropped.iter().filter(|d| **d).count() < 2 {
        bail!("fewer than two players can start: nothing to play");
    }
    Ok(dropped)
}

/// The last lines a bot wrote on stderr (not the arena's own notes), as `; its stderr ends:`
/// and the lines indented; empty when it wrote nothing.
fn stderr_ending(log: &BotLog) -> String {
    log.flush();
    let lines = last_lines(&log.path(), 5);
    if lines.is_empty() {
        return String::new();
    }
    format!("; its stderr ends:\n    {}", lines.join("\n    "))
}

/// Starts a game slot: a thread of its own that runs `task` on a current-thread runtime. The
/// bots of a slot block its thread while they are waited for (one `epoll_wait`, see
/// `engine::wait`), so slots never share a thread; the rest of the run (signals, the writer)
/// keeps the caller's.
///
/// Returns once the slot's runtime is built, or with the error that kept it from being built
/// (its epoll set and eventfd need file descriptors the arena may not have): a slot that just
/// ended would look to the caller like a panic.
fn spawn_slot<F, Fut>(name: String, task: F) -> std::io::Result<std::thread::JoinHandle<()>>
where
    F: FnOnce() -> Fut + Send + 'static,
    Fut: std::future::Future<Output = ()>,
{
    let (built_tx, built) = std::sync::mpsc::sync_channel(1);
    let slot = std::thread::Builder::new().name(name).spawn(move || {
        // Built on the slot's own thread: a runtime may not be dropped on the caller's (async).
        let runtime = tokio::runtime::Builder::new_current_thread()
            .enable_all()
            .build();
        match runtime {
            Ok(runtime) => {
                let _ = built_tx.send(Ok(()));
                runtime.block_on(task());
            }
            Err(err) => {
                let _ = built_tx.send(Err(err));
            }
        }
    })?;
    // Blocks the caller for as long as building a runtime takes: a few system calls.
    match built.recv() {
        Ok(Err(err)) => Err(err),
        _ => Ok(slot),
    }
}

/// The error that ends a run when the arena itself ran out of something while `doing`: what it
/// ran out of (with the open-file limit, which `ulimit -n` raises), and that no player is at
/// fault. Any other error is passed on as it is.
pub(crate) fn arena_trouble(doing: &str, error: &std::io::Error, open_files: u64) -> anyhow::Error {
    let Some(what) = arena_resource(error) else {
        return anyhow::anyhow!("failed while {doing}: {error}");
    };
    let limit = if crate::sys::out_of_open_files(error) {
        format!("its limit is {open_files} (`ulimit -n` raises it); ")
    } else {
        String::new()
    };
    anyhow::anyhow!(
        "the arena itself ran out of {what} while {doing}: {error}; {limit}no player is at fault"
    )
}

/// Starts `spec`'s bot. A start that fails on the arena's side (see [`arena_resource`]) is not
/// the bot's fault: it is said so and tried again [`ARENA_RETRIES`] times, after `free` (what the
/// caller can let go of), the orphans killed and [`ARENA_RETRY_WAIT`].
async fn start_retrying(
    spec: &BotSpec,
    log: &BotLog,
    timeout: Duration,
    stop: &Stop,
    say: &mpsc::UnboundedSender<Said>,
    mut free: impl AsyncFnMut(),
) -> Result<Player, StartError> {
    let mut attempt = 0;
    loop {
        match Player::start(spec, log, timeout, Some(stop)).await {
            Err(StartError::Arena { program, error }) if attempt < ARENA_RETRIES => {
                attempt += 1;
                let _ = say.send(Said::Warning(format!(
                    "the arena could not start `{program}` for `{}`: {error}; not the bot's fault: trying again in {} s",
                    spec.name,
                    ARENA_RETRY_WAIT.as_secs()
                )));
                free().await;
                kill_orphans();
                tokio::time::sleep(ARENA_RETRY_WAIT).await;
            }
            other => return other,
        }
    }
}

/// Sends `SIGINT`/`SIGTERM`/`SIGHUP` into `stop` when they arrive.
async fn watch_signals(stop: watch::Sender<Option<StopReason>>) {
    use tokio::signal::unix::{signal, SignalKind};
    let (Ok(mut int), Ok(mut term), Ok(mut hup)) = (
        signal(SignalKind::interrupt()),
        signal(SignalKind::terminate()),
        signal(SignalKind::hangup()),
    ) else {
        return;
    };
    loop {
        let signal = tokio::select! {
            _ = int.recv() => Signal::Interrupt,
            _ = term.recv() => Signal::Terminate,
            _ = hup.recv() => Signal::Hangup,
        };
        // The first reason to stop is the run's: a signal after an SPRT's decision changes
        // nothing.
        halt(&stop, StopReason::Signal(signal));
    }
}

/// Stops the run for `reason`, unless it is already stopping: the first reason is the run's (a
/// signal after an SPRT's decision changes nothing).
fn halt(stop: &watch::Sender<Option<StopReason>>, reason: StopReason) {
    stop.send_if_modified(|now| {
        let first = now.is_none();
        if first {
            *now = Some(reason);
        }
        first
    });
}

/// Waits until `stop` is set; returns why.
async fn wait_for_stop(mut stop: watch::Receiver<Option<StopReason>>) -> StopReason {
    loop {
        if let Some(why) = stop.borrow().clone() {
            return why;
        }
        if stop.changed().await.is_err() {
            std::future::pending::<()>().await;
        }
    }
}

fn flush_logs(logs: &[BotLog]) {
    for log in logs {
        log.flush();
    }
}

struct Shared {
    config: RunConfig,
    logs: Vec<BotLog>,
    queue: Mutex<Dispatcher>,
    pool_size: usize,
    /// The open-file limit in force, for the message when the arena runs out.
    open_files: u64,
    /// Ends every wait on a bot in every slot when the run stops.
    stop: Stop,
    /// What the slots say, as events of the run.
    say: mpsc::UnboundedSender<Said>,
    health: Mutex<Health>,
}

impl Shared {
    fn health(&self) -> std::sync::MutexGuard<'_, Health> {
        self.health.lock().unwrap_or_else(|e| e.into_inner())
    }
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

/// What a worker reports to the writer.
enum WorkerEvent {
    Game(Box<GameRecord>),
    /// The run cannot go on (the arena's own trouble, or a schedule that does not match).
    Failed(anyhow::Error),
}

async fn worker(
    shared: Arc<Shared>,
    tx: mpsc::Sender<WorkerEvent>,
    mut stop: watch::Receiver<Option<StopReason>>,
) {
    let mut pool = Pool::new(shared.pool_size);
    let mut thread = SlotThread::claim();
    loop {
        if stop.borrow().is_some() {
            break;
        }
        let next = shared
            .queue
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .next_game();
        let Some((pairing, opening)) = next else {
            break;
        };
        if !shared.health().plays(&pairing) {
            continue;
        }
        let played = tokio::select! {
            played = play_one(&shared, &mut pool, &mut thread, pairing, &opening) => played,
            _ = stop.changed() => break,
        };
        if stop.borrow().is_some() {
            // A stop that ended a wait on a bot: the game was cut short, not played.
            break;
        }
        let event = match played {
            Ok(Some(played)) => {
                if played.record.row.termination == Termination::Forfeit(FaultKind::Crash) {
                    // Schedulers (Slurm's requeue and time limit, Kubernetes' eviction) signal
                    // every process of the job at once: a bot that died may have died of the
                    // arena's own stop. Wait a moment for it before blaming the bot.
                    let stopping = tokio::select! {
                        _ = stop.changed() => true,
                        _ = tokio::time::sleep(CRASH_GRACE) => stop.borrow().is_some(),
                    };
                    if stopping {
                        break;
                    }
                }
                if let Some(faulty) = played.faulty {
                    let player = [pairing.first, pairing.second][faulty];
                    pool.kill(player).await;
                }
                WorkerEvent::Game(Box::new(played.record))
            }
            Ok(None) => continue,
            Err(err) => WorkerEvent::Failed(err),
        };
        if tx.send(event).await.is_err() {
            break;
        }
        // A game against native bots never gives the runtime the thread (their waits block
        // it): let the slot's other tasks (bots quitting, drivers' timers) run between games.
        tokio::task::yield_now().await;
    }
    if stop.borrow().is_some() {
        pool.kill_all().await;
    } else {
        pool.quit_all(&[]).await;
    }
}

/// How long a bot's crash waits for a stop signal to the arena before it counts as a forfeit.
const CRASH_GRACE: Duration = Duration::from_millis(500);

/// How often, and how long apart, a start that failed on the arena's side is tried again.
const ARENA_RETRIES: u32 = crate::engine::ARENA_RETRY.retries;
const ARENA_RETRY_WAIT: Duration = crate::engine::ARENA_RETRY.wait;

/// Plays one game, starting the players' bots if needed. `Ok(None)` when the game could not be
/// played because a player has just been dropped; `Err` when the arena itself cannot go on.
async fn play_one(
    shared: &Shared,
    pool: &mut Pool,
    thread: &mut SlotThread,
    pairing: Pairing,
    opening: &Opening,
) -> Result<Option<Played>> {
    let config = &shared.config;
    let players = [pairing.first, pairing.second];
    let names = players.map(|p| config.players[p].name.as_str());
    let setup = GameSetup {
        game_id: pairing.game_id,
        pair_id: pairing.pair_id,
        round: pairing.round,
        ruleset: config.rules,
        opening,
        time: &config.time,
        early_end: EarlyEnd::of(
            config.adjudicate,
            players
                .iter()
                .any(|&p| config.players[p].protocol == Protocol::Kgp),
        ),
        names,
        seeds: [
            schedule::bot_seed(config.seed, pairing.game_id, true),
            schedule::bot_seed(config.seed, pairing.game_id, false),
        ],
        time_by: players.map(|p| config.players[p].time_by.unwrap_or(config.time.time_by)),
    };
    let timeout = Duration::from_millis(config.time.handshake_ms);
    for (slot, &player) in players.iter().enumerate() {
        if pool.has(player) {
            continue;
        }
        pool.make_room(&players).await;
        let spec = &config.players[player];
        let log = &shared.logs[player];
        // Before trying again, free what the arena holds but this game's bots.
        let free = async || pool.quit_all(&players).await;
        match start_retrying(spec, log, timeout, &shared.stop, &shared.say, free).await {
            Ok(engine) => {
                shared.health().failures[player] = 0;
                pool.insert(player, engine);
            }
            Err(StartError::Bot(fault)) => {
                let mut health = shared.health();
                if health.dropped[player] {
                    return Ok(None);
                }
                health.failures[player] += 1;
                if health.failures[player] >= config.max_start_failures {
                    health.dropped[player] = true;
                    let _ = shared.say.send(Said::Dropped {
                        name: spec.name.clone(),
                        message: format!(
                            "dropping `{}` from the run: its bot failed to start {} times in a row (last: {fault}); see {}",
                            spec.name,
                            health.failures[player],
                            log.path().display()
                        ),
                    });
                }
                return Ok(Some(referee::start_failure(
                    &setup,
                    slot,
                    start_fault(fault),
                )));
            }
            Err(StartError::Arena { error, .. }) => {
                return Err(arena_trouble(
                    &format!("starting `{}`'s bot", spec.name),
                    &error,
                    shared.open_files,
                ))
            }
            // Nothing is recorded and no player blamed: the run stops with bubblewrap's word.
            Err(sandbox @ StartError::Sandbox(_)) => bail!("{sandbox}"),
            Err(err) => bail!("player `{}`: {err}", spec.name),
        }
    }
    let [first, second] = pool.pair(players[0], players[1]);
    Ok(Some(
        referee::play_game(&setup, [first, second], thread).await,
    ))
}

/// A start failure keeps its kind (spawn, handshake, or crash: a KGP agent that exited without
/// connecting); anything else during start is reported as a handshake failure.
fn start_fault(fault: Fault) -> Fault {
    match fault.kind {
        // A KGP agent that exits without connecting is a crash.
        FaultKind::Spawn | FaultKind::Handshake | FaultKind::Crash => fault,
        _ => Fault::new(FaultKind::Handshake, fault.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_pool_fits_the_open_file_limit() {
        assert_eq!(pool_size(1_048_576, 2), 32);
        assert_eq!(pool_size(1024, 2), 32);
        assert_eq!(pool_size(256, 2), (256 - 64) / 7 / 2);
        assert_eq!(pool_size(128, 8), 2);
    }
}
