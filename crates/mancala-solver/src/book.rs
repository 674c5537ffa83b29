//! Books of solved positions: exact values and an optimal sow of positions solved offline,
//! committed as text. Two read them: Hard's opening book (the bots crate) and the Kalah(6,5)
//! openings book, which the value cache serves ([`Book::openings`]).
//!
//! A position's value and best sows depend only on the pits (the solver's view: the mover's
//! pits, then the opponent's), not on the stores or the seeds per pit of the ruleset, so
//! entries are keyed by the pits alone and serve any Kalah ruleset with the same board rules.
//!
//! Why a Kalah(6,5) book: the first sows of a Kalah(6,5) game (55–60 seeds in the pits) take
//! 30 M to 430 M nodes each with the 30-seed database, far beyond what the mistake meter
//! spends on a position, while every later sow of the same games proves within its budget
//! (docs/solved.md, "The Kalah(6,5) openings book").

use std::collections::HashMap;
use std::sync::OnceLock;

use mancala_rules::{Board, Ruleset};

use crate::board::{plausible, BoardSpec, SBoard};

/// The committed Kalah(6,5) openings book (standard Kalah rules, 6 pits per side).
const KALAH6X5_OPENINGS: &str = include_str!("../data/kalah6x5-openings.txt");

/// One book position: its exact value (the mover's future gain with perfect play) and an
/// optimal pit (1-based).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Entry {
    pub value: i32,
    pub pit: u8,
}

/// A parsed book: the board rules it was solved under and its positions.
#[derive(Debug)]
pub struct Book {
    spec: BoardSpec,
    entries: HashMap<u128, Entry>,
}

