//! Joint ratings by maximum (penalised) likelihood: a Bradley–Terry model on the Elo logistic
//! scale with a first-mover advantage and Davidson's (1970) draw parameter.
//!
//! # Model
//!
//! For a game where player `i` moves first against `j`, let
//! `x = β·(r_i − r_j + h)` with `β = ln(10)/400`, `r` the ratings in Elo and `h` the first-mover
//! advantage in Elo. With `ν = e^θ`,
//!
//! ```text
//! P(i wins) = e^{x/2} / Z,   P(draw) = ν / Z,   P(j wins) = e^{−x/2} / Z,
//! Z = e^{x/2} + e^{−x/2} + ν.
//! ```
//!
//! With `ν = 0` this is exactly the Elo logistic curve `1/(1 + 10^{−(r_i − r_j + h)/400})`.
//! Why Davidson rather than "a draw is half a win and half a loss": mancala has a few percent
//! draws, and Davidson's model uses them as information in a proper likelihood (the
//! half-point trick double-counts a draw as two half-games, which makes the Hessian standard
//! errors slightly wrong), while keeping the ratings on the Elo scale (the win/loss odds are
//! `10^{Δ/400}` whatever the draw rate). The log-likelihood is jointly concave in `(r, h, θ)`
//! (it is linear minus a log-sum-exp of linear functions), so Newton's method with a
//! backtracking line search converges from any start.
//!
//! # Prior (why nothing is ever infinite)
//!
//! As in BayesElo, each player gets `prior_games` (default 2) *virtual games* scored half a
//! point against a virtual opponent at the centre of the raw scale, i.e. a penalty
//! `(k/2)·[ln σ(βr_i) + ln σ(−βr_i)]`. It makes every rating finite (a player with only wins
//! gets a large finite rating, flagged `unbounded_above`), removes the translation
//! invariance, and is negligible with more than a few dozen games per player. `h` gets a
//! N(0, 1000 Elo) prior and `θ` a N(0, 5²) prior, both practically flat.
//!
//! # Output
//!
//! Ratings are shifted to the [`Anchor`]. Standard errors come from the observed information
//! (minus the Hessian of the log-posterior at the optimum; normal approximation) and are
//! those of the *anchored* ratings: for `Anchor::Mean` the SE of `r_i − mean(r)`, for
//! `Anchor::Player(p, _)` the SE of `r_i − r_p` (zero for `p` itself).
//! Sources: Bradley & Terry (1952), Davidson (1970), Hunter (2004), Coulom's BayesElo;
//! details in `docs/statistics.md`.

use super::linalg::{cholesky, cholesky_inverse, cholesky_solve};
use super::{check_level, normal_quantile, Cell, GameTable, RatingError, ELO_SCALE};
use serde::Serialize;
use std::fmt;

/// Where the rating scale is pinned.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub enum Anchor {
    /// The mean rating of all players is this value (default 1200).
    Mean(f64),
    /// Player `.0` is rated `.1`.
    Player(usize, f64),
}

impl Default for Anchor {
    fn default() -> Self {
        Anchor::Mean(1200.0)
    }
}

/// Settings of the fit.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FitConfig {
    /// Where the scale is pinned.
    pub anchor: Anchor,
    /// Fit a first-mover advantage (otherwise it is fixed at 0).
    pub first_move_advantage: bool,
    /// Virtual half-point games per player (BayesElo-style prior), `> 0`. Default 2.
    pub prior_games: f64,
    /// Confidence level of the normal-approximation intervals, in (0, 1). Default 0.95.
    pub level: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            anchor: Anchor::default(),
            first_move_advantage: true,
            prior_games: 2.0,
            level: 0.95,
        }
    }
}

