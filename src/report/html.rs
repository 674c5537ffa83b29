//! `report.html`: one self-contained page per results folder. No network, no external script or
//! CSS: the figures are inlined as SVG, the style sheet is in the page, and the one script is the
//! game viewer's (inlined; it only draws positions the arena computed, see [`super::viewer`]).
//!
//! Sections (each an element with this `id`): `summary` (ratings with intervals, first-mover
//! advantage, warnings, game ends), `sprt` (only for SPRT runs), `gate` (only for `arena gate`
//! runs), `pairwise`, `mistakes` (only after `arena analyse`), `plots`, `games` (the viewer, when
//! the folder has `games.jsonl`),
//! `configuration` (run.json), `reproduce` (the command lines). Every piece of text from the
//! folder (player names, commands, run.json) goes through [`super::text::escape_html`], and the viewer's data
//! through [`json_for_script`].

use std::fmt::Write as _;

use super::input::{command_line, ReportInput};
use super::plots::Palette;
use super::rate::interval_words;
use super::tables::{
    brackets_table, game_mistakes_table, gate_table, gate_words, mistakes_table, pairwise_table,
    ratings_table, signed, terminations_table,
};
use super::text::{escape_html as escape, readable_time};
use super::viewer::{json_for_script, ViewerGames, VIEWER_CSS, VIEWER_JS};
use crate::run_folder::analysis::{Analysis, WorstSow};
use crate::run_folder::ratings::Summary;

/// Strips the XML prolog, if any, so the SVG can sit inside the page.
pub fn inline_svg(svg: &str) -> &str {
    let svg = svg.trim_start();
    match svg.strip_prefix("<?xml") {
        Some(rest) => rest.find("?>").map_or(svg, |i| rest[i + 2..].trim_start()),
        None => svg,
    }
}

