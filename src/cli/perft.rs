//! `arena perft --rules SPEC --depth D`: for each depth 1..=D, the number of move sequences of
//! that length from the start (each sow is a move, and so is `swap` when the pie rule is on), with
//! the time taken and nodes (leaves) per second on one core. Leaves are played, not bulk-counted.

use std::io::Write;
use std::time::Instant;

use clap::Args;
use mancala_arena::rules::{perft, Position, Ruleset};

#[derive(Debug, Args)]
pub struct PerftArgs {
    /// The ruleset, e.g. `kalah`, `oware`, `congkak`.
    #[arg(long = "rules", default_value = "kalah")]
    pub rules: Ruleset,
    /// The deepest depth to count.
    #[arg(long, value_parser = clap::value_parser!(u32).range(1..=40))]
    pub depth: u32,
}

pub fn run(args: &PerftArgs) -> anyhow::Result<()> {
    let pos = Position::new(args.rules);
    let mut out = std::io::stdout().lock();
    writeln!(out, "perft {}", args.rules)?;
    for d in 1..=args.depth {
        let start = Instant::now();
        let nodes = perft(&pos, d);
        let secs = start.elapsed().as_secs_f64();
        let nps = if secs > 0.0 { nodes as f64 / secs } else { 0.0 };
        writeln!(
            out,
            "depth {d:>2}  nodes {nodes:>16}  time {secs:>9.3}s  nps {nps:>14.0}"
        )?;
        out.flush()?;
    }
    Ok(())
}
