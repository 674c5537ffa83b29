//! What a seed margin is worth against a known gap: `docs/statistics.md` §5a's table of clips.
//!
//! `cargo run --release --example margin_link_bench -- NULL_DIR GAP_DIR`
//!
//! `NULL_DIR` holds colour-swapped pairs of two copies of one bot (taken from both sides, so its
//! truth is exactly 0), `GAP_DIR` pairs of the same bot (`test`) against a weaker `base` whose
//! gap the folder's own score measures. For each clip of a game's margin:
//!
//! - *link error*: the Elo of the score the normal link predicts from the gap's clipped mean
//!   margin, minus the Elo of the score played (a test whose link is off by this much tests a
//!   gap that much smaller or larger than the one stated);
//! - *link ratio*: the pairs the margin test needs per pair of the pentanomial's on the null
//!   pool at H0 0 / H1 20 as the link promises it, asymptotically: `Var(C)/(dE(C)/ds)²` over
//!   `Var(y)`, `C` the pair's clipped sum, `y` its mean score, `dE(C)/ds` from the link;
//! - the same two for the link with the margins' kurtosis (`LinkShape::Kurtosis`);
//! - *measured ratio*: the same with `dE(C)/ds` measured instead, the gap's mean clipped sum per
//!   unit of its score above ½ (a ratio of two means, with its 95 % interval by the delta
//!   method): what the margins are worth against a gap of this kind, whatever the link.

use std::path::Path;

use anyhow::{Context, Result};

use mancala_arena::rating::margin::{LinkShape, MarginPair, MarginTally};
use mancala_arena::rating::{elo_to_score, score_to_elo};
use mancala_arena::run_folder::games::read_games;
use mancala_arena::run_folder::margins::{max_margin, pairs_of};

fn read(dir: &str) -> Result<(Vec<MarginPair>, f64)> {
    let rows = read_games(Path::new(dir)).with_context(|| dir.to_string())?;
    let max = rows.first().map_or(48.0, max_margin);
    Ok((pairs_of(&rows, "test")?, max))
}

/// Mean and variance (divisor N − 1).
fn mean_var(v: &[f64]) -> (f64, f64) {
    let n = v.len() as f64;
    let mean = v.iter().sum::<f64>() / n;
    let var = v.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n - 1.0);
    (mean, var)
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut null, max) = read(args.first().context("NULL_DIR")?)?;
    let (gap, _) = read(args.get(1).context("GAP_DIR")?)?;
    let mirrored: Vec<MarginPair> = null
        .iter()
        .map(|p| MarginPair {
            first: -p.second,
            second: -p.first,
        })
        .collect();
    null.extend(mirrored);
    let y_null: Vec<f64> = null.iter().map(MarginPair::score).collect();
    let y_gap: Vec<f64> = gap.iter().map(MarginPair::score).collect();
    let (_, var_y) = mean_var(&y_null);
    let (score_gap, _) = mean_var(&y_gap);
    println!(
        "null: {} pairs (mirrored); gap: {} pairs, score {:.4} (Elo {:+.1})",
        null.len(),
        gap.len(),
        score_gap,
        score_to_elo(score_gap)
    );
    // The null pool's shape: the density at zero of U + J (each game's margin around its
    // colour's mean, the lattice's uniform J on (−1, 1) added), against the normal's φ(0)/σ.
    let n = null.len() as f64;
    let mean1 = null.iter().map(|p| p.first).sum::<f64>() / n;
    let mean2 = null.iter().map(|p| p.second).sum::<f64>() / n;
    let within = null
        .iter()
        .flat_map(|p| [p.first - mean1, p.second - mean2])
        .map(|r| ((r + 1.0).min(1.0) - (r - 1.0).max(-1.0)).max(0.0) / 2.0)
        .sum::<f64>()
        / (2.0 * n);
    let mut shaped = MarginTally::new(f64::INFINITY).with_shape(LinkShape::Kurtosis);
    null.iter().for_each(|&p| shaped.add(p));
    let shape = shaped.link().context("fewer than two pairs")?;
    println!(
        "null's U + J: sd {:.3}, excess kurtosis {:+.3}, density at 0 {:.4} per seed (normal {:.4})",
        shape.sd,
        shape.kurtosis,
        within / 2.0,
        1.0 / (2.0 * std::f64::consts::PI).sqrt() / shape.sd
    );
    println!(
        "{:>6} {:>24} {:>18} {:>28}",
        "clip", "link error (Elo) N / K", "link ratio N / K", "measured ratio [95 %]"
    );
    let s20 = elo_to_score(20.0);
    let penta = var_y;
    for clip in [4.0, 8.0, 12.0, 16.0, 20.0, 24.0, 32.0, f64::INFINITY] {
        let w = clip.min(max);
        let clipped = |p: &MarginPair| p.first.clamp(-w, w) + p.second.clamp(-w, w);
        let c_null: Vec<f64> = null.iter().map(clipped).collect();
        let (_, var_c) = mean_var(&c_null);
        // Per shape (N normal, K kurtosis): the ratio the link promises on the null pool and
        // its error on the gap.
        let mut errors = Vec::new();
        let mut link_ratios = Vec::new();
        for shape in [LinkShape::Normal, LinkShape::Kurtosis] {
            let mut tally = MarginTally::new(clip).with_shape(shape);
            null.iter().for_each(|&p| tally.add(p));
            let link = tally.link().context("fewer than two pairs")?;
            let slope = (link.pair_sum(link.delta_for_score(s20))
                - link.pair_sum(link.delta_for_score(0.5)))
                / (s20 - 0.5);
            link_ratios.push(var_c / slope.powi(2) / penta);
            let mut gap_tally = MarginTally::new(clip).with_shape(shape);
            gap.iter().for_each(|&p| gap_tally.add(p));
            let gap_link = gap_tally.link().context("fewer than two pairs")?;
            errors.push(score_to_elo(gap_link.score(gap_link.delta)) - score_to_elo(score_gap));
        }
        // The gap's response: mean C per unit of score above ½, its variance by the delta
        // method on u = C − r·(y − ½).
        let c_gap: Vec<f64> = gap.iter().map(clipped).collect();
        let (mean_c, _) = mean_var(&c_gap);
        let r = mean_c / (score_gap - 0.5);
        let u: Vec<f64> = c_gap
            .iter()
            .zip(&y_gap)
            .map(|(c, y)| c - r * (y - 0.5))
            .collect();
        let (_, var_u) = mean_var(&u);
        let se = (var_u / gap.len() as f64).sqrt() / (score_gap - 0.5);
        let ratio = |r: f64| var_c / r.powi(2) / penta;
        println!(
            "{:>6} {:>+11.2} / {:>+10.2} {:>8.3} / {:>7.3} {:>10.3} [{:.3}, {:.3}]",
            if clip.is_finite() {
                format!("{clip}")
            } else {
                "inf".to_string()
            },
            errors[0],
            errors[1],
            link_ratios[0],
            link_ratios[1],
            ratio(r),
            ratio(r + 1.96 * se),
            ratio(r - 1.96 * se)
        );
    }
    Ok(())
}
