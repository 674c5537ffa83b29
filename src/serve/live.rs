//! The live state of one run folder, kept between requests so that a growing folder is read
//! only where it grew: [`RunCache`] follows `games.csv` and `games.jsonl` by byte offset
//! ([`GamesTail`]), indexes each game's `games.jsonl` line for the viewer, collects think times,
//! and rates the games again at most once a second while they change (normal intervals while
//! the run plays, the bootstrap once it has finished). Whether a run is running, finished or
//! interrupted is [`classify`], a pure function of what the folder shows.
//!
//! Everything here reads the folder through [`crate::run_folder`] and computes through
//! [`crate::rating`] (via [`crate::report::rate::rate_games`]); the pages are [`super::pages`].

use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

use anyhow::Result;

use super::catalog::Catalog;
use crate::report::plots::think_time::BoxStats;
use crate::report::rate::{rate_games, RateOptions};
use crate::run_folder::games::{
    player_names, rated_games, read_record_at, termination_counts, GameRecord, GameRow, GamesTail,
    Tail, GAMES_CSV, GAMES_JSONL,
};
use crate::run_folder::gate::{GateFile, GATE_JSON};
use crate::run_folder::logs::{logs_dir, stderr_log_path};
use crate::run_folder::pgn::GAMES_PGN;
use crate::run_folder::ratings::Summary;
use crate::run_folder::run_file::RUN_JSON;
use crate::run_folder::sprt::{read_trace, SprtFile, TracePoint, SPRT_CSV, SPRT_JSON};
use crate::run_folder::state::{RecordedState, State, STATE_JSON};
use crate::run_folder::{RunFile, RunKind};
use crate::vocab::config::TimeControl;
use crate::vocab::schedule::Schedule;
use crate::vocab::shell_word;

/// A run page's sections, `(element id, HTML)`, rendered once per version and shared.
pub type Sections = std::sync::Arc<Vec<(&'static str, String)>>;

/// The ratings are computed again at most this often while games arrive.
pub const RATE_EVERY: Duration = Duration::from_secs(1);
/// A run is not called interrupted before its folder has been quiet this long.
pub const MIN_QUIET: Duration = Duration::from_secs(120);

/// Where a run stands.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunState {
    /// The folder is growing.
    Running,
    /// Every game is played (or the SPRT decided, or it is a merge).
    Finished,
    /// Games are missing and the folder has stopped growing (or the arena ended early).
    Interrupted,
}

impl RunState {
    pub fn as_str(self) -> &'static str {
        match self {
            RunState::Running => "running",
            RunState::Finished => "finished",
            RunState::Interrupted => "interrupted",
        }
    }
}

/// What the folder shows about a run's activity.
#[derive(Clone, Debug, PartialEq)]
pub struct Activity {
    pub kind: RunKind,
    pub done: u64,
    pub total: u64,
    /// `sprt.json` or `gate.json` exists: the sequential test stopped (decided, or out of pairs;
    /// a gate skips the games of the levels it decided early).
    pub test_ended: bool,
    /// `games.pgn` was written after the last game: the arena finished this folder's run (it
    /// writes it on the way out, also when stopped by Ctrl-C or when players were dropped).
    pub ended: bool,
    /// Since the folder (games, logs) last grew.
    pub quiet: Duration,
    /// How long a game may go without a write while the run is alive (see [`quiet_limit`]).
    pub quiet_limit: Duration,
}

/// Running, finished or interrupted, from what the folder shows.
pub fn classify(a: &Activity) -> RunState {
    if a.kind == RunKind::Merge || a.done >= a.total || a.test_ended {
        RunState::Finished
    } else if a.ended || a.quiet > a.quiet_limit {
        RunState::Interrupted
    } else {
        RunState::Running
    }
}

/// How long the folder has been quiet at `now`. A last write dated ahead of the clock (a clock
/// set back, a folder copied from another machine) is no sign of life: its distance counts as
/// quiet too, so that a killed run's folder is not shown running until the clock catches up.
pub fn quiet_since(now: SystemTime, last_write: SystemTime) -> Duration {
    match now.duration_since(last_write) {
        Ok(quiet) => quiet,
        Err(ahead) => ahead.duration(),
    }
}

