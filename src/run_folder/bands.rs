//! `bands.toml`, the bands file of `arena gate` (docs/regression-testing.md): [`BandsFile`] reads
//! it and writes it (`arena calibrate` writes one for the levels it found), so that what is
//! written is what the gate reads.
//!
//! The game settings ([`GameFlags`], the flags' own type) are declared once, for the flags, the
//! bands file and the tournament file alike: both files flatten it into their own keys. serde's `deny_unknown_fields` does not work
//! with `flatten`, so the keys no table takes are collected and refused by [`refuse_unknown`].

use std::collections::BTreeMap;

use anyhow::{bail, Context, Result};
use serde::{Deserialize, Serialize};

use crate::rating::gate::Band;
use crate::vocab::{FileBot, GameFlags};

/// The gate's settings of a bands file (the `arena gate` flags of the same names override them).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GateTable {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub seed: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub alpha: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub margin: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_pairs: Option<u32>,
    /// Half the first-mover advantage of the pool, Elo (from a calibration's curve).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_move_advantage: Option<f64>,
    /// A rating's `ratings.csv` (or the folder holding one), relative to the bands file: the
    /// reference players' Elos by name, for those the file does not type (a typed Elo wins).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_ratings: Option<std::path::PathBuf>,
    /// Where the reference Elos came from, in words (carried into `gate.json` and the report).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reference_source: Option<String>,
}

/// A bands file: the settings, the reference pool and the levels.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct BandsFile {
    #[serde(flatten)]
    pub game: GameFlags,
    #[serde(flatten)]
    pub gate: GateTable,
    #[serde(default)]
    pub reference: ReferenceTable,
    /// The levels, each with its band.
    #[serde(default)]
    pub bot: Vec<BandsBot>,
    /// Whatever no table above took: refused by [`BandsFile::parse`].
    #[serde(flatten, skip_serializing)]
    pub(super) unknown: toml::Table,
}

/// `[reference]`: bundled players with their Elos, and `[[reference.bot]]` tables with `elo`.
#[derive(Debug, Default, Serialize, Deserialize)]
pub struct ReferenceTable {
    #[serde(default)]
    pub bot: Vec<BandsBot>,
    #[serde(flatten)]
    pub bundled: BTreeMap<String, f64>,
}

/// A `[[bot]]` level or a `[[reference.bot]]` player: a tournament file's player table plus
/// its Elo, and for a level its band (`elo` and `tolerance`, or `band = "1000 ± 50"`).
#[derive(Clone, Debug, Default, Serialize, Deserialize)]
pub struct BandsBot {
    #[serde(flatten)]
    pub bot: FileBot,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub elo: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tolerance: Option<f64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub band: Option<String>,
    /// Comment lines written above the table (each with its `# `); not read back.
    #[serde(skip)]
    pub note: String,
    /// The keys no field took: refused by [`BandsFile::parse`].
    #[serde(flatten, skip_serializing)]
    pub(super) unknown: toml::Table,
}

impl BandsBot {
    /// A level's band: `elo` and `tolerance`, or `band` instead.
    pub fn level_band(&self) -> Result<Band> {
        match (self.elo, self.tolerance, &self.band) {
            (Some(elo), Some(tolerance), None) => Ok(Band { elo, tolerance }),
            (None, None, Some(text)) => {
                parse_band(text).with_context(|| format!("bot `{}`", self.bot.name))
            }
            _ => bail!(
                "level `{}` needs `elo` and `tolerance`, or `band = \"ELO ± TOLERANCE\"` instead",
                self.bot.name
            ),
        }
    }

    /// A reference player's fixed Elo (it has no band); `None` when it has none, for a bands
    /// file whose `reference_ratings` gives it.
    pub fn reference_elo(&self) -> Result<Option<f64>> {
        match (self.elo, self.tolerance, &self.band) {
            (elo, None, None) => Ok(elo),
            _ => bail!(
                "[[reference.bot]] `{}` has a band: bands are for levels (a reference player has \
                 its `elo`, or one from `reference_ratings`)",
                self.bot.name
            ),
        }
    }
}

/// Parses `1000 ± 50` (also `1000 +- 50`, `1000+/-50`).
pub fn parse_band(text: &str) -> Result<Band> {
    let t = text.replace("+/-", "±").replace("+-", "±");
    let (elo, tol) = t
        .split_once('±')
        .with_context(|| format!("band `{text}`: expected ELO ± TOLERANCE, e.g. 1000 ± 50"))?;
    let number = |s: &str| -> Result<f64> {
        s.trim()
            .parse::<f64>()
            .with_context(|| format!("band `{text}`: `{}` is not a number", s.trim()))
    };
    Ok(Band {
        elo: number(elo)?,
        tolerance: number(tol)?,
    })
}

