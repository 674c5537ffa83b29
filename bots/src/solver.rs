//! `solver`: perfect play for Kalah with the exact solver of `mancala_solver`
//! (docs/bots.md, docs/solved.md).
//!
//! Design decisions, and why:
//!
//! - **Proven moves inside the budget**: the exact MTD(f) search runs for at most half of the
//!   move's time budget (with `go infinite`, until `stop`; a bare `go`: [`BARE_GO`]). If it finishes, the move
//!   played is proven optimal and `info ... score exact <margin>` reports the final store
//!   difference with perfect play. If not, the remaining half goes to the `alphabeta` bot's Hard
//!   level, and its move is played: the best the search has, never a claim of perfection.
//! - **Tables persist**: the solver's TT is kept across moves and games of the same rules (a
//!   position's value never depends on its history); the endgame database is loaded from the
//!   documented cache folder or built at `newgame` (before `isready`) and then saved there.
//! - **`go depth N`** is answered by alpha-beta at that depth (the exact search has no depth);
//!   `go nodes N` caps the exact search's nodes (then alpha-beta as above).
//! - **Other rules**: Oware, Congkak, and a Kalah position where `swap` is legal (pie rule) are
//!   played by the alpha-beta fallback, and an `info string` says so once per game.

use std::time::Duration;

use mancala_protocol::{Info, OptionDecl, OptionKind, Score};
use mancala_rules::{Move, Position, Ruleset};
use mancala_solver::{db, BoardSpec, Purpose, Solver};

use crate::alphabeta::AlphaBetaBot;
use crate::engine_loop::{Bot, Search};

/// How long the exact search may run on a `go` without any limit.
pub const BARE_GO: Duration = Duration::from_secs(2);

/// The solver bot; see the module docs.
pub struct SolverBot {
    tt_mib: usize,
    /// `None`: the default of `mancala_solver::auto` for a bot.
    db_seeds: Option<usize>,
    db_cache: bool,
    solver: Option<Solver>,
    fallback: AlphaBetaBot,
    warned: bool,
}

impl Default for SolverBot {
    fn default() -> Self {
        SolverBot {
            tt_mib: 256,
            db_seeds: None,
            db_cache: true,
            solver: None,
            fallback: AlphaBetaBot::default(),
            warned: false,
        }
    }
}

impl SolverBot {
    fn prepare(&mut self, ruleset: Ruleset) {
        let Ok(spec) = BoardSpec::from_ruleset(&ruleset) else {
            return;
        };
        if let Some(solver) = &self.solver {
            // A new game: what the last one proved is kept for every program (the value cache).
            if let Some(values) = solver.values() {
                let _ = values.flush();
            }
            if solver.spec() == spec {
                return;
            }
        }
        // The setup `arena solve` would choose for a bot (`mancala_solver::auto`): a small
        // database built at `newgame`, or a larger one already cached (mapped at once); the
        // value cache only with the cache folder (`DbCache`).
        let (setup, cached) =
            mancala_solver::setup_here(&spec, ruleset.seeds(), false, Purpose::Bot, self.db_cache);
        let mut setup = match self.db_seeds {
            Some(k) => setup.with_db_seeds(&spec, k, &cached),
            None => setup,
        };
        setup.tt_mib = self.tt_mib;
        let dir = if self.db_cache {
            db::default_dir()
        } else {
            None
        };
        self.solver = Some(mancala_solver::open(
            spec,
            &setup,
            dir.as_deref(),
            self.db_cache,
            &|_| {},
        ));
    }
}

impl Bot for SolverBot {
    fn name(&self) -> String {
        format!("solver {}", env!("CARGO_PKG_VERSION"))
    }

    fn options(&self) -> Vec<OptionDecl> {
        vec![
            OptionDecl {
                name: "Hash".into(),
                kind: OptionKind::Spin {
                    default: 256,
                    min: 1,
                    max: 16384,
                },
            },
            OptionDecl {
                name: "DbSeeds".into(),
                kind: OptionKind::Spin {
                    default: -1,
                    min: -1,
                    max: db::MAX_DB_SEEDS as i64,
                },
            },
            OptionDecl {
                name: "DbCache".into(),
                kind: OptionKind::Check { default: true },
            },
        ]
    }

    fn set_option(&mut self, name: &str, value: &str) -> Result<(), String> {
        let int = || value.trim().parse::<i64>().map_err(|e| e.to_string());
        match name {
            "Hash" => self.tt_mib = int()?.clamp(1, 16384) as usize,
            "DbSeeds" => {
                let k = int()?;
                self.db_seeds = (k >= 0).then(|| (k as usize).min(db::MAX_DB_SEEDS));
            }
            "DbCache" => self.db_cache = value.trim() == "true",
            _ => return Err(format!("unknown option `{name}`")),
        }
        self.solver = None; // rebuilt with the new settings at the next game
        Ok(())
    }

    fn ready(&mut self) {
        self.fallback.ready();
    }

    fn new_game(&mut self, ruleset: Ruleset, seed: u64) {
        self.fallback.new_game(ruleset, seed);
        self.warned = false;
        self.prepare(ruleset);
    }

