//! Coverage of the rating intervals on synthetic data with known truth: the designs the arena's
//! users meet (round robins, a gauntlet with thin spokes, two groups joined by one thin bridge,
//! tiny runs with perfect scores, a site where most humans play a handful of games), games drawn
//! from the model [`analyse`] fits (logistic expected score, a first-mover advantage, the draw
//! law), and how often the 95 % intervals hold the truth.
//!
//! `cargo run --release -p mancala-rating --example coverage` prints the table (docs/statistics.md
//! §Intervals); the unit tests run a few data sets so the measuring code itself is tested.

use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;
use rand_distr::{Distribution, Normal};

use crate::fit::{probabilities, Anchor};
use crate::{analyse, elo_to_score, score_to_elo, Outcome, RatedGame, RatingConfig, RatingError};

/// How the true ratings of a data set are drawn.
#[derive(Clone, Debug)]
pub enum Truth {
    /// Every player independently from N(0, sd) (Elo).
    Normal { sd: f64 },
    /// The first players fixed at these Elos, the rest from N(mean, sd).
    FixedThenNormal { fixed: Vec<f64>, mean: f64, sd: f64 },
}

/// A schedule and the model that plays it.
#[derive(Clone, Debug)]
pub struct Design {
    pub name: &'static str,
    pub players: usize,
    /// Encounters `(a, b, colour-swapped pairs)`; for [`Design::site`] drawn per data set.
    pub encounters: Vec<(usize, usize, u32)>,
    pub truth: Truth,
    /// True first-mover advantage (Elo).
    pub advantage: f64,
    /// The draw law's ν (draw rate between equals ν/(2+ν)).
    pub nu: f64,
    /// Site-like: the schedule is drawn anew per data set (humans with few games).
    site: Option<SiteShape>,
    /// Players held at their true ratings as fixed anchors (Ordo's `-m`): the first humans of a
    /// site design. 0: the fit is centred on the mean, as the truth is.
    pub fixed_anchors: usize,
}

#[derive(Clone, Copy, Debug)]
struct SiteShape {
    levels: usize,
    humans: usize,
    /// Pairs against levels per human: uniform in this range.
    level_pairs: (u32, u32),
    /// Pairs against other humans per human: uniform in this range.
    human_pairs: (u32, u32),
}

/// The ν of the draw law that gives `rate` draws between equals.
pub fn nu_for_draw_rate(rate: f64) -> f64 {
    2.0 * rate / (1.0 - rate)
}

fn round_robin(players: usize, pairs: u32) -> Vec<(usize, usize, u32)> {
    (0..players)
        .flat_map(|a| (a + 1..players).map(move |b| (a, b, pairs)))
        .collect()
}

impl Design {
    fn new(name: &'static str, players: usize, encounters: Vec<(usize, usize, u32)>) -> Design {
        Design {
            name,
            players,
            encounters,
            truth: Truth::Normal { sd: 150.0 },
            advantage: 30.0,
            nu: nu_for_draw_rate(0.3),
            site: None,
            fixed_anchors: 0,
        }
    }

