//! Joint ratings on the expected-score scale, as Ordo computes them: the ratings `r` (Elo) and
//! the first-mover advantage `h` (Elo) solve the expected-score equations, one per player and one
//! for the first movers,
//!
//! ```text
//! Σ_games E(r_first − r_second + h) = points scored,     E(Δ) = 1 / (1 + 10^(−Δ/400)),
//! ```
//!
//! draws counting half a point (Ordo 1.2.6, `rating.c`, `encount.c`; docs/statistics.md §2). So a
//! rating difference means what Elo means everywhere: the difference whose logistic curve gives
//! the expected score, whatever the draw rate. The equations are the stationarity conditions of
//! the concave quasi-log-likelihood
//!
//! ```text
//! Q(r, h) = Σ_cells [ s·ln E(x) + (n − s)·ln(1 − E(x)) ],   x = r_first − r_second + h,
//! ```
//!
//! over ordered cells with `n` games and `s` first-mover points: sufficient statistics, so a fit of
//! a million games costs no more than one of a thousand. Newton's method on `Q` (one player per
//! connected group is held at 0, the groups are centred afterwards).
//!
//! # Prior
//!
//! BayesElo's (Coulom, `CCondensedResults::AddPrior`): `prior` virtual draws per player, spread
//! over its real opponents in proportion to the games played against each and over both
//! colours: player i with `N_i` games adds `prior·n_ij/(4·N_i)` draws to each colour of its
//! encounter with j. They make every rating finite (a player who never lost gets a finite rating,
//! flagged) and move well-determined ratings by a fraction of an Elo point; `prior = 0` is the
//! plain fit, refused where it does not exist (a group that never conceded or never scored a
//! point against the rest).
//!
//! # Errors
//!
//! `Q` counts a draw as half a win and half a loss, so `H⁻¹` (`H = −∇²Q`) would overstate the
//! variance of a result by the draws. The covariance is the sandwich `H⁻¹ J H⁻¹`, `J` the
//! empirical variance of the score residuals, with the two games of a colour-swapped pair
//! (same opening) summed before squaring, as the pair bootstrap resamples them.
//!
//! # Draws
//!
//! They do not move the ratings. The draw parameter ν is fitted afterwards for predictions and
//! simulation (Ordo's draw law): at expected score `p` the draw probability `p_D` solves
//! `p_D = ν·√(p_W·p_L)` with `p_W = p − p_D/2`, `p_L = 1 − p − p_D/2`, and ν makes the expected
//! number of draws equal the observed one. Between equals `p_D = ν/(2 + ν)`.

use super::linalg::{
    cholesky, cholesky_solve, cholesky_solve_t, congruence, spd_inverse, transpose,
};
use super::{check_level, normal_quantile, GameTable, RatingError, ELO_SCALE};
use serde::Serialize;
use std::collections::{HashMap, HashSet};
use std::fmt;

/// `∂x/∂q` of one cell: up to three parameters (both players, the advantage) with their signs.
type Gradient = [(Option<usize>, f64); 3];

/// Where the rating scale is pinned.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub enum Anchor {
    /// The mean rating of all players is this value (default 1200).
    Mean(f64),
    /// Player `.0` is rated `.1`.
    Player(usize, f64),
    /// Several anchors, as Ordo's `-m` and `-y` files give them: see [`AnchorSet`].
    Set(AnchorSet),
}

/// Fixed and loose anchors (Ordo 1.2.6: `-m` multiple anchors, `-y` "rating seeds" with an
/// uncertainty, `relprior.c` `priors_load`, `ratingb.c` `prior_unfitness`).
///
/// - A *fixed* anchor holds its player at its value: the player is not a parameter of the fit
///   and its standard error is 0.
///   The other players are at the maximum of `Q` with the anchors held, with one or several
///   (not where Ordo's own step-size descent stops with several: docs/statistics.md §2a says
///   why), so the points and the intervals drawn around them are one estimate.
/// - A *loose* anchor `(A, σ)` adds the Gaussian penalty `−(r − A)²/(2σ²)` to the objective on
///   the player's absolute rating `r`: a normal prior on that rating.
///
/// A connected group of players holding at least one anchor of either kind is not centred: the
/// anchors place it. A group with neither (no games against any anchored player) has its mean put
/// at `mean`, with a [`FitWarning::Unanchored`].
///
/// Invariants (checked by [`FitConfig::validate`]): player indices in range, each player at most
/// once over both lists, values finite, every `σ` finite and positive.
#[derive(Debug, Clone, PartialEq, Serialize, Default)]
pub struct AnchorSet {
    /// `(player, Elo)`: players held at these ratings.
    pub fixed: Vec<(usize, f64)>,
    /// Players pulled toward a rating with an uncertainty.
    pub loose: Vec<LooseAnchor>,
    /// Where the mean of a group without any anchor goes.
    pub mean: f64,
}

/// A rating known with an uncertainty: a normal prior `N(elo, sd²)` on one player's rating.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct LooseAnchor {
    /// The player.
    pub player: usize,
    /// The anchor's rating (Elo).
    pub elo: f64,
    /// Its standard deviation (Elo), `> 0`.
    pub sd: f64,
}

impl Anchor {
    /// The anchor in words, as `summary.json` and the documents give it: `pool mean = 1200`,
    /// `NAME = ELO`, or for a set `fixed a = 1500, b = 1400; loose c = 1300 ± 60` with `names`
    /// the players in rating order.
    pub fn text(&self, names: &[String]) -> String {
        let name = |i: usize| names.get(i).cloned().unwrap_or_else(|| format!("#{i}"));
        match self {
            Anchor::Mean(v) => format!("pool mean = {v}"),
            Anchor::Player(i, v) => format!("{} = {v}", name(*i)),
            Anchor::Set(set) => {
                let mut parts = Vec::new();
                if !set.fixed.is_empty() {
                    let list: Vec<String> = set
                        .fixed
                        .iter()
                        .map(|&(i, v)| format!("{} = {v}", name(i)))
                        .collect();
                    parts.push(format!("fixed {}", list.join(", ")));
                }
                if !set.loose.is_empty() {
                    let list: Vec<String> = set
                        .loose
                        .iter()
                        .map(|a| format!("{} = {} ± {}", name(a.player), a.elo, a.sd))
                        .collect();
                    parts.push(format!("loose {}", list.join(", ")));
                }
                if parts.is_empty() {
                    format!("pool mean = {}", set.mean)
                } else {
                    parts.join("; ")
                }
            }
        }
    }
}

impl Default for Anchor {
    fn default() -> Self {
        Anchor::Mean(1200.0)
    }
}

/// Settings of the fit.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct FitConfig {
    /// Where the scale is pinned.
    pub anchor: Anchor,
    /// Fit a first-mover advantage (otherwise it is fixed at 0).
    pub first_move_advantage: bool,
    /// BayesElo's prior: this many virtual draws per player, spread over the player's real
    /// opponents in proportion to the games played against each (Coulom's `bayeselo`,
    /// `CCondensedResults::AddPrior`). `≥ 0`; 0 is the plain maximum-likelihood fit. Default 2.
    pub prior: f64,
    /// Confidence level of the normal-approximation intervals, in (0, 1). Default 0.95.
    pub level: f64,
}

impl Default for FitConfig {
    fn default() -> Self {
        FitConfig {
            anchor: Anchor::default(),
            first_move_advantage: true,
            prior: 2.0,
            level: 0.95,
        }
    }
}

