//! Hard's opening book: the exact best sow of every position Hard can meet in its first sows of
//! standard Kalah (6 pits), solved offline by the exact solver (`bots/examples/make_hard_book.rs`)
//! and committed as `bots/data/hard-book-kalah6.txt` (docs/bots.md).
//!
//! Why a book: Hard's mistakes were mostly in the opening (13 % of its sows with 40 or more
//! seeds in the pits lost value, half of all its mistakes in its first four sows), where its
//! 300 000-node search sees least of the game (docs/solved.md, "Mistake rates of the alpha-beta
//! levels"); there the solver needs a large database, which a level cannot count on, so its
//! answers are stored instead.
//!
//! The book's format and reader are the solver crate's ([`mancala_solver::book`]): entries are
//! keyed by the pits alone and serve any Kalah ruleset with the same board rules.

use std::sync::OnceLock;

use mancala_rules::Ruleset;
use mancala_solver::BoardSpec;

pub use mancala_solver::book::{format_entry, format_pits, Book, Entry};

/// The committed book (standard Kalah rules, 6 pits per side).
const KALAH6: &str = include_str!("../data/hard-book-kalah6.txt");

/// Hard's committed book for standard Kalah with 6 pits per side.
pub fn kalah6() -> &'static Book {
    static BOOK: OnceLock<Book> = OnceLock::new();
    BOOK.get_or_init(|| {
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).expect("Kalah(6,4)");
        Book::parse(spec, KALAH6).expect("bots/data/hard-book-kalah6.txt")
    })
}

/// Hard's book if it serves `ruleset` (Kalah with the standard board rules, 6 pits).
pub fn for_ruleset(ruleset: &Ruleset) -> Option<&'static Book> {
    let book = kalah6();
    (BoardSpec::from_ruleset(ruleset).ok() == Some(book.spec())).then_some(book)
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Board;
    use mancala_solver::SBoard;

    /// The committed book agrees with the published value of Kalah(6,4): the first player wins
    /// by 8 with perfect play (Irving, Donkers and Uiterwijk, 2000).
    /// Hard's book holds standard Kalah(6,4) values: under the pie rule or a low sow cap they
    /// are not the game's, so no book serves those rules.
    #[test]
    fn no_book_under_rules_the_solver_does_not_model() {
        assert!(for_ruleset(&Ruleset::kalah(6, 4)).is_some());
        for rules in ["kalah:pie=true", "kalah:sow_cap=20"] {
            let r: Ruleset = rules.parse().unwrap();
            assert!(for_ruleset(&r).is_none(), "{rules}");
        }
    }

    #[test]
    fn the_start_of_kalah_6_4_is_worth_8() {
        let book = kalah6();
        let start = Board::new(Ruleset::kalah(6, 4));
        assert_eq!(book.lookup(&start).map(|e| e.value), Some(8));
    }

    /// Minimax consistency ([`Book::check_minimax`]); Hard's book keeps the smallest optimal
    /// pit.
    #[test]
    fn book_values_agree_with_the_positions_they_lead_to() {
        let book = kalah6();
        assert!(book.len() > 100, "{} positions", book.len());
        let checked = book.check_minimax(4, true).unwrap();
        // The positions of Hard's first two sows lead into the book; the last level's do not.
        assert!(
            checked * 8 >= book.len(),
            "only {checked} of {} checked",
            book.len()
        );
    }

    /// Twenty entries spread over the book (sorted by position) solved again by the solver with the K = 18
    /// database (built once into the cache folder, as for the solver's own release tests):
    /// the same value, and the book's pit is an optimal one. Release build:
    /// `cargo test --release -p mancala-bots --lib -- --ignored book::tests::sampled`.
    #[test]
    #[ignore = "release build: solves about 20 positions of 40 or more seeds"]
    fn sampled_entries_match_the_solver() {
        use mancala_solver::{db, Db, Solver};
        let book = kalah6();
        let k = 18;
        let db = Db::load_or_build(book.spec(), k, db::default_dir().as_deref());
        let mut solver = Solver::new(book.spec(), 512, Some(std::sync::Arc::new(db)));
        let mut all: Vec<(SBoard, Entry)> = book.entries().collect();
        all.sort_unstable_by_key(|(b, _)| b.key());
        let sample: Vec<(SBoard, Entry)> = all.iter().step_by(all.len() / 20).copied().collect();
        book.solve_again(&mut solver, &sample).unwrap();
    }

    #[test]
    fn the_book_serves_standard_kalah6_only() {
        assert!(for_ruleset(&Ruleset::kalah(6, 4)).is_some());
        assert!(for_ruleset(&Ruleset::kalah(6, 5)).is_some());
        assert!(for_ruleset(&"kalah:empty_capture=true".parse().unwrap()).is_none());
        assert!(for_ruleset(&Ruleset::kalah(4, 4)).is_none());
        assert!(for_ruleset(&Ruleset::oware()).is_none());
    }
}
