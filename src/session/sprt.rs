//! An SPRT on a session (`arena sprt`): `base` and `test` play colour-swapped pairs until the
//! pentanomial GSPRT decides or the plan's pairs run out. Every completed pair is traced in
//! `sprt.csv` and told to the caller; `sprt.json` holds the decision.

use anyhow::Result;

use super::{Finish, Finished, Session};
use crate::rating::pairwise::PentaCounts;
use crate::rating::sprt::{PairTracker, Sprt, SprtModel, SprtResult, SprtStatus};
use crate::run_folder::games::GameRecord;
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
/// `alpha` (accepting H1 under H0) and `beta`, in the Elo of `model`.
#[derive(Clone, Copy, Debug)]
pub struct Hypotheses {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: SprtModel,
}

impl Hypotheses {
    pub fn sprt(&self) -> Result<Sprt> {
        Sprt::new(self.elo0, self.elo1, self.alpha, self.beta, self.model)
            .map_err(|e| anyhow::anyhow!("{e}"))
    }
}

/// A completed pair as the caller is told it: the counts so far, the test's status, and the
/// error if `sprt.csv` could not be written (the test goes on).
pub struct PairDone<'a> {
    pub penta: &'a PentaCounts,
    pub status: &'a SprtStatus,
    pub trace_error: Option<&'a anyhow::Error>,
}

/// How an SPRT ended.
pub struct SprtEnd {
    pub penta: PentaCounts,
    pub status: SprtStatus,
    pub finished: Finished,
}

impl SprtEnd {
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

/// The observer: pairs the games, updates the test, traces it, and stops the run once the test
/// decides.
struct Observer<'a> {
    sprt: Sprt,
    tracker: PairTracker,
    trace: SprtTrace,
    last: Option<SprtStatus>,
    on_pair: &'a mut dyn FnMut(&PairDone<'_>),
}

impl Observer<'_> {
    fn game(&mut self, record: &GameRecord) -> Steer {
        let row = &record.row;
        let points = row.result.score();
        let test_points = if row.first == TEST {
            points
        } else {
            1.0 - points
        };
        if !self.tracker.add(row.pair_id, test_points) {
            return Steer::Continue;
        }
        let penta = self.tracker.penta();
        let status = self.sprt.status(&penta);
        let trace_error = self.trace.append(&penta, &status).err();
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
    let session = Session::open_new(plan, RunKind::Sprt)?;
    let dir = session.dir().to_path_buf();
    let mut observer = Observer {
        sprt,
        tracker: PairTracker::default(),
        trace: SprtTrace::create(&dir)?,
        last: None,
        on_pair,
    };
    let mut sink = OnGame(|record: &GameRecord| observer.game(record));
    let outcome = session.play_after(&mut sink, sinks)?;
    outcome.check(&dir, false, true)?;
    let penta = observer.tracker.penta();
    let status = observer
        .last
        .unwrap_or_else(|| observer.sprt.status(&penta));
    SprtFile {
        elo0: test.elo0,
        elo1: test.elo1,
        alpha: test.alpha,
        beta: test.beta,
        model: test.model.as_str().to_string(),
        pairs: penta.pairs(),
        penta: penta.to_array(),
        status,
    }
    .write(&dir)?;
    let finished = session.finish(outcome, &Finish::sequential_test(report));
    Ok(SprtEnd {
        penta,
        status,
        finished,
    })
}
