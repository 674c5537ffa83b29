//! Calibration: which value of a bot's knob (an option such as `Noise` or `Depth`) makes it play
//! at a given Elo against a fixed, rated reference pool. `arena calibrate` drives it; the site
//! uses the result to fill empty seats with bots of a chosen strength.
//!
//! Why sequential and model-based: rating a uniform grid of knob values, each to ±25 Elo, costs
//! thousands of games per point-set and spends most of them where no target is. Instead the
//! calibration keeps one fitted curve Elo(knob) over all games so far ([`curve`]), asks it where
//! each target's knob is and how uncertain the Elo there is, and plays the next batch at the
//! target whose interval is widest, until every target's interval at its knob is within the
//! tolerance (or the game budget is spent, which the result reports per target).
//!
//! The games come from a [`Player`]: real bot processes through the tournament runner (in the
//! CLI) or a [`sim::SimulatedPlayer`] whose true curve is known (the tests). Everything here is
//! pure and deterministic given the player.
//!
//! Integer knobs (search depth) cannot hit a target exactly: the result gives the two
//! neighbouring integers with their Elos, and the stopping rule asks for both to be precise.

pub mod curve;
pub mod matchmaking;
pub mod sim;

#[cfg(test)]
mod tests;

use serde::{Deserialize, Serialize};
use statrs::distribution::{ContinuousCDF, Normal};

pub use curve::{fit_curve, point_estimate, Curve, Observation};

/// The knob being calibrated: a bot option over a numeric range.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Knob {
    /// The option's name as the bot knows it (`Noise`, `Depth`).
    pub name: String,
    pub lo: f64,
    pub hi: f64,
    /// Only whole values are meaningful (a spin option such as `Depth`).
    pub integer: bool,
}

impl Knob {
    /// Parses `option.NAME=LO..HI` (the `option.` prefix is optional). The knob is an integer
    /// knob when both ends are written without a decimal point or exponent (`1..8`).
    pub fn parse(text: &str) -> Result<Knob, String> {
        let spec = text.strip_prefix("option.").unwrap_or(text);
        let (name, range) = spec
            .split_once('=')
            .ok_or_else(|| format!("--knob `{text}`: expected option.NAME=LO..HI"))?;
        let (lo_text, hi_text) = range
            .split_once("..")
            .ok_or_else(|| format!("--knob `{text}`: expected a range LO..HI"))?;
        let num = |s: &str| -> Result<f64, String> {
            s.trim()
                .parse::<f64>()
                .ok()
                .filter(|v| v.is_finite())
                .ok_or_else(|| format!("--knob `{text}`: `{s}` is not a number"))
        };
        let (lo, hi) = (num(lo_text)?, num(hi_text)?);
        if name.trim().is_empty() {
            return Err(format!("--knob `{text}`: the option name is empty"));
        }
        if lo >= hi {
            return Err(format!("--knob `{text}`: LO must be below HI"));
        }
        let whole = |s: &str| !s.contains(['.', 'e', 'E']);
        Ok(Knob {
            name: name.trim().to_string(),
            lo,
            hi,
            integer: whole(lo_text) && whole(hi_text),
        })
    }

    /// The value as the option's text: a whole number for integer knobs, else up to three
    /// decimals without trailing zeros.
    pub fn format(&self, x: f64) -> String {
        if self.integer {
            format!("{}", x.round() as i64)
        } else {
            let s = format!("{x:.3}");
            let s = s.trim_end_matches('0').trim_end_matches('.');
            if s.is_empty() || s == "-" {
                "0".to_string()
            } else {
                s.to_string()
            }
        }
    }

    /// `x` clamped to the range (and rounded, for integer knobs).
    pub fn snap(&self, x: f64) -> f64 {
        let x = x.clamp(self.lo, self.hi);
        if self.integer {
            x.round()
        } else {
            // The value the bot will actually see.
            self.format(x).parse().unwrap_or(x)
        }
    }
}