/// How long a live run may leave its folder untouched: three times the longest game so far, and
/// at least what one game may take under its time control (100 sows at the per-sow deadline, or
/// twice a game clock), and at least two minutes.
pub fn quiet_limit(time: &TimeControl, longest_game: Duration) -> Duration {
    let per_game = match time.clock {
        Some(c) => Duration::from_millis(2 * (c.base_ms + 100 * c.inc_ms)),
        None => time.deadline(None) * 100,
    };
    MIN_QUIET.max(3 * longest_game).max(per_game)
}

/// What a run plays, from its `run.json`: what tells two runs apart on the runs page.
#[derive(Clone, Debug, PartialEq)]
pub struct RunSetup {
    pub players: Vec<String>,
    /// The challengers' names in a gauntlet; empty in a round robin.
    pub challengers: Vec<String>,
    /// The ruleset's canonical string (`kalah`, `oware`, `kalah(pits=4)`...).
    pub rules: String,
    /// The time control in words (`40 ms a sow`, `clock 60+0.5 s`).
    pub time: String,
    /// Game pairs per encounter.
    pub pairs: u32,
}

impl RunSetup {
    pub fn of(run: &RunFile) -> RunSetup {
        let c = &run.config;
        let challengers = match &c.format {
            crate::vocab::schedule::Format::RoundRobin => Vec::new(),
            crate::vocab::schedule::Format::Gauntlet { challengers } => challengers
                .iter()
                .filter_map(|&i| Some(c.players.get(i)?.name.clone()))
                .collect(),
        };
        RunSetup {
            players: c.players.iter().map(|p| p.name.clone()).collect(),
            challengers,
            rules: c.rules.to_string(),
            time: c.time.to_string(),
            pairs: c.pairs,
        }
    }
}

/// Games done and to do, and the times a person wants.
#[derive(Clone, Debug, PartialEq)]
pub struct Progress {
    pub kind: RunKind,
    pub name: String,
    /// Players, rules, time control and pairs (`None` without a readable `run.json`, and for a
    /// calibration's top folder).
    pub setup: Option<RunSetup>,
    pub state: RunState,
    pub done: u64,
    pub total: u64,
    pub started: Option<chrono::DateTime<chrono::FixedOffset>>,
    pub elapsed: Option<Duration>,
    /// The estimate while running: the time per game so far times the games left.
    pub remaining: Option<Duration>,
    /// What ended the run, as its folder records it (`state.json`'s reason): the signal, the
    /// SPRT's or the gate's decision, the arena's error.
    pub reason: Option<String>,
    /// The command that finishes an interrupted run (`None` when it cannot be resumed).
    pub resume: Option<String>,
}

/// `elapsed` and `remaining` from the start, the last write, the state and the counts. Pure.
pub fn times(
    started: Option<SystemTime>,
    last_write: SystemTime,
    now: SystemTime,
    state: RunState,
    done: u64,
    total: u64,
) -> (Option<Duration>, Option<Duration>) {
    let Some(started) = started else {
        return (None, None);
    };
    let end = if state == RunState::Running {
        now
    } else {
        last_write
    };
    let elapsed = end.duration_since(started).ok();
    let remaining = match (state, elapsed) {
        (RunState::Running, Some(e)) if done > 0 => {
            Some(e.mul_f64(total.saturating_sub(done) as f64 / done as f64))
        }
        _ => None,
    };
    (elapsed, remaining)
}

/// One player's forfeits of one kind.
#[derive(Clone, Debug, PartialEq)]
pub struct Forfeits {
    pub player: String,
    pub termination: String,
    pub games: usize,
    /// The detail of the latest one.
    pub detail: String,
}

/// The ratings of the games so far, and how they were computed.
pub struct Rated {
    pub games: usize,
    pub summary: Result<Summary, String>,
    pub at: Instant,
}