const STYLE: &str = "
body { font-family: sans-serif; margin: 2em auto; max-width: 1000px; padding: 0 1em; color: #222; }
h1 { font-size: 1.6em; } h2 { margin-top: 2em; border-bottom: 1px solid #ccc; }
table { border-collapse: collapse; margin: 1em 0; font-size: 0.92em; }
th, td { border: 1px solid #ccc; padding: 0.25em 0.6em; text-align: right; }
th { background: #f2f2f2; } td.name, th.name { text-align: left; }
figure { margin: 1.5em 0; } figcaption { color: #555; font-size: 0.9em; }
svg { max-width: 100%; height: auto; }
pre { background: #f6f6f6; padding: 1em; overflow-x: auto; font-size: 0.85em; }
.warning { color: #a00; } .missing { color: #666; font-style: italic; }
.swatch { white-space: nowrap; margin-right: 0.6em; } .swatch svg { vertical-align: -1px; }
";

/// The first-mover advantage as a paragraph (`id="first-move"`); `arena serve`'s run page
/// shows the same.
pub fn first_move_html(s: &Summary) -> String {
    let fm = &s.first_move_advantage;
    format!(
        "<p id=\"first-move\">First-mover advantage: <b>{} Elo</b> [{}, {}]; the first players \
         scored {:.1}% of the points.</p>\n",
        signed(fm.elo),
        signed(fm.ci_low),
        signed(fm.ci_high),
        fm.first_player_score * 100.0
    )
}

/// The pairwise section's body: what the columns mean and the table (or `No encounters.`);
/// `arena serve`'s run page shows the same.
pub fn pairwise_html(s: &Summary) -> String {
    if s.pairwise.is_empty() {
        return "<p>No encounters.</p>\n".to_string();
    }
    format!(
        "<p>Each encounter from the row player's view (W, D, L are its wins, draws and losses; \
         the pair columns count its game pairs by their two results, LL lost both ... WW won \
         both, DD/WL drawn or split); Elo with its {:.0}% interval from the pentanomial model over game \
         pairs (trinomial when games are unpaired){}.</p>\n{}",
        s.level * 100.0,
        if s.interval_method == "posterior" {
            "; LOS (joint fit) is the chance that the row player is the stronger given all the \
             games, not this encounter's alone"
        } else {
            ""
        },
        pairwise_table(&s.pairwise, s.interval_method == "posterior").html()
    )
}

/// The page.
pub fn render(input: &ReportInput<'_>) -> String {
    let s = input.summary;
    let mut h = String::new();
    let name = input.name();
    let _ = write!(
        h,
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n\
         <meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n\
         <title>{} – mancala-arena report</title>\n<style>{STYLE}{VIEWER_CSS}</style>\n</head>\n<body>\n",
        escape(&name)
    );
    let _ = writeln!(h, "<h1>{} – mancala-arena report</h1>", escape(&name));
    let _ = writeln!(
        h,
        "<p>Folder <code>{}</code>: {} games in {} game pairs among {} players{}.</p>",
        escape(&input.dir.display().to_string()),
        s.games,
        s.game_pairs,
        s.players.len(),
        input.run.as_ref().map_or(String::new(), |r| format!(
            ", started {}, arena {}",
            escape(&readable_time(&r.started)),
            escape(&r.arena_version)
        ))
    );

    // Summary.
    let _ = writeln!(h, "<section id=\"summary\">\n<h2>Ratings</h2>");
    let _ = writeln!(
        h,
        "<p>Elo on the expected-score scale (a difference Δ means an expected score of \
         1/(1 + 10<sup>−Δ/400</sup>)) with {}, anchored at {}.</p>",
        escape(&interval_words(s)),
        escape(&s.anchor)
    );
    h.push_str(&ratings_table(&s.ratings, &s.random_moves).html());
    colours_legend(&mut h, &Palette::new(&s.players));
    h.push_str(&first_move_html(s));
    if let Some(m) = &s.margin {
        let _ = writeln!(
            h,
            "<div id=\"margin-ratings\">\n<h3>Ratings from seed margins</h3>\n<p>{}</p>",
            escape(&super::rate::margin_words(m))
        );
        h.push_str(&super::tables::margin_table(m).html());
        h.push_str("</div>\n");
    }
    if s.warnings.is_empty() {
        h.push_str("<p id=\"warnings\">No warnings.</p>\n");
    } else {
        h.push_str("<ul id=\"warnings\">\n");
        for w in &s.warnings {
            let _ = writeln!(h, "<li class=\"warning\">{}</li>", escape(w));
        }
        h.push_str("</ul>\n");
    }
    if !input.terminations.is_empty() {
        h.push_str(&terminations_table(&input.terminations).html());
    }
    h.push_str("</section>\n");

    if let Some(sprt) = &input.sprt {
        let _ = writeln!(
            h,
            "<section id=\"sprt\">\n<h2>SPRT</h2>\n<p><b>{}</b> after {} game pairs. \
             <span id=\"sprt-estimate\">{}</span>. LLR {:+.3}, \
             bounds [{:.3}, {:.3}]; H0 {} Elo, H1 {} Elo ({} model), α = {}, β = {}; \
             pentanomial counts {:?}.</p>{}\n</section>",
            escape(sprt.status.result.verdict(sprt.elo0, sprt.elo1)),
            sprt.pairs,
            escape(&sprt.estimate_words()),
            sprt.status.llr,
            sprt.status.lower,
            sprt.status.upper,
            sprt.elo0,
            sprt.elo1,
            escape(&sprt.model),
            sprt.alpha,
            sprt.beta,
            sprt.penta,
            sprt.link_check.map_or(String::new(), |c| format!(
                "\n<p id=\"link-check\">{}</p>",
                escape(&c.describe())
            ))
        );
    }

    if let Some(gate) = &input.gate {
        let _ = writeln!(
            h,
            "<section id=\"gate\">\n<h2>Gate</h2>\n<p><b>{}</b> (exit code {}).</p>",
            escape(gate_words(gate.verdict)),
            gate.exit_code
        );
        h.push_str(&gate_table(gate).html());
        h.push_str("</section>\n");
    }

    // Pairwise.
    let _ = writeln!(
        h,
        "<section id=\"pairwise\">\n<h2>Pairwise</h2>\n{}</section>",
        pairwise_html(s)
    );

    if let Some(a) = &input.analysis {
        mistakes_section(&mut h, a, input.viewer.as_ref());
    }

    // Plots.
    h.push_str("<section id=\"plots\">\n<h2>Plots</h2>\n");
    for f in &input.figures {
        let _ = writeln!(
            h,
            "<figure id=\"plot-{}\">\n<h3>{}</h3>",
            f.stem,
            escape(f.title)
        );
        match &f.svg {
            Ok(svg) => {
                h.push_str(inline_svg(svg));
                let _ = writeln!(h, "\n<figcaption>{}</figcaption>", escape(&f.caption));
            }
            Err(why) => {
                let _ = writeln!(h, "<p class=\"missing\">Not drawn: {}</p>", escape(why));
            }
        }
        h.push_str("</figure>\n");
    }
    h.push_str("</section>\n");

    if let Some(viewer) = &input.viewer {
        games_section(&mut h, viewer);
    }

    // Configuration.
    h.push_str("<section id=\"configuration\">\n<h2>Configuration</h2>\n");
    match (&input.run_json, &input.pgn) {
        (None, Some(files)) => {
            let _ = writeln!(
                h,
                "<p>The games were read from PGN: <code>{}</code>. PGN carries results and \
                 (optionally) moves, not think times, so this report has no think-time figure \
                 and no game viewer.</p>",
                escape(&files.join(", "))
            );
        }
        (Some(json), _) => {
            let _ = writeln!(
                h,
                "<details><summary>The run's <code>run.json</code> (players, rules, time \
                 control, seed: click to show)</summary>\n<pre>{}</pre></details>",
                escape(json)
            );
        }
        (None, None) => h.push_str("<p>This folder has no readable <code>run.json</code>.</p>\n"),
    }
    h.push_str("</section>\n");

    // Reproduce.
    let dir = shlex::try_quote(&input.dir.display().to_string())
        .map_or_else(|_| input.dir.display().to_string(), |q| q.into_owned());
    h.push_str("<section id=\"reproduce\">\n<h2>Reproduce</h2>\n");
    h.push_str(
        "<p>From the checkout, with the binaries built (<code>cargo build --release \
         --workspace</code>):</p>\n",
    );
    if let Some(run) = &input.run {
        let _ = writeln!(
            h,
            "<p>The command that played these games (the same seed gives the same games with \
             deterministic bots):</p>\n<pre>{}</pre>",
            escape(&in_release(&command_line(run)))
        );
    }
    match input.pgn_command() {
        Some(command) => {
            let _ = writeln!(
                h,
                "<p>Rate the PGN files again and redraw this report (with the rating options \
                 used the first time):</p>\n<pre>{}</pre>",
                escape(&in_release(&command))
            );
        }
        None => {
            let _ = writeln!(
                h,
                "<p>Rate the folder again and redraw this report (<code>plot</code> rates it \
                 first):</p>\n<pre>target/release/arena plot {d}</pre>",
                d = escape(&dir)
            );
        }
    }
    h.push_str("</section>\n</body>\n</html>\n");
    h
}

/// The players' colours, as every figure of the report draws them (`id="colours"`): one legend
/// for the forest plot, the convergence, the ladder and the think times. The swatches are SVG
/// (no inline style, which a Content-Security-Policy may refuse).
fn colours_legend(h: &mut String, palette: &Palette) {
    h.push_str("<p id=\"colours\">Colours in the figures: ");
    for (name, c) in palette.entries() {
        let _ = write!(
            h,
            "<span class=\"swatch\"><svg width=\"12\" height=\"12\" viewBox=\"0 0 12 12\" aria-hidden=\"true\">\
             <rect width=\"12\" height=\"12\" fill=\"#{:02X}{:02X}{:02X}\"/></svg> {}</span> ",
            c.0,
            c.1,
            c.2,
            escape(name)
        );
    }
    h.push_str("</p>\n");
}

/// A recorded command line run from the checkout's release build: `arena run ...` as
/// `target/release/arena run ...` (a path given to the arena stays as it was).
fn in_release(command: &str) -> String {
    match command.strip_prefix("arena ") {
        Some(rest) => format!("target/release/arena {rest}"),
        None => command.to_string(),
    }
}

/// The game viewer over the embedded games (see [`super::viewer`] for the data and the cap).
fn games_section(h: &mut String, viewer: &ViewerGames) {
    let shown = viewer.games.len();
    let _ = writeln!(
        h,
        "<section id=\"games\">\n<h2>Games</h2>\n<p>Every position as the arena replayed it: \
         step with the buttons, the slider or the arrow keys (click the board first); the \
         pit last sown from is ringed. {}</p>",
        if shown < viewer.total {
            format!(
                "{shown} of the {} games are embedded (the first by game id); \
                 <code>arena serve</code> shows them all.",
                viewer.total
            )
        } else {
            format!("All {shown} games.")
        }
    );
    let _ = writeln!(
        h,
        "<div data-viewer data-games=\"viewer-games\"></div>\n\
         <script type=\"application/json\" id=\"viewer-games\">{}</script>\n\
         <script>{VIEWER_JS}</script>\n</section>",
        json_for_script(viewer)
    );
}

/// The mistake meter (`arena analyse`): each player's sows against perfect play, the costliest
/// sows (linked to the viewer at the position before them), mistakes against rating and the
/// table per game.
fn mistakes_section(h: &mut String, a: &Analysis, viewer: Option<&ViewerGames>) {
    h.push_str(
        "<section id=\"mistakes\">\n<h2>Mistake meter</h2>\n<p>Every sow the players chose, \
         checked with the exact solver (<code>arena analyse</code>): a mistake is a sow whose \
         perfect-play value is lower than the best sow's; seeds lost are the difference. Only \
         sows the solver proved within its node budget count. <i>Accuracy</i> is the share of \
         sows that keep the position's value; <i>weighted accuracy</i> is 1 − seeds lost / \
         seeds at stake, where a sow's stake is twice the seeds left in the pits (the most it \
         can lose).</p>\n",
    );
    h.push_str(&mistakes_table(&a.players).html());
    if !a.worst.is_empty() {
        h.push_str(
            "<h3 id=\"worst-sows\">Costliest sows</h3>\n<p>Each player's costliest sows; the \
             link opens the game in the viewer below at the position before the sow.</p>\n",
        );
        worst_table(h, &a.worst, viewer);
    }
    if !a.brackets.is_empty() {
        h.push_str(
            "<h3 id=\"mistakes-by-rating\">Mistakes against rating</h3>\n<p>Sows pooled by \
             the mover's rating in that game (its Elo tag), in brackets; each level (every \
             player of a results folder, or one named with <code>--level</code>) is a row of \
             its own at its rating. The standard error takes sows as independent (they are \
             not quite: see docs/solved.md for what this table can and cannot show). The \
             <a href=\"#plot-mistakes_by_rating\">plot</a> shows the same.</p>\n",
        );
        h.push_str(&brackets_table(&a.brackets).html());
    }
    if !a.games.is_empty() {
        let _ = writeln!(
            h,
            "<details><summary>Per game ({} rows: click to show)</summary>\n{}</details>",
            a.games.len(),
            game_mistakes_table(&a.games).html()
        );
    }
    h.push_str("</section>\n");
}

/// The costliest sows, each linked to the embedded viewer when the game is in it.
fn worst_table(h: &mut String, worst: &[WorstSow], viewer: Option<&ViewerGames>) {
    let shown = |id: u64| viewer.is_some_and(|v| v.games.iter().any(|g| g.game_id == id));
    h.push_str(
        "<table class=\"worst\">\n<tr><th class=\"name\">player</th><th>loss</th><th>game</th>\
         <th>sow</th><th>played</th><th>best</th><th>value</th>\
         <th class=\"name\">position before the sow</th></tr>\n",
    );
    for w in worst {
        let sow = if shown(w.game_id) {
            format!(
                "<a href=\"#game={}&amp;ply={}\">{}</a>",
                w.game_id,
                w.ply,
                w.ply + 1
            )
        } else {
            (w.ply + 1).to_string()
        };
        let _ = writeln!(
            h,
            "<tr><td class=\"name\">{}</td><td>−{}</td><td>{}</td><td>{sow}</td><td>{}</td>\
             <td>{}</td><td>{}</td><td class=\"name\"><code>{}</code></td></tr>",
            escape(&w.player),
            w.loss,
            w.game_id,
            w.played,
            w.best.map_or("?".to_string(), |b| b.to_string()),
            signed(f64::from(w.value)),
            escape(&w.position)
        );
    }
    h.push_str("</table>\n");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strips_the_xml_prolog() {
        assert_eq!(inline_svg("<?xml version=\"1.0\"?>\n<svg/>"), "<svg/>");
        assert_eq!(inline_svg("<svg/>"), "<svg/>");
    }
}
