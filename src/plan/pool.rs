//! A reference pool: players whose Elos are held fixed (given, or rated once) while a candidate
//! plays against them. `arena calibrate` places a knob against one, `arena gate` checks levels
//! against one. The fixed Elos are typed, rated by a round robin of the pool, or read from a
//! rating's `ratings.csv` ([`elos_from_ratings`]: the site's human scale).

use anyhow::{bail, Result};

use super::players::DEFAULT_FIELD;
use crate::run_folder::ratings::RatingsFile;
use crate::vocab::{BotSpec, FileBot};

/// A reference player and, if given, its fixed Elo.
pub struct Reference {
    pub name: String,
    pub player: ReferencePlayer,
    pub elo: Option<f64>,
}

/// Where a reference player comes from. A bundled player's binary is looked up only when the
/// games are about to be played.
pub enum ReferencePlayer {
    Bundled {
        bot: &'static str,
        options: &'static [(&'static str, &'static str)],
    },
    Bot(BotSpec),
}

impl Reference {
    /// The bundled player `name` (`random greedy easy normal hard mcts`).
    pub fn bundled(name: &str, elo: Option<f64>) -> Result<Reference> {
        let Some((_, bot, options)) = DEFAULT_FIELD.iter().find(|(n, _, _)| *n == name) else {
            let known: Vec<&str> = DEFAULT_FIELD.iter().map(|f| f.0).collect();
            bail!("`{name}` is not a bundled player ({})", known.join(", "));
        };
        Ok(Reference {
            name: name.to_string(),
            player: ReferencePlayer::Bundled { bot, options },
            elo,
        })
    }

    /// The player, named `name`.
    pub fn spec_named(&self, name: &str) -> Result<BotSpec> {
        let mut spec = match &self.player {
            ReferencePlayer::Bundled { .. } => FileBot::bundled(&self.name).spec("".as_ref())?,
            ReferencePlayer::Bot(spec) => spec.clone(),
        };
        spec.name = name.to_string();
        Ok(spec)
    }

    /// The player under its own name.
    pub fn spec(&self) -> Result<BotSpec> {
        self.spec_named(&self.name)
    }
}

/// Every reference player's [`BotSpec`].
pub fn specs(refs: &[Reference]) -> Result<Vec<BotSpec>> {
    refs.iter().map(Reference::spec).collect()
}

/// Gives every reference player without a typed Elo its Elo from `ratings` (by name): the pool
/// held at a rating's scale, the site's humans' say. A typed Elo wins over the file's. A player
/// the file does not rate is an error naming it. Returns where the pool's Elos came from, in
/// words (the file, its anchor and games, and which players were typed instead).
pub fn elos_from_ratings(refs: &mut [Reference], ratings: &RatingsFile) -> Result<String> {
    let mut typed = Vec::new();
    for r in refs.iter_mut() {
        match r.elo {
            Some(elo) => typed.push(format!("{} = {elo} typed", r.name)),
            None => r.elo = Some(ratings.elo(&r.name)?),
        }
    }
    let mut source = format!("reference Elos from {}", ratings.source());
    if !typed.is_empty() {
        source += &format!("; {}", typed.join(", "));
    }
    Ok(source)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_ratings_file_fills_the_untyped_elos_and_a_missing_player_is_named() {
        let ratings = RatingsFile {
            path: "site/ratings.csv".into(),
            players: vec![("easy".into(), 897.78), ("normal".into(), 1261.08)],
            anchor: Some("loose".into()),
            games: None,
        };
        let mut refs = vec![
            Reference::bundled("easy", None).unwrap(),
            Reference::bundled("normal", Some(1300.0)).unwrap(),
        ];
        let source = elos_from_ratings(&mut refs, &ratings).unwrap();
        assert_eq!((refs[0].elo, refs[1].elo), (Some(897.78), Some(1300.0)));
        assert_eq!(
            source,
            "reference Elos from site/ratings.csv (anchor: loose); normal = 1300 typed"
        );
        let mut refs = vec![Reference::bundled("hard", None).unwrap()];
        let err = elos_from_ratings(&mut refs, &ratings).unwrap_err();
        assert!(
            err.to_string()
                .starts_with("the reference player `hard` is not rated in site/ratings.csv"),
            "{err}"
        );
    }
}
