//! An SPRT on a session (`arena sprt`): `base` and `test` play colour-swapped pairs until the
//! pentanomial GSPRT decides or the plan's pairs run out. Every completed pair is traced in
//! `sprt.csv` and told to the caller; `sprt.json` holds the decision.

use anyhow::Result;

use super::{Finish, Finished, Session};
use crate::rating::margin::{self, EloKind, Link, LinkCheck, MarginSprt, MarginTally};
use crate::rating::pairwise::PentaCounts;
use crate::rating::sprt::{EloEstimate, PairTracker, Sprt, SprtModel, SprtResult, SprtStatus};
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
            SprtResult::AcceptH1 => (EXIT_H1, "H1 accepted: the test bot is stronger"),
            SprtResult::AcceptH0 => (EXIT_H0, "H0 accepted: the test bot is not stronger"),
            SprtResult::Continue => (
                EXIT_INCONCLUSIVE,
                "inconclusive: the maximum number of pairs was reached",
            ),
        }
    }
}

/// The margin test's state: the test, its sums, the pairs waiting for their second game.
struct MarginState {
    test: MarginSprt,
    tally: MarginTally,
    pairs: PairMargins,
}

/// The observer: pairs the games, updates the test, traces it, and stops the run once the test
/// decides.
struct Observer<'a> {
    sprt: Sprt,
    margin: Option<MarginState>,
    hypotheses: Hypotheses,
    tracker: PairTracker,
    trace: SprtTrace,
    last: Option<SprtStatus>,
    /// Why the test cannot go on (a game without a final margin).
    error: Option<anyhow::Error>,
    on_pair: &'a mut dyn FnMut(&PairDone<'_>),
}

impl Observer<'_> {
    /// The estimate after the pairs so far (the margin link's with the margin model).
    fn estimate(&self) -> Option<EloEstimate> {
        match &self.margin {
            Some(m) => margin::estimate(&m.tally, LEVEL),
            None => EloEstimate::of_pairs(&self.tracker.penta(), LEVEL),
        }
    }

    fn game(&mut self, record: &GameRecord) -> Steer {
        let row = &record.row;
        if self.margin.is_none() {
            if let Ok(Some(test)) = self.hypotheses.margin_sprt(max_margin(row)) {
                self.margin = Some(MarginState {
                    tally: test.tally(),
                    test,
                    pairs: PairMargins::default(),
                });
            }
        }
        let points = row.result.score();
        let test_points = if row.first == TEST {
            points
        } else {
            1.0 - points
        };
        let margin_status = match self.margin.as_mut() {
            Some(m) => match m.pairs.add(row, TEST) {
                Ok(Some(pair)) => {
                    m.tally.add(pair);
                    Some(m.test.status(&m.tally).status)
                }
                Ok(None) => None,
                Err(e) => {
                    let stop = format!("{e:#}");
                    self.error = Some(e);
                    return Steer::Stop(stop);
                }
            },
            None => None,
        };
        if !self.tracker.add(row.pair_id, test_points) {
            return Steer::Continue;
        }
        let penta = self.tracker.penta();
        let status = margin_status.unwrap_or_else(|| self.sprt.status(&penta));
        let estimate = self.estimate();
        let trace_error = self.trace.append(&penta, &status, estimate.as_ref()).err();
        (self.on_pair)(&PairDone {
            penta: &penta,
            status: &status,
            trace_error: trace_error.as_ref(),
        });
        self.last = Some(status);
        match status.result {
            SprtResult::Continue => Steer::Continue,
            SprtResult::AcceptH0 => Steer::Stop("the SPRT accepted H0".to_string()),
            SprtResult::AcceptH1 => Steer::Stop("the SPRT accepted H1".to_string()),
        }
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
    let mut observer = Observer {
        sprt,
        margin: None,
        hypotheses: *test,
        tracker: PairTracker::default(),
        trace: SprtTrace::create(&dir)?,
        last: None,
        error: None,
        on_pair,
    };
    let mut sink = OnGame(|record: &GameRecord| observer.game(record));
    let outcome = session.play_after(&mut sink, sinks)?;
    if let Some(e) = observer.error.take() {
        return Err(e.context(format!(
            "the margin SPRT stopped; the games are in {}",
            dir.display()
        )));
    }
    outcome.check(&dir, false, true)?;
    let penta = observer.tracker.penta();
    let status = observer
        .last
        .unwrap_or_else(|| observer.sprt.status(&penta));
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
