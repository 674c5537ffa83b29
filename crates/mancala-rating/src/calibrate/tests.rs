//! Calibration against simulated players whose true Elo(knob) is known: the found knobs must
//! rate within the tolerance of their targets, and cost far fewer games than a uniform grid.
//! Run with `--nocapture` to see the game counts (docs/calibrate.md quotes them).

use super::sim::{fitted_grid, independent_grid, Design, SimulatedPlayer};
use super::*;

const POOL: [f64; 3] = [950.0, 1200.0, 1450.0];

fn noise_knob() -> Knob {
    Knob::parse("option.Noise=0.0..2.0").unwrap()
}

fn linear(x: f64) -> f64 {
    1800.0 - 500.0 * x
}

fn sigmoid(x: f64) -> f64 {
    650.0 + 1300.0 / (1.0 + (2.2 * (x - 1.0)).exp())
}

fn depth(d: f64) -> f64 {
    700.0 + 600.0 * d.ln()
}

fn run(truth: fn(f64) -> f64, knob: &Knob, seed: u64) -> Calibration {
    let mut player = SimulatedPlayer::new(truth, POOL.to_vec(), seed);
    calibrate(knob, &POOL, &Settings::default(), &mut player, |_| {}).unwrap()
}

/// Each target's true knob, by bisection on the (decreasing) truth.
fn true_knob(truth: fn(f64) -> f64, knob: &Knob, target: f64) -> f64 {
    let (mut a, mut b) = (knob.lo, knob.hi);
    for _ in 0..60 {
        let m = 0.5 * (a + b);
        if (truth(m) - target) * (truth(a) - target) > 0.0 {
            a = m;
        } else {
            b = m;
        }
    }
    0.5 * (a + b)
}

fn check_accuracy_and_cost(name: &str, truth: fn(f64) -> f64) {
    let knob = noise_knob();
    let cal = run(truth, &knob, 1);
    assert_eq!(cal.stop, Some(Stop::Converged), "{name}: {:?}", cal.targets);
    for r in &cal.targets {
        assert!(r.converged && r.reachable && r.half_width <= 25.0);
        let error = truth(r.x) - r.target;
        assert!(
            error.abs() <= 25.0,
            "{name}: target {} found knob {} rates {} in truth",
            r.target,
            r.x,
            truth(r.x)
        );
    }
    let grid = independent_grid(truth, &knob, &POOL, 25.0, 0.95);
    let knobs: Vec<f64> = cal
        .settings
        .targets
        .iter()
        .map(|&t| true_knob(truth, &knob, t))
        .collect();
    let fitted = fitted_grid(
        truth,
        &knob,
        &POOL,
        &knobs,
        Design {
            points: 9,
            degree: 3,
        },
        25.0,
        0.95,
    );
    eprintln!(
        "{name}: adaptive {} games in {} batches at {} knob values; independent grid {} points {} games; \
         fitted uniform design (cubic, 9 points, oracle-sized) {} games",
        cal.games,
        cal.steps.len(),
        cal.points.len(),
        grid.points,
        grid.games,
        fitted.games
    );
    assert!(
        cal.games * 3 < grid.games,
        "{name}: {} games is not far fewer than the grid's {}",
        cal.games,
        grid.games
    );
}

#[test]
fn linear_curve_found_within_tolerance_in_far_fewer_games_than_a_grid() {
    check_accuracy_and_cost("linear 1800-500x", linear);
}

#[test]
fn sigmoid_curve_found_within_tolerance_in_far_fewer_games_than_a_grid() {
    check_accuracy_and_cost("sigmoid", sigmoid);
}

#[test]
fn found_knobs_are_within_tolerance_for_most_seeds() {
    // 95% intervals: a target can miss now and then; over many runs nearly all must hit.
    let knob = noise_knob();
    let (mut hits, mut total, mut games) = (0, 0, 0);
    for seed in 100..115 {
        for truth in [linear as fn(f64) -> f64, sigmoid] {
            let cal = run(truth, &knob, seed);
            games += cal.games;
            for r in &cal.targets {
                total += 1;
                if (truth(r.x) - r.target).abs() <= 25.0 {
                    hits += 1;
                }
            }
        }
    }
    eprintln!(
        "{hits}/{total} targets within ±25 over 30 runs, {} games per run on average",
        games / 30
    );
    assert!(hits as f64 >= 0.9 * total as f64, "{hits}/{total}");
}

