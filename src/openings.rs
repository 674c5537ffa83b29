//! Opening suites: the openings file format that `--openings` reads, the bundled Kalah(6,4)
//! suite (the default openings of `arena sprt` and `arena gate` on that board), and the making of
//! suites of positions chosen by their value (`arena openings`).
//!
//! # Format
//! One opening per line: a move list (`3 6 1`) or a position string (docs/position.md)
//! optionally followed by `moves ...`. Blank lines and lines starting with `#` are skipped, and
//! so is anything after a `#` on a line (position strings never hold one): `arena openings`
//! writes each opening's value there (`3 6 1 2  # +2`) and how the suite was made in a header
//! line.
//!
//! # Making a suite
//! [`positions`] lists every distinct position reached by exactly K sows from the start (never
//! `swap`, never a finished game), each with the first move list in pit order that reaches it.
//! [`first_mover_value`] gives each its value, the first mover's final store margin: exact from
//! the solver for Kalah, else from a fixed-depth alpha-beta search (heuristic; the rule is
//! `crate::valuer`'s, shared with the mistake meter). [`Selection`] takes the
//! valued candidates in a seeded random order and keeps those in the value range, balanced over
//! the values found: round-robin over the distinct values (lowest first), so each appears as
//! often as the candidates allow.

use std::collections::{BTreeMap, HashSet};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::rules::{Move, Position, Ruleset, Side};
use crate::solver::{setup_here, BoardSpec, Purpose};
use crate::valuer::{Method, Valuer};
use crate::vocab::config::{Opening, OpeningSource};

/// The bundled suite's name in `run.json` and the reports.
pub const BUNDLED_NAME: &str = "bundled:openings/kalah-6x4-balanced.txt";

/// The bundled Kalah(6,4) suite (`openings/kalah-6x4-balanced.txt`; how it was made is its
/// header line, why it is the default is docs/regression-testing.md).
const BUNDLED_TEXT: &str = include_str!("../openings/kalah-6x4-balanced.txt");

/// Reads an openings file's text (see the module's format) and checks every opening against
/// `ruleset`; errors name `label` and the line.
pub fn parse(ruleset: Ruleset, text: &str, label: &str) -> Result<Vec<Opening>, String> {
    let mut list = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let opening =
            Opening::parse(ruleset, line).map_err(|e| format!("{label}:{}: {e}", i + 1))?;
        list.push(opening);
    }
    Ok(list)
}

/// The bundled suite, for standard Kalah(6,4) only (its values are for those rules).
pub fn bundled(ruleset: Ruleset) -> Option<OpeningSource> {
    if ruleset != Ruleset::kalah(6, 4) {
        return None;
    }
    let openings = parse(ruleset, BUNDLED_TEXT, BUNDLED_NAME).ok()?;
    Some(OpeningSource::List {
        file: BUNDLED_NAME.to_string(),
        openings,
    })
}

/// Every distinct position reached by exactly `plies` sows from the start, never `swap` and
/// never a finished game, with the first move list (in pit order) that reaches it. Refuses when
/// more than `limit` move lists would have to be walked.
pub fn positions(ruleset: Ruleset, plies: u32, limit: u64) -> Result<Vec<Opening>, String> {
    fn walk(
        pos: &Position,
        left: u32,
        line: &mut Vec<Move>,
        seen: &mut HashSet<String>,
        out: &mut Vec<Opening>,
        walked: &mut u64,
        limit: u64,
    ) -> Result<(), String> {
        *walked += 1;
        if *walked > limit {
            return Err(format!(
                "more than {limit} move lists: ask for fewer sows (--plies)"
            ));
        }
        if left == 0 {
            if seen.insert(pos.to_state_string()) {
                out.push(Opening {
                    state: None,
                    moves: line.clone(),
                });
            }
            return Ok(());
        }
        for &mv in pos.legal_moves().iter().filter(|&&m| m != Move::Swap) {
            let mut next = pos.clone();
            next.play_unchecked(mv);
            if next.is_over() {
                continue;
            }
            line.push(mv);
            walk(&next, left - 1, line, seen, out, walked, limit)?;
            line.pop();
        }
        Ok(())
    }
    let mut out = Vec::new();
    let mut walked = 0;
    walk(
        &Position::new(ruleset),
        plies,
        &mut Vec::new(),
        &mut HashSet::new(),
        &mut out,
        &mut walked,
        limit,
    )?;
    Ok(out)
}

/// How the values of a suite were found, for the file's header (`db_seeds`: the exact
/// method's database).
pub fn describe(method: Method, db_seeds: usize) -> String {
    match method {
        Method::Exact { nodes } => format!(
            "exact perfect-play values from the solver (endgame database of {db_seeds} seeds, at most {} M nodes per position)",
            nodes / 1_000_000
        ),
        Method::Estimate { depth } => format!(
            "heuristic values from a depth-{depth} alpha-beta search (not exact)"
        ),
    }
}

