//! `arena serve`: a local, read-only web dashboard over run folders (docs/dashboard.md).
//!
//! It shows every run folder under the folders it was given, from the files the runs write
//! ([`crate::run_folder`] reads them), whoever started the runs and wherever. Routes are thin:
//! [`catalog`] finds the folders, [`live`] keeps each one's state between requests (reading a
//! growing folder only where it grew), [`pages`] renders HTML with the report's tables and plots,
//! and the game viewer's data is [`crate::report::viewer`]'s.
//!
//! Safety: it binds to loopback unless told otherwise, answers only GET (and HEAD), refuses a
//! request whose `Host` is not a loopback name while bound to loopback (DNS rebinding), names runs
//! by catalog ids rather than paths, reads only files whose real path is inside the given folders,
//! escapes every text from a folder, and sends a Content-Security-Policy that allows only its own
//! script and style files. It never starts, stops or writes anything.

pub mod catalog;
pub mod live;
pub mod pages;
pub mod tune;

use std::collections::HashMap;
use std::net::SocketAddr;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime};

use anyhow::{bail, Context, Result};
use axum::extract::{Query, Request, State};
use axum::http::{header, HeaderMap, HeaderValue, StatusCode};
use axum::middleware::{self, Next};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use axum::{Json, Router};
use serde::Deserialize;

use self::catalog::{Catalog, Entry, FolderKind};
use self::live::{Progress, RunCache, RunState, Sections};
use self::pages::RunLine;
use crate::calibrate::Calibration;
use crate::report::viewer::{GameView, VIEWER_CSS, VIEWER_JS};
use crate::run_folder::calibration::{
    calibration_runs, read_calibration, read_matchmaking, CALIBRATION_JSON, MATCHMAKING_JSON,
};
use crate::run_folder::logs::read_log_tail;
use crate::run_folder::RunKind;

/// The policy every response carries: nothing from elsewhere, no inline script or style, no
/// framing, forms only to this server.
pub const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data:; connect-src 'self'; form-action 'self'; base-uri 'none'; frame-ancestors 'none'";

/// At most this much of a bot's log is shown (its end).
const LOG_TAIL: u64 = 256 * 1024;
/// The folders are walked again at most this often.
const RESCAN_EVERY: Duration = Duration::from_secs(2);

const STYLE_CSS: &str = include_str!("assets/style.css");
const APP_JS: &str = include_str!("assets/app.js");

/// What `arena serve` was asked to do.
#[derive(Clone, Debug)]
pub struct ServeOptions {
    pub roots: Vec<PathBuf>,
    pub bind: SocketAddr,
}

/// The server's state: the catalog of folders and one cache per run folder.
pub struct App {
    roots: Vec<PathBuf>,
    /// Bound to a loopback address: only loopback `Host` names are answered.
    loopback: bool,
    catalog: Mutex<(Option<Instant>, Arc<Catalog>)>,
    runs: Mutex<HashMap<String, Arc<Mutex<RunCache>>>>,
    /// Each tune folder's `tune.json`, parsed once per change ([`App::tune_file`]).
    tune_files: Mutex<HashMap<PathBuf, Arc<Mutex<tune::TuneFileCache>>>>,
    /// Pages and API answers built at once: each may read and render a large folder, so the
    /// memory twenty requests at once take is that of a few ([`WORKERS`]).
    work: tokio::sync::Semaphore,
}

/// At most this many pages and API answers are built at once; the other requests wait.
const WORKERS: usize = 2;

impl App {
    pub fn new(roots: Vec<PathBuf>, loopback: bool) -> App {
        App {
            roots,
            loopback,
            catalog: Mutex::new((None, Arc::new(Catalog::default()))),
            runs: Mutex::new(HashMap::new()),
            tune_files: Mutex::new(HashMap::new()),
            work: tokio::sync::Semaphore::new(WORKERS),
        }
    }

    /// The catalog, walked again if it is older than [`RESCAN_EVERY`] (or if `force`).
    fn catalog(&self, force: bool) -> Arc<Catalog> {
        let mut c = self.catalog.lock().unwrap_or_else(|p| p.into_inner());
        if force || c.0.map_or(true, |t| t.elapsed() >= RESCAN_EVERY) {
            *c = (Some(Instant::now()), Arc::new(Catalog::scan(&self.roots)));
        }
        c.1.clone()
    }