    /// The designs of the benchmark, in the order it prints them.
    pub fn all() -> Vec<Design> {
        let mut draws = Design::new("round robin, 70 % draws", 8, round_robin(8, 60));
        draws.nu = nu_for_draw_rate(0.7);
        let spokes = [2, 5, 10, 20, 50, 100, 200];
        let mut gauntlet = Design::new(
            "gauntlet, spokes of 2-200 pairs",
            1 + spokes.len(),
            spokes
                .iter()
                .enumerate()
                .map(|(k, &p)| (0, k + 1, p))
                .collect(),
        );
        gauntlet.truth = Truth::Normal { sd: 200.0 };
        // Issue 45's design: the normal intervals covered 74–83 % here, and a spoke of one pair
        // got the hub's interval.
        let sparse_spokes = [1, 1, 3, 3, 300, 300];
        let mut sparse = Design::new(
            "gauntlet, spokes of 1, 3 and 300 pairs",
            1 + sparse_spokes.len(),
            sparse_spokes
                .iter()
                .enumerate()
                .map(|(k, &p)| (0, k + 1, p))
                .collect(),
        );
        sparse.truth = Truth::Normal { sd: 200.0 };
        let mut groups: Vec<(usize, usize, u32)> = round_robin(4, 20);
        groups.extend(
            round_robin(4, 20)
                .into_iter()
                .map(|(a, b, p)| (a + 4, b + 4, p)),
        );
        groups.push((3, 4, 3));
        let mut tiny = Design::new("6 players, 1 pair per encounter", 6, round_robin(6, 1));
        tiny.truth = Truth::Normal { sd: 200.0 };
        let mut small = Design::new("5 players, 2 pairs per encounter", 5, round_robin(5, 2));
        small.truth = Truth::Normal { sd: 200.0 };
        let mut site = Design::new("site: 3 levels, 40 humans, 1-4 + 0-3 pairs", 43, Vec::new());
        site.truth = Truth::FixedThenNormal {
            fixed: vec![900.0, 1250.0, 1650.0],
            mean: 1200.0,
            sd: 250.0,
        };
        site.nu = nu_for_draw_rate(0.06);
        site.advantage = 50.0;
        site.site = Some(SiteShape {
            levels: 3,
            humans: 40,
            level_pairs: (1, 4),
            human_pairs: (0, 3),
        });
        // The site with three humans fixed at their true ratings (issue 45: the points and the
        // intervals of several fixed anchors must come from one estimate).
        // Shaped as tests/fixtures/ratings-anchors (each human 12 pairs against the levels and
        // about 8 against other humans), dense enough for the plain fit (`--prior 0`, Ordo's).
        let mut anchored = site.clone();
        anchored.name = "site of 30 humans, 3 of them fixed anchors";
        anchored.players = 33;
        anchored.fixed_anchors = 3;
        anchored.site = Some(SiteShape {
            levels: 3,
            humans: 30,
            level_pairs: (12, 12),
            human_pairs: (4, 4),
        });
        // The site at the size where the posterior's sampler takes its diagonal metric
        // (`posterior::DIAGONAL_FROM`): 163 players, most with a handful of games.
        let mut large = site.clone();
        large.name = "site: 3 levels, 160 humans, 1-4 + 0-3 pairs";
        large.players = 163;
        if let Some(shape) = &mut large.site {
            shape.humans = 160;
        }
        vec![
            Design::new("round robin, 8 players, 60 pairs", 8, round_robin(8, 60)),
            draws,
            gauntlet,
            sparse,
            Design::new("two groups of 4, one bridge of 3 pairs", 8, groups),
            tiny,
            small,
            site,
            anchored,
            large,
        ]
    }

    /// One data set: the true ratings (centred at 0, as the mean anchor centres the fit, unless
    /// some are fixed anchors) and the games.
    pub fn sample(&self, rng: &mut ChaCha8Rng) -> (Vec<f64>, Vec<RatedGame>) {
        let (truth, encounters) = self.truth_and_schedule(rng);
        let mut games = Vec::new();
        let mut pair = 0u64;
        for &(a, b, pairs) in &encounters {
            for _ in 0..pairs {
                for (first, second) in [(a, b), (b, a)] {
                    let d = truth[first] - truth[second] + self.advantage;
                    games.push(RatedGame {
                        pair,
                        first,
                        second,
                        outcome: draw_outcome(d, self.nu, rng),
                    });
                }
                pair += 1;
            }
        }
        (truth, games)
    }

