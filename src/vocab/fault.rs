//! The ways a bot can fail a game: each is a termination reason of the results files.

use serde::{Deserialize, Serialize};

/// What went wrong with a bot. Each kind is a termination reason in the results files.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FaultKind {
    /// The program could not be started at all.
    Spawn,
    /// No `mancalaok` / `readyok` in time, or the bot exited during the handshake.
    Handshake,
    /// The process exited (or closed its stdout) while an answer was due.
    Crash,
    /// No `bestmove` within the time limit (plus the margin).
    Timeout,
    /// `bestmove` with a move that does not parse.
    Malformed,
    /// A well-formed move that is illegal in the position.
    IllegalMove,
    /// Bytes that are not UTF-8, or a flood of lines that are not protocol messages.
    Garbage,
    /// A line longer than the protocol's maximum.
    LineTooLong,
    /// Writing to the bot failed (its stdin is closed).
    Io,
}

impl FaultKind {
    pub const ALL: [FaultKind; 9] = [
        FaultKind::Spawn,
        FaultKind::Handshake,
        FaultKind::Crash,
        FaultKind::Timeout,
        FaultKind::Malformed,
        FaultKind::IllegalMove,
        FaultKind::Garbage,
        FaultKind::LineTooLong,
        FaultKind::Io,
    ];

    /// The name in the results files (`games.csv`'s `termination` column).
    pub fn as_str(self) -> &'static str {
        match self {
            FaultKind::Spawn => "spawn",
            FaultKind::Handshake => "handshake",
            FaultKind::Crash => "crash",
            FaultKind::Timeout => "timeout",
            FaultKind::Malformed => "malformed_move",
            FaultKind::IllegalMove => "illegal_move",
            FaultKind::Garbage => "garbage",
            FaultKind::LineTooLong => "line_too_long",
            FaultKind::Io => "io",
        }
    }
}

impl std::str::FromStr for FaultKind {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        FaultKind::ALL
            .into_iter()
            .find(|k| k.as_str() == s)
            .ok_or_else(|| format!("unknown fault kind `{s}`"))
    }
}

#[cfg(test)]
mod tests {
    use super::FaultKind;

    /// docs/tournament.md's table of game ends names every fault a game can end with (#32: `io`
    /// was missing).
    #[test]
    fn every_fault_is_in_the_documented_table_of_game_ends() {
        let docs = include_str!("../../docs/tournament.md");
        for kind in FaultKind::ALL {
            let row = format!("| `{}` |", kind.as_str());
            assert!(docs.contains(&row), "docs/tournament.md has no row {row}");
        }
    }
}