/// What the calibration aims for and how much it may spend.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Settings {
    /// Target Elos on the pool's scale.
    pub targets: Vec<f64>,
    /// Stop when each target's interval half-width at its knob is at most this (Elo).
    pub tolerance: f64,
    /// Confidence level of the intervals (0.95).
    pub level: f64,
    /// Stop (unconverged) after this many games.
    pub max_games: usize,
    /// Highest polynomial degree of the curve.
    pub max_degree: usize,
    /// Evenly spaced knob values played first, ends included.
    pub initial_points: usize,
    /// Game pairs per reference opponent in a batch: at least, and at most.
    pub min_pairs: u32,
    pub max_pairs: u32,
}

impl Default for Settings {
    fn default() -> Self {
        Settings {
            targets: vec![1000.0, 1200.0, 1400.0, 1600.0],
            tolerance: 25.0,
            level: 0.95,
            max_games: 3000,
            max_degree: 3,
            initial_points: 3,
            min_pairs: 1,
            max_pairs: 4,
        }
    }
}

/// Plays games of the candidate at a knob value against every member of the reference pool.
pub trait Player {
    /// Plays `pairs` colour-swapped game pairs against each reference opponent with the knob at
    /// `x` and returns the candidate's games. `step` numbers the batches from 0.
    fn play(&mut self, step: usize, x: f64, pairs: u32) -> Result<Vec<Observation>, String>;
}

/// One batch the calibration played.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Step {
    pub step: usize,
    pub x: f64,
    pub pairs: u32,
    pub games: usize,
    /// The target this batch was for (None: the initial design).
    pub target: Option<f64>,
}

/// Everything evaluated at one knob value, rated on its own (one-parameter fit against the
/// fixed pool).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Point {
    pub x: f64,
    pub games: usize,
    pub score: f64,
    pub elo: f64,
    pub se: f64,
    pub ci_low: f64,
    pub ci_high: f64,
}

/// A neighbouring integer of an integer knob's crossing, with the curve's Elo there.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Neighbour {
    pub x: f64,
    pub elo: f64,
    pub half_width: f64,
}

/// The answer for one target.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TargetResult {
    pub target: f64,
    /// The knob value to use (for integer knobs the nearer integer).
    pub x: f64,
    /// The continuous crossing of the curve (equal to `x` for float knobs).
    pub crossing: f64,
    /// The curve's Elo at `x` and its interval half-width.
    pub elo: f64,
    pub half_width: f64,
    /// The curve reaches the target inside the knob range.
    pub reachable: bool,
    /// The interval is within the tolerance (or the target is confidently out of range).
    pub converged: bool,
    /// Integer knobs: the integers either side of the crossing.
    pub neighbours: Vec<Neighbour>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Stop {
    /// Every target converged.
    Converged,
    /// The game budget ran out first.
    Budget,
}

/// The result of a calibration, or (`finished` false) where it stands after a step: the curve
/// fitted to the games so far and the targets as that curve places them.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Calibration {
    pub knob: Knob,
    pub settings: Settings,
    pub opponents: Vec<f64>,
    pub targets: Vec<TargetResult>,
    pub points: Vec<Point>,
    pub steps: Vec<Step>,
    pub curve: Curve,
    pub games: usize,
    /// Why it stopped; `None` while it runs.
    pub stop: Option<Stop>,
    /// The z of the intervals (1.96 for 95%).
    pub z: f64,
    /// The calibration has ended. Files written before the calibration reported each step
    /// have no such field: they were written only at the end.
    #[serde(default = "yes")]
    pub finished: bool,
}

fn yes() -> bool {
    true
}

/// The two-sided normal quantile for a confidence level.
pub fn z_of(level: f64) -> f64 {
    Normal::new(0.0, 1.0)
        .expect("standard normal")
        .inverse_cdf(0.5 + level / 2.0)
}

/// Expected per-game Fisher information (Elo⁻²) about a candidate of Elo `elo` from colour-balanced
/// games spread evenly over `opponents`.
pub fn info_per_game(elo: f64, opponents: &[f64]) -> f64 {
    let n = opponents.len().max(1) as f64;
    opponents
        .iter()
        .map(|&r| {
            let p = 1.0 / (1.0 + (-curve::C * (elo - r)).exp());
            curve::C * curve::C * p * (1.0 - p)
        })
        .sum::<f64>()
        / n
}

