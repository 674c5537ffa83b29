//! The Elo curve of the alpha-beta bot's `Skill` scale: which Elo, on a reference pool's scale,
//! the bot plays at for each skill, so that `option.Elo=N` can pick the skill (docs/bots.md,
//! "Elo"). `arena calibrate --curve` writes the file from games against a rated pool
//! (docs/calibrate.md, "An Elo curve"); the bundled one is `bots/data/elo-curve-kalah6.txt`.
//!
//! The curve is a monotone Bernstein polynomial in the skill rescaled to `u ∈ [0, 1]`:
//! `E(u) = Σ_k c_k·C(n,k)·u^k·(1−u)^(n−k)` with monotone coefficients `c_0 ≤ … ≤ c_n` (or
//! `≥`), which makes `E` monotone, so every Elo inside its range has one skill. The file also
//! carries what the curve was calibrated against (its pool, the source of the pool's Elos, the
//! rules and openings, the games) and a table of the curve with its intervals, for people; the
//! bot reads only the fit.
//!
//! # Format
//!
//! UTF-8 text, one `KEY VALUE...` a line, `#` starts a comment line. Required: `format
//! mancala-elo-curve 1`, `knob NAME` (the option the curve is over: `Skill`), `range LO HI`,
//! `fit bernstein N`, `coefficients C0 ... CN` (Elo, monotone). Optional and kept as text:
//! `first_move_advantage`, `level`, `games`, `rules`, `openings`, `reference`,
//! `reference_source`, `command`, `made`, and any number of `point X ELO LOW HIGH` lines (the
//! curve and its interval at knob value `X`). Unknown keys are refused, so a typo is not a
//! silently different curve.

use std::fmt::Write as _;

/// The committed curve: the bundled alpha-beta bot's `Skill` on the site's human scale, Kalah(6,4).
pub const BUNDLED_KALAH6: &str = include_str!("../data/elo-curve-kalah6.txt");

/// The first line every curve file starts with (after comments).
pub const FORMAT: &str = "mancala-elo-curve 1";

/// Keys kept as text (what the curve was calibrated against), in the order they are written.
pub const INFO_KEYS: [&str; 9] = [
    "first_move_advantage",
    "level",
    "games",
    "rules",
    "openings",
    "reference",
    "reference_source",
    "command",
    "made",
];

/// One row of the curve's table: the knob value, the fitted Elo there and its interval.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CurvePoint {
    pub x: f64,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

/// A parsed Elo curve.
#[derive(Clone, Debug, PartialEq)]
pub struct EloCurve {
    /// The option the curve is over (`Skill`).
    pub knob: String,
    pub lo: f64,
    pub hi: f64,
    /// Bernstein coefficients `c_0..c_n` in Elo, monotone.
    pub coefficients: Vec<f64>,
    /// The `INFO_KEYS` present, as written.
    pub info: Vec<(String, String)>,
    /// The table of the curve with its interval.
    pub points: Vec<CurvePoint>,
}

/// `C(n, k)` as a float (n is small).
fn binomial(n: usize, k: usize) -> f64 {
    (0..k).fold(1.0, |acc, i| acc * (n - i) as f64 / (i + 1) as f64)
}

/// The Bernstein basis of degree `n` at `u`.
pub fn bernstein(n: usize, u: f64) -> Vec<f64> {
    (0..=n)
        .map(|k| binomial(n, k) * u.powi(k as i32) * (1.0 - u).powi((n - k) as i32))
        .collect()
}

impl EloCurve {
    /// The bundled curve (it is checked by a test, so this cannot fail in a release).
    pub fn bundled() -> EloCurve {
        EloCurve::parse(BUNDLED_KALAH6).expect("the bundled Elo curve parses")
    }