/// The top-level settings as they are written: `key = value` lines, game settings first.
#[derive(Serialize)]
struct Settings<'a> {
    #[serde(flatten)]
    game: &'a GameFlags,
    #[serde(flatten)]
    gate: &'a GateTable,
}

/// One `[[bot]]` (or, under `reference`, `[[reference.bot]]`) table, for writing them one at a
/// time with their comments.
#[derive(Serialize)]
struct OneBot<'a> {
    bot: [&'a BandsBot; 1],
}

#[derive(Serialize)]
struct OneReference<'a> {
    reference: OneBot<'a>,
}

impl BandsFile {
    /// Reads a bands file's text; a key that is no setting, `reference` or `bot`, or that a
    /// player's table does not take, is an error.
    pub fn parse(text: &str) -> Result<BandsFile> {
        let file: BandsFile = toml::from_str(text)?;
        refuse_unknown(&file.unknown)?;
        for b in file.bot.iter().chain(&file.reference.bot) {
            refuse_unknown(&b.unknown).with_context(|| format!("bot `{}`", b.bot.name))?;
        }
        Ok(file)
    }

    /// The file's text after `heading` (comment lines): the settings, `[reference]`, then each
    /// player's table after its note; what [`BandsFile::parse`] reads back.
    pub fn to_text(&self, heading: &str) -> String {
        let mut s = heading.to_string();
        s.push_str(&Self::settings_text(&self.game, &self.gate));
        s.push_str("\n[reference]\n");
        s.push_str(&to_toml(&self.reference.bundled));
        for b in &self.reference.bot {
            s.push('\n');
            s.push_str(&b.note);
            s.push_str(&to_toml(&OneReference {
                reference: OneBot { bot: [b] },
            }));
        }
        s.push_str(&bot_tables(&self.bot));
        s
    }

    /// The `key = value` lines of `game` and `gate` (the keys [`BandsFile::parse`] reads back),
    /// unset ones left out.
    pub fn settings_text(game: &GameFlags, gate: &GateTable) -> String {
        to_toml(&Settings { game, gate })
    }
}

/// `[[bot]]` tables, each after a blank line and its note: a bands file's levels, or a
/// tournament file's players (`elo` and the band unset).
pub fn bot_tables(bots: &[BandsBot]) -> String {
    let mut s = String::new();
    for b in bots {
        s.push('\n');
        s.push_str(&b.note);
        s.push_str(&to_toml(&OneBot { bot: [b] }));
    }
    s
}

fn to_toml<T: Serialize>(value: &T) -> String {
    toml::to_string(value).expect("numbers, strings, paths and tables serialise")
}

/// Refuses the keys a file's tables did not take (collected by a `#[serde(flatten)]` map, in
/// place of `deny_unknown_fields`), naming them.
pub fn refuse_unknown(unknown: &toml::Table) -> Result<()> {
    if unknown.is_empty() {
        return Ok(());
    }
    let keys: Vec<String> = unknown.keys().map(|k| format!("`{k}`")).collect();
    bail!("unknown key {}", keys.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn settings_written_are_read_back() {
        let game = GameFlags {
            rules: Some("kalah:pits=4,seeds=3".into()),
            opening_plies: Some(2),
            movetime: Some(50),
            depth: Some(3),
            tc: Some("10+0.1".into()),
            ..GameFlags::default()
        };
        let gate = GateTable {
            alpha: Some(0.1),
            first_move_advantage: Some(30.0),
            ..GateTable::default()
        };
        let text = BandsFile::settings_text(&game, &gate);
        assert_eq!(
            text,
            "rules = \"kalah:pits=4,seeds=3\"\nopening_plies = 2\nmovetime = 50\n\
             tc = \"10+0.1\"\ndepth = 3\nalpha = 0.1\nfirst_move_advantage = 30.0\n"
        );
        let file = BandsFile::parse(&format!("{text}[reference]\neasy = 1000\n")).unwrap();
        assert_eq!((file.game, file.gate), (game, gate));
        assert_eq!(
            file.reference.bundled,
            BTreeMap::from([("easy".into(), 1000.0)])
        );
    }

    #[test]
    fn unknown_keys_are_refused_by_name() {
        let err = BandsFile::parse("opening_plies = 2\nopening_pliez = 3\n").unwrap_err();
        assert_eq!(err.to_string(), "unknown key `opening_pliez`");
        // Keys of the tables stay theirs: an Elo in [reference], a level's keys in [[bot]],
        // where an unknown one is refused with the level's name.
        let file = BandsFile::parse("[reference]\nrules = 900\n").unwrap();
        assert_eq!(file.reference.bundled["rules"], 900.0);
        assert!(file.game.rules.is_none());
        let err = BandsFile::parse("[[bot]]\nname = \"a\"\ncolour = 1\n").unwrap_err();
        assert_eq!(format!("{err:#}"), "bot `a`: unknown key `colour`");
        assert!(BandsFile::parse("depth = \"deep\"\n").is_err());
    }
}
