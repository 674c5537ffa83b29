//! The dashboard's pages, as HTML strings: pure functions of what [`super::live`] computed.
//! Tables are the report's [`Table`] model and figures the report's plots, drawn as inline SVG;
//! every text from a folder (names, details, log lines, paths) goes through [`escape`]. The pages
//! load only `/static/` files and carry no inline script or style (the Content-Security-Policy
//! forbids both).

use std::fmt::Write as _;
use std::time::Duration;

use super::live::{Progress, RunSetup, RunState, RunView};
use crate::calibrate::Calibration;
use crate::report::calibration::outcome;
use crate::report::html::{first_move_html, inline_svg, pairwise_html};
use crate::report::plots::{
    render_svg, CalibrationPlot, MatchmakingPlot, MatrixPlot, Plot, PlotError, RatingsPlot,
    SprtPlot,
};
use crate::report::rate::interval_words;
use crate::report::tables::{
    gate_table, gate_words, ratings_table, terminations_table, Align, Column, Table,
};
use crate::report::text::escape_html as escape;
use crate::report::viewer::{json_for_script, GameView};
use crate::run_folder::calibration::MatchmakingFile;

/// A whole page: the shared style sheet and script, `body` inside. The empty icon keeps the
/// browser from asking for `/favicon.ico` (a 404 in its console).
pub fn layout(title: &str, body: &str) -> String {
    format!(
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} – arena serve</title>\n<link rel=\"stylesheet\" href=\"/static/style.css\">\n\
         <link rel=\"icon\" href=\"data:,\">\n\
         <script src=\"/static/app.js\" defer></script>\n</head>\n<body>\n\
         <nav><a href=\"/\">all runs</a></nav>\n{body}</body>\n</html>\n",
        escape(title)
    )
}

/// `1 h 02 min`, `3 min 05 s`, `42 s`.
pub fn duration(d: Duration) -> String {
    let s = d.as_secs();
    match s {
        0..=59 => format!("{s} s"),
        60..=3599 => format!("{} min {:02} s", s / 60, s % 60),
        _ => format!("{} h {:02} min", s / 3600, s / 60 % 60),
    }
}

fn opt_duration(d: Option<Duration>) -> String {
    d.map_or_else(|| "–".to_string(), duration)
}

/// A URL query value (the run ids hold `/` and `:`).
pub fn query(value: &str) -> String {
    let mut out = String::new();
    for b in value.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            let _ = write!(out, "%{b:02X}");
        }
    }
    out
}

/// One line of the runs page.
pub struct RunLine {
    pub id: String,
    /// `tournament`, `sprt`, ..., or `calibration` for a calibration's top folder.
    pub kind: String,
    pub progress: Progress,
}

/// What a run plays, in a line: `mcts, random · kalah · 40 ms a sow · 10 pairs per encounter`
/// (at most four names, then how many more; a gauntlet names its challengers).
pub fn setup_words(s: &RunSetup) -> String {
    const NAMES: usize = 4;
    let mut players = s
        .players
        .iter()
        .take(NAMES)
        .cloned()
        .collect::<Vec<_>>()
        .join(", ");
    if s.players.len() > NAMES {
        let _ = write!(players, " and {} more", s.players.len() - NAMES);
    }
    if !s.challengers.is_empty() {
        let _ = write!(players, " (gauntlet of {})", s.challengers.join(", "));
    }
    format!(
        "{players} · {} · {} · {}",
        s.rules,
        s.time,
        count(
            s.pairs as usize,
            "pair per encounter",
            "pairs per encounter"
        )
    )
}

fn state_cell(state: RunState) -> String {
    format!("<span class=\"state {s}\">{s}</span>", s = state.as_str())
}

