//! A tune folder (`arena tune`) on the dashboard: its line on the runs page and its page, live.
//! The tune's own state is `tune.json` (rewritten whole after every iteration, so never read
//! half-written); the games of the iteration in play and the verification SPRT are their run
//! folders' (`iter-NNNN/`, `verify/`), read through their caches like any run's.
//!
//! The page shows the parameters' trajectories as `(θ − start) / c_end` (fishtest's chart: how
//! many final perturbations each has moved), with the raw values in tables; the iteration and
//! pairs so far against the plan; the verification's settings, its LLR path while it plays and
//! its verdict once recorded; and the latest run folders.

use std::fmt::Write as _;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

use super::catalog::{Catalog, Entry, FolderKind};
use super::live::{self, Progress, RunState};
use super::pages::{self, count, figure, RunLine};
use super::{read_top_file, version_of, App, Stamp};
use crate::report::plots::{SprtPlot, TunePlot};
use crate::report::tables::Align;
use crate::report::text::escape_html as escape;
use crate::run_folder::sprt::{read_trace, SprtFile, TracePoint, SPRT_CSV, SPRT_JSON};
use crate::run_folder::tune::{TuneFile, ITER_PREFIX, TUNE_JSON, VERIFY_DIR};
use crate::run_folder::RunKind;
use crate::vocab::{shell_word, GameFlags};

/// The page lists this many of the latest iteration folders (all are on the runs page's API
/// and on disk; a tune has hundreds).
const LATEST_RUNS: usize = 5;
/// The iterations table shows this many, the latest first (`tune.csv` has them all).
const LATEST_STEPS: usize = 20;

/// What a run folder inside a tune folder is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub enum Child {
    /// `iter-NNNN/`: iteration N.
    Iteration(u64),
    /// `verify/` (1) or `verify-N/` (N): the verification SPRTs, in the order they were played.
    Verify(u64),
}

/// What the run folder `dir` is to the tune folder `tune_dir`, if it is one of its own.
pub fn child_of(tune_dir: &Path, dir: &Path) -> Option<Child> {
    if dir.parent() != Some(tune_dir) {
        return None;
    }
    let name = dir.file_name()?.to_str()?;
    if let Some(n) = name.strip_prefix(ITER_PREFIX) {
        return n.parse().ok().map(Child::Iteration);
    }
    match name.strip_prefix(VERIFY_DIR)? {
        "" => Some(Child::Verify(1)),
        n => n.strip_prefix('-')?.parse().ok().map(Child::Verify),
    }
}

/// Whether the catalog entry `e` is an iteration folder of one of the tune folders `tunes`:
/// the runs page leaves those to the tune's page.
pub fn is_iteration(tunes: &[&Path], e: &Entry) -> bool {
    e.kind == FolderKind::Run
        && tunes
            .iter()
            .any(|t| matches!(child_of(t, &e.dir), Some(Child::Iteration(_))))
}

/// A bot's command line in a few words: its program's file name (`mancala-alphabeta`).
fn program(cmd: &str) -> &str {
    let first = cmd.split_whitespace().next().unwrap_or(cmd);
    first.rsplit('/').next().unwrap_or(first)
}

/// The rules and time control of a tune's games in words (`kalah · 30 s a sow, depth 3`), from
/// its recorded flags (the openings file is not read).
fn games_words(game: &GameFlags) -> String {
    let game = GameFlags {
        openings: None,
        ..game.clone()
    };
    game.settings().map_or_else(
        |e| format!("game settings not readable: {e:#}"),
        |g| format!("{} · {}", g.rules, g.time),
    )
}

/// The verification SPRT as its folder shows it.
pub struct VerifyView {
    pub id: String,
    pub state: RunState,
    pub trace: Vec<TracePoint>,
    pub info: Option<SprtFile>,
}

/// What a tune's page and line show (see [`App::tune`]).
pub struct TuneState {
    pub progress: Progress,
    /// `tune.json`: `None` before the tune has written it. Shared: parsed once per change of
    /// the file, whoever asks ([`App::tune_file`]).
    pub file: Option<Arc<Result<TuneFile, String>>>,
    /// The verification folders, then the latest iteration folders, the latest first.
    pub runs: Vec<RunLine>,
    /// The latest verification folder.
    pub verify: Option<VerifyView>,
    /// Changes whenever `tune.json` or the verification's SPRT files do.
    pub version: u64,
}

/// A tune folder's `tune.json` as last parsed, with the length and time it had then.
#[derive(Default)]
pub struct TuneFileCache {
    stamp: Option<Stamp>,
    file: Option<Arc<Result<TuneFile, String>>>,
}