impl FitConfig {
    /// Checks the configuration against a pool of `players` players.
    pub fn validate(&self, players: usize) -> Result<(), RatingError> {
        check_level(self.level)?;
        if !(self.prior >= 0.0 && self.prior.is_finite()) {
            return Err(RatingError::InvalidConfig(format!(
                "the prior ({} virtual draws per player) must be zero or positive",
                self.prior
            )));
        }
        let finite = |v: f64| {
            if v.is_finite() {
                Ok(())
            } else {
                Err(RatingError::InvalidConfig(
                    "the anchor value must be finite".into(),
                ))
            }
        };
        let in_range = |p: usize| {
            if p < players {
                Ok(())
            } else {
                Err(RatingError::InvalidConfig(format!(
                    "anchor player {p} is out of range (there are {players} players)"
                )))
            }
        };
        match &self.anchor {
            Anchor::Mean(v) => finite(*v),
            Anchor::Player(p, v) => in_range(*p).and_then(|()| finite(*v)),
            Anchor::Set(set) => {
                finite(set.mean)?;
                let mut seen = HashSet::new();
                let all = set
                    .fixed
                    .iter()
                    .map(|&(p, v)| (p, v, None))
                    .chain(set.loose.iter().map(|a| (a.player, a.elo, Some(a.sd))));
                for (p, v, sd) in all {
                    in_range(p)?;
                    finite(v)?;
                    if let Some(sd) = sd {
                        if !(sd > 0.0 && sd.is_finite()) {
                            return Err(RatingError::InvalidConfig(format!(
                                "the uncertainty of player {p}'s loose anchor ({sd}) must be positive"
                            )));
                        }
                    }
                    if !seen.insert(p) {
                        return Err(RatingError::InvalidConfig(format!(
                            "player {p} is anchored twice"
                        )));
                    }
                }
                Ok(())
            }
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
    /// Standard error of the anchored rating (sandwich, normal approximation).
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

/// The draw parameter of the draw law (see the module docs).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct DrawParameter {
    /// ν (0 without draws).
    pub nu: f64,
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
    /// With an [`AnchorSet`]: groups of players holding no anchor (and no games against an
    /// anchored player); each group's mean is put at `mean`.
    Unanchored {
        /// The groups (players with games only).
        components: Vec<Vec<usize>>,
        /// Where their means are put.
        mean: f64,
    },
    /// No draws at all: the draw parameter is 0.
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
            FitWarning::Unanchored { components, mean } => format!(
                "no anchor in the group{} {}: its mean is put at {mean}, its ratings are not on the anchors' scale",
                if components.len() > 1 { "s" } else { "" },
                groups(components)
            ),
            FitWarning::NoDraws => "no draws: the draw parameter is 0".to_string(),
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
    /// The draw law's parameter.
    pub draw: DrawParameter,
    /// The anchor used.
    pub anchor: Anchor,
    /// Level of the normal intervals.
    pub level: f64,
    /// Virtual draws per player used.
    pub prior: f64,
    /// Newton iterations.
    pub iterations: usize,
    /// `Q` (prior included) at the optimum.
    pub log_likelihood: f64,
    /// Things to tell the user.
    pub warnings: Vec<FitWarning>,
    /// Raw parameters `[βr_0..βr_{n−1}, βh]` (each connected group centred), for warm starts.
    #[serde(skip)]
    pub(crate) raw: Vec<f64>,
    /// Covariance of the raw parameters (sandwich), `(n+1)²`.
    #[serde(skip)]
    pub(crate) cov: Vec<f64>,
}

impl Ratings {
    /// `elo_i − elo_j`.
    pub fn diff(&self, i: usize, j: usize) -> f64 {
        self.players[i].elo - self.players[j].elo
    }

    /// Standard error of `elo_i − elo_j`.
    pub fn diff_se(&self, i: usize, j: usize) -> f64 {
        let m = self.raw.len();
        let v = self.cov[i * m + i] + self.cov[j * m + j] - 2.0 * self.cov[i * m + j];
        v.max(0.0).sqrt() / ELO_SCALE
    }

    /// Model probabilities `[win, draw, loss]` for `i` moving first against `j`.
    pub fn predict(&self, i: usize, j: usize) -> [f64; 3] {
        probabilities(self.diff(i, j) + self.advantage.value, self.draw.nu)
    }
}

/// The expected score at a raw difference `x = β·Δ`: `1 / (1 + e^(−x)) = 1 / (1 + 10^(−Δ/400))`.
pub(crate) fn expected(x: f64) -> f64 {
    if x >= 0.0 {
        1.0 / (1.0 + (-x).exp())
    } else {
        let e = x.exp();
        e / (1.0 + e)
    }
}

/// The draw probability at expected score `p` under the draw law with parameter `nu`: the root
/// of `p_D² (1 − ν²/4) + (ν²/2)·p_D − ν²·p(1 − p) = 0` in `[0, 1]`, written so that it is stable
/// for every ν (no division by `1 − ν²/4`).
pub fn draw_probability(p: f64, nu: f64) -> f64 {
    let q = p * (1.0 - p);
    if nu <= 0.0 || q <= 0.0 {
        return 0.0;
    }
    2.0 * nu * q / (0.5 * nu + (0.25 * nu * nu + 4.0 * (1.0 - 0.25 * nu * nu) * q).sqrt())
}

/// Probabilities `[win, draw, loss]` of the first player for an Elo difference `d` (first minus
/// second, advantage included) and draw parameter `nu`: the logistic expected score with the
/// draw law's draws.
///
/// ```
/// use mancala_rating::fit::probabilities;
/// let [w, d, l] = probabilities(0.0, 0.0);
/// assert_eq!((w, d, l), (0.5, 0.0, 0.5));
/// let [w, d, _] = probabilities(400.0, 1.0);
/// assert!((w + d / 2.0 - 10.0 / 11.0).abs() < 1e-12); // expected score 10:1 at +400 Elo
/// ```
pub fn probabilities(d: f64, nu: f64) -> [f64; 3] {
    let p = expected(ELO_SCALE * d);
    let pd = draw_probability(p, nu);
    [(p - 0.5 * pd).max(0.0), pd, (1.0 - p - 0.5 * pd).max(0.0)]
}

/// Which parameters are free: one player per connected group is held at 0 (the likelihood only
/// sees differences), and the advantage if it is fitted. With an [`AnchorSet`], a group holding
/// an anchor has no player held at 0: its fixed anchors are held at their values, every other
/// player is free and the loose anchors' penalties place it.
pub(crate) struct Layout {
    n: usize,
    /// Free-parameter index of each player (`None`: held at `held`).
    var: Vec<Option<usize>>,
    /// Raw value of each player that is not free (0, or `β·Elo` for a fixed anchor).
    held: Vec<f64>,
    /// Free-parameter index of the advantage.
    adv: Option<usize>,
    /// Number of free parameters.
    dim: usize,
    /// Connected group of each player (a player without games is a group of its own).
    group: Vec<usize>,
    groups: usize,
    /// Per group: placed by anchors (raw values absolute, not centred).
    anchored: Vec<bool>,
    /// Raw value the mean of every other group is put at (`β·mean` for a set, else 0).
    centre: f64,
    /// Loose anchors: `(free index, target raw value, precision 1/(β·σ)²)`.
    penalties: Vec<(usize, f64, f64)>,
}

impl Layout {
    fn new(table: &GameTable, use_adv: bool, anchor: &Anchor) -> Layout {
        let n = table.players();
        let mut parent: Vec<usize> = (0..n).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for c in table.cells() {
            let (a, b) = (root(&mut parent, c.first), root(&mut parent, c.second));
            parent[a.max(b)] = a.min(b);
        }
        let (mut fixed, mut loose) = (vec![None; n], vec![None; n]);
        let mut centre = 0.0;
        if let Anchor::Set(set) = anchor {
            for &(p, v) in &set.fixed {
                fixed[p] = Some(v * ELO_SCALE);
            }
            for a in &set.loose {
                let sd = a.sd * ELO_SCALE;
                loose[a.player] = Some((a.elo * ELO_SCALE, 1.0 / (sd * sd)));
            }
            centre = set.mean * ELO_SCALE;
        }
        let mut group = vec![0; n];
        let mut group_of_root = vec![usize::MAX; n];
        let mut groups = 0;
        for (i, g) in group.iter_mut().enumerate() {
            let r = root(&mut parent, i);
            if group_of_root[r] == usize::MAX {
                group_of_root[r] = groups;
                groups += 1;
            }
            *g = group_of_root[r];
        }
        let mut anchored = vec![false; groups];
        for ((f, l), &g) in fixed.iter().zip(&loose).zip(&group) {
            if f.is_some() || l.is_some() {
                anchored[g] = true;
            }
        }
        let mut var = vec![None; n];
        let mut held = vec![0.0; n];
        let mut has_held = vec![false; groups];
        let mut penalties = Vec::new();
        let mut dim = 0;
        for i in 0..n {
            let g = group[i];
            if let Some(v) = fixed[i] {
                held[i] = v;
            } else if !anchored[g] && !has_held[g] {
                has_held[g] = true;
            } else {
                var[i] = Some(dim);
                if let Some((target, precision)) = loose[i] {
                    penalties.push((dim, target, precision));
                }
                dim += 1;
            }
        }
        let adv = use_adv.then(|| {
            dim += 1;
            dim - 1
        });
        Layout {
            n,
            var,
            held,
            adv,
            dim,
            group,
            groups,
            anchored,
            centre,
            penalties,
        }
    }

    /// A starting point for Newton: every free player of an anchored group at the mean of its
    /// group's anchor values, the rest at 0.
    fn start(&self) -> Vec<f64> {
        let (mut sum, mut count) = (vec![0.0; self.groups], vec![0usize; self.groups]);
        for i in 0..self.n {
            if self.var[i].is_none() && self.anchored[self.group[i]] {
                sum[self.group[i]] += self.held[i];
                count[self.group[i]] += 1;
            }
        }
        for &(k, target, _) in &self.penalties {
            if let Some(i) = self.var.iter().position(|&v| v == Some(k)) {
                sum[self.group[i]] += target;
                count[self.group[i]] += 1;
            }
        }
        let mut q = vec![0.0; self.dim];
        for i in 0..self.n {
            if let Some(k) = self.var[i] {
                let g = self.group[i];
                if self.anchored[g] && count[g] > 0 {
                    q[k] = sum[g] / count[g] as f64;
                }
            }
        }
        q
    }

    /// `x = θ_first − θ_second + η` at the free parameters `q`.
    /// Number of free parameters.
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    pub(crate) fn x(&self, q: &[f64], first: usize, second: usize) -> f64 {
        self.theta(q, first) - self.theta(q, second) + self.adv.map_or(0.0, |k| q[k])
    }

    /// Player `i`'s raw value at `q`, uncentred.
    fn theta(&self, q: &[f64], i: usize) -> f64 {
        self.var[i].map_or(self.held[i], |k| q[k])
    }

    /// The entries of `∂x/∂q` for a cell (`None`: a parameter held fixed).
    pub(crate) fn grad_x(&self, first: usize, second: usize) -> [(Option<usize>, f64); 3] {
        [
            (self.var[first], 1.0),
            (self.var[second], -1.0),
            (self.adv, 1.0),
        ]
    }

    /// Raw parameters `[θ_0..θ_{n−1}, η]`: every group without an anchor centred at `centre`,
    /// anchored groups as they are.
    pub(crate) fn raw(&self, q: &[f64]) -> Vec<f64> {
        let mut raw: Vec<f64> = (0..self.n).map(|i| self.theta(q, i)).collect();
        let (mut sum, mut count) = (vec![0.0; self.groups], vec![0usize; self.groups]);
        for (i, r) in raw.iter().enumerate() {
            sum[self.group[i]] += r;
            count[self.group[i]] += 1;
        }
        for (i, r) in raw.iter_mut().enumerate() {
            let g = self.group[i];
            if !self.anchored[g] {
                *r += self.centre - sum[g] / count[g] as f64;
            }
        }
        raw.push(self.adv.map_or(0.0, |k| q[k]));
        raw
    }

    /// Free parameters from raw ones (in a group without an anchor, each player's difference
    /// from its group's held player).
    pub(crate) fn free(&self, raw: &[f64]) -> Vec<f64> {
        let mut held = vec![0.0; self.groups];
        for i in 0..self.n {
            if self.var[i].is_none() && !self.anchored[self.group[i]] {
                held[self.group[i]] = raw[i];
            }
        }
        let mut q = vec![0.0; self.dim];
        for i in 0..self.n {
            if let Some(k) = self.var[i] {
                q[k] = raw[i] - held[self.group[i]];
            }
        }
        if let Some(k) = self.adv {
            q[k] = raw[self.n];
        }
        q
    }

    /// Groups of players with games and without an anchor (with an [`AnchorSet`] only).
    fn unanchored(&self, table: &GameTable) -> Vec<Vec<usize>> {
        let mut out: Vec<Vec<usize>> = vec![Vec::new(); self.groups];
        for i in 0..self.n {
            if !self.anchored[self.group[i]] && table.totals()[i].games > 0 {
                out[self.group[i]].push(i);
            }
        }
        out.retain(|g| !g.is_empty());
        out
    }
}

/// The posterior sampler's coordinates for large pools: in each group without an anchor, its
/// held player gets a coordinate too (after the free parameters), so that every player of the
/// group is a coordinate of its own and the free parameters are differences
/// (`q_k = φ_k − φ_held`). The likelihood sees only the differences; the sampler puts a Gaussian
/// on each such group's mean, which leaves the distribution of `q` as it is and makes the
/// posterior's curvature close to its diagonal (with a held player, every free parameter shares
/// the held player's uncertainty, a direction a diagonal metric cannot follow).
#[derive(Clone)]
pub(crate) struct Extended {
    /// Number of coordinates: the free parameters and one held player per group with a slot.
    pub(crate) dim: usize,
    /// Per free parameter: the coordinate of its group's held player (`None` in an anchored
    /// group and for the advantage).
    pub(crate) held_of: Vec<Option<usize>>,
    /// Per player: its coordinate, its fixed value (a fixed anchor), or none (no games).
    pub(crate) player: Vec<Coordinate>,
    /// Per group with a slot: the coordinates of its players.
    pub(crate) groups: Vec<Vec<usize>>,
}

/// Where a player's rating is in [`Extended`] coordinates.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Coordinate {
    Free(usize),
    Fixed(f64),
    None,
}

/// One ordered cell for the fit: games (virtual draws included) and the first mover's points.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) struct FitCell {
    pub(crate) first: usize,
    pub(crate) second: usize,
    pub(crate) n: f64,
    pub(crate) s: f64,
    /// Draws among the `n` games (virtual ones included).
    pub(crate) d: f64,
}

