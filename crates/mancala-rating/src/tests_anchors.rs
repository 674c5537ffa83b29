//! Tests of fixed and loose anchors ([`AnchorSet`]) and of the draw law's likelihood the fit
//! maximises with loose anchors. The match with Ordo's `-m` and `-y` is pinned in the arena's
//! `tests/ratings.rs` on the shared fixture.

use super::bootstrap::{bootstrap, BootstrapConfig};
use super::fit::{fit, probabilities, Anchor, AnchorSet, FitConfig, FitWarning, LooseAnchor};
use super::*;
use rand::SeedableRng;
use rand_chacha::ChaCha8Rng;

/// A round robin of `players` players with balanced colours; player i scores more against
/// higher-numbered players. Games come in colour-swapped pairs.
fn round_robin(players: usize) -> Vec<RatedGame> {
    let mut games = Vec::new();
    let mut pair = 0;
    for a in 0..players {
        for b in a + 1..players {
            for k in 0..40u64 {
                // a wins more the further apart they are; some draws.
                let r = (k * 7 + (b - a) as u64 * 3) % 10;
                let o = if r < 5 + (b - a) as u64 {
                    Outcome::Win
                } else if r < 7 + (b - a) as u64 {
                    Outcome::Draw
                } else {
                    Outcome::Loss
                };
                games.push(RatedGame {
                    pair,
                    first: a,
                    second: b,
                    outcome: o,
                });
                let o2 = if k % 3 == 0 { o.flipped() } else { o };
                games.push(RatedGame {
                    pair,
                    first: b,
                    second: a,
                    outcome: o2.flipped(),
                });
                pair += 1;
            }
        }
    }
    games
}

fn set(fixed: Vec<(usize, f64)>, loose: Vec<LooseAnchor>) -> FitConfig {
    FitConfig {
        anchor: Anchor::Set(AnchorSet {
            fixed,
            loose,
            mean: 1200.0,
        }),
        prior: 0.0,
        ..FitConfig::default()
    }
}

#[test]
fn one_fixed_anchor_in_a_set_is_the_single_anchor() {
    let t = GameTable::new(4, &round_robin(4)).unwrap();
    let single = fit(
        &t,
        &FitConfig {
            anchor: Anchor::Player(2, 1500.0),
            prior: 0.0,
            ..FitConfig::default()
        },
    )
    .unwrap();
    let in_set = fit(&t, &set(vec![(2, 1500.0)], vec![])).unwrap();
    for (a, b) in single.players.iter().zip(&in_set.players) {
        assert!((a.elo - b.elo).abs() < 1e-6, "{} vs {}", a.elo, b.elo);
        assert!((a.se - b.se).abs() < 1e-6, "{} vs {}", a.se, b.se);
    }
    assert_eq!(in_set.players[2].se, 0.0);
}

#[test]
fn several_fixed_anchors_hold_their_players() {
    let t = GameTable::new(4, &round_robin(4)).unwrap();
    // Anchors far from what the games say: the anchored players stay put and the free ones
    // settle between them.
    let r = fit(&t, &set(vec![(0, 1600.0), (3, 1000.0)], vec![])).unwrap();
    assert_eq!((r.players[0].elo, r.players[3].elo), (1600.0, 1000.0));
    assert_eq!((r.players[0].se, r.players[3].se), (0.0, 0.0));
    assert!(r.players[1].se > 0.0 && r.players[2].se > 0.0);
    assert!(r.players[1].elo < 1600.0 && r.players[2].elo > 1000.0);
    // Its free players meet their own expected-score equations (points = Σ E, the prior's
    // virtual draws aside): the maximum of `Q` with the anchors held.
    for i in [1, 2] {
        let expected: f64 = (0..4)
            .filter(|&j| j != i)
            .map(|j| {
                let n = 40.0;
                let first = elo_to_score(r.diff(i, j) + r.advantage.value);
                let second = 1.0 - elo_to_score(r.diff(j, i) + r.advantage.value);
                n * (first + second)
            })
            .sum();
        let points = t.totals()[i].points();
        assert!(
            (expected - points).abs() < 0.5,
            "player {i}: {expected} vs {points}"
        );
    }
    // The bootstrap keeps the fixed players where they are.
    let boot = bootstrap(
        &t,
        &r,
        &set(vec![(0, 1600.0), (3, 1000.0)], vec![]),
        &BootstrapConfig {
            samples: 20,
            level: 0.95,
            threads: 1,
        },
        &mut ChaCha8Rng::seed_from_u64(3),
    )
    .unwrap();
    assert!(
        (boot.ratings[0].low - 1600.0).abs() < 1e-9 && (boot.ratings[0].high - 1600.0).abs() < 1e-9
    );
}

