//! SPSA (simultaneous perturbation stochastic approximation) as fishtest and OpenBench run it,
//! for tuning a bot's numeric options for strength. `arena tune` drives it; [`sim`] checks it on
//! a simulated bot whose Elo is a known function of its parameters.
//!
//! Parameters are the engine authors' lines `name, start, min, max, c_end, r_end` (fishtest's
//! format; OpenBench's `name, int|float, start, min, max, c_end, r_end` is read too). With `N`
//! the planned number of game pairs and `A = a_ratio · N` (10 % by default), each parameter gets
//! (fishtest, `server/fishtest/spsa_handler.py` and the run creation in `rundb.py`):
//!
//! ```text
//! c   = c_end · N^γ                 a   = r_end · c_end² · (A + N)^α
//! c_k = c / (k + 1)^γ               a_k = a / (A + k + 1)^α        R_k = a_k / c_k²
//! ```
//!
//! so that `c_k` reaches `c_end` and `R_k` reaches `r_end` at `k = N − 1`. An iteration at pair
//! count `k` draws `δ ∈ {−1, +1}^p`, plays `θ+ = clip(θ + c_k δ)` against `θ− = clip(θ − c_k δ)`
//! in colour-swapped pairs, and with `result` = θ+'s wins minus losses over its completed pairs
//! (fishtest's `wins − losses`) moves `θ ← clip(θ + R_k · c_k · result · δ)`; `k` then advances
//! by the number of completed pairs (fishtest's `iter += num_games // 2`). Integer parameters are
//! sent to the bot stochastically rounded (`⌊x + u⌋`, `u` uniform), so that their expected value
//! is the real-valued θ±; θ itself stays real.
//!
//! Everything here is pure and deterministic: the randomness (δ and the rounding) comes from a
//! generator the caller derives from the run seed and the iteration number.

pub mod sim;

#[cfg(test)]
mod tests;

use rand::Rng;
use serde::{Deserialize, Serialize};

/// One tuned parameter (a line of the parameters file).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Param {
    /// The option's name as the bot knows it.
    pub name: String,
    pub start: f64,
    pub min: f64,
    pub max: f64,
    /// The perturbation size at the end of the tune.
    pub c_end: f64,
    /// The learning rate at the end of the tune (`a_end / c_end²`).
    pub r_end: f64,
    /// A `spin` option: values sent to the bot are whole numbers (stochastically rounded).
    pub integer: bool,
}

/// Why a parameter line or set was refused.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{what}")]
pub struct ParamError {
    pub what: String,
}

fn err(what: String) -> ParamError {
    ParamError { what }
}

impl Param {
    /// Checks the invariants: `min ≤ start ≤ max`, `min < max`, `c_end > 0`, `r_end > 0`, all
    /// finite, a non-empty name without spaces, `=` or commas.
    pub fn checked(self) -> Result<Param, ParamError> {
        let n = &self.name;
        if n.is_empty() || n.contains(|c: char| c.is_whitespace() || c == '=' || c == ',') {
            return Err(err(format!("`{n}`: not an option name")));
        }
        let all = [self.start, self.min, self.max, self.c_end, self.r_end];
        if all.iter().any(|v| !v.is_finite()) {
            return Err(err(format!("{n}: every number must be finite")));
        }
        if !(self.min < self.max && self.min <= self.start && self.start <= self.max) {
            return Err(err(format!(
                "{n}: expected min < max and min <= start <= max, got start {} min {} max {}",
                self.start, self.min, self.max
            )));
        }
        if self.c_end <= 0.0 || self.r_end <= 0.0 {
            return Err(err(format!("{n}: c_end and r_end must be > 0")));
        }
        Ok(self)
    }

