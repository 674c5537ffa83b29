//! Ordo's own descent with several fixed anchors (Ordo 1.2.6 `-m`; `rating.c`
//! `calc_rating_ordo`, `adjust_rating`, `adjust_wadv`, `optimum_centerdelta`; `fit1d.c`
//! `quadfit1d`), followed step for step.
//!
//! With two or more fixed anchors the anchors' own expected-score equations cannot hold, and
//! Ordo's answer is not the optimum of any objective: it is where its step-size descent on the
//! performance misfit of every player, the anchors' included,
//!
//! ```text
//! U = Σ_j (E_j − O_j)² / N_j      (E_j expected points, O_j points, N_j games of j)
//! ```
//!
//! stops. Each step moves every free player by `delta·y_j` towards its own equation (not along
//! the gradient of `U`), is kept only if `U` falls, and is followed by a shift of all free
//! players together to the minimum of `U` (its "mobile centre"); `delta` shrinks by 1.1 per
//! phase for 1000 phases. The step direction stops being a descent direction for `U` a few Elo
//! from the minimum of `U`, and where depends on the path: Ordo started elsewhere ends
//! elsewhere (docs/statistics.md §2a gives the measurements). So matching Ordo means walking
//! its path: same start, same constants, same order of updates (the first-mover advantage is
//! re-solved at the start of each phase, with the expected scores of the previous one).
//!
//! Everything here is in Elo, as in Ordo.

use crate::fit::FitCell;

/// Ordo's default pool average (`-a`), where its descent starts every free player.
pub(crate) const START_ELO: f64 = 2300.0;
const START_DELTA: f64 = 100.0;
const START_RESOL: f64 = 10.0;
const MIN_RESOL: f64 = 1e-6;
const MIN_DEVIA: f64 = 1e-7;
const PHASES: usize = 1000;
const ROUNDS: usize = 10_000;
const KK_DAMP: f64 = 1000.0;
const DAMP_DELTA: f64 = 1.1;
const KAPPA: f64 = 0.05;

/// The games and who moves.
struct Pool<'a> {
    cells: &'a [FitCell],
    /// `β` per Elo.
    beta: f64,
    /// Points and games of each player.
    obtained: Vec<f64>,
    played: Vec<f64>,
    /// Free players (moved by the descent); the rest are held.
    movable: &'a [bool],
    games: f64,
}