/// The runs table (the runs page polls it).
pub fn runs_table(lines: &[RunLine]) -> String {
    if lines.is_empty() {
        return "<p class=\"missing\">No run folders here yet: start one with \
                <code>arena run</code>.</p>\n"
            .to_string();
    }
    let mut h = String::from(
        "<table id=\"runs-table\">\n<tr><th class=\"name\">run</th><th class=\"name\">kind</th>\
         <th class=\"name\">state</th><th>games</th><th class=\"name\">started</th>\
         <th>elapsed</th><th>remaining</th></tr>\n",
    );
    for l in lines {
        let p = &l.progress;
        let _ = writeln!(
            h,
            "<tr data-run=\"{}\"><td class=\"name\"><a href=\"/run?id={}\">{}</a>{}</td>\
             <td class=\"name\">{}</td><td class=\"name\">{}</td><td>{} / {}</td>\
             <td class=\"name\">{}</td><td>{}</td><td>{}</td></tr>",
            escape(&l.id),
            escape(&query(&l.id)),
            escape(&l.id),
            if p.name.is_empty() {
                String::new()
            } else {
                format!(" <span class=\"dim\">({})</span>", escape(&p.name))
            } + &p.setup.as_ref().map_or(String::new(), |s| format!(
                "<br><span class=\"setup dim\">{}</span>",
                escape(&setup_words(s))
            )),
            escape(&l.kind),
            state_cell(p.state),
            p.done,
            if p.total > 0 {
                p.total.to_string()
            } else {
                "–".to_string()
            },
            p.started.map_or("–".to_string(), |s| s
                .format("%Y-%m-%d %H:%M")
                .to_string()),
            opt_duration(p.elapsed),
            opt_duration(p.remaining),
        );
        if let Some(cmd) = &p.resume {
            let _ = writeln!(
                h,
                "<tr class=\"resume\"><td colspan=\"7\">resume: <code>{}</code></td></tr>",
                escape(cmd)
            );
        }
    }
    h.push_str("</table>\n");
    h
}

pub fn runs_page(lines: &[RunLine], roots: &str) -> String {
    layout(
        "runs",
        &format!(
            "<h1>Runs</h1>\n<p>Every run folder under {}, the latest start first; read-only, \
             this page refreshes itself.</p>\n<div id=\"runs\" data-poll=\"/api/runs\">{}</div>\n",
            escape(roots),
            runs_table(lines)
        ),
    )
}

/// The header of a run page: kind (`p.kind`'s word, or `calibration` for a calibration's top
/// folder), state, games, times, the resume command.
pub fn progress_html(kind: &str, p: &Progress) -> String {
    let mut h = format!(
        "<p class=\"progress\">{} · {} · <b id=\"games-done\">{}</b> of {} games · started {} · \
         elapsed {} · remaining {}</p>\n",
        escape(kind),
        state_cell(p.state),
        p.done,
        p.total,
        p.started.map_or("–".to_string(), |s| s
            .format("%Y-%m-%d %H:%M:%S")
            .to_string()),
        opt_duration(p.elapsed),
        if p.state == RunState::Running {
            opt_duration(p.remaining)
        } else {
            "–".to_string()
        },
    );
    if let Some(setup) = &p.setup {
        let _ = writeln!(h, "<p class=\"setup\">{}</p>", escape(&setup_words(setup)));
    }
    if let Some(reason) = &p.reason {
        let _ = writeln!(h, "<p class=\"reason\">{}</p>", escape(&sentence(reason)));
    }
    if let Some(cmd) = &p.resume {
        let _ = writeln!(
            h,
            "<p class=\"resume\">Interrupted with games missing. Finish it with:</p>\n\
             <pre>{}</pre>",
            escape(cmd)
        );
    } else if p.state == RunState::Interrupted {
        h.push_str(
            "<p class=\"resume\">Interrupted with games missing; this kind of run cannot be \
             resumed: start it again.</p>\n",
        );
    }
    h
}

/// `reason` as a sentence: a capital first letter and a full stop.
fn sentence(reason: &str) -> String {
    let mut chars = reason.chars();
    let first = chars.next().map(|c| c.to_uppercase().collect::<String>());
    let mut text = first.unwrap_or_default() + chars.as_str();
    if !text.ends_with('.') {
        text.push('.');
    }
    text
}

/// A figure as inline SVG with its caption, or a line saying why it was not drawn.
pub fn figure<P: Plot>(plot: Result<P, PlotError>) -> String {
    match plot.and_then(|p| render_svg(&p).map(|svg| (p.caption(), svg))) {
        Ok((caption, svg)) => format!(
            "<figure>{}<figcaption>{}</figcaption></figure>\n",
            inline_svg(&svg),
            escape(&caption)
        ),
        Err(why) => format!(
            "<p class=\"missing\">Not drawn: {}</p>\n",
            escape(&why.to_string())
        ),
    }
}

