//! The position string: one whitespace-free token that round-trips any reachable position of a
//! known ruleset (the ruleset itself is not part of it). Format (docs/position.md):
//!
//! ```text
//! <mover>/<south pits>/<north pits>/<south store>.<north store>/<sows>[/key=value]...
//! ```
//!
//! `mover` is `s`, `n`, or `x` once the game is over; pits are decimal counts of pits 1..N joined
//! by `.`. Optional fields, in this order: `pie=pending|offer|declined|swapped` (exactly when the
//! ruleset has `pie=true`), `end=<reason>` (exactly when the game is over), `rep=<entries>`
//! (Oware, when positions were seen since the last capture: each entry is the twelve houses,
//! South 1..6 then North 1..6, joined by `.`, entries oldest first joined by `,`; the side to
//! move of each entry follows from alternation). Start of Kalah(6,4): `s/4.4.4.4.4.4/4.4.4.4.4.4/0.0/0`.
//!
//! Parsing goes through an unchecked setup and then checks it into a position (pit counts, seed
//! total, fields that the ruleset does or does not have, a side to move that can move).

use std::fmt;

use super::board::{row_offset, store_index, Board, Pie, CELLS};
use super::position::Position;
use super::ruleset::{GameKind, Ruleset};
use super::{EndReason, Side};

/// A position string that does not describe a position of the given ruleset.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid position string `{input}`: {kind}")]
pub struct PositionError {
    /// The string (truncated to 200 characters).
    pub input: String,
    pub kind: PositionErrorKind,
}

/// What was wrong with a position string.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PositionErrorKind {
    #[error("{0}")]
    Syntax(String),
    #[error("{side} has {found} pits, the ruleset has {expected}")]
    PitCount {
        side: Side,
        expected: usize,
        found: usize,
    },
    #[error("the position holds {found} seeds, the ruleset has {expected}")]
    SeedTotal { expected: u32, found: u32 },
    #[error("{0}")]
    Inconsistent(String),
}

fn syntax(msg: impl Into<String>) -> PositionErrorKind {
    PositionErrorKind::Syntax(msg.into())
}

fn inconsistent(msg: impl Into<String>) -> PositionErrorKind {
    PositionErrorKind::Inconsistent(msg.into())
}

fn pie_str(p: Pie) -> &'static str {
    match p {
        Pie::Off => "off",
        Pie::Pending => "pending",
        Pie::Offered => "offer",
        Pie::Declined => "declined",
        Pie::Swapped => "swapped",
    }
}

fn join(vals: impl Iterator<Item = u32>) -> String {
    vals.map(|v| v.to_string()).collect::<Vec<_>>().join(".")
}

fn parse_num(s: &str, what: &str) -> Result<u32, PositionErrorKind> {
    if s.is_empty() || s.len() > 6 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return Err(syntax(format!("{what}: `{s}` is not a number")));
    }
    s.parse()
        .map_err(|_| syntax(format!("{what}: `{s}` is not a number")))
}

fn parse_list(s: &str, what: &str) -> Result<Vec<u32>, PositionErrorKind> {
    s.split('.').map(|v| parse_num(v, what)).collect()
}

impl Position {
    /// The position string (docs/position.md). Also what `Display` prints.
    pub fn to_state_string(&self) -> String {
        let b = &self.board;
        let mut s = String::with_capacity(48);
        s.push(match b.mover {
            Some(Side::South) => 's',
            Some(Side::North) => 'n',
            None => 'x',
        });
        for side in Side::BOTH {
            s.push('/');
            s.push_str(&join(b.pits(side).iter().map(|&c| c as u32)));
        }
        s.push_str(&format!(
            "/{}.{}/{}",
            b.store(Side::South),
            b.store(Side::North),
            b.sows
        ));
        if b.pie != Pie::Off {
            s.push_str("/pie=");
            s.push_str(pie_str(b.pie));
        }
        if let Some(end) = b.end {
            s.push_str("/end=");
            s.push_str(end.as_str());
        }
        if !self.history.is_empty() {
            s.push_str("/rep=");
            let entries: Vec<String> = self
                .history
                .iter()
                .map(|&k| join((0..12).map(|h| ((k >> (8 * h)) & 0xff) as u32)))
                .collect();
            s.push_str(&entries.join(","));
        }
        s
    }

