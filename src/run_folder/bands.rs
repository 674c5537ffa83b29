//! `bands.toml`, the bands file of `arena gate` (docs/regression-testing.md): read here into
//! [`BandsFile`], and its settings written from the same tables by `arena calibrate` (see
//! [`super::calibration::bands_toml`], which adds the pool and the levels with their comments).
//!
//! The game settings ([`GameTable`]) are declared once, for the bands file and the tournament
//! file alike: both flatten it into their own keys. serde's `deny_unknown_fields` does not work
//! with `flatten`, so the keys no table takes are collected and refused by [`refuse_unknown`].

use std::collections::BTreeMap;
use std::path::PathBuf;

use anyhow::{bail, Result};
use serde::{Deserialize, Serialize};

/// The game settings of a tournament or bands file: the keys of the game flags (`--rules`,
/// `--opening-plies`, ...), each optional; a flag overrides its key.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct GameTable {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rules: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub opening_plies: Option<u32>,
    /// Relative to the file's folder.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub openings: Option<PathBuf>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub concurrency: Option<usize>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub movetime: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tc: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub nodes: Option<u64>,
}

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
}

/// A bands file as written: the settings, the reference pool and the levels.
#[derive(Debug, Default, Deserialize)]
pub struct BandsFile {
    #[serde(flatten)]
    pub game: GameTable,
    #[serde(flatten)]
    pub gate: GateTable,
    #[serde(default)]
    pub reference: ReferenceTable,
    /// The levels: tournament `[[bot]]` tables plus `elo` and `tolerance`, or `band` (the
    /// tournament's player type is the command line's, which checks them).
    #[serde(default)]
    pub bot: Vec<toml::Table>,
    /// Whatever no table above took: refused by [`BandsFile::parse`].
    #[serde(flatten)]
    unknown: toml::Table,
}

/// `[reference]`: bundled players with their Elos, and `[[reference.bot]]` tables with `elo`.
#[derive(Debug, Default, Deserialize)]
pub struct ReferenceTable {
    #[serde(default)]
    pub bot: Vec<toml::Table>,
    #[serde(flatten)]
    pub bundled: BTreeMap<String, f64>,
}

/// The top-level settings as `arena calibrate` writes them: `key = value` lines, game settings
/// first.
#[derive(Serialize)]
struct Settings<'a> {
    #[serde(flatten)]
    game: &'a GameTable,
    #[serde(flatten)]
    gate: &'a GateTable,
}

impl BandsFile {
    /// Reads a bands file's text; a key that is no setting, `reference` or `bot` is an error.
    pub fn parse(text: &str) -> Result<BandsFile> {
        let file: BandsFile = toml::from_str(text)?;
        refuse_unknown(&file.unknown)?;
        Ok(file)
    }

    /// The `key = value` lines of `game` and `gate` (the keys [`BandsFile::parse`] reads back),
    /// unset ones left out.
    pub fn settings_text(game: &GameTable, gate: &GateTable) -> String {
        toml::to_string(&Settings { game, gate }).expect("numbers, strings and paths serialise")
    }
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
        let game = GameTable {
            rules: Some("kalah:pits=4,seeds=3".into()),
            opening_plies: Some(2),
            movetime: Some(50),
            depth: Some(3),
            tc: Some("10+0.1".into()),
            ..GameTable::default()
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
        // Keys of the tables stay theirs: an Elo in [reference], a level's keys in [[bot]].
        let file = BandsFile::parse("[reference]\nrules = 900\n[[bot]]\ncolour = 1\n").unwrap();
        assert_eq!(file.reference.bundled["rules"], 900.0);
        assert!(file.game.rules.is_none() && file.bot[0].contains_key("colour"));
        assert!(BandsFile::parse("depth = \"deep\"\n").is_err());
    }
}
