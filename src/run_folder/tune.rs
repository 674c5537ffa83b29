//! The files of a tune folder (`arena tune`), beside its `iter-NNNN/` run folders (one per
//! iteration: θ+ against θ−) and its `verify/` SPRT folder: `tune.json`, `tune.csv`,
//! `params.txt`, `tuned.txt` and `tuned.toml`.
//!
//! # Format
//! - `tune.json`: the [`TuneFile`]: the tune's `setup` (bot, parameters, schedule, seed, game
//!   settings, verification), `steps` (one per completed iteration: `iteration`, `pairs` (game
//!   pairs completed so far), `iteration_pairs`, `result` (θ+'s wins − losses), `theta` (after
//!   the update), `c`, `r`, `delta`, `plus`, `minus`, per parameter in the setup's order),
//!   `finished`, `tuned` (the result, once finished) and `verify` (the SPRT's outcome, once
//!   played). `--resume` reads only the setup: the trajectory is replayed from the iteration
//!   folders' games.
//! - `tune.csv`: a header, then a row per iteration: `iteration,pairs,result`, then for each
//!   parameter `NAME,NAME_c,NAME_r` (θ after the update and c_k with 4 decimals, R_k with 6).
//! - `params.txt`: the parameters tuned, one line each in OpenBench's form
//!   (`name, int|float, start, min, max, c_end, r_end`), readable by `--params`.
//! - `tuned.txt`: `name,value` per parameter, the values a bot gets (integers rounded).
//! - `tuned.toml`: a `[[bot]]` table in the tournament file's format with the tuned options.
//!
//! `tune.json` and `tune.csv` are rewritten after every iteration, each through a temporary file
//! renamed over the old one, so a reader (`arena serve`) never sees half a file.

use std::path::Path;

use anyhow::Result;
use serde::{Deserialize, Serialize};

use super::calibration::write_atomically;
use crate::rating::spsa::{Param, Schedule};
use crate::vocab::{BotSpec, FileBot, GameFlags, Program};

pub const TUNE_JSON: &str = "tune.json";
pub const TUNE_CSV: &str = "tune.csv";
pub const PARAMS_TXT: &str = "params.txt";
pub const TUNED_TXT: &str = "tuned.txt";
pub const TUNED_TOML: &str = "tuned.toml";
/// Each iteration's run folder is `iter-NNNN` (from 0).
pub const ITER_PREFIX: &str = "iter-";
/// The verification SPRT's run folder.
pub const VERIFY_DIR: &str = "verify";
/// The players of an iteration.
pub const PLUS: &str = "plus";
pub const MINUS: &str = "minus";

/// Whether `dir` is a tune folder (it holds `tune.json`).
pub fn is_tune_dir(dir: &Path) -> bool {
    dir.join(TUNE_JSON).is_file()
}

/// The run folder of iteration `it` inside the tune folder `dir`.
pub fn iteration_dir(dir: &Path, it: u64) -> std::path::PathBuf {
    dir.join(format!("{ITER_PREFIX}{it:04}"))
}

/// The verification asked for: an SPRT of the tuned values (test) against the start (base).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifySetup {
    /// The game settings of the verification (its time control).
    pub game: GameFlags,
    pub elo0: f64,
    pub elo1: f64,
    pub alpha: f64,
    pub beta: f64,
    pub max_pairs: u32,
}

/// Everything a tune is a function of (with the games).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneSetup {
    /// The tuned player with its fixed options (a tuned parameter's own gives way to the tune);
    /// `None` in files written before it was recorded, which give `bot` and `bot_options`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub player: Option<BotSpec>,
    /// The tuned bot's command line, in words (for readers; `player` is what is played).
    pub bot: String,
    /// Its fixed options, `NAME=VALUE`, in words.
    pub bot_options: Vec<String>,
    pub params: Vec<Param>,
    pub iterations: u64,
    pub pairs_per_iteration: u32,
    pub schedule: Schedule,
    /// The result is the mean θ over this last fraction of the iterations (0: the last θ).
    pub tail: f64,
    pub seed: u64,
    /// The iterations' game settings.
    pub game: GameFlags,
    pub verify: Option<VerifySetup>,
    /// Where each iteration's result comes from: `wdl` (wins − losses) or `margin` (the pairs'
    /// seed margins, `rating::margin::ResultScale`). Absent in files of older versions: `wdl`.
    #[serde(default = "wdl", skip_serializing_if = "is_wdl")]
    pub model: String,
}

fn wdl() -> String {
    "wdl".to_string()
}

fn is_wdl(model: &String) -> bool {
    model == "wdl"
}

