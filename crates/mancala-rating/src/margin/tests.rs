use super::sim::{many, run, NormalPairs, PairSource, Resample, Test};
use super::*;
use crate::sprt::{Sprt, SprtModel};
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

fn tally(pairs: &[(f64, f64)]) -> MarginTally {
    let mut t = MarginTally::default();
    for &(first, second) in pairs {
        t.add(MarginPair { first, second });
    }
    t
}

#[test]
fn the_link_is_fitted_as_written() {
    // By hand: x₁ = 10, 2; x₂ = −4, 0 → a = mean((x₁ − x₂)/2) = (7 + 1)/2 = 4, δ = mean of the
    // pair means = (3 + 1)/2 = 2; residuals x₁ − 6 = 4, −4 and x₂ + 2 = −2, 2: Σ = 40 over
    // 2N − 2 = 2, plus 2²/12.
    let t = tally(&[(10.0, -4.0), (2.0, 0.0)]);
    let link = t.link().unwrap();
    assert!((link.advantage - 4.0).abs() < 1e-12);
    assert!((link.delta - 2.0).abs() < 1e-12);
    assert!(
        (link.sd * link.sd - (20.0 + 1.0 / 3.0)).abs() < 1e-9,
        "{}",
        link.sd
    );
    assert_eq!(link.step, 2.0);
    // s(δ) = ½[Φ((δ + a)/σ) + Φ((δ − a)/σ)] and its inverse.
    let s = 0.5 * (normal_cdf(6.0 / link.sd) + normal_cdf(-2.0 / link.sd));
    assert!((link.score(2.0) - s).abs() < 1e-12);
    assert!((link.delta_for_score(s) - 2.0).abs() < 1e-9);
    assert!((link.score(0.0) - 0.5).abs() < 1e-12, "symmetric at δ = 0");
    // Odd and even margins together: a lattice of step 1.
    assert_eq!(tally(&[(3.0, -4.0), (2.0, 0.0)]).step(), 1.0);
    assert!(
        tally(&[(3.0, -4.0)]).link().is_none(),
        "one pair is no spread"
    );
}

#[test]
fn the_slope_is_the_derivative_of_the_score() {
    let link = tally(&[(10.0, -4.0), (2.0, 0.0), (-6.0, 8.0)])
        .link()
        .unwrap();
    for d in [-3.0, 0.0, 1.5, 7.0] {
        let h = 1e-5;
        let numeric = (link.score(d + h) - link.score(d - h)) / (2.0 * h);
        assert!((numeric - link.slope(d)).abs() < 1e-7, "{d}");
    }
    // Elo per seed at 0: dElo/ds · ds/dδ.
    let h = 1e-4;
    let numeric = (link.elo(h) - link.elo(-h)) / (2.0 * h);
    assert!((numeric - link.elo_per_seed()).abs() < 1e-4 * numeric.abs());
}

#[test]
fn the_llr_of_means_agrees_with_the_brownian_approximation() {
    // Many pairs: the generalized LLR is close to N(m1 − m0)(2m̄ − m0 − m1)/(2σ²).
    let mut source = NormalPairs {
        delta: 0.6,
        advantage: 1.0,
        opening_sd: 6.0,
        game_sd: 11.0,
        max: 48.0,
    };
    let mut rng = ChaCha8Rng::seed_from_u64(3);
    let mut t = MarginTally::default();
    for _ in 0..4000 {
        t.add(source.pair(&mut rng));
    }
    let (m0, m1) = (0.0, 2.0);
    let n = t.pairs() as f64;
    let brownian = n * (m1 - m0) * (2.0 * t.mean_sum() - m0 - m1) / (2.0 * t.var_sum());
    let exact = llr_means(t.sums(), 96.0, m0, m1);
    assert!(
        (exact - brownian).abs() < 0.03 * brownian.abs().max(1.0),
        "{exact} vs {brownian}"
    );
    // The regularised extremes make every mean reachable: a run of zeros rejects a mean of 2.
    let zeros = tally(&[(0.0, 0.0); 50]);
    assert!(llr_means(zeros.sums(), 96.0, 0.0, 2.0) < -1.0);
    assert!(llr_means(zeros.sums(), 96.0, 0.0, 2.0).is_finite());
}