    /// Parses one line: `name, start, min, max, c_end, r_end` (fishtest) or
    /// `name, int|float, start, min, max, c_end, r_end` (OpenBench). Without a type, a parameter
    /// whose start, min and max are all written as whole numbers is an integer.
    ///
    /// ```
    /// use mancala_rating::spsa::Param;
    /// let p = Param::parse_line("EvalCapture, 0, -16, 16, 2, 0.002").unwrap();
    /// assert!(p.integer && p.c_end == 2.0);
    /// let q = Param::parse_line("Noise, float, 0.5, 0, 2, 0.1, 0.002").unwrap();
    /// assert!(!q.integer && q.start == 0.5);
    /// ```
    pub fn parse_line(line: &str) -> Result<Param, ParamError> {
        let fields: Vec<&str> = line.split(',').map(str::trim).collect();
        let (name, kind, nums) = match fields.len() {
            6 => (fields[0], None, &fields[1..]),
            7 => (fields[0], Some(fields[1]), &fields[2..]),
            n => {
                return Err(err(format!(
                    "`{line}`: expected `name, start, min, max, c_end, r_end` (6 fields) or \
                     `name, int|float, start, min, max, c_end, r_end`, got {n} fields"
                )))
            }
        };
        let mut v = [0.0; 5];
        for (slot, text) in v.iter_mut().zip(nums) {
            *slot = text
                .parse::<f64>()
                .map_err(|_| err(format!("`{line}`: `{text}` is not a number")))?;
        }
        let integer = match kind.map(str::to_ascii_lowercase).as_deref() {
            None => nums[..3].iter().all(|t| t.parse::<i64>().is_ok()),
            Some("int") => true,
            Some("float") => false,
            Some(other) => return Err(err(format!("`{line}`: `{other}`: expected int or float"))),
        };
        Param {
            name: name.to_string(),
            start: v[0],
            min: v[1],
            max: v[2],
            c_end: v[3],
            r_end: v[4],
            integer,
        }
        .checked()
    }

    /// The line [`Param::parse_line`] reads back (OpenBench's form, with the type).
    pub fn to_line(&self) -> String {
        format!(
            "{}, {}, {}, {}, {}, {}, {}",
            self.name,
            if self.integer { "int" } else { "float" },
            self.start,
            self.min,
            self.max,
            self.c_end,
            self.r_end
        )
    }

    /// How far `x` has moved from the start in units of the final perturbation,
    /// `(x − start) / c_end`: what fishtest's SPSA chart plots, so that parameters of any scale
    /// share one axis and a move of 1 is one `c_end`, the step the tune can still resolve at
    /// its end.
    pub fn moved(&self, x: f64) -> f64 {
        (x - self.start) / self.c_end
    }

    /// `x` clipped to the range.
    pub fn clip(&self, x: f64) -> f64 {
        x.clamp(self.min, self.max)
    }

    /// A value as the bot receives it: a whole number for an integer parameter (`x` already
    /// rounded), otherwise a decimal.
    pub fn format(&self, x: f64) -> String {
        if self.integer {
            format!("{}", x.round() as i64)
        } else {
            let s = format!("{x:.6}");
            let s = s.trim_end_matches('0');
            s.trim_end_matches('.').to_string()
        }
    }
}

/// Reads a parameters file: one [`Param::parse_line`] a line; blank lines and `#` comments are
/// skipped. Names must be distinct and there must be at least one.
pub fn parse_params(text: &str) -> Result<Vec<Param>, ParamError> {
    let mut params: Vec<Param> = Vec::new();
    for (i, line) in text.lines().enumerate() {
        let line = line.split('#').next().unwrap_or("").trim();
        if line.is_empty() {
            continue;
        }
        let p = Param::parse_line(line).map_err(|e| err(format!("line {}: {}", i + 1, e.what)))?;
        if params.iter().any(|q| q.name.eq_ignore_ascii_case(&p.name)) {
            return Err(err(format!("line {}: `{}` twice", i + 1, p.name)));
        }
        params.push(p);
    }
    if params.is_empty() {
        return Err(err("no parameters".to_string()));
    }
    Ok(params)
}

/// The schedule's constants (fishtest's defaults: α 0.602, γ 0.101, A = 10 % of the pairs).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Schedule {
    pub alpha: f64,
    pub gamma: f64,
    /// `A` as a fraction of the planned pairs.
    pub a_ratio: f64,
    /// Planned game pairs `N` (iterations × pairs per iteration).
    pub pairs: u64,
}

impl Schedule {
    /// fishtest's defaults for `pairs` planned pairs.
    pub fn fishtest(pairs: u64) -> Schedule {
        Schedule {
            alpha: 0.602,
            gamma: 0.101,
            a_ratio: 0.1,
            pairs,
        }
    }

    fn big_a(&self) -> f64 {
        self.a_ratio * self.pairs as f64
    }

    /// `c_k` of `p` after `k` completed pairs.
    pub fn c_k(&self, p: &Param, k: u64) -> f64 {
        let n = self.pairs.max(1) as f64;
        let c = p.c_end * n.powf(self.gamma);
        c / (k as f64 + 1.0).powf(self.gamma)
    }

