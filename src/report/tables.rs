//! The report's tables, built once as plain text cells and rendered three ways: for the terminal
//! ([`Table::text`]), for `report.html` ([`Table::html`]) and for `summary.md`
//! ([`Table::markdown`]). The renderers escape; the builders only choose columns and format
//! numbers.

use std::collections::BTreeMap;
use std::fmt::Write as _;

use super::text::{escape_html as html_escape, escape_markdown as md_escape};
use crate::rating::gate::{EdgeState, EdgeTest, GateVerdict};
use crate::rating::rows::{PairwiseRow, RatingRow};
use crate::run_folder::analysis::{BracketRow, GameSideRow, MistakeRow};
use crate::run_folder::games::Termination;
use crate::run_folder::gate::GateFile;

/// How a column lines up: names left, numbers right.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Align {
    Left,
    Right,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Column {
    pub title: &'static str,
    pub align: Align,
}

const fn left(title: &'static str) -> Column {
    Column {
        title,
        align: Align::Left,
    }
}

const fn right(title: &'static str) -> Column {
    Column {
        title,
        align: Align::Right,
    }
}

/// Columns, rows of text cells (one per column), and footnotes.
#[derive(Clone, Debug, PartialEq)]
pub struct Table {
    pub columns: Vec<Column>,
    pub rows: Vec<Vec<String>>,
    pub notes: Vec<String>,
}

impl Table {
    /// Padded columns two spaces apart, then the notes.
    pub fn text(&self) -> String {
        let width = |c: usize| {
            self.rows
                .iter()
                .map(|r| r[c].chars().count())
                .chain([self.columns[c].title.chars().count()])
                .max()
                .unwrap_or(0)
        };
        let widths: Vec<usize> = (0..self.columns.len()).map(width).collect();
        let line = |cells: &mut dyn Iterator<Item = &str>| {
            let mut out = String::new();
            for (i, cell) in cells.enumerate() {
                if i > 0 {
                    out.push_str("  ");
                }
                let pad = widths[i].saturating_sub(cell.chars().count());
                match self.columns[i].align {
                    Align::Left => {
                        out.push_str(cell);
                        out.extend(std::iter::repeat(' ').take(pad));
                    }
                    Align::Right => {
                        out.extend(std::iter::repeat(' ').take(pad));
                        out.push_str(cell);
                    }
                }
            }
            out.truncate(out.trim_end().len());
            out.push('\n');
            out
        };
        let mut out = line(&mut self.columns.iter().map(|c| c.title));
        for row in &self.rows {
            out.push_str(&line(&mut row.iter().map(String::as_str)));
        }
        for note in &self.notes {
            let _ = writeln!(out, "{note}");
        }
        out
    }

    /// An HTML `<table>` (left-aligned cells get `class="name"`), then the notes as paragraphs.
    pub fn html(&self) -> String {
        let class = |c: &Column| match c.align {
            Align::Left => " class=\"name\"",
            Align::Right => "",
        };
        let mut out = String::from("<table>\n<tr>");
        for c in &self.columns {
            let _ = write!(out, "<th{}>{}</th>", class(c), html_escape(c.title));
        }
        out.push_str("</tr>\n");
        for row in &self.rows {
            out.push_str("<tr>");
            for (c, cell) in self.columns.iter().zip(row) {
                let _ = write!(out, "<td{}>{}</td>", class(c), html_escape(cell));
            }
            out.push_str("</tr>\n");
        }
        out.push_str("</table>\n");
        for note in &self.notes {
            let _ = writeln!(out, "<p>{}</p>", html_escape(note));
        }
        out
    }

    /// A GitHub-flavoured Markdown table, then the notes.
    pub fn markdown(&self) -> String {
        let mut out = String::from("|");
        for c in &self.columns {
            let _ = write!(out, " {} |", md_escape(c.title));
        }
        out.push_str("\n|");
        for c in &self.columns {
            out.push_str(match c.align {
                Align::Left => ":---|",
                Align::Right => "---:|",
            });
        }
        out.push('\n');
        for row in &self.rows {
            out.push('|');
            for cell in row {
                let _ = write!(out, " {} |", md_escape(cell));
            }
            out.push('\n');
        }
        for note in &self.notes {
            let _ = writeln!(out, "\n{}", md_escape(note));
        }
        out
    }
}

