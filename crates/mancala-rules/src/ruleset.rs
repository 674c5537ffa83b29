//! The ruleset string: `NAME[:key=value,...]`, parsed once into a small `Copy` value.
//!
//! This is the one spelling of a ruleset used everywhere (command line, config files, results,
//! the protocol's `newgame`). [`Ruleset`]'s `Display` prints the canonical form: the name, then
//! only the keys whose value differs from that ruleset's default, in a fixed order (the order of
//! the key tables below). So `kalah` prints as `kalah`, and `kalah:seeds=4,pits=6` as `kalah`.
//! Parsing the canonical form gives the same value back.

use std::fmt;
use std::str::FromStr;

/// The three games the arena referees.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum GameKind {
    Kalah,
    Oware,
    Congkak,
}

impl GameKind {
    pub const ALL: [GameKind; 3] = [GameKind::Kalah, GameKind::Oware, GameKind::Congkak];

    /// The name used in ruleset strings.
    pub fn as_str(self) -> &'static str {
        match self {
            GameKind::Kalah => "kalah",
            GameKind::Oware => "oware",
            GameKind::Congkak => "congkak",
        }
    }

    /// The keys this game accepts, in canonical order.
    pub fn keys(self) -> &'static [&'static str] {
        match self {
            GameKind::Kalah => &[
                "pits",
                "seeds",
                "sow_cap",
                "empty_capture",
                "sweep",
                "end_on_no_move",
                "pie",
                "first_extra_turn",
            ],
            GameKind::Oware => &["seeds", "sow_cap"],
            GameKind::Congkak => &["holes", "seeds", "sow_cap", "lap_cap"],
        }
    }
}

impl fmt::Display for GameKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Kalah's end-of-game sweep: where the seeds left in the pits go.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Sweep {
    /// Each player moves the seeds left in their own pits into their own store (rule 5).
    Owner,
    /// The seeds left in the pits are not counted.
    None,
}

/// The default sow cap of every ruleset (sows per game).
pub const DEFAULT_SOW_CAP: u32 = 400;
/// Congkak's default per-move sowing cap (seeds sown in one sow, relays included).
pub const DEFAULT_LAP_CAP: u32 = 1000;
/// Largest accepted `sow_cap`.
pub const MAX_SOW_CAP: u32 = 100_000;
/// Largest accepted `lap_cap`.
pub const MAX_LAP_CAP: u32 = 1_000_000;

/// A parsed ruleset: which game and its parameters. Small and `Copy`.
///
/// Build one by parsing (`"kalah:pits=4".parse()`), or with [`Ruleset::kalah`],
/// [`Ruleset::oware`], [`Ruleset::congkak`]. Fields that do not belong to the game keep their
/// defaults, so two equal strings give equal values.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Ruleset {
    game: GameKind,
    pits: u8,
    seeds: u8,
    sow_cap: u32,
    lap_cap: u32,
    empty_capture: bool,
    sweep: Sweep,
    end_on_no_move: bool,
    pie: bool,
    first_extra_turn: bool,
}

impl Default for Ruleset {
    /// Standard Kalah(6,4).
    fn default() -> Self {
        Ruleset::kalah(6, 4)
    }
}

impl Ruleset {
    fn base(game: GameKind, pits: u8, seeds: u8) -> Ruleset {
        Ruleset {
            game,
            pits,
            seeds,
            sow_cap: DEFAULT_SOW_CAP,
            lap_cap: DEFAULT_LAP_CAP,
            empty_capture: false,
            sweep: Sweep::Owner,
            end_on_no_move: false,
            pie: false,
            first_extra_turn: true,
        }
    }

    /// Kalah with `pits` pits per side and `seeds` seeds per pit, no variants.
    ///
    /// # Panics
    /// If `pits` or `seeds` is outside `1..=8`.
    pub fn kalah(pits: u8, seeds: u8) -> Ruleset {
        assert!(
            (1..=8).contains(&pits) && (1..=8).contains(&seeds),
            "kalah pits/seeds must be in 1..=8"
        );
        Ruleset::base(GameKind::Kalah, pits, seeds)
    }

    /// Oware (abapa) with 4 seeds per house.
    pub fn oware() -> Ruleset {
        Ruleset::base(GameKind::Oware, 6, 4)
    }

    /// Congkak with 7 holes and 7 seeds per hole.
    pub fn congkak() -> Ruleset {
        Ruleset::base(GameKind::Congkak, 7, 7)
    }

    fn default_for(game: GameKind) -> Ruleset {
        match game {
            GameKind::Kalah => Ruleset::default(),
            GameKind::Oware => Ruleset::oware(),
            GameKind::Congkak => Ruleset::congkak(),
        }
    }

