//! Flat row structs for `ratings.csv` and `pairwise.csv` (one `Serialize` struct per row, so
//! `report/` can hand them to the `csv` writer). Numbers only; rounding is `report/`'s job.

use super::bootstrap::BootstrapSummary;
use super::fit::Ratings;
use super::pairwise::{PairwiseEntry, ScoreStats};
use super::RatingError;
use serde::Serialize;

/// One line of `ratings.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RatingRow {
    /// 1-based rank by rating.
    pub rank: usize,
    /// Player name.
    pub name: String,
    /// Rating (Elo, anchored).
    pub elo: f64,
    /// Standard error (Hessian).
    pub se: f64,
    /// Interval low: bootstrap percentile if a bootstrap was run, else normal.
    pub ci_low: f64,
    /// Interval high.
    pub ci_high: f64,
    /// Normal-approximation interval low.
    pub normal_low: f64,
    /// Normal-approximation interval high.
    pub normal_high: f64,
    /// P(rank 1) from the bootstrap, if run.
    pub p_best: Option<f64>,
    /// Games.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Score in percent.
    pub score_pct: Option<f64>,
    /// Draws in percent.
    pub draw_pct: Option<f64>,
    /// Rating set by the prior because the player never lost / never scored.
    pub unbounded: bool,
}

/// Rows sorted best-first. `names.len()` must equal the number of players.
pub fn rating_rows(
    names: &[String],
    ratings: &Ratings,
    boot: Option<&BootstrapSummary>,
) -> Result<Vec<RatingRow>, RatingError> {
    let n = ratings.players.len();
    if names.len() != n || boot.is_some_and(|b| b.ratings.len() != n) {
        return Err(RatingError::InvalidConfig(format!(
            "{} names (and bootstrap) for {n} rated players",
            names.len()
        )));
    }
    let mut order: Vec<usize> = (0..n).collect();
    order.sort_by(|&a, &b| {
        ratings.players[b]
            .elo
            .total_cmp(&ratings.players[a].elo)
            .then(a.cmp(&b))
    });
    Ok(order
        .iter()
        .enumerate()
        .map(|(r, &i)| {
            let p = &ratings.players[i];
            let (lo, hi) = boot.map_or((p.ci_low, p.ci_high), |b| {
                (b.ratings[i].low, b.ratings[i].high)
            });
            let pct = |x: u64| (p.games > 0).then(|| 100.0 * x as f64 / p.games as f64);
            RatingRow {
                rank: r + 1,
                name: names[i].clone(),
                elo: p.elo,
                se: p.se,
                ci_low: lo,
                ci_high: hi,
                normal_low: p.ci_low,
                normal_high: p.ci_high,
                p_best: boot.map(|b| b.p_first(i)),
                games: p.games,
                wins: p.wins,
                draws: p.draws,
                losses: p.losses,
                score_pct: p.score.map(|s| 100.0 * s),
                draw_pct: pct(p.draws),
                // Only a player who itself never lost (or never scored) is flagged here; a
                // group-level gap to the rest of the pool is the fit's warning.
                unbounded: (p.unbounded_above && p.score == Some(1.0))
                    || (p.unbounded_below && p.score == Some(0.0)),
            }
        })
        .collect())
}

/// One line of `pairwise.csv`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PairwiseRow {
    /// Row player.
    pub player: String,
    /// Opponent.
    pub opponent: String,
    /// Games.
    pub games: u64,
    /// Wins of the row player.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses of the row player.
    pub losses: u64,
    /// Score of the row player in percent.
    pub score_pct: Option<f64>,
    /// Draws in percent.
    pub draw_pct: Option<f64>,
    /// Pentanomial counts (pairs scoring 0, ½, 1, 1½, 2 points).
    pub penta_ll: u64,
    /// ½-point pairs.
    pub penta_ld: u64,
    /// 1-point pairs.
    pub penta_dd_wl: u64,
    /// 1½-point pairs.
    pub penta_wd: u64,
    /// 2-point pairs.
    pub penta_ww: u64,
    /// Elo difference (trinomial).
    pub elo: Option<f64>,
    /// 95% half-width (trinomial).
    pub elo_error: Option<f64>,
    /// Elo difference (pentanomial).
    pub elo_penta: Option<f64>,
    /// 95% half-width (pentanomial).
    pub elo_penta_error: Option<f64>,
    /// The reported interval of the Elo difference (pentanomial if available, else
    /// trinomial; [`crate::pairwise::score_interval`]): never of zero width.
    pub elo_low: Option<f64>,
    /// Its upper end.
    pub elo_high: Option<f64>,
    /// Normalized Elo (pentanomial if available, else trinomial).
    pub nelo: Option<f64>,
    /// 95% half-width of nElo.
    pub nelo_error: Option<f64>,
    /// Likelihood of superiority: the posterior's `P(r_player > r_opponent)` given all games
    /// where the intervals came from the posterior ([`crate::analyse`]), else fastchess's
    /// formula on this encounter (pentanomial if available, else trinomial).
    pub los: Option<f64>,
}