/// `signed(12.3)` is `+12`; what rounds to zero is `0` (never `-0` or `+0`).
pub fn signed(x: f64) -> String {
    if x.is_finite() {
        let rounded = x.round();
        if rounded == 0.0 {
            "0".to_string()
        } else {
            format!("{rounded:+.0}")
        }
    } else {
        "–".to_string()
    }
}

/// A percentage with one decimal, or `–`.
pub fn pct(x: Option<f64>) -> String {
    match x {
        Some(v) if v.is_finite() => format!("{v:.1}%"),
        _ => "–".to_string(),
    }
}

/// The footnote for players whose rating rests on the prior.
pub const UNBOUNDED_NOTE: &str =
    "* never lost or never scored: the rating rests on the prior, not the games.";

/// The joint ratings, best first.
pub fn ratings_table(rows: &[RatingRow], random_moves: &BTreeMap<String, u64>) -> Table {
    let mut columns = vec![
        right("rank"),
        left("player"),
        right("Elo"),
        right("interval"),
        right("games"),
        right("W-D-L"),
        right("score"),
        right("draws"),
        right("P(top)"),
    ];
    // Only where the arena played moves for a player (a KGP agent's missing moves).
    let random = !random_moves.is_empty();
    if random {
        columns.push(right("random moves"));
    }
    let rows_out = rows
        .iter()
        .map(|r| {
            let mut row = vec![
                r.rank.to_string(),
                format!("{}{}", r.name, if r.unbounded { " *" } else { "" }),
                format!("{:.0}", r.elo),
                format!("[{:.0}, {:.0}]", r.ci_low, r.ci_high),
                r.games.to_string(),
                format!("{}-{}-{}", r.wins, r.draws, r.losses),
                pct(r.score_pct),
                pct(r.draw_pct),
                r.p_best.map_or("–".to_string(), |p| format!("{p:.3}")),
            ];
            if random {
                row.push(random_moves.get(&r.name).copied().unwrap_or(0).to_string());
            }
            row
        })
        .collect();
    let mut notes = if rows.iter().any(|r| r.unbounded) {
        vec![UNBOUNDED_NOTE.to_string()]
    } else {
        Vec::new()
    };
    if random {
        notes.push(RANDOM_NOTE.to_string());
    }
    Table {
        columns,
        rows: rows_out,
        notes,
    }
}

/// What the ratings table's `random moves` column counts.
pub const RANDOM_NOTE: &str = "random moves: random moves played for it, where a KGP agent sent \
     no move in time or yielded before any, as the official server plays them (docs/protocols.md)";

/// The ratings from seed margins beside the W/D/L fit's (`arena rate --model margin`).
pub fn margin_table(m: &crate::run_folder::ratings::MarginSummary) -> Table {
    let interval = |lo: f64, hi: f64| {
        if lo.is_finite() && hi.is_finite() {
            format!("[{lo:.0}, {hi:.0}]")
        } else {
            "–".to_string()
        }
    };
    Table {
        columns: vec![
            right("rank"),
            left("player"),
            right("Elo (margins)"),
            right("interval"),
            right("Elo (W/D/L)"),
            right("interval"),
            right("margins − W/D/L"),
            right("games"),
        ],
        rows: m
            .ratings
            .iter()
            .map(|r| {
                vec![
                    r.rank.to_string(),
                    r.name.clone(),
                    format!("{:.0}", r.elo),
                    interval(r.ci_low, r.ci_high),
                    format!("{:.0}", r.wdl_elo),
                    interval(r.wdl_low, r.wdl_high),
                    signed(r.elo - r.wdl_elo),
                    r.games.to_string(),
                ]
            })
            .collect(),
        notes: Vec::new(),
    }
}

