//! A game no exact solver fits (Oware, Congkak), judged by the alpha-beta search: each sow's
//! loss is an estimate, and the game says so (`JudgedGame::estimate_depth`).

use anyhow::Context;

use crate::rules::{Move, Position, Side};
use crate::run_folder::games::GameRecord;
use crate::run_folder::mistakes::{JudgedGame, JudgedSow, Verdict};
use crate::valuer::{Method, Valuer};

use super::start_game;
use super::times::SowTimes;

/// The search's table for an estimate (MiB): a fresh one for each position, so small.
pub const ESTIMATE_TT_MIB: usize = 16;

/// `rec` judged by the search to `depth` turns: a sow's loss is the value of the position
/// before it minus that of the position after it, both the final margin from the mover's
/// view (`crate::valuer`), in whole seeds and at least 0 (the search can misjudge either side
/// of its horizon). The next position's value is the next sow's, so each position is searched
/// once.
pub fn estimate_game(
    rec: &GameRecord,
    depth: u32,
    times: &mut SowTimes,
) -> anyhow::Result<JudgedGame> {
    let row = &rec.row;
    let mut valuer = Valuer::new(Method::Estimate { depth }, None, ESTIMATE_TT_MIB);
    let (mut pos, mut game) = start_game(rec, Some(depth))?;
    // The value of a position from `side`'s view: the search's, or the final margin. `None`
    // when the search gave none: the sow is then left unjudged, never valued at 0.
    let mut value_for = |pos: &Position, side: Side| -> Option<f64> {
        match pos.to_move() {
            Some(mover) => {
                let v = valuer.margin(pos)?;
                Some(if mover == side { v } else { -v })
            }
            None => {
                let b = pos.board();
                let margin = f64::from(b.store(Side::South)) - f64::from(b.store(Side::North));
                Some(if side == Side::South { margin } else { -margin })
            }
        }
    };
    let skip = row.opening.moves.len();
    let mut before: Option<f64> = None;
    for (ply, &mv) in rec.moves.iter().enumerate() {
        let side = pos.to_move();
        let mover = ply.checked_sub(skip).map(|i| rec.movers[i]);
        let started = std::time::Instant::now();
        let here = match (mover, side) {
            (Some(_), Some(side)) => Some(before.take().or_else(|| value_for(&pos, side))),
            _ => None,
        };
        let position = pos.to_state_string();
        let seeds = pos.board().row_sum(Side::South) + pos.board().row_sum(Side::North);
        pos.play(mv)
            .with_context(|| format!("game {}: move {}", row.game_id, ply + 1))?;
        let (Some(mover), Some(side), Some(here), Move::Pit(k)) = (mover, side, here, mv) else {
            before = None;
            continue;
        };
        let after = value_for(&pos, side);
        // The next position's value for its own mover, for the next sow.
        before = after.and_then(|after| {
            pos.to_move()
                .map(|next| if next == side { after } else { -after })
        });
        let verdict = here.zip(after).map(|(v, after)| Verdict {
            value: v.round() as i32,
            loss: (v - after).round().max(0.0) as i32,
            best: None,
        });
        times.0.push((started.elapsed(), verdict.is_some()));
        game.sows.push(JudgedSow {
            ply,
            mover,
            pit: k,
            seeds,
            position,
            verdict,
        });
    }
    Ok(game)
}
