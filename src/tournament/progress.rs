//! Progress while a run plays: a bar with ETA and a short live table on a terminal, plain
//! periodic lines otherwise (CI logs, files).

use std::collections::BTreeMap;
use std::io::IsTerminal;
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressStyle};

use crate::run_folder::games::GameRow;

/// How often plain progress lines are printed when stderr is not a terminal.
const PLAIN_EVERY: Duration = Duration::from_secs(10);

pub struct Progress {
    bar: Option<ProgressBar>,
    enabled: bool,
    total: u64,
    done: u64,
    started: Instant,
    last_line: Instant,
    /// Points and games per player, for the live table.
    table: BTreeMap<String, (f64, u32)>,
}

impl Progress {
    pub fn new(total: u64, already_done: u64, enabled: bool) -> Progress {
        let bar = (enabled && std::io::stderr().is_terminal()).then(|| {
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
        Progress {
            bar,
            enabled,
            total,
            done: already_done,
            started: Instant::now(),
            last_line: Instant::now(),
            table: BTreeMap::new(),
        }
    }

    pub fn game(&mut self, row: &GameRow) {
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
        } else if self.enabled
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

    /// The top players by score so far, e.g. `hard 81% · normal 64% · greedy 40%`.
    fn leaders(&self) -> String {
        let mut rows: Vec<(&String, f64)> = self
            .table
            .iter()
            .map(|(name, (pts, n))| (name, pts / f64::from((*n).max(1))))
            .collect();
        rows.sort_by(|a, b| b.1.total_cmp(&a.1));
        rows.iter()
            .take(4)
            .map(|(n, s)| format!("{n} {:.0}%", s * 100.0))
            .collect::<Vec<_>>()
            .join(" · ")
    }

    pub fn finish(&self) {
        if let Some(bar) = &self.bar {
            bar.finish();
        }
    }
}