/// The pairwise Elo difference (pentanomial if available) with its reported interval, e.g.
/// `+120 [+45, +201]`, `-338 [-∞, -71]` where the data bound one side only. A sweep has no point and its interval no end on its side: `≥ +434` (all
/// won), `≤ -434` (all lost), the one rendering of an unbounded encounter (issue 45).
pub fn pair_elo(p: &PairwiseRow) -> String {
    let finite = |x: Option<f64>| x.filter(|v| v.is_finite());
    match p.score_pct {
        Some(s) if s >= 100.0 => {
            finite(p.elo_low).map_or("–".into(), |l| format!("≥ {}", signed(l)))
        }
        Some(s) if s <= 0.0 => {
            finite(p.elo_high).map_or("–".into(), |h| format!("≤ {}", signed(h)))
        }
        _ => {
            let Some(point) = finite(p.elo_penta.or(p.elo)) else {
                return "–".to_string();
            };
            // An end the data cannot bound (no pair won, say) shows as -∞ / +∞, never dropped:
            // a bare point would read as an estimate with no uncertainty.
            match (p.elo_low, p.elo_high) {
                (Some(low), Some(high)) => format!(
                    "{} [{}, {}]",
                    signed(point),
                    finite(Some(low)).map_or("-∞".into(), signed),
                    finite(Some(high)).map_or("+∞".into(), signed)
                ),
                _ => signed(point),
            }
        }
    }
}

/// Every encounter from the row player's view. `joint_los`: the LOS column is the joint fit's
/// `P(r_player > r_opponent)` given all the games (the posterior's), not the encounter's own,
/// and its heading says so (issue 47).
pub fn pairwise_table(rows: &[PairwiseRow], joint_los: bool) -> Table {
    let columns = vec![
        left("player"),
        left("opponent"),
        right("games"),
        right("W-D-L"),
        // The pentanomial counts of game pairs, one column each (from the row player's view).
        right("pairs LL"),
        right("LD"),
        right("DD/WL"),
        right("WD"),
        right("WW"),
        right("score"),
        right("Elo"),
        right(if joint_los { "LOS (joint fit)" } else { "LOS" }),
    ];
    let rows = rows
        .iter()
        .map(|p| {
            vec![
                p.player.clone(),
                p.opponent.clone(),
                p.games.to_string(),
                format!("{}-{}-{}", p.wins, p.draws, p.losses),
                p.penta_ll.to_string(),
                p.penta_ld.to_string(),
                p.penta_dd_wl.to_string(),
                p.penta_wd.to_string(),
                p.penta_ww.to_string(),
                pct(p.score_pct),
                pair_elo(p),
                p.los.map_or("–".to_string(), |l| format!("{l:.3}")),
            ]
        })
        .collect();
    Table {
        columns,
        rows,
        notes: Vec::new(),
    }
}

/// How the games ended.
pub fn terminations_table(counts: &[(Termination, usize)]) -> Table {
    Table {
        columns: vec![left("game end"), right("games")],
        rows: counts
            .iter()
            .map(|(t, n)| vec![t.to_string(), n.to_string()])
            .collect(),
        notes: Vec::new(),
    }
}

/// The mistake meter (`arena analyse`): each player's sows against perfect play.
pub fn mistakes_table(rows: &[MistakeRow]) -> Table {
    Table {
        columns: vec![
            left("player"),
            right("games"),
            right("sows"),
            right("proven"),
            right("mistakes"),
            right("mistake rate"),
            right("seeds lost / game"),
            right("worst"),
            right("accuracy"),
            right("weighted accuracy"),
        ],
        rows: rows
            .iter()
            .map(|r| {
                // An analysis from before the accuracies existed has no stake.
                let old = r.stake == 0 && r.proven > 0;
                vec![
                    r.player.clone(),
                    r.games.to_string(),
                    r.sows.to_string(),
                    format!("{:.1}%", r.proven_share() * 100.0),
                    r.mistakes.to_string(),
                    format!("{:.1}%", r.mistake_rate * 100.0),
                    format!("{:.2}", r.seeds_lost_per_game),
                    r.worst_loss.to_string(),
                    percent_or_dash(r.accuracy, old),
                    percent_or_dash(r.weighted_accuracy, old),
                ]
            })
            .collect(),
        notes: rows
            .iter()
            .filter(|r| !r.judged_by.is_empty() && r.judged_by != "exact")
            .map(|r| {
                format!(
                    "{}: judged by {}, not by the solver: the losses are estimates",
                    r.player, r.judged_by
                )
            })
            .collect(),
    }
}

fn percent_or_dash(x: f64, missing: bool) -> String {
    if missing {
        "–".to_string()
    } else {
        format!("{:.1}%", x * 100.0)
    }
}

