//! The margin SPRT against the pentanomial one, simulated on margins from real games:
//! `docs/statistics.md` §5a's table.
//!
//! `cargo run --release --example margin_sprt_bench -- DIR ELO0 ELO1 [RUNS] [SEED] [symmetric]`
//!
//! `DIR` is a results folder of colour-swapped pairs between `test` and `base` (read through
//! `run_folder::margins`, as `arena sprt --model margin` reads its games). Each run draws pairs
//! with replacement from the folder's pairs until the test decides (at most 20,000 pairs); the
//! margin test and the pentanomial (logistic) test of run `k` are seeded alike, so they see the
//! same pairs in the same order. With `symmetric`, every pair is also taken from the other bot's
//! view, so the pool's truth is exactly 0 (for two copies of one bot). Printed: the pool's own
//! truth (its score's Elo, which the resampled runs play at), the link fitted on the whole pool
//! with its check, then per model the runs, how often each hypothesis was accepted (with
//! Wilson's 95 % interval) and the mean and median pairs. `CLIP=W` clips each game's margin to
//! ±W seeds (default a third of the seeds, as `arena sprt`; `CLIP=inf`: not clipped).

use std::path::Path;

use anyhow::{Context, Result};

use mancala_arena::rating::margin::sim::{many, wilson, Resample, Summary, Test};
use mancala_arena::rating::margin::{
    check, EloKind, LinkShape, MarginPair, MarginSprt, MarginTally,
};
use mancala_arena::rating::score_to_elo;
use mancala_arena::rating::sprt::{Sprt, SprtModel};
use mancala_arena::run_folder::games::read_games;
use mancala_arena::run_folder::margins::{max_margin, pairs_of};

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let dir = Path::new(args.first().context("DIR")?);
    let elo0: f64 = args.get(1).context("ELO0")?.parse()?;
    let elo1: f64 = args.get(2).context("ELO1")?.parse()?;
    let runs: u64 = args.get(3).map_or(Ok(1000), |a| a.parse())?;
    let seed: u64 = args.get(4).map_or(Ok(1), |a| a.parse())?;
    let symmetric = args.get(5).is_some_and(|a| a == "symmetric");
    let rows = read_games(dir).with_context(|| dir.display().to_string())?;
    let max = rows.first().map_or(48.0, max_margin);
    // Each game's margin clipped as `arena sprt --model margin` clips it (`CLIP=inf`: none).
    let clip: f64 = std::env::var("CLIP").map_or(Ok(max / 3.0), |v| v.parse())?;
    let mut pairs = pairs_of(&rows, "test")?;
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
    // The link's shape (`LINK=normal` or `kurtosis`, default the test's).
    let shape = match std::env::var("LINK").as_deref() {
        Ok("normal") => LinkShape::Normal,
        Ok("kurtosis") => LinkShape::Kurtosis,
        Ok(other) => anyhow::bail!("LINK={other}: normal or kurtosis"),
        Err(_) => LinkShape::default(),
    };
    // `MODELS=margin` runs the margin test only (the pentanomial's runs do not change with it).
    let only_margin = std::env::var("MODELS").is_ok_and(|m| m == "margin");
    let mut pool = MarginTally::new(clip).with_shape(shape);
    for &p in &pairs {
        pool.add(p);
    }
    let link = pool.link().context("fewer than two pairs")?;
    println!(
        "{}: {} pairs{}; the pool's score {:.4} (Elo {:+.1}); link: a {:+.2} seeds, sd {:.2} seeds, excess kurtosis {:+.3}, {:.1} Elo per seed",
        dir.display(),
        pairs.len(),
        if symmetric { " (mirrored)" } else { "" },
        pool.score(),
        score_to_elo(pool.score()),
        link.advantage,
        link.sd,
        link.kurtosis,
        link.elo_per_seed()
    );
    if let Some(c) = check(&pool) {
        println!("{}", c.describe());
    }
    println!("H0 elo {elo0}, H1 elo {elo1}, alpha = beta = 0.05, {runs} runs, seed {seed}");
    println!(
        "{:<12} {:>6} {:>22} {:>22} {:>6} {:>10} {:>8}",
        "model", "runs", "H0 accepted", "H1 accepted", "none", "mean pairs", "median"
    );
    let tests = [
        (
            "margin",
            Test::Margin(
                MarginSprt::new(elo0, elo1, 0.05, 0.05, EloKind::Logistic, max)?
                    .with_clip(clip)
                    .with_shape(shape),
            ),
        ),
        (
            "pentanomial",
            Test::Pentanomial(Sprt::new(elo0, elo1, 0.05, 0.05, SprtModel::Logistic)?),
        ),
    ];
    let mut means = Vec::new();
    for (name, test) in tests {
        if only_margin && name != "margin" {
            continue;
        }
        let mut source = Resample {
            pairs: pairs.clone(),
        };
        let s: Summary = many(&test, &mut source, runs, 20_000, seed);
        let rate = |k: u64| {
            let (lo, hi) = wilson(k, s.runs);
            format!("{:.3} [{:.3}, {:.3}]", k as f64 / s.runs as f64, lo, hi)
        };
        println!(
            "{:<12} {:>6} {:>22} {:>22} {:>6} {:>10.1} {:>8.0}",
            name,
            s.runs,
            rate(s.h0),
            rate(s.h1),
            s.undecided,
            s.mean_pairs(),
            s.median_pairs()
        );
        means.push(s.mean_pairs());
    }
    if let [margin, penta] = means[..] {
        println!("margin / pentanomial mean pairs: {:.3}", margin / penta);
    }
    Ok(())
}
