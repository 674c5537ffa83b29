//! The checked configuration of a run: what `run.json` stores and what a resume or a shard reads
//! back. The CLI and the TOML file both build one of these; nothing here touches processes.

use std::fmt;
use std::str::FromStr;
use std::time::Duration;

use serde::{Deserialize, Serialize};

use super::judging::TimeBy;
use super::player::{BotSpec, Protocol};
use super::schedule::Format;
use crate::rules::{Move, Position, Ruleset};

/// Per-sow and game-clock limits, plus the search limits passed through to the bots.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct TimeControl {
    /// Budget per sow in ms (the site's clock: a fresh budget for every sow, extra turns too).
    pub movetime_ms: Option<u64>,
    /// Game clock: base in ms and increment per sow in ms.
    pub clock: Option<Clock>,
    /// `go depth D`, for deterministic runs.
    pub depth: Option<u32>,
    /// `go nodes N`, for deterministic runs.
    pub nodes: Option<u64>,
    /// Added to every time limit before a bot forfeits on time, to absorb process and pipe
    /// overhead that is not the bot's thinking.
    pub margin_ms: u64,
    /// With no time limit at all (depth/nodes only), a bot that has not answered after this
    /// long is hung and forfeits.
    pub hang_ms: u64,
    /// How long a bot may take to complete the handshake or answer `isready`.
    #[serde(default = "default_handshake_ms")]
    pub handshake_ms: u64,
    /// The clock the limits are counted on (`--time-by`; a player's `time_by=` replaces it);
    /// absent in `run.json` for wall time.
    #[serde(default, skip_serializing_if = "TimeBy::is_wall")]
    pub time_by: TimeBy,
}

fn default_handshake_ms() -> u64 {
    DEFAULT_HANDSHAKE_MS
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    pub base_ms: u64,
    pub inc_ms: u64,
}

impl Clock {
    /// Parses `base+inc` in seconds (`60+0.5`) like cutechess's `tc=`.
    pub fn parse(text: &str) -> Result<Clock, String> {
        let (base, inc) = text.split_once('+').unwrap_or((text, "0"));
        let secs = |s: &str| -> Result<u64, String> {
            let v: f64 = s.trim().parse().map_err(|_| {
                format!("invalid time `{s}` in --tc `{text}` (expected seconds, e.g. 10+0.1)")
            })?;
            if !(v.is_finite() && v >= 0.0) {
                return Err(format!("invalid time `{s}` in --tc `{text}`"));
            }
            if v * 1000.0 > MAX_TIME_MS as f64 {
                return Err(format!("time `{s}` in --tc `{text}` is more than a week"));
            }
            Ok((v * 1000.0).round() as u64)
        };
        let clock = Clock {
            base_ms: secs(base)?,
            inc_ms: secs(inc)?,
        };
        if clock.base_ms == 0 && clock.inc_ms == 0 {
            return Err(format!("--tc `{text}` gives no time at all"));
        }
        Ok(clock)
    }
}

impl Default for TimeControl {
    fn default() -> Self {
        TimeControl {
            movetime_ms: Some(DEFAULT_MOVETIME_MS),
            clock: None,
            depth: None,
            nodes: None,
            margin_ms: DEFAULT_MARGIN_MS,
            hang_ms: DEFAULT_HANG_MS,
            handshake_ms: DEFAULT_HANDSHAKE_MS,
            time_by: TimeBy::Wall,
        }
    }
}

/// The site's clock: 30 s for every sow.
pub const DEFAULT_MOVETIME_MS: u64 = 30_000;
/// Documented overhead allowance (docs/tournament.md): process wake-up and pipe latency.
pub const DEFAULT_MARGIN_MS: u64 = 100;
/// Handshake and `isready` allowance.
pub const DEFAULT_HANDSHAKE_MS: u64 = 10_000;
/// Hang detection when only depth/nodes limits are given.
pub const DEFAULT_HANG_MS: u64 = 60_000;

/// The longest time limit of any kind: a week, far past any real budget and far from an
/// overflow when limits are added up.
pub const MAX_TIME_MS: u64 = 7 * 24 * 3600 * 1000;

/// The limits in words: `40 ms a sow`, `30 s a sow`, `clock 60+0.5 s`, `depth 6, 1000 nodes`,
/// `no time limit` (the margin, hang and handshake allowances are left out).
impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut parts: Vec<String> = Vec::new();
        if let Some(ms) = self.movetime_ms {
            parts.push(if ms % 1000 == 0 {
                format!("{} s a sow", ms / 1000)
            } else {
                format!("{ms} ms a sow")
            });
        }
        if let Some(c) = self.clock {
            parts.push(format!(
                "clock {}+{} s",
                c.base_ms as f64 / 1000.0,
                c.inc_ms as f64 / 1000.0
            ));
        }
        if let Some(d) = self.depth {
            parts.push(format!("depth {d}"));
        }
        if let Some(n) = self.nodes {
            parts.push(format!("{n} nodes"));
        }
        if parts.is_empty() {
            f.write_str("no time limit")
        } else {
            f.write_str(&parts.join(", "))
        }
    }
}