/// The mistake meter per game: each player's sows in each game.
pub fn game_mistakes_table(rows: &[GameSideRow]) -> Table {
    Table {
        columns: vec![
            right("game"),
            left("player"),
            left("seat"),
            left("opponent"),
            right("rating"),
            right("sows"),
            right("proven"),
            right("mistakes"),
            right("seeds lost"),
            right("accuracy"),
            right("weighted accuracy"),
            right("worst"),
        ],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.game_id.to_string(),
                    r.player.clone(),
                    r.seat.clone(),
                    r.opponent.clone(),
                    r.rating.map_or(String::new(), |x| format!("{x:.0}")),
                    r.sows.to_string(),
                    r.proven.to_string(),
                    r.mistakes.to_string(),
                    r.seeds_lost.to_string(),
                    format!("{:.1}%", r.accuracy * 100.0),
                    format!("{:.1}%", r.weighted_accuracy * 100.0),
                    r.worst_loss.to_string(),
                ]
            })
            .collect(),
        notes: Vec::new(),
    }
}

/// Mistakes against rating: the brackets, then each level at its own rating.
pub fn brackets_table(rows: &[BracketRow]) -> Table {
    Table {
        columns: vec![
            left("bracket or level"),
            right("rating"),
            right("players"),
            right("games"),
            right("proven sows"),
            right("mistakes"),
            right("mistake rate (± se)"),
            right("seeds lost / game"),
        ],
        rows: rows
            .iter()
            .map(|r| {
                vec![
                    r.group.clone(),
                    format!("{:.0}", r.rating),
                    r.players.to_string(),
                    r.games.to_string(),
                    r.proven.to_string(),
                    r.mistakes.to_string(),
                    format!(
                        "{:.1}% ± {:.1}",
                        r.mistake_rate * 100.0,
                        r.mistake_rate_se * 100.0
                    ),
                    format!("{:.2}", r.seeds_lost_per_game),
                ]
            })
            .collect(),
        notes: Vec::new(),
    }
}

/// The gate's verdict in words.
pub fn gate_words(verdict: GateVerdict) -> &'static str {
    match verdict {
        GateVerdict::Pass => "passed: every level is inside its band",
        GateVerdict::Fail => "FAILED: a level is outside its band",
        GateVerdict::Undecided => "undecided: the budget ran out before every level was decided",
    }
}

