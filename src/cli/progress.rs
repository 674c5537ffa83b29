//! The console sink of a run's events: progress while it plays (a bar with ETA and a short live
//! table on a terminal, plain periodic lines otherwise: CI logs, files), and its warnings and
//! notes on stderr. The library emits events; this is where they are printed.

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use mancala_arena::run_folder::games::GameRow;
use mancala_arena::tournament::events::{RunEvent, RunSink, Steer, StopReason};
use mancala_arena::vocab::shell_word;

/// How often plain progress lines are printed when stderr is not a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

pub struct Console {
    /// Show the progress (warnings are always shown).
    progress: bool,
    /// The run folder, for the message that says how to resume it (`None`: not resumable).
    resume: Option<PathBuf>,
    bar: Option<ProgressBar>,
    total: u64,
    done: u64,
    started: Instant,
    last_line: Instant,
    /// Points and games per player, for the live table.
    table: BTreeMap<String, (f64, u32)>,
    /// A signal's message has been said.
    signalled: bool,
    /// Players the live table always shows (a gauntlet's), whatever their place.
    always: Vec<String>,
}

impl Console {
    pub fn new(progress: bool, resume: Option<PathBuf>) -> Console {
        Console {
            progress,
            resume,
            bar: None,
            total: 0,
            done: 0,
            started: Instant::now(),
            last_line: Instant::now(),
            table: BTreeMap::new(),
            signalled: false,
            always: Vec::new(),
        }
    }

    /// The console whose live table always shows `players` (a gauntlet's), after the leaders.
    pub fn always_showing(self, players: Vec<String>) -> Console {
        Console {
            always: players,
            ..self
        }
    }

    fn start(&mut self, total: u64, already_done: u64) {
        self.total = total;
        self.done = already_done;
        self.bar = (self.progress && std::io::stderr().is_terminal()).then(|| {
            let bar = ProgressBar::new(total);
            bar.set_style(
                ProgressStyle::with_template(
                    "{bar:30} {pos}/{len} games  {elapsed_precise} ETA {eta}  {msg}",
                )
                .unwrap_or_else(|_| ProgressStyle::default_bar()),
            );
            bar.set_position(already_done);
            bar
        });
    }

    fn game(&mut self, row: &GameRow) {
        self.done += 1;
        let points = row.result.score();
        let first = self.table.entry(row.first.clone()).or_default();
        first.0 += points;
        first.1 += 1;
        let second = self.table.entry(row.second.clone()).or_default();
        second.0 += 1.0 - points;
        second.1 += 1;
        if let Some(bar) = &self.bar {
            bar.set_position(self.done);
            bar.set_message(self.leaders());
        } else if self.progress
            && (self.last_line.elapsed() >= PLAIN_EVERY || self.done == self.total)
        {
            self.last_line = Instant::now();
            eprintln!(
                "[{:>6.1}s] {}/{} games  {}",
                self.started.elapsed().as_secs_f64(),
                self.done,
                self.total,
                self.leaders()
            );
        }
    }

    /// A line on stderr that does not tear the bar.
    fn say(&self, text: &str) {
        match &self.bar {
            Some(bar) => bar.suspend(|| eprintln!("{text}")),
            None => eprintln!("{text}"),
        }
    }

    /// Says once that a signal is stopping the run, and how to finish it.
    fn announce_signal(&mut self, reason: &StopReason) {
        let StopReason::Signal(signal) = reason else {
            return;
        };
        if std::mem::replace(&mut self.signalled, true) {
            return;
        }
        let text = match &self.resume {
            Some(dir) => format!(
                "\n{signal}: stopping the bots; finish the run with `arena run --resume {}`",
                shell_word(dir)
            ),
            None => format!("\n{signal}: stopping the bots"),
        };
        self.say(&text);
    }

    /// The top players by score so far, e.g. `hard 81% · normal 64% · greedy 40%`, and the
    /// players always shown.
    fn leaders(&self) -> String {
        let mut rows: Vec<(&String, f64)> = self
            .table
            .iter()
            .map(|(name, (pts, n))| (name, pts / f64::from((*n).max(1))))
            .collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        // The top four, then the players always shown (a gauntlet's) that are not among them.
        let shown = rows
            .iter()
            .enumerate()
            .filter(|(place, (name, _))| *place < 4 || self.always.iter().any(|a| a == *name));
        shown
            .map(|(_, (n, s))| format!("{n} {:.0}%", s * 100.0))
            .collect::<Vec<_>>()
            .join(" · ")
    }
}

impl RunSink for Console {
    fn on(&mut self, event: &RunEvent<'_>) -> anyhow::Result<Steer> {
        match event {
            RunEvent::Started { total, done } => self.start(*total, *done),
            RunEvent::Game(record) => self.game(&record.row),
            RunEvent::Warning(text) => self.say(text),
            RunEvent::PlayerDropped { message, .. } => self.say(message),
            RunEvent::Stopping(reason) => self.announce_signal(reason),
            RunEvent::Stopped(reason) => {
                if let Some(bar) = &self.bar {
                    bar.finish();
                }
                self.announce_signal(reason);
            }
        }
        Ok(Steer::Continue)
    }
}
