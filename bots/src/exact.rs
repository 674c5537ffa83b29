//! Exact play inside a node budget: the solver (`mancala_solver`) with a small endgame database
//! that the bot builds itself, for the Hard level (docs/bots.md). The proven optimal move is
//! the solver's own ([`Solver::solve_with_move`]), as for every other program.
//!
//! Why a database of the bot's own: a level must play the same moves on every machine, so it
//! cannot use whatever larger database the user's cache folder holds. The one of
//! [`HARD_DB_ENTRIES`] entries (K = 12 seeds for 6 pits, 2.7 M entries) is built on one
//! thread (0.37 s of CPU), once per bot process (shared by its bots), and never read from or
//! written to disk.
//!
//! Why a node budget: the solver stops after [`Exact::try_move`]'s `nodes` whatever the clock,
//! so a position is proven, or not, on any machine; its TT is cleared at each game so a game
//! replays exactly.

use std::sync::{Arc, Mutex, OnceLock};

use mancala_rules::{Board, Move, Ruleset};
use mancala_solver::{auto, db, BoardSpec, Db, Solver};

/// Hard's database: at most this many entries (K = 12 for 6 pits). Fixed, not the `solver`
/// bot's size: Hard's moves depend on its solver's node counts, so on this table.
const HARD_DB_ENTRIES: usize = 4 << 20;

/// The solver's TT for Hard (MiB): holds the few hundred thousand positions of a move's budget
/// and carries them to the next move of the game.
const TT_MIB: usize = 16;

/// The strongest skills' database (`Skill` above 20, docs/bots.md): at most this many entries
/// (K = 24 for 6 pits: 1.25 G entries, 1.2 GiB). Fixed for the same reason as Hard's; larger
/// because these skills solve from the middle game on, where Hard's table leaves positions of
/// 10⁷ nodes and more.
pub const DEEP_DB_ENTRIES: usize = 1_300_000_000;

/// The strongest skills' solver TT (MiB).
const DEEP_TT_MIB: usize = 64;

/// A deep table this small is built in memory when it is not cached (well under a second of
/// CPU): the whole game of the small boards.
const DEEP_BUILD_ENTRIES: usize = 32 << 20;

/// The database of `k` seeds for `spec`, made by `make` on first use (built in memory, or
/// mapped from the cache: [`Exact::deep`]) and then shared by every bot of the process (several
/// bots live in one process in tests and tools). The table's values are the same whichever way
/// it comes, so the moves are too.
fn shared_db(
    spec: BoardSpec,
    k: usize,
    make: impl FnOnce() -> Result<Db, String>,
) -> Result<Arc<Db>, String> {
    static BUILT: OnceLock<Mutex<Vec<Arc<Db>>>> = OnceLock::new();
    let mut built = BUILT
        .get_or_init(Mutex::default)
        .lock()
        .unwrap_or_else(|e| e.into_inner());
    if let Some(db) = built
        .iter()
        .find(|d| d.spec() == spec && d.max_seeds() == k)
    {
        return Ok(Arc::clone(db));
    }
    let db = Arc::new(make()?);
    built.push(Arc::clone(&db));
    Ok(db)
}

/// A proven move: the sow and the final store margin it keeps (exact).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Proven {
    pub mv: Move,
    pub margin: i32,
    /// Solver nodes spent.
    pub nodes: u64,
}

/// The solver with Hard's own database, for one ruleset's board rules.
pub struct Exact {
    solver: Solver,
}

impl Exact {
    /// The solver for `ruleset` with the process's database for its board rules (built on
    /// first use), or `None` if the solver cannot value that game (Oware, Congkak, Kalah over
    /// 8 pits).
    pub fn new(ruleset: &Ruleset) -> Option<Exact> {
        let spec = BoardSpec::from_ruleset(ruleset).ok()?;
        // No position holds more seeds than the game.
        let total = 2 * spec.pits * ruleset.seeds() as usize;
        let k = auto::fit_db_seeds(spec.pits, HARD_DB_ENTRIES).min(total);
        Some(Exact::with_db(spec, k))
    }

