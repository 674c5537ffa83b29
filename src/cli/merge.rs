//! `arena merge OUT DIR...`: shard folders in, one run folder out.

use std::path::PathBuf;

use anyhow::Result;
use mancala_arena::tournament::merge::merge;
use mancala_arena::vocab::shell_word;

#[derive(clap::Args, Debug)]
pub struct MergeArgs {
    /// The merged run folder to create.
    pub out: PathBuf,
    /// Shard folders (`arena run --shard I/N` outputs) of one run.
    #[arg(required = true)]
    pub dirs: Vec<PathBuf>,
}

pub fn run(args: &MergeArgs) -> Result<()> {
    for dir in &args.dirs {
        if !dir.exists() {
            anyhow::bail!(
                "{} does not exist: give the folders that `arena run --shard I/N` wrote",
                dir.display()
            );
        }
    }
    let m = merge(&args.out, &args.dirs, &mut |note| {
        eprintln!("merge: {note}")
    })?;
    outln!(
        "merged {} folder(s): {} games of the schedule's {} ({} duplicate(s) dropped) into {}",
        args.dirs.len(),
        m.games,
        m.expected_games,
        m.duplicates,
        args.out.display()
    )?;
    if let Some(n) = m.shards_seen.first().map(|s| s.1) {
        let mut seen: Vec<u64> = m.shards_seen.iter().map(|s| s.0).collect();
        seen.sort_unstable();
        seen.dedup();
        let missing: Vec<String> = (0..n)
            .filter(|i| !seen.contains(i))
            .map(|i| format!("{i}/{n}"))
            .collect();
        if !missing.is_empty() {
            outln!("warning: shards {} are missing", missing.join(", "))?;
        }
    }
    if let Some(c) = &m.consistency {
        outln!(
            "shard consistency: chi2 = {:.2} on {} df, p = {:.4}",
            c.chi2,
            c.df,
            c.p_value
        )?;
        for s in &c.shards {
            let flag = if s.z.abs() > 3.0 {
                "  <- far from the others: check this machine"
            } else {
                ""
            };
            outln!(
                "  shard folder {}: {} games, first players scored {:.1} (model {:.1}), z = {:+.2}{flag}",
                args.dirs[s.shard].display(),
                s.games,
                s.observed,
                s.expected,
                s.z
            )?;
        }
        if c.p_value < 0.001 {
            outln!("warning: the shards are not consistent with one another (p < 0.001)")?;
        }
    }
    outln!("next: arena rate {}", shell_word(&args.out))?;
    Ok(())
}