impl App {
    /// The tune folder's `tune.json`, parsed once per change of the file (its length and time)
    /// and shared by every request: a tune of many iterations writes tens of megabytes, and
    /// twenty requests parsing it each took the server past 2 GiB (#48). A request that comes
    /// while it is being parsed waits for that parse instead of starting its own.
    pub(super) fn tune_file(
        &self,
        entry: &Entry,
    ) -> (Option<Arc<Result<TuneFile, String>>>, Option<Stamp>) {
        let slot = {
            let mut tunes = self.tune_files.lock().unwrap_or_else(|p| p.into_inner());
            tunes.entry(entry.dir.clone()).or_default().clone()
        };
        let mut cached = slot.lock().unwrap_or_else(|p| p.into_inner());
        let stamp = Catalog::contained(&entry.root, &entry.dir.join(TUNE_JSON))
            .and_then(|path| std::fs::metadata(path).ok())
            .map(|m| (m.len(), m.modified().ok()));
        if stamp.is_some() && cached.stamp == stamp {
            return (cached.file.clone(), stamp);
        }
        let (file, written) = read_top_file(entry, TUNE_JSON, TuneFile::read);
        let file = file.map(Arc::new);
        // A file that changed while it was read is read again next time.
        if written == stamp {
            *cached = TuneFileCache {
                stamp,
                file: file.clone(),
            };
        }
        (file, written)
    }

    /// A tune as a whole. Finished once `tune.json` says so and the verification asked for has
    /// recorded its outcome; running while one of its run folders runs or while `tune.json` is
    /// younger than a run may stay quiet (between two iterations no folder runs); interrupted
    /// otherwise. Its games are those of its completed pairs plus the iteration in play, against
    /// the planned pairs' (the verification's are its own).
    pub(super) fn tune(&self, entry: &Entry, catalog: &Catalog, now: SystemTime) -> TuneState {
        let (file, written) = self.tune_file(entry);
        let tf = file.as_deref().and_then(|f| f.as_ref().ok());
        let mut children: Vec<(Child, &Entry)> = catalog
            .entries
            .values()
            .filter(|e| e.kind == FolderKind::Run)
            .filter_map(|e| Some((child_of(&entry.dir, &e.dir)?, e)))
            .collect();
        children.sort_by_key(|c| std::cmp::Reverse(c.0));
        let line = |e: &Entry| {
            let progress = self.progress(e, now);
            RunLine {
                id: e.id.clone(),
                kind: progress.kind.as_str().to_string(),
                progress,
            }
        };
        let verifications = children
            .iter()
            .filter(|(c, _)| matches!(c, Child::Verify(_)));
        let iterations = children
            .iter()
            .filter(|(c, _)| matches!(c, Child::Iteration(_)));
        let runs: Vec<RunLine> = verifications
            .clone()
            .chain(iterations.clone().take(LATEST_RUNS))
            .map(|(_, e)| line(e))
            .collect();
        // The iteration in play: the first without a step in tune.json.
        let steps = tf.map_or(0, |f| f.steps.len() as u64);
        let playing = children
            .iter()
            .find(|(c, _)| *c == Child::Iteration(steps))
            .map_or(0, |(_, e)| self.progress(e, now).done);
        let started = iterations
            .clone()
            .next_back()
            .and_then(|(_, e)| self.progress(e, now).started);
        let done = 2 * tf.and_then(|f| f.steps.last()).map_or(0, |s| s.pairs) + playing;
        let total = tf.map_or(0, |f| 2 * f.setup.schedule.pairs);
        let complete =
            tf.is_some_and(|f| f.finished && (f.setup.verify.is_none() || f.verify.is_some()));
        let last_write = written.and_then(|w| w.1).unwrap_or(now);
        let fresh = live::quiet_since(now, last_write) < live::MIN_QUIET;
        let state = if runs.iter().any(|r| r.progress.state == RunState::Running) {
            RunState::Running
        } else if complete {
            RunState::Finished
        } else if fresh && written.is_some() {
            RunState::Running
        } else {
            RunState::Interrupted
        };
        let (elapsed, remaining) = live::times(
            started.map(SystemTime::from),
            last_write,
            now,
            state,
            done,
            total,
        );
        let resume = (state == RunState::Interrupted).then(|| {
            let flag = if tf.is_some_and(|f| f.finished) {
                "--verify"
            } else {
                "--resume"
            };
            format!("arena tune {flag} {}", shell_word(&entry.dir))
        });
        let progress = Progress {
            kind: RunKind::TuneIteration,
            name: tf.map_or_else(String::new, |f| {
                format!(
                    "{} of {} · {} · {}",
                    count(f.setup.params.len(), "parameter", "parameters"),
                    program(&f.setup.bot),
                    games_words(&f.setup.game),
                    count(
                        f.setup.pairs_per_iteration as usize,
                        "pair per iteration",
                        "pairs per iteration"
                    )
                )
            }),
            setup: None,
            state,
            done,
            total,
            started,
            elapsed,
            remaining,
            reason: None,
            resume,
        };
        let verify = verifications.clone().next().map(|(_, e)| {
            let contained = |f: &str| Catalog::contained(&entry.root, &e.dir.join(f)).is_some();
            let state = runs
                .iter()
                .find(|r| r.id == e.id)
                .map_or(RunState::Interrupted, |r| r.progress.state);
            VerifyView {
                id: e.id.clone(),
                state,
                trace: contained(SPRT_CSV)
                    .then(|| read_trace(&e.dir).ok().flatten())
                    .flatten()
                    .unwrap_or_default(),
                info: contained(SPRT_JSON)
                    .then(|| SprtFile::read(&e.dir).ok().flatten())
                    .flatten(),
            }
        });
        let verify_stamps: Vec<_> = verifications
            .map(|(_, e)| {
                [SPRT_CSV, SPRT_JSON].map(|f| {
                    let m = std::fs::metadata(e.dir.join(f)).ok();
                    m.map(|m| (m.len(), m.modified().ok()))
                })
            })
            .collect();
        TuneState {
            progress,
            file,
            runs,
            verify,
            version: version_of((written, verify_stamps)),
        }
    }
}