impl Book {
    /// Parses a book for `spec`. Lines: `m1m2...mN/o1o2...oN VALUE PIT` (the mover's pits, then
    /// the opponent's, each numbered from its own left, one base-36 digit a pit as
    /// [`format_pits`] writes them; `#` starts a comment line).
    /// Errors name the line and what is wrong with it.
    pub fn parse(spec: BoardSpec, text: &str) -> Result<Book, String> {
        let mut entries = HashMap::new();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |what: String| format!("book line {}: {what}: `{line}`", n + 1);
            let mut fields = line.split_whitespace();
            let (Some(pits), Some(value), Some(pit), None) =
                (fields.next(), fields.next(), fields.next(), fields.next())
            else {
                return Err(at("expected `PITS VALUE PIT`".into()));
            };
            let board = parse_pits(spec, pits).map_err(at)?;
            let value: i32 = value
                .parse()
                .map_err(|_| at(format!("value `{value}` is not an integer")))?;
            let pit: u8 = pit
                .parse()
                .ok()
                .filter(|&p| (1..=spec.pits as u8).contains(&p))
                .ok_or_else(|| at(format!("pit `{pit}` is not 1..={}", spec.pits)))?;
            if board.c[pit as usize - 1] == 0 {
                return Err(at(format!("pit {pit} is empty")));
            }
            let seeds = board.seeds();
            if !plausible(&spec, seeds, value) {
                return Err(at(format!(
                    "value {value} is impossible with {seeds} seeds in the pits"
                )));
            }
            if entries.insert(board.key(), Entry { value, pit }).is_some() {
                return Err(at("position listed twice".into()));
            }
        }
        Ok(Book { spec, entries })
    }

    /// The committed Kalah(6,5) openings book when `spec` is standard Kalah with 6 pits per
    /// side (any seeds per pit: entries are keyed by the pits), else `None`.
    pub fn openings(spec: &BoardSpec) -> Option<&'static Book> {
        static BOOK: OnceLock<Book> = OnceLock::new();
        let book = BOOK.get_or_init(|| {
            let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).expect("Kalah(6,5)");
            Book::parse(spec, KALAH6X5_OPENINGS).expect("data/kalah6x5-openings.txt")
        });
        (book.spec == *spec).then_some(book)
    }

    /// The board rules the book was solved under.
    pub fn spec(&self) -> BoardSpec {
        self.spec
    }

    /// The entry for solver board `b`, if the book holds it.
    pub fn get(&self, b: &SBoard) -> Option<Entry> {
        self.entries.get(&b.key()).copied()
    }

    /// The book's entry for the position on `board` (`None` if it is not in the book, or not a
    /// position the solver values: game over, or `swap` legal).
    pub fn lookup(&self, board: &Board) -> Option<Entry> {
        let (b, _) = self.spec.board_of(board)?;
        self.get(&b)
    }

    /// Every position with its entry (for tests and tools).
    pub fn entries(&self) -> impl Iterator<Item = (SBoard, Entry)> + '_ {
        self.entries.iter().map(|(&k, &e)| (SBoard::from_key(k), e))
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Checks every entry against the positions its sows lead to, where the book decides them
    /// (minimax through the book to `depth` sows, over game ends and extra turns): the entry's
    /// pit is worth the entry's value and no sow is worth more (and, with `smallest`, none to
    /// the left of the pit as much). Returns how many entries could be checked, or the first
    /// disagreement. Why: a book is data, and one wrong line would be served as proven.
    pub fn check_minimax(&self, depth: u32, smallest: bool) -> Result<usize, String> {
        let mut checked = 0;
        for (b, e) in self.entries() {
            let Some(v) = self.sow_value(&b, e.pit as usize - 1, depth) else {
                continue;
            };
            if v != e.value {
                return Err(format!(
                    "{b:?}: pit {} is worth {v}, not {}",
                    e.pit, e.value
                ));
            }
            for i in (0..self.spec.pits).filter(|&i| b.c[i] != 0) {
                match self.sow_value(&b, i, depth) {
                    Some(w) if w > e.value => {
                        return Err(format!("{b:?}: pit {} is worth {w} > {}", i + 1, e.value))
                    }
                    Some(w) if smallest && w == e.value && i + 1 < e.pit as usize => {
                        return Err(format!("{b:?}: pit {} ties pit {}", i + 1, e.pit))
                    }
                    _ => {}
                }
            }
            checked += 1;
        }
        Ok(checked)
    }

    /// Solves `lines` (some of this book's) again with `solver`: each must have the book's
    /// value, and the book's pit must keep it. The first disagreement is the error.
    pub fn solve_again(
        &self,
        solver: &mut crate::Solver,
        lines: &[(SBoard, Entry)],
    ) -> Result<(), String> {
        for (b, e) in lines {
            let v = solver
                .solve(b, e.value, &mut |_| false)
                .expect("never aborted");
            if v != e.value {
                return Err(format!("{b:?}: the solver says {v}, the book {}", e.value));
            }
            let pit = e.pit as usize - 1;
            if solver.move_at_least(b, pit, v, &mut |_| false) != Some(true) {
                return Err(format!("{b:?}: pit {} does not keep {v}", e.pit));
            }
        }
        Ok(())
    }

    /// The value of `b` for its mover by minimax through the book: the book's value at a book
    /// position, else the best sow found by expanding until book positions or game ends;
    /// `None` if some line leaves the book first (or goes deeper than `depth` sows).
    fn through(&self, b: &SBoard, depth: u32) -> Option<i32> {
        if let Some(e) = self.get(b) {
            return Some(e.value);
        }
        if depth == 0 {
            return None;
        }
        let mut best = None;
        for i in (0..self.spec.pits).filter(|&i| b.c[i] != 0) {
            best = best.max(Some(self.sow_value(b, i, depth - 1)?));
        }
        best
    }

    /// The value of sowing pit `i` (0-based) in `b`, through the book as in [`Book::through`].
    fn sow_value(&self, b: &SBoard, i: usize, depth: u32) -> Option<i32> {
        let s = b.sow(&self.spec, i);
        Some(if s.over {
            s.gain
        } else if s.extra {
            s.gain + self.through(&s.next, depth)?
        } else {
            s.gain - self.through(&s.next, depth)?
        })
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// `m1...mN/o1...oN` (one base-36 digit per pit: `0`-`9`, then `a` = 10 to `z` = 35) as a solver
/// board.
fn parse_pits(spec: BoardSpec, s: &str) -> Result<SBoard, String> {
    let n = spec.pits;
    let rows: Vec<&str> = s.split('/').collect();
    let [mine, theirs] = rows[..] else {
        return Err("expected the mover's pits / the opponent's pits".into());
    };
    let mut b = SBoard::default();
    for (row, offset, whose) in [(mine, 0, "mover's"), (theirs, 8, "opponent's")] {
        if row.chars().count() != n {
            return Err(format!(
                "{} {whose} pits, expected {n}",
                row.chars().count()
            ));
        }
        for (i, c) in row.chars().enumerate() {
            b.c[offset + i] = c
                .to_digit(36)
                .filter(|_| !c.is_ascii_uppercase())
                .ok_or_else(|| format!("{whose} pit {}: `{c}` is not a seed count", i + 1))?
                as u8;
        }
    }
    if !b.mover_can_move() {
        return Err("the mover has no seeds (a finished position)".into());
    }
    Ok(b)
}

/// A row of pits as [`Book::parse`] reads it.
pub fn format_pits(pits: &[u8]) -> String {
    pits.iter()
        .map(|&c| char::from_digit(u32::from(c), 36).expect("at most 35 seeds in a pit"))
        .collect()
}

/// A book line for `b`'s entry `e`, as [`Book::parse`] reads it.
pub fn format_entry(spec: &BoardSpec, b: &SBoard, e: Entry) -> String {
    let n = spec.pits;
    format!(
        "{}/{} {} {}",
        format_pits(&b.c[..n]),
        format_pits(&b.c[8..8 + n]),
        e.value,
        e.pit
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn spec() -> BoardSpec {
        BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap()
    }

    #[test]
    fn pits_are_one_base_36_digit_each() {
        let b = parse_pits(spec(), "09az00/100000").unwrap();
        assert_eq!(&b.c[..6], &[0, 9, 10, 35, 0, 0]);
        assert_eq!(&b.c[8..14], &[1, 0, 0, 0, 0, 0]);
        assert_eq!(format_pits(&b.c[..6]), "09az00");
        let e = Entry { value: -3, pit: 2 };
        let line = format_entry(&spec(), &b, e);
        assert_eq!(line, "09az00/100000 -3 2");
        assert_eq!(Book::parse(spec(), &line).unwrap().get(&b), Some(e));
    }

    #[test]
    fn bad_lines_are_refused_with_their_line_number() {
        let cases = [
            ("444444/444444 8", "expected `PITS VALUE PIT`"),
            ("44444/444444 8 3", "5 mover's pits, expected 6"),
            (
                "44444!/444444 8 3",
                "mover's pit 6: `!` is not a seed count",
            ),
            (
                "444444/4444A4 8 3",
                "opponent's pit 5: `A` is not a seed count",
            ),
            ("444444/444444 8 7", "pit `7` is not 1..=6"),
            ("440444/444444 8 3", "pit 3 is empty"),
            (
                "100000/100000 4 1",
                "value 4 is impossible with 2 seeds in the pits",
            ),
            (
                "100000/100000 1 1",
                "value 1 is impossible with 2 seeds in the pits",
            ),
            ("000000/100000 0 1", "the mover has no seeds"),
        ];
        for (line, want) in cases {
            let err = Book::parse(spec(), &format!("# comment\n{line}")).unwrap_err();
            assert!(err.contains(want), "{line}: {err}");
            assert!(err.starts_with("book line 2:"), "{err}");
        }
        let twice = "100000/100000 2 1\n100000/100000 2 1";
        assert!(Book::parse(spec(), twice)
            .unwrap_err()
            .contains("book line 2: position listed twice"));
    }

    /// The book is keyed by the pits, so it serves Kalah with 6 pits and the standard board
    /// rules whatever the seeds per pit; other boards and capture rules have other values.
    #[test]
    fn the_openings_book_serves_standard_six_pit_kalah_only() {
        let of = |rules: &str| {
            let r: Ruleset = rules.parse().unwrap();
            Book::openings(&BoardSpec::from_ruleset(&r).unwrap()).is_some()
        };
        assert!(of("kalah:seeds=5") && of("kalah"));
        assert!(!of("kalah:empty_capture=true") && !of("kalah:pits=4"));
    }

    /// A wrong book line would be served as proven: every line must agree with the lines its
    /// sows lead to. The book holds the games' successive positions, so most lines are checked
    /// (a line whose sows all lead out of the book is not).
    #[test]
    fn the_openings_book_agrees_with_the_positions_it_leads_to() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).unwrap();
        let book = Book::openings(&spec).unwrap();
        assert!(book.len() >= 50, "{} positions", book.len());
        let checked = book.check_minimax(2, false).unwrap();
        assert!(
            checked * 4 >= book.len(),
            "only {checked} of {} checked",
            book.len()
        );
        // Opening positions of Kalah(6,5): 50 or more of the 60 seeds still in the pits.
        for (b, e) in book.entries() {
            assert!((50..=60).contains(&b.seeds()), "{b:?} {e:?}");
        }
    }

    /// The published value of Kalah(6,5): the first player wins by 10 with perfect play
    /// (Rawlings, 2015).
    #[test]
    fn the_start_of_kalah_6_5_is_worth_10() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).unwrap();
        let start = Board::new(Ruleset::kalah(6, 5));
        let book = Book::openings(&spec).unwrap();
        assert_eq!(book.lookup(&start).map(|e| e.value), Some(10));
    }

    /// A broken line is caught by the check: one entry's value changed by 2 (parity kept).
    #[test]
    fn the_check_catches_a_changed_value() {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).unwrap();
        let book = Book::openings(&spec).unwrap();
        let checked: Vec<(SBoard, Entry)> = book
            .entries()
            .filter(|(b, e)| book.sow_value(b, e.pit as usize - 1, 2).is_some())
            .collect();
        let (b, e) = checked[0];
        let text: String = book
            .entries()
            .map(|(x, mut f)| {
                if x == b {
                    f.value = e.value + 2;
                }
                format_entry(&spec, &x, f) + "\n"
            })
            .collect();
        let broken = Book::parse(spec, &text).unwrap();
        assert!(broken.check_minimax(2, false).is_err());
    }

    /// Four lines of the book (the fewest seeds) solved again with the 30-seed database from the
    /// cache folder (`arena solve --rules kalah:seeds=5 --dry-run` says how to make it): the
    /// same value, and the book's pit keeps it. Release build, minutes:
    /// `cargo test --release -p mancala-solver --lib -- --ignored book::tests::sampled`.
    #[test]
    #[ignore = "release build and the cached 30-seed database: solves 4 positions of 50 or more seeds"]
    fn sampled_openings_match_the_solver() {
        use crate::{db, Db, Solver};
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).unwrap();
        let book = Book::openings(&spec).unwrap();
        let Some(Ok(db)) = db::default_dir().map(|d| Db::load_cached_only(&d, spec, 30)) else {
            eprintln!("SKIPPED: no cached 30-seed database for Kalah with 6 pits");
            return;
        };
        let mut solver = Solver::new(spec, 2048, Some(std::sync::Arc::new(db)));
        let mut all: Vec<(SBoard, Entry)> = book.entries().collect();
        all.sort_unstable_by_key(|(b, _)| (b.seeds(), b.c));
        book.solve_again(&mut solver, &all[..4]).unwrap();
    }
}