/// The prior's virtual draws, worked out once per table from its real games (so that a bootstrap
/// resample, which may leave an encounter without games, keeps the same prior): per cell of
/// `table.cells()`, and cells of virtual draws only for the colours never played.
pub(crate) struct PriorDraws {
    /// Virtual draws added to each of `table.cells()`.
    per_cell: Vec<f64>,
    /// `(first, second, draws)` for each colour never played in an encounter that was.
    missing: Vec<(usize, usize, f64)>,
}

impl PriorDraws {
    /// BayesElo's `AddPrior`: player i adds `prior·n_ij/(4·N_i)` draws to each colour of its
    /// encounter with j (`n_ij` both colours, `N_i` all of i's games).
    fn new(table: &GameTable, prior: f64) -> PriorDraws {
        let cells = table.cells();
        let key = |a: usize, b: usize| (a.min(b), a.max(b));
        let mut games = vec![0.0; table.players()];
        let mut pair_games: HashMap<(usize, usize), f64> = HashMap::new();
        for c in cells {
            let n: u64 = c.counts.iter().sum();
            games[c.first] += n as f64;
            games[c.second] += n as f64;
            *pair_games.entry(key(c.first, c.second)).or_default() += n as f64;
        }
        let draws = |a: usize, b: usize| {
            let n_ab = pair_games[&key(a, b)];
            if prior <= 0.0 || n_ab == 0.0 {
                0.0
            } else {
                0.25 * prior * n_ab * (1.0 / games[a] + 1.0 / games[b])
            }
        };
        let played: HashSet<(usize, usize)> = cells.iter().map(|c| (c.first, c.second)).collect();
        PriorDraws {
            per_cell: cells.iter().map(|c| draws(c.first, c.second)).collect(),
            missing: cells
                .iter()
                .filter(|c| !played.contains(&(c.second, c.first)))
                .map(|c| (c.second, c.first, draws(c.first, c.second)))
                .filter(|m| m.2 > 0.0)
                .collect(),
        }
    }
}

