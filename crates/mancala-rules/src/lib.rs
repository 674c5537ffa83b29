//! The rulesets the arena referees: Kalah, Oware and Congkak (`docs/rules.md`).
//!
//! Pure game logic: no I/O, no async, no allocation per move on the hot path. The referee, the
//! bots and the protocol all share these types.
//!
//! - [`Ruleset`] (`ruleset.rs`): the parsed ruleset string, `kalah:pits=6,seeds=4`.
//! - [`Board`] (`board.rs`): the `Copy` game state and the rules common to all games; Kalah and
//!   Congkak sowing live in `kalah.rs` / `congkak.rs`, Oware's in `oware.rs`.
//! - [`Position`] (`position.rs`): a [`Board`] plus Oware's repetition history; what the referee
//!   plays on. For Kalah and Congkak the history stays empty and never allocates.
//! - `state.rs`: the position string (`docs/position.md`).
//!
//! ```
//! use mancala_rules::{Move, Position, Ruleset, Side};
//! let mut pos = Position::new("kalah".parse::<Ruleset>().unwrap());
//! pos.play(Move::Pit(3)).unwrap(); // 4 seeds from pit 3: the last one lands in the store
//! assert_eq!(pos.to_move(), Some(Side::South)); // extra turn
//! assert_eq!(pos.store(Side::South), 1);
//! ```

use std::fmt;
use std::ops::Deref;
use std::str::FromStr;

mod board;
mod congkak;
mod kalah;
mod oware;
mod packed;
mod pattern;
mod position;
mod ruleset;
mod state;

pub use board::Board;
pub use pattern::{PatternError, RulesetPattern};
pub use position::{perft, Position};
pub use ruleset::{
    GameKind, Ruleset, RulesetError, Sweep, DEFAULT_LAP_CAP, DEFAULT_SOW_CAP, MAX_LAP_CAP,
    MAX_SOW_CAP,
};
pub use state::{PositionError, PositionErrorKind};

/// One of the two seats. `South` moves first from the start position (the schedule decides which
/// player sits there).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Side {
    South,
    North,
}

impl Side {
    pub const BOTH: [Side; 2] = [Side::South, Side::North];

    /// The other seat.
    #[inline]
    pub fn other(self) -> Side {
        match self {
            Side::South => Side::North,
            Side::North => Side::South,
        }
    }

    /// 0 for south, 1 for north: for indexing fixed arrays on hot paths.
    #[inline]
    pub fn index(self) -> usize {
        self as usize
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Side::South => "south",
            Side::North => "north",
        }
    }
}

impl fmt::Display for Side {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// A value per seat (stores, scores, clocks, players), instead of `[T; 2]` and `if side == South`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct BySide<T> {
    pub south: T,
    pub north: T,
}

impl<T> BySide<T> {
    pub fn new(south: T, north: T) -> Self {
        BySide { south, north }
    }

    pub fn get(&self, side: Side) -> &T {
        match side {
            Side::South => &self.south,
            Side::North => &self.north,
        }
    }

    pub fn get_mut(&mut self, side: Side) -> &mut T {
        match side {
            Side::South => &mut self.south,
            Side::North => &mut self.north,
        }
    }

    pub fn map<U>(self, mut f: impl FnMut(T) -> U) -> BySide<U> {
        BySide {
            south: f(self.south),
            north: f(self.north),
        }
    }

    /// The same values with the seats exchanged.
    pub fn into_swapped(self) -> BySide<T> {
        BySide {
            south: self.north,
            north: self.south,
        }
    }
}

/// Who sits on each seat: 0 for the game's first player, 1 for the second. The first player
/// sits South (and moves first) until the pie rule's `swap`, with which the second takes over
/// the first's side and position (`docs/rules.md`, `pie`). The one answer to "who sits where
/// after a swap" for the referee, the results files and the drivers.
pub fn seating(swapped: bool) -> BySide<usize> {
    if swapped {
        BySide::new(1, 0)
    } else {
        BySide::new(0, 1)
    }
}

/// A move as written in the protocol and the results files: a pit number `1..=N` counted from the
/// mover's side (pit N is next to the mover's store), or `swap` where the pie rule allows it.
///
/// This is syntax only: whether a move is legal is the position's business.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Move {
    Pit(u8),
    Swap,
}

/// A move string that is neither a pit number `1..=255` nor `swap`.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("invalid move `{0}`: expected a pit number (1, 2, ...) or `swap`")]
pub struct ParseMoveError(pub String);

impl FromStr for Move {
    type Err = ParseMoveError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        if s == "swap" {
            return Ok(Move::Swap);
        }
        match s.parse::<u8>() {
            Ok(n) if n >= 1 && s.bytes().all(|b| b.is_ascii_digit()) => Ok(Move::Pit(n)),
            _ => Err(ParseMoveError(s.chars().take(32).collect())),
        }
    }
}

impl Move {
    /// Writes the move as the protocol and the results files spell it. Generic over the writer
    /// so that writing into a `String` compiles to pushes: the arena writes every move of the
    /// game before each `go`.
    pub fn write_to<W: fmt::Write>(self, w: &mut W) -> fmt::Result {
        match self {
            Move::Pit(n @ 0..=9) => w.write_char(char::from(b'0' + n)),
            Move::Pit(n) => write!(w, "{n}"),
            Move::Swap => w.write_str("swap"),
        }
    }
}

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.write_to(f)
    }
}