/// Everything the run page shows, computed from the cache.
pub struct RunView<'a> {
    pub progress: Progress,
    pub players: Vec<String>,
    pub rated: Option<&'a Rated>,
    pub forfeits: Vec<Forfeits>,
    pub terminations: Vec<(crate::run_folder::Termination, usize)>,
    /// Each player's think-time summary (players with timed sows only).
    pub think: Vec<(String, BoxStats)>,
    /// Players with a stderr log: (name, bytes).
    pub logs: Vec<(String, u64)>,
    pub sprt: Option<(Vec<TracePoint>, Option<SprtFile>)>,
    /// `gate.json` (an `arena gate` run that ended).
    pub gate: Option<GateFile>,
    /// The latest games, newest first, and whether each can be opened in the viewer.
    pub recent: Vec<(&'a GameRow, bool)>,
}

/// The files whose size and time say whether the folder changed.
const WATCHED: [&str; 8] = [
    RUN_JSON,
    GAMES_CSV,
    GAMES_JSONL,
    GAMES_PGN,
    SPRT_CSV,
    SPRT_JSON,
    GATE_JSON,
    STATE_JSON,
];

/// (length, modification time) of a file, `None` when missing or a link out of the folder.
type Stamp = Option<(u64, SystemTime)>;

/// One run folder as last read.
pub struct RunCache {
    dir: PathBuf,
    root: PathBuf,
    run: Option<RunFile>,
    tail: GamesTail,
    rows: Vec<GameRow>,
    /// Game id → byte offset of its `games.jsonl` line.
    index: HashMap<u64, u64>,
    /// Think times (ms) per player name, from `games.jsonl`.
    think: HashMap<String, Vec<u32>>,
    longest_game: Duration,
    stamps: [Stamp; 8],
    last_write: SystemTime,
    sprt: Option<(Vec<TracePoint>, Option<SprtFile>)>,
    gate: Option<GateFile>,
    /// `state.json`: the state the arena recorded (folders of older arenas have none).
    recorded: Option<RecordedState>,
    rated: Option<Rated>,
    /// Bumped whenever what the run page shows (apart from the clock) changes.
    pub version: u64,
    /// The run page's sections as last rendered, and the version they show (for the server,
    /// which renders them once per version whoever asks).
    pub rendered: Option<(u64, Sections)>,
    error: Option<String>,
}

impl RunCache {
    pub fn new(dir: PathBuf, root: PathBuf) -> RunCache {
        RunCache {
            dir,
            root,
            run: None,
            tail: GamesTail::default(),
            rows: Vec::new(),
            index: HashMap::new(),
            think: HashMap::new(),
            longest_game: Duration::ZERO,
            stamps: [None; 8],
            recorded: None,
            last_write: SystemTime::UNIX_EPOCH,
            sprt: None,
            gate: None,
            rated: None,
            version: 0,
            rendered: None,
            error: None,
        }
    }

    pub fn dir(&self) -> &Path {
        &self.dir
    }

    pub fn rows(&self) -> &[GameRow] {
        &self.rows
    }

    fn stamp(&self, file: &str) -> Stamp {
        let path = Catalog::contained(&self.root, &self.dir.join(file))?;
        let meta = std::fs::metadata(path).ok()?;
        Some((meta.len(), meta.modified().ok()?))
    }

    /// Reads what changed since the last call (nothing at all when no watched file changed).
    pub fn refresh(&mut self) {
        let stamps = WATCHED.map(|f| self.stamp(f));
        if stamps == self.stamps {
            return;
        }
        let escaped: Vec<&str> = WATCHED
            .iter()
            .filter(|f| self.dir.join(f).exists() && self.stamp(f).is_none())
            .copied()
            .collect();
        if !escaped.is_empty() {
            self.error = Some(format!(
                "{} lead out of the served folder: not read",
                escaped.join(", ")
            ));
            self.stamps = stamps;
            self.version += 1;
            return;
        }
        if stamps[0] != self.stamps[0] {
            self.run = RunFile::read(&self.dir).ok();
        }
        self.stamps = stamps;
        self.version += 1;
        self.error = None;
        if let Err(e) = self.read_games() {
            self.error = Some(format!("{e:#}"));
        }
        self.sprt = read_trace(&self.dir)
            .ok()
            .flatten()
            .map(|trace| (trace, SprtFile::read(&self.dir).ok().flatten()));
        self.gate = match self.stamps[6] {
            Some(_) => GateFile::read(&self.dir).ok().flatten(),
            None => None,
        };
        self.recorded = match self.stamps[7] {
            Some(_) => RecordedState::read(&self.dir).ok().flatten(),
            None => None,
        };
    }