impl TimeControl {
    /// Every limit positive where it must be, and none absurdly large.
    pub fn validate(&self) -> Result<(), String> {
        let check = |what: &str, ms: u64, zero_ok: bool| {
            if ms == 0 && !zero_ok {
                Err(format!("{what} must be positive"))
            } else if ms > MAX_TIME_MS {
                Err(format!(
                    "{what} of {ms} ms is more than a week ({MAX_TIME_MS} ms)"
                ))
            } else {
                Ok(())
            }
        };
        if let Some(ms) = self.movetime_ms {
            check("--movetime", ms, false)?;
        }
        if let Some(c) = self.clock {
            check("--tc's base time", c.base_ms, true)?;
            check("--tc's increment", c.inc_ms, true)?;
        }
        check("--margin", self.margin_ms, true)?;
        check("--handshake-timeout", self.handshake_ms, false)?;
        check("the hang timeout", self.hang_ms, false)
    }

    /// The protocol limits for one `go`, given the mover's remaining clock (below 0 after a
    /// think into the margin: sent as 0).
    pub fn go_limits(&self, remaining_ms: Option<i64>) -> crate::protocol::GoLimits {
        crate::protocol::GoLimits {
            movetime: self.movetime_ms,
            time: remaining_ms.map(|r| r.max(0) as u64),
            inc: self.clock.map(|c| c.inc_ms),
            depth: self.depth,
            nodes: self.nodes,
            infinite: false,
        }
    }

    /// How long the arena waits for `bestmove` before the mover forfeits on time. A game clock
    /// carries what a think took past it (`remaining_ms` below 0): the margin is allowed once
    /// per game, not once per sow, so the wait is the clock plus the margin, never less than 0.
    pub fn deadline(&self, remaining_ms: Option<i64>) -> Duration {
        let margin = self.margin_ms as i64;
        let budget = match (self.movetime_ms, remaining_ms) {
            (Some(m), Some(r)) => (m as i64 + margin).min(r + margin),
            (Some(m), None) => m as i64 + margin,
            (None, Some(r)) => r + margin,
            (None, None) => return Duration::from_millis(self.hang_ms),
        };
        Duration::from_millis(budget.max(0) as u64)
    }
}

/// Where each game pair starts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum OpeningSource {
    /// `plies` seeded random legal sows from the start.
    Random { plies: u32 },
    /// Lines of a file, used in order and cycled; stored in full so the run folder suffices.
    List {
        file: String,
        openings: Vec<Opening>,
    },
}

/// A starting point: an optional position (state string, see docs/position.md) and moves from it.
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Opening {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub state: Option<String>,
    pub moves: Vec<Move>,
}

impl Opening {
    /// Parses one line of an openings file (a move list `3 6 1`, or a state string optionally
    /// followed by `moves ...`) and checks that it is a playable opening of `ruleset`.
    pub fn parse(ruleset: Ruleset, line: &str) -> Result<Opening, String> {
        let opening: Opening = line.parse()?;
        opening.position(ruleset)?;
        Ok(opening)
    }

    /// Where the opening starts: its state string, or the ruleset's start position.
    pub fn start(&self, ruleset: Ruleset) -> Result<Position, String> {
        match &self.state {
            Some(state) => Position::from_state(ruleset, state)
                .map_err(|e| format!("invalid position `{state}`: {e}")),
            None => Ok(Position::new(ruleset)),
        }
    }

    /// The position the opening reaches, or why it is not a playable opening.
    pub fn position(&self, ruleset: Ruleset) -> Result<Position, String> {
        let mut pos = self.start(ruleset)?;
        for (i, &mv) in self.moves.iter().enumerate() {
            pos.play(mv)
                .map_err(|e| format!("move {} (`{mv}`): {e}", i + 1))?;
        }
        if pos.is_over() {
            return Err("the game is already over after this opening".to_string());
        }
        Ok(pos)
    }
}

/// The opening as one line of text, the form `games.csv` and openings files use: the moves
/// (`3 6 1`), or the state string and then `moves ...` if there are any.
impl fmt::Display for Opening {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let mut sep = "";
        if let Some(state) = &self.state {
            f.write_str(state)?;
            if !self.moves.is_empty() {
                f.write_str(" moves")?;
            }
            sep = " ";
        }
        for mv in &self.moves {
            write!(f, "{sep}{mv}")?;
            sep = " ";
        }
        Ok(())
    }
}

/// Reads an opening line's syntax only: whether it is playable is [`Opening::position`]'s call.
impl FromStr for Opening {
    type Err = String;

    fn from_str(line: &str) -> Result<Self, Self::Err> {
        let mut words = line.split_whitespace().peekable();
        let mut opening = Opening::default();
        if let Some(first) = words.peek() {
            if first.parse::<Move>().is_err() && *first != "moves" {
                opening.state = words.next().map(str::to_string);
            }
        }
        if words.peek() == Some(&"moves") {
            words.next();
        }
        for w in words {
            opening
                .moves
                .push(w.parse::<Move>().map_err(|e| e.to_string())?);
        }
        Ok(opening)
    }
}

