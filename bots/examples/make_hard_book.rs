//! Writes Hard's opening book (`bots/data/hard-book-kalah6.txt`, read by `bots/src/book.rs`):
//! every position Hard can meet in its first `MOVES` sows of standard Kalah(6,4), Hard in
//! either seat, after any first `ANY` sows (the arena's random openings), each solved exactly
//! with the solver and its cached database. Hard follows its book move (the smallest optimal
//! pit), the other player any move, so the tree stays small.
//!
//! `cargo run --release -p mancala-bots --example make_hard_book -- MOVES ANY [K] [OUT] [BOOK]`
//! (K: the solving database, from the solver's cache folder or built; default 28). Writes
//! `OUT-m.txt` (default OUT `hard-book`) after each of Hard's sows m = 1..=MOVES, so a long
//! run leaves the smaller books on the way; BOOK, a smaller book made before, saves solving its
//! positions again.

use std::collections::{HashMap, HashSet};
use std::sync::Arc;
use std::time::Instant;

use mancala_bots::book::{format_pits, Book};
use mancala_rules::Ruleset;
use mancala_solver::{db, BoardSpec, Db, SBoard, Solver, Sow};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let moves: u32 = args.get(1).map_or(1, |a| a.parse().expect("MOVES"));
    let any: u32 = args.get(2).map_or(2, |a| a.parse().expect("ANY"));
    let k: usize = args.get(3).map_or(28, |a| a.parse().expect("K"));
    let out = args.get(4).map_or("hard-book", String::as_str);
    let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap();
    let t0 = Instant::now();
    let db = Arc::new(Db::load_or_build(spec, k, db::default_dir().as_deref()));
    eprintln!("database K = {k} in {:.1?}", t0.elapsed());
    let mut solver = Solver::new(spec, 2048, Some(db));
    // The positions after 0..=ANY sows of either player; in each, Hard may be the one to move
    // or not.
    let mut roots = HashSet::new();
    let mut layer = vec![spec.start(4)];
    for _ in 0..=any {
        let mut next = Vec::new();
        for b in layer {
            if roots.insert(b.key()) {
                next.extend(children(&spec, &b).into_iter().map(|s| s.next));
            }
        }
        layer = next;
    }
    // Hard's positions at its first sow: the roots themselves, and the roots' replies.
    let mut level: HashSet<u128> = roots.clone();
    for &r in &roots {
        level.extend(replies(&spec, &SBoard::from_key(r)));
    }
    let mut book: HashMap<u128, (i32, usize)> = HashMap::new();
    // A smaller book made before (its positions are not solved again).
    if let Some(path) = args.get(5) {
        let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{path}: {e}"));
        for (b, e) in Book::parse(spec, &text).unwrap().entries() {
            book.insert(b.key(), (e.value, e.pit as usize - 1));
        }
        eprintln!("{path}: {} positions", book.len());
    }
    let t0 = Instant::now();
    for m in 1..=moves {
        let mut next = HashSet::new();
        let mut todo: Vec<u128> = level.into_iter().collect();
        todo.sort_unstable();
        for key in todo {
            let b = SBoard::from_key(key);
            let before = book.len();
            let (_, best) = *book.entry(key).or_insert_with(|| {
                let (v, all) = solver.best_moves(&b, 0, &mut |_| false).unwrap();
                (v, all[0])
            });
            if book.len() > before && book.len() % 100 == 0 {
                eprintln!("level {m}: {} positions, {:.0?}", book.len(), t0.elapsed());
            }
            let s = b.sow(&spec, best);
            if s.over {
                continue;
            }
            if s.extra {
                next.insert(s.next.key());
            } else {
                next.extend(replies(&spec, &s.next));
            }
        }
        write(&format!("{out}-{m}.txt"), &book, m, any, k);
        eprintln!(
            "level {m} done: {} positions, {:.0?}",
            book.len(),
            t0.elapsed()
        );
        level = next;
    }
}

/// The sows of `b`'s mover that do not end the game.
fn children(spec: &BoardSpec, b: &SBoard) -> Vec<Sow> {
    (0..spec.pits)
        .filter(|&i| b.c[i] != 0)
        .map(|i| b.sow(spec, i))
        .filter(|s| !s.over)
        .collect()
}

/// The positions where the player *not* to move in `b` is next to move, after every sequence
/// of sows `b`'s mover can play (extra-turn chains followed to their end).
fn replies(spec: &BoardSpec, b: &SBoard) -> Vec<u128> {
    let mut out = Vec::new();
    for s in children(spec, b) {
        if s.extra {
            out.extend(replies(spec, &s.next));
        } else {
            out.push(s.next.key());
        }
    }
    out
}

fn write(path: &str, book: &HashMap<u128, (i32, usize)>, moves: u32, any: u32, k: usize) {
    let mut rows: Vec<(u128, i32, usize)> = book.iter().map(|(&k, &(v, i))| (k, v, i)).collect();
    rows.sort_unstable_by_key(|r| r.0);
    let mut text = String::new();
    text.push_str("# Hard's opening book for Kalah with 6 pits (bots/src/book.rs): the mover's pits 1-6 / the opponent's pits 1-6 (seeds, one base-36 digit a pit), the exact value (the mover's future gain), the smallest optimal pit\n");
    text.push_str(&format!(
        "# cargo run --release -p mancala-bots --example make_hard_book -- {moves} {any} {k}: {} positions\n",
        rows.len()
    ));
    for (key, v, i) in rows {
        let c = SBoard::from_key(key).c;
        let (mine, theirs) = (format_pits(&c[..6]), format_pits(&c[8..14]));
        text.push_str(&format!("{mine}/{theirs} {v} {}\n", i + 1));
    }
    std::fs::write(path, text).unwrap_or_else(|e| panic!("{path}: {e}"));
}