    /// Which game.
    pub fn kind(&self) -> GameKind {
        self.game
    }

    /// Pits (Kalah), houses (Oware) or holes (Congkak) per side.
    pub fn pits(&self) -> usize {
        self.pits as usize
    }

    /// Seeds per pit at the start.
    pub fn seeds(&self) -> u32 {
        self.seeds as u32
    }

    /// All seeds in the game.
    pub fn total_seeds(&self) -> u32 {
        2 * self.pits as u32 * self.seeds as u32
    }

    /// The game ends after this many sows.
    pub fn sow_cap(&self) -> u32 {
        self.sow_cap
    }

    /// Congkak: the relay pick-up is refused once this many seeds were sown in the current sow
    /// (see docs/rules.md). Other games: the default, unused.
    pub fn lap_cap(&self) -> u32 {
        self.lap_cap
    }

    /// Kalah `empty_capture`.
    pub fn empty_capture(&self) -> bool {
        self.empty_capture
    }

    /// Kalah `sweep` (always [`Sweep::Owner`] for the other games).
    pub fn sweep(&self) -> Sweep {
        self.sweep
    }

    /// Kalah `end_on_no_move`.
    pub fn end_on_no_move(&self) -> bool {
        self.end_on_no_move
    }

    /// Kalah `pie`: the second player may answer the first turn with `swap`.
    pub fn pie(&self) -> bool {
        self.pie
    }

    /// Kalah `first_extra_turn`: whether the game's first sow earns an extra turn when it ends
    /// in the store (true, the default). ManKalah's engine (Kalah(7,7) with the pie rule) plays
    /// `false`, so that the first turn is one sow the second player can answer with `swap`.
    pub fn first_extra_turn(&self) -> bool {
        self.first_extra_turn
    }

    /// Kalah with none of the variant flags that change play: `empty_capture=false`,
    /// `end_on_no_move=false`, `pie=false`, `first_extra_turn=true` (any size, sweep and cap).
    pub(crate) fn is_standard_kalah(&self) -> bool {
        self.game == GameKind::Kalah
            && !self.empty_capture
            && !self.end_on_no_move
            && !self.pie
            && self.first_extra_turn
    }

    /// The same ruleset with another sow cap (clamped to `1..=MAX_SOW_CAP`).
    pub fn with_sow_cap(mut self, cap: u32) -> Ruleset {
        self.sow_cap = cap.clamp(1, MAX_SOW_CAP);
        self
    }
}

/// Why a ruleset string was rejected.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum RulesetError {
    #[error("unknown ruleset `{name}`: known rulesets are kalah, oware, congkak")]
    UnknownName { name: String },
    #[error("unknown key `{key}` for {game}: valid keys are {}", game.keys().join(", "))]
    UnknownKey { game: GameKind, key: String },
    #[error("malformed option `{pair}` in ruleset: expected key=value")]
    MalformedPair { pair: String },
    #[error("key `{key}` given twice")]
    DuplicateKey { key: String },
    #[error("{game} {key}={value} is out of range: expected {expected}")]
    OutOfRange {
        game: GameKind,
        key: String,
        value: String,
        expected: String,
    },
}

fn parse_num(
    game: GameKind,
    key: &str,
    value: &str,
    lo: u32,
    hi: u32,
) -> Result<u32, RulesetError> {
    let ok = !value.is_empty() && value.bytes().all(|b| b.is_ascii_digit());
    match value.parse::<u32>() {
        Ok(v) if ok && (lo..=hi).contains(&v) => Ok(v),
        _ => Err(RulesetError::OutOfRange {
            game,
            key: key.to_string(),
            value: value.to_string(),
            expected: format!("an integer in {lo}..={hi}"),
        }),
    }
}

fn parse_bool(game: GameKind, key: &str, value: &str) -> Result<bool, RulesetError> {
    match value {
        "true" => Ok(true),
        "false" => Ok(false),
        _ => Err(RulesetError::OutOfRange {
            game,
            key: key.to_string(),
            value: value.to_string(),
            expected: "true or false".to_string(),
        }),
    }
}

impl FromStr for Ruleset {
    type Err = RulesetError;