/// About how many games the calibration will play before every target converges, to tell the
/// user before it starts (the budget caps it; `None` when the budget will not suffice): a game
/// against a pool member near the target carries about `C²/4` of information on the Elo, so
/// pinning one target to ±tolerance at confidence `z` takes about `(z/tolerance)² · 4/C²` games
/// (742 for ±25 at 95 %), an integer knob twice that (both neighbouring integers must be pinned
/// down). The adaptive design shares games between nearby targets and plays some away from them,
/// which roughly cancel: on the simulated players of the tests the real cost is within a quarter
/// of this (2988 played for 2968 expected at ±25; `the_expected_games_are_within_a_quarter_of_the_simulated_cost`).
pub fn expected_games(settings: &Settings, integer: bool) -> usize {
    let per_target =
        (z_of(settings.level) / settings.tolerance).powi(2) * 4.0 / (curve::C * curve::C);
    let factor = if integer { 2.0 } else { 1.0 };
    (per_target * factor * settings.targets.len() as f64).ceil() as usize
}

/// Runs the calibration: an initial design, then batches where the widest target interval is,
/// until every target converges or the budget is spent. After every step but the last,
/// `on_step` gets the calibration so far (`finished` false), so that it can be shown while it
/// runs; the last step's is the result.
pub fn calibrate(
    knob: &Knob,
    opponents: &[f64],
    settings: &Settings,
    player: &mut dyn Player,
    mut on_step: impl FnMut(&Calibration),
) -> Result<Calibration, String> {
    if opponents.is_empty() {
        return Err("the reference pool is empty".into());
    }
    if settings.targets.is_empty() {
        return Err("no targets".into());
    }
    let z = z_of(settings.level);
    let mut obs: Vec<Observation> = Vec::new();
    let mut steps: Vec<Step> = Vec::new();
    let mut play = |obs: &mut Vec<Observation>,
                    steps: &mut Vec<Step>,
                    x: f64,
                    pairs: u32,
                    target: Option<f64>|
     -> Result<(), String> {
        let step = steps.len();
        let games = player.play(step, x, pairs)?;
        steps.push(Step {
            step,
            x,
            pairs,
            games: games.len(),
            target,
        });
        obs.extend(games);
        Ok(())
    };
    let n0 = settings.initial_points.max(2);
    let mut initial: Vec<f64> = (0..n0)
        .map(|i| knob.snap(knob.lo + (knob.hi - knob.lo) * i as f64 / (n0 - 1) as f64))
        .collect();
    initial.dedup();
    let mut near: Vec<Option<f64>> = vec![None; settings.targets.len()];
    for (i, &x) in initial.iter().enumerate() {
        play(&mut obs, &mut steps, x, settings.min_pairs.max(1), None)?;
        // The design's last step is reported by the loop below; before it a curve that cannot
        // be fitted yet only means nothing to report.
        if i + 1 < initial.len() {
            if let Ok(cal) = so_far(knob, opponents, settings, &obs, &steps, &near, z) {
                on_step(&cal);
            }
        }
    }
    loop {
        let mut cal = so_far(knob, opponents, settings, &obs, &steps, &near, z)?;
        for (n, r) in near.iter_mut().zip(&cal.targets) {
            *n = Some(r.crossing);
        }
        let all = cal.targets.iter().all(|r| r.converged);
        if all || obs.len() >= settings.max_games {
            cal.stop = Some(if all { Stop::Converged } else { Stop::Budget });
            cal.finished = true;
            return Ok(cal);
        }
        on_step(&cal);
        // The unconverged target with the widest interval, and there the candidate setting
        // whose Elo is least certain.
        let worst = cal
            .targets
            .iter()
            .filter(|r| !r.converged)
            .max_by(|a, b| a.half_width.total_cmp(&b.half_width))
            .expect("some target is unconverged");
        let x = candidates(knob, worst)
            .into_iter()
            .max_by(|&a, &b| cal.curve.se(a).total_cmp(&cal.curve.se(b)))
            .expect("at least one candidate");
        let pairs = batch_pairs(&cal.curve, x, opponents, z, settings, obs.len());
        play(&mut obs, &mut steps, x, pairs, Some(worst.target))?;
    }
}