    /// Parses a curve file; errors say the line and what is wrong with it.
    pub fn parse(text: &str) -> Result<EloCurve, String> {
        let mut format = None;
        let mut knob = None;
        let mut range = None;
        let mut degree = None;
        let mut coefficients: Option<(usize, Vec<f64>)> = None;
        let mut info = Vec::new();
        let mut points = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = |what: &str| format!("line {}: {what}: `{line}`", n + 1);
            let (key, rest) = line.split_once(char::is_whitespace).unwrap_or((line, ""));
            let rest = rest.trim();
            let numbers = |count: Option<usize>| -> Result<Vec<f64>, String> {
                let v: Vec<f64> = rest
                    .split_whitespace()
                    .map(|w| w.parse::<f64>().ok().filter(|x| x.is_finite()))
                    .collect::<Option<_>>()
                    .ok_or_else(|| at("expected numbers"))?;
                match count {
                    Some(c) if v.len() != c => Err(at(&format!("expected {c} numbers"))),
                    _ if v.is_empty() => Err(at("expected numbers")),
                    _ => Ok(v),
                }
            };
            match key {
                "format" => {
                    if rest != FORMAT {
                        return Err(at(&format!("this bot reads `format {FORMAT}`")));
                    }
                    format = Some(());
                }
                "knob" => {
                    if rest.is_empty() || rest.contains(char::is_whitespace) {
                        return Err(at("expected one option name"));
                    }
                    knob = Some(rest.to_string());
                }
                "range" => {
                    let v = numbers(Some(2))?;
                    if v[0] >= v[1] {
                        return Err(at("LO must be below HI"));
                    }
                    range = Some((v[0], v[1]));
                }
                "fit" => {
                    let mut words = rest.split_whitespace();
                    let (Some("bernstein"), Some(d), None) =
                        (words.next(), words.next(), words.next())
                    else {
                        return Err(at("expected `fit bernstein N`"));
                    };
                    let d: usize = d
                        .parse()
                        .ok()
                        .filter(|&d| (1..=12).contains(&d))
                        .ok_or_else(|| at("the degree must be 1..=12"))?;
                    degree = Some(d);
                }
                "coefficients" => coefficients = Some((n + 1, numbers(None)?)),
                "point" => {
                    let v = numbers(Some(4))?;
                    points.push(CurvePoint {
                        x: v[0],
                        elo: v[1],
                        low: v[2],
                        high: v[3],
                    });
                }
                k if INFO_KEYS.contains(&k) => info.push((k.to_string(), rest.to_string())),
                _ => return Err(at(&format!("unknown key `{key}`"))),
            }
        }
        let missing = |what: &str| format!("no `{what}` line");
        format.ok_or_else(|| missing("format"))?;
        let knob = knob.ok_or_else(|| missing("knob"))?;
        let (lo, hi) = range.ok_or_else(|| missing("range"))?;
        let degree = degree.ok_or_else(|| missing("fit"))?;
        let (line, coefficients) = coefficients.ok_or_else(|| missing("coefficients"))?;
        if coefficients.len() != degree + 1 {
            return Err(format!(
                "line {line}: `fit bernstein {degree}` needs {} coefficients, not {}",
                degree + 1,
                coefficients.len()
            ));
        }
        let up = coefficients.windows(2).all(|w| w[0] <= w[1]);
        let down = coefficients.windows(2).all(|w| w[0] >= w[1]);
        if !(up || down) || coefficients.first() == coefficients.last() {
            return Err(format!(
                "line {line}: the coefficients must rise (or fall) from first to last: a curve \
                 that is not monotone has no one skill for an Elo"
            ));
        }
        Ok(EloCurve {
            knob,
            lo,
            hi,
            coefficients,
            info,
            points,
        })
    }

    /// The value of an info key, if the file has it.
    pub fn info(&self, key: &str) -> Option<&str> {
        self.info
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
    }

    fn degree(&self) -> usize {
        self.coefficients.len() - 1
    }

    /// The curve's Elo at knob value `x` (clamped to the range).
    pub fn elo(&self, x: f64) -> f64 {
        let u = ((x - self.lo) / (self.hi - self.lo)).clamp(0.0, 1.0);
        bernstein(self.degree(), u)
            .iter()
            .zip(&self.coefficients)
            .map(|(b, c)| b * c)
            .sum()
    }

    /// The Elos at the two ends of the range, lower first.
    pub fn elo_range(&self) -> (f64, f64) {
        let (a, b) = (self.elo(self.lo), self.elo(self.hi));
        (a.min(b), a.max(b))
    }

    /// The knob value at which the curve is at `elo`, and whether `elo` is inside the curve's
    /// range (else the value is the nearer end: the weakest or the strongest setting).
    pub fn knob_for(&self, elo: f64) -> (f64, bool) {
        let rising = self.coefficients[0] < self.coefficients[self.degree()];
        let (weak, strong) = if rising {
            (self.lo, self.hi)
        } else {
            (self.hi, self.lo)
        };
        let (min, max) = self.elo_range();
        if elo <= min {
            return (weak, elo == min);
        }
        if elo >= max {
            return (strong, elo == max);
        }
        // Bisection on the monotone curve: 60 halvings are far below any knob's resolution.
        let (mut a, mut b) = (weak, strong);
        for _ in 0..60 {
            let m = 0.5 * (a + b);
            if self.elo(m) < elo {
                a = m;
            } else {
                b = m;
            }
        }
        (0.5 * (a + b), true)
    }

    /// The file's text (what [`EloCurve::parse`] reads), with `header` as comment lines first.
    pub fn to_text(&self, header: &str) -> String {
        let mut out = String::new();
        for line in header.lines() {
            let _ = writeln!(out, "# {line}");
        }
        let _ = writeln!(out, "format {FORMAT}");
        let _ = writeln!(out, "knob {}", self.knob);
        let _ = writeln!(out, "range {} {}", self.lo, self.hi);
        let _ = writeln!(out, "fit bernstein {}", self.degree());
        let coefficients: Vec<String> = self
            .coefficients
            .iter()
            .map(|c| format!("{c:.2}"))
            .collect();
        let _ = writeln!(out, "coefficients {}", coefficients.join(" "));
        for key in INFO_KEYS {
            if let Some(v) = self.info(key) {
                let _ = writeln!(out, "{key} {v}");
            }
        }
        if !self.points.is_empty() {
            let _ = writeln!(out, "# the curve and its interval: point KNOB ELO LOW HIGH");
        }
        for p in &self.points {
            let _ = writeln!(out, "point {} {:.1} {:.1} {:.1}", p.x, p.elo, p.low, p.high);
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn curve(coefficients: &str) -> String {
        format!(
            "# a test curve\nformat mancala-elo-curve 1\nknob Skill\nrange 0 20\nfit bernstein 2\n\
             coefficients {coefficients}\nrules kalah\npoint 0 600 550 650\n"
        )
    }

    #[test]
    fn a_straight_line_by_hand() {
        // Degree 2 with coefficients 600, 1200, 1800 is the straight line 600 + 60·x.
        let c = EloCurve::parse(&curve("600 1200 1800")).unwrap();
        for x in [0.0, 5.0, 12.5, 20.0] {
            assert!((c.elo(x) - (600.0 + 60.0 * x)).abs() < 1e-9, "{x}");
        }
        assert!((c.knob_for(1350.0).0 - 12.5).abs() < 1e-9);
        assert!(c.knob_for(1350.0).1);
        // Outside the curve: the nearer end, said so.
        assert_eq!(c.knob_for(500.0), (0.0, false));
        assert_eq!(c.knob_for(2500.0), (20.0, false));
        assert_eq!(c.elo_range(), (600.0, 1800.0));
        assert_eq!(c.info("rules"), Some("kalah"));
        assert_eq!(c.points.len(), 1);
    }

    #[test]
    fn bernstein_by_hand() {
        // Degree 2 at u = 1/2: 1/4, 1/2, 1/4.
        assert_eq!(bernstein(2, 0.5), vec![0.25, 0.5, 0.25]);
        // Coefficients 0, 0, 3 give 3u²: at u = 0.5 that is 0.75.
        let c = EloCurve::parse(&curve("0 0 3")).unwrap();
        assert!((c.elo(10.0) - 0.75).abs() < 1e-12);
    }

    #[test]
    fn falling_curves_invert_too() {
        let c = EloCurve::parse(&curve("1800 1200 600")).unwrap();
        assert!((c.knob_for(1500.0).0 - 5.0).abs() < 1e-9);
        assert_eq!(c.knob_for(100.0), (20.0, false));
    }

    #[test]
    fn round_trip() {
        let c = EloCurve::parse(&curve("600 1100 1800")).unwrap();
        let again = EloCurve::parse(&c.to_text("made by a test\nsecond line")).unwrap();
        assert_eq!(again.knob, c.knob);
        assert_eq!(again.coefficients, c.coefficients);
        assert_eq!(again.info, c.info);
        assert_eq!(again.points, c.points);
    }

    #[test]
    fn bad_files_are_refused_with_the_line() {
        let bad = |text: String, want: &str| {
            let e = EloCurve::parse(&text).unwrap_err();
            assert!(e.contains(want), "{e}");
        };
        bad(curve("600 1900 1200"), "line 6: the coefficients must rise");
        bad(curve("600 1200"), "needs 3 coefficients");
        bad(curve("600 x 1200"), "line 6: expected numbers");
        bad(
            curve("600 1200 1800").replace("range 0 20", "range 20 0"),
            "line 4",
        );
        bad(
            curve("600 1200 1800").replace("knob Skill\n", ""),
            "no `knob` line",
        );
        bad(
            curve("600 1200 1800") + "colour blue\n",
            "unknown key `colour`",
        );
        bad(
            curve("600 1200 1800").replace("curve 1", "curve 2"),
            "this bot reads",
        );
    }

    #[test]
    fn the_bundled_curve_parses_and_covers_the_site() {
        let c = EloCurve::bundled();
        assert_eq!(c.knob, "Skill");
        let (min, max) = c.elo_range();
        // Issue 46: the weakest setting below 600 on the site's scale.
        assert!(min < 600.0 && max >= 1700.0, "{min}..{max}");
        for key in [
            "reference",
            "reference_source",
            "rules",
            "openings",
            "games",
        ] {
            assert!(c.info(key).is_some(), "the bundled curve says no {key}");
        }
    }
}