    /// The strongest skills' solver for `ruleset`, with the database of [`DEEP_DB_ENTRIES`]
    /// from the solver's cache folder `dir` (the default one in play), or built in memory when it
    /// is small; `Err` says why there is none (as [`Exact::new`]'s `None`, or the table is
    /// large and not cached).
    ///
    /// Why not build a large one here: the bot would build it at `newgame`, and the 24-seed
    /// table of 6 pits takes about 24 s of CPU, more than the arena's default 10 s for a bot to
    /// get ready, so every game of a fresh machine was forfeited. It is built once by `arena
    /// solve --rules kalah --db-seeds 24` (or any larger table `arena solve` or `arena analyse`
    /// caches), and the bot says at each game when it is missing.
    pub fn deep(ruleset: &Ruleset, dir: Option<&std::path::Path>) -> Result<Exact, String> {
        let spec = BoardSpec::from_ruleset(ruleset).map_err(|e| e.to_string())?;
        let total = 2 * spec.pits * ruleset.seeds() as usize;
        let k = auto::fit_db_seeds(spec.pits, DEEP_DB_ENTRIES).min(total);
        let small = db::db_entries(spec.pits, k) <= DEEP_BUILD_ENTRIES;
        let db = shared_db(spec, k, || {
            let cached = match dir {
                Some(dir) => Db::load_cached_only(dir, spec, k),
                None => Err("no solver cache folder".into()),
            };
            match cached {
                Ok(db) => Ok(db),
                Err(_) if small => Ok(Db::build_with_threads(spec, k, 1)),
                Err(why) => Err(format!(
                    "{why} (`arena solve --rules {ruleset} --db-seeds {k}` builds it once)"
                )),
            }
        })?;
        Ok(Exact {
            solver: Solver::new(spec, DEEP_TT_MIB, Some(db)),
        })
    }

    /// The solver for `spec` with a database of `k` seeds.
    fn with_db(spec: BoardSpec, k: usize) -> Exact {
        Exact {
            solver: Solver::new(
                spec,
                TT_MIB,
                Some(
                    shared_db(spec, k, || Ok(Db::build_with_threads(spec, k, 1)))
                        .expect("a build cannot fail"),
                ),
            ),
        }
    }

    /// Seeds in the pits up to which the database holds every position.
    pub fn db_seeds(&self) -> usize {
        self.solver.db().map_or(0, |d| d.max_seeds())
    }

    /// The board rules this solver values.
    pub fn spec(&self) -> BoardSpec {
        self.solver.spec()
    }

    /// Forgets what earlier searches found (at a new game, so that games replay exactly).
    pub fn new_game(&mut self) {
        self.solver.clear_tt();
    }