    fn from_str(s: &str) -> Result<Self, Self::Err> {
        let (name, opts) = match s.split_once(':') {
            Some((n, o)) => (n, Some(o)),
            None => (s, None),
        };
        // The name in any case (`Kalah`, as the game is written in prose); its options as given.
        let game = match name.to_ascii_lowercase().as_str() {
            "kalah" => GameKind::Kalah,
            "oware" => GameKind::Oware,
            "congkak" => GameKind::Congkak,
            _ => {
                return Err(RulesetError::UnknownName {
                    name: name.chars().take(40).collect(),
                })
            }
        };
        let mut r = Ruleset::default_for(game);
        let mut seen: Vec<&str> = Vec::new();
        let mut seeds_given = false;
        for pair in opts.into_iter().flat_map(|o| o.split(',')) {
            let Some((key, value)) = pair.split_once('=') else {
                return Err(RulesetError::MalformedPair {
                    pair: pair.to_string(),
                });
            };
            if key.is_empty() || value.is_empty() {
                return Err(RulesetError::MalformedPair {
                    pair: pair.to_string(),
                });
            }
            if !game.keys().contains(&key) {
                return Err(RulesetError::UnknownKey {
                    game,
                    key: key.to_string(),
                });
            }
            if seen.contains(&key) {
                return Err(RulesetError::DuplicateKey {
                    key: key.to_string(),
                });
            }
            seen.push(key);
            match (game, key) {
                (GameKind::Kalah, "pits") => r.pits = parse_num(game, key, value, 1, 8)? as u8,
                (GameKind::Congkak, "holes") => r.pits = parse_num(game, key, value, 5, 9)? as u8,
                (GameKind::Kalah, "seeds") => r.seeds = parse_num(game, key, value, 1, 8)? as u8,
                (GameKind::Oware, "seeds") => r.seeds = parse_num(game, key, value, 4, 6)? as u8,
                (GameKind::Congkak, "seeds") => {
                    r.seeds = parse_num(game, key, value, 1, 9)? as u8;
                    seeds_given = true;
                }
                (_, "sow_cap") => r.sow_cap = parse_num(game, key, value, 1, MAX_SOW_CAP)?,
                (_, "lap_cap") => r.lap_cap = parse_num(game, key, value, 1, MAX_LAP_CAP)?,
                (_, "empty_capture") => r.empty_capture = parse_bool(game, key, value)?,
                (_, "end_on_no_move") => r.end_on_no_move = parse_bool(game, key, value)?,
                (_, "pie") => r.pie = parse_bool(game, key, value)?,
                (_, "first_extra_turn") => r.first_extra_turn = parse_bool(game, key, value)?,
                (_, "sweep") => {
                    r.sweep = match value {
                        "owner" => Sweep::Owner,
                        "none" => Sweep::None,
                        _ => {
                            return Err(RulesetError::OutOfRange {
                                game,
                                key: key.to_string(),
                                value: value.to_string(),
                                expected: "owner or none".to_string(),
                            })
                        }
                    }
                }
                _ => unreachable!("every key of GameKind::keys is handled"),
            }
        }
        if game == GameKind::Congkak && !seeds_given {
            r.seeds = r.pits;
        }
        Ok(r)
    }
}

impl fmt::Display for Ruleset {
    /// Canonical form: name, then the non-default keys in [`Game::keys`] order.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let d = Ruleset::default_for(self.game);
        let mut parts: Vec<String> = Vec::new();
        for &key in self.game.keys() {
            let part = match key {
                "pits" if self.pits != d.pits => format!("pits={}", self.pits),
                "holes" if self.pits != d.pits => format!("holes={}", self.pits),
                // Congkak's default seed count follows the number of holes.
                "seeds" if self.game == GameKind::Congkak && self.seeds != self.pits => {
                    format!("seeds={}", self.seeds)
                }
                "seeds" if self.game != GameKind::Congkak && self.seeds != d.seeds => {
                    format!("seeds={}", self.seeds)
                }
                "sow_cap" if self.sow_cap != d.sow_cap => format!("sow_cap={}", self.sow_cap),
                "lap_cap" if self.lap_cap != d.lap_cap => format!("lap_cap={}", self.lap_cap),
                "empty_capture" if self.empty_capture => "empty_capture=true".to_string(),
                "sweep" if self.sweep == Sweep::None => "sweep=none".to_string(),
                "end_on_no_move" if self.end_on_no_move => "end_on_no_move=true".to_string(),
                "pie" if self.pie => "pie=true".to_string(),
                "first_extra_turn" if !self.first_extra_turn => "first_extra_turn=false".into(),
                _ => continue,
            };
            parts.push(part);
        }
        f.write_str(self.game.as_str())?;
        if !parts.is_empty() {
            write!(f, ":{}", parts.join(","))?;
        }
        Ok(())
    }
}

impl serde::Serialize for Ruleset {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for Ruleset {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let s = String::deserialize(deserializer)?;
        s.parse().map_err(serde::de::Error::custom)
    }
}