impl FitConfig {
    /// Checks the configuration against a pool of `players` players.
    pub fn validate(&self, players: usize) -> Result<(), RatingError> {
        check_level(self.level)?;
        if !(self.prior_games > 0.0 && self.prior_games.is_finite()) {
            return Err(RatingError::InvalidConfig(format!(
                "prior_games {} must be positive and finite",
                self.prior_games
            )));
        }
        match self.anchor {
            Anchor::Mean(v) if !v.is_finite() => Err(RatingError::InvalidConfig(
                "the anchor value must be finite".into(),
            )),
            Anchor::Player(p, _) if p >= players => Err(RatingError::InvalidConfig(format!(
                "anchor player {p} is out of range (there are {players} players)"
            ))),
            Anchor::Player(_, v) if !v.is_finite() => Err(RatingError::InvalidConfig(
                "the anchor value must be finite".into(),
            )),
            _ => Ok(()),
        }
    }
}

/// A point estimate with its standard error and normal-approximation interval.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct Estimate {
    /// Point estimate.
    pub value: f64,
    /// Standard error (observed information).
    pub se: f64,
    /// Lower end of `value − z·se`.
    pub ci_low: f64,
    /// Upper end of `value + z·se`.
    pub ci_high: f64,
}

impl Estimate {
    fn new(value: f64, se: f64, z: f64) -> Estimate {
        Estimate {
            value,
            se,
            ci_low: value - z * se,
            ci_high: value + z * se,
        }
    }
}

/// One player's fitted rating.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PlayerRating {
    /// Rating in Elo, anchored.
    pub elo: f64,
    /// Standard error of the anchored rating (Hessian, normal approximation).
    pub se: f64,
    /// Normal-approximation interval at the configured level.
    pub ci_low: f64,
    /// Normal-approximation interval at the configured level.
    pub ci_high: f64,
    /// Games played.
    pub games: u64,
    /// Wins.
    pub wins: u64,
    /// Draws.
    pub draws: u64,
    /// Losses.
    pub losses: u64,
    /// Points / games, `None` without games.
    pub score: Option<f64>,
    /// The player's group never conceded a point to the rest of its component: the maximum
    /// likelihood rating is +∞; the reported value is set by the prior.
    pub unbounded_above: bool,
    /// The player's group never scored a point against the rest of its component.
    pub unbounded_below: bool,
    /// Index of the connected component (players linked by games) holding this player.
    pub component: usize,
}

/// Davidson's draw parameter.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrawParameter {
    /// ν = e^θ.
    pub nu: f64,
    /// Interval for ν, `exp(θ ± z·se(θ))`.
    pub nu_ci_low: f64,
    /// Interval for ν.
    pub nu_ci_high: f64,
    /// Draw probability between equal players with no advantage: ν / (2 + ν).
    pub draw_rate_equal: f64,
}

/// Something the caller should tell the user about the fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
#[non_exhaustive]
pub enum FitWarning {
    /// A player has no games: its rating is the prior's.
    NoGames {
        /// The player.
        player: usize,
    },
    /// Players fall into groups that never met: ratings across groups are set by the prior.
    SeparateComponents {
        /// The groups (players with games only).
        components: Vec<Vec<usize>>,
    },
    /// Inside one connected group, some subgroup never conceded a point to the rest (Ford's
    /// condition, Hunter 2004): the gaps between these subgroups are set by the prior.
    NotStronglyConnected {
        /// The strongly connected subgroups, strongest-first is not implied.
        groups: Vec<Vec<usize>>,
    },
    /// No draws at all: the draw parameter is set by the prior (ν ≈ 0).
    NoDraws,
    /// The first-mover advantage is poorly determined (colours not balanced).
    AdvantagePoorlyDetermined {
        /// Its standard error in Elo.
        se: f64,
    },
}

