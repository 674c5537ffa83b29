//! What opening a solver says on stderr (`arena solve`, `arena analyse`, `arena openings`): the
//! database about to be built with its expected time, its progress (a bar with ETA on a
//! terminal, a plain line every 10 % otherwise), and the value cache read.

use std::io::IsTerminal;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;

use indicatif::{ProgressBar, ProgressStyle};
use mancala_arena::solver::Opening;

/// The printer of one solver's opening; see the module docs.
#[derive(Default)]
pub struct SolverConsole {
    bar: Mutex<Option<ProgressBar>>,
    /// Tenths of the build said (plain lines).
    said: AtomicU64,
    started: Mutex<Option<Instant>>,
}

impl SolverConsole {
    pub fn new() -> SolverConsole {
        SolverConsole::default()
    }

    /// Says what `event` is (see the module docs).
    pub fn event(&self, event: &Opening) {
        match *event {
            Opening::Building {
                k,
                from,
                entries,
                secs,
                threads,
                dir,
            } => {
                eprintln!(
                    "building the endgame database with up to {k} seeds ({:.0} MiB to build{}); \
                     expected about {} on {threads} thread(s){}",
                    entries as f64 / (1 << 20) as f64,
                    from.map(|f| format!(", on the {f} seeds' levels already built"))
                        .unwrap_or_default(),
                    duration(secs),
                    dir.map(|d| format!(
                        "; written to {} as it goes (an interrupted build goes on where it stopped)",
                        d.display()
                    ))
                    .unwrap_or_default()
                );
                *self.started.lock().expect("console lock") = Some(Instant::now());
                if std::io::stderr().is_terminal() {
                    let bar = ProgressBar::new(0);
                    bar.set_style(
                        ProgressStyle::with_template(
                            "{bar:30} {percent:>3}% of the database  {elapsed_precise} ETA {eta}",
                        )
                        .unwrap_or_else(|_| ProgressStyle::default_bar()),
                    );
                    *self.bar.lock().expect("console lock") = Some(bar);
                }
            }
            Opening::Progress { done, todo } => {
                if let Some(bar) = &*self.bar.lock().expect("console lock") {
                    bar.set_length(todo);
                    bar.set_position(done);
                    return;
                }
                let tenth = done * 10 / todo.max(1);
                if self.said.fetch_max(tenth, Relaxed) < tenth {
                    eprintln!("database {:>3} %  {:.0}s", tenth * 10, self.elapsed());
                }
            }
            Opening::Database(db) => {
                if let Some(bar) = self.bar.lock().expect("console lock").take() {
                    bar.finish_and_clear();
                }
                for why in &db.refused {
                    eprintln!("{why} (the table is built again)");
                }
                if !db.loaded {
                    eprintln!("database built in {:.1}s", db.build_time.as_secs_f64());
                }
                if let Some(why) = &db.not_kept {
                    eprintln!("database {why}");
                }
            }
            Opening::Values(Ok(values)) => {
                let mut damaged = String::new();
                if values.damaged > 0 {
                    damaged += &format!(" ({} damaged records skipped)", values.damaged);
                }
                if values.impossible > 0 {
                    damaged += &format!(
                        " ({} records of impossible values refused: edited or damaged)",
                        values.impossible
                    );
                }
                let book = match values.book_len() {
                    0 => String::new(),
                    n => format!("; {n} of the Kalah(6,5) openings book"),
                };
                eprintln!(
                    "values    {} proven positions from {}{damaged}{book}",
                    values.loaded,
                    values.path().display()
                );
            }
            Opening::Values(Err(ref e)) => {
                eprintln!("values    cache not read ({e}); going on without it")
            }
        }
    }

    fn elapsed(&self) -> f64 {
        self.started
            .lock()
            .expect("console lock")
            .map_or(0.0, |t| t.elapsed().as_secs_f64())
    }
}

/// `45 s`, `3.2 min`, `1.5 h`.
pub fn duration(secs: f64) -> String {
    if secs < 90.0 {
        format!("{secs:.0} s")
    } else if secs < 5400.0 {
        format!("{:.1} min", secs / 60.0)
    } else {
        format!("{:.1} h", secs / 3600.0)
    }
}