/// The fit's cells from W/D/L counts parallel to `table.cells()` (the first `cells().len()`
/// entries, in that order) plus the prior's virtual draws; a colour never played gets a cell of
/// virtual draws only, at the end.
pub(crate) fn fit_cells(
    table: &GameTable,
    prior: &PriorDraws,
    counts: &[[f64; 3]],
) -> Vec<FitCell> {
    let mut cells: Vec<FitCell> = table
        .cells()
        .iter()
        .zip(counts)
        .zip(&prior.per_cell)
        .map(|((c, &[w, d, l]), &v)| FitCell {
            first: c.first,
            second: c.second,
            n: w + d + l + v,
            s: w + 0.5 * d + 0.5 * v,
            d: d + v,
        })
        .collect();
    cells.extend(prior.missing.iter().map(|&(first, second, v)| FitCell {
        first,
        second,
        n: v,
        s: 0.5 * v,
        d: v,
    }));
    cells
}

/// What the fit maximises over the games.
#[derive(Debug, Clone, Copy, PartialEq)]
pub(crate) enum Objective {
    /// The expected-score quasi-log-likelihood `Q` (the module docs): Ordo's ratings.
    ExpectedScore,
    /// The log-likelihood of the win/draw/loss counts under the draw law with parameter ν at the
    /// expected score `E(x)` (Ordo's objective once priors are present, `ratingb.c`
    /// `calc_bayes_unfitness_full`): the fit with loose anchors, which needs a true likelihood
    /// to weigh the anchors' Gaussian penalties against the games.
    DrawLaw(f64),
}

impl Objective {
    /// Per game at `x`: the score `∂ ln P(outcome)/∂x` for each outcome `[win, draw, loss]`, and
    /// the expected information `E[score²]` (for `ExpectedScore`, the quasi-score `y − E(x)` and
    /// `E(1 − E)`).
    fn per_game(self, x: f64) -> ([f64; 3], f64, [f64; 3]) {
        let p = expected(x);
        let q = p * (1.0 - p);
        match self {
            Objective::ExpectedScore => ([1.0 - p, 0.5 - p, -p], q, [p, 0.0, 1.0 - p]),
            Objective::DrawLaw(nu) => {
                let pd = draw_probability(p, nu);
                let (pw, pl) = ((p - 0.5 * pd).max(1e-300), (1.0 - p - 0.5 * pd).max(1e-300));
                // pd(q) solves pd²(1 − ν²/4) + (ν²/2)·pd − ν²·q = 0; q' = (1 − 2p)·q.
                let dpd = if nu > 0.0 {
                    nu * nu / (2.0 * pd * (1.0 - 0.25 * nu * nu) + 0.5 * nu * nu)
                        * (1.0 - 2.0 * p)
                        * q
                } else {
                    0.0
                };
                let d = [q - 0.5 * dpd, dpd, -q - 0.5 * dpd];
                let probs = [pw, pd, pl];
                let mut score = [0.0; 3];
                let mut info = 0.0;
                for k in 0..3 {
                    if probs[k] > 0.0 {
                        score[k] = d[k] / probs[k];
                        info += d[k] * d[k] / probs[k];
                    }
                }
                (score, info, probs)
            }
        }
    }

    /// A cell's information weight at `x` (`−∂²/∂x²` of its contribution, in expectation).
    pub(crate) fn information(self, c: &FitCell, x: f64) -> f64 {
        self.cell(c, x, false).2
    }

    /// A cell's contribution at `x`: (value if `value`, derivative in `x`, information weight).
    fn cell(self, c: &FitCell, x: f64, value: bool) -> (f64, f64, f64) {
        match self {
            Objective::ExpectedScore => {
                let p = expected(x);
                let f = if value {
                    c.s * x - c.n * softplus(x)
                } else {
                    0.0
                };
                (f, c.s - c.n * p, c.n * p * (1.0 - p))
            }
            Objective::DrawLaw(_) => {
                let counts = [c.s - 0.5 * c.d, c.d, c.n - c.s - 0.5 * c.d];
                let (score, info, probs) = self.per_game(x);
                let mut f = 0.0;
                let mut g = 0.0;
                for k in 0..3 {
                    if counts[k] > 0.0 {
                        if value {
                            f += counts[k] * probs[k].max(1e-300).ln();
                        }
                        g += counts[k] * score[k];
                    }
                }
                (f, g, c.n * info)
            }
        }
    }
}

/// The minimum of a unimodal `f` on `[a, b]` by golden-section search: the middle of the
/// bracket once it is `tol` wide or after `max_iter` steps.
fn golden_min(f: impl Fn(f64) -> f64, mut a: f64, mut b: f64, tol: f64, max_iter: usize) -> f64 {
    let ratio = (5f64.sqrt() - 1.0) / 2.0;
    let mut c = b - ratio * (b - a);
    let mut d = a + ratio * (b - a);
    let (mut fc, mut fd) = (f(c), f(d));
    for _ in 0..max_iter {
        if b - a <= tol {
            break;
        }
        if fc < fd {
            b = d;
            d = c;
            fd = fc;
            c = b - ratio * (b - a);
            fc = f(c);
        } else {
            a = c;
            c = d;
            fc = fd;
            d = a + ratio * (b - a);
            fd = f(d);
        }
    }
    0.5 * (a + b)
}

/// Prior standard deviation of the advantage, in raw units (1000 Elo).
pub(crate) const ADV_PRIOR_SD: f64 = 1000.0 * ELO_SCALE;

/// `ln(1 + e^x)` without overflow.
pub(crate) fn softplus(x: f64) -> f64 {
    if x > 0.0 {
        x + (-x).exp().ln_1p()
    } else {
        x.exp().ln_1p()
    }
}

impl Layout {
    /// `Q` at the free parameters `q`; its gradient and the negated Hessian `H` (row-major) if
    /// asked.
    pub(crate) fn eval(
        &self,
        obj: Objective,
        cells: &[FitCell],
        q: &[f64],
        grad: Option<&mut [f64]>,
        neg_hess: Option<&mut [f64]>,
    ) -> f64 {
        self.eval_parts(obj, cells, q, true, grad, neg_hess)
    }