/// `arena gate`: each level's band, verdict, estimate against the fixed pool and edge tests.
pub fn gate_table(gate: &GateFile) -> Table {
    let edge = |t: &EdgeTest| {
        let state = match t.state {
            EdgeState::Open => "open",
            EdgeState::Inside => "inside",
            EdgeState::Outside => "outside",
        };
        format!("{:+.2} {state}", t.llr)
    };
    let rows = gate
        .levels
        .iter()
        .map(|l| {
            let s = &l.status;
            let (elo, interval) = match s.estimate {
                Some(e) if e.at_limit => (format!("{:.0}", e.elo), "(all won or lost)".into()),
                Some(e) => (
                    format!("{:.0}", e.elo),
                    format!("[{:.0}, {:.0}]", e.ci_low, e.ci_high),
                ),
                None => ("–".into(), "–".into()),
            };
            vec![
                l.name.clone(),
                format!("{:.0} ± {:.0}", s.band.elo, s.band.tolerance),
                s.verdict.word().to_string(),
                elo,
                interval,
                s.pairs.to_string(),
                edge(&s.lower),
                edge(&s.upper),
            ]
        })
        .collect();
    let mut notes = Vec::new();
    if let Some(first) = gate.levels.first() {
        let pool: Vec<String> = gate
            .pool
            .iter()
            .map(|p| format!("{} {:.0}", p.name, p.elo))
            .collect();
        notes.push(format!(
            "Elo against the pool held at {} ({:.0}% intervals). Each band edge has its own SPRT, \
             outside against inside by the margin (±{:.0} Elo around the edge), decided at LLR ≤ {:.2} \
             (outside) or ≥ {:.2} (inside); α = {} for a level outside its band, β = {} for the \
             whole gate.",
            pool.join(", "),
            gate.confidence * 100.0,
            first.status.margin,
            first.status.lower.lower,
            first.status.lower.upper,
            gate.settings.alpha,
            gate.settings.beta
        ));
    }
    if let Some(source) = &gate.reference_source {
        notes.push(format!("The pool's Elos: {source}."));
    }
    Table {
        columns: vec![
            left("level"),
            right("band"),
            left("verdict"),
            right("Elo"),
            right("interval"),
            right("pairs"),
            right("lower edge LLR"),
            right("upper edge LLR"),
        ],
        rows,
        notes,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table() -> Table {
        Table {
            columns: vec![left("player"), right("Elo")],
            rows: vec![
                vec!["a|b <c>".into(), "1200".into()],
                vec!["longer name".into(), "7".into()],
            ],
            notes: vec!["* a note".into()],
        }
    }

    #[test]
    fn one_model_three_renderings() {
        let t = table();
        assert_eq!(
            t.text(),
            "player        Elo\na|b <c>      1200\nlonger name     7\n* a note\n"
        );
        let html = t.html();
        assert!(html.contains("<th class=\"name\">player</th><th>Elo</th>"));
        assert!(html.contains("<td class=\"name\">a|b &lt;c&gt;</td><td>1200</td>"));
        assert!(html.contains("<p>* a note</p>"));
        let md = t.markdown();
        assert!(md.starts_with("| player | Elo |\n|:---|---:|\n"), "{md}");
        assert!(md.contains("| a\\|b \\<c\\> | 1200 |"), "{md}");
        assert!(md.contains("\\* a note"));
    }

    /// The pairwise row of `pairs` colour-swapped pairs all won by the row player (all lost
    /// when `!won`).
    fn sweep_row(pairs: u64, won: bool) -> PairwiseRow {
        use crate::rating::pairwise::pairwise_table;
        use crate::rating::rows::pairwise_rows;
        use crate::rating::{GameTable, Outcome, RatedGame};
        let (w, l) = if won {
            (Outcome::Win, Outcome::Loss)
        } else {
            (Outcome::Loss, Outcome::Win)
        };
        let games: Vec<RatedGame> = (0..pairs)
            .flat_map(|k| {
                [
                    RatedGame {
                        pair: k,
                        first: 0,
                        second: 1,
                        outcome: w,
                    },
                    RatedGame {
                        pair: k,
                        first: 1,
                        second: 0,
                        outcome: l,
                    },
                ]
            })
            .collect();
        let table = GameTable::new(2, &games).unwrap();
        let names = vec!["a".to_string(), "b".to_string()];
        pairwise_rows(&names, &pairwise_table(&table, 0.95))
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_sweep_is_rendered_as_a_bound_everywhere() {
        // Issue 45: `-inf`, `+inf [+434, +5880]` and `+inf [+389, +inf]` for sweeps.
        for pairs in [6, 7] {
            let won = pair_elo(&sweep_row(pairs, true));
            let lost = pair_elo(&sweep_row(pairs, false));
            assert!(won.starts_with("≥ +"), "{won}");
            assert!(lost.starts_with("≤ -"), "{lost}");
            assert_eq!(
                won.trim_start_matches("≥ +"),
                lost.trim_start_matches("≤ -")
            );
            for text in [&won, &lost] {
                assert!(!text.contains("inf") && !text.contains('['), "{text}");
            }
            let table = pairwise_table(&[sweep_row(pairs, true)], false);
            for rendered in [table.text(), table.html(), table.markdown()] {
                assert!(rendered.contains(&won), "{rendered}");
            }
        }
    }

    #[test]
    fn an_interval_open_on_one_side_shows_its_open_end() {
        // Issue 47's second pass: 1-0-7 in four pairs (3 LL, 1 DD/WL) has a point and an upper end
        // but no lower one, and printed a bare `-338`, as if no interval had been computed.
        let mut row = sweep_row(4, false);
        row.score_pct = Some(12.5);
        row.elo_penta = Some(-338.0);
        row.elo_low = Some(f64::NEG_INFINITY);
        row.elo_high = Some(-71.2);
        assert_eq!(pair_elo(&row), "-338 [-∞, -71]");
        row.elo_low = Some(-600.0);
        row.elo_high = Some(f64::INFINITY);
        assert_eq!(pair_elo(&row), "-338 [-600, +∞]");
    }
}
