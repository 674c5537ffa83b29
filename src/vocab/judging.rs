//! How a bot's moves are judged beyond the rules: which clock its time is counted on
//! ([`TimeBy`], docs/tournament.md "Time by CPU"), what a KGP agent's missing move becomes
//! ([`MissingMove`], docs/protocols.md), and the words for a *starved* timeout (a wall-clock
//! timeout in which the bot had used less than half of its time in CPU: the machine, not the
//! bot, ran out of time). Plain data and pure functions.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

/// The clock a bot's time limits are counted on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum TimeBy {
    /// Wall-clock time from asking to the answer: what a server's clock counts.
    #[default]
    Wall,
    /// The CPU time of the bot's process tree, with a wall-clock cap of [`CPU_WALL_CAP`] times
    /// the limit: on a shared machine, the time the bot used, not the time it waited for a core.
    Cpu,
}

/// Under [`TimeBy::Cpu`], how many times its limit a move may take in wall-clock time before it
/// forfeits anyway (a bot that sleeps, or waits on something, uses no CPU).
pub const CPU_WALL_CAP: u32 = 4;

impl TimeBy {
    pub fn as_str(self) -> &'static str {
        match self {
            TimeBy::Wall => "wall",
            TimeBy::Cpu => "cpu",
        }
    }

    /// Whether this is the default (left out of `run.json`).
    pub fn is_wall(&self) -> bool {
        *self == TimeBy::Wall
    }
}

impl FromStr for TimeBy {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "wall" => Ok(TimeBy::Wall),
            "cpu" => Ok(TimeBy::Cpu),
            _ => Err(format!(
                "`{s}`: expected wall (the time from asking to the answer) or cpu (the bot's own CPU time)"
            )),
        }
    }
}

impl fmt::Display for TimeBy {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a KGP agent's missing move becomes: no move by the deadline, or a `yield` before any
/// move.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum MissingMove {
    /// A random legal move, drawn from the game's seed, as the official server (go-kgp) plays
    /// one for the agent; the game goes on.
    #[default]
    Random,
    /// The game is lost (`timeout`, or `malformed_move` for a bare `yield`): the arena's strict
    /// rule.
    Forfeit,
}

impl MissingMove {
    pub fn as_str(self) -> &'static str {
        match self {
            MissingMove::Random => "random",
            MissingMove::Forfeit => "forfeit",
        }
    }

    /// Whether this is the default (left out of `run.json`).
    pub fn is_random(&self) -> bool {
        *self == MissingMove::Random
    }
}

impl FromStr for MissingMove {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        match s {
            "random" => Ok(MissingMove::Random),
            "forfeit" => Ok(MissingMove::Forfeit),
            _ => Err(format!(
                "`{s}`: expected random (a random legal move, as the official server plays) or forfeit"
            )),
        }
    }
}

impl fmt::Display for MissingMove {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Whether a wall-clock timeout after `wall` in which the bot used `cpu` of CPU, against a
/// limit of `limit`, was starved: the bot had used less than half of its time.
pub fn starved(cpu: Duration, limit: Duration) -> bool {
    cpu * 2 < limit
}

/// The label a starved timeout's detail carries: `starved: 180 ms of CPU in 1,125 ms`.
pub fn starved_label(cpu: Duration, wall: Duration) -> String {
    format!(
        "{STARVED}{} ms of CPU in {} ms",
        thousands(cpu.as_millis()),
        thousands(wall.as_millis())
    )
}

/// How a starved timeout's detail says so (see [`starved_label`]).
const STARVED: &str = "starved: ";

/// Whether a forfeit's detail is a starved timeout's.
pub fn is_starved(detail: &str) -> bool {
    detail.contains(&format!("({STARVED}"))
}

/// `1125` as `1,125`.
pub fn thousands(n: u128) -> String {
    let digits = n.to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_words_read_back() {
        for t in [TimeBy::Wall, TimeBy::Cpu] {
            assert_eq!(t.as_str().parse::<TimeBy>(), Ok(t));
        }
        for m in [MissingMove::Random, MissingMove::Forfeit] {
            assert_eq!(m.as_str().parse::<MissingMove>(), Ok(m));
        }
        assert!("CPU"
            .parse::<TimeBy>()
            .unwrap_err()
            .contains("expected wall"));
        assert!("lose".parse::<MissingMove>().is_err());
    }

    #[test]
    fn a_timeout_is_starved_below_half_the_limit_in_cpu() {
        let ms = Duration::from_millis;
        assert!(starved(ms(180), ms(1125)));
        assert!(starved(ms(562), ms(1125)));
        assert!(!starved(ms(563), ms(1125)));
        assert_eq!(
            starved_label(ms(180), ms(1125)),
            "starved: 180 ms of CPU in 1,125 ms"
        );
        let detail = format!(
            "no bestmove within 1125 ms ({})",
            starved_label(ms(0), ms(1))
        );
        assert!(is_starved(&detail));
        assert!(!is_starved("no bestmove within 1125 ms"));
        assert_eq!(thousands(1_234_567), "1,234,567");
        assert_eq!(thousands(999), "999");
        assert_eq!(thousands(0), "0");
    }
}