    /// `R_k` of `p` after `k` completed pairs.
    pub fn r_k(&self, p: &Param, k: u64) -> f64 {
        let n = self.pairs.max(1) as f64;
        let a = p.r_end * p.c_end * p.c_end * (self.big_a() + n).powf(self.alpha);
        let a_k = a / (self.big_a() + k as f64 + 1.0).powf(self.alpha);
        let c_k = self.c_k(p, k);
        a_k / (c_k * c_k)
    }
}

/// Stochastic rounding: `⌊x + u⌋` with `u` uniform in [0, 1), so the expectation is `x`.
pub fn stochastic_round(x: f64, rng: &mut impl Rng) -> f64 {
    (x + rng.gen::<f64>()).floor()
}

/// One iteration's perturbation: what θ+ and θ− play with, and what the update needs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Perturbation {
    /// Completed pairs before this iteration (the schedule's `k`).
    pub k: u64,
    /// ±1 per parameter.
    pub delta: Vec<i8>,
    pub c: Vec<f64>,
    pub r: Vec<f64>,
    /// The values θ+ and θ− are played with (clipped; integers rounded).
    pub plus: Vec<f64>,
    pub minus: Vec<f64>,
}

/// The tune's state: the parameters, θ and the completed pairs.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Spsa {
    pub params: Vec<Param>,
    pub schedule: Schedule,
    pub theta: Vec<f64>,
    /// Completed game pairs (`k`).
    pub pairs: u64,
    /// Completed iterations.
    pub iterations: u64,
}

impl Spsa {
    pub fn new(params: Vec<Param>, schedule: Schedule) -> Spsa {
        let theta = params.iter().map(|p| p.start).collect();
        Spsa {
            params,
            schedule,
            theta,
            pairs: 0,
            iterations: 0,
        }
    }

    /// Draws the next iteration's perturbation from `rng` (δ first, then the roundings, in
    /// parameter order: the same generator state gives the same perturbation).
    pub fn perturb(&self, rng: &mut impl Rng) -> Perturbation {
        let k = self.pairs;
        let delta: Vec<i8> = self
            .params
            .iter()
            .map(|_| if rng.gen::<bool>() { 1 } else { -1 })
            .collect();
        let mut out = Perturbation {
            k,
            delta,
            c: Vec::new(),
            r: Vec::new(),
            plus: Vec::new(),
            minus: Vec::new(),
        };
        for (i, p) in self.params.iter().enumerate() {
            let c = self.schedule.c_k(p, k);
            let step = c * f64::from(out.delta[i]);
            let mut plus = p.clip(self.theta[i] + step);
            let mut minus = p.clip(self.theta[i] - step);
            if p.integer {
                plus = p.clip(stochastic_round(plus, rng));
                minus = p.clip(stochastic_round(minus, rng));
            }
            out.c.push(c);
            out.r.push(self.schedule.r_k(p, k));
            out.plus.push(plus);
            out.minus.push(minus);
        }
        out
    }

    /// Applies an iteration: `pairs` completed pairs in which θ+ scored `result` = wins −
    /// losses (in games) against θ−. An iteration without a completed pair changes nothing but
    /// the iteration count.
    pub fn update(&mut self, pert: &Perturbation, pairs: u64, result: f64) {
        for (i, p) in self.params.iter().enumerate() {
            let step = pert.r[i] * pert.c[i] * result * f64::from(pert.delta[i]);
            self.theta[i] = p.clip(self.theta[i] + step);
        }
        self.pairs += pairs;
        self.iterations += 1;
    }
}

/// The mean of the last `fraction` of a trajectory of θs (Polyak–Ruppert averaging of the
/// iterates), or the last θ when `fraction` is 0 or the trajectory has one point. `None` when
/// it is empty.
pub fn tail_mean(trajectory: &[Vec<f64>], fraction: f64) -> Option<Vec<f64>> {
    let last = trajectory.last()?;
    let n = ((trajectory.len() as f64) * fraction.clamp(0.0, 1.0)).ceil() as usize;
    if n <= 1 {
        return Some(last.clone());
    }
    let tail = &trajectory[trajectory.len() - n..];
    Some(
        (0..last.len())
            .map(|i| tail.iter().map(|t| t[i]).sum::<f64>() / n as f64)
            .collect(),
    )
}
