//! Writes the Kalah(6,5) openings book (`crates/mancala-solver/data/kalah6x5-openings.txt`,
//! read by `src/book.rs`) from a value cache: every position it holds with at least
//! `MIN_SEEDS` seeds in the pits and a proven optimal pit, joined with the committed book.
//!
//! `cargo run --release -p mancala-solver --example make_openings_book -- DIR MIN_SEEDS [OUT]`
//! (DIR: the folder of the value cache, `MANCALA_SOLVER_DB` of the run that proved the
//! positions; OUT: default `kalah6x5-openings.txt`). The book made this way came from
//! `arena analyse benches/analyse-levels-6x5.pgn --nodes 100000000000` (docs/solved.md).

use std::path::Path;

use mancala_rules::Ruleset;
use mancala_solver::book::{format_entry, Book, Entry};
use mancala_solver::{BoardSpec, SBoard, ValueCache};

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (Some(dir), Some(min)) = (args.first(), args.get(1)) else {
        eprintln!("usage: make_openings_book DIR MIN_SEEDS [OUT]");
        std::process::exit(2);
    };
    let min: i32 = min.parse().expect("MIN_SEEDS: a number");
    let out = args.get(2).map_or("kalah6x5-openings.txt", String::as_str);
    let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 5)).expect("Kalah(6,5)");
    let cache = ValueCache::open(&spec, Path::new(dir)).expect("the value cache");
    let mut entries: Vec<(SBoard, Entry)> = Book::openings(&spec)
        .map(|b| b.entries().collect())
        .unwrap_or_default();
    let (mut added, mut no_pit) = (0, 0);
    for (b, known) in cache.known() {
        if b.seeds() < min || entries.iter().any(|(e, _)| e.c == b.c) {
            continue;
        }
        let Some(best) = known.best else {
            no_pit += 1;
            continue;
        };
        let pit = best as u8 + 1;
        entries.push((
            b,
            Entry {
                value: known.value,
                pit,
            },
        ));
        added += 1;
    }
    // Most seeds first (the opening's order), then by position, so that the file is stable.
    entries.sort_by_key(|(b, _)| (-b.seeds(), b.c));
    let mut text = format!(
        "# The Kalah(6,5) openings book (crates/mancala-solver/src/book.rs): the mover's pits 1-6 / \
         the opponent's pits 1-6 (seeds, one base-36 digit a pit), the exact value (the mover's future \
         gain), an optimal pit\n# cargo run --release -p mancala-solver --example make_openings_book \
         -- DIR {min}: {} positions (docs/solved.md, \"The Kalah(6,5) openings book\")\n",
        entries.len()
    );
    for (b, e) in &entries {
        text += &format_entry(&spec, b, *e);
        text.push('\n');
    }
    Book::parse(spec, &text).expect("the book just written reads back");
    std::fs::write(out, text).expect("write the book");
    eprintln!(
        "{out}: {} positions ({added} added; {no_pit} with {min}+ seeds left out: no proven pit kept)",
        entries.len()
    );
}