#[test]
fn integer_knob_reports_both_neighbouring_integers() {
    let knob = Knob::parse("option.Depth=1..8").unwrap();
    assert!(knob.integer);
    let truth = depth;
    let mut player = SimulatedPlayer::new(truth, POOL.to_vec(), 7);
    // Four targets need five depths each rated to ±25: more than the default budget.
    let settings = Settings {
        max_games: 10_000,
        ..Settings::default()
    };
    let cal = calibrate(&knob, &POOL, &settings, &mut player, |_| {}).unwrap();
    assert_eq!(cal.stop, Some(Stop::Converged));
    for p in &cal.points {
        assert_eq!(p.x, p.x.round(), "only whole depths are played");
    }
    for r in &cal.targets {
        assert_eq!(r.x, r.x.round());
        let t = true_knob(truth, &knob, r.target);
        assert_eq!(r.neighbours.len(), 2, "{r:?}");
        assert_eq!(r.neighbours[0].x, t.floor(), "target {}", r.target);
        assert_eq!(r.neighbours[1].x, t.ceil(), "target {}", r.target);
        for n in &r.neighbours {
            assert!(n.half_width <= 25.0);
            assert!(
                (n.elo - truth(n.x)).abs() <= 2.0 * n.half_width.max(12.5),
                "depth {}: curve {} truth {}",
                n.x,
                n.elo,
                truth(n.x)
            );
        }
    }
    let grid = independent_grid(truth, &knob, &POOL, 25.0, 0.95);
    eprintln!(
        "depth: adaptive {} games at {} depths; rating all {} depths to ±25 on their own: {} games",
        cal.games,
        cal.points.len(),
        grid.points,
        grid.games
    );
    assert!(cal.games < grid.games);
}

#[test]
fn unreachable_target_is_reported_not_chased() {
    // The bot never gets weaker than 1300: 1000 and 1200 are out of range.
    let knob = noise_knob();
    let mut player = SimulatedPlayer::new(|x: f64| 1700.0 - 200.0 * x, POOL.to_vec(), 3);
    let cal = calibrate(&knob, &POOL, &Settings::default(), &mut player, |_| {}).unwrap();
    assert_eq!(cal.stop, Some(Stop::Converged));
    assert!(!cal.targets[0].reachable && !cal.targets[1].reachable);
    assert_eq!(cal.targets[0].x, 2.0);
    assert!(cal.targets[2].reachable && cal.targets[3].reachable);
    assert!(cal.games < 3000);
}

#[test]
fn budget_stops_and_says_so() {
    let knob = noise_knob();
    let mut player = SimulatedPlayer::new(linear, POOL.to_vec(), 5);
    let settings = Settings {
        max_games: 60,
        ..Settings::default()
    };
    let cal = calibrate(&knob, &POOL, &settings, &mut player, |_| {}).unwrap();
    assert_eq!(cal.stop, Some(Stop::Budget));
    assert!(cal.games <= 60 + 2 * POOL.len() * settings.max_pairs as usize);
    assert!(cal.targets.iter().any(|r| !r.converged));
}

#[test]
fn every_step_but_the_last_is_reported_while_it_runs() {
    let knob = noise_knob();
    let settings = Settings {
        max_games: 60,
        ..Settings::default()
    };
    let mut seen: Vec<Calibration> = Vec::new();
    let mut player = SimulatedPlayer::new(linear, POOL.to_vec(), 5);
    let cal = calibrate(&knob, &POOL, &settings, &mut player, |c| {
        seen.push(c.clone())
    })
    .unwrap();
    assert_eq!(seen.len(), cal.steps.len() - 1);
    for (i, c) in seen.iter().enumerate() {
        assert!(!c.finished && c.stop.is_none());
        assert_eq!(c.steps[..], cal.steps[..=i]);
        assert_eq!(
            c.games,
            cal.steps[..=i].iter().map(|s| s.games).sum::<usize>()
        );
        assert_eq!(c.targets.len(), settings.targets.len());
        // Each step's point as soon as it is measured.
        let played = |x: f64| c.steps.iter().any(|s| s.x == x);
        assert!(c.points.iter().all(|p| played(p.x)));
        assert!(c.steps.iter().all(|s| c.points.iter().any(|p| p.x == s.x)));
    }
    assert!(cal.finished && cal.stop.is_some());
}