    /// Parses a position string of `ruleset` (docs/position.md) and checks that it is a
    /// position of that ruleset.
    pub fn from_state(ruleset: Ruleset, s: &str) -> Result<Position, PositionError> {
        parse(ruleset, s).map_err(|kind| PositionError {
            input: s.chars().take(200).collect(),
            kind,
        })
    }
}

impl fmt::Display for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.to_state_string())
    }
}

fn parse(ruleset: Ruleset, s: &str) -> Result<Position, PositionErrorKind> {
    let n = ruleset.pits();
    let fields: Vec<&str> = s.split('/').collect();
    if fields.len() < 5 {
        return Err(syntax(
            "expected <mover>/<south pits>/<north pits>/<south store>.<north store>/<sows>[/key=value...]",
        ));
    }
    let mover = match fields[0] {
        "s" => Some(Side::South),
        "n" => Some(Side::North),
        "x" => None,
        other => {
            return Err(syntax(format!(
                "mover `{other}`: expected s, n or x (game over)"
            )))
        }
    };
    let mut cells = [0u8; CELLS];
    let mut total: u32 = 0;
    for (side, field) in Side::BOTH.into_iter().zip(&fields[1..3]) {
        let pits = parse_list(field, &format!("{side} pits"))?;
        if pits.len() != n {
            return Err(PositionErrorKind::PitCount {
                side,
                expected: n,
                found: pits.len(),
            });
        }
        let off = row_offset(n, side);
        for (i, &c) in pits.iter().enumerate() {
            total = total.saturating_add(c);
            cells[off + i] = c.min(255) as u8;
        }
    }
    let stores = parse_list(fields[3], "stores")?;
    if stores.len() != 2 {
        return Err(syntax(format!(
            "stores `{}`: expected <south>.<north>",
            fields[3]
        )));
    }
    for (side, &c) in Side::BOTH.iter().zip(&stores) {
        total = total.saturating_add(c);
        cells[store_index(n, *side)] = c.min(255) as u8;
    }
    if total != ruleset.total_seeds() {
        return Err(PositionErrorKind::SeedTotal {
            expected: ruleset.total_seeds(),
            found: total,
        });
    }
    let sows = parse_num(fields[4], "sows")?;

    let mut pie = None;
    let mut end = None;
    let mut rep = None;
    let mut last_key = 0;
    for field in &fields[5..] {
        let Some((key, value)) = field.split_once('=') else {
            return Err(syntax(format!("field `{field}`: expected key=value")));
        };
        let rank = match key {
            "pie" => 1,
            "end" => 2,
            "rep" => 3,
            _ => {
                return Err(syntax(format!(
                    "unknown field `{key}`: expected pie, end or rep"
                )))
            }
        };
        if rank <= last_key {
            return Err(syntax(format!(
                "field `{key}` repeated or out of order (pie, end, rep)"
            )));
        }
        last_key = rank;
        match key {
            "pie" => {
                pie = Some(match value {
                    "pending" => Pie::Pending,
                    "offer" => Pie::Offered,
                    "declined" => Pie::Declined,
                    "swapped" => Pie::Swapped,
                    _ => {
                        return Err(syntax(format!(
                            "pie=`{value}`: expected pending, offer, declined or swapped"
                        )))
                    }
                })
            }
            "end" => {
                end = Some(
                    EndReason::ALL
                        .into_iter()
                        .find(|r| r.as_str() == value)
                        .ok_or_else(|| syntax(format!("unknown end reason `{value}`")))?,
                )
            }
            _ => rep = Some(value),
        }
    }

    let pie = match (ruleset.pie(), pie) {
        (false, None) => Pie::Off,
        (false, Some(_)) => return Err(inconsistent("pie= given but the ruleset has no pie rule")),
        (true, Some(p)) => p,
        (true, None) if sows == 0 && mover == Some(Side::South) => Pie::Pending,
        (true, None) => Pie::Declined,
    };
    // A first turn that ends the game leaves the offer standing (and moot): `x/.../pie=offer`.
    if pie == Pie::Offered && mover == Some(Side::South) {
        return Err(inconsistent("pie=offer but South is to move"));
    }
    if pie == Pie::Pending && mover == Some(Side::North) {
        return Err(inconsistent("pie=pending but North is to move"));
    }
    match (mover, end) {
        (None, None) => {
            return Err(inconsistent(
                "the game is over (x) but no end= reason is given",
            ))
        }
        (Some(_), Some(_)) => return Err(inconsistent("end= given but the game is not over")),
        _ => {}
    }
    if let Some(reason) = end {
        let ok = match ruleset.kind() {
            GameKind::Kalah => matches!(
                reason,
                EndReason::SideEmpty | EndReason::NoMove | EndReason::SowCap
            ),
            GameKind::Congkak => matches!(reason, EndReason::NoMove | EndReason::SowCap),
            GameKind::Oware => !matches!(reason, EndReason::SideEmpty | EndReason::NoMove),
        };
        if !ok {
            return Err(inconsistent(format!(
                "end={reason} does not occur in {}",
                ruleset.kind()
            )));
        }
    }
    let board = Board {
        cells,
        ruleset,
        sows,
        mover,
        pie,
        end,
    };

    let mut history = Vec::new();
    if let Some(rep) = rep {
        if ruleset.kind() != GameKind::Oware {
            return Err(inconsistent("rep= is only used by oware"));
        }
        let Some(m) = mover else {
            return Err(inconsistent("rep= given but the game is over"));
        };
        let entries: Vec<&str> = rep.split(',').collect();
        let houses_total = board.row_sum(Side::South) + board.row_sum(Side::North);
        for (j, entry) in entries.iter().enumerate() {
            let houses = parse_list(entry, "rep entry")?;
            if houses.len() != 12 {
                return Err(syntax(format!("rep entry {}: expected 12 houses", j + 1)));
            }
            if houses.iter().sum::<u32>() != houses_total {
                return Err(inconsistent(format!(
                    "rep entry {}: {} seeds on the board, the position has {houses_total} (no capture since)",
                    j + 1,
                    houses.iter().sum::<u32>()
                )));
            }
            let age = entries.len() - j; // moves between that entry and now
            let entry_mover = if age % 2 == 0 { m } else { m.other() };
            let mut k: u128 = 0;
            for (h, &c) in houses.iter().enumerate() {
                k |= (c as u128) << (8 * h);
            }
            history.push(k | (entry_mover as u128) << 96);
        }
    }
    let pos = Position { board, history };
    if pos.history.contains(&pos.current_rep_key()) {
        return Err(inconsistent(
            "the current position already occurs in rep= (the game would be over)",
        ));
    }
    if let Some(side) = mover {
        if sows >= ruleset.sow_cap() {
            return Err(inconsistent(
                "the sow count has reached the sow cap but the game is not over",
            ));
        }
        let empty_row = pos.board.row_empty(Side::South) || pos.board.row_empty(Side::North);
        if ruleset.kind() == GameKind::Kalah && !ruleset.end_on_no_move() && empty_row {
            return Err(inconsistent("a row is empty but the game is not over"));
        }
        if !pos
            .legal_moves()
            .iter()
            .any(|m| matches!(m, super::Move::Pit(_)))
        {
            return Err(inconsistent(format!(
                "{side} is to move but has no legal move"
            )));
        }
    }
    Ok(pos)
}