    /// One data set whose games end with seed margins from the normal link (`margin::ratings`):
    /// a game's margin is `(Δ + h)/κ + N(0, sd²)` seeds, rounded to an even number within ±48
    /// (Kalah(6,4)), its outcome the margin's sign; `κ = (400/ln 10)·4φ(0)/σ` with `σ² = sd² +
    /// 2/3` (the rounding and the lattice), so the true Elo is the margin model's. The truth
    /// and the games, each game with its margin from the first player's view.
    pub fn sample_margins(
        &self,
        sd: f64,
        rng: &mut ChaCha8Rng,
    ) -> (Vec<f64>, Vec<(RatedGame, f64)>) {
        let (truth, encounters) = self.truth_and_schedule(rng);
        let kappa = margin_kappa(sd);
        let noise = Normal::new(0.0, sd).expect("a positive sd");
        let mut games = Vec::new();
        let mut pair = 0u64;
        for &(a, b, pairs) in &encounters {
            for _ in 0..pairs {
                for (first, second) in [(a, b), (b, a)] {
                    let x =
                        (truth[first] - truth[second] + self.advantage) / kappa + noise.sample(rng);
                    let margin = (2.0 * (x / 2.0).round()).clamp(-48.0, 48.0);
                    let outcome = if margin > 0.0 {
                        Outcome::Win
                    } else if margin < 0.0 {
                        Outcome::Loss
                    } else {
                        Outcome::Draw
                    };
                    games.push((
                        RatedGame {
                            pair,
                            first,
                            second,
                            outcome,
                        },
                        margin,
                    ));
                }
                pair += 1;
            }
        }
        (truth, games)
    }

    /// The true ratings (centred unless anchored) and the schedule of one data set.
    fn truth_and_schedule(&self, rng: &mut ChaCha8Rng) -> (Vec<f64>, Vec<(usize, usize, u32)>) {
        let mut truth: Vec<f64> = match &self.truth {
            Truth::Normal { sd } => {
                let d = Normal::new(0.0, *sd).expect("a positive sd");
                (0..self.players).map(|_| d.sample(rng)).collect()
            }
            Truth::FixedThenNormal { fixed, mean, sd } => {
                let d = Normal::new(*mean, *sd).expect("a positive sd");
                fixed
                    .iter()
                    .copied()
                    .chain((fixed.len()..self.players).map(|_| d.sample(rng)))
                    .collect()
            }
        };
        if self.fixed_anchors == 0 {
            let mean = truth.iter().sum::<f64>() / truth.len() as f64;
            truth.iter_mut().for_each(|t| *t -= mean);
        }
        let encounters = match self.site {
            Some(shape) => site_schedule(shape, rng),
            None => self.encounters.clone(),
        };
        (truth, encounters)
    }

    /// The players held as fixed anchors: the first humans after a site's levels.
    pub fn anchored_players(&self) -> std::ops::Range<usize> {
        let first = self.site.map_or(0, |s| s.levels);
        first..first + self.fixed_anchors
    }

    /// How the fit is anchored for data set `truth`: the mean at 0, or the fixed anchors at
    /// their true ratings.
    fn anchor(&self, truth: &[f64]) -> Anchor {
        if self.fixed_anchors == 0 {
            return Anchor::Mean(0.0);
        }
        Anchor::Set(crate::fit::AnchorSet {
            fixed: self.anchored_players().map(|p| (p, truth[p])).collect(),
            ..crate::fit::AnchorSet::default()
        })
    }

    /// The true head-to-head Elo of `a` against `b` as the pairwise table estimates it: the Elo
    /// of the expected score over a colour-swapped pair.
    pub fn head_to_head(&self, truth: &[f64], a: usize, b: usize) -> f64 {
        let d = truth[a] - truth[b];
        let score = 0.5 * (elo_to_score(d + self.advantage) + elo_to_score(d - self.advantage));
        score_to_elo(score)
    }
}

/// Every human plays a few pairs against random levels and a few against random other humans.
fn site_schedule(shape: SiteShape, rng: &mut ChaCha8Rng) -> Vec<(usize, usize, u32)> {
    let mut out = Vec::new();
    for h in shape.levels..shape.levels + shape.humans {
        let k = rng.gen_range(shape.level_pairs.0..=shape.level_pairs.1);
        for _ in 0..k {
            out.push((rng.gen_range(0..shape.levels), h, 1));
        }
        let k = rng.gen_range(shape.human_pairs.0..=shape.human_pairs.1);
        let others: Vec<usize> = (shape.levels..shape.levels + shape.humans)
            .filter(|&o| o != h)
            .collect();
        for &o in others.choose_multiple(rng, k as usize) {
            out.push((h, o, 1));
        }
    }
    out
}