/// The calibration as the games so far place it (not finished): the curve fitted to them, each
/// target assessed on it (the crossing nearest `near`), and every point.
fn so_far(
    knob: &Knob,
    opponents: &[f64],
    settings: &Settings,
    obs: &[Observation],
    steps: &[Step],
    near: &[Option<f64>],
    z: f64,
) -> Result<Calibration, String> {
    let curve = fit_curve(obs, opponents, knob.lo, knob.hi, settings.max_degree)
        .map_err(|e| e.to_string())?;
    let targets = settings
        .targets
        .iter()
        .zip(near)
        .map(|(&t, &near)| assess(knob, &curve, t, near, z, settings.tolerance))
        .collect();
    Ok(Calibration {
        knob: knob.clone(),
        settings: settings.clone(),
        opponents: opponents.to_vec(),
        targets,
        points: points(obs, opponents, z),
        steps: steps.to_vec(),
        curve,
        games: obs.len(),
        stop: None,
        z,
        finished: false,
    })
}

/// The settings whose Elo the result for `r` rests on.
fn candidates(knob: &Knob, r: &TargetResult) -> Vec<f64> {
    if knob.integer && !r.neighbours.is_empty() {
        r.neighbours.iter().map(|n| n.x).collect()
    } else {
        vec![knob.snap(r.x)]
    }
}

/// Where the curve puts a target, and whether that is settled.
fn assess(
    knob: &Knob,
    curve: &Curve,
    target: f64,
    near: Option<f64>,
    z: f64,
    tolerance: f64,
) -> TargetResult {
    let inv = curve.inverse(target, near);
    let mut neighbours = Vec::new();
    let x = if knob.integer {
        let (a, b) = (inv.x.floor(), inv.x.ceil());
        for n in if a == b { vec![a] } else { vec![a, b] } {
            neighbours.push(Neighbour {
                x: n,
                elo: curve.elo(n),
                half_width: z * curve.se(n),
            });
        }
        knob.snap(inv.x)
    } else {
        knob.snap(inv.x)
    };
    let elo = curve.elo(x);
    let half_width = z * curve.se(x);
    let widest = neighbours
        .iter()
        .map(|n| n.half_width)
        .fold(half_width, f64::max);
    let converged = if inv.reachable {
        widest <= tolerance
    } else {
        // Out of range: settled once the end's interval excludes the target.
        (elo - target).abs() > half_width || half_width <= tolerance
    };
    TargetResult {
        target,
        x,
        crossing: inv.x,
        elo,
        half_width,
        reachable: inv.reachable,
        converged,
        neighbours,
    }
}

/// How many pairs per opponent to play next at `x`: about half of what the current precision
/// says is still missing there, within the settings' bounds and the budget.
fn batch_pairs(
    curve: &Curve,
    x: f64,
    opponents: &[f64],
    z: f64,
    settings: &Settings,
    played: usize,
) -> u32 {
    let se = curve.se(x).max(1e-9);
    let info = info_per_game(curve.elo(x), opponents).max(1e-12);
    // The games the curve's precision at x is worth, and the games ±tolerance needs.
    let worth = 1.0 / (se * se * info);
    let need = (z / settings.tolerance).powi(2) / info;
    let missing = (need - worth).max(0.0);
    let per_pair = 2.0 * opponents.len() as f64;
    let mut pairs = (0.5 * missing / per_pair).ceil() as u32;
    pairs = pairs.clamp(settings.min_pairs.max(1), settings.max_pairs.max(1));
    let left = settings.max_games.saturating_sub(played) as f64;
    let affordable = (left / per_pair).ceil().max(1.0) as u32;
    pairs.min(affordable)
}

/// The evaluated knob values, each rated on its own games.
fn points(obs: &[Observation], opponents: &[f64], z: f64) -> Vec<Point> {
    let mut xs: Vec<f64> = obs.iter().map(|o| o.x).collect();
    xs.sort_by(f64::total_cmp);
    xs.dedup();
    xs.into_iter()
        .filter_map(|x| {
            let at: Vec<Observation> = obs.iter().copied().filter(|o| o.x == x).collect();
            let (elo, se) = point_estimate(&at, opponents).ok()?;
            Some(Point {
                x,
                games: at.len(),
                score: at.iter().map(|o| o.score).sum::<f64>() / at.len() as f64,
                elo,
                se,
                ci_low: elo - z * se,
                ci_high: elo + z * se,
            })
        })
        .collect()
}