    /// The folder with this id (a run started since the last walk is found by walking again).
    fn entry(&self, id: &str) -> Option<Entry> {
        if let Some(e) = self.catalog(false).get(id) {
            return Some(e.clone());
        }
        self.catalog(true).get(id).cloned()
    }

    fn cache(&self, entry: &Entry) -> Arc<Mutex<RunCache>> {
        let mut runs = self.runs.lock().unwrap_or_else(|p| p.into_inner());
        runs.entry(entry.id.clone())
            .or_insert_with(|| {
                Arc::new(Mutex::new(RunCache::new(
                    entry.dir.clone(),
                    entry.root.clone(),
                )))
            })
            .clone()
    }

    fn progress(&self, entry: &Entry, now: SystemTime) -> Progress {
        let cache = self.cache(entry);
        let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
        cache.refresh();
        cache.progress(now)
    }

    /// The runs page's lines, newest first.
    fn lines(&self) -> Vec<RunLine> {
        let now = SystemTime::now();
        let catalog = self.catalog(false);
        let tunes: Vec<&std::path::Path> = catalog
            .entries
            .values()
            .filter(|e| e.kind == FolderKind::Tune)
            .map(|e| e.dir.as_path())
            .collect();
        let mut lines: Vec<RunLine> = catalog
            .entries
            .values()
            .filter(|e| !tune::is_iteration(&tunes, e))
            .map(|e| match e.kind {
                FolderKind::Run => {
                    let progress = self.progress(e, now);
                    RunLine {
                        id: e.id.clone(),
                        kind: progress.kind.as_str().to_string(),
                        progress,
                    }
                }
                FolderKind::Calibration => RunLine {
                    id: e.id.clone(),
                    kind: "calibration".to_string(),
                    progress: self.calibration(e, &catalog, now).progress,
                },
                FolderKind::Tune => RunLine {
                    id: e.id.clone(),
                    kind: "tune".to_string(),
                    progress: self.tune(e, &catalog, now).progress,
                },
            })
            .collect();
        lines.sort_by(|a, b| {
            b.progress
                .started
                .cmp(&a.progress.started)
                .then(a.id.cmp(&b.id))
        });
        lines
    }

    /// The run folders of a calibration folder, as catalog entries.
    fn calibration_steps<'a>(&self, entry: &Entry, catalog: &'a Catalog) -> Vec<&'a Entry> {
        let dirs = calibration_runs(&entry.dir);
        catalog
            .entries
            .values()
            .filter(|e| e.kind == FolderKind::Run && dirs.iter().any(|d| d == &e.dir))
            .collect()
    }

    /// A calibration as a whole, from its `calibration.json` (written after every step) and its
    /// run folders. Finished once the file says so; running while one of its run folders is, or
    /// while the file is younger than a run may stay quiet (between two steps no folder runs);
    /// interrupted otherwise. Its games are the steps' (the reference pool's round robin has its
    /// own line), counted against the budget (`--max-games`) once the first step has written the
    /// file; the remaining time is the time per game of the steps so far times the games left to
    /// the budget (at most that: a calibration stops as soon as every target converges).
    fn calibration(&self, entry: &Entry, catalog: &Catalog, now: SystemTime) -> CalibrationState {
        let runs: Vec<RunLine> = self
            .calibration_steps(entry, catalog)
            .into_iter()
            .map(|e| {
                let progress = self.progress(e, now);
                RunLine {
                    id: e.id.clone(),
                    kind: progress.kind.as_str().to_string(),
                    progress,
                }
            })
            .collect();
        let (cal, written) = read_top_file(entry, CALIBRATION_JSON, read_calibration);
        let so_far = cal.as_ref().and_then(|c| c.as_ref().ok());
        let fresh = written
            .and_then(|(_, t)| now.duration_since(t?).ok())
            .is_some_and(|age| age < live::MIN_QUIET);
        let state = if so_far.is_some_and(|c| c.finished) {
            RunState::Finished
        } else if fresh || runs.iter().any(|r| r.progress.state == RunState::Running) {
            RunState::Running
        } else {
            RunState::Interrupted
        };
        let steps: Vec<&Progress> = runs
            .iter()
            .map(|r| &r.progress)
            .filter(|p| p.kind == RunKind::CalibrationStep)
            .collect();
        let done: u64 = steps.iter().map(|p| p.done).sum();
        let budget = so_far.map_or(0, |c| c.settings.max_games as u64);
        let stepping: Duration = steps.iter().filter_map(|p| p.elapsed).sum();
        let remaining = (state == RunState::Running && done > 0 && budget > 0)
            .then(|| stepping.mul_f64(budget.saturating_sub(done) as f64 / done as f64));
        let progress = Progress {
            kind: RunKind::CalibrationStep,
            name: pages::count(steps.len(), "step", "steps"),
            setup: None,
            state,
            done,
            total: if state == RunState::Finished {
                done
            } else {
                budget
            },
            started: runs.iter().filter_map(|r| r.progress.started).min(),
            elapsed: Some(runs.iter().filter_map(|r| r.progress.elapsed).sum()),
            remaining,
            reason: None,
            resume: None,
        };
        // The curve changes only when the file does: its length and time are its version.
        let version = written.map_or(0, version_of);
        CalibrationState {
            progress,
            runs,
            cal,
            version,
        }
    }
}

