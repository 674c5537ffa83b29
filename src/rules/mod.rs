//! The rulesets the arena referees: Kalah, Oware and Congkak (`docs/rules.md`).
//!
//! Pure game logic: no I/O, no async, no allocation per move on the hot path. The referee, the
//! bots and the protocol all share these types.

use std::fmt;
use std::str::FromStr;

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
        BySide { south: f(self.south), north: f(self.north) }
    }

    /// The same values with the seats exchanged.
    pub fn into_swapped(self) -> BySide<T> {
        BySide { south: self.north, north: self.south }
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

impl fmt::Display for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Move::Pit(n) => write!(f, "{n}"),
            Move::Swap => f.write_str("swap"),
        }
    }
}
