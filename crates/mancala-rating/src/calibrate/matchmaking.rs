//! The matchmaking table: which level, at which knob value, a human of a given rating is
//! expected to score 50 % against, from calibrations on the humans' own scale.
//!
//! Input: one or more *levels*, each a calibration's fitted curve (knob value → Elo, with its
//! covariance: [`super::curve::Curve`]) on the scale of the site's rated humans, and the humans'
//! ratings. The humans are cut into brackets of `width` Elo aligned on multiples of the width
//! (`width·⌊min/width⌋` up to the bracket holding the highest rating; a rating on a boundary
//! belongs to the bracket above it). For each bracket's centre `r`:
//!
//! - a level *reaches* `r` when its curve crosses `r` inside the knob range; among the levels
//!   that reach it, the one whose Elo at the crossing is most precise (narrowest interval) is
//!   chosen, and its knob value `x` is the crossing (nearest the range's middle if the curve
//!   crosses more than once). A human at `r` is then expected to score 50 % against it (the
//!   logistic Elo model, first-move advantage cancelling over colour-swapped games). For an
//!   integer knob the setting is the crossing rounded to the nearer whole value, whose own Elo
//!   and the human's expected score against it (near, not at, 50 %) are given;
//! - the knob interval `[x_low, x_high]` is the set of knob values whose pointwise interval
//!   `E(x) ± z·se(x)` contains `r` (the calibration's uncertainty turned round: every setting
//!   in it is consistent with "plays like `r`"), as the hull of that set (a grid, its ends refined
//!   by bisection); it may
//!   reach an end of the range, and it is absent when no setting's interval contains `r`;
//! - when no level reaches `r` (the bracket is weaker than every level's weakest setting, or
//!   stronger than its strongest), the level whose nearest end is closest in Elo is given at
//!   that end (`reachable` false), with the human's expected score against it there (not 50 %).
//!
//! Each level's *share* is the fraction of humans whose rating lies inside the Elo range its
//! curve covers over the knob range: the humans it can stand in for at some setting.
//!
//! Everything here is pure: numbers in, numbers out.

use serde::{Deserialize, Serialize};

use super::curve::Curve;

/// One level: a name and its calibrated curve on the humans' scale, with the z of its intervals.
#[derive(Clone, Debug)]
pub struct Level<'a> {
    pub name: &'a str,
    pub curve: &'a Curve,
    /// The z of the intervals (1.96 for 95 %).
    pub z: f64,
    /// Only whole knob values can be set (a depth): the setting is the crossing rounded.
    pub integer: bool,
}

/// One row of the table: a rating bracket and the setting for it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MatchRow {
    /// The bracket `[lo, hi)` (the last one includes `hi`) and its centre.
    pub lo: f64,
    pub hi: f64,
    pub centre: f64,
    /// Humans rated inside the bracket.
    pub humans: usize,
    /// Index into the levels given.
    pub level: usize,
    /// The knob value: the crossing of the centre, or the nearer end when out of range.
    pub x: f64,
    /// The knob values whose interval contains the centre (hull), if any.
    pub x_low: Option<f64>,
    pub x_high: Option<f64>,
    /// The level's Elo at `x` and its interval half-width.
    pub elo: f64,
    pub half_width: f64,
    /// The level's curve reaches the centre inside the knob range.
    pub reachable: bool,
    /// A human at the centre's expected score against the level at `x` (0.5 when reachable,
    /// for a float knob).
    pub human_score: f64,
}

/// What a level covers.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LevelReach {
    pub name: String,
    /// The lowest and highest Elo its curve takes over the knob range.
    pub elo_min: f64,
    pub elo_max: f64,
    /// Humans whose rating lies in `[elo_min, elo_max]`, and their share of all humans.
    pub humans: usize,
    pub share: f64,
}

/// The table and the levels' reach.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Matchmaking {
    pub width: f64,
    pub humans: usize,
    pub rows: Vec<MatchRow>,
    pub levels: Vec<LevelReach>,
}