/// Hits and trials of one kind of interval.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub hits: u64,
    pub trials: u64,
    /// Intervals of zero width from finite data (never honest).
    pub zero_width: u64,
    /// Sum of widths (Elo), to compare methods that cover alike.
    pub width: f64,
}

impl Tally {
    fn add(&mut self, low: f64, high: f64, truth: f64) {
        self.trials += 1;
        self.hits += u64::from(low <= truth && truth <= high);
        self.zero_width += u64::from(high - low < 1e-9);
        self.width += (high - low).min(4000.0);
    }

    /// Share of intervals that hold the truth.
    pub fn coverage(&self) -> f64 {
        self.hits as f64 / self.trials.max(1) as f64
    }

    /// Mean width (Elo; infinite ends counted as 4000).
    pub fn mean_width(&self) -> f64 {
        self.width / self.trials.max(1) as f64
    }
}

/// One game drawn from the rating model: the first mover `d` Elo the stronger (its advantage
/// included), draw parameter `nu` ([`probabilities`]); one uniform number from `rng`.
pub fn draw_outcome(d: f64, nu: f64, rng: &mut impl Rng) -> Outcome {
    let [win, draw, _] = probabilities(d, nu);
    let u: f64 = rng.gen();
    if u < win {
        Outcome::Win
    } else if u < win + draw {
        Outcome::Draw
    } else {
        Outcome::Loss
    }
}

/// Predicted probabilities against what happened, for LOS and P(top): the mean prediction and
/// the observed frequency per tenth of the probability scale, and the Brier score.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Calibration {
    /// Per bin `[0.0, 0.1)`, …, `[0.9, 1.0]`: (predictions, sum of predictions, events).
    pub bins: [(u64, f64, u64); 10],
    pub brier: f64,
    pub count: u64,
}

impl Calibration {
    fn add(&mut self, predicted: f64, happened: bool) {
        let bin = ((predicted * 10.0) as usize).min(9);
        let b = &mut self.bins[bin];
        b.0 += 1;
        b.1 += predicted;
        b.2 += u64::from(happened);
        self.brier += (predicted - f64::from(u8::from(happened))).powi(2);
        self.count += 1;
    }

    /// The largest gap between mean prediction and observed frequency over bins with at least
    /// `min` predictions.
    pub fn worst_gap(&self, min: u64) -> f64 {
        self.bins
            .iter()
            .filter(|b| b.0 >= min)
            .map(|b| (b.1 / b.0 as f64 - b.2 as f64 / b.0 as f64).abs())
            .fold(0.0, f64::max)
    }

    /// Mean squared error of the predictions.
    pub fn brier(&self) -> f64 {
        self.brier / self.count.max(1) as f64
    }
}

/// What a run of the benchmark measured on one design.
#[derive(Clone, Debug, Default)]
pub struct CoverageResult {
    pub datasets: usize,
    /// Data sets the rating refused (no finite fit with prior 0).
    pub refused: usize,
    /// Every player's rating.
    pub ratings: Tally,
    /// The players with the fewest games in each data set.
    pub least_played: Tally,
    pub advantage: Tally,
    /// The pairwise table's head-to-head Elo (pentanomial interval).
    pub pairwise: Tally,
    /// Differences `elo_i − elo_j` of the joint fit, every pair of players.
    pub differences: Tally,
    pub los: Calibration,
    pub p_top: Calibration,
    /// Sum and count of `|point − truth|` over the rated players (fixed anchors left out).
    pub point_error: (f64, u64),
    /// Resamples or draws the interval method reported as failed.
    pub failed_samples: usize,
    /// Data sets whose posterior sampler did not settle (divergences, or R-hat above 1.05).
    pub unsettled: usize,
}