/// The tune page's sections, `(element id, HTML)`: the trajectory with the parameters and the
/// latest iterations, and the verification (unless the page already shows `version` `known`),
/// then the run folders (always: their times move).
pub fn sections(t: &TuneState, known: Option<u64>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if known != Some(t.version) {
        out.push(("trajectory", trajectory(t.file.as_deref())));
        out.push(("verify", verification(t.file.as_deref(), t.verify.as_ref())));
    }
    out.push(("tune-runs", pages::run_folders(&t.runs)));
    out
}

/// The trajectory figure, the iteration and pairs against the plan, the parameters now, and the
/// latest iterations with their raw θ.
pub fn trajectory(file: Option<&Result<TuneFile, String>>) -> String {
    let mut h = String::from("<h2>Trajectory</h2>\n");
    let f = match file {
        None => {
            h.push_str("<p class=\"missing\">No tune.json yet.</p>\n");
            return h;
        }
        Some(Err(e)) => {
            let _ = writeln!(h, "<p class=\"warning\">{}</p>", escape(e));
            return h;
        }
        Some(Ok(f)) => f,
    };
    let s = &f.setup;
    let last = f.steps.last();
    let _ = writeln!(
        h,
        "<p id=\"tune-count\" data-iterations=\"{it}\" data-pairs=\"{pairs}\">Iteration \
         <b>{it}</b> of {} done · <b>{pairs}</b> of {} planned game pairs ({} per iteration){}.\
         </p>",
        s.iterations,
        s.schedule.pairs,
        s.pairs_per_iteration,
        if f.finished { " · finished" } else { "" },
        it = f.steps.len(),
        pairs = last.map_or(0, |s| s.pairs),
    );
    h.push_str(&figure(TunePlot::new(f)));
    let mut columns = vec![
        ("parameter", Align::Left),
        ("start", Align::Right),
        ("θ", Align::Right),
        ("(θ − start) / c_end", Align::Right),
        ("c_k", Align::Right),
        ("R_k", Align::Right),
        ("min", Align::Right),
        ("max", Align::Right),
        ("c_end", Align::Right),
        ("r_end", Align::Right),
    ];
    if f.tuned.is_some() {
        columns.push(("tuned", Align::Right));
    }
    let rows = s
        .params
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let theta = last
                .and_then(|l| l.theta.get(i).copied())
                .unwrap_or(p.start);
            let mut row = vec![
                p.name.clone(),
                p.format(p.start),
                format!("{theta:.4}"),
                format!("{:+.2}", p.moved(theta)),
                last.and_then(|l| l.c.get(i))
                    .map_or("–".into(), |c| format!("{c:.4}")),
                last.and_then(|l| l.r.get(i))
                    .map_or("–".into(), |r| format!("{r:.6}")),
                p.format(p.min),
                p.format(p.max),
                p.c_end.to_string(),
                p.r_end.to_string(),
            ];
            if let Some(tuned) = &f.tuned {
                row.push(tuned.get(i).map_or("–".into(), |v| p.format(*v)));
            }
            row
        })
        .collect();
    let _ = write!(
        h,
        "<p>θ after the latest iteration, with the perturbation c_k and learning rate R_k it \
         was played with{}:</p>\n<div id=\"tune-params\">{}</div>\n",
        if f.tuned.is_some() {
            "; tuned is the result a bot gets (tuned.txt)"
        } else {
            ""
        },
        pages::table(&columns, rows).html()
    );
    if !f.steps.is_empty() {
        let _ = write!(
            h,
            "<p>The latest iterations (tune.csv has every one): θ after each, raw.</p>\n\
             <table id=\"tune-steps\">\n<tr><th>iteration</th><th>pairs</th><th>result</th>"
        );
        for p in &s.params {
            let _ = write!(h, "<th>{}</th>", escape(&p.name));
        }
        h.push_str("</tr>\n");
        for step in f.steps.iter().rev().take(LATEST_STEPS) {
            let _ = write!(
                h,
                "<tr><td>{}</td><td>{}</td><td>{:+}</td>",
                step.iteration, step.pairs, step.result
            );
            for t in &step.theta {
                let _ = write!(h, "<td>{t:.4}</td>");
            }
            h.push_str("</tr>\n");
        }
        h.push_str("</table>\n");
    }
    h
}