/// The file `name` of a calibration's or a tune's top folder, read by `read` if it lies inside
/// the served folder, with its length and time (`None` when missing or a link out of it).
fn read_top_file<T>(
    entry: &Entry,
    name: &str,
    read: impl FnOnce(&std::path::Path) -> Result<Option<T>>,
) -> (Option<Result<T, String>>, Option<Stamp>) {
    let path = entry.dir.join(name);
    match Catalog::contained(&entry.root, &path) {
        Some(path) => (
            read(&entry.dir).map_err(|e| format!("{e:#}")).transpose(),
            std::fs::metadata(path)
                .ok()
                .map(|m| (m.len(), m.modified().ok())),
        ),
        None if path.exists() => (
            Some(Err(format!(
                "{name} leads out of the served folder: not read"
            ))),
            None,
        ),
        None => (None, None),
    }
}

/// A file's length and modification time.
pub(crate) type Stamp = (u64, Option<SystemTime>);

/// A version number for the page from what its sections show (53 bits: the page keeps it as a
/// JavaScript number).
fn version_of(what: impl std::hash::Hash) -> u64 {
    let mut h = std::collections::hash_map::DefaultHasher::new();
    what.hash(&mut h);
    std::hash::Hasher::finish(&h) & ((1 << 53) - 1)
}

/// What a calibration's page and line show (see [`App::calibration`]).
struct CalibrationState {
    progress: Progress,
    /// Its run folders: the reference pool's round robin, the steps.
    runs: Vec<RunLine>,
    /// `calibration.json`: `None` before the first step has written it.
    cal: Option<Result<Calibration, String>>,
    /// Changes whenever `calibration.json` does.
    version: u64,
}

#[derive(Deserialize)]
struct RunQuery {
    id: String,
    /// The version the page already shows (`/api/run`).
    v: Option<u64>,
}

#[derive(Deserialize)]
struct GameQuery {
    run: String,
    id: u64,
}

#[derive(Deserialize)]
struct LogQuery {
    run: String,
    player: String,
}

fn html(status: StatusCode, body: String) -> Response {
    (
        status,
        [(header::CONTENT_TYPE, "text/html; charset=utf-8")],
        body,
    )
        .into_response()
}

fn not_found(what: &str) -> Response {
    html(StatusCode::NOT_FOUND, pages::not_found(what))
}

/// Runs `f` on the blocking pool (it reads files and may rate thousands of games), at most
/// [`WORKERS`] at once.
async fn blocking(app: Arc<App>, f: impl FnOnce(&App) -> Response + Send + 'static) -> Response {
    let Ok(_permit) = app.work.acquire().await else {
        return (StatusCode::SERVICE_UNAVAILABLE, "shutting down").into_response();
    };
    let worker = app.clone();
    tokio::task::spawn_blocking(move || f(&worker))
        .await
        .unwrap_or_else(|_| (StatusCode::INTERNAL_SERVER_ERROR, "internal error").into_response())
}