    fn think(&mut self, pos: &Position, search: &mut Search<'_>) -> Move {
        self.prepare(pos.ruleset());
        // The position's solver board, or the sentence saying why the solver does not value
        // it (a rule it does not model, `swap` legal, too many seeds).
        let board =
            BoardSpec::from_ruleset(&pos.ruleset()).and_then(|s| s.solver_board(pos.board()));
        if search.limits.depth.is_some() {
            // The exact search has no depth; a depth-limited `go` is alpha-beta's to answer.
            return self.fallback.think(pos, search);
        }
        let (Some(solver), &Ok((b, diff))) = (self.solver.as_mut(), &board) else {
            if !self.warned {
                self.warned = true;
                let why = board
                    .err()
                    .map_or_else(|| "no solver".into(), |e| e.to_string());
                search.info(&Info {
                    string: Some(format!("solver: {why}; playing alpha-beta")),
                    ..Info::default()
                });
            }
            return self.fallback.think(pos, search);
        };
        let budget = search.time_budget();
        // A bare `go` (no clock, not `infinite`) lets the bot choose: a few seconds.
        let solve_for = match budget {
            Some(b) => Some(b / 2),
            None if search.limits.infinite => None,
            None => Some(BARE_GO),
        };
        let node_cap = search.limits.nodes;
        let started = search.started;
        solver.reset_nodes();
        let result = {
            let s: &Search<'_> = search;
            let mut abort = |n: u64| {
                s.stopped()
                    || solve_for.is_some_and(|d| started.elapsed() >= d)
                    || node_cap.is_some_and(|c| n >= c)
            };
            solver.solve_with_move(&b, 0, &mut abort)
        };
        let elapsed = started.elapsed();
        let nodes = solver.nodes;
        match result {
            Some((v, i)) => {
                let mv = Move::Pit(i as u8 + 1);
                search.info(&Info {
                    score: Some(Score::Exact(diff + v)),
                    nodes: Some(nodes),
                    nps: Some(nps(nodes, elapsed)),
                    time: Some(elapsed.as_millis() as u64),
                    pv: vec![mv],
                    ..Info::default()
                });
                mv
            }
            None => {
                search.info(&Info {
                    string: Some(format!(
                        "solver: not proven in {} ms ({nodes} nodes); alpha-beta picks the move",
                        elapsed.as_millis()
                    )),
                    ..Info::default()
                });
                self.fallback.think(pos, search)
            }
        }
    }
}

fn nps(nodes: u64, t: Duration) -> u64 {
    (nodes as f64 / t.as_secs_f64().max(1e-6)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use mancala_protocol::GoLimits;
    use mancala_solver::minimax;
    use std::sync::atomic::AtomicU64;

    /// On a small board every move is proven optimal and reported with `score exact`.
    #[test]
    fn plays_proven_optimal_moves() {
        let ruleset: Ruleset = "kalah:pits=3,seeds=3".parse().unwrap();
        let spec = BoardSpec::from_ruleset(&ruleset).unwrap();
        let mut bot = SolverBot {
            tt_mib: 4,
            db_seeds: Some(6),
            db_cache: false,
            ..SolverBot::default()
        };
        bot.new_game(ruleset, 1);
        let mut pos = Position::new(ruleset);
        while !pos.is_over() {
            let stop = AtomicU64::new(0);
            let mut out = Vec::new();
            let limits = GoLimits {
                movetime: Some(5000),
                ..GoLimits::default()
            };
            let mv = {
                let mut search = Search::new(limits, &stop, &mut out);
                bot.think(&pos, &mut search)
            };
            let (b, diff) = spec.board_of(pos.board()).unwrap();
            let best = minimax(&spec, &b);
            let Move::Pit(k) = mv else { panic!("swap") };
            let s = b.sow(&spec, k as usize - 1);
            let got = if s.over {
                s.gain
            } else if s.extra {
                s.gain + minimax(&spec, &s.next)
            } else {
                s.gain - minimax(&spec, &s.next)
            };
            assert_eq!(got, best, "move {mv} is not optimal");
            let text = String::from_utf8(out).unwrap();
            assert!(
                text.contains(&format!("score exact {}", diff + best)),
                "{text}"
            );
            pos.play(mv).unwrap();
        }
    }

    /// Kalah under the pie rule: the solver's values leave the swap out, so the bot says so
    /// and plays alpha-beta (which plays the real rules) from the first move.
    #[test]
    fn unmodelled_rules_fall_back_to_alphabeta_with_the_reason() {
        for rules in [
            "kalah:pits=4,seeds=2,pie=true",
            "kalah:pits=4,seeds=2,sow_cap=1",
        ] {
            let ruleset: Ruleset = rules.parse().unwrap();
            let mut bot = SolverBot {
                tt_mib: 4,
                db_seeds: Some(0),
                db_cache: false,
                ..SolverBot::default()
            };
            bot.new_game(ruleset, 1);
            assert!(bot.solver.is_none(), "{rules}: a solver was opened");
            let pos = Position::new(ruleset);
            let stop = AtomicU64::new(0);
            let mut out = Vec::new();
            let limits = GoLimits {
                movetime: Some(100),
                ..GoLimits::default()
            };
            let mv = {
                let mut search = Search::new(limits, &stop, &mut out);
                bot.think(&pos, &mut search)
            };
            assert!(pos.is_legal(mv));
            let text = String::from_utf8(out).unwrap();
            assert!(
                text.contains("solver: the solver does not model")
                    && text.contains("playing alpha-beta"),
                "{rules}: {text}"
            );
        }
    }

    #[test]
    fn other_games_fall_back_to_alphabeta() {
        let ruleset = Ruleset::oware();
        let mut bot = SolverBot::default();
        bot.new_game(ruleset, 1);
        let pos = Position::new(ruleset);
        let stop = AtomicU64::new(0);
        let mut out = Vec::new();
        let limits = GoLimits {
            depth: Some(2),
            ..GoLimits::default()
        };
        let mut search = Search::new(limits, &stop, &mut out);
        let mv = bot.think(&pos, &mut search);
        assert!(pos.is_legal(mv));
    }
}