impl FitWarning {
    /// The warning as a sentence, with player names.
    pub fn describe(&self, names: &[String]) -> String {
        let name = |p: usize| names.get(p).cloned().unwrap_or_else(|| format!("#{p}"));
        let list = |ps: &[usize]| ps.iter().map(|&p| name(p)).collect::<Vec<_>>().join(", ");
        let groups = |gs: &[Vec<usize>]| {
            gs.iter()
                .map(|g| format!("{{{}}}", list(g)))
                .collect::<Vec<_>>()
                .join(" ")
        };
        match self {
            FitWarning::NoGames { player } => {
                format!("{} has no games: its rating is the prior's only", name(*player))
            }
            FitWarning::SeparateComponents { components } => format!(
                "players fall into groups that never met: {}; ratings across groups are determined by the prior only",
                groups(components)
            ),
            FitWarning::NotStronglyConnected { groups: gs } => format!(
                "some players never conceded a point to others (groups {}): the rating gaps between these groups are infinite by maximum likelihood and set by the prior",
                groups(gs)
            ),
            FitWarning::NoDraws => {
                "no draws: the draw parameter is set by the prior (close to 0)".to_string()
            }
            FitWarning::AdvantagePoorlyDetermined { se } => format!(
                "the first-mover advantage is poorly determined (standard error {se:.0} Elo): are colours balanced?"
            ),
        }
    }
}

impl fmt::Display for FitWarning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.describe(&[]))
    }
}

/// The fitted ratings.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Ratings {
    /// Per player, in input order.
    pub players: Vec<PlayerRating>,
    /// First-mover advantage in Elo (0 with SE 0 if not fitted).
    pub advantage: Estimate,
    /// Davidson draw parameter.
    pub draw: DrawParameter,
    /// The anchor used.
    pub anchor: Anchor,
    /// Level of the normal intervals.
    pub level: f64,
    /// Prior strength used.
    pub prior_games: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// Log-posterior (log-likelihood plus prior) at the optimum.
    pub log_posterior: f64,
    /// Things to tell the user.
    pub warnings: Vec<FitWarning>,
    /// Raw parameters `[βr_0..βr_{n−1}, βh, θ]`, for warm starts.
    #[serde(skip)]
    pub(crate) raw: Vec<f64>,
    /// Covariance of the raw parameters (inverse observed information), `(n+2)²`.
    #[serde(skip)]
    pub(crate) cov: Vec<f64>,
}

impl Ratings {
    /// `elo_i − elo_j`.
    pub fn diff(&self, i: usize, j: usize) -> f64 {
        self.players[i].elo - self.players[j].elo
    }

    /// Standard error of `elo_i − elo_j` from the observed information.
    pub fn diff_se(&self, i: usize, j: usize) -> f64 {
        let m = self.raw.len();
        let v = self.cov[i * m + i] + self.cov[j * m + j] - 2.0 * self.cov[i * m + j];
        v.max(0.0).sqrt() / ELO_SCALE
    }

    /// Model probabilities `[win, draw, loss]` for `i` moving first against `j`.
    pub fn predict(&self, i: usize, j: usize) -> [f64; 3] {
        davidson_probabilities(self.diff(i, j) + self.advantage.value, self.draw.nu)
    }
}

/// Davidson probabilities `[win, draw, loss]` of the first player for an Elo difference
/// `d` (first minus second, advantage included) and draw parameter `nu`.
///
/// ```
/// use mancala_rating::fit::davidson_probabilities;
/// let [w, d, l] = davidson_probabilities(0.0, 0.0);
/// assert_eq!((w, d, l), (0.5, 0.0, 0.5));
/// let [w, _, _] = davidson_probabilities(400.0, 0.0);
/// assert!((w - 10.0 / 11.0).abs() < 1e-12); // odds 10:1 at +400 Elo
/// ```
pub fn davidson_probabilities(d: f64, nu: f64) -> [f64; 3] {
    let a = 0.5 * ELO_SCALE * d;
    let th = nu.ln();
    let m = a.abs().max(th);
    let (ew, el, ed) = ((a - m).exp(), (-a - m).exp(), (th - m).exp());
    let z = ew + el + ed;
    [ew / z, ed / z, el / z]
}

/// ln(1 + e^x) without overflow.
fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

fn sigmoid(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// Prior standard deviation of the advantage, in raw units (1000 Elo).
const ADV_PRIOR_SD: f64 = 1000.0 * ELO_SCALE;
/// Prior standard deviation of θ = ln ν.
const THETA_PRIOR_SD: f64 = 5.0;

/// The penalised log-likelihood over a set of counts.
pub(crate) struct Objective<'a> {
    pub(crate) n: usize,
    pub(crate) cells: &'a [Cell],
    pub(crate) use_adv: bool,
    pub(crate) prior_games: f64,
}