/// One valued opening: the first mover's final store margin (seeds) with best play from it.
#[derive(Clone, Debug, PartialEq)]
pub struct Valued {
    pub opening: Opening,
    pub value: f64,
}

/// The first mover's (South's) margin with best play from `opening`'s position in `ruleset`
/// (see [`Valuer::margin`]), or `None` when it could not be valued.
pub fn first_mover_value(valuer: &mut Valuer, ruleset: Ruleset, opening: &Opening) -> Option<f64> {
    let pos = opening.position(ruleset).ok()?;
    let sign = if pos.to_move()? == Side::South {
        1.0
    } else {
        -1.0
    };
    // `+ 0.0` turns the -0 of a lost sign into 0.
    Some(sign * valuer.margin(&pos)? + 0.0)
}

/// The endgame database the exact method of `ruleset` uses by default (what `arena analyse`
/// takes, `mancala_solver::auto`), or `None` when the solver does not handle the ruleset.
pub fn default_db_seeds(ruleset: Ruleset) -> Option<usize> {
    let spec = BoardSpec::from_ruleset(&ruleset).ok()?;
    let (setup, _) = setup_here(&spec, ruleset.seeds(), false, Purpose::Analyse, true);
    Some(setup.db_seeds)
}

/// Values `candidates` on `valuers.len()` threads, in batches of `batch`, handing each batch
/// (in candidate order, `None` for a position not valued) to `take` until it returns false.
/// Deterministic: what `take` sees does not depend on the threads.
pub fn value_all(
    ruleset: Ruleset,
    candidates: &[Opening],
    valuers: &mut [Valuer],
    batch: usize,
    mut take: impl FnMut(&[(Opening, Option<f64>)]) -> bool,
) {
    for chunk in candidates.chunks(batch.max(1)) {
        let next = AtomicUsize::new(0);
        let results: Mutex<Vec<Option<f64>>> = Mutex::new(vec![None; chunk.len()]);
        std::thread::scope(|scope| {
            for valuer in valuers.iter_mut() {
                let (next, results) = (&next, &results);
                scope.spawn(move || loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(opening) = chunk.get(i) else { break };
                    let v = first_mover_value(valuer, ruleset, opening);
                    results.lock().expect("results lock")[i] = v;
                });
            }
        });
        let results = results.into_inner().expect("results lock");
        let valued: Vec<(Opening, Option<f64>)> = chunk.iter().cloned().zip(results).collect();
        if !take(&valued) {
            return;
        }
    }
}

/// The suite being chosen: in-range candidates grouped by value, in the order they came.
#[derive(Debug, Default)]
pub struct Selection {
    lo: f64,
    hi: f64,
    count: usize,
    groups: BTreeMap<i64, Vec<Valued>>,
    /// Candidates seen, valued, and in range.
    pub seen: usize,
    pub valued: usize,
    pub in_range: usize,
}

impl Selection {
    /// A suite of `count` openings with values in `lo..=hi`.
    pub fn new(count: usize, lo: f64, hi: f64) -> Selection {
        Selection {
            lo,
            hi,
            count,
            ..Selection::default()
        }
    }

    /// One candidate, with its value if it has one.
    pub fn offer(&mut self, opening: Opening, value: Option<f64>) {
        self.seen += 1;
        let Some(value) = value else { return };
        self.valued += 1;
        if value < self.lo || value > self.hi {
            return;
        }
        self.in_range += 1;
        // Group by quarter seeds (search values are in quarter seeds; exact ones whole).
        let key = (value * 4.0).round() as i64;
        self.groups
            .entry(key)
            .or_default()
            .push(Valued { opening, value });
    }

    /// Whether a suite balanced over the values found so far can be taken: at most
    /// `count / values found` openings of each value add up to `count`.
    pub fn is_full(&self) -> bool {
        let g = self.groups.len();
        if g == 0 {
            return false;
        }
        let share = self.count.div_ceil(g);
        self.groups
            .values()
            .map(|v| v.len().min(share))
            .sum::<usize>()
            >= self.count
    }

    /// The openings in range so far per value, lowest value first.
    pub fn counts(&self) -> Vec<(f64, usize)> {
        self.groups
            .iter()
            .map(|(&k, v)| (k as f64 / 4.0, v.len()))
            .collect()
    }

    /// The suite: round-robin over the values (lowest first), each value's openings in the
    /// order they came, until `count` (or the candidates run out).
    pub fn suite(&self) -> Vec<Valued> {
        let mut out = Vec::with_capacity(self.count);
        let mut k = 0;
        while out.len() < self.count {
            let before = out.len();
            for v in self.groups.values() {
                if let Some(x) = v.get(k) {
                    if out.len() < self.count {
                        out.push(x.clone());
                    }
                }
            }
            if out.len() == before {
                break;
            }
            k += 1;
        }
        out
    }
}