/// Rows for `entries`; `names` indexed by player.
pub fn pairwise_rows(
    names: &[String],
    entries: &[PairwiseEntry],
) -> Result<Vec<PairwiseRow>, RatingError> {
    entries
        .iter()
        .map(|e| {
            let name = |p: usize| {
                names
                    .get(p)
                    .cloned()
                    .ok_or_else(|| RatingError::InvalidConfig(format!("no name for player {p}")))
            };
            let best = e.pentanomial.or(e.trinomial);
            let g = e.wdl.games();
            // A sweep (all won or all lost) has no finite Elo: its point, fastchess's half-width
            // and the interval's end on its side are left out (empty in pairwise.csv, null in
            // summary.json), never a clamped ±1199.6 (issue 45).
            let sweep = e
                .trinomial
                .is_some_and(|t| t.score == 0.0 || t.score == 1.0);
            let bounded = |x: f64| (!sweep || x.is_finite()).then_some(x);
            let point = |t: ScoreStats| (!sweep).then_some(t.elo);
            let error = |t: ScoreStats| (!sweep).then_some(t.elo_error);
            Ok(PairwiseRow {
                player: name(e.player)?,
                opponent: name(e.opponent)?,
                games: g,
                wins: e.wdl.wins,
                draws: e.wdl.draws,
                losses: e.wdl.losses,
                score_pct: e.trinomial.map(|t| 100.0 * t.score),
                draw_pct: e.draw_ratio.map(|d| 100.0 * d),
                penta_ll: e.penta.ll,
                penta_ld: e.penta.ld,
                penta_dd_wl: e.penta.dd_wl,
                penta_wd: e.penta.wd,
                penta_ww: e.penta.ww,
                elo: e.trinomial.and_then(point),
                elo_error: e.trinomial.and_then(error),
                elo_penta: e.pentanomial.and_then(point),
                elo_penta_error: e.pentanomial.and_then(error),
                elo_low: best.and_then(|t| bounded(t.elo_low)),
                elo_high: best.and_then(|t| bounded(t.elo_high)),
                nelo: best.and_then(|t| t.nelo),
                nelo_error: best.and_then(|t| t.nelo_error),
                los: best.map(|t| t.los),
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pairwise::pairwise_table;
    use crate::{GameTable, Outcome, RatedGame};

    /// `pairs` colour-swapped pairs in which player 0 won both games.
    fn sweep(pairs: u64) -> Vec<RatedGame> {
        (0..pairs)
            .flat_map(|k| {
                [
                    RatedGame {
                        pair: k,
                        first: 0,
                        second: 1,
                        outcome: Outcome::Win,
                    },
                    RatedGame {
                        pair: k,
                        first: 1,
                        second: 0,
                        outcome: Outcome::Loss,
                    },
                ]
            })
            .collect()
    }

    /// The row of a sweep of `pairs` pairs, from the winner's view if `winner_first`.
    pub(crate) fn row(pairs: u64, winner_first: bool) -> PairwiseRow {
        let names: Vec<String> = vec!["a".into(), "b".into()];
        let mut games = sweep(pairs);
        if !winner_first {
            // Player 1 sweeps: the row (player 0's view) is the losing side's.
            for g in &mut games {
                g.outcome = g.outcome.flipped();
            }
        }
        let table = GameTable::new(2, &games).unwrap();
        pairwise_rows(&names, &pairwise_table(&table, 0.95))
            .unwrap()
            .remove(0)
    }

    #[test]
    fn a_sweep_has_no_point_and_one_unbounded_end_in_the_files() {
        // Issue 45: a 0 % encounter was −1199.8 in pairwise.csv, a 14–0 one `+inf [+434,
        // +5880]` and a 12–0 one `+inf [+389, +inf]`: the point of a sweep is unbounded, and
        // the end on its side is unbounded too, whatever the number of pairs.
        for pairs in [6, 7, 100] {
            let won = row(pairs, true);
            assert_eq!(won.score_pct, Some(100.0));
            assert_eq!(
                (won.elo, won.elo_penta),
                (None, None),
                "{pairs} pairs: {won:?}"
            );
            assert_eq!((won.elo_error, won.elo_penta_error), (None, None));
            assert!(
                won.elo_low.is_some_and(|x| x.is_finite() && x > 0.0),
                "{won:?}"
            );
            assert_eq!(won.elo_high, None, "{pairs} pairs: {won:?}");
            let lost = row(pairs, false);
            assert_eq!(lost.score_pct, Some(0.0));
            assert_eq!((lost.elo, lost.elo_penta), (None, None), "{lost:?}");
            assert_eq!(lost.elo_low, None, "{lost:?}");
            let (high, low) = (lost.elo_high.unwrap(), won.elo_low.unwrap());
            assert!((high + low).abs() < 1e-6, "{high} vs {low}");
        }
    }
}