async fn index(State(app): State<Arc<App>>) -> Response {
    blocking(app, |app| {
        let roots: Vec<String> = app.roots.iter().map(|r| r.display().to_string()).collect();
        html(
            StatusCode::OK,
            pages::runs_page(&app.lines(), &roots.join(", ")),
        )
    })
    .await
}

async fn api_runs(State(app): State<Arc<App>>) -> Response {
    blocking(app, |app| {
        Json(serde_json::json!({ "html": pages::runs_table(&app.lines()) })).into_response()
    })
    .await
}

/// The run page's progress line, its sections (unless the client already shows version
/// `known`), their version and the folder's error.
fn run_state(
    app: &App,
    entry: &Entry,
    known: Option<u64>,
) -> (Progress, Option<Sections>, u64, Option<String>) {
    let cache = app.cache(entry);
    let mut cache = cache.lock().unwrap_or_else(|p| p.into_inner());
    let (progress, version) = cache.poll(SystemTime::now());
    let error = cache.error().map(str::to_string);
    if known == Some(version) {
        return (progress, None, version, error);
    }
    let sections = match &cache.rendered {
        Some((v, sections)) if *v == version => sections.clone(),
        _ => {
            let sections = Arc::new(pages::run_sections(
                &entry.id,
                &cache.view(progress.clone()),
            ));
            cache.rendered = Some((version, sections.clone()));
            sections
        }
    };
    (progress, Some(sections), version, error)
}

async fn run_page(State(app): State<Arc<App>>, Query(q): Query<RunQuery>) -> Response {
    blocking(app, move |app| {
        let Some(entry) = app.entry(&q.id) else {
            return not_found(&format!("No run folder `{}` here.", q.id));
        };
        if entry.kind == FolderKind::Calibration {
            let c = app.calibration(&entry, &app.catalog(false), SystemTime::now());
            let mut sections = vec![("curve", pages::calibration_curve(c.cal.as_ref()))];
            // On a human scale, once it has ended: the matchmaking table and its figure.
            let matchmaking = entry.dir.join(MATCHMAKING_JSON);
            if Catalog::contained(&entry.root, &matchmaking).is_some() {
                if let Ok(Some(file)) = read_matchmaking(&entry.dir) {
                    sections.push(("matchmaking", pages::calibration_matchmaking(&file)));
                }
            }
            sections.push(("steps", pages::run_folders(&c.runs)));
            return html(
                StatusCode::OK,
                pages::run_page(
                    &entry.id,
                    "calibration",
                    &c.progress,
                    &sections,
                    c.version,
                    None,
                ),
            );
        }
        if entry.kind == FolderKind::Tune {
            let t = app.tune(&entry, &app.catalog(false), SystemTime::now());
            return html(
                StatusCode::OK,
                pages::run_page(
                    &entry.id,
                    "tune",
                    &t.progress,
                    &tune::sections(&t, None),
                    t.version,
                    None,
                ),
            );
        }
        let (progress, sections, version, error) = run_state(app, &entry, None);
        html(
            StatusCode::OK,
            pages::run_page(
                &entry.id,
                progress.kind.as_str(),
                &progress,
                sections.as_deref().map_or(&[][..], Vec::as_slice),
                version,
                error.as_deref(),
            ),
        )
    })
    .await
}

async fn api_run(State(app): State<Arc<App>>, Query(q): Query<RunQuery>) -> Response {
    blocking(app, move |app| {
        let Some(entry) = app.entry(&q.id) else {
            return (
                StatusCode::NOT_FOUND,
                Json(serde_json::json!({"error": "no such run"})),
            )
                .into_response();
        };
        match entry.kind {
            FolderKind::Calibration => return api_calibration(app, &entry, q.v),
            FolderKind::Tune => return api_tune(app, &entry, q.v),
            FolderKind::Run => {}
        }
        let (progress, sections, version, _) = run_state(app, &entry, q.v);
        Json(serde_json::json!({
            "version": version,
            "games": progress.done,
            "state": progress.state.as_str(),
            "reason": progress.reason,
            "progress": pages::progress_html(progress.kind.as_str(), &progress),
            "sections": sections.as_deref(),
        }))
        .into_response()
    })
    .await
}