#[test]
fn loose_anchors_interpolate_between_free_and_fixed() {
    let t = GameTable::new(4, &round_robin(4)).unwrap();
    let free = fit(
        &t,
        &FitConfig {
            prior: 0.0,
            ..FitConfig::default()
        },
    )
    .unwrap();
    let loose = |sd: f64| {
        fit(
            &t,
            &set(
                vec![],
                vec![LooseAnchor {
                    player: 0,
                    elo: 2000.0,
                    sd,
                }],
            ),
        )
        .unwrap()
    };
    // A vague anchor: the gaps are the games' (the draw law's fit), player 0 at its anchor.
    let vague = loose(1e5);
    assert!(
        (vague.players[0].elo - 2000.0).abs() < 0.01,
        "{}",
        vague.players[0].elo
    );
    for i in 1..4 {
        assert!((vague.diff(0, i) - free.diff(0, i)).abs() < 3.0, "{i}");
    }
    // A sharp one: player 0 is held (almost) as by a fixed anchor.
    let sharp = loose(1e-3);
    let fixed = fit(&t, &set(vec![(0, 2000.0)], vec![])).unwrap();
    assert!((sharp.players[0].elo - 2000.0).abs() < 1e-3);
    assert!(sharp.players[0].se < 0.01);
    assert!(fixed.players[1].se > 0.0);
    // Two loose anchors that disagree with the games: the posterior lies between.
    let two = fit(
        &t,
        &set(
            vec![],
            vec![
                LooseAnchor {
                    player: 0,
                    elo: 1200.0,
                    sd: 50.0,
                },
                LooseAnchor {
                    player: 3,
                    elo: 1200.0,
                    sd: 50.0,
                },
            ],
        ),
    )
    .unwrap();
    let gap = two.diff(0, 3);
    assert!(
        gap > 0.0 && gap < free.diff(0, 3),
        "{gap} vs {}",
        free.diff(0, 3)
    );
    assert!(two.players.iter().all(|p| p.se > 0.0));
    assert!(two.draw.nu > 0.0);
}

#[test]
fn a_group_without_anchor_is_put_at_the_mean_with_a_warning() {
    let mut games = round_robin(2);
    // Players 2 and 3 only play each other.
    for g in round_robin(2) {
        games.push(RatedGame {
            pair: g.pair + 1000,
            first: g.first + 2,
            second: g.second + 2,
            ..g
        });
    }
    let t = GameTable::new(4, &games).unwrap();
    let r = fit(&t, &set(vec![(0, 1500.0)], vec![])).unwrap();
    assert_eq!(r.players[0].elo, 1500.0);
    assert!((r.players[2].elo + r.players[3].elo - 2400.0).abs() < 1e-6);
    assert!(r.warnings.contains(&FitWarning::Unanchored {
        components: vec![vec![2, 3]],
        mean: 1200.0
    }));
    let names: Vec<String> = ["a", "b", "c", "d"].map(String::from).to_vec();
    assert_eq!(r.anchor.text(&names), "fixed a = 1500",);
    assert_eq!(
        Anchor::Set(AnchorSet {
            fixed: vec![(0, 1500.0)],
            loose: vec![LooseAnchor {
                player: 1,
                elo: 1400.0,
                sd: 60.0
            }],
            mean: 1200.0
        })
        .text(&names),
        "fixed a = 1500; loose b = 1400 ± 60"
    );
}

#[test]
fn anchor_sets_are_validated() {
    let t = GameTable::new(2, &round_robin(2)).unwrap();
    let bad = |c: FitConfig| matches!(fit(&t, &c), Err(RatingError::InvalidConfig(_)));
    assert!(bad(set(vec![(0, 1.0), (0, 2.0)], vec![])));
    assert!(bad(set(
        vec![(0, 1.0)],
        vec![LooseAnchor {
            player: 0,
            elo: 1.0,
            sd: 1.0
        }]
    )));
    assert!(bad(set(
        vec![],
        vec![LooseAnchor {
            player: 1,
            elo: 1.0,
            sd: 0.0
        }]
    )));
    assert!(bad(set(vec![(7, 1.0)], vec![])));
    assert!(bad(set(vec![(0, f64::NAN)], vec![])));
}

#[test]
fn the_draw_law_matches_ordos_formula() {
    // Ordo 1.2.6 `xpect.c` `draw_rate_fperf_calc`: pd = (√(1 − a·c) − 1)/a with
    // a = (1 − 2·d0)/d0², c = 4(p² − p), d0 the draw rate between equals = ν/(2 + ν).
    for d0 in [0.0443, 0.2, 0.3357] {
        let nu = 2.0 * d0 / (1.0 - d0);
        for elo in [-600.0, -100.0, 0.0, 54.0, 300.0, 800.0] {
            let p = elo_to_score(elo);
            let a = (1.0 - 2.0 * d0) / (d0 * d0);
            let c = 4.0 * (p * p - p);
            let ordo = ((1.0 - a * c).sqrt() - 1.0) / a;
            let [w, d, l] = probabilities(elo, nu);
            assert!((d - ordo).abs() < 1e-12, "d0 {d0}, {elo}: {d} vs {ordo}");
            assert!((w - (p - ordo / 2.0)).abs() < 1e-12 && (w + d + l - 1.0).abs() < 1e-12);
        }
    }
}