/// Why no table could be made.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum MatchmakingError {
    #[error("no human ratings to make brackets of")]
    NoHumans,
    #[error("no levels")]
    NoLevels,
    #[error("the bracket width must be positive and finite, not {0}")]
    Width(f64),
    #[error("a human rating is not a finite number")]
    NotFinite,
}

/// The grid the curves are scanned on (range and knob intervals).
const GRID: usize = 2000;

/// The expected score of a player `d` Elo above its opponent.
fn expected(d: f64) -> f64 {
    1.0 / (1.0 + 10f64.powf(-d / 400.0))
}

fn grid(curve: &Curve) -> impl Iterator<Item = f64> + '_ {
    (0..=GRID).map(|i| curve.lo + (curve.hi - curve.lo) * i as f64 / GRID as f64)
}

/// The lowest and highest Elo of the curve over its knob range.
pub fn elo_range(curve: &Curve) -> (f64, f64) {
    grid(curve)
        .map(|x| curve.elo(x))
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), e| {
            (lo.min(e), hi.max(e))
        })
}

/// The hull of the knob values whose interval `E(x) ± z·se(x)` contains `r`: found on a grid of
/// the range, each end then refined by bisection between the last grid value outside and the
/// first inside.
pub fn knob_interval(curve: &Curve, z: f64, r: f64) -> Option<(f64, f64)> {
    let inside = |x: f64| (curve.elo(x) - r).abs() <= z * curve.se(x);
    let xs: Vec<f64> = grid(curve).collect();
    let first = xs.iter().position(|&x| inside(x))?;
    let last = xs.iter().rposition(|&x| inside(x))?;
    // Between `out` (outside) and `inn` (inside): the boundary.
    let edge = |mut out: f64, mut inn: f64| {
        for _ in 0..50 {
            let m = 0.5 * (out + inn);
            if inside(m) {
                inn = m;
            } else {
                out = m;
            }
        }
        inn
    };
    let lo = if first == 0 {
        xs[0]
    } else {
        edge(xs[first - 1], xs[first])
    };
    let hi = if last + 1 == xs.len() {
        xs[last]
    } else {
        edge(xs[last + 1], xs[last])
    };
    Some((lo, hi))
}

/// The setting of one level for a rating `r`.
struct Setting {
    x: f64,
    elo: f64,
    half_width: f64,
    reachable: bool,
}

fn setting(level: &Level<'_>, r: f64) -> Setting {
    let inv = level.curve.inverse(r, None);
    let x = if level.integer {
        inv.x.round().clamp(level.curve.lo, level.curve.hi)
    } else {
        inv.x
    };
    Setting {
        x,
        elo: level.curve.elo(x),
        half_width: level.z * level.curve.se(x),
        reachable: inv.reachable,
    }
}

/// The brackets `[lo, hi)` of `width` over `ratings`, aligned on multiples of `width`.
pub fn brackets(ratings: &[f64], width: f64) -> Result<Vec<(f64, f64, usize)>, MatchmakingError> {
    if !(width > 0.0 && width.is_finite()) {
        return Err(MatchmakingError::Width(width));
    }
    if ratings.is_empty() {
        return Err(MatchmakingError::NoHumans);
    }
    if ratings.iter().any(|r| !r.is_finite()) {
        return Err(MatchmakingError::NotFinite);
    }
    let min = ratings.iter().copied().fold(f64::INFINITY, f64::min);
    let max = ratings.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    let first = (min / width).floor() as i64;
    let last = ((max / width).floor() as i64).max(first);
    Ok((first..=last)
        .map(|k| {
            let (lo, hi) = (k as f64 * width, (k + 1) as f64 * width);
            let n = ratings
                .iter()
                .filter(|&&r| ((r / width).floor() as i64) == k)
                .count();
            (lo, hi, n)
        })
        .collect())
}