#[test]
fn the_curve_recovers_a_known_line_and_advantage() {
    let mut player = SimulatedPlayer::new(linear, POOL.to_vec(), 11);
    let mut obs = Vec::new();
    for (i, x) in [0.0, 0.5, 1.0, 1.5, 2.0].into_iter().enumerate() {
        obs.extend(player.play(i, x, 300).unwrap());
    }
    let curve = curve::fit_degree(&obs, &POOL, 0.0, 2.0, 1).unwrap();
    for x in [0.0, 1.0, 2.0] {
        assert!(
            (curve.elo(x) - linear(x)).abs() < 3.0 * curve.se(x) + 1.0,
            "x {x}: {} ± {} vs {}",
            curve.elo(x),
            curve.se(x),
            linear(x)
        );
    }
    assert!(
        (curve.advantage() - 40.0).abs() < 25.0,
        "{}",
        curve.advantage()
    );
    let inv = curve.inverse(1200.0, None);
    assert!(inv.reachable && (inv.x - 1.2).abs() < 0.05, "{inv:?}");
    assert!(!curve.inverse(2500.0, None).reachable);
}

#[test]
fn knob_parsing_and_formatting() {
    let k = Knob::parse("option.Noise=0.0..3.0").unwrap();
    assert_eq!(
        (k.name.as_str(), k.lo, k.hi, k.integer),
        ("Noise", 0.0, 3.0, false)
    );
    assert_eq!(k.format(0.84), "0.84");
    assert_eq!(k.format(1.0), "1");
    assert_eq!(k.format(0.123456), "0.123");
    assert_eq!(k.snap(3.5), 3.0);
    let d = Knob::parse("Depth=1..8").unwrap();
    assert!(d.integer);
    assert_eq!(d.format(3.4), "3");
    assert!(Knob::parse("option.Noise=2..1").is_err());
    assert!(Knob::parse("option.Noise=a..1").is_err());
    assert!(Knob::parse("option.Noise").is_err());
}

/// The estimate printed before a calibration starts is within a quarter of what the
/// calibration then plays, on the simulated players (float and integer knobs, two tolerances),
/// whatever the budget.
#[test]
fn the_expected_games_are_within_a_quarter_of_the_simulated_cost() {
    /// A case: its name, the true Elo curve, the knob and the tolerance.
    type Case = (&'static str, fn(f64) -> f64, &'static str, f64);
    let cases: [Case; 5] = [
        ("linear", linear, "option.Noise=0.0..2.0", 25.0),
        ("linear", linear, "option.Noise=0.0..2.0", 50.0),
        ("sigmoid", sigmoid, "option.Noise=0.0..2.0", 25.0),
        ("sigmoid", sigmoid, "option.Noise=0.0..2.0", 75.0),
        ("depth", depth, "option.Depth=1..8", 25.0),
    ];
    for (name, truth, knob, tolerance) in cases {
        let knob = Knob::parse(knob).unwrap();
        let settings = Settings {
            tolerance,
            max_games: 100_000,
            ..Settings::default()
        };
        let expected = expected_games(&settings, knob.integer) as f64;
        let mut player = SimulatedPlayer::new(truth, POOL.to_vec(), 1);
        let cal = calibrate(&knob, &POOL, &settings, &mut player, |_| {}).unwrap();
        assert_eq!(cal.stop, Some(Stop::Converged), "{name} ±{tolerance}");
        let ratio = cal.games as f64 / expected;
        eprintln!(
            "{name} ±{tolerance}: {} games played, {expected} expected",
            cal.games
        );
        assert!(
            (0.75..=1.25).contains(&ratio),
            "{name} ±{tolerance}: {} games played, {expected} expected",
            cal.games
        );
    }
    assert_eq!(
        expected_games(&Settings::default(), false),
        2968,
        "4 targets at ±25, 95 %"
    );
    let quick = Settings {
        tolerance: 75.0,
        max_games: 500,
        ..Settings::default()
    };
    assert_eq!(
        expected_games(&quick, false),
        330,
        "the quick flags of docs/calibrate.md"
    );
}