#[test]
fn hypotheses_in_elo_become_mean_sums_through_the_link() {
    let t = tally(&[(10.0, -4.0), (2.0, 0.0), (-6.0, 8.0), (4.0, -2.0)]);
    let test = MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Logistic, 48.0).unwrap();
    let (m0, m1) = test.sums(&t).unwrap();
    let link = t.link().unwrap();
    assert!(
        m0.abs() < 1e-9,
        "Elo 0 is a mean margin of 0 by symmetry: {m0}"
    );
    assert!((link.score(m1 / 2.0) - elo_to_score(20.0)).abs() < 1e-9);
    // Normalized Elo: s = ½ + nElo·√2·σ_pair/(800/ln 10).
    let normalized = MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Normalized, 48.0).unwrap();
    let (_, n1) = normalized.sums(&t).unwrap();
    let s = 0.5 + 20.0 / NELO_PER_T * std::f64::consts::SQRT_2 * t.pair_score_sd();
    assert!((link.score(n1 / 2.0) - s).abs() < 1e-9);
    assert!(MarginSprt::new(5.0, 0.0, 0.05, 0.05, EloKind::Logistic, 48.0).is_err());
}

#[test]
fn the_check_passes_where_the_link_holds_and_fails_for_a_bot_that_plays_safe() {
    let mut rng = ChaCha8Rng::seed_from_u64(11);
    let mut normal = NormalPairs {
        delta: 1.0,
        advantage: 2.0,
        opening_sd: 5.0,
        game_sd: 10.0,
        max: 48.0,
    };
    let mut t = MarginTally::default();
    for _ in 0..3000 {
        t.add(normal.pair(&mut rng));
    }
    let c = check(&t).unwrap();
    assert!(c.fits(), "{}", c.describe());
    // Plays for safety: wins by 2 four times in five, loses by 12 otherwise. Mean margin −0.8
    // a game, score 80 %.
    let safe = Resample {
        pairs: vec![
            MarginPair {
                first: 2.0,
                second: 2.0,
            },
            MarginPair {
                first: 2.0,
                second: 2.0,
            },
            MarginPair {
                first: 2.0,
                second: -12.0,
            },
            MarginPair {
                first: -12.0,
                second: 2.0,
            },
            MarginPair {
                first: 2.0,
                second: 2.0,
            },
        ],
    };
    let mut source = safe;
    let mut t = MarginTally::default();
    for _ in 0..400 {
        t.add(source.pair(&mut rng));
    }
    let c = check(&t).unwrap();
    assert!(!c.fits(), "{}", c.describe());
    assert!(c.describe().contains("DOES NOT FIT"));
}

#[test]
fn the_estimate_holds_the_truth_where_the_link_holds() {
    // δ = 1 seed, σ² = 10² + 5² (+ the lattice): the true Elo is the link's at δ.
    let mut rng = ChaCha8Rng::seed_from_u64(5);
    let mut source = NormalPairs {
        delta: 1.0,
        advantage: 0.0,
        opening_sd: 5.0,
        game_sd: 10.0,
        max: 60.0,
    };
    let sd = (125.0f64 + 1.0 / 3.0).sqrt();
    let truth = crate::score_to_elo(normal_cdf(1.0 / sd));
    let mut covered = 0;
    for _ in 0..200 {
        let mut t = MarginTally::default();
        for _ in 0..300 {
            t.add(source.pair(&mut rng));
        }
        let e = estimate(&t, 0.95).unwrap();
        covered += usize::from(e.low.unwrap() <= truth && truth <= e.high.unwrap());
    }
    assert!((180..=198).contains(&covered), "{covered} of 200");
}