/// [`Opening`] as its one-line text (a `games.csv` column) rather than as a JSON object (its form
/// in `run.json`).
pub mod opening_line {
    use super::Opening;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(opening: &Opening, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(opening)
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Opening, D::Error> {
        let text = String::deserialize(d)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}

/// The longest player name, in characters.
pub const MAX_NAME_LEN: usize = 64;

/// A player name must be non-empty, at most [`MAX_NAME_LEN`] characters and free of control
/// characters (a newline would break `games.pgn`, a NUL every tool reading the files).
pub fn check_name(name: &str) -> Result<(), String> {
    if name.is_empty() {
        return Err("a player has an empty name".to_string());
    }
    if name.chars().count() > MAX_NAME_LEN {
        return Err(format!(
            "the player name `{}…` is longer than {MAX_NAME_LEN} characters",
            name.chars().take(20).collect::<String>()
        ));
    }
    if let Some(c) = name.chars().find(|c| c.is_control()) {
        return Err(format!(
            "the player name {name:?} contains the control character {:?}",
            c
        ));
    }
    Ok(())
}

/// A run ready to play: the checked configuration (what `run.json` stores), how many games to
/// play at once, and the run folder. Every game-playing command builds one
/// (`plan::game::GameSettings::plan`) and plays it on a session.
#[derive(Clone, Debug)]
pub struct RunPlan {
    pub config: RunConfig,
    pub concurrency: usize,
    pub out: std::path::PathBuf,
}

/// Everything that determines a run's games. Stored as `run.json`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct RunConfig {
    pub name: String,
    pub rules: Ruleset,
    pub players: Vec<BotSpec>,
    pub format: Format,
    /// Game pairs per encounter.
    pub pairs: u32,
    pub openings: OpeningSource,
    pub seed: u64,
    pub time: TimeControl,
    /// Stop a game once its outcome can no longer change.
    pub adjudicate: bool,
    /// A player whose bot fails to start this many times in a row is dropped from the run.
    pub max_start_failures: u32,
}

impl RunConfig {
    /// Checks what a schedule needs: at least two players, unique names, gauntlet players that
    /// exist, at least one pair.
    pub fn validate(&self) -> Result<(), String> {
        if self.players.len() < 2 {
            return Err(format!(
                "a tournament needs at least two players, got {}",
                self.players.len()
            ));
        }
        let mut names = std::collections::HashSet::new();
        for p in &self.players {
            check_name(&p.name)?;
            if !names.insert(p.name.as_str()) {
                return Err(format!(
                    "two players are named `{}`: names must be unique",
                    p.name
                ));
            }
        }
        if let Format::Gauntlet { challengers } = &self.format {
            if challengers.is_empty() || challengers.len() >= self.players.len() {
                return Err(
                    "a gauntlet needs one or more challengers and at least one other player"
                        .to_string(),
                );
            }
        }
        for p in &self.players {
            for (name, value) in &p.options {
                // `setoption name N value V` and its line end.
                let line = "setoption name  value \n".len() + name.len() + value.len();
                if line > crate::protocol::MAX_LINE_LEN {
                    return Err(format!(
                        "player `{}`: option `{name}`: its `setoption` line would be {line} \
                         bytes, over the protocol's {} byte line limit",
                        p.name,
                        crate::protocol::MAX_LINE_LEN
                    ));
                }
            }
        }
        if self.pairs == 0 {
            return Err("--pairs must be at least 1".to_string());
        }
        // A ManKalah agent seated South moves as soon as it hears `START`: every game starts
        // at the initial position.
        let opening = match &self.openings {
            OpeningSource::List { openings, .. } => openings
                .iter()
                .any(|o| o.state.is_some() || !o.moves.is_empty()),
            OpeningSource::Random { plies } => *plies > 0,
        };
        if let Some(p) = self
            .players
            .iter()
            .find(|p| p.protocol == Protocol::Mankalah)
        {
            if opening {
                return Err(format!(
                    "player `{}` speaks ManKalah, whose games start at the initial position \
                     (South moves as soon as it hears START): use --opening-plies 0 and no \
                     --openings",
                    p.name
                ));
            }
        }
        self.time.validate()?;
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The time control in words, as the dashboard's runs page shows it (#28).
    #[test]
    fn time_controls_in_words() {
        let words = |t: TimeControl| t.to_string();
        assert_eq!(words(TimeControl::default()), "30 s a sow");
        let fast = TimeControl {
            movetime_ms: Some(40),
            ..TimeControl::default()
        };
        assert_eq!(words(fast), "40 ms a sow");
        let clock = TimeControl {
            movetime_ms: None,
            clock: Some(Clock {
                base_ms: 60_000,
                inc_ms: 500,
            }),
            ..TimeControl::default()
        };
        assert_eq!(words(clock), "clock 60+0.5 s");
        let fixed = TimeControl {
            movetime_ms: None,
            depth: Some(6),
            nodes: Some(1000),
            ..TimeControl::default()
        };
        assert_eq!(words(fixed), "depth 6, 1000 nodes");
        let none = TimeControl {
            movetime_ms: None,
            ..TimeControl::default()
        };
        assert_eq!(words(none), "no time limit");
    }
}