/// Largest number of moves in any position: 9 pits (Congkak) plus `swap`.
pub const MAX_MOVES: usize = 10;

/// The legal moves of a position: a fixed-capacity list that never allocates. Derefs to
/// `[Move]`, pits in increasing order, then `swap` if allowed.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MoveList {
    moves: [Move; MAX_MOVES],
    len: u8,
}

impl MoveList {
    pub(crate) fn new() -> MoveList {
        MoveList {
            moves: [Move::Swap; MAX_MOVES],
            len: 0,
        }
    }

    #[inline]
    pub(crate) fn push(&mut self, mv: Move) {
        self.moves[self.len as usize] = mv;
        self.len += 1;
    }
}

impl Deref for MoveList {
    type Target = [Move];

    #[inline]
    fn deref(&self) -> &[Move] {
        &self.moves[..self.len as usize]
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;

    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// Why a game ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum EndReason {
    /// Kalah: all pits of one side are empty (rule 5).
    SideEmpty,
    /// The player to move has no legal move: Kalah `end_on_no_move`, Congkak rule 5.
    NoMove,
    /// Oware: a player captured more than half the seeds, or both exactly half.
    Majority,
    /// Oware: the opponent has no seeds and the player to move cannot give them any (rule 5).
    NoFeeding,
    /// Oware: the houses and the side to move repeat a position since the last capture.
    Repetition,
    /// The ruleset's sow cap was reached.
    SowCap,
}

impl EndReason {
    pub const ALL: [EndReason; 6] = [
        EndReason::SideEmpty,
        EndReason::NoMove,
        EndReason::Majority,
        EndReason::NoFeeding,
        EndReason::Repetition,
        EndReason::SowCap,
    ];

    /// snake_case name, used in the position string and in results files.
    pub fn as_str(self) -> &'static str {
        match self {
            EndReason::SideEmpty => "side_empty",
            EndReason::NoMove => "no_move",
            EndReason::Majority => "majority",
            EndReason::NoFeeding => "no_feeding",
            EndReason::Repetition => "repetition",
            EndReason::SowCap => "sow_cap",
        }
    }

    /// The CamelCase name, as the `detail` of a game that ended by the rules in `games.csv`
    /// and `games.jsonl` (the words those files have always held; [`EndReason::as_str`] is the
    /// position string's).
    pub fn as_detail(self) -> &'static str {
        match self {
            EndReason::SideEmpty => "SideEmpty",
            EndReason::NoMove => "NoMove",
            EndReason::Majority => "Majority",
            EndReason::NoFeeding => "NoFeeding",
            EndReason::Repetition => "Repetition",
            EndReason::SowCap => "SowCap",
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// The outcome of a finished game.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameResult {
    /// Final scores after the end-of-game sweep; they sum to the total seeds unless Kalah's
    /// `sweep=none` left seeds uncounted.
    pub score: BySide<u32>,
    /// `None` is a draw.
    pub winner: Option<Side>,
    pub end: EndReason,
}

/// Why a move is illegal in a position.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum IllegalReason {
    GameOver,
    PitOutOfRange {
        pits: u8,
    },
    EmptyPit,
    /// Oware: the opponent has no seeds and this move gives them none, while another move would.
    FeedingObligation,
    SwapNotAllowed,
}

impl fmt::Display for IllegalReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            IllegalReason::GameOver => f.write_str("the game is over"),
            IllegalReason::PitOutOfRange { pits } => {
                write!(f, "pit number out of range (pits are 1..={pits})")
            }
            IllegalReason::EmptyPit => f.write_str("the pit is empty"),
            IllegalReason::FeedingObligation => f.write_str(
                "the opponent has no seeds and this move gives them none (feeding obligation)",
            ),
            IllegalReason::SwapNotAllowed => f.write_str(
                "swap is only allowed with pie=true, once, when North first comes to move",
            ),
        }
    }
}

/// A move that [`Position::play`] refused; the position is unchanged.
#[derive(Clone, Copy, Debug, PartialEq, Eq, thiserror::Error)]
#[error("illegal move `{mv}`: {reason}")]
pub struct IllegalMove {
    pub mv: Move,
    pub reason: IllegalReason,
}

/// Moves are stored in results files and configurations as their protocol text (`"3"`, `"swap"`).
impl serde::Serialize for Move {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Move {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

#[cfg(test)]
mod tests {
    use super::EndReason;

    #[test]
    fn end_reason_details_are_the_results_files_words() {
        // games.csv's `detail` column has always held these (tests/golden/pinned-run).
        let words = [
            (EndReason::SideEmpty, "SideEmpty"),
            (EndReason::NoMove, "NoMove"),
            (EndReason::Majority, "Majority"),
            (EndReason::NoFeeding, "NoFeeding"),
            (EndReason::Repetition, "Repetition"),
            (EndReason::SowCap, "SowCap"),
        ];
        assert_eq!(words.len(), EndReason::ALL.len());
        for (reason, word) in words {
            assert_eq!(reason.as_detail(), word);
        }
    }
}