impl Objective<'_> {
    fn dim(&self) -> usize {
        self.n + 2
    }

    /// Value; gradient and Hessian (row-major) if asked.
    fn eval(
        &self,
        counts: &[[f64; 3]],
        p: &[f64],
        mut grad: Option<&mut [f64]>,
        mut hess: Option<&mut [f64]>,
    ) -> f64 {
        let n = self.n;
        let m = self.dim();
        let (ia, it) = (n, n + 1);
        if let Some(g) = grad.as_deref_mut() {
            g.iter_mut().for_each(|v| *v = 0.0);
        }
        if let Some(h) = hess.as_deref_mut() {
            h.iter_mut().for_each(|v| *v = 0.0);
        }
        let eta = if self.use_adv { p[ia] } else { 0.0 };
        let th = p[it];
        let mut f = 0.0;
        for (c, k) in self.cells.iter().zip(counts) {
            let tot = k[0] + k[1] + k[2];
            if tot == 0.0 {
                continue;
            }
            let (i, j) = (c.first, c.second);
            let a = 0.5 * (p[i] - p[j] + eta);
            let mx = a.abs().max(th);
            let (ew, el, ed) = ((a - mx).exp(), (-a - mx).exp(), (th - mx).exp());
            let z = ew + el + ed;
            let log_z = mx + z.ln();
            f += k[0] * a - k[2] * a + k[1] * th - tot * log_z;
            let (pw, pl, pd) = (ew / z, el / z, ed / z);
            if let Some(g) = grad.as_deref_mut() {
                let gx = 0.5 * (k[0] - k[2] - tot * (pw - pl));
                let gt = k[1] - tot * pd;
                g[i] += gx;
                g[j] -= gx;
                if self.use_adv {
                    g[ia] += gx;
                }
                g[it] += gt;
            }
            if let Some(h) = hess.as_deref_mut() {
                let dpl = pw - pl;
                let hxx = -0.25 * tot * (pw + pl - dpl * dpl);
                let hxt = 0.5 * tot * dpl * pd;
                let htt = -tot * pd * (1.0 - pd);
                // x = p_i − p_j + η
                let idx: [(usize, f64); 3] = [(i, 1.0), (j, -1.0), (ia, 1.0)];
                let used = if self.use_adv { 3 } else { 2 };
                for &(u, su) in &idx[..used] {
                    for &(v, sv) in &idx[..used] {
                        h[u * m + v] += su * sv * hxx;
                    }
                    h[u * m + it] += su * hxt;
                    h[it * m + u] += su * hxt;
                }
                h[it * m + it] += htt;
            }
        }
        // Priors.
        let k = self.prior_games;
        for i in 0..n {
            let x = p[i];
            f -= 0.5 * k * (softplus(-x) + softplus(x));
            if let Some(g) = grad.as_deref_mut() {
                g[i] += k * (0.5 - sigmoid(x));
            }
            if let Some(h) = hess.as_deref_mut() {
                let s = sigmoid(x);
                h[i * m + i] -= k * s * (1.0 - s);
            }
        }
        if self.use_adv {
            let v = ADV_PRIOR_SD * ADV_PRIOR_SD;
            f -= 0.5 * eta * eta / v;
            if let Some(g) = grad.as_deref_mut() {
                g[ia] -= eta / v;
            }
            if let Some(h) = hess.as_deref_mut() {
                h[ia * m + ia] -= 1.0 / v;
            }
        } else if let Some(h) = hess.as_deref_mut() {
            // η is fixed: a decoupled unit row keeps the system regular and the step at 0.
            h[ia * m + ia] = -1.0;
        }
        let v = THETA_PRIOR_SD * THETA_PRIOR_SD;
        f -= 0.5 * th * th / v;
        if let Some(g) = grad {
            g[it] -= th / v;
        }
        if let Some(h) = hess {
            h[it * m + it] -= 1.0 / v;
        }
        f
    }

    /// Maximises from `p` (updated in place) by damped Newton. Returns the iterations used.
    pub(crate) fn maximize(
        &self,
        counts: &[[f64; 3]],
        p: &mut [f64],
    ) -> Result<usize, RatingError> {
        const MAX_ITER: usize = 200;
        let m = self.dim();
        let mut g = vec![0.0; m];
        let mut h = vec![0.0; m * m];
        let mut trial = vec![0.0; m];
        if !self.use_adv {
            p[self.n] = 0.0;
        }
        for iter in 0..MAX_ITER {
            let f = self.eval(counts, p, Some(&mut g), Some(&mut h));
            h.iter_mut().for_each(|v| *v = -*v);
            let l = match cholesky(&h, m) {
                Some(l) => l,
                None => {
                    // Numerically indefinite (should not happen): regularise the diagonal.
                    let scale = (0..m).map(|i| h[i * m + i].abs()).fold(1e-12, f64::max);
                    for i in 0..m {
                        h[i * m + i] += 1e-8 * scale;
                    }
                    cholesky(&h, m).ok_or(RatingError::NoConvergence { iterations: iter })?
                }
            };
            let mut step = g.clone();
            cholesky_solve(&l, m, &mut step);
            let decrement: f64 = g.iter().zip(&step).map(|(a, b)| a * b).sum();
            if !decrement.is_finite() {
                return Err(RatingError::NoConvergence { iterations: iter });
            }
            if decrement < 1e-12 {
                return Ok(iter);
            }
            // Cap huge steps (raw units: 5 ≈ 870 Elo) so exp() stays tame.
            let big = step.iter().fold(0.0f64, |a, b| a.max(b.abs()));
            let mut t = if big > 5.0 { 5.0 / big } else { 1.0 };
            let improved = loop {
                for ((q, a), b) in trial.iter_mut().zip(p.iter()).zip(&step) {
                    *q = a + t * b;
                }
                let ft = self.eval(counts, &trial, None, None);
                if ft >= f + 1e-4 * t * decrement {
                    break true;
                }
                if t < 1e-3 {
                    break false;
                }
                t *= 0.5;
            };
            if !improved {
                // The objective is concave, so a Newton direction that cannot be improved on
                // means we are at the optimum to the precision of summing the counts
                // (|f| grows with the number of games).
                if decrement < 1e-9 * f.abs().max(1.0) {
                    return Ok(iter);
                }
                return Err(RatingError::NoConvergence { iterations: iter });
            }
            p.copy_from_slice(&trial);
        }
        Err(RatingError::NoConvergence {
            iterations: MAX_ITER,
        })
    }

    /// Inverse of the observed information at `p`.
    fn covariance(&self, counts: &[[f64; 3]], p: &[f64]) -> Result<Vec<f64>, RatingError> {
        let m = self.dim();
        let mut h = vec![0.0; m * m];
        self.eval(counts, p, None, Some(&mut h));
        h.iter_mut().for_each(|v| *v = -*v);
        let l = cholesky(&h, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
        let mut c = cholesky_inverse(&l, m);
        if !self.use_adv {
            c[self.n * m + self.n] = 0.0;
        }
        Ok(c)
    }
}