impl Pool<'_> {
    fn first_expected(&self, elo: &[f64], adv: f64, c: &FitCell) -> f64 {
        1.0 / (1.0 + ((elo[c.second] - elo[c.first] - adv) * self.beta).exp())
    }

    /// `U` at `elo` and `adv`, with each player's expected points in `expected`
    /// (`unfitness`).
    fn misfit(&self, elo: &[f64], adv: f64, expected: &mut [f64]) -> f64 {
        expected.fill(0.0);
        for c in self.cells {
            let w = c.n * self.first_expected(elo, adv, c);
            expected[c.second] += c.n - w;
            expected[c.first] += w;
        }
        expected
            .iter()
            .zip(&self.obtained)
            .zip(&self.played)
            .filter(|(_, &n)| n > 0.0)
            .map(|((e, o), n)| (e - o) * (e - o) / n)
            .sum()
    }

    /// One step of `delta·y_j` for each free player towards its own equation; returns the
    /// largest move (`adjust_rating`, Ordo's "resolution").
    fn step(&self, delta: f64, kappa: f64, expected: &[f64], elo: &mut [f64]) -> f64 {
        let mut ymax: f64 = 0.0;
        for j in 0..elo.len() {
            if !self.movable[j] || self.played[j] == 0.0 {
                continue;
            }
            let d = ((expected[j] - self.obtained[j]) / self.played[j]).abs();
            let y = d / (kappa + d);
            ymax = ymax.max(y);
            if expected[j] > self.obtained[j] {
                elo[j] -= delta * y;
            } else {
                elo[j] += delta * y;
            }
        }
        ymax * delta
    }

    /// The advantage whose expected first-mover points equal the actual ones, by Ordo's
    /// bracketing search from `start` with first step `delta` (`adjust_wadv`).
    fn advantage(&self, elo: &[f64], start: f64, mut delta: f64) -> f64 {
        let (scored, games): (f64, f64) = self
            .cells
            .iter()
            .fold((0.0, 0.0), |a, c| (a.0 + c.s, a.1 + c.n));
        let unfit = |adv: f64| {
            let expected: f64 = self
                .cells
                .iter()
                .map(|c| c.n * self.first_expected(elo, adv, c))
                .sum();
            (expected - scored) * (expected - scored) / games
        };
        let mut adv = start;
        loop {
            let (ei, ej, ek) = (unfit(adv - delta), unfit(adv), unfit(adv + delta));
            if ei >= ej && ej <= ek {
                return quadfit1d(MIN_RESOL, adv - delta, adv + delta, &unfit);
            } else if ej >= ei && ei <= ek {
                adv -= delta;
            } else {
                adv += delta;
            }
            delta *= 1.5;
            if delta <= MIN_RESOL || adv.abs() >= 1000.0 {
                return adv;
            }
        }
    }

    /// The common shift of the free players that minimises `U`, searched in
    /// `start ± 1000` (`optimum_centerdelta`).
    fn centre(&self, elo: &[f64], adv: f64, start: f64, scratch: &mut Vec<f64>) -> f64 {
        let mut expected = vec![0.0; elo.len()];
        let mut unfit = |x: f64| {
            scratch.clear();
            scratch.extend(
                elo.iter()
                    .zip(self.movable)
                    .map(|(&r, &m)| r + if m { x } else { 0.0 }),
            );
            self.misfit(scratch, adv, &mut expected)
        };
        quadfit1d(MIN_RESOL, start - 1000.0, start + 1000.0, &mut unfit)
    }
}

/// Ordo's `-m` ratings (`calc_rating_ordo` with `-W` when `adv` is given): `elo` holds the
/// anchors' values and is overwritten for the `movable` players, who start at
/// [`START_ELO`]; `adv` (Elo, started at 0 as Ordo does) is re-solved along the way. `beta` is
/// the logistic slope per Elo.
pub(crate) fn descend(
    cells: &[FitCell],
    movable: &[bool],
    beta: f64,
    elo: &mut [f64],
    adv: Option<&mut f64>,
) {
    let n = elo.len();
    let (mut obtained, mut played) = (vec![0.0; n], vec![0.0; n]);
    for c in cells {
        obtained[c.first] += c.s;
        obtained[c.second] += c.n - c.s;
        played[c.first] += c.n;
        played[c.second] += c.n;
    }
    let pool = Pool {
        cells,
        beta,
        games: played.iter().sum::<f64>() / 2.0,
        obtained,
        played,
        movable,
    };
    for (r, &m) in elo.iter_mut().zip(movable) {
        if m {
            *r = START_ELO;
        }
    }
    let fit_adv = adv.is_some();
    let mut white = 0.0;
    let mut previous = white;
    let mut progress = START_DELTA;
    let mut expected = vec![0.0; n];
    let mut backup = vec![0.0; n];
    let mut scratch = Vec::with_capacity(n);
    let output_dev = |u: f64| 1000.0 * (u / pool.games).sqrt();
    let max_cycle = if fit_adv { 4 } else { 1 };
    let mut resol = START_RESOL;
    let mut cycle = 0;
    while resol > MIN_RESOL || (cycle < max_cycle && progress > 0.01) {
        let (mut delta, kappa) = (START_DELTA, KAPPA);
        let mut done = false;
        let mut curdev = pool.misfit(elo, white, &mut expected);
        for _ in 0..PHASES {
            if done {
                break;
            }
            let mut kk = 1.0;
            let mut last_cd = 100.0;
            if fit_adv {
                // `expected` and `curdev` stay those of the previous advantage, as in Ordo.
                white = pool.advantage(elo, white, resol);
                progress = (previous - white).abs();
                previous = white;
            }
            for _ in 0..ROUNDS {
                backup.copy_from_slice(elo);
                let olddev = curdev;
                resol = pool.step(delta, kappa * kk, &expected, elo);
                curdev = pool.misfit(elo, white, &mut expected);
                let mut cd = 0.0;
                let failed = curdev >= olddev;
                if failed {
                    elo.copy_from_slice(&backup);
                    curdev = pool.misfit(elo, white, &mut expected);
                } else {
                    cd = pool.centre(elo, white, last_cd, &mut scratch);
                    last_cd = cd;
                    if cd.abs() > MIN_RESOL {
                        for (r, &m) in elo.iter_mut().zip(movable) {
                            if m {
                                *r += cd;
                            }
                        }
                    }
                    curdev = pool.misfit(elo, white, &mut expected);
                    kk *= 1.0 - 1.0 / KK_DAMP;
                }
                done = output_dev(curdev) < MIN_DEVIA && resol.abs() + cd.abs() < MIN_RESOL;
                if done || failed {
                    break;
                }
            }
            delta /= DAMP_DELTA;
        }
        if fit_adv {
            white = pool.advantage(elo, white, resol);
            progress = (previous - white).abs();
            previous = white;
        }
        cycle += 1;
    }
    if let Some(a) = adv {
        *a = white;
    }
}