    fn read_games(&mut self) -> Result<()> {
        let rows = match self.tail.new_rows(&self.dir)? {
            Tail::New(rows) => rows,
            Tail::Rewritten => {
                // `--resume` repaired the folder: read it afresh.
                let (dir, root) = (self.dir.clone(), self.root.clone());
                let version = self.version;
                *self = RunCache::new(dir, root);
                self.version = version + 1;
                return self.read_games();
            }
        };
        for row in &rows {
            self.longest_game = self.longest_game.max(Duration::from_millis(row.wall_ms));
        }
        self.rows.extend(rows);
        let (index, think) = (&mut self.index, &mut self.think);
        let read = self
            .tail
            .new_records(&self.dir, |offset, rec: GameRecord| {
                index.entry(rec.row.game_id).or_insert(offset);
                for (&mover, &ms) in rec.movers.iter().zip(&rec.think_ms) {
                    let name = if mover == 0 {
                        &rec.row.first
                    } else {
                        &rec.row.second
                    };
                    think
                        .entry(name.clone())
                        .or_default()
                        .push(ms.min(u64::from(u32::MAX)) as u32);
                }
            })?;
        if let Tail::Rewritten = read {
            self.tail = GamesTail::default();
            self.rows.clear();
            self.index.clear();
            self.think.clear();
            return self.read_games();
        }
        Ok(())
    }

    /// When the folder last grew: its games and its bots' logs.
    fn last_write(&mut self) -> SystemTime {
        let logs = std::fs::read_dir(logs_dir(&self.dir))
            .into_iter()
            .flatten()
            .filter_map(Result::ok)
            .filter_map(|e| e.metadata().ok()?.modified().ok());
        let games = self.stamps.iter().flatten().map(|s| s.1);
        self.last_write = games.chain(logs).max().unwrap_or(self.last_write);
        self.last_write
    }

    /// Games done and to do, the state and the times, as of `now`.
    pub fn progress(&mut self, now: SystemTime) -> Progress {
        let last_write = self.last_write();
        let run = self.run.as_ref();
        let kind = match run {
            Some(r) => r.kind,
            // No `run.json` at all: games `arena analyse` read from PGN.
            None if !RunFile::exists(&self.dir) => RunKind::Pgn,
            None => RunKind::Tournament,
        };
        let done = self.rows.len() as u64;
        let total = run.map_or(done, |r| {
            Schedule::new(r.config.players.len(), &r.config.format, r.config.pairs)
                .games_in_shard(r.shard)
        });
        let csv_time = self.stamps[1].map(|s| s.1);
        let pgn_time = self.stamps[3].map(|s| s.1);
        let activity = Activity {
            kind,
            done,
            total,
            test_ended: self.stamps[5].is_some() || self.stamps[6].is_some(),
            ended: matches!((pgn_time, csv_time), (Some(p), Some(c)) if p >= c),
            quiet: quiet_since(now, last_write),
            quiet_limit: run.map_or(MIN_QUIET, |r| {
                quiet_limit(&r.config.time, self.longest_game)
            }),
        };
        // The state the arena recorded, where it did (a killed run's reads as interrupted);
        // otherwise what the folder shows.
        let recorded = self
            .recorded
            .as_ref()
            .map(|r| r.effective(crate::sys::process_alive));
        let state = match &recorded {
            Some((recorded, _)) => match recorded {
                State::Running => RunState::Running,
                State::Finished | State::Stopped => RunState::Finished,
                State::Interrupted | State::Failed => RunState::Interrupted,
            },
            None => classify(&activity),
        };
        let reason = recorded.and_then(|(_, reason)| reason);
        let started = run.and_then(|r| chrono::DateTime::parse_from_rfc3339(&r.started).ok());
        let (elapsed, remaining) = times(
            started.map(SystemTime::from),
            last_write,
            now,
            state,
            done,
            total,
        );
        let resumable = matches!(kind, RunKind::Tournament);
        Progress {
            kind,
            name: run.map_or_else(String::new, |r| r.config.name.clone()),
            setup: run.map(RunSetup::of),
            state,
            done,
            total,
            started,
            elapsed,
            remaining,
            reason,
            resume: (state == RunState::Interrupted && resumable)
                .then(|| format!("arena run --resume {}", shell_word(&self.dir))),
        }
    }