/// The value as the file writes it: `+2`, `-4`, `+1.25`.
pub fn format_value(v: f64) -> String {
    if v.fract() == 0.0 {
        format!("{v:+.0}")
    } else {
        format!("{v:+.2}")
    }
}

/// A suite file: the header line(s), then one opening a line with its value as a comment.
pub fn write(header: &[String], suite: &[Valued]) -> String {
    let mut out = String::new();
    for h in header {
        out.push_str("# ");
        out.push_str(h);
        out.push('\n');
    }
    for v in suite {
        out.push_str(&format!("{}  # {}\n", v.opening, format_value(v.value)));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn kalah(pits: u8, seeds: u8) -> Ruleset {
        Ruleset::kalah(pits, seeds)
    }

    #[test]
    fn files_have_comments_and_values() {
        let text = "# header\n\n3 6  # +2\n1\n  # indented comment\n";
        let list = parse(kalah(6, 4), text, "f").unwrap();
        assert_eq!(list.len(), 2);
        assert_eq!(list[0].moves, vec![Move::Pit(3), Move::Pit(6)]);
        let err = parse(kalah(6, 4), "3 9\n", "f").unwrap_err();
        assert!(err.starts_with("f:1:"), "{err}");
    }

    #[test]
    fn positions_are_distinct_and_counted_from_perft() {
        let rules = kalah(6, 4);
        let list = positions(rules, 3, 1_000_000).unwrap();
        let states: HashSet<String> = list
            .iter()
            .map(|o| o.position(rules).unwrap().to_state_string())
            .collect();
        assert_eq!(states.len(), list.len());
        // perft(3) = 185 move lists; transpositions make fewer positions.
        assert!(list.len() <= 185 && list.len() > 100, "{}", list.len());
        assert!(list.iter().all(|o| o.moves.len() == 3));
        assert!(positions(rules, 8, 1000).is_err());
    }

    #[test]
    fn exact_values_are_the_first_movers_margin() {
        // Kalah(4,3) from the start is +6 for the first mover (docs/solved.md); one sow later
        // the value is still the first mover's, whoever is to move.
        let rules = kalah(4, 3);
        let spec = BoardSpec::from_ruleset(&rules).unwrap();
        let method = Method::Exact { nodes: u64::MAX };
        let solver = crate::solver::Solver::new(spec, 16, None);
        let mut valuer = Valuer::new(method, Some(solver), 16);
        let start = Opening::default();
        assert_eq!(first_mover_value(&mut valuer, rules, &start), Some(6.0));
        let after: Vec<f64> = positions(rules, 1, 100)
            .unwrap()
            .iter()
            .map(|o| first_mover_value(&mut valuer, rules, o).unwrap())
            .collect();
        assert_eq!(after.iter().copied().fold(f64::MIN, f64::max), 6.0);
    }

    #[test]
    fn search_values_for_other_rules() {
        let rules: Ruleset = "oware".parse().unwrap();
        let mut valuer = Valuer::new(Method::Estimate { depth: 4 }, None, 16);
        let v = first_mover_value(&mut valuer, rules, &Opening::default()).unwrap();
        assert!(v.abs() < 10.0, "{v}");
    }

    #[test]
    fn selection_is_balanced_over_values() {
        let mut sel = Selection::new(6, -2.0, 2.0);
        // Eight distinct legal openings: one sow from pit 1..=6, or two.
        let o = |k: u8| Opening {
            state: None,
            moves: match k {
                1..=6 => vec![Move::Pit(k)],
                _ => vec![Move::Pit(k - 6), Move::Pit(1)],
            },
        };
        for (k, v) in [
            (1, 0.0),
            (2, 0.0),
            (3, 0.0),
            (4, 0.0),
            (5, 2.0),
            (6, 8.0),
            (7, -2.0),
        ] {
            sel.offer(o(k), Some(v));
        }
        sel.offer(o(8), None);
        assert_eq!((sel.seen, sel.valued, sel.in_range), (8, 7, 6));
        let suite = sel.suite();
        let values: Vec<f64> = suite.iter().map(|v| v.value).collect();
        // Round-robin: -2, 0, +2, then the zeros that are left.
        assert_eq!(values, vec![-2.0, 0.0, 2.0, 0.0, 0.0, 0.0]);
        assert!(
            !sel.is_full(),
            "-2 and +2 have one opening each, not their share of 2"
        );
        let text = write(&["made by a test".to_string()], &suite);
        assert!(
            text.starts_with("# made by a test\n1 1  # -2\n1  # +0\n"),
            "{text}"
        );
        assert_eq!(parse(kalah(6, 4), &text, "t").unwrap().len(), 6);
    }
}