/// `/api/run` for a calibration: the curve section only when `calibration.json` changed since
/// version `known`, the run folders' table always (its times move every second), and the
/// number of knob values measured so far (`points`).
fn api_calibration(app: &App, entry: &Entry, known: Option<u64>) -> Response {
    let c = app.calibration(entry, &app.catalog(false), SystemTime::now());
    let mut sections = Vec::new();
    if known != Some(c.version) {
        sections.push(("curve", pages::calibration_curve(c.cal.as_ref())));
    }
    sections.push(("steps", pages::run_folders(&c.runs)));
    let points = match &c.cal {
        Some(Ok(cal)) => cal.points.len(),
        _ => 0,
    };
    Json(serde_json::json!({
        "version": c.version,
        "games": c.progress.done,
        "state": c.progress.state.as_str(),
        "progress": pages::progress_html("calibration", &c.progress),
        "sections": sections,
        "points": points,
    }))
    .into_response()
}

/// `/api/run` for a tune: its sections when `tune.json` or the verification changed since
/// version `known`, its run folders' table always (its times move every second), and the
/// iterations and pairs done so far (`iterations`, `pairs`).
fn api_tune(app: &App, entry: &Entry, known: Option<u64>) -> Response {
    let t = app.tune(entry, &app.catalog(false), SystemTime::now());
    let sections = tune::sections(&t, known);
    let file = t.file.as_deref().and_then(|f| f.as_ref().ok());
    Json(serde_json::json!({
        "version": t.version,
        "games": t.progress.done,
        "state": t.progress.state.as_str(),
        "progress": pages::progress_html("tune", &t.progress),
        "sections": sections,
        "iterations": file.map_or(0, |f| f.steps.len()),
        "pairs": file.and_then(|f| f.steps.last()).map_or(0, |s| s.pairs),
    }))
    .into_response()
}

/// The game's positions, or a response saying why there are none.
fn game_view(app: &App, q: &GameQuery) -> Result<(Entry, GameView), Box<Response>> {
    let entry = app
        .entry(&q.run)
        .filter(|e| e.kind == FolderKind::Run)
        .ok_or_else(|| Box::new(not_found(&format!("No run folder `{}` here.", q.run))))?;
    let cache = app.cache(&entry);
    let record = cache
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .record(q.id)
        .ok_or_else(|| not_found(&format!("{} has no game {} in games.jsonl.", q.run, q.id)))?
        .map_err(|e| {
            html(
                StatusCode::INTERNAL_SERVER_ERROR,
                pages::not_found(&format!("{e:#}")),
            )
        })?;
    Ok((entry, GameView::new(&record)))
}

async fn game_page(State(app): State<Arc<App>>, Query(q): Query<GameQuery>) -> Response {
    blocking(app, move |app| match game_view(app, &q) {
        Ok((entry, view)) => html(StatusCode::OK, pages::viewer_page(&entry.id, &view)),
        Err(response) => *response,
    })
    .await
}

async fn api_game(State(app): State<Arc<App>>, Query(q): Query<GameQuery>) -> Response {
    blocking(app, move |app| match game_view(app, &q) {
        Ok((_, view)) => Json(view).into_response(),
        Err(response) => *response,
    })
    .await
}

async fn log_page(State(app): State<Arc<App>>, Query(q): Query<LogQuery>) -> Response {
    blocking(app, move |app| {
        let Some(entry) = app.entry(&q.run).filter(|e| e.kind == FolderKind::Run) else {
            return not_found(&format!("No run folder `{}` here.", q.run));
        };
        let cache = app.cache(&entry);
        let path = cache
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .log_path(&q.player);
        match path.map(|p| read_log_tail(&p, LOG_TAIL)) {
            Some(Ok((text, cut))) => html(
                StatusCode::OK,
                pages::log_page(&entry.id, &q.player, &text, cut),
            ),
            _ => not_found(&format!("{} has no stderr log for `{}`.", q.run, q.player)),
        }
    })
    .await
}

fn asset(content_type: &'static str, body: String) -> Response {
    ([(header::CONTENT_TYPE, content_type)], body).into_response()
}