/// The minimum of `f` near `[a, b]` by Ordo's parabolic search to width `limit` (`fit1d.c`
/// `quadfit1d`: widen the bracket until its middle is lowest, then `quadfit1d_2`).
fn quadfit1d(limit: f64, a: f64, b: f64, mut f: impl FnMut(f64) -> f64) -> f64 {
    let centre = (a + b) / 2.0;
    let (mut delta_neg, mut delta_pos) = ((b - a).abs() / 2.0, (b - a).abs() / 2.0);
    let (mut xi, mut xj, mut xk) = (centre - delta_neg, centre, centre + delta_neg);
    let (mut ei, mut ej, mut ek) = (f(xi), f(xj), f(xk));
    if ej <= 0.0 || ej.is_nan() {
        return xj;
    }
    let r1 = if ei <= ej { ej / ei } else { ei / ej };
    let r2 = if ej <= ek { ek / ej } else { ej / ek };
    if r1 < 1.000_000_1 && r2 < 1.000_000_1 {
        return xj;
    }
    loop {
        if ei >= ej && ej <= ek {
            return quadfit1d_2(limit, [xi, xj, xk], [ei, ej, ek], &mut f);
        } else if ej >= ei && ei <= ek {
            delta_neg *= 2.0;
            (ek, ej, xk, xj) = (ej, ei, xj, xi);
            xi = centre - delta_neg;
            ei = f(xi);
        } else {
            delta_pos *= 2.0;
            (ei, ej, xi, xj) = (ej, ek, xj, xk);
            xk = centre + delta_pos;
            ek = f(xk);
        }
    }
}