#[test]
fn error_rates_in_simulation_are_at_most_nominal() {
    // The link's own model (dev-profile size; the benchmark with real games' margins is in
    // docs/statistics.md §5a): at Elo 0 the test must accept H1 at most α of the time, at
    // Elo 20 accept H0 at most β of the time (within 2.5 binomial standard errors at 300 runs).
    let game_sd = 11.0;
    let sd = (game_sd * game_sd + 9.0 + 1.0 / 3.0f64).sqrt();
    let link = Link {
        advantage: 0.0,
        delta: 0.0,
        sd,
        kurtosis: 0.0,
        step: 2.0,
        clip: f64::INFINITY,
        pairs: 0,
    };
    let delta20 = link.delta_for_score(elo_to_score(20.0));
    let margin =
        Test::Margin(MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Logistic, 48.0).unwrap());
    let penta = Test::Pentanomial(Sprt::new(0.0, 20.0, 0.05, 0.05, SprtModel::Logistic).unwrap());
    let runs = 300;
    let limit = 0.05 + 2.5 * (0.05f64 * 0.95 / runs as f64).sqrt();
    let at = |delta: f64, test: &Test| {
        let mut source = NormalPairs {
            delta,
            advantage: 0.0,
            opening_sd: 3.0,
            game_sd,
            max: 48.0,
        };
        many(test, &mut source, runs, 20_000, 77)
    };
    let h0 = at(0.0, &margin);
    let h1 = at(delta20, &margin);
    assert!((h0.h1 as f64 / runs as f64) <= limit, "α {h0:?}");
    // The kurtosis-shaped link on the same identical bots: its hypotheses are other mean
    // sums, its α the same.
    let shaped = Test::Margin(
        MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Logistic, 48.0)
            .unwrap()
            .with_shape(LinkShape::Kurtosis),
    );
    let shaped0 = at(0.0, &shaped);
    assert!((shaped0.h1 as f64 / runs as f64) <= limit, "α {shaped0:?}");
    assert!((h1.h0 as f64 / runs as f64) <= limit, "β {:?}", h1.h0);
    let penta0 = at(0.0, &penta);
    // Margins on this model need about 2/π of the pentanomial's pairs (the sign test's
    // efficiency against the mean's for a normal shape): well under the pentanomial's.
    assert!(
        h0.mean_pairs() < 0.8 * penta0.mean_pairs(),
        "{} vs {}",
        h0.mean_pairs(),
        penta0.mean_pairs()
    );
}

#[test]
fn a_run_stops_at_the_first_pair_past_a_bound() {
    let mut source = NormalPairs {
        delta: 5.0,
        advantage: 0.0,
        opening_sd: 0.0,
        game_sd: 8.0,
        max: 48.0,
    };
    let test =
        Test::Margin(MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Logistic, 48.0).unwrap());
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let r = run(&test, &mut source, 10_000, &mut rng);
    assert_eq!(r.result, SprtResult::AcceptH1);
    // Replaying the same pairs: the LLR first passes the bound at exactly that pair.
    let mut rng = ChaCha8Rng::seed_from_u64(1);
    let mut t = MarginTally::default();
    let sprt = MarginSprt::new(0.0, 20.0, 0.05, 0.05, EloKind::Logistic, 48.0).unwrap();
    for k in 1..=r.pairs {
        t.add(source.pair(&mut rng));
        let s = sprt.status(&t).status;
        assert_eq!(s.result != SprtResult::Continue, k == r.pairs, "pair {k}");
    }
}

