//! An SPRT on a session (`arena sprt`): `base` and `test` play colour-swapped pairs until the
//! pentanomial GSPRT decides or the plan's pairs run out. The test takes the completed pairs in
//! pair order and stops at the first whose LLR crosses a bound, whatever finished later; every
//! pair it took is traced in `sprt.csv` and told to the caller; `sprt.json` holds the decision.

use anyhow::Result;

use std::collections::HashMap;

use super::order::PairOrder;
use super::{Finish, Finished, Session};
use crate::rating::margin::{self, EloKind, Link, LinkCheck, MarginPair, MarginSprt, MarginTally};
use crate::rating::pairwise::PentaCounts;
use crate::rating::sprt::{EloEstimate, Sprt, SprtModel, SprtResult, SprtStatus};
use crate::run_folder::games::GameRecord;
use crate::run_folder::margins::{max_margin, PairMargins};
use crate::run_folder::sprt::{SprtFile, SprtTrace};
use crate::run_folder::RunKind;
use crate::tournament::events::{OnGame, RunSink, Steer};
use crate::vocab::RunPlan;

/// The two players' names in the run folder.
pub const BASE: &str = "base";
pub const TEST: &str = "test";

/// Exit codes of `arena sprt`, for scripts: H1 accepted, H0 accepted, out of pairs.
pub const EXIT_H1: u8 = 0;
pub const EXIT_H0: u8 = 3;
pub const EXIT_INCONCLUSIVE: u8 = 4;

/// What is tested: H0 "the test is `elo0` better" against H1 "`elo1` better", with error rates
/// `alpha` (accepting H1 under H0) and `beta`, in the Elo of `model`; with `margin`, by the
/// margin GSPRT (`rating::margin`) instead of the pentanomial one.
#[derive(Clone, Copy, Debug)]
pub struct Hypotheses {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: SprtModel,
    pub margin: Option<MarginModel>,
}

/// `--model margin`: the Elo the hypotheses are in, and the clip of each game's margin (seeds;
/// `None`: a third of the ruleset's seeds).
#[derive(Clone, Copy, Debug)]
pub struct MarginModel {
    pub kind: EloKind,
    pub clip: Option<f64>,
}

impl Hypotheses {
    pub fn sprt(&self) -> Result<Sprt> {
        Sprt::new(self.elo0, self.elo1, self.alpha, self.beta, self.model)
            .map_err(|e| anyhow::anyhow!("{e}"))
    }

    /// The margin test for games of `seeds` seeds in all, `None` for the pentanomial models.
    pub fn margin_sprt(&self, seeds: f64) -> Result<Option<MarginSprt>> {
        let Some(m) = self.margin else {
            return Ok(None);
        };
        let test = MarginSprt::new(self.elo0, self.elo1, self.alpha, self.beta, m.kind, seeds)
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(Some(test.with_clip(m.clip.unwrap_or(seeds / 3.0))))
    }

    /// The model's name in `sprt.json` and the messages: `logistic`, `normalized`, `margin`.
    pub fn model_name(&self) -> &'static str {
        if self.margin.is_some() {
            "margin"
        } else {
            self.model.as_str()
        }
    }
}

/// A completed pair as the caller is told it: the counts so far, the test's status, and the
/// error if `sprt.csv` could not be written (the test goes on).
pub struct PairDone<'a> {
    pub penta: &'a PentaCounts,
    pub status: &'a SprtStatus,
    pub trace_error: Option<&'a anyhow::Error>,
}

/// How an SPRT ended: the counts, the decision, and the one estimate every output gives (with
/// the margin model, the link it used and its check on the run's pairs).
pub struct SprtEnd {
    /// The hypotheses' bounds, which the verdict's words follow.
    pub elo0: f64,
    pub elo1: f64,
    pub penta: PentaCounts,
    pub status: SprtStatus,
    pub estimate: Option<EloEstimate>,
    pub link: Option<Link>,
    pub link_check: Option<LinkCheck>,
    pub finished: Finished,
}

impl SprtEnd {
    /// The final line: the verdict, the test bot's Elo with its interval (the same as
    /// `sprt.json`, `summary.md`, `report.html` and the dashboard give), the LLR and the counts.
    pub fn verdict_line(&self, verdict: &str) -> String {
        let elo = self
            .estimate
            .map_or("no estimate".to_string(), |e| e.describe());
        format!(
            "{verdict}: Elo {elo} (LLR {:+.3}, bounds [{:.3}, {:.3}], {} pairs, penta {:?})",
            self.status.llr,
            self.status.lower,
            self.status.upper,
            self.penta.pairs(),
            self.penta.to_array()
        )
    }

