//! A reference pool: players whose Elos are held fixed (given, or rated once) while a candidate
//! plays against them. `arena calibrate` places a knob against one, `arena gate` checks levels
//! against one.

use anyhow::{bail, Result};

use super::players::{bundled_spec, DEFAULT_FIELD};
use crate::vocab::BotSpec;

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
            ReferencePlayer::Bundled { bot, options } => bundled_spec(&self.name, bot, options)?,
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
