//! Valuing a position, by the one rule `arena openings` and the mistake meter share: exact from
//! the solver where it fits (Kalah), else an estimate from the alpha-beta bot's search to a
//! fixed depth (Oware, Congkak), and every value says which of the two it is.
//!
//! Why one place: the rule "exact where the solver fits, else alpha-beta" was written twice,
//! and the two copies could drift (a ruleset valued exactly in one and estimated in the other).

use crate::rules::{GameKind, Position, Ruleset};
use crate::solver::{BoardSpec, Solver};

/// How a position is valued.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Method {
    /// The exact solver, at most `nodes` solver nodes per position (a position not proven
    /// within them has no value).
    Exact { nodes: u64 },
    /// The alpha-beta bot's search to `depth` turns with no noise: a heuristic value.
    Estimate { depth: u32 },
}

impl Method {
    /// Exact where the solver values the ruleset's positions, else the estimate to `depth`.
    pub fn for_ruleset(ruleset: Ruleset, nodes: u64, depth: u32) -> Method {
        if solvable(ruleset) {
            Method::Exact { nodes }
        } else {
            Method::Estimate { depth }
        }
    }

    pub fn is_exact(&self) -> bool {
        matches!(self, Method::Exact { .. })
    }
}

/// Whether the solver values the positions of `ruleset` (Kalah of at most 8 pits, under rules
/// it models: `mancala_solver::check_rules`).
pub fn solvable(ruleset: Ruleset) -> bool {
    ruleset.kind() == GameKind::Kalah && BoardSpec::from_ruleset(&ruleset).is_ok()
}

/// Values positions of one ruleset by one [`Method`]; one per thread.
pub struct Valuer {
    method: Method,
    solver: Option<Solver>,
    /// The estimate's table, MiB (a fresh one per position).
    search_tt_mib: usize,
}

impl Valuer {
    /// A valuer by `method`; `solver` is the exact method's, for the ruleset's board rules
    /// (opened by the caller: `mancala_solver::open`).
    pub fn new(method: Method, solver: Option<Solver>, search_tt_mib: usize) -> Valuer {
        Valuer {
            method,
            solver: solver.filter(|_| method.is_exact()),
            search_tt_mib,
        }
    }

    pub fn method(&self) -> Method {
        self.method
    }

    /// The exact method's solver.
    pub fn solver_mut(&mut self) -> Option<&mut Solver> {
        self.solver.as_mut()
    }

    /// The final store margin from the view of `pos`'s mover: the store difference so far plus
    /// what the rest of the game gains, with perfect play (exact) or by the search (estimate).
    /// `None` when the game is over, the position is not proven within the node budget, or the
    /// solver cannot value it (a legal `swap`).
    pub fn margin(&mut self, pos: &Position) -> Option<f64> {
        pos.to_move()?;
        match self.method {
            Method::Exact { nodes } => {
                let solver = self.solver.as_mut()?;
                let (board, diff) = solver.spec().board_of(pos.board())?;
                let start = solver.nodes;
                let value = solver.solve(&board, 0, &mut |n| n - start > nodes)?;
                Some(f64::from(diff + value))
            }
            Method::Estimate { depth } => mancala_bots::value(pos, depth, self.search_tt_mib),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn kalah_is_exact_and_the_others_estimated() {
        assert!(Method::for_ruleset(Ruleset::kalah(6, 4), 1, 2).is_exact());
        let oware: Ruleset = "oware".parse().unwrap();
        assert_eq!(
            Method::for_ruleset(oware, 1, 2),
            Method::Estimate { depth: 2 }
        );
        let congkak: Ruleset = "congkak".parse().unwrap();
        assert!(!Method::for_ruleset(congkak, 1, 2).is_exact());
    }

    /// Kalah(4,3) from the start is +6 for the first mover (docs/solved.md); a finished game
    /// has no margin to find; an estimate of a hand-worked ending is its final margin.
    /// Kalah under a rule the solver does not model (`mancala_solver::check_rules`) is never
    /// valued exactly: `arena openings` estimates it, labelled as such.
    #[test]
    fn unmodelled_kalah_rules_are_not_exact() {
        for rules in [
            "kalah:pits=4,seeds=2,pie=true",
            "kalah:pits=4,seeds=2,sow_cap=1",
        ] {
            let r: Ruleset = rules.parse().unwrap();
            assert!(!solvable(r), "{rules}");
            assert_eq!(
                Method::for_ruleset(r, 1, 2),
                Method::Estimate { depth: 2 },
                "{rules}"
            );
        }
    }

    #[test]
    fn margins_from_the_movers_view() {
        let rules = Ruleset::kalah(4, 3);
        let spec = BoardSpec::from_ruleset(&rules).unwrap();
        let mut exact = Valuer::new(
            Method::Exact { nodes: u64::MAX },
            Some(Solver::new(spec, 16, None)),
            16,
        );
        assert_eq!(exact.margin(&Position::new(rules)), Some(6.0));
        let ending =
            Position::from_state(Ruleset::kalah(6, 4), "s/0.0.0.0.0.1/0.0.0.0.0.2/21.24/40")
                .unwrap();
        let mut estimate = Valuer::new(Method::Estimate { depth: 2 }, None, 16);
        assert_eq!(estimate.margin(&ending), Some(-4.0));
        let mut after = ending.clone();
        after.play(crate::rules::Move::Pit(6)).unwrap();
        assert!(after.is_over());
        assert_eq!(estimate.margin(&after), None);
    }
}
