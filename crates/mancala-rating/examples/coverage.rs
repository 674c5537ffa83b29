//! Coverage of the 95 % rating intervals on synthetic data with known truth, per design
//! (`mancala_rating::coverage`): every player, the least-played players, the first-mover
//! advantage, the pairwise table and the joint differences; LOS and P(top) against what happened.
//!
//! `cargo run --release -p mancala-rating --example coverage -- [DATASETS] [SAMPLES] [PRIOR]
//! [METHOD] [DESIGN]` (defaults 200, 1000, 2, posterior; METHOD `bootstrap` for the pair bootstrap,
//! `margin` for the margin ratings beside the W/D/L fit on games with seed margins; DESIGN: only
//! the designs whose name contains it).
//! Deterministic: the same arguments give the same table. Columns: coverage in percent of every
//! player's rating, of the least-played players', of the first-mover advantage, of the pairwise
//! table's head-to-head Elo and of the joint differences; intervals of zero width; the largest
//! gap between predicted and observed frequency of LOS and P(top) over tenths with at least 200
//! predictions; failed samples; then the refused and unsettled data sets, the mean widths of
//! every player's and the least-played players' intervals, and the mean distance of the points
//! from the truth.

use std::time::Instant;

use mancala_rating::bootstrap::IntervalMethod;
use mancala_rating::coverage::{measure, Design, Tally};
use mancala_rating::RatingConfig;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let datasets: usize = args.first().map_or(200, |a| a.parse().expect("DATASETS"));
    let samples: usize = args.get(1).map_or(1000, |a| a.parse().expect("SAMPLES"));
    let prior: f64 = args.get(2).map_or(2.0, |a| a.parse().expect("PRIOR"));
    if args.get(3).is_some_and(|a| a == "margin") {
        margin_table(&args, datasets, samples, prior);
        return;
    }
    let method: IntervalMethod = args.get(3).map_or(IntervalMethod::Posterior, |a| {
        a.parse().expect("METHOD: posterior, bootstrap or margin")
    });
    let config = RatingConfig {
        bootstrap: samples,
        intervals: method,
        prior,
        ..RatingConfig::default()
    };
    println!(
        "coverage of 95 % intervals ({}), {datasets} data sets per design, {samples} samples, prior {prior}",
        method.as_str()
    );
    println!(
        "{:<44} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7} {:>7} {:>6}",
        "design",
        "ratings",
        "fewest",
        "adv",
        "pairwise",
        "diffs",
        "zero",
        "LOS gap",
        "top gap",
        "failed"
    );
    let cell = |t: &Tally| format!("{:.1}", 100.0 * t.coverage());
    let only = args.get(4).cloned().unwrap_or_default();
    for design in Design::all().into_iter().filter(|d| d.name.contains(&only)) {
        let start = Instant::now();
        let r = measure(&design, &config, datasets, 20261202).expect("rating");
        let zero = r.ratings.zero_width + r.advantage.zero_width + r.pairwise.zero_width;
        println!(
            "{:<44} {:>8} {:>8} {:>8} {:>8} {:>8} {:>6} {:>7.3} {:>7.3} {:>6}   ({} refused, {} unsettled, width {:.0}/{:.0}, |error| {:.1}, {:.1} s)",
            design.name,
            cell(&r.ratings),
            cell(&r.least_played),
            cell(&r.advantage),
            cell(&r.pairwise),
            cell(&r.differences),
            zero,
            r.los.worst_gap(200),
            r.p_top.worst_gap(200),
            r.failed_samples,
            r.refused,
            r.unsettled,
            r.ratings.mean_width(),
            r.least_played.mean_width(),
            r.point_error.0 / r.point_error.1.max(1) as f64,
            start.elapsed().as_secs_f64()
        );
    }
}

/// METHOD `margin`: games with seed margins from the normal link (spread 11 seeds), rated by
/// `margin::ratings` and by the W/D/L fit (posterior, SAMPLES draws) side by side: coverage of
/// every player, the least-played, the advantage; mean widths; the mean and mean absolute
/// difference between the two fits' points.
fn margin_table(args: &[String], datasets: usize, samples: usize, prior: f64) {
    use mancala_rating::coverage::measure_margin;
    let config = RatingConfig {
        bootstrap: samples,
        prior,
        ..RatingConfig::default()
    };
    println!(
        "margin ratings against the W/D/L fit ({} draws, prior {prior}), {datasets} data sets per design, margins of spread 11 seeds",
        samples
    );
    println!(
        "{:<44} {:>8} {:>8} {:>8} {:>9} {:>9} {:>10} {:>10} {:>9} {:>9}",
        "design",
        "margin",
        "fewest",
        "adv",
        "W/D/L",
        "fewest",
        "width m",
        "width wdl",
        "m - wdl",
        "|m - wdl|"
    );
    let only = args.get(4).cloned().unwrap_or_default();
    for design in Design::all()
        .into_iter()
        .filter(|d| d.name.contains(&only) && d.fixed_anchors == 0)
    {
        let start = Instant::now();
        let r = measure_margin(&design, 11.0, &config, datasets, 20261202).expect("rating");
        let cell = |t: &Tally| format!("{:.1}", 100.0 * t.coverage());
        let n = r.difference.2.max(1) as f64;
        println!(
            "{:<44} {:>8} {:>8} {:>8} {:>9} {:>9} {:>10.0} {:>10.0} {:>9.1} {:>9.1}   ({:.1} s)",
            design.name,
            cell(&r.ratings),
            cell(&r.least_played),
            cell(&r.advantage),
            cell(&r.wdl_ratings),
            cell(&r.wdl_least_played),
            r.ratings.mean_width(),
            r.wdl_ratings.mean_width(),
            r.difference.0 / n,
            r.difference.1 / n,
            start.elapsed().as_secs_f64()
        );
    }
}