    /// [`Layout::eval`], the value only if `value` (it costs a logarithm per cell, which Newton
    /// steps near the optimum do without).
    pub(crate) fn eval_parts(
        &self,
        obj: Objective,
        cells: &[FitCell],
        q: &[f64],
        value: bool,
        mut grad: Option<&mut [f64]>,
        mut neg_hess: Option<&mut [f64]>,
    ) -> f64 {
        let m = self.dim;
        if let Some(g) = grad.as_deref_mut() {
            g.fill(0.0);
        }
        if let Some(h) = neg_hess.as_deref_mut() {
            h.fill(0.0);
        }
        let mut f = 0.0;
        for c in cells {
            if c.n == 0.0 {
                continue;
            }
            let x = self.x(q, c.first, c.second);
            if grad.is_none() && neg_hess.is_none() {
                f += obj.cell(c, x, value).0;
                continue;
            }
            let (fc, gx, w) = obj.cell(c, x, value);
            f += fc;
            let a = self.grad_x(c.first, c.second);
            if let Some(g) = grad.as_deref_mut() {
                for &(k, sign) in &a {
                    if let Some(k) = k {
                        g[k] += sign * gx;
                    }
                }
            }
            if let Some(h) = neg_hess.as_deref_mut() {
                for &(u, su) in &a {
                    let Some(u) = u else { continue };
                    for &(v, sv) in &a {
                        if let Some(v) = v {
                            h[u * m + v] += su * sv * w;
                        }
                    }
                }
            }
        }
        for &(k, target, precision) in &self.penalties {
            // A loose anchor: −(θ − A)²/(2σ²) in raw units.
            let d = q[k] - target;
            f -= 0.5 * precision * d * d;
            if let Some(g) = grad.as_deref_mut() {
                g[k] -= precision * d;
            }
            if let Some(h) = neg_hess.as_deref_mut() {
                h[k * m + k] += precision;
            }
        }
        if let Some(k) = self.adv {
            // A practically flat N(0, 1000 Elo) prior on the advantage: it only matters when the
            // colours carry no information about it (no games, or every encounter one-coloured).
            let v = ADV_PRIOR_SD * ADV_PRIOR_SD;
            f -= 0.5 * q[k] * q[k] / v;
            if let Some(g) = grad {
                g[k] -= q[k] / v;
            }
            if let Some(h) = neg_hess {
                h[k * m + k] += 1.0 / v;
            }
        }
        f
    }

    /// Maximises `Q` from `q` (updated in place) by damped Newton. Returns the iterations used.
    pub(crate) fn maximize(
        &self,
        obj: Objective,
        cells: &[FitCell],
        q: &mut [f64],
    ) -> Result<usize, RatingError> {
        const MAX_ITER: usize = 100;
        let m = self.dim;
        if m == 0 {
            return Ok(0);
        }
        let mut g = vec![0.0; m];
        let mut h = vec![0.0; m * m];
        let mut trial = vec![0.0; m];
        for iter in 0..MAX_ITER {
            self.eval_parts(obj, cells, q, false, Some(&mut g), Some(&mut h));
            let Some(l) = cholesky(&h, m) else {
                return Err(RatingError::NoConvergence { iterations: iter });
            };
            let mut step = g.clone();
            cholesky_solve(&l, m, &mut step);
            let decrement: f64 = g.iter().zip(&step).map(|(a, b)| a * b).sum();
            if !decrement.is_finite() {
                return Err(RatingError::NoConvergence { iterations: iter });
            }
            if decrement < 1e-18 {
                return Ok(iter);
            }
            // Close to the optimum (Q within about decrement/2 of it) the full Newton step is
            // safe and converges quadratically: no line search, no objective values.
            if decrement < 0.1 {
                for (x, s) in q.iter_mut().zip(&step) {
                    *x += s;
                }
                continue;
            }
            let f = self.eval(obj, cells, q, None, None);
            // Cap huge steps (raw units: 5 ≈ 870 Elo) so exp() stays tame.
            let big = step.iter().fold(0.0f64, |a, b| a.max(b.abs()));
            let mut t = if big > 5.0 { 5.0 / big } else { 1.0 };
            let improved = loop {
                for ((x, a), b) in trial.iter_mut().zip(q.iter()).zip(&step) {
                    *x = a + t * b;
                }
                if self.eval(obj, cells, &trial, None, None) >= f + 1e-4 * t * decrement {
                    break true;
                }
                if t < 1e-3 {
                    break false;
                }
                t *= 0.5;
            };
            if !improved {
                // Concave: a Newton direction that cannot be improved on means we are at the
                // optimum to the precision of summing the counts (|Q| grows with the games).
                if decrement < 1e-9 * f.abs().max(1.0) {
                    return Ok(iter);
                }
                return Err(RatingError::NoConvergence { iterations: iter });
            }
            q.copy_from_slice(&trial);
        }
        Err(RatingError::NoConvergence {
            iterations: MAX_ITER,
        })
    }

    /// `Σ_c w_c a_c a_cᵀ` over the real cells (`weights` parallel to `table.cells()`,
    /// `a_c = ∂x/∂q`), `dim × dim` row-major: an information matrix for the weights given.
    pub(crate) fn weighted_outer_sum(&self, table: &GameTable, weights: &[f64]) -> Vec<f64> {
        let m = self.dim;
        let mut out = vec![0.0; m * m];
        for (c, &w) in table.cells().iter().zip(weights) {
            let a = self.grad_x(c.first, c.second);
            for &(u, su) in &a {
                let Some(u) = u else { continue };
                for &(v, sv) in &a {
                    if let Some(v) = v {
                        out[u * m + v] += su * sv * w;
                    }
                }
            }
        }
        out
    }

    /// Each cell's leverage at `q`: `n p (1 − p) · aᵀ I⁻¹ a`, `I` the information of the real
    /// games and `a` the cell's `∂x/∂q`; they sum to the free parameters the games determine.
    pub(crate) fn leverages(&self, table: &GameTable, q: &[f64]) -> Vec<f64> {
        let m = self.dim;
        let cells = table.cells();
        let (weights, info) = self.information(table, q);
        let Some(l) = cholesky(&info, m) else {
            return vec![0.0; cells.len()];
        };
        let mut u = vec![0.0; m];
        cells
            .iter()
            .zip(&weights)
            .map(|(c, &w)| {
                u.fill(0.0);
                let mut start = m;
                for (k, s) in self.grad_x(c.first, c.second) {
                    if let Some(k) = k {
                        u[k] += s;
                        start = start.min(k);
                    }
                }
                // |L⁻¹ a|² = aᵀ I⁻¹ a (forward substitution). Before `a`'s first nonzero the
                // solution is 0 and adds nothing after it: skipped (the same sums to the bit,
                // about half the work for each of a large pool's encounters).
                for i in start..m {
                    let mut s = u[i];
                    for k in start..i {
                        s -= l[i * m + k] * u[k];
                    }
                    u[i] = s / l[i * m + i];
                }
                w * u.iter().map(|x| x * x).sum::<f64>()
            })
            .collect()
    }

    /// The information of the real games at `q` (the matrix of [`Layout::leverages`] and of the
    /// posterior's magnitude adjustment): the weights `n p (1 − p)` per cell of `table` and the
    /// inverse of `Σ_c w_c a_c a_cᵀ` plus a ridge of 1e-9 (`None` if it is not positive
    /// definite). One `O(dim³)` inverse serves every cell's `aᵀ I⁻¹ a` at `O(1)` each, where a
    /// forward substitution per cell costs `O(dim²)`: for large pools only (the small ones keep
    /// [`Layout::leverages`]' arithmetic to the bit).
    pub(crate) fn information_inverse(
        &self,
        table: &GameTable,
        q: &[f64],
    ) -> (Vec<f64>, Option<Vec<f64>>) {
        let (weights, info) = self.information(table, q);
        let inverse = spd_inverse(&info, self.dim);
        (weights, inverse)
    }

    /// The weights `n p (1 − p)` of `table`'s cells at `q` and the information `Σ_c w_c a_c a_cᵀ`
    /// of the real games, with a tiny ridge for directions they leave free (the advantage of
    /// one-coloured encounters: their leverage is then near 0).
    fn information(&self, table: &GameTable, q: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let m = self.dim;
        let weights: Vec<f64> = table
            .cells()
            .iter()
            .map(|c| {
                let p = expected(self.x(q, c.first, c.second));
                c.counts.iter().sum::<u64>() as f64 * p * (1.0 - p)
            })
            .collect();
        let mut info = self.weighted_outer_sum(table, &weights);
        for k in 0..m {
            info[k * m + k] += 1e-9;
        }
        (weights, info)
    }