/// Ordo's bracket refinement (`quadfit1d_2`): parabolic steps, and thirds after three chops
/// on one side; returns the bracket's best point once it is `limit` wide.
fn quadfit1d_2(limit: f64, x3: [f64; 3], y3: [f64; 3], f: &mut impl FnMut(f64) -> f64) -> f64 {
    let (mut x, mut y) = ([0.0; 4], [0.0; 4]);
    x[1..].copy_from_slice(&x3);
    y[1..].copy_from_slice(&y3);
    let (mut rightchop, mut leftchop) = (0u32, 0u32);
    x[0] = optimum_center(&x, &y);
    y[0] = f(x[0]);
    loop {
        let mut equality = false;
        if x[0] < x[2] && y[0] <= y[2] {
            rightchop += 1;
            leftchop = 0;
            (x[3], y[3], x[2], y[2]) = (x[2], y[2], x[0], y[0]);
        } else if x[0] > x[2] && y[0] > y[2] {
            rightchop += 1;
            leftchop = 0;
            (x[3], y[3]) = (x[0], y[0]);
        } else if x[0] < x[2] && y[0] > y[2] {
            rightchop = 0;
            leftchop += 1;
            (x[1], y[1]) = (x[0], y[0]);
        } else if x[0] > x[2] && y[0] <= y[2] {
            rightchop = 0;
            leftchop += 1;
            (x[1], y[1], x[2], y[2]) = (x[2], y[2], x[0], y[0]);
        } else {
            equality = true;
            x[0] = if x[3] - x[2] > x[2] - x[1] {
                x[2] + 0.01 * (x[3] - x[2])
            } else {
                x[2] - 0.01 * (x[2] - x[1])
            };
        }
        if equality {
            y[0] = f(x[0]);
        } else if rightchop < 3 && leftchop < 3 {
            x[0] = optimum_center(&x, &y);
            y[0] = f(x[0]);
        } else {
            let thirdlo = (x[3] + 2.0 * x[1]) / 3.0;
            let thirdhi = (2.0 * x[3] + x[1]) / 3.0;
            x[0] = x[2];
            if x[3] - x[2] > 2.0 * (x[2] - x[1]) {
                loop {
                    x[0] += x[0] - x[1];
                    y[0] = f(x[0]);
                    if x[0] >= thirdlo || y[0] > y[2] {
                        break;
                    }
                }
            } else if x[3] - x[2] < (x[2] - x[1]) / 2.0 {
                loop {
                    x[0] -= x[3] - x[0];
                    y[0] = f(x[0]);
                    if x[0] <= thirdhi || y[0] > y[2] {
                        break;
                    }
                }
            } else {
                x[0] = (x[2] + if leftchop == 0 { x[1] } else { x[3] }) / 2.0;
                y[0] = f(x[0]);
            }
        }
        if (x[3] - x[1]).abs() <= limit {
            return x[2];
        }
    }
}

/// The vertex of the parabola through the bracket `x[1..4]`, or its middle where the points
/// are too close or do not make a minimum (`fit1d.c` `optimum_center`).
fn optimum_center(x: &[f64; 4], y: &[f64; 4]) -> f64 {
    const EPSILON: f64 = 1e-7;
    if x[3] - x[1] > EPSILON && x[2] - x[1] > EPSILON && x[3] - x[2] > EPSILON {
        if let Some(r) = parabolic_min(x, y, x[2]).and_then(|r| parabolic_min(x, y, r)) {
            return r;
        }
    }
    (x[3] + x[1]) / 2.0
}

/// `find_parabolic_min_x_withreference`: the vertex computed relative to `reference`.
fn parabolic_min(x: &[f64; 4], y: &[f64; 4], reference: f64) -> Option<f64> {
    let (x1, x2, x3) = (x[1] - reference, x[2] - reference, x[3] - reference);
    let (y12, x12, y13, x13) = (y[1] - y[2], x1 - x2, y[1] - y[3], x1 - x3);
    let (s12, s13) = (x1 * x1 - x2 * x2, x1 * x1 - x3 * x3);
    if x12 * y13 <= y12 * x13 {
        return None;
    }
    let den = y13 * x12 - y12 * x13;
    if den < 1e-64 {
        return None;
    }
    Some((y13 * s12 - y12 * s13) / den / 2.0 + reference)
}

#[cfg(test)]
mod tests {
    use super::quadfit1d;

    #[test]
    fn quadfit_finds_the_minimum_of_a_parabola_and_of_an_asymmetric_curve() {
        // The bracket [−1000, 1000] must first widen to the right to hold 1500.
        let x = quadfit1d(1e-6, -1000.0, 1000.0, |x: f64| (x - 1500.0).powi(2) + 1.0);
        assert!((x - 1500.0).abs() < 1e-5, "{x}");
        // cosh(x − 0.3) + x²: minimum where sinh(x − 0.3) + 2x = 0, x ≈ 0.1010 (Newton below).
        let f = |x: f64| (x - 0.3).cosh() + x * x;
        let mut root: f64 = 0.0;
        for _ in 0..50 {
            root -= ((root - 0.3).sinh() + 2.0 * root) / ((root - 0.3).cosh() + 2.0);
        }
        let x = quadfit1d(1e-9, -5.0, 5.0, f);
        assert!((x - root).abs() < 1e-7, "{x} vs {root}");
    }
}
