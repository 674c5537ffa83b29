//! What an opening suite buys an SPRT: from real game pairs recorded once per opening kind
//! (`scripts/suite-bench.sh` plays them), the pentanomial variance, the normalized Elo
//! resolution per pair, and many SPRTs simulated by resampling the recorded pairs.
//!
//! `cargo run --release --example suite_bench -- DIR [RUNS] [SEED]`, where `DIR` holds one run
//! folder per opening kind, named `<kind>-regressed` (the weakened bot, named `test`, against
//! the unchanged one) and `<kind>-null` (the unchanged bot against itself, `test` one copy),
//! and `truth-regressed` (from the start position: the regression as the site's games see it).
//!
//! For each kind: the test bot's pentanomial counts, score, logistic Elo (95% interval), the
//! per-pair variance of its mean score, nElo (normalized Elo per game, fishtest's) and `t`,
//! the normalized effect per pair `(s − ½)/σ_pair` (pairs for a fixed power scale as `1/t²`).
//! Then `RUNS` SPRTs per kind and data set (normalized model, pentanomial, α = β = 0.05,
//! H0: the test is `X` nElo weaker, H1: it is not weaker, `X` the regression's nElo on the
//! kind named by `BASELINE` (default `random2`)): each run draws pairs with replacement from the
//! kind's recorded pairs until the test decides. Reported: how often a regression is caught
//! (H0 accepted) and a clean build passes (H1 accepted), and the mean pairs to a decision.

use std::collections::BTreeMap;
use std::path::Path;

use anyhow::{bail, Context, Result};
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

use mancala_arena::rating::pairwise::PentaCounts;
use mancala_arena::rating::sprt::{Sprt, SprtModel, SprtResult};
use mancala_arena::run_folder::games::read_games;

/// The test bot's half points (0..=4) in every complete pair of a run folder.
fn pairs(dir: &Path) -> Result<Vec<u8>> {
    let rows = read_games(dir).with_context(|| format!("{}", dir.display()))?;
    let mut by_pair: BTreeMap<u64, Vec<u8>> = BTreeMap::new();
    for row in rows {
        let half = (row.result.score() * 2.0).round() as u8;
        let test_half = if row.first == "test" {
            half
        } else if row.second == "test" {
            2 - half
        } else {
            bail!("{}: no player named `test`", dir.display());
        };
        by_pair.entry(row.pair_id).or_default().push(test_half);
    }
    Ok(by_pair
        .into_values()
        .filter(|g| g.len() == 2)
        .map(|g| g[0] + g[1])
        .collect())
}

fn penta(pairs: &[u8]) -> PentaCounts {
    let mut p = PentaCounts::default();
    for &h in pairs {
        p.add(h);
    }
    p
}

/// One SPRT on pairs drawn with replacement from `data`: (result, pairs used).
fn one_sprt(sprt: &Sprt, data: &[u8], rng: &mut ChaCha8Rng, max: u64) -> (SprtResult, u64) {
    let mut p = PentaCounts::default();
    loop {
        p.add(data[rng.gen_range(0..data.len())]);
        let r = sprt.status(&p).result;
        if r != SprtResult::Continue || p.pairs() >= max {
            return (r, p.pairs());
        }
    }
}

struct Sim {
    h0: f64,
    h1: f64,
    mean_pairs: f64,
}

