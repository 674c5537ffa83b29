use super::sim::{problem, tune, Variant};
use super::*;

#[test]
fn parses_fishtest_and_openbench_lines() {
    let p = Param::parse_line("EvalStore, 4, 0, 16, 1, 0.002").unwrap();
    assert_eq!(
        p,
        Param {
            name: "EvalStore".into(),
            start: 4.0,
            min: 0.0,
            max: 16.0,
            c_end: 1.0,
            r_end: 0.002,
            integer: true
        }
    );
    assert!(
        !Param::parse_line("X, 0.5, 0, 2, 0.1, 0.002")
            .unwrap()
            .integer
    );
    assert!(
        Param::parse_line("X, int, 0.5, 0, 2, 0.1, 0.002")
            .unwrap()
            .integer
    );
    let back = Param::parse_line(&p.to_line()).unwrap();
    assert_eq!(back, p);
    for bad in [
        "X, 1, 2, 3",
        "X, 5, 0, 4, 1, 0.002",
        "X, 1, 0, 4, 0, 0.002",
        "X, 1, 0, 4, 1, -1",
        "X, one, 0, 4, 1, 0.002",
        "X, double, 1, 0, 4, 1, 0.002",
        "A B, 1, 0, 4, 1, 0.002",
        "X, 1, 4, 0, 1, 0.002",
        "X, nan, 0, 4, 1, 0.002",
    ] {
        assert!(Param::parse_line(bad).is_err(), "{bad}");
    }
    let text = "# comment\nA, 1, 0, 4, 1, 0.002\n\nB, 1, 0, 4, 1, 0.002 # tail\n";
    assert_eq!(parse_params(text).unwrap().len(), 2);
    assert!(parse_params("A, 1, 0, 4, 1, 0.002\na, 1, 0, 4, 1, 0.002").is_err());
    assert!(parse_params("# nothing").is_err());
}

/// The schedule reaches c_end and r_end at the last pair, and its first values follow
/// fishtest's formulas, computed by hand here for N = 1000, A = 100, c_end 2, r_end 0.002:
/// c = 2·1000^0.101 = 4.0182..., a = 0.002·4·1100^0.602 = 0.5420...,
/// c_0 = c, a_0 = a / 101^0.602, R_0 = a_0 / c_0².
#[test]
fn schedule_matches_fishtest() {
    let p = Param::parse_line("X, 0, -10, 10, 2, 0.002").unwrap();
    let s = Schedule::fishtest(1000);
    let c = 2.0 * 1000f64.powf(0.101);
    let a = 0.002 * 4.0 * 1100f64.powf(0.602);
    assert!((s.c_k(&p, 0) - c).abs() < 1e-12);
    assert!((c - 4.0182).abs() < 1e-3);
    assert!((a - 0.5420).abs() < 1e-3);
    let r0 = a / 101f64.powf(0.602) / (c * c);
    assert!((s.r_k(&p, 0) - r0).abs() < 1e-12);
    assert!((s.c_k(&p, 999) - 2.0).abs() < 1e-12);
    assert!((s.r_k(&p, 999) - 0.002).abs() < 1e-12);
    // c_k decreases; R_k too once k is well past A (early on it can grow: a_k falls slower
    // than c_k²).
    assert!(s.c_k(&p, 10) < s.c_k(&p, 9));
    assert!(s.r_k(&p, 900) < s.r_k(&p, 899));
}

#[test]
fn perturbation_is_a_function_of_the_generator_and_clipped() {
    let params = parse_params("A, 0, 0, 10, 3, 0.002\nB, 0.5, 0, 1, 0.2, 0.002").unwrap();
    let spsa = Spsa::new(params, Schedule::fishtest(100));
    let a = spsa.perturb(&mut sim::iteration_rng(7, 3));
    let b = spsa.perturb(&mut sim::iteration_rng(7, 3));
    assert_eq!(a, b);
    for (i, p) in spsa.params.iter().enumerate() {
        assert!(a.plus[i] >= p.min && a.plus[i] <= p.max);
        assert!(a.minus[i] >= p.min && a.minus[i] <= p.max);
        assert_eq!(a.delta[i].abs(), 1);
    }
    // A starts at its minimum: one side is clipped to 0, and A is a whole number.
    assert!(a.plus[0] == 0.0 || a.minus[0] == 0.0);
    assert_eq!(a.plus[0].fract(), 0.0);
}

#[test]
fn stochastic_rounding_keeps_the_mean() {
    let mut rng = sim::iteration_rng(1, 1);
    let n = 20_000;
    let mean: f64 = (0..n).map(|_| stochastic_round(2.3, &mut rng)).sum::<f64>() / n as f64;
    assert!((mean - 2.3).abs() < 0.02, "{mean}");
}

#[test]
fn update_moves_toward_the_winner_and_counts_pairs() {
    let params = parse_params("A, 5, 0, 10, 1, 0.01").unwrap();
    let mut spsa = Spsa::new(params, Schedule::fishtest(10));
    let pert = spsa.perturb(&mut sim::iteration_rng(1, 0));
    spsa.update(&pert, 2, 3.0);
    let moved = spsa.theta[0] - 5.0;
    assert_eq!(moved.signum(), f64::from(pert.delta[0]));
    assert!((moved.abs() - pert.r[0] * pert.c[0] * 3.0).abs() < 1e-12);
    assert_eq!((spsa.pairs, spsa.iterations), (2, 1));
}

#[test]
fn tail_mean_averages_the_end() {
    let t = vec![vec![0.0], vec![2.0], vec![4.0], vec![6.0]];
    assert_eq!(tail_mean(&t, 0.0), Some(vec![6.0]));
    assert_eq!(tail_mean(&t, 0.5), Some(vec![5.0]));
    assert_eq!(tail_mean(&t, 1.0), Some(vec![3.0]));
    assert_eq!(tail_mean(&[], 0.5), None);
}

/// A small simulated tune gets most of the way from a start 17 Elo below the optimum.
#[test]
fn simulated_tune_gains_most_of_the_elo() {
    let (bot, params) = problem(2, 0.03);
    let start = -bot.elo(&[50.0, 50.0]);
    assert!((start - 17.0).abs() < 0.01, "{start}");
    let end = tune(&bot, &params, 8000, Variant::FISHTEST, 5);
    let arena = tune(&bot, &params, 8000, Variant::ARENA, 5);
    assert!(arena.deficit < 5.0, "{arena:?}");
    assert_eq!(end.pairs, 8000);
    assert!(end.deficit < 5.0, "{end:?}");
}

#[test]
fn moved_counts_final_perturbations_from_the_start() {
    let p = Param::parse_line("EvalStore, 4, 0, 16, 2, 0.03").unwrap();
    assert_eq!(p.moved(4.0), 0.0);
    assert_eq!(p.moved(9.0), 2.5);
    assert_eq!(p.moved(0.0), -2.0);
}