    /// The exit code and the verdict in words.
    pub fn verdict(&self) -> (u8, &'static str) {
        match self.status.result {
            r @ SprtResult::AcceptH1 => (EXIT_H1, r.verdict(self.elo0, self.elo1)),
            r @ SprtResult::AcceptH0 => (EXIT_H0, r.verdict(self.elo0, self.elo1)),
            SprtResult::Continue => (
                EXIT_INCONCLUSIVE,
                "inconclusive: the maximum number of pairs was reached",
            ),
        }
    }
}

/// The observer: pairs the games, takes the completed pairs in pair order
/// ([`super::order::PairOrder`]), updates the test, traces it, and stops the run at the first
/// pair whose LLR crosses a bound. Pairs after that one (games that were under way) change
/// nothing: the decision is a function of the results, not of the order the games finished in.
pub(crate) struct Observer<'a> {
    sprt: Sprt,
    order: PairOrder<()>,
    penta: PentaCounts,
    /// `--model margin`: its hypotheses (the test is made at the first game, which names the
    /// ruleset's seeds) and then its state.
    hypotheses: Option<Hypotheses>,
    margin: Option<MarginState>,
    trace: Option<SprtTrace>,
    last: Option<SprtStatus>,
    /// Why the test cannot go on (a game without a final margin).
    error: Option<anyhow::Error>,
    on_pair: &'a mut dyn FnMut(&PairDone<'_>),
}

/// The margin test's state: the test, its sums, the pairs waiting for their second game and the
/// complete ones waiting for their turn in pair order.
struct MarginState {
    test: MarginSprt,
    tally: MarginTally,
    pairs: PairMargins,
    complete: HashMap<u64, MarginPair>,
}

impl<'a> Observer<'a> {
    /// A test of `sprt` tracing into `trace` (if any) and telling `on_pair` each pair.
    pub(crate) fn new(
        sprt: Sprt,
        trace: Option<SprtTrace>,
        on_pair: &'a mut dyn FnMut(&PairDone<'_>),
    ) -> Observer<'a> {
        Observer {
            sprt,
            order: PairOrder::default(),
            penta: PentaCounts::default(),
            hypotheses: None,
            margin: None,
            trace,
            last: None,
            error: None,
            on_pair,
        }
    }

    /// The same observer deciding by `hypotheses`' margin test if it has one.
    pub(crate) fn with_hypotheses(mut self, hypotheses: Hypotheses) -> Self {
        self.hypotheses = Some(hypotheses);
        self
    }

    /// The estimate after the pairs so far (the margin link's with the margin model).
    fn estimate(&self) -> Option<EloEstimate> {
        match &self.margin {
            Some(m) => margin::estimate(&m.tally, LEVEL),
            None => EloEstimate::of_pairs(&self.penta, LEVEL),
        }
    }

    /// Whether the test has decided (it takes no more pairs).
    fn decided(&self) -> bool {
        self.last.is_some_and(|s| s.result != SprtResult::Continue)
    }

    pub(crate) fn game(&mut self, record: &GameRecord) -> Steer {
        if self.decided() {
            return Steer::Continue;
        }
        let row = &record.row;
        if self.margin.is_none() {
            if let Some(Ok(Some(test))) = self.hypotheses.map(|h| h.margin_sprt(max_margin(row))) {
                self.margin = Some(MarginState {
                    tally: test.tally(),
                    test,
                    pairs: PairMargins::default(),
                    complete: HashMap::new(),
                });
            }
        }
        if let Some(m) = self.margin.as_mut() {
            match m.pairs.add(row, TEST) {
                Ok(Some(pair)) => {
                    m.complete.insert(row.pair_id, pair);
                }
                Ok(None) => {}
                Err(e) => {
                    let stop = format!("{e:#}");
                    self.error = Some(e);
                    return Steer::Stop(stop);
                }
            }
        }
        let points = row.result.score();
        let test_points = if row.first == TEST {
            points
        } else {
            1.0 - points
        };
        self.order
            .game(row.pair_id, (test_points * 2.0).round() as u8, ());
        while let Some(pair) = self.order.next(|_| false) {
            if let Some(stop) = self.pair(pair.id, pair.half_points) {
                return stop;
            }
        }
        Steer::Continue
    }

    /// One pair, in order: the counts and the test updated, traced and told. `Some` with the
    /// stop when it decides the test.
    fn pair(&mut self, id: u64, half_points: u8) -> Option<Steer> {
        self.penta.add(half_points);
        let penta = self.penta;
        let status = match self.margin.as_mut() {
            Some(m) => {
                if let Some(pair) = m.complete.remove(&id) {
                    m.tally.add(pair);
                }
                m.test.status(&m.tally).status
            }
            None => self.sprt.status(&penta),
        };
        let estimate = self.estimate();
        let trace_error = self
            .trace
            .as_mut()
            .and_then(|t| t.append(&penta, &status, estimate.as_ref()).err());
        (self.on_pair)(&PairDone {
            penta: &penta,
            status: &status,
            trace_error: trace_error.as_ref(),
        });
        self.last = Some(status);
        match status.result {
            SprtResult::Continue => None,
            SprtResult::AcceptH0 => Some(Steer::Stop("the SPRT accepted H0".to_string())),
            SprtResult::AcceptH1 => Some(Steer::Stop("the SPRT accepted H1".to_string())),
        }
    }

    /// The end of the run: an undecided test takes the complete pairs still waiting (behind a
    /// pair that was never played), in order, up to a decision. Returns the counts and the
    /// status the test ended with.
    pub(crate) fn finish(&mut self) -> (PentaCounts, SprtStatus) {
        if !self.decided() {
            for pair in self.order.rest() {
                if self.pair(pair.id, pair.half_points).is_some() {
                    break;
                }
            }
        }
        let status = self.last.unwrap_or_else(|| self.sprt.status(&self.penta));
        (self.penta, status)
    }
}