    /// `aᵀ V a` for the cell `first` against `second` (`a = ∂x/∂q`, `V` row-major `dim²`).
    pub(crate) fn quadratic(&self, v: &[f64], first: usize, second: usize) -> f64 {
        let m = self.dim;
        let a = self.grad_x(first, second);
        let mut sum = 0.0;
        for &(u, su) in &a {
            let Some(u) = u else { continue };
            for &(w, sw) in &a {
                if let Some(w) = w {
                    sum += su * sw * v[u * m + w];
                }
            }
        }
        sum
    }

    /// The loose anchors' penalties: `(free index, target raw value, precision)`.
    pub(crate) fn penalties(&self) -> &[(usize, f64, f64)] {
        &self.penalties
    }

    /// Free index of the advantage, if fitted.
    pub(crate) fn advantage(&self) -> Option<usize> {
        self.adv
    }

    /// The extended coordinates of [`Extended`].
    pub(crate) fn extended(&self) -> Extended {
        let m = self.dim;
        let mut has_free = vec![false; self.groups];
        for i in 0..self.n {
            if self.var[i].is_some() {
                has_free[self.group[i]] = true;
            }
        }
        // A slot for each group without an anchor that has free players: its held player.
        let mut slot = vec![None; self.groups];
        let mut members: Vec<Vec<usize>> = Vec::new();
        for i in 0..self.n {
            let g = self.group[i];
            if self.var[i].is_none() && !self.anchored[g] && has_free[g] && slot[g].is_none() {
                slot[g] = Some(members.len());
                members.push(vec![m + members.len()]);
            }
        }
        let mut held_of = vec![None; m];
        let mut player = vec![Coordinate::None; self.n];
        for (i, coordinate) in player.iter_mut().enumerate() {
            let g = self.group[i];
            *coordinate = match (self.var[i], slot[g]) {
                (Some(k), s) => {
                    if let Some(s) = s {
                        held_of[k] = Some(m + s);
                        members[s].push(k);
                    }
                    Coordinate::Free(k)
                }
                (None, Some(s)) => Coordinate::Free(m + s),
                (None, None) if self.anchored[g] => Coordinate::Fixed(self.held[i]),
                (None, None) => Coordinate::None,
            };
        }
        Extended {
            dim: m + members.len(),
            held_of,
            player,
            groups: members,
        }
    }

    /// `J`: the empirical variance of the score residuals of the real games at `q`, the two
    /// games of a colour-swapped pair summed before squaring (they share an opening). In each
    /// encounter the variance of the residual of one player's score is at least the draw law's
    /// at `nu` (the games taken as independent): a few pairs that happen to agree (a sweep, a
    /// split by colour) have no empirical variance, and the thin bridge between two groups or a
    /// one-pair spoke then looked exact (issue 45; docs/statistics.md §2).
    fn residual_variance(&self, obj: Objective, table: &GameTable, q: &[f64], nu: f64) -> Vec<f64> {
        let m = self.dim;
        let mut j = vec![0.0; m * m];
        let mut add = |a: &[(Option<usize>, f64); 3], b: &[(Option<usize>, f64); 3], w: f64| {
            for &(u, su) in a {
                let Some(u) = u else { continue };
                for &(v, sv) in b {
                    if let Some(v) = v {
                        j[u * m + v] += su * sv * w;
                    }
                }
            }
        };
        let cells = table.cells();
        // Per cell, the score of a game for each outcome.
        let score_of = |c: usize| obj.per_game(self.x(q, cells[c].first, cells[c].second)).0;
        // Per cell, a game's score variance under the draw law.
        let model_of = |c: usize| {
            let x = self.x(q, cells[c].first, cells[c].second);
            let r = obj.per_game(x).0;
            let p = probabilities(x / ELO_SCALE, nu);
            (0..3).map(|o| p[o] * r[o] * r[o]).sum::<f64>()
        };
        // The players' part of a cell's `∂x/∂q` (the advantage left out).
        let players_of = |c: usize| {
            let [f, s, _] = self.grad_x(cells[c].first, cells[c].second);
            [f, s, (None, 0.0)]
        };
        // Per cell or block: the players' part of `∂x/∂q` and the variance it falls short by.
        let mut floors: Vec<(Gradient, f64)> = Vec::new();
        for (c, loose) in table.loose().iter().enumerate() {
            let r = score_of(c);
            let v: f64 = (0..3).map(|o| loose[o] as f64 * r[o] * r[o]).sum();
            let a = self.grad_x(cells[c].first, cells[c].second);
            add(&a, &a, v);
            let games = loose.iter().sum::<u64>() as f64;
            floors.push((players_of(c), games * model_of(c) - v));
        }
        for block in table.blocks() {
            let (s1, s2) = (score_of(block.cell_ab), score_of(block.cell_ba));
            let (mut v11, mut v22, mut v12) = (0.0, 0.0, 0.0);
            for (u, row) in block.joint.iter().enumerate() {
                for (v, &k) in row.iter().enumerate() {
                    let (r1, r2) = (s1[u], s2[v]);
                    let k = k as f64;
                    v11 += k * r1 * r1;
                    v22 += k * r2 * r2;
                    v12 += k * r1 * r2;
                }
            }
            let c1 = &cells[block.cell_ab];
            let c2 = &cells[block.cell_ba];
            let (a1, a2) = (
                self.grad_x(c1.first, c1.second),
                self.grad_x(c2.first, c2.second),
            );
            add(&a1, &a1, v11);
            add(&a2, &a2, v22);
            add(&a1, &a2, v12);
            add(&a2, &a1, v12);
            // Player a's score residual over a pair is r1 − r2 (a second in the other game).
            let model = block.pairs() as f64 * (model_of(block.cell_ab) + model_of(block.cell_ba));
            floors.push((players_of(block.cell_ab), model - (v11 + v22 - 2.0 * v12)));
        }
        for (u, short) in floors {
            if short > 0.0 {
                add(&u, &u, short);
            }
        }
        // A loose anchor is one more observation of its player's rating, with variance σ².
        for &(k, _, precision) in &self.penalties {
            j[k * m + k] += precision;
        }
        j
    }

    /// The sandwich covariance `H⁻¹ J H⁻¹` of the raw parameters `[θ_0..θ_{n−1}, η]` (each
    /// group without an anchor centred), `(n+1)²` row-major.
    fn covariance(
        &self,
        obj: Objective,
        table: &GameTable,
        cells: &[FitCell],
        q: &[f64],
        nu: f64,
    ) -> Result<Vec<f64>, RatingError> {
        let (m, n) = (self.dim, self.n);
        let out = n + 1;
        if m == 0 {
            return Ok(vec![0.0; out * out]);
        }
        let mut h = vec![0.0; m * m];
        self.eval(obj, cells, q, None, Some(&mut h));
        let l = cholesky(&h, m).ok_or(RatingError::NoConvergence { iterations: 0 })?;
        let j = self.residual_variance(obj, table, q, nu);
        // B = H⁻¹ J (column by column), then C = B H⁻¹ = (H⁻¹ Bᵀ)ᵀ.
        let lt = transpose(&l, m);
        let mut b = vec![0.0; m * m];
        let mut col = vec![0.0; m];
        for k in 0..m {
            for r in 0..m {
                col[r] = j[r * m + k];
            }
            cholesky_solve_t(&l, &lt, m, &mut col);
            for r in 0..m {
                b[r * m + k] = col[r];
            }
        }
        let mut c = vec![0.0; m * m];
        for r in 0..m {
            col.copy_from_slice(&b[r * m..(r + 1) * m]);
            cholesky_solve_t(&l, &lt, m, &mut col);
            c[r * m..(r + 1) * m].copy_from_slice(&col);
        }
        // raw = M q: player i is its free parameter (or 0) minus its group's mean.
        let mut mmat = vec![0.0; out * m];
        let mut members = vec![0usize; self.groups];
        for i in 0..n {
            members[self.group[i]] += 1;
        }
        for i in 0..n {
            if let Some(k) = self.var[i] {
                mmat[i * m + k] += 1.0;
            }
            if self.anchored[self.group[i]] {
                continue;
            }
            for t in 0..n {
                if self.group[t] == self.group[i] {
                    if let Some(k) = self.var[t] {
                        mmat[i * m + k] -= 1.0 / members[self.group[i]] as f64;
                    }
                }
            }
        }
        if let Some(k) = self.adv {
            mmat[n * m + k] = 1.0;
        }
        Ok(congruence(&mmat, &c, out, m))
    }
}