/// Anchored Elo ratings from raw parameters.
pub(crate) fn anchored(raw: &[f64], n: usize, anchor: Anchor) -> Vec<f64> {
    let (shift, value) = match anchor {
        Anchor::Mean(v) => (raw[..n].iter().sum::<f64>() / n as f64, v),
        Anchor::Player(q, v) => (raw[q], v),
    };
    raw[..n]
        .iter()
        .map(|x| (x - shift) / ELO_SCALE + value)
        .collect()
}

/// Counts as floats, parallel to `table.cells()`.
pub(crate) fn float_counts(table: &GameTable) -> Vec<[f64; 3]> {
    table
        .cells()
        .iter()
        .map(|c| c.counts.map(|x| x as f64))
        .collect()
}

/// A starting point: all ratings 0, no advantage, θ from the overall draw rate.
pub(crate) fn start_point(table: &GameTable) -> Vec<f64> {
    let n = table.players();
    let (mut d, mut t) = (0.0, 0.0);
    for c in table.cells() {
        d += c.counts[1] as f64;
        t += (c.counts[0] + c.counts[1] + c.counts[2]) as f64;
    }
    let rate = if t > 0.0 {
        (d / t).clamp(1e-3, 0.9)
    } else {
        0.05
    };
    let mut p = vec![0.0; n + 2];
    p[n + 1] = (2.0 * rate / (1.0 - rate)).ln();
    p
}