    /// Rates the games again if they changed (at most every [`RATE_EVERY`] while running; with
    /// the bootstrap once finished).
    fn rate(&mut self, state: RunState, now: Instant) {
        let finished = state != RunState::Running;
        let stale = match &self.rated {
            None => true,
            Some(r) if r.games == self.rows.len() => false,
            Some(r) => finished || now.duration_since(r.at) >= RATE_EVERY,
        };
        if !stale || self.rows.is_empty() {
            return;
        }
        let names = player_names(&self.dir, &self.rows);
        let opts = RateOptions {
            bootstrap: if finished {
                RateOptions::default().bootstrap
            } else {
                0
            },
            ..RateOptions::default()
        };
        let seed = self.run.as_ref().map_or(1, |r| r.config.seed);
        let summary = rated_games(&self.rows, &names, false)
            .and_then(|games| rate_games(&names, &games, &opts, seed))
            .map(|report| {
                Summary::new(&report, termination_counts(&self.rows)).with_judging(&self.rows)
            })
            .map_err(|e| format!("{e:#}"));
        self.rated = Some(Rated {
            games: self.rows.len(),
            summary,
            at: now,
        });
        self.version += 1;
    }

    /// What a poll needs: reads what changed, rates again if due, and returns the progress as
    /// of `now` and the version of everything else.
    pub fn poll(&mut self, now: SystemTime) -> (Progress, u64) {
        self.refresh();
        let progress = self.progress(now);
        // A finished run is rated with the bootstrap once; the terminal states need no throttle.
        self.rate(progress.state, Instant::now());
        (progress, self.version)
    }