/// The matchmaking table of `levels` over the humans' `ratings`, in brackets of `width` Elo.
pub fn matchmaking(
    levels: &[Level<'_>],
    ratings: &[f64],
    width: f64,
) -> Result<Matchmaking, MatchmakingError> {
    if levels.is_empty() {
        return Err(MatchmakingError::NoLevels);
    }
    let rows = brackets(ratings, width)?
        .into_iter()
        .map(|(lo, hi, humans)| {
            let centre = 0.5 * (lo + hi);
            let settings: Vec<Setting> = levels.iter().map(|l| setting(l, centre)).collect();
            // Reaching levels first, the most precise of them; else the nearest in Elo.
            let best = (0..levels.len())
                .min_by(|&a, &b| {
                    let (sa, sb) = (&settings[a], &settings[b]);
                    sb.reachable.cmp(&sa.reachable).then(if sa.reachable {
                        sa.half_width.total_cmp(&sb.half_width)
                    } else {
                        (sa.elo - centre).abs().total_cmp(&(sb.elo - centre).abs())
                    })
                })
                .expect("at least one level");
            let s = &settings[best];
            let interval = knob_interval(levels[best].curve, levels[best].z, centre);
            MatchRow {
                lo,
                hi,
                centre,
                humans,
                level: best,
                x: s.x,
                x_low: interval.map(|i| i.0),
                x_high: interval.map(|i| i.1),
                elo: s.elo,
                half_width: s.half_width,
                reachable: s.reachable,
                human_score: if s.reachable && !levels[best].integer {
                    0.5
                } else {
                    expected(centre - s.elo)
                },
            }
        })
        .collect();
    let levels = levels
        .iter()
        .map(|l| {
            let (elo_min, elo_max) = elo_range(l.curve);
            let humans = ratings
                .iter()
                .filter(|&&r| r >= elo_min && r <= elo_max)
                .count();
            LevelReach {
                name: l.name.to_string(),
                elo_min,
                elo_max,
                humans,
                share: humans as f64 / ratings.len() as f64,
            }
        })
        .collect();
    Ok(Matchmaking {
        width,
        humans: ratings.len(),
        rows,
        levels,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A straight line `E(x) = a + b·t` (t the knob mapped to [-1, 1]) with the covariance of
    /// `a` alone, `var` (so `se(x)` is `√var` everywhere): the hand-computable case.
    fn line(lo: f64, hi: f64, a: f64, b: f64, var: f64) -> Curve {
        Curve {
            lo,
            hi,
            beta: vec![a, b, 0.0],
            cov: vec![
                vec![var, 0.0, 0.0],
                vec![0.0, 0.0, 0.0],
                vec![0.0, 0.0, 0.0],
            ],
            degree: 1,
            log_lik: 0.0,
            games: 0,
        }
    }

    fn close(a: f64, b: f64, tol: f64) {
        assert!((a - b).abs() <= tol, "{a} is not {b} (±{tol})");
    }

    #[test]
    fn brackets_are_aligned_on_the_width_and_count_every_human_once() {
        let b = brackets(&[1010.0, 1049.9, 1050.0, 1120.0], 50.0).unwrap();
        assert_eq!(
            b,
            vec![
                (1000.0, 1050.0, 2),
                (1050.0, 1100.0, 1),
                (1100.0, 1150.0, 1)
            ]
        );
        // One human: one bracket; a rating on a boundary starts its bracket.
        assert_eq!(brackets(&[900.0], 50.0).unwrap(), vec![(900.0, 950.0, 1)]);
        assert_eq!(brackets(&[], 50.0), Err(MatchmakingError::NoHumans));
        assert_eq!(brackets(&[1.0], 0.0), Err(MatchmakingError::Width(0.0)));
        assert_eq!(
            brackets(&[f64::NAN], 50.0),
            Err(MatchmakingError::NotFinite)
        );
    }

    /// Noise 0..2 with Elo 1600 at Noise 0 falling to 800 at Noise 2: `E = 1200 − 400·t`,
    /// `t = x − 1`, so the crossing of `r` is `x = 1 + (1200 − r)/400`; with se 20 and z 2 the
    /// knob interval is the crossings of `r ± 40`: `x ± 0.1`.
    #[test]
    fn a_straight_line_by_hand() {
        let curve = line(0.0, 2.0, 1200.0, -400.0, 400.0);
        let levels = [Level {
            name: "noise",
            curve: &curve,
            z: 2.0,
            integer: false,
        }];
        // Humans 700..1650: brackets 700-750 ... 1650-1700.
        let humans = [700.0, 760.0, 1000.0, 1010.0, 1200.0, 1590.0, 1650.0];
        let m = matchmaking(&levels, &humans, 50.0).unwrap();
        assert_eq!(m.rows.len(), 20);
        assert_eq!(m.rows.iter().map(|r| r.humans).sum::<usize>(), 7);
        // 1000-1050: centre 1025, x = 1 + 175/400 = 1.4375, interval ±0.1.
        let r = m.rows.iter().find(|r| r.lo == 1000.0).unwrap();
        assert_eq!((r.hi, r.centre, r.humans), (1050.0, 1025.0, 2));
        assert!(r.reachable);
        close(r.x, 1.4375, 1e-6);
        close(r.x_low.unwrap(), 1.3375, 1e-6);
        close(r.x_high.unwrap(), 1.5375, 1e-6);
        close(r.elo, 1025.0, 1e-6);
        close(r.half_width, 40.0, 1e-9);
        assert_eq!(r.human_score, 0.5);
        // 700-750: centre 725 is below the weakest setting (800 at Noise 2): the end, and
        // the human's expected score there, 1/(1 + 10^(75/400)).
        let r = &m.rows[0];
        assert_eq!((r.lo, r.centre), (700.0, 725.0));
        assert!(!r.reachable);
        assert_eq!(r.x, 2.0);
        close(r.elo, 800.0, 1e-9);
        close(r.human_score, 1.0 / (1.0 + 10f64.powf(75.0 / 400.0)), 1e-12);
        close(r.human_score, 0.3937, 1e-4);
        // Its interval: Noise 2 is 800 ± 40, which does not contain 725: no knob interval.
        assert_eq!((r.x_low, r.x_high), (None, None));
        // 1575 is reachable (x = 0.0625) and its interval runs into the range's end at 0.
        let r = m.rows.iter().find(|r| r.lo == 1550.0).unwrap();
        assert!(r.reachable);
        close(r.x, 0.0625, 1e-6);
        assert_eq!(r.x_low, Some(0.0));
        close(r.x_high.unwrap(), 0.1625, 1e-6);
        // 1675 is above the strongest setting (1600 at Noise 0): out of range by 75.
        let r = m.rows.last().unwrap();
        assert_eq!((r.lo, r.x, r.reachable), (1650.0, 0.0, false));
        close(
            r.human_score,
            1.0 / (1.0 + 10f64.powf(-75.0 / 400.0)),
            1e-12,
        );
        // 750-800: centre 775, below 800 too; 800-850: centre 825 at x = 1 + 375/400.
        assert!(!m.rows.iter().find(|r| r.lo == 750.0).unwrap().reachable);
        let r = m.rows.iter().find(|r| r.lo == 800.0).unwrap();
        assert!(r.reachable);
        close(r.x, 1.0 + 375.0 / 400.0, 1e-6);
        // Reach: 800..1600 holds 1000, 1010, 1200, 1590 (not 700, 760 nor 1650): 4 of 7.
        close(m.levels[0].elo_min, 800.0, 1e-9);
        close(m.levels[0].elo_max, 1600.0, 1e-9);
        assert_eq!(m.levels[0].humans, 4);
        close(m.levels[0].share, 4.0 / 7.0, 1e-12);
    }

    /// A depth 1..9 with `E = 1200 + 400·t`, `t = (d − 5)/4`: 100 Elo a ply. A human of 1025
    /// is crossed at d = 3.25; the setting is Depth 3, 1000, where the human scores above half.
    #[test]
    fn an_integer_knob_gives_the_nearer_whole_setting() {
        let curve = line(1.0, 9.0, 1200.0, 400.0, 100.0);
        let levels = [Level {
            name: "depth",
            curve: &curve,
            z: 1.96,
            integer: true,
        }];
        let m = matchmaking(&levels, &[1010.0], 50.0).unwrap();
        let r = &m.rows[0];
        assert_eq!((r.centre, r.x, r.reachable), (1025.0, 3.0, true));
        close(r.elo, 1000.0, 1e-9);
        close(r.human_score, expected(25.0), 1e-12);
        // The interval is still the continuous one: 1025 ± 19.6 crosses at 3.25 ± 0.196.
        close(r.x_low.unwrap(), 3.054, 1e-6);
        close(r.x_high.unwrap(), 3.446, 1e-6);
    }

    /// Two levels: the one that reaches a bracket wins over one that does not, and between two
    /// that reach it the more precise one.
    #[test]
    fn the_level_that_reaches_and_is_most_precise_is_chosen() {
        // "low" covers 600..1000 (se 30), "high" 900..1500 (se 10), both rising with the knob.
        let low = line(0.0, 4.0, 800.0, 200.0, 900.0);
        let high = line(1.0, 9.0, 1200.0, 300.0, 100.0);
        let levels = [
            Level {
                name: "low",
                curve: &low,
                z: 1.96,
                integer: false,
            },
            Level {
                name: "high",
                curve: &high,
                z: 1.96,
                integer: false,
            },
        ];
        let m = matchmaking(&levels, &[600.0, 950.0, 1450.0], 100.0).unwrap();
        let level_at = |lo: f64| {
            let r = m.rows.iter().find(|r| r.lo == lo).unwrap();
            (levels[r.level].name, r.reachable)
        };
        assert_eq!(level_at(600.0), ("low", true)); // 650: only low reaches it
        assert_eq!(level_at(900.0), ("high", true)); // 950: both; high is more precise
        assert_eq!(level_at(1400.0), ("high", true)); // 1450: only high
                                                      // 950 on "high": t = (950 − 1200)/300, x = 5 + 4t = 1.6667.
        let r = m.rows.iter().find(|r| r.lo == 900.0).unwrap();
        close(r.x, 5.0 - 4.0 * 250.0 / 300.0, 1e-6);
        assert_eq!(m.levels[0].humans, 2); // 600 and 950 inside 600..1000
        assert_eq!(m.levels[1].humans, 2); // 950 and 1450 inside 900..1500
        assert_eq!(
            matchmaking(&[], &[1.0], 50.0),
            Err(MatchmakingError::NoLevels)
        );
    }

    /// Below every level and above every level: the nearest end of the nearest level.
    #[test]
    fn out_of_every_range_the_nearest_end_is_given() {
        let low = line(0.0, 1.0, 900.0, 100.0, 100.0); // 800..1000
        let high = line(0.0, 1.0, 1500.0, 100.0, 100.0); // 1400..1600
        let levels = [
            Level {
                name: "low",
                curve: &low,
                z: 1.96,
                integer: false,
            },
            Level {
                name: "high",
                curve: &high,
                z: 1.96,
                integer: false,
            },
        ];
        let m = matchmaking(&levels, &[500.0, 1200.0, 1300.0, 1900.0], 100.0).unwrap();
        let row = |lo: f64| m.rows.iter().find(|r| r.lo == lo).unwrap().clone();
        let r = row(500.0); // centre 550: low's weakest end, 800, at knob 0
        assert_eq!((r.level, r.x, r.reachable), (0, 0.0, false));
        close(r.human_score, expected(-250.0), 1e-12);
        let r = row(1200.0); // centre 1250: 250 above low's 1000, 150 below high's 1400
        assert_eq!((r.level, r.x, r.reachable), (1, 0.0, false));
        let r = row(1900.0); // centre 1950: high's strongest end
        assert_eq!((r.level, r.x, r.reachable), (1, 1.0, false));
        close(r.human_score, expected(350.0), 1e-12);
    }
}