/// Fits the ratings of all players in `table`.
pub fn fit(table: &GameTable, config: &FitConfig) -> Result<Ratings, RatingError> {
    let n = table.players();
    config.validate(n)?;
    let obj = Objective {
        n,
        cells: table.cells(),
        use_adv: config.first_move_advantage,
        prior_games: config.prior_games,
    };
    let counts = float_counts(table);
    let mut p = start_point(table);
    let iterations = obj.maximize(&counts, &mut p)?;
    let log_posterior = obj.eval(&counts, &p, None, None);
    let cov = obj.covariance(&counts, &p)?;
    let m = n + 2;
    let z = normal_quantile(0.5 + config.level / 2.0);
    let elos = anchored(&p, n, config.anchor);

    // Variance of each anchored rating.
    let var: Vec<f64> = match config.anchor {
        Anchor::Mean(_) => {
            let row_mean: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| cov[i * m + j]).sum::<f64>() / n as f64)
                .collect();
            let all_mean = row_mean.iter().sum::<f64>() / n as f64;
            (0..n)
                .map(|i| cov[i * m + i] - 2.0 * row_mean[i] + all_mean)
                .collect()
        }
        Anchor::Player(q, _) => (0..n)
            .map(|i| cov[i * m + i] + cov[q * m + q] - 2.0 * cov[i * m + q])
            .collect(),
    };

    let graph = analyse_graph(table);
    let mut warnings = Vec::new();
    let totals = table.totals();
    for (i, t) in totals.iter().enumerate() {
        if t.games == 0 {
            warnings.push(FitWarning::NoGames { player: i });
        }
    }
    if graph.components.len() > 1 {
        warnings.push(FitWarning::SeparateComponents {
            components: graph.components.clone(),
        });
    }
    for groups in &graph.split_components {
        warnings.push(FitWarning::NotStronglyConnected {
            groups: groups.clone(),
        });
    }
    let total_draws: u64 = table.cells().iter().map(|c| c.counts[1]).sum();
    if table.games() > 0 && total_draws == 0 {
        warnings.push(FitWarning::NoDraws);
    }
    let adv_se = cov[n * m + n].max(0.0).sqrt() / ELO_SCALE;
    if config.first_move_advantage && table.games() > 0 && adv_se > 150.0 {
        warnings.push(FitWarning::AdvantagePoorlyDetermined { se: adv_se });
    }

    let players = (0..n)
        .map(|i| {
            let se = var[i].max(0.0).sqrt() / ELO_SCALE;
            let t = &totals[i];
            PlayerRating {
                elo: elos[i],
                se,
                ci_low: elos[i] - z * se,
                ci_high: elos[i] + z * se,
                games: t.games,
                wins: t.wins,
                draws: t.draws,
                losses: t.losses,
                score: t.score(),
                unbounded_above: graph.above[i],
                unbounded_below: graph.below[i],
                component: graph.component_of[i],
            }
        })
        .collect();
    let theta = p[n + 1];
    let theta_se = cov[(n + 1) * m + n + 1].max(0.0).sqrt();
    let nu = theta.exp();
    Ok(Ratings {
        players,
        advantage: Estimate::new(p[n] / ELO_SCALE, adv_se, z),
        draw: DrawParameter {
            nu,
            nu_ci_low: (theta - z * theta_se).exp(),
            nu_ci_high: (theta + z * theta_se).exp(),
            draw_rate_equal: nu / (2.0 + nu),
        },
        anchor: config.anchor,
        level: config.level,
        prior_games: config.prior_games,
        iterations,
        log_posterior,
        warnings,
        raw: p,
        cov,
    })
}

