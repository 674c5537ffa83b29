//! `sprt.json` (the hypotheses and the decision) and `sprt.csv` (the log-likelihood ratio after
//! every completed game pair), written by `arena sprt`.
//!
//! # Format
//! `sprt.json`: `elo0`, `elo1`, `alpha`, `beta`, `model` (`logistic`, `normalized` or
//! `margin`), `pairs`, `penta` (`[LL, LD, DD/WL, WD, WW]` from the test bot's view), `status`
//! (`result`: `Continue`, `AcceptH0` or `AcceptH1`; `llr`, `lower`, `upper`), `estimate` (the
//! test bot's Elo: `elo`, `low`, `high`, `level`; null where unbounded), and with the margin
//! model `link` (`advantage`, `delta`, `sd`, `step`, `clip`, `pairs`) and `link_check`.
//! Written when the test ends.
//!
//! `sprt.csv`: a header, then one row per completed pair, flushed as it is written: `pairs`,
//! `llr`, `lower`, `upper` (5 decimals), the pentanomial counts `ll`, `ld`, `dd_wl`, `wd`,
//! `ww`, and the estimate so far `elo`, `elo_low`, `elo_high` (empty where unbounded).

use std::fs::File;
use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use crate::rating::margin::{Link, LinkCheck};
use crate::rating::pairwise::PentaCounts;
use crate::rating::sprt::{EloEstimate, SprtStatus};

pub const SPRT_JSON: &str = "sprt.json";
pub const SPRT_CSV: &str = "sprt.csv";

/// What `sprt.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SprtFile {
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub model: String,
    pub pairs: u64,
    pub penta: [u64; 5],
    pub status: SprtStatus,
    /// The test bot's Elo over the base with its interval (absent in folders of older
    /// versions).
    #[serde(default)]
    pub estimate: Option<EloEstimate>,
    /// `model` `margin`: the link from margins to score, and its check on the run's pairs.
    #[serde(default)]
    pub link: Option<Link>,
    #[serde(default)]
    pub link_check: Option<LinkCheck>,
}

impl SprtFile {
    /// The test bot's Elo in words, the same in the verdict line, `summary.md`, `report.html`
    /// and the dashboard: `Elo of test over base: +4.1 [-8.1, +16.4] (95 %)`, from the margins
    /// with the margin model.
    pub fn estimate_words(&self) -> String {
        estimate_words(self.estimate.as_ref(), &self.model)
    }

    /// The folder's `sprt.json`, `None` if it has none.
    pub fn read(dir: &Path) -> Result<Option<SprtFile>> {
        super::read_json(dir, SPRT_JSON)
    }

    pub fn write(&self, dir: &Path) -> Result<()> {
        super::write_json(dir, SPRT_JSON, self)
    }
}

/// The SPRT's estimate in words for `model` (empty: said without its source; `None`: before
/// the first pair).
pub fn estimate_words(estimate: Option<&EloEstimate>, model: &str) -> String {
    let source = match model {
        "margin" => " (from the seed margins)",
        "" => "",
        _ => " (pentanomial)",
    };
    match estimate {
        Some(e) => format!("Elo of test over base: {}{source}", e.describe()),
        None => "Elo of test over base: no estimate yet".to_string(),
    }
}

impl TracePoint {
    /// The estimate recorded with this pair (`None` in traces of older versions).
    pub fn estimate(&self) -> Option<EloEstimate> {
        (self.elo.is_some() || self.elo_low.is_some() || self.elo_high.is_some()).then_some(
            EloEstimate {
                elo: self.elo,
                low: self.elo_low,
                high: self.elo_high,
                level: 0.95,
            },
        )
    }
}

/// One row of `sprt.csv` (the counts are not read back).
#[derive(Clone, Copy, Debug, PartialEq, Deserialize)]
pub struct TracePoint {
    pub pairs: u64,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    /// The estimate after this pair (empty where unbounded; absent in older traces).
    #[serde(default)]
    pub elo: Option<f64>,
    #[serde(default)]
    pub elo_low: Option<f64>,
    #[serde(default)]
    pub elo_high: Option<f64>,
}

/// The most of `sprt.csv` a reader takes in.
const MAX_TRACE: u64 = 256 << 20;

/// Appends to `sprt.csv`.
pub struct SprtTrace {
    csv: csv::Writer<File>,
}

impl SprtTrace {
    /// Creates `sprt.csv` with its header.
    pub fn create(dir: &Path) -> Result<SprtTrace> {
        let path = dir.join(SPRT_CSV);
        let mut csv = csv::Writer::from_writer(super::files::create(&path)?);
        csv.write_record([
            "pairs", "llr", "lower", "upper", "ll", "ld", "dd_wl", "wd", "ww", "elo", "elo_low",
            "elo_high",
        ])?;
        csv.flush()?;
        Ok(SprtTrace { csv })
    }

    /// One completed pair: the counts so far, the test's status and the estimate.
    pub fn append(
        &mut self,
        penta: &PentaCounts,
        status: &SprtStatus,
        estimate: Option<&EloEstimate>,
    ) -> Result<()> {
        let num = |x: Option<f64>| x.map_or(String::new(), |v| format!("{v:.2}"));
        self.csv.write_record(&[
            penta.pairs().to_string(),
            format!("{:.5}", status.llr),
            format!("{:.5}", status.lower),
            format!("{:.5}", status.upper),
            penta.ll.to_string(),
            penta.ld.to_string(),
            penta.dd_wl.to_string(),
            penta.wd.to_string(),
            penta.ww.to_string(),
            num(estimate.and_then(|e| e.elo)),
            num(estimate.and_then(|e| e.low)),
            num(estimate.and_then(|e| e.high)),
        ])?;
        self.csv.flush()?;
        Ok(())
    }
}

/// The folder's `sprt.csv` rows, `None` if it has none. A torn last line (the run was killed
/// mid-write) ends the trace.
pub fn read_trace(dir: &Path) -> Result<Option<Vec<TracePoint>>> {
    use std::io::Read;
    let path = dir.join(SPRT_CSV);
    let Some(file) = super::files::open_read_if_exists(&path)? else {
        return Ok(None);
    };
    // A trace row is some 60 bytes: a million pairs fit; a file made huge is read no further.
    let mut reader = csv::Reader::from_reader(file.take(MAX_TRACE));
    Ok(Some(
        reader
            .deserialize::<TracePoint>()
            .map_while(Result::ok)
            .collect(),
    ))
}
