//! The seed margin each game of a folder ended with, read from `games.csv`'s `score_first` and
//! `score_second` (for `--model margin` in `sprt`, `rate` and `tune`).
//!
//! What the columns hold depends on how the game ended (the referee, `tournament::referee`):
//! - `normal` and `sow_cap`: the rules' final score, after the end-of-game sweep: the margin is
//!   `score_first − score_second`, and its sign must agree with `result` (it always does for
//!   the arena's rulesets; a file where it does not is refused, naming the game);
//! - a forfeit (`crash`, `timeout`, ...): the stores when the game stopped, not a final score:
//!   the forfeiting player is counted as losing by every seed of the ruleset (the largest loss
//!   there is), as the W/D/L models count it a loss;
//! - `adjudicated` (`--adjudicate`): the stores when the outcome was settled, with seeds still
//!   in play: no final margin exists, so such a game is refused with its id.

use std::collections::HashMap;

use anyhow::{bail, Result};

use super::games::{GameRow, Termination};
use crate::rating::margin::MarginPair;
use crate::rating::Outcome;

/// The first player's margin of `row` (its seeds minus the second player's at the end).
pub fn first_margin(row: &GameRow) -> Result<f64> {
    let total = f64::from(row.rules.total_seeds());
    match row.termination {
        Termination::Normal | Termination::SowCap => {
            let margin = f64::from(row.score_first) - f64::from(row.score_second);
            let agrees = match row.result {
                Outcome::Win => margin > 0.0,
                Outcome::Draw => margin == 0.0,
                Outcome::Loss => margin < 0.0,
            };
            if !agrees {
                bail!(
                    "game {}: result {} but final seeds {}-{}: the margin does not decide this game, so it cannot be rated by margin",
                    row.game_id,
                    row.result,
                    row.score_first,
                    row.score_second
                );
            }
            Ok(margin)
        }
        Termination::Forfeit(_) => Ok(match row.result {
            Outcome::Win => total,
            Outcome::Loss => -total,
            // A forfeit is never a draw; keep the rows honest anyway.
            Outcome::Draw => 0.0,
        }),
        Termination::Adjudicated => bail!(
            "game {} was adjudicated (--adjudicate): it stopped with seeds still in play, so it has no final margin; rate it with the W/D/L model, and play margin tests without --adjudicate",
            row.game_id
        ),
    }
}

/// The largest margin one game of `row`'s ruleset can end with.
pub fn max_margin(row: &GameRow) -> f64 {
    f64::from(row.rules.total_seeds())
}

/// Colour-swapped pairs of one player (`test`) against the other, fed one game at a time in any
/// order: a pair is complete when its second game arrives.
#[derive(Debug, Default)]
pub struct PairMargins {
    open: HashMap<u64, (Option<f64>, Option<f64>)>,
}

impl PairMargins {
    /// Adds `row` (a game with `test` in it); returns the pair from `test`'s view when this game
    /// completed it.
    pub fn add(&mut self, row: &GameRow, test: &str) -> Result<Option<MarginPair>> {
        let margin = first_margin(row)?;
        let entry = self.open.entry(row.pair_id).or_default();
        if row.first == test {
            entry.0 = Some(margin);
        } else {
            entry.1 = Some(-margin);
        }
        if let (Some(first), Some(second)) = *entry {
            self.open.remove(&row.pair_id);
            return Ok(Some(MarginPair { first, second }));
        }
        Ok(None)
    }

    /// Pairs waiting for their second game.
    pub fn open_pairs(&self) -> usize {
        self.open.len()
    }
}