#[test]
fn the_kurtosis_link_measures_the_residuals_fourth_moment() {
    // By hand from the residuals (not the power sums): margins around their colour's mean,
    // pooled, the lattice's uniform on (−1, 1) added: var = Σr²/(2N − 2) + 4/12 and
    // m₄ = Σr⁴/(2N) + 6·(Σr²/(2N − 2))·4/12 + 16/80.
    let pairs = [
        (10.0, -4.0),
        (2.0, 0.0),
        (-6.0, 8.0),
        (4.0, -2.0),
        (0.0, 0.0),
        (2.0, -2.0),
        (30.0, 2.0),
        (0.0, -24.0),
    ];
    let n = pairs.len() as f64;
    let mean1 = pairs.iter().map(|p| p.0).sum::<f64>() / n;
    let mean2 = pairs.iter().map(|p| p.1).sum::<f64>() / n;
    let resid: Vec<f64> = pairs
        .iter()
        .flat_map(|p| [p.0 - mean1, p.1 - mean2])
        .collect();
    let m2 = resid.iter().map(|r| r * r).sum::<f64>() / (2.0 * n - 2.0);
    let m4 = resid.iter().map(|r| r.powi(4)).sum::<f64>() / (2.0 * n);
    let var = m2 + 4.0 / 12.0;
    let kurtosis = (m4 + 6.0 * m2 * 4.0 / 12.0 + 16.0 / 80.0) / (var * var) - 3.0;
    assert!(kurtosis > 0.0 && kurtosis < KURTOSIS_RANGE.1, "{kurtosis}");
    let mut t = MarginTally::new(f64::INFINITY).with_shape(LinkShape::Kurtosis);
    for &(first, second) in &pairs {
        t.add(MarginPair { first, second });
    }
    let link = t.link().unwrap();
    assert!(
        (link.kurtosis - kurtosis).abs() < 1e-9,
        "{} vs {kurtosis}",
        link.kurtosis
    );
    assert!((link.sd - var.sqrt()).abs() < 1e-12);
    // The normal shape measures none; a shape outside the range is clamped to it.
    assert_eq!(tally(&pairs).link().unwrap().kurtosis, 0.0);
    let mut flat = MarginTally::new(f64::INFINITY).with_shape(LinkShape::Kurtosis);
    for &(first, second) in &[(20.0, -20.0), (-20.0, 20.0), (20.0, 20.0), (-20.0, -20.0)] {
        flat.add(MarginPair { first, second });
    }
    assert_eq!(flat.link().unwrap().kurtosis, KURTOSIS_RANGE.0);
}

#[test]
fn the_kurtosis_link_is_the_gram_charlier_density_integrated() {
    // Score, slope and clipped mean against a numerical integral of the density
    // φ(z)(1 + κ/24·(z⁴ − 6z² + 3)) written out here.
    for kurtosis in [-0.5, 0.0, 1.2] {
        let link = Link {
            advantage: 1.5,
            delta: 0.0,
            sd: 11.0,
            kurtosis,
            step: 2.0,
            clip: 16.0,
            pairs: 0,
        };
        let density = |z: f64| {
            (-0.5 * z * z).exp() / (2.0 * std::f64::consts::PI).sqrt()
                * (1.0 + kurtosis / 24.0 * (z.powi(4) - 6.0 * z * z + 3.0))
        };
        // Midpoint rule over ±12 spreads.
        let integral = |f: &dyn Fn(f64) -> f64| {
            let k = 240_000;
            (0..k)
                .map(|i| {
                    let z = -12.0 + 24.0 * (i as f64 + 0.5) / k as f64;
                    f(z) * density(z) * 24.0 / k as f64
                })
                .sum::<f64>()
        };
        for delta in [-4.0, 0.0, 2.5] {
            let mu = |sign: f64| delta + sign * link.advantage;
            let score = 0.5
                * (integral(&|z| f64::from(mu(1.0) + 11.0 * z > 0.0))
                    + integral(&|z| f64::from(mu(-1.0) + 11.0 * z > 0.0)));
            assert!(
                (link.score(delta) - score).abs() < 1e-4,
                "κ {kurtosis} δ {delta}"
            );
            let sum = integral(&|z| (mu(1.0) + 11.0 * z).clamp(-16.0, 16.0))
                + integral(&|z| (mu(-1.0) + 11.0 * z).clamp(-16.0, 16.0));
            assert!(
                (link.pair_sum(delta) - sum).abs() < 1e-4,
                "κ {kurtosis} δ {delta}"
            );
            let h = 1e-5;
            let numeric = (link.score(delta + h) - link.score(delta - h)) / (2.0 * h);
            assert!(
                (numeric - link.slope(delta)).abs() < 1e-7,
                "κ {kurtosis} δ {delta}"
            );
        }
    }
}