/// Rates `datasets` data sets of `design` with `config` and tallies the intervals.
pub fn measure(
    design: &Design,
    config: &RatingConfig,
    datasets: usize,
    seed: u64,
) -> Result<CoverageResult, RatingError> {
    let mut out = CoverageResult {
        datasets,
        ..CoverageResult::default()
    };
    let names: Vec<String> = (0..design.players).map(|i| format!("p{i}")).collect();
    let z = crate::normal_quantile(0.5 + config.level / 2.0);
    let anchored = design.anchored_players();
    for k in 0..datasets {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1_000_003 * k as u64));
        let (truth, games) = design.sample(&mut rng);
        let config = RatingConfig {
            anchor: design.anchor(&truth),
            ..*config
        };
        let report = match analyse(&names, &games, &config, &mut rng) {
            Ok(r) => r,
            Err(RatingError::NoFiniteFit { .. }) => {
                out.refused += 1;
                continue;
            }
            Err(e) => return Err(e),
        };
        let n = design.players;
        let played: Vec<u64> = report.ratings.players.iter().map(|p| p.games).collect();
        let fewest = played.iter().copied().filter(|&g| g > 0).min().unwrap_or(0);
        for row in &report.rows {
            let i: usize = row.name[1..].parse().expect("p<index>");
            if played[i] == 0 || anchored.contains(&i) {
                continue;
            }
            out.point_error.0 += (row.elo - truth[i]).abs();
            out.point_error.1 += 1;
            out.ratings.add(row.ci_low, row.ci_high, truth[i]);
            if played[i] == fewest {
                out.least_played.add(row.ci_low, row.ci_high, truth[i]);
            }
        }
        let fm = &report.first_move;
        out.advantage.add(fm.ci_low, fm.ci_high, design.advantage);
        for e in &report.pairwise {
            if let Some(s) = &e.pentanomial {
                let t = design.head_to_head(&truth, e.player, e.opponent);
                out.pairwise.add(s.elo_low, s.elo_high, t);
            }
        }
        for i in 0..n {
            for j in 0..n {
                if i == j || played[i] == 0 || played[j] == 0 {
                    continue;
                }
                if i < j {
                    let (low, high) = match &report.boot {
                        Some(b) => {
                            let d = b.difference(i, j);
                            (d.low, d.high)
                        }
                        None => {
                            let (d, se) = (report.ratings.diff(i, j), report.ratings.diff_se(i, j));
                            (d - z * se, d + z * se)
                        }
                    };
                    out.differences.add(low, high, truth[i] - truth[j]);
                }
                out.los.add(report.los[i][j], truth[i] > truth[j]);
            }
        }
        if let Some(b) = &report.boot {
            let top = (0..n)
                .max_by(|&a, &b| truth[a].total_cmp(&truth[b]))
                .expect("players");
            for i in 0..n {
                out.p_top.add(b.p_first(i), i == top);
            }
            out.failed_samples += b.failed;
        }
        if let Some(d) = &report.posterior {
            out.unsettled += usize::from(d.divergent > 0 || d.r_hat > 1.05);
        }
    }
    Ok(out)
}

/// `κ` of the margin model for games of spread `sd` (seeds): Elo per seed of mean margin.
pub fn margin_kappa(sd: f64) -> f64 {
    400.0 / std::f64::consts::LN_10 * 4.0
        / (2.0 * std::f64::consts::PI).sqrt()
        / (sd * sd + 2.0 / 3.0).sqrt()
}

/// The margin ratings (`margin::ratings`) against the W/D/L fit on the same data sets, whose
/// margins come from the normal link ([`Design::sample_margins`]).
#[derive(Clone, Debug, Default)]
pub struct MarginCoverage {
    pub datasets: usize,
    /// The margin ratings' intervals: every player, the least-played, the advantage.
    pub ratings: Tally,
    pub least_played: Tally,
    pub advantage: Tally,
    /// The W/D/L fit's intervals on the same games (`config`'s method).
    pub wdl_ratings: Tally,
    pub wdl_least_played: Tally,
    /// Sums over players of margin − W/D/L Elo and of its absolute value, and the count.
    pub difference: (f64, f64, u64),
}

