//! `arena replay --rules SPEC [--position STATE] [--json] MOVES...`: plays the moves from the
//! start position (South first), or from a position string, and prints the position reached, as
//! a board diagram or as one JSON object. docs/rules.md's worked examples are replays.

use std::io::Write;

use anyhow::Context;
use clap::Args;
use mancala_arena::rules::{Move, Position, Ruleset, Side};

#[derive(Debug, Args)]
pub struct ReplayArgs {
    /// The ruleset, e.g. `kalah`, `kalah:pits=6,seeds=5`, `oware`, `congkak:holes=7`.
    #[arg(long = "rules", default_value = "kalah")]
    pub rules: Ruleset,
    /// Start from this position string (docs/position.md) instead of the start position.
    #[arg(long, value_name = "STATE")]
    pub position: Option<String>,
    /// Print one JSON object instead of a board diagram.
    #[arg(long)]
    pub json: bool,
    /// Moves: pit numbers 1..N from the mover's side, or `swap`.
    #[arg(value_name = "MOVES")]
    pub moves: Vec<Move>,
}

pub fn run(args: &ReplayArgs) -> anyhow::Result<()> {
    let mut pos = match &args.position {
        Some(state) => Position::from_state(args.rules, state)
            .with_context(|| format!("--position for the ruleset {}", args.rules))?,
        None => Position::new(args.rules),
    };
    for (i, &mv) in args.moves.iter().enumerate() {
        let before = pos.to_move();
        pos.play(mv).with_context(|| {
            format!(
                "move {} of {} (`{mv}`, {} to move after {} sows)",
                i + 1,
                args.moves.len(),
                before.map_or("nobody", |s| s.as_str()),
                pos.sows()
            )
        })?;
    }
    let text = if args.json {
        json(&pos).to_string()
    } else {
        diagram(&pos)
    };
    let mut out = std::io::stdout().lock();
    writeln!(out, "{text}")?;
    out.flush()?;
    Ok(())
}

/// The JSON object of `replay --json` (documented in docs/rules.md).
pub fn json(pos: &Position) -> serde_json::Value {
    let result = pos.result();
    serde_json::json!({
        "rules": pos.ruleset().to_string(),
        "to_move": pos.to_move().map(|s| s.as_str()),
        "pits": {"south": pos.pits(Side::South), "north": pos.pits(Side::North)},
        "stores": {"south": pos.store(Side::South), "north": pos.store(Side::North)},
        "sows": pos.sows(),
        "over": pos.is_over(),
        "score": result.map(|r| serde_json::json!({"south": r.score.south, "north": r.score.north})),
        "winner": result.map(|r| r.winner.map_or("draw", |s| s.as_str())),
        "end": result.map(|r| r.end.as_str()),
        "swapped": pos.swapped(),
        "state": pos.to_state_string(),
    })
}

/// A board diagram: North's row on top (its pit 1 on the right), South's below, North's store
/// on the left and South's on the right (Kalah and Oware are counter-clockwise), each row with
/// its pit numbers (`n6 .. n1` above, `s1 .. s6` below), so a worked example of docs/rules.md
/// reads without counting.
pub fn diagram(pos: &Position) -> String {
    let cell = |c: String| format!("{c:>3}");
    let n = pos.ruleset().pits();
    let row = |cells: Vec<String>| format!("      {}\n", cells.join(" "));
    let north: Vec<String> = pos
        .pits(Side::North)
        .iter()
        .rev()
        .map(|&c| cell(c.to_string()))
        .collect();
    let south: Vec<String> = pos
        .pits(Side::South)
        .iter()
        .map(|&c| cell(c.to_string()))
        .collect();
    let width = north.join(" ").len();
    let mut s = String::new();
    s.push_str(&format!("rules {}   sows {}\n", pos.ruleset(), pos.sows()));
    s.push_str(&row((1..=n).rev().map(|k| cell(format!("n{k}"))).collect()));
    s.push_str(&row(north));
    let stores = format!(
        "{:>4}  {:width$}  {}",
        pos.store(Side::North),
        "",
        pos.store(Side::South)
    );
    s.push_str(&format!("{stores}\n"));
    s.push_str(&row(south));
    s.push_str(&row((1..=n).map(|k| cell(format!("s{k}"))).collect()));
    match pos.result() {
        Some(r) => {
            let winner = r.winner.map_or("draw".to_string(), |w| format!("{w} wins"));
            s.push_str(&format!(
                "game over ({}): south {} - north {}, {winner}",
                r.end, r.score.south, r.score.north
            ));
        }
        None => {
            let side = pos.to_move().map_or("nobody", |s| s.as_str());
            s.push_str(&format!("{side} to move"));
        }
    }
    if pos.swapped() {
        s.push_str(" (players swapped seats)");
    }
    s.push_str(&format!("\nstate {}", pos.to_state_string()));
    s
}