impl Layout {
    /// Raises each free player's variance in `cov` (raw units², `(n+1)²`, as
    /// [`Layout::covariance`] gives it) to at least what its own games allow: the variance of
    /// its rating if every opponent's were known, `Σ n v / (Σ n p(1 − p))²` over its real games
    /// (`v = p(1 − p) − p_D/4` a game's score variance under the draw law at `nu`). The
    /// empirical `J` of a player with one or two pairs can be near zero (a split pair has no
    /// between-pair variance), and the sandwich then lent it its opponents' precision (issue
    /// 45). The shortfall `d_i` is added as independent noise on the player's uncentred rating
    /// (`P D P` in a group centred on its mean, `P` the centring): the matrix stays a
    /// covariance of centred values and every difference `r_i − r_j` widens by `d_i + d_j`.
    fn floor_variances(&self, table: &GameTable, q: &[f64], nu: f64, cov: &mut [f64]) {
        let n = self.n;
        let m = n + 1;
        let (mut info, mut var) = (vec![0.0; n], vec![0.0; n]);
        for c in table.cells() {
            let games = c.counts.iter().sum::<u64>() as f64;
            if games == 0.0 {
                continue;
            }
            let p = expected(self.x(q, c.first, c.second));
            let pq = p * (1.0 - p);
            let v = (pq - draw_probability(p, nu) / 4.0).max(0.0);
            for player in [c.first, c.second] {
                info[player] += games * pq;
                var[player] += games * v;
            }
        }
        // A loose anchor is one more observation of its player, with variance σ² (as in `J`
        // and `H`).
        for &(k, _, precision) in &self.penalties {
            if let Some(i) = self.var.iter().position(|&v| v == Some(k)) {
                info[i] += precision;
                var[i] += precision;
            }
        }
        let mut members = vec![0usize; self.groups];
        for &g in &self.group {
            members[g] += 1;
        }
        // Variance added to each player's uncentred rating.
        let mut d = vec![0.0; n];
        for i in 0..n {
            if (self.var[i].is_none() && self.anchored[self.group[i]]) || info[i] <= 0.0 {
                continue;
            }
            let g = self.group[i];
            // Centring on a group of k shrinks an own variance by ((k − 1)/k)².
            let centring = if self.anchored[g] {
                1.0
            } else {
                let k = members[g] as f64;
                ((k - 1.0) / k).powi(2)
            };
            let floor = var[i] / (info[i] * info[i]);
            d[i] = (centring * floor - cov[i * m + i]).max(0.0) / centring.max(1e-12);
        }
        let mut d_sum = vec![0.0; self.groups];
        for i in 0..n {
            d_sum[self.group[i]] += d[i];
        }
        for i in 0..n {
            let g = self.group[i];
            if self.anchored[g] {
                cov[i * m + i] += d[i];
                continue;
            }
            let k = members[g] as f64;
            for j in 0..n {
                if self.group[j] == g {
                    let own = if i == j { d[i] } else { 0.0 };
                    cov[i * m + j] += own - (d[i] + d[j]) / k + d_sum[g] / (k * k);
                }
            }
        }
    }
}

/// Anchored Elo ratings from raw parameters (as [`Ratings`] and `Model::refit` give them).
pub(crate) fn anchored(raw: &[f64], n: usize, anchor: &Anchor) -> Vec<f64> {
    let (shift, value) = match anchor {
        Anchor::Mean(v) => (raw[..n].iter().sum::<f64>() / n as f64, *v),
        Anchor::Player(q, v) => (raw[*q], *v),
        // The raw values are absolute already (groups without an anchor are centred at the
        // set's mean by `Layout::raw`).
        Anchor::Set(_) => (0.0, 0.0),
    };
    let mut elos: Vec<f64> = raw[..n]
        .iter()
        .map(|x| (x - shift) / ELO_SCALE + value)
        .collect();
    if let Anchor::Set(set) = anchor {
        // Exactly, not through β·v/β.
        for &(p, v) in &set.fixed {
            elos[p] = v;
        }
    }
    elos
}

/// Counts as floats, parallel to `table.cells()`.
pub(crate) fn float_counts(table: &GameTable) -> Vec<[f64; 3]> {
    table
        .cells()
        .iter()
        .map(|c| c.counts.map(|x| x as f64))
        .collect()
}

/// ν of the draw law: the expected number of draws over the real games equals the observed one
/// (bisection; the expected draws grow with ν).
fn fit_draws(table: &GameTable, layout: &Layout, q: &[f64]) -> DrawParameter {
    let cells = table.cells();
    let mut draws = 0.0;
    let mut cell_p = Vec::with_capacity(cells.len());
    for c in cells {
        let [w, d, l] = c.counts.map(|x| x as f64);
        draws += d;
        cell_p.push((w + d + l, expected(layout.x(q, c.first, c.second))));
    }
    let expected_draws = |nu: f64| -> f64 {
        cell_p
            .iter()
            .map(|&(n, p)| n * draw_probability(p, nu))
            .sum()
    };
    let games: f64 = cell_p.iter().map(|c| c.0).sum();
    let nu = if draws == 0.0 {
        0.0
    } else if draws >= games {
        // Every game drawn: ν is unbounded; a large finite value keeps the numbers printable.
        1e9
    } else {
        let (mut lo, mut hi) = (0.0, 1.0);
        while expected_draws(hi) < draws && hi < 1e12 {
            lo = hi;
            hi *= 4.0;
        }
        for _ in 0..100 {
            let mid = 0.5 * (lo + hi);
            if expected_draws(mid) < draws {
                lo = mid;
            } else {
                hi = mid;
            }
        }
        0.5 * (lo + hi)
    };
    DrawParameter {
        nu,
        draw_rate_equal: nu / (2.0 + nu),
    }
}

/// The model of a table, ready to fit: its free parameters, where the prior goes and what is
/// maximised.
pub(crate) struct Model {
    pub(crate) layout: Layout,
    prior: PriorDraws,
    /// Loose anchors present: maximise the draw law's likelihood (with ν) instead of `Q`.
    draw_law: bool,
    /// No prior: a fit exists only where every group conceded and scored (Ford's condition).
    plain: bool,
}

impl Model {
    pub(crate) fn new(table: &GameTable, config: &FitConfig) -> Model {
        Model {
            layout: Layout::new(table, config.first_move_advantage, &config.anchor),
            prior: PriorDraws::new(table, config.prior),
            draw_law: matches!(&config.anchor, Anchor::Set(set) if !set.loose.is_empty()),
            plain: config.prior == 0.0,
        }
    }