async fn style() -> Response {
    asset(
        "text/css; charset=utf-8",
        format!("{STYLE_CSS}{VIEWER_CSS}"),
    )
}

async fn app_js() -> Response {
    asset("text/javascript; charset=utf-8", APP_JS.to_string())
}

async fn viewer_js() -> Response {
    asset("text/javascript; charset=utf-8", VIEWER_JS.to_string())
}

async fn fallback() -> Response {
    not_found("No such page.")
}

/// Whether a `Host` header names this machine's loopback (or is absent).
fn loopback_host(headers: &HeaderMap) -> bool {
    let Some(host) = headers.get(header::HOST) else {
        return true;
    };
    let Ok(host) = host.to_str() else {
        return false;
    };
    let name = if let Some(rest) = host.strip_prefix('[') {
        rest.split(']').next().unwrap_or("")
    } else {
        host.rsplit_once(':').map_or(host, |(h, _)| h)
    };
    name.eq_ignore_ascii_case("localhost")
        || name
            .parse::<std::net::IpAddr>()
            .is_ok_and(|ip| ip.is_loopback())
}

/// Refuses foreign `Host` names on loopback, and adds the security headers to every response.
async fn guard(State(app): State<Arc<App>>, req: Request, next: Next) -> Response {
    let mut response = if app.loopback && !loopback_host(req.headers()) {
        (
            StatusCode::MISDIRECTED_REQUEST,
            "this dashboard answers only to localhost names",
        )
            .into_response()
    } else {
        next.run(req).await
    };
    let h = response.headers_mut();
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CSP),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(header::X_FRAME_OPTIONS, HeaderValue::from_static("DENY"));
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    response
}

/// Every route (GET only: other methods get 405 Method Not Allowed).
pub fn router(app: Arc<App>) -> Router {
    Router::new()
        .route("/", get(index))
        .route("/run", get(run_page))
        .route("/game", get(game_page))
        .route("/log", get(log_page))
        .route("/api/runs", get(api_runs))
        .route("/api/run", get(api_run))
        .route("/api/game", get(api_game))
        .route("/static/style.css", get(style))
        .route("/static/app.js", get(app_js))
        .route("/static/viewer.js", get(viewer_js))
        .fallback(fallback)
        .layer(middleware::from_fn_with_state(app.clone(), guard))
        .with_state(app)
}

/// Binds, calls `ready` with the address (the port may have been 0), and serves until Ctrl-C.
pub async fn serve(opts: ServeOptions, ready: impl FnOnce(SocketAddr)) -> Result<()> {
    let listener = match tokio::net::TcpListener::bind(opts.bind).await {
        Err(e) if e.kind() == std::io::ErrorKind::AddrInUse => bail!(
            "cannot listen on {}: {} is in use (another `arena serve`?): stop that one, or pick \
             another port (--bind {}:0 takes any free one and prints it)",
            opts.bind,
            opts.bind,
            match opts.bind.ip() {
                std::net::IpAddr::V6(ip) => format!("[{ip}]"),
                ip => ip.to_string(),
            }
        ),
        bound => bound.with_context(|| format!("cannot listen on {}", opts.bind))?,
    };
    let addr = listener.local_addr()?;
    ready(addr);
    let app = Arc::new(App::new(opts.roots, addr.ip().is_loopback()));
    axum::serve(listener, router(app))
        .with_graceful_shutdown(async {
            let _ = tokio::signal::ctrl_c().await;
        })
        .await
        .context("the server stopped")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_host_names() {
        let host = |h: &str| {
            let mut m = HeaderMap::new();
            m.insert(header::HOST, HeaderValue::from_str(h).unwrap());
            loopback_host(&m)
        };
        for ok in [
            "localhost:8080",
            "127.0.0.1:8080",
            "[::1]:8080",
            "LOCALHOST",
            "127.0.0.2",
        ] {
            assert!(host(ok), "{ok}");
        }
        for bad in [
            "evil.example:8080",
            "192.168.1.2:8080",
            "localhost.evil.example",
            "[::2]:80",
        ] {
            assert!(!host(bad), "{bad}");
        }
        assert!(loopback_host(&HeaderMap::new()));
    }
}