/// Plays `plan` (players [`BASE`] and [`TEST`]) into a new folder until `test` decides, with
/// `sinks` after the test's observer; writes `sprt.json`, then rates and reports the folder
/// when `report`. An interrupted test is an error naming the folder.
pub fn play(
    plan: RunPlan,
    test: &Hypotheses,
    report: bool,
    on_pair: &mut dyn FnMut(&PairDone<'_>),
    sinks: &mut [&mut dyn RunSink],
) -> Result<SprtEnd> {
    let sprt = test.sprt()?;
    test.margin_sprt(48.0)?;
    let session = Session::open_new(plan, RunKind::Sprt)?;
    let dir = session.dir().to_path_buf();
    let mut observer =
        Observer::new(sprt, Some(SprtTrace::create(&dir)?), on_pair).with_hypotheses(*test);
    let mut sink = OnGame(|record: &GameRecord| observer.game(record));
    let outcome = session.play_after(&mut sink, sinks)?;
    if let Some(e) = observer.error.take() {
        return Err(e.context(format!(
            "the margin SPRT stopped; the games are in {}",
            dir.display()
        )));
    }
    outcome.check(&dir, false, true)?;
    let (penta, status) = observer.finish();
    let estimate = observer.estimate();
    let (link, link_check) = match &observer.margin {
        Some(m) => (m.tally.link(), margin::check(&m.tally)),
        None => (None, None),
    };
    SprtFile {
        elo0: test.elo0,
        elo1: test.elo1,
        alpha: test.alpha,
        beta: test.beta,
        model: test.model_name().to_string(),
        pairs: penta.pairs(),
        penta: penta.to_array(),
        status,
        estimate,
        link,
        link_check,
    }
    .write(&dir)?;
    let finished = session.finish(outcome, &Finish::sequential_test(report));
    Ok(SprtEnd {
        elo0: test.elo0,
        elo1: test.elo1,
        penta,
        status,
        estimate,
        link,
        link_check,
        finished,
    })
}

/// The level of the SPRT's estimate.
pub const LEVEL: f64 = 0.95;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::Outcome;
    use crate::run_folder::games::GameRow;
    use crate::tournament::events::StopReason;
    use crate::tournament::runner::RunOutcome;

    /// Game `game_id` (pair `game_id / 2`, colours swapped within the pair) in which the test
    /// bot scored `points`.
    fn game(game_id: u64, points: f64) -> GameRecord {
        let test_first = game_id % 2 == 0;
        let first_points = if test_first { points } else { 1.0 - points };
        let (first, second) = if test_first {
            (TEST, BASE)
        } else {
            (BASE, TEST)
        };
        GameRecord {
            row: GameRow {
                game_id,
                pair_id: game_id / 2,
                first: first.into(),
                second: second.into(),
                result: if first_points > 0.75 {
                    Outcome::Win
                } else if first_points < 0.25 {
                    Outcome::Loss
                } else {
                    Outcome::Draw
                },
                ..GameRow::blank()
            },
            moves: Vec::new(),
            think_ms: Vec::new(),
            movers: Vec::new(),
            cpu_ms: Vec::new(),
            random: Vec::new(),
        }
    }

    fn sprt() -> Sprt {
        Sprt::new(0.0, 30.0, 0.05, 0.05, SprtModel::Logistic).unwrap()
    }

    /// Where a test over pairs in which the test bot scored `halves` half points (0..=4) each,
    /// taken in order, stops, and what it decides there.
    fn crossing(halves: &[u8]) -> Option<(usize, SprtResult)> {
        let mut penta = PentaCounts::default();
        halves.iter().enumerate().find_map(|(i, &h)| {
            penta.add(h);
            let result = sprt().status(&penta).result;
            (result != SprtResult::Continue).then_some((i, result))
        })
    }

    /// The test bot's points in each game of a pair in which it scored `half` half points.
    fn split(half: u8) -> [f64; 2] {
        let first = half.min(2);
        [f64::from(first) / 2.0, f64::from(half - first) / 2.0]
    }

    /// The failure, played without timing: the test bot loses enough pairs for H0, then
    /// wins the pairs after. The games of the later pairs finish first (a slow game holds the
    /// crossing pair back): the test must still stop at the crossing pair, with H0, its exit code
    /// and exactly the pairs before it, and take nothing that finished after.
    #[test]
    fn an_sprt_whose_games_finish_out_of_order_stops_at_the_first_crossing() {
        let losing = [0, 1, 2, 0, 1];
        let winning = [4, 3, 2, 4, 3];
        let mut halves: Vec<u8> = losing.iter().cycle().take(400).copied().collect();
        let (k, verdict) = crossing(&halves).expect("losing most pairs accepts H0");
        assert_eq!(verdict, SprtResult::AcceptH0);
        halves.truncate(k + 1);
        halves.extend(winning.iter().cycle().take(2 * k));
        // In completion order the wins would come first: taking pairs as they complete gave
        // another verdict.
        let mut as_finished: Vec<u8> = halves[k + 1..].to_vec();
        as_finished.extend(&halves[..=k]);
        assert_eq!(
            crossing(&as_finished).map(|c| c.1),
            Some(SprtResult::AcceptH1)
        );

        let mut told = Vec::new();
        let mut on_pair = |done: &PairDone<'_>| told.push(done.penta.pairs());
        let mut observer = Observer::new(sprt(), None, &mut on_pair);
        // The games of the pairs after k, then pair k's first game, then pairs 0..k, then
        // pair k's second game.
        let mut arrivals: Vec<(u64, f64)> = Vec::new();
        let game_of = |pair: usize, i: usize| (2 * pair as u64 + i as u64, split(halves[pair])[i]);
        for pair in (k + 1)..halves.len() {
            arrivals.push(game_of(pair, 1));
            arrivals.push(game_of(pair, 0));
        }
        arrivals.push(game_of(k, 0));
        for pair in 0..k {
            arrivals.push(game_of(pair, 0));
            arrivals.push(game_of(pair, 1));
        }
        arrivals.push(game_of(k, 1));
        let (last, before) = arrivals.split_last().unwrap();
        for &(id, p) in before {
            assert_eq!(observer.game(&game(id, p)), Steer::Continue, "game {id}");
        }
        assert_eq!(
            observer.game(&game(last.0, last.1)),
            Steer::Stop("the SPRT accepted H0".into())
        );
        // Games that finish after the decision change nothing.
        for id in 0..4 {
            assert_eq!(observer.game(&game(id, 1.0)), Steer::Continue);
        }
        let (penta, status) = observer.finish();
        assert_eq!(penta.pairs(), k as u64 + 1);
        assert_eq!(status.result, SprtResult::AcceptH0);
        assert!(status.llr <= status.lower, "{status:?}");
        let end = SprtEnd {
            elo0: -5.0,
            elo1: 0.0,
            penta,
            status,
            estimate: None,
            link: None,
            link_check: None,
            finished: Finished {
                outcome: RunOutcome {
                    played: 0,
                    skipped: 0,
                    stop: StopReason::Decided("the SPRT accepted H0".into()),
                    dropped: Vec::new(),
                    forfeits: 0,
                },
                rated: None,
                report: None,
            },
        };
        assert_eq!(end.verdict().0, EXIT_H0);
        // The caller was told every pair up to the crossing, in order, once each.
        assert_eq!(told, (1..=k as u64 + 1).collect::<Vec<_>>());
    }

    #[test]
    fn an_undecided_test_takes_the_pairs_behind_a_gap_at_the_end() {
        let mut on_pair = |_: &PairDone<'_>| {};
        let mut observer = Observer::new(sprt(), None, &mut on_pair);
        // Pair 0 never completes (a player dropped); pairs 1 and 2 wait behind it.
        for (id, p) in [(0, 1.0), (2, 1.0), (3, 1.0), (4, 0.5), (5, 0.5)] {
            assert_eq!(observer.game(&game(id, p)), Steer::Continue);
        }
        let (penta, status) = observer.finish();
        assert_eq!(penta.to_array(), [0, 0, 1, 0, 1]);
        assert_eq!(status.result, SprtResult::Continue);
    }
}