/// The verification: its settings, its LLR path while it plays, its verdict once recorded.
pub fn verification(file: Option<&Result<TuneFile, String>>, v: Option<&VerifyView>) -> String {
    let mut h = String::from("<h2>Verification</h2>\n");
    let Some(Ok(f)) = file else {
        return h + "<p class=\"missing\">No tune.json yet.</p>\n";
    };
    match &f.setup.verify {
        None => h.push_str(
            "<p>No verification asked for (<code>--no-verify</code>); \
             <code>arena tune --verify DIR</code> plays one.</p>\n",
        ),
        Some(s) => {
            let _ = writeln!(
                h,
                "<p>An SPRT of the tuned values (test) against the start values (base), games \
                 {}: H0 {} Elo, H1 {} Elo, α = {}, β = {}, at most {} pairs.</p>",
                escape(&games_words(&s.game)),
                s.elo0,
                s.elo1,
                s.alpha,
                s.beta,
                s.max_pairs
            );
        }
    }
    if let Some(o) = &f.verify {
        let words = match o.verdict.as_str() {
            "H1" => "Verified: H1 accepted, the tuned values are stronger",
            "H0" => "NOT verified: H0 accepted, the tuned values are not stronger",
            _ => "NOT verified: inconclusive, the maximum number of pairs was reached",
        };
        let elo = match (o.elo, o.elo_error) {
            (Some(e), Some(err)) => format!("{e:+.1} ± {err:.1} Elo (95 %)"),
            _ => "no Elo (no pairs)".to_string(),
        };
        let _ = writeln!(
            h,
            "<p id=\"tune-verdict\" data-verdict=\"{}\"><b>{words}</b>: {elo} after {} pairs, \
             LLR {:+.3} [{:.3}, {:.3}] ({}).</p>",
            escape(&o.verdict),
            o.pairs,
            o.llr,
            o.lower,
            o.upper,
            escape(&o.dir)
        );
    }
    match v {
        Some(v) => {
            let _ = writeln!(
                h,
                "<p>Its games: <a href=\"/run?id={}\">{}</a> ({}).</p>",
                escape(&pages::query(&v.id)),
                escape(&v.id),
                v.state.as_str()
            );
            if !v.trace.is_empty() {
                h.push_str(&figure(SprtPlot::new(v.trace.clone(), v.info.clone())));
            }
        }
        None if f.setup.verify.is_some() => {
            h.push_str("<p class=\"missing\">It starts after the last iteration.</p>\n");
        }
        None => {}
    }
    h
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_tunes_own_folders_are_its_iterations_and_verifications() {
        let t = Path::new("/r/tune");
        let c = |d: &str| child_of(t, Path::new(d));
        assert_eq!(c("/r/tune/iter-0007"), Some(Child::Iteration(7)));
        assert_eq!(c("/r/tune/iter-12345"), Some(Child::Iteration(12345)));
        assert_eq!(c("/r/tune/verify"), Some(Child::Verify(1)));
        assert_eq!(c("/r/tune/verify-3"), Some(Child::Verify(3)));
        for not in [
            "/r/other/iter-0001",
            "/r/tune/sub/iter-0001",
            "/r/tune/iter-x",
            "/r/tune/verifyx",
            "/r/tune/verify-",
            "/r/tune",
        ] {
            assert_eq!(c(not), None, "{not}");
        }
    }
}