/// Connectivity of the results graph.
struct Graph {
    /// Connected components (players with games), each sorted.
    components: Vec<Vec<usize>>,
    component_of: Vec<usize>,
    /// For each connected component that is not strongly connected, its strong components.
    split_components: Vec<Vec<Vec<usize>>>,
    above: Vec<bool>,
    below: Vec<bool>,
}

/// Components (who met whom) and strong components of "a scored a point against b" (Ford's
/// condition for a finite maximum-likelihood estimate: Hunter 2004, assumption 1).
fn analyse_graph(table: &GameTable) -> Graph {
    let n = table.players();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut inn: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut und: Vec<Vec<usize>> = vec![Vec::new(); n];
    for c in table.cells() {
        let [w, d, l] = c.counts;
        if w + d + l == 0 {
            continue;
        }
        und[c.first].push(c.second);
        und[c.second].push(c.first);
        if w + d > 0 {
            out[c.first].push(c.second);
            inn[c.second].push(c.first);
        }
        if l + d > 0 {
            out[c.second].push(c.first);
            inn[c.first].push(c.second);
        }
    }
    // Connected components by DFS.
    let mut component_of = vec![usize::MAX; n];
    let mut all_components = Vec::new();
    for s in 0..n {
        if component_of[s] != usize::MAX {
            continue;
        }
        let id = all_components.len();
        let mut members = vec![s];
        component_of[s] = id;
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            for &v in &und[u] {
                if component_of[v] == usize::MAX {
                    component_of[v] = id;
                    members.push(v);
                    stack.push(v);
                }
            }
        }
        members.sort_unstable();
        all_components.push(members);
    }
    let components: Vec<Vec<usize>> = all_components
        .iter()
        .filter(|c| table.totals()[c[0]].games > 0)
        .cloned()
        .collect();
    // Strong components (Kosaraju, iterative).
    let mut order = Vec::with_capacity(n);
    let mut seen = vec![false; n];
    for s in 0..n {
        if seen[s] {
            continue;
        }
        seen[s] = true;
        let mut stack = vec![(s, 0usize)];
        while let Some((u, k)) = stack.pop() {
            if k < out[u].len() {
                stack.push((u, k + 1));
                let v = out[u][k];
                if !seen[v] {
                    seen[v] = true;
                    stack.push((v, 0));
                }
            } else {
                order.push(u);
            }
        }
    }
    let mut scc = vec![usize::MAX; n];
    let mut sccs: Vec<Vec<usize>> = Vec::new();
    for &s in order.iter().rev() {
        if scc[s] != usize::MAX {
            continue;
        }
        let id = sccs.len();
        scc[s] = id;
        let mut members = vec![s];
        let mut stack = vec![s];
        while let Some(u) = stack.pop() {
            for &v in &inn[u] {
                if scc[v] == usize::MAX {
                    scc[v] = id;
                    members.push(v);
                    stack.push(v);
                }
            }
        }
        members.sort_unstable();
        sccs.push(members);
    }
    let mut conceded = vec![false; sccs.len()];
    let mut scored = vec![false; sccs.len()];
    for u in 0..n {
        for &v in &out[u] {
            if scc[u] != scc[v] {
                scored[scc[u]] = true;
                conceded[scc[v]] = true;
            }
        }
    }
    let mut above = vec![false; n];
    let mut below = vec![false; n];
    let mut split_components = Vec::new();
    for comp in &all_components {
        let mut ids: Vec<usize> = comp.iter().map(|&p| scc[p]).collect();
        ids.sort_unstable();
        ids.dedup();
        if ids.len() > 1 {
            for &p in comp {
                above[p] = !conceded[scc[p]];
                below[p] = !scored[scc[p]];
            }
            split_components.push(ids.iter().map(|&k| sccs[k].clone()).collect());
        }
    }
    Graph {
        components,
        component_of,
        split_components,
        above,
        below,
    }
}