/// Every game of `rows` with its first player's margin, players as indices into `names`, in
/// game order (forfeits left out with `exclude_forfeits`, as `games::rated_games` does).
pub fn margin_games(
    rows: &[GameRow],
    names: &[String],
    exclude_forfeits: bool,
) -> Result<Vec<crate::rating::margin::ratings::MarginGame>> {
    let index: HashMap<&str, usize> = names
        .iter()
        .enumerate()
        .map(|(i, n)| (n.as_str(), i))
        .collect();
    let mut sorted: Vec<&GameRow> = rows.iter().collect();
    sorted.sort_by_key(|r| r.game_id);
    let mut out = Vec::with_capacity(rows.len());
    for row in sorted {
        if exclude_forfeits && row.forfeit.is_some() {
            continue;
        }
        let player = |name: &str| {
            index
                .get(name)
                .copied()
                .ok_or_else(|| anyhow::anyhow!("game {}: `{name}` is not a player", row.game_id))
        };
        out.push(crate::rating::margin::ratings::MarginGame {
            pair: row.pair_id,
            first: player(&row.first)?,
            second: player(&row.second)?,
            margin: first_margin(row)?,
        });
    }
    Ok(out)
}

/// Every complete pair of `rows` from `test`'s view, in pair order (games of other players and
/// pairs with a game missing are left out).
pub fn pairs_of(rows: &[GameRow], test: &str) -> Result<Vec<MarginPair>> {
    let mut sorted: Vec<&GameRow> = rows
        .iter()
        .filter(|r| r.first == test || r.second == test)
        .collect();
    sorted.sort_by_key(|r| (r.pair_id, r.game_id));
    let mut margins = PairMargins::default();
    let mut out = Vec::new();
    for row in sorted {
        if let Some(pair) = margins.add(row, test)? {
            out.push(pair);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::vocab::FaultKind;

    fn row(pair: u64, first: &str, result: Outcome, scores: (u32, u32)) -> GameRow {
        let csv = format!(
            "game_id,pair_id,round,first,second,rules,opening,result,score_first,score_second,sows,termination,forfeit,detail,wall_ms,first_think_ms,first_max_ms,second_think_ms,second_max_ms\n\
             {},{pair},0,{first},{},kalah,,{result},{},{},30,normal,,SideEmpty,0,0,0,0,0\n",
            2 * pair + u64::from(first == "base"),
            if first == "test" { "base" } else { "test" },
            scores.0,
            scores.1
        );
        csv::Reader::from_reader(csv.as_bytes())
            .deserialize()
            .next()
            .unwrap()
            .unwrap()
    }

    #[test]
    fn a_pair_is_read_from_the_test_bots_view_in_any_order() {
        // Test moves first and wins 30–18 (+12); then base moves first and wins 26–22 (test −4).
        let a = row(0, "test", Outcome::Win, (30, 18));
        let b = row(0, "base", Outcome::Win, (26, 22));
        let mut m = PairMargins::default();
        assert_eq!(m.add(&b, "test").unwrap(), None);
        assert_eq!(m.open_pairs(), 1);
        let pair = m.add(&a, "test").unwrap().unwrap();
        assert_eq!((pair.first, pair.second), (12.0, -4.0));
        assert_eq!(pair.score(), 0.5);
        assert_eq!(pairs_of(&[a, b], "test").unwrap(), vec![pair]);
    }

    #[test]
    fn forfeits_lose_by_every_seed_and_adjudicated_games_are_refused() {
        let mut f = row(0, "test", Outcome::Loss, (3, 10));
        f.termination = Termination::Forfeit(FaultKind::Crash);
        f.forfeit = Some("test".into());
        assert_eq!(first_margin(&f).unwrap(), -48.0);
        let mut adj = row(1, "test", Outcome::Win, (25, 10));
        adj.termination = Termination::Adjudicated;
        let err = first_margin(&adj).unwrap_err().to_string();
        assert!(err.contains("game 2 was adjudicated"), "{err}");
        let lying = row(2, "test", Outcome::Win, (20, 28));
        let err = first_margin(&lying).unwrap_err().to_string();
        assert!(err.contains("result 1-0 but final seeds 20-28"), "{err}");
    }
}