    /// Everything the run page shows, for `progress` as [`RunCache::poll`] returned it (the
    /// think-time summary sorts every sow's time: build this once per version).
    pub fn view(&self, progress: Progress) -> RunView<'_> {
        let players = player_names(&self.dir, &self.rows);
        let mut forfeits: Vec<Forfeits> = Vec::new();
        for row in &self.rows {
            let Some(player) = &row.forfeit else { continue };
            let termination = row.termination.to_string();
            match forfeits
                .iter_mut()
                .find(|f| &f.player == player && f.termination == termination)
            {
                Some(f) => {
                    f.games += 1;
                    f.detail.clone_from(&row.detail);
                }
                None => forfeits.push(Forfeits {
                    player: player.clone(),
                    termination,
                    games: 1,
                    detail: row.detail.clone(),
                }),
            }
        }
        let think = players
            .iter()
            .filter_map(|p| {
                let times: Vec<u64> = self.think.get(p)?.iter().map(|&t| t.into()).collect();
                Some((p.clone(), BoxStats::of(&times)?))
            })
            .collect();
        let logs = players
            .iter()
            .filter_map(|p| Some((p.clone(), self.log_path(p)?.metadata().ok()?.len())))
            .collect();
        let recent = self
            .rows
            .iter()
            .rev()
            .take(25)
            .map(|r| (r, self.index.contains_key(&r.game_id)))
            .collect();
        RunView {
            progress,
            players,
            rated: self.rated.as_ref(),
            forfeits,
            terminations: termination_counts(&self.rows),
            think,
            logs,
            sprt: self.sprt.clone(),
            gate: self.gate.clone(),
            recent,
        }
    }

    /// Why the folder could not be read (in part), if it could not.
    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The player's stderr log, if it exists inside the served folder. `player` must be one of
    /// the run's players (a name is never turned into a path otherwise).
    pub fn log_path(&self, player: &str) -> Option<PathBuf> {
        if !player_names(&self.dir, &self.rows)
            .iter()
            .any(|p| p == player)
        {
            return None;
        }
        Catalog::contained(&self.root, &stderr_log_path(&logs_dir(&self.dir), player))
    }

    /// The record of `game_id`, if `games.jsonl` holds it.
    pub fn record(&mut self, game_id: u64) -> Option<Result<GameRecord>> {
        self.refresh();
        let offset = *self.index.get(&game_id)?;
        Catalog::contained(&self.root, &self.dir.join(GAMES_JSONL))?;
        Some(read_record_at(&self.dir, offset))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn activity() -> Activity {
        Activity {
            kind: RunKind::Tournament,
            done: 10,
            total: 40,
            test_ended: false,
            ended: false,
            quiet: Duration::from_secs(5),
            quiet_limit: Duration::from_secs(120),
        }
    }

    #[test]
    fn the_three_states() {
        assert_eq!(classify(&activity()), RunState::Running);
        let quiet = Activity {
            quiet: Duration::from_secs(121),
            ..activity()
        };
        assert_eq!(classify(&quiet), RunState::Interrupted);
        let ended = Activity {
            ended: true,
            ..activity()
        };
        assert_eq!(classify(&ended), RunState::Interrupted);
        let all = Activity {
            done: 40,
            ended: true,
            ..activity()
        };
        assert_eq!(classify(&all), RunState::Finished);
        let sprt = Activity {
            kind: RunKind::Sprt,
            test_ended: true,
            ..activity()
        };
        assert_eq!(classify(&sprt), RunState::Finished);
        let gate = Activity {
            kind: RunKind::Gate,
            test_ended: true,
            ..activity()
        };
        assert_eq!(classify(&gate), RunState::Finished);
        let merge = Activity {
            kind: RunKind::Merge,
            ..quiet
        };
        assert_eq!(classify(&merge), RunState::Finished);
    }

    #[test]
    fn quiet_limit_follows_the_clock_and_the_longest_game() {
        let site = TimeControl::default(); // 30 s per sow
        assert_eq!(
            quiet_limit(&site, Duration::ZERO),
            Duration::from_millis(100 * 30_100)
        );
        let fast = TimeControl {
            movetime_ms: Some(10),
            ..TimeControl::default()
        };
        assert_eq!(quiet_limit(&fast, Duration::ZERO), MIN_QUIET);
        assert_eq!(
            quiet_limit(&fast, Duration::from_secs(100)),
            Duration::from_secs(300)
        );
    }

    #[test]
    fn a_folder_dated_ahead_of_the_clock_is_not_fresh() {
        let now = SystemTime::UNIX_EPOCH + Duration::from_secs(1_000_000);
        let past = now - Duration::from_secs(30);
        assert_eq!(quiet_since(now, past), Duration::from_secs(30));
        // Dated an hour ahead: an hour of quiet, not none (#32: shown running).
        let ahead = now + Duration::from_secs(3600);
        assert_eq!(quiet_since(now, ahead), Duration::from_secs(3600));
        let stale = Activity {
            quiet: quiet_since(now, ahead),
            ..activity()
        };
        assert_eq!(classify(&stale), RunState::Interrupted);
    }

    #[test]
    fn times_estimate_the_rest_while_running() {
        let t0 = SystemTime::UNIX_EPOCH + Duration::from_secs(1000);
        let now = t0 + Duration::from_secs(100);
        let last = t0 + Duration::from_secs(90);
        assert_eq!(
            times(Some(t0), last, now, RunState::Running, 25, 100),
            (
                Some(Duration::from_secs(100)),
                Some(Duration::from_secs(300))
            )
        );
        assert_eq!(
            times(Some(t0), last, now, RunState::Finished, 100, 100),
            (Some(Duration::from_secs(90)), None)
        );
        assert_eq!(
            times(None, last, now, RunState::Running, 1, 2),
            (None, None)
        );
    }
}