    /// A proven optimal move on `board` within `nodes` solver nodes (or until `stop` says so;
    /// both are looked at every few thousand nodes), or the nodes spent (`Err`: not proven;
    /// also when the solver cannot value the position: game over, `swap` legal).
    pub fn try_move(
        &mut self,
        board: &Board,
        nodes: u64,
        stop: &dyn Fn() -> bool,
    ) -> Result<Proven, u64> {
        let Some((b, diff)) = self.solver.spec().board_of(board) else {
            return Err(0);
        };
        self.solver.reset_nodes();
        let found = self
            .solver
            .solve_with_move(&b, 0, &mut |n| n >= nodes || stop());
        let spent = self.solver.nodes;
        found
            .map(|(v, i)| Proven {
                mv: Move::Pit(i as u8 + 1),
                margin: diff + v,
                nodes: spent,
            })
            .ok_or(spent)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_rules::Position;
    use mancala_solver::{minimax, SBoard};
    use rand::seq::SliceRandom;
    use rand::SeedableRng;
    use rand_chacha::ChaCha8Rng;

    /// The value of `mv` for the mover of `b`, by plain minimax.
    fn minimax_move(spec: &BoardSpec, b: &SBoard, pit: usize) -> i32 {
        let s = b.sow(spec, pit);
        if s.over {
            s.gain
        } else if s.extra {
            s.gain + minimax(spec, &s.next)
        } else {
            s.gain - minimax(spec, &s.next)
        }
    }

    /// Along random Kalah(3,3) games, every move is proven (the database holds the whole
    /// game) and keeps the value plain minimax gives the position.
    /// Hard's and the alpha-beta bots' endgame solver: none for rules the solver does not
    /// model (the search then plays the real rules itself).
    #[test]
    fn no_exact_endgame_under_rules_the_solver_does_not_model() {
        assert!(Exact::new(&"kalah:pits=3,seeds=3".parse().unwrap()).is_some());
        for rules in [
            "kalah:pits=3,seeds=3,pie=true",
            "kalah:pits=3,seeds=3,sow_cap=5",
        ] {
            assert!(Exact::new(&rules.parse().unwrap()).is_none(), "{rules}");
        }
    }

    #[test]
    fn proven_moves_are_optimal_by_plain_minimax() {
        let ruleset: Ruleset = "kalah:pits=3,seeds=3".parse().unwrap();
        let mut exact = Exact::new(&ruleset).unwrap();
        let spec = exact.spec();
        let mut rng = ChaCha8Rng::seed_from_u64(30);
        let mut checked = 0;
        for _ in 0..6 {
            exact.new_game();
            let mut pos = Position::new(ruleset);
            while !pos.is_over() {
                let p = exact.try_move(pos.board(), 1 << 20, &|| false).unwrap();
                let (b, diff) = spec.board_of(pos.board()).unwrap();
                let Move::Pit(k) = p.mv else { panic!("swap") };
                let best = minimax(&spec, &b);
                assert_eq!(minimax_move(&spec, &b, k as usize - 1), best, "{pos}");
                assert_eq!(p.margin, diff + best, "{pos}");
                checked += 1;
                let mv = *pos.legal_moves().choose(&mut rng).unwrap();
                pos.play(mv).unwrap();
            }
        }
        assert!(checked > 30, "{checked}");
    }

    #[test]
    fn a_node_budget_too_small_proves_nothing_and_says_what_it_spent() {
        let ruleset = Ruleset::kalah(4, 4);
        let mut exact = Exact::with_db(BoardSpec::from_ruleset(&ruleset).unwrap(), 8);
        let start = Position::new(ruleset);
        // 32 seeds in the pits, more than the database's 8: the search needs nodes.
        assert_eq!(exact.db_seeds(), 8);
        let spent = exact.try_move(start.board(), 1, &|| false).unwrap_err();
        assert!(spent > 0);
        assert!(exact.try_move(start.board(), u64::MAX, &|| true).is_err());
    }

    /// The strongest skills' 24-seed table of 6 pits is never built by the bot (about 24 s of
    /// CPU, more than a bot gets to be ready: a fresh machine forfeited every game): without it
    /// in the cache folder there is no deep solver, and the reason says how to build it. A
    /// small board's whole game is built at once.
    #[test]
    fn the_deep_table_is_read_from_the_cache_and_never_built_large() {
        let empty = std::env::temp_dir().join(format!("deep-empty-{}", std::process::id()));
        std::fs::create_dir_all(&empty).unwrap();
        let why = Exact::deep(&Ruleset::kalah(6, 4), Some(&empty))
            .err()
            .unwrap();
        assert!(
            why.contains("arena solve --rules kalah --db-seeds 24"),
            "{why}"
        );
        assert!(Exact::deep(&Ruleset::kalah(6, 4), None).is_err());
        assert!(
            std::fs::read_dir(&empty).unwrap().next().is_none(),
            "nothing written"
        );
        let small = Exact::deep(&"kalah:pits=3,seeds=3".parse().unwrap(), Some(&empty));
        assert_eq!(small.map(|e| e.db_seeds()), Ok(18));
        // A damaged cached table is named, not rebuilt (the same 24 s at `newgame`).
        let spec = BoardSpec::from_ruleset(&Ruleset::kalah(6, 4)).unwrap();
        let file = empty.join(Db::file_name(&spec, 26));
        std::fs::write(&file, "mancala-arena solver db v2 cut short\n").unwrap();
        let why = Exact::deep(&Ruleset::kalah(6, 4), Some(&empty))
            .err()
            .unwrap();
        assert!(
            why.contains(&file.display().to_string()) && why.contains("refused"),
            "{why}"
        );
        assert_eq!(
            std::fs::read_dir(&empty).unwrap().count(),
            1,
            "nothing built"
        );
        std::fs::remove_dir_all(&empty).unwrap();
    }

    #[test]
    fn only_kalah_is_solved() {
        assert!(Exact::new(&Ruleset::oware()).is_none());
        assert!(Exact::new(&"congkak".parse().unwrap()).is_none());
    }
}