/// Rates `datasets` data sets of `design` with margins of spread `sd` by both models.
pub fn measure_margin(
    design: &Design,
    sd: f64,
    config: &RatingConfig,
    datasets: usize,
    seed: u64,
) -> Result<MarginCoverage, RatingError> {
    use crate::margin::ratings::{fit, MarginAnchor, MarginGame};
    let mut out = MarginCoverage {
        datasets,
        ..MarginCoverage::default()
    };
    let names: Vec<String> = (0..design.players).map(|i| format!("p{i}")).collect();
    for k in 0..datasets {
        let mut rng = ChaCha8Rng::seed_from_u64(seed.wrapping_add(1_000_003 * k as u64));
        let (truth, games) = design.sample_margins(sd, &mut rng);
        let rated: Vec<RatedGame> = games.iter().map(|g| g.0).collect();
        let margins: Vec<MarginGame> = games
            .iter()
            .map(|(g, m)| MarginGame {
                pair: g.pair,
                first: g.first,
                second: g.second,
                margin: *m,
            })
            .collect();
        let m = fit(
            design.players,
            &margins,
            16.0,
            2.0,
            MarginAnchor::Mean(0.0),
            config.level,
        )?;
        let wdl = analyse(
            &names,
            &rated,
            &RatingConfig {
                anchor: Anchor::Mean(0.0),
                ..*config
            },
            &mut rng,
        )?;
        let played: Vec<u64> = m.players.iter().map(|p| p.games).collect();
        let fewest = played.iter().copied().filter(|&g| g > 0).min().unwrap_or(0);
        for (i, p) in m.players.iter().enumerate() {
            if played[i] == 0 {
                continue;
            }
            out.ratings.add(p.ci_low, p.ci_high, truth[i]);
            if played[i] == fewest {
                out.least_played.add(p.ci_low, p.ci_high, truth[i]);
            }
            let row = wdl.row(&names[i]).expect("every player has a row");
            out.wdl_ratings.add(row.ci_low, row.ci_high, truth[i]);
            if played[i] == fewest {
                out.wdl_least_played.add(row.ci_low, row.ci_high, truth[i]);
            }
            let d = p.elo - row.elo;
            out.difference.0 += d;
            out.difference.1 += d.abs();
            out.difference.2 += 1;
        }
        let z = crate::normal_quantile(0.5 + config.level / 2.0);
        out.advantage.add(
            m.advantage - z * m.advantage_se,
            m.advantage + z * m.advantage_se,
            design.advantage,
        );
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_simulated_draw_rate_and_advantage_are_the_designs() {
        let mut design = Design::all().remove(1);
        design.truth = Truth::Normal { sd: 1e-9 };
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let (_, games) = design.sample(&mut rng);
        let draws = games.iter().filter(|g| g.outcome == Outcome::Draw).count();
        let rate = draws as f64 / games.len() as f64;
        assert!((rate - 0.7).abs() < 0.02, "draw rate {rate}");
        let first: f64 = games.iter().map(|g| g.outcome.score()).sum::<f64>() / games.len() as f64;
        assert!(
            (first - elo_to_score(30.0)).abs() < 0.01,
            "first movers scored {first}"
        );
    }

    #[test]
    fn every_design_conserves_its_schedule_and_centres_its_truth() {
        for design in Design::all() {
            let mut rng = ChaCha8Rng::seed_from_u64(9);
            let (truth, games) = design.sample(&mut rng);
            if design.fixed_anchors == 0 {
                assert!(truth.iter().sum::<f64>().abs() < 1e-6, "{}", design.name);
            } else {
                // Anchored at their true ratings: the levels keep theirs.
                assert_eq!(truth[..3], [900.0, 1250.0, 1650.0], "{}", design.name);
            }
            assert_eq!(games.len() % 2, 0);
            if design.site.is_none() {
                let pairs: u32 = design.encounters.iter().map(|e| e.2).sum();
                assert_eq!(games.len(), 2 * pairs as usize, "{}", design.name);
            }
        }
    }

    #[test]
    fn the_measure_counts_every_rated_player_once() {
        let design = &Design::all()[0];
        let config = RatingConfig {
            bootstrap: 50,
            ..RatingConfig::default()
        };
        let r = measure(design, &config, 3, 1).unwrap();
        assert_eq!(r.ratings.trials, 3 * 8);
        assert_eq!(r.advantage.trials, 3);
        assert_eq!(r.differences.trials, 3 * 28);
        assert_eq!(r.los.count, 3 * 56);
        assert!(r.ratings.coverage() > 0.5);
    }
}