    /// The model of the posterior the intervals are drawn from: on each cell, the fit's virtual
    /// draws or, where more, the cell's leverage at the raw point `raw` (Jeffreys' prior,
    /// `½ ln det I`, whose gradient is that of `h_c` virtual draws on each cell `c`, `h_c` the
    /// cell's share of the information; `posterior`'s docs say why).
    ///
    /// From `inverse_from` free parameters on the leverages come from the inverse information
    /// ([`Layout::information_inverse`]), which is returned for the magnitude adjustment too;
    /// below, by a forward substitution per cell (the small pools' arithmetic) and `None`.
    pub(crate) fn for_intervals(
        table: &GameTable,
        config: &FitConfig,
        raw: &[f64],
        inverse_from: usize,
    ) -> (Model, Option<Vec<f64>>) {
        let mut model = Model::new(table, config);
        model.plain = false;
        let q = model.layout.free(raw);
        let (hats, inverse) = if model.layout.dim() >= inverse_from {
            let (weights, inverse) = model.layout.information_inverse(table, &q);
            let hats = match &inverse {
                Some(v) => table
                    .cells()
                    .iter()
                    .zip(&weights)
                    .map(|(c, w)| w * model.layout.quadratic(v, c.first, c.second))
                    .collect(),
                None => vec![0.0; table.cells().len()],
            };
            (hats, inverse)
        } else {
            (model.layout.leverages(table, &q), None)
        };
        for (v, h) in model.prior.per_cell.iter_mut().zip(hats) {
            *v = v.max(h);
        }
        (model, inverse)
    }

    /// The prior's virtual draws.
    pub(crate) fn prior(&self) -> &PriorDraws {
        &self.prior
    }

    /// What the fit maximised, at the draw parameter `nu` it found: the draw law's likelihood
    /// with loose anchors, `Q` otherwise.
    pub(crate) fn objective(&self, nu: f64) -> Objective {
        if self.draw_law {
            Objective::DrawLaw(nu)
        } else {
            Objective::ExpectedScore
        }
    }

    fn cells(&self, table: &GameTable, counts: &[[f64; 3]]) -> Vec<FitCell> {
        fit_cells(table, &self.prior, counts)
    }

    /// Maximises from `q` (updated in place); returns the Newton iterations and the objective
    /// at the optimum. With the draw law, ν and the rest are maximised in turn (Ordo does the
    /// same, `ratingb.c`) until ν moves by less than 1e-10.
    fn solve(&self, cells: &[FitCell], q: &mut [f64]) -> Result<(usize, Objective), RatingError> {
        if !self.draw_law {
            let obj = Objective::ExpectedScore;
            return Ok((self.layout.maximize(obj, cells, q)?, obj));
        }
        let (draws, games): (f64, f64) =
            cells.iter().fold((0.0, 0.0), |a, c| (a.0 + c.d, a.1 + c.n));
        if draws == 0.0 {
            let obj = Objective::DrawLaw(0.0);
            return Ok((self.layout.maximize(obj, cells, q)?, obj));
        }
        // Start from the draw rate between equals that the share of draws suggests.
        let share = (draws / games).clamp(1e-6, 1.0 - 1e-6);
        let mut nu = 2.0 * share / (1.0 - share);
        let mut iterations = 0;
        for _ in 0..200 {
            iterations += self.layout.maximize(Objective::DrawLaw(nu), cells, q)?;
            let next = self.best_nu(cells, q);
            let moved = (next - nu).abs();
            nu = next;
            if moved < 1e-10 * nu.max(1e-3) {
                iterations += self.layout.maximize(Objective::DrawLaw(nu), cells, q)?;
                return Ok((iterations, Objective::DrawLaw(nu)));
            }
        }
        Err(RatingError::NoConvergence { iterations })
    }

    /// ν maximising the draw law's likelihood at `q`: golden-section search on the draw rate
    /// between equals `ν/(2 + ν)` in (0, 1).
    fn best_nu(&self, cells: &[FitCell], q: &[f64]) -> f64 {
        let nu_of = |d0: f64| 2.0 * d0 / (1.0 - d0);
        let value = |d0: f64| {
            let obj = Objective::DrawLaw(nu_of(d0));
            cells
                .iter()
                .filter(|c| c.n > 0.0)
                .map(|c| obj.cell(c, self.layout.x(q, c.first, c.second), true).0)
                .sum::<f64>()
        };
        nu_of(golden_min(|d0| -value(d0), 1e-9, 1.0 - 1e-9, 1e-14, 200))
    }

    /// Fits resampled `counts` (parallel to `table.cells()`) from the raw point `start`; returns
    /// the raw parameters.
    pub(crate) fn refit(
        &self,
        table: &GameTable,
        counts: &[[f64; 3]],
        start: &[f64],
    ) -> Result<Vec<f64>, RatingError> {
        // Without a prior a resample may have no maximum-likelihood fit (a group that never
        // conceded a point): Newton would run off towards infinity and stop anywhere, so such a
        // resample is refused here, before any step, and counted as failed by the caller.
        if self.plain && !analyse_graph(table, counts).split_components.is_empty() {
            return Err(RatingError::NoFiniteFit {
                groups: Vec::new(),
                names: Vec::new(),
            });
        }
        let cells = self.cells(table, counts);
        let mut q = self.layout.free(start);
        self.solve(&cells, &mut q)?;
        Ok(self.layout.raw(&q))
    }
}

/// Fits the ratings of all players in `table`.
pub fn fit(table: &GameTable, config: &FitConfig) -> Result<Ratings, RatingError> {
    let n = table.players();
    config.validate(n)?;
    let graph = analyse_graph(table, &float_counts(table));
    if config.prior == 0.0 && !graph.split_components.is_empty() {
        return Err(RatingError::NoFiniteFit {
            groups: graph.split_components.concat(),
            names: Vec::new(),
        });
    }
    let model = Model::new(table, config);
    let layout = &model.layout;
    let cells = model.cells(table, &float_counts(table));
    let mut q = layout.start();
    let (iterations, obj) = model.solve(&cells, &mut q)?;
    let log_likelihood = layout.eval(obj, &cells, &q, None, None);
    let draw = match obj {
        Objective::ExpectedScore => fit_draws(table, layout, &q),
        Objective::DrawLaw(nu) => DrawParameter {
            nu,
            draw_rate_equal: nu / (2.0 + nu),
        },
    };
    let mut cov = layout.covariance(obj, table, &cells, &q, draw.nu)?;
    layout.floor_variances(table, &q, draw.nu, &mut cov);
    let raw = layout.raw(&q);
    let m = n + 1;
    let z = normal_quantile(0.5 + config.level / 2.0);
    let elos = anchored(&raw, n, &config.anchor);

    // Variance of each anchored rating.
    let var: Vec<f64> = match &config.anchor {
        Anchor::Mean(_) => {
            let row_mean: Vec<f64> = (0..n)
                .map(|i| (0..n).map(|j| cov[i * m + j]).sum::<f64>() / n as f64)
                .collect();
            let all_mean = row_mean.iter().sum::<f64>() / n as f64;
            (0..n)
                .map(|i| cov[i * m + i] - 2.0 * row_mean[i] + all_mean)
                .collect()
        }
        &Anchor::Player(p, _) => (0..n)
            .map(|i| cov[i * m + i] + cov[p * m + p] - 2.0 * cov[i * m + p])
            .collect(),
        Anchor::Set(_) => (0..n).map(|i| cov[i * m + i]).collect(),
    };

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
    if let Anchor::Set(set) = &config.anchor {
        let components = layout.unanchored(table);
        if !components.is_empty() {
            warnings.push(FitWarning::Unanchored {
                components,
                mean: set.mean,
            });
        }
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
    Ok(Ratings {
        players,
        advantage: Estimate::new(raw[n] / ELO_SCALE, adv_se, z),
        draw,
        anchor: config.anchor.clone(),
        level: config.level,
        prior: config.prior,
        iterations,
        log_likelihood,
        warnings,
        raw,
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
fn analyse_graph(table: &GameTable, counts: &[[f64; 3]]) -> Graph {
    let n = table.players();
    let mut out: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut inn: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut und: Vec<Vec<usize>> = vec![Vec::new(); n];
    for (c, &[w, d, l]) in table.cells().iter().zip(counts) {
        if w + d + l == 0.0 {
            continue;
        }
        und[c.first].push(c.second);
        und[c.second].push(c.first);
        if w + d > 0.0 {
            out[c.first].push(c.second);
            inn[c.second].push(c.first);
        }
        if l + d > 0.0 {
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