/// A [`Table`] of these columns and rows, without notes.
pub fn table(columns: &[(&'static str, Align)], rows: Vec<Vec<String>>) -> Table {
    Table {
        columns: columns
            .iter()
            .map(|&(title, align)| Column { title, align })
            .collect(),
        rows,
        notes: Vec::new(),
    }
}

/// The sections of a run page, `(element id, HTML)`, in page order.
pub fn run_sections(id: &str, v: &RunView<'_>) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    let mut ratings = String::from("<h2>Ratings</h2>\n");
    match v.rated.map(|r| &r.summary) {
        None => ratings.push_str("<p class=\"missing\">No games yet.</p>\n"),
        Some(Err(e)) => {
            let _ = writeln!(ratings, "<p class=\"missing\">Not rated: {}</p>", escape(e));
        }
        Some(Ok(s)) => {
            let _ = writeln!(
                ratings,
                "<p>{} games; Elo with {}, anchored at {}{}.</p>",
                s.games,
                escape(&interval_words(s)),
                escape(&s.anchor),
                if v.progress.state == RunState::Running {
                    " (interim: the bootstrap runs once the run has finished)"
                } else {
                    ""
                }
            );
            ratings.push_str(&ratings_table(&s.ratings, &s.random_moves).html());
            ratings.push_str(&first_move_html(s));
            ratings.push_str(&figure(RatingsPlot::new(s, None)));
            for w in &s.warnings {
                let _ = writeln!(ratings, "<p class=\"warning\">{}</p>", escape(w));
            }
        }
    }
    out.push(("ratings", ratings));
    if let Some(Ok(s)) = v.rated.map(|r| &r.summary) {
        out.push((
            "pairwise",
            format!("<h2>Pairwise</h2>\n{}", pairwise_html(s)),
        ));
        out.push((
            "matrix",
            format!("<h2>Score matrix</h2>\n{}", figure(MatrixPlot::new(s))),
        ));
    }
    if let Some((trace, info)) = &v.sprt {
        // The one estimate of this SPRT: `sprt.json`'s once it ended, the trace's last meanwhile.
        let words = match info {
            Some(f) => f.estimate_words(),
            None => crate::run_folder::sprt::estimate_words(
                trace.last().and_then(|p| p.estimate()).as_ref(),
                "",
            ),
        };
        out.push((
            "sprt",
            format!(
                "<h2>SPRT</h2>\n<p id=\"sprt-estimate\">{}</p>\n{}",
                escape(&words),
                figure(SprtPlot::new(trace.clone(), info.clone()))
            ),
        ));
    }
    if let Some(gate) = &v.gate {
        out.push((
            "gate",
            format!(
                "<h2>Gate</h2>\n<p><b>{}</b> (exit code {}).</p>\n{}",
                escape(gate_words(gate.verdict)),
                gate.exit_code,
                gate_table(gate).html()
            ),
        ));
    }
    out.push(("ends", ends(id, v)));
    let think = table(
        &[
            ("player", Align::Left),
            ("sows", Align::Right),
            ("median ms", Align::Right),
            ("mean ms", Align::Right),
            ("75% ms", Align::Right),
            ("max ms", Align::Right),
        ],
        v.think
            .iter()
            .map(|(name, s)| {
                vec![
                    name.clone(),
                    s.n.to_string(),
                    format!("{:.0}", s.median),
                    format!("{:.1}", s.mean),
                    format!("{:.0}", s.q3),
                    format!("{:.0}", s.max),
                ]
            })
            .collect(),
    );
    out.push((
        "think",
        if v.think.is_empty() {
            "<h2>Think time</h2>\n<p class=\"missing\">No timed sows yet.</p>\n".to_string()
        } else {
            format!(
                "<h2>Think time</h2>\n<p>Per sow, opening sows excluded.</p>\n{}",
                think.html()
            )
        },
    ));
    out.push(("recent", recent(id, v)));
    out
}

/// Game ends, forfeits with their reasons, and the bots' logs.
fn ends(id: &str, v: &RunView<'_>) -> String {
    let mut h = String::from("<h2>Game ends</h2>\n");
    if v.terminations.is_empty() {
        h.push_str("<p class=\"missing\">No games yet.</p>\n");
    } else {
        h.push_str(&terminations_table(&v.terminations).html());
    }
    if !v.forfeits.is_empty() {
        h.push_str(
            "<h3>Forfeits</h3>\n<table>\n<tr><th class=\"name\">player</th>\
             <th class=\"name\">reason</th><th>games</th><th class=\"name\">latest detail</th>\
             <th class=\"name\">log</th></tr>\n",
        );
        for f in &v.forfeits {
            let log = if v.logs.iter().any(|(p, _)| p == &f.player) {
                format!(
                    "<a href=\"/log?run={}&amp;player={}\">stderr</a>",
                    escape(&query(id)),
                    escape(&query(&f.player))
                )
            } else {
                "–".to_string()
            };
            let _ = writeln!(
                h,
                "<tr><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td>\
                 <td class=\"name\">{}</td><td class=\"name\">{log}</td></tr>",
                escape(&f.player),
                escape(&f.termination),
                f.games,
                escape(&f.detail)
            );
        }
        h.push_str("</table>\n");
    }
    if !v.logs.is_empty() {
        h.push_str("<p>Bots' stderr logs: ");
        let links: Vec<String> = v
            .logs
            .iter()
            .map(|(p, bytes)| {
                format!(
                    "<a href=\"/log?run={}&amp;player={}\">{}</a> ({bytes} bytes)",
                    escape(&query(id)),
                    escape(&query(p)),
                    escape(p)
                )
            })
            .collect();
        h.push_str(&links.join(", "));
        h.push_str("</p>\n");
    }
    h
}

/// The latest games with links to the viewer, and a box to open any game by id.
fn recent(id: &str, v: &RunView<'_>) -> String {
    let mut h = format!(
        "<h2>Games</h2>\n<form action=\"/game\" method=\"get\" class=\"open-game\">\
         <input type=\"hidden\" name=\"run\" value=\"{}\"><label>Open game \
         <input type=\"number\" name=\"id\" min=\"0\" required></label> \
         <button type=\"submit\">view</button></form>\n",
        escape(id)
    );
    if v.recent.is_empty() {
        h.push_str("<p class=\"missing\">No games yet.</p>\n");
        return h;
    }
    h.push_str(
        "<p>The latest games, finished last first (with several games at once they finish \
         out of game-id order):</p>\n<table id=\"recent\">\n<tr><th>game</th>\
         <th class=\"name\">first</th><th class=\"name\">second</th><th>result</th>\
         <th>sows</th><th class=\"name\">end</th><th>ms</th></tr>\n",
    );
    for (row, viewable) in &v.recent {
        let game = if *viewable {
            format!(
                "<a href=\"/game?run={}&amp;id={}\">{}</a>",
                escape(&query(id)),
                row.game_id,
                row.game_id
            )
        } else {
            row.game_id.to_string()
        };
        let _ = writeln!(
            h,
            "<tr><td>{game}</td><td class=\"name\">{}</td><td class=\"name\">{}</td><td>{}</td>\
             <td>{}</td><td class=\"name\">{}</td><td>{}</td></tr>",
            escape(&row.first),
            escape(&row.second),
            escape(&row.result.to_string()),
            row.sows,
            escape(&row.termination.to_string()),
            row.wall_ms
        );
    }
    h.push_str("</table>\n");
    h
}

/// The run page (also a calibration's, with `kind` `calibration`); `sections` as
/// [`run_sections`] or [`calibration_curve`] and [`run_folders`] made them.
pub fn run_page(
    id: &str,
    kind: &str,
    progress: &Progress,
    sections: &[(&'static str, String)],
    version: u64,
    error: Option<&str>,
) -> String {
    let mut body = format!(
        "<h1>{}</h1>\n<div id=\"live\" data-run=\"{}\" data-version=\"{version}\">\n\
         <div id=\"progress\">{}</div>\n",
        escape(id),
        escape(&query(id)),
        progress_html(kind, progress)
    );
    if let Some(e) = error {
        let _ = writeln!(body, "<p class=\"warning\">{}</p>", escape(e));
    }
    for (name, html) in sections {
        let _ = writeln!(body, "<section id=\"{name}\">{html}</section>");
    }
    body.push_str("</div>\n");
    layout(id, &body)
}

/// A calibration page's curve section: the curve fitted to the games so far with every knob
/// value measured (redrawn after every step while it runs), the final one once it has ended,
/// and the table.
pub fn calibration_curve(cal: Option<&Result<Calibration, String>>) -> String {
    let mut h = String::from("<h2>Curve</h2>\n");
    let cal = match cal {
        None => {
            h.push_str(
                "<p class=\"missing\">No step measured yet: the curve and its points appear \
                 after the first step (the reference pool's round robin, if its Elos were not \
                 given, comes first).</p>\n",
            );
            return h;
        }
        Some(Err(e)) => {
            let _ = writeln!(h, "<p class=\"warning\">{}</p>", escape(e));
            return h;
        }
        Some(Ok(cal)) => cal,
    };
    let _ = writeln!(
        h,
        "<p>{} {} games in {}, {} measured{}.</p>",
        match cal.stop {
            Some(_) => format!("Finished: {},", escape(&outcome(cal))),
            None => "So far (redrawn after every step):".to_string(),
        },
        cal.games,
        count(cal.steps.len(), "step", "steps"),
        count(cal.points.len(), "knob value", "knob values"),
        if cal.finished {
            String::new()
        } else {
            format!("; the budget is {} games", cal.settings.max_games)
        }
    );
    h.push_str(&figure(Ok(CalibrationPlot::new(cal))));
    let _ = writeln!(
        h,
        "<pre>{}</pre>",
        escape(&crate::report::calibration::table(cal))
    );
    h
}

/// A calibration page's matchmaking section (a calibration on a human scale, once it has
/// ended): the humans' histogram with the level's reach, and the table.
pub fn calibration_matchmaking(file: &MatchmakingFile) -> String {
    use crate::report::calibration::{
        matchmaking_reach, matchmaking_rows, matchmaking_sources, reference_source_once,
    };
    let mut h = String::from("<h2>Matchmaking</h2>\n");
    h.push_str(&figure(Ok(MatchmakingPlot::new(file))));
    // The sources once, in a paragraph that wraps (a rating's anchor list is long), and the
    // table as a table, whose level names wrap rather than run off the page (#47).
    let (humans, _) = matchmaking_sources(file);
    let reference = reference_source_once(file);
    let _ = writeln!(
        h,
        "<p class=\"sources\">{}<br>{}</p>",
        escape(&humans),
        escape(&reference)
    );
    let (header, rows) = matchmaking_rows(file);
    let cell = |tag: &str, c: usize, text: &str| {
        let class = if c == 2 { " class=\"name\"" } else { "" };
        format!("<{tag}{class}>{}</{tag}>", escape(text))
    };
    h.push_str("<table class=\"matchmaking\">\n<tr>");
    for (c, t) in header.iter().enumerate() {
        h.push_str(&cell("th", c, t));
    }
    h.push_str("</tr>\n");
    for row in &rows {
        h.push_str("<tr>");
        for (c, t) in row.iter().enumerate() {
            h.push_str(&cell("td", c, t));
        }
        h.push_str("</tr>\n");
    }
    h.push_str("</table>\n");
    for reach in matchmaking_reach(file) {
        let _ = writeln!(h, "<p>{}</p>", escape(&reach));
    }
    h
}

/// `1 step`, `2 steps`.
pub fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}

/// The run folders of a calibration (reference, steps) or of a tune (verifications, the latest
/// iterations), on its page.
pub fn run_folders(runs: &[RunLine]) -> String {
    format!("<h2>Run folders</h2>\n{}", runs_table(runs))
}

/// The game viewer page: the game's positions as data, drawn by `/static/viewer.js`.
pub fn viewer_page(run_id: &str, game: &GameView) -> String {
    layout(
        &format!("{run_id} game {}", game.game_id),
        &format!(
            "<h1><a href=\"/run?id={}\">{}</a>: game {}</h1>\n\
             <div data-viewer data-game=\"game-data\"></div>\n\
             <script type=\"application/json\" id=\"game-data\">{}</script>\n\
             <script src=\"/static/viewer.js\" defer></script>\n",
            escape(&query(run_id)),
            escape(run_id),
            game.game_id,
            json_for_script(game)
        ),
    )
}

/// A bot's stderr log (its end, if long).
pub fn log_page(run_id: &str, player: &str, text: &str, cut: bool) -> String {
    layout(
        &format!("{run_id} {player} stderr"),
        &format!(
            "<h1><a href=\"/run?id={}\">{}</a>: {}'s stderr</h1>\n{}<pre class=\"log\">{}</pre>\n",
            escape(&query(run_id)),
            escape(run_id),
            escape(player),
            if cut {
                "<p class=\"missing\">Only the end of the log is shown.</p>\n"
            } else {
                ""
            },
            escape(text)
        ),
    )
}

/// A page saying what was not found.
pub fn not_found(what: &str) -> String {
    layout(
        "not found",
        &format!("<h1>Not found</h1>\n<p>{}</p>\n", escape(what)),
    )
}