impl TuneSetup {
    /// The tuned player with its fixed options: `player`, or for an older file the command line
    /// and options it recorded.
    pub fn player(&self) -> anyhow::Result<BotSpec> {
        if let Some(p) = &self.player {
            return Ok(p.clone());
        }
        let options = self
            .bot_options
            .iter()
            .map(|o| match o.split_once('=') {
                Some((k, v)) => Ok((k.to_string(), v.to_string())),
                None => anyhow::bail!("tune.json: bot option `{o}` is not NAME=VALUE"),
            })
            .collect::<anyhow::Result<_>>()?;
        Ok(BotSpec {
            name: "tuned".into(),
            program: Program::from_command_line(&self.bot)
                .map_err(|e| anyhow::anyhow!("tune.json: bot: {e}"))?,
            dir: None,
            options,
            protocol: Default::default(),
            sandbox: false,
            memory: None,
            time_by: None,
            kgp_missing_move: Default::default(),
        })
    }
}

/// One completed iteration.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneStep {
    pub iteration: u64,
    /// Completed game pairs so far (this iteration's included).
    pub pairs: u64,
    pub iteration_pairs: u64,
    /// θ+'s wins − losses in this iteration's completed pairs.
    pub result: f64,
    /// θ after the update.
    pub theta: Vec<f64>,
    pub c: Vec<f64>,
    pub r: Vec<f64>,
    pub delta: Vec<i8>,
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
}

/// The verification's outcome.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct VerifyOutcome {
    /// The run folder, relative to the tune folder.
    pub dir: String,
    /// `H1` (verified), `H0` (not stronger) or `inconclusive`.
    pub verdict: String,
    pub llr: f64,
    pub lower: f64,
    pub upper: f64,
    pub pairs: u64,
    /// The tuned values' Elo against the start values (pentanomial), with its 95 % half-width.
    pub elo: Option<f64>,
    pub elo_error: Option<f64>,
}

/// What `tune.json` holds.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TuneFile {
    pub setup: TuneSetup,
    pub steps: Vec<TuneStep>,
    pub finished: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tuned: Option<Vec<f64>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub verify: Option<VerifyOutcome>,
}

impl TuneFile {
    /// The folder's `tune.json`, `None` if it has none.
    pub fn read(dir: &Path) -> Result<Option<TuneFile>> {
        super::read_json(dir, TUNE_JSON)
    }

    /// Writes `tune.json` and `tune.csv`.
    pub fn write(&self, dir: &Path) -> Result<()> {
        let mut w = csv::Writer::from_writer(Vec::new());
        let mut header = vec!["iteration".to_string(), "pairs".into(), "result".into()];
        for p in &self.setup.params {
            header.push(p.name.clone());
            header.push(format!("{}_c", p.name));
            header.push(format!("{}_r", p.name));
        }
        w.write_record(&header)?;
        for s in &self.steps {
            let mut row = vec![
                s.iteration.to_string(),
                s.pairs.to_string(),
                format!("{}", s.result),
            ];
            for i in 0..self.setup.params.len() {
                row.push(format!("{:.4}", s.theta[i]));
                row.push(format!("{:.4}", s.c[i]));
                row.push(format!("{:.6}", s.r[i]));
            }
            w.write_record(&row)?;
        }
        write_atomically(&dir.join(TUNE_CSV), &w.into_inner()?)?;
        let json = serde_json::to_string_pretty(self)? + "\n";
        write_atomically(&dir.join(TUNE_JSON), json.as_bytes())
    }
}

/// Writes `params.txt`.
pub fn write_params(dir: &Path, params: &[Param]) -> Result<()> {
    let mut text = String::from("# name, type, start, min, max, c_end, r_end (arena tune)\n");
    for p in params {
        text.push_str(&p.to_line());
        text.push('\n');
    }
    super::files::write(&dir.join(PARAMS_TXT), text)?;
    Ok(())
}

/// Writes `tuned.txt` (`name,value` lines) and `tuned.toml` (a `[[bot]]` table: `spec`, the
/// bot with its fixed and tuned options, renamed `name`).
pub fn write_tuned(dir: &Path, params: &[Param], values: &[f64], spec: &BotSpec) -> Result<()> {
    let mut text = String::new();
    for (p, v) in params.iter().zip(values) {
        text.push_str(&format!("{},{}\n", p.name, p.format(*v)));
    }
    super::files::write(&dir.join(TUNED_TXT), text)?;
    #[derive(Serialize)]
    struct OneBot<'a> {
        bot: [&'a FileBot; 1],
    }
    let table = FileBot::from_spec(spec);
    let toml = format!(
        "# arena tune: the tuned values (tuned.txt) with the bot's fixed options\n{}",
        toml::to_string(&OneBot { bot: [&table] })?
    );
    super::files::write(&dir.join(TUNED_TOML), toml)?;
    Ok(())
}