fn simulate(sprt: &Sprt, data: &[u8], runs: usize, rng: &mut ChaCha8Rng) -> Sim {
    let (mut h0, mut h1, mut total) = (0, 0, 0);
    for _ in 0..runs {
        let (r, n) = one_sprt(sprt, data, rng, 100_000);
        match r {
            SprtResult::AcceptH0 => h0 += 1,
            SprtResult::AcceptH1 => h1 += 1,
            SprtResult::Continue => {}
        }
        total += n;
    }
    Sim {
        h0: h0 as f64 / runs as f64,
        h1: h1 as f64 / runs as f64,
        mean_pairs: total as f64 / runs as f64,
    }
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().collect();
    let dir = Path::new(
        args.get(1)
            .context("usage: suite_bench DIR [RUNS] [SEED]")?,
    );
    let runs: usize = args.get(2).map_or(Ok(2000), |s| s.parse())?;
    let seed: u64 = args.get(3).map_or(Ok(1), |s| s.parse())?;
    let baseline = std::env::var("BASELINE").unwrap_or_else(|_| "random2".into());
    let mut kinds: Vec<String> = std::fs::read_dir(dir)?
        .filter_map(|e| e.ok())
        .filter_map(|e| {
            e.file_name()
                .to_str()?
                .strip_suffix("-regressed")
                .map(str::to_string)
        })
        .collect();
    kinds.sort();

    println!("| openings | pairs | LL-LD-DD/WL-WD-WW | score | Elo (95%) | σ²/pair | nElo (95%) | t/pair (± 1 se) | pairs vs {baseline} |");
    println!("|---|---:|---|---:|---:|---:|---:|---:|---:|");
    let mut rows = Vec::new();
    let mut nelo = BTreeMap::new();
    let mut data = BTreeMap::new();
    for kind in &kinds {
        let regressed = pairs(&dir.join(format!("{kind}-regressed")))?;
        let p = penta(&regressed);
        let s = p.stats(0.95).context("no pairs")?;
        let t = (s.score - 0.5) / s.variance.sqrt();
        // The standard error of an estimated standardized mean: √((1 + t²/2) / N).
        let t_se = ((1.0 + t * t / 2.0) / p.pairs() as f64).sqrt();
        rows.push((
            kind.clone(),
            format!(
                "| {kind} | {} | {} | {:.4} | {:+.1} ± {:.1} | {:.4} | {:+.1} ± {:.1} | {:+.3} ± {:.3} |",
                p.pairs(),
                p.to_array().map(|c| c.to_string()).join("-"),
                s.score,
                s.elo,
                s.elo_error,
                s.variance,
                s.nelo.unwrap_or(f64::NAN),
                s.nelo_error.unwrap_or(f64::NAN),
                t,
                t_se
            ),
            t,
        ));
        nelo.insert(kind.clone(), s.nelo.unwrap_or(0.0));
        let null = dir.join(format!("{kind}-null"));
        // The same bot on both sides: a pair and its mirror image are equally likely, so the
        // clean build's pairs are symmetrized (the recorded sample's own small bias removed).
        let null = if null.exists() {
            let recorded = pairs(&null)?;
            Some(
                recorded
                    .iter()
                    .flat_map(|&h| [h, 4 - h])
                    .collect::<Vec<u8>>(),
            )
        } else {
            None
        };
        data.insert(kind.clone(), (regressed, null));
    }
    let t_base = rows
        .iter()
        .find(|r| r.0 == baseline)
        .map_or(f64::NAN, |r| r.2);
    for (_, row, t) in &rows {
        // Pairs for a fixed power scale as 1/t².
        println!("{row} {:.2} |", (t_base / t).powi(2));
    }
    let x = nelo
        .get(&baseline)
        .with_context(|| format!("no `{baseline}-regressed` folder for the SPRT bounds"))?
        .abs();
    let sprt = Sprt::new(-x, 0.0, 0.05, 0.05, SprtModel::Normalized)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    println!(
        "\nSPRT (normalized, pentanomial) H0 {:.1} nElo vs H1 0, α = β = 0.05, {runs} runs per cell, pairs drawn with replacement from the recorded ones:\n",
        -x
    );
    println!("| openings | regression caught | mean pairs (regressed) | clean build passes | mean pairs (clean) |");
    println!("|---|---:|---:|---:|---:|");
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    for kind in &kinds {
        if kind == "truth" {
            continue;
        }
        let (regressed, null) = &data[kind];
        let r = simulate(&sprt, regressed, runs, &mut rng);
        let clean = null.as_ref().map(|n| simulate(&sprt, n, runs, &mut rng));
        println!(
            "| {kind} | {:.1}% | {:.0} | {} | {} |",
            100.0 * r.h0,
            r.mean_pairs,
            clean
                .as_ref()
                .map_or("–".into(), |c| format!("{:.1}%", 100.0 * c.h1)),
            clean
                .as_ref()
                .map_or("–".into(), |c| format!("{:.0}", c.mean_pairs)),
        );
    }
    Ok(())
}
