//! `arena analyse`'s mistake shapes: `analysis-losses.csv` (every rating bracket's and level's
//! seeds lost per sow, by size and by phase) and, with `--profile`, each named level beside the
//! people rated where it is rated, printed and drawn (`mistake-profile.svg/png`). The arithmetic
//! is `run_folder::loss_profile`'s.

use std::collections::BTreeSet;
use std::io::Write;
use std::path::Path;

use mancala_arena::report::plots::{write_figure, LossProfilePlot};
use mancala_arena::run_folder::loss_profile::{
    compare, groups, write_losses, Comparison, ANALYSIS_LOSSES_CSV, BIN_LABELS,
};
use mancala_arena::run_folder::mistakes::JudgedGame;

/// Writes the groups' file and, for `profile`'s levels, prints and draws the comparison.
pub fn write(
    dir: &Path,
    games: &[JudgedGame],
    levels: &BTreeSet<String>,
    width: f64,
    profile: &[String],
) -> anyhow::Result<()> {
    let groups = groups(games, levels, width);
    write_losses(dir, &groups)?;
    if profile.is_empty() {
        return Ok(());
    }
    let (comparisons, left_out) = compare(&groups, profile, width).map_err(anyhow::Error::msg)?;
    if comparisons.is_empty() {
        anyhow::bail!("{}", left_out.join("\n"));
    }
    for why in &left_out {
        eprintln!("{why}: left out of the comparison");
    }
    print(&comparisons)?;
    let plot = LossProfilePlot::new(&comparisons).map_err(anyhow::Error::msg)?;
    for missing in write_figure(dir, &plot)? {
        eprintln!("{missing}");
    }
    Ok(())
}

/// The comparison table: per level and its people, the share of sows per loss bin, the seeds
/// lost per sow (by phase) and the distance.
fn print(comparisons: &[Comparison]) -> anyhow::Result<()> {
    let mut out = std::io::stdout().lock();
    writeln!(
        out,
        "\nthe shape of the mistakes ({ANALYSIS_LOSSES_CSV}): share of proven sows by seeds lost"
    )?;
    write!(out, "{:<16} {:>7} {:>6}", "group", "rating", "sows")?;
    for label in BIN_LABELS {
        write!(out, " {label:>6}")?;
    }
    writeln!(
        out,
        " {:>9} {:>17} {:>8}",
        "lost/sow", "open/mid/end", "distance"
    )?;
    for c in comparisons {
        for (g, distance) in [(&c.people, None), (&c.level, Some(c.distance))] {
            let name = if g.kind == "bracket" {
                format!("people {}", g.name)
            } else {
                g.name.clone()
            };
            write!(out, "{name:<16} {:>7.0} {:>6}", g.rating, g.profile.sows())?;
            for s in g.profile.shares() {
                write!(out, " {:>5.1}%", s * 100.0)?;
            }
            let [o, m, e] = g.profile.phase_means();
            write!(
                out,
                " {:>9.2} {:>17}",
                g.profile.mean_loss(),
                format!("{o:.2}/{m:.2}/{e:.2}")
            )?;
            match distance {
                Some(d) => writeln!(out, " {d:>8.3}")?,
                None => writeln!(out)?,
            }
        }
    }
    Ok(())
}
