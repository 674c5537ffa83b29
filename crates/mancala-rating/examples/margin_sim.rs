//! Exploration of the margin SPRT's settings on recorded pairs (`FILE`: one pair a line, the
//! test bot's margin moving first and moving second), resampled as `margin_sprt_bench` does.
//!
//! `cargo run --release -p mancala-rating --example margin_sim -- FILE ELO0 ELO1 RUNS SEED [symmetric]`
//! (`SEQ=DIR margin_sim ELO0 ELO1`: replays recorded runs, see [`replay`]).
//!
//! `CLIP` (default 16), `LINK` (normal, kurtosis), `MODELS=both` adds the pentanomial test on
//! the same pairs; `TRACE=PATH` writes each run's decision and pairs instead. `SEQ=DIR` replays
//! recorded runs instead (see [`replay`]).

use mancala_rating::margin::sim::{many, run, wilson, Resample, Test};
use mancala_rating::margin::{EloKind, LinkShape, MarginPair, MarginSprt};
use mancala_rating::sprt::{Sprt, SprtModel};
use rand::SeedableRng;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if let Ok(dir) = std::env::var("SEQ") {
        replay(&dir, &args);
        return;
    }
    let text = std::fs::read_to_string(&args[0]).expect("FILE");
    let elo0: f64 = args[1].parse().unwrap();
    let elo1: f64 = args[2].parse().unwrap();
    let runs: u64 = args[3].parse().unwrap();
    let seed: u64 = args[4].parse().unwrap();
    let symmetric = args.get(5).is_some_and(|a| a == "symmetric");
    let mut pairs: Vec<MarginPair> = text
        .lines()
        .filter_map(|l| {
            let mut w = l.split_whitespace().map(|x| x.parse::<f64>());
            Some(MarginPair {
                first: w.next()?.ok()?,
                second: w.next()?.ok()?,
            })
        })
        .collect();
    if symmetric {
        let mirrored: Vec<MarginPair> = pairs
            .iter()
            .map(|p| MarginPair {
                first: -p.second,
                second: -p.first,
            })
            .collect();
        pairs.extend(mirrored);
    }
    let env = |k: &str| std::env::var(k).ok();
    let clip: f64 = env("CLIP").map_or(16.0, |v| v.parse().unwrap());
    let shape = match env("LINK").as_deref() {
        Some("kurtosis") => LinkShape::Kurtosis,
        _ => LinkShape::Normal,
    };
    let mut tests = vec![(
        "margin",
        Test::Margin(
            MarginSprt::new(elo0, elo1, 0.05, 0.05, EloKind::Logistic, 48.0)
                .unwrap()
                .with_clip(clip)
                .with_shape(shape),
        ),
    )];
    if env("MODELS").is_some_and(|m| m == "both") {
        tests.push((
            "pentanomial",
            Test::Pentanomial(Sprt::new(elo0, elo1, 0.05, 0.05, SprtModel::Logistic).unwrap()),
        ));
    }
    println!(
        "{} pairs, clip {clip}, link {shape:?}, {runs} runs, seed {seed}",
        pairs.len()
    );
    for (name, test) in tests {
        let mut source = Resample {
            pairs: pairs.clone(),
        };
        if let Some(path) = env("TRACE") {
            // Each run's decision and pairs, for the stopping times of the wrong decisions.
            let mut out = String::new();
            for k in 0..runs {
                let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed.wrapping_add(k));
                let r = run(&test, &mut source, 20_000, &mut rng);
                out.push_str(&format!("{name} {k} {:?} {}\n", r.result, r.pairs));
            }
            std::fs::write(format!("{path}.{name}"), out).unwrap();
            continue;
        }
        let s = many(&test, &mut source, runs, 20_000, seed);
        let rate = |k: u64| {
            let (lo, hi) = wilson(k, s.runs);
            format!("{:.4} [{:.3}, {:.3}]", k as f64 / s.runs as f64, lo, hi)
        };
        println!(
            "{name:<12} H0 {}  H1 {}  none {}  mean pairs {:.1}  median {:.0}",
            rate(s.h0),
            rate(s.h1),
            s.undecided,
            s.mean_pairs(),
            s.median_pairs()
        );
    }
}

/// `margin_sim ELO0 ELO1` with `SEQ=DIR`: each file of DIR is one recorded run's pairs in
/// playing order (a run of `arena sprt`, whose pairs for a seed are the same whatever the
/// model); the margin test is replayed over each, without resampling, and its decision and
/// pairs printed, `Out` where the record ends first.
fn replay(dir: &str, args: &[String]) {
    let elo0: f64 = args[0].parse().unwrap();
    let elo1: f64 = args[1].parse().unwrap();
    let env = |k: &str| std::env::var(k).ok();
    let clip: f64 = env("CLIP").map_or(16.0, |v| v.parse().unwrap());
    let shape = match env("LINK").as_deref() {
        Some("kurtosis") => LinkShape::Kurtosis,
        _ => LinkShape::Normal,
    };
    let test = MarginSprt::new(elo0, elo1, 0.05, 0.05, EloKind::Logistic, 48.0)
        .unwrap()
        .with_clip(clip)
        .with_shape(shape);
    let mut names: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    names.sort();
    for path in names {
        let text = std::fs::read_to_string(&path).unwrap();
        let mut tally = test.tally();
        let mut verdict = ("Out".to_string(), 0u64);
        for line in text.lines() {
            let mut w = line.split_whitespace().map(|x| x.parse::<f64>().unwrap());
            let (first, second) = (w.next().unwrap(), w.next().unwrap());
            tally.add(MarginPair { first, second });
            let s = test.status(&tally).status.result;
            if s != mancala_rating::sprt::SprtResult::Continue {
                verdict = (format!("{s:?}"), tally.pairs());
                break;
            }
            verdict.1 = tally.pairs();
        }
        println!("{} {} {}", path.display(), verdict.0, verdict.1);
    }
}
