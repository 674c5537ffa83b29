//! Ruleset patterns: which rulesets a bot plays, as it declares them in the handshake
//! (`id rulesets kalah:pits=6,seeds=4 oware`, docs/protocol.md).
//!
//! A pattern is `NAME` (every ruleset of that game) or `NAME:key=spec,...` with the ruleset
//! string's keys (docs/rules.md). A spec is a value (`pits=6`), alternatives (`sweep=owner|none`)
//! or an inclusive integer range (`pits=4..8`), and alternatives may mix values and ranges
//! (`pits=4|6..8`). A key the pattern does not list may take any value; a listed key is compared
//! with the ruleset's effective value, defaults included (`kalah:pie=false` matches `kalah`;
//! Congkak's `seeds` defaults to its `holes`).

use std::fmt;
use std::str::FromStr;

use crate::{GameKind, Ruleset, Sweep};

/// One accepted value or range of a key.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
enum Alternative {
    Range(u32, u32),
    Bool(bool),
    Sweep(Sweep),
}

/// A parsed ruleset pattern.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct RulesetPattern {
    text: String,
    game: GameKind,
    specs: Vec<(&'static str, Vec<Alternative>)>,
}

/// A pattern that does not parse: what is wrong, with the pattern.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error("ruleset pattern `{pattern}`: {problem}")]
pub struct PatternError {
    pub pattern: String,
    pub problem: String,
}

/// The effective value of `key` in `r`, as a number, a boolean or a sweep.
fn value_of(r: &Ruleset, key: &str) -> Alternative {
    match key {
        "pits" | "holes" => Alternative::Range(r.pits() as u32, r.pits() as u32),
        "seeds" => Alternative::Range(r.seeds(), r.seeds()),
        "sow_cap" => Alternative::Range(r.sow_cap(), r.sow_cap()),
        "lap_cap" => Alternative::Range(r.lap_cap(), r.lap_cap()),
        "empty_capture" => Alternative::Bool(r.empty_capture()),
        "end_on_no_move" => Alternative::Bool(r.end_on_no_move()),
        "pie" => Alternative::Bool(r.pie()),
        "first_extra_turn" => Alternative::Bool(r.first_extra_turn()),
        _ => Alternative::Sweep(r.sweep()),
    }
}

impl Alternative {
    fn accepts(&self, value: &Alternative) -> bool {
        match (self, value) {
            (Alternative::Range(lo, hi), Alternative::Range(v, _)) => lo <= v && v <= hi,
            (a, v) => a == v,
        }
    }
}

impl FromStr for RulesetPattern {
    type Err = PatternError;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let error = |problem: String| PatternError {
            pattern: text.chars().take(80).collect(),
            problem,
        };
        let (name, body) = match text.split_once(':') {
            Some((n, b)) => (n, Some(b)),
            None => (text, None),
        };
        let game = GameKind::ALL
            .into_iter()
            .find(|g| g.as_str() == name)
            .ok_or_else(|| {
                error(format!(
                    "unknown ruleset `{name}` (kalah, oware or congkak)"
                ))
            })?;
        let mut specs: Vec<(&'static str, Vec<Alternative>)> = Vec::new();
        for item in body.into_iter().flat_map(|b| b.split(',')) {
            let (key, spec) = item
                .split_once('=')
                .filter(|(k, s)| !k.is_empty() && !s.is_empty())
                .ok_or_else(|| error(format!("`{item}` is not key=spec")))?;
            let key = *game.keys().iter().find(|k| **k == key).ok_or_else(|| {
                error(format!(
                    "{game} has no key `{key}` (keys: {})",
                    game.keys().join(", ")
                ))
            })?;
            if specs.iter().any(|(k, _)| *k == key) {
                return Err(error(format!("key `{key}` given twice")));
            }
            let alternatives = spec
                .split('|')
                .map(|alt| {
                    parse_alternative(key, alt)
                        .ok_or_else(|| error(format!("{key}={alt}: {}", expected(key))))
                })
                .collect::<Result<Vec<_>, _>>()?;
            specs.push((key, alternatives));
        }
        Ok(RulesetPattern {
            text: text.to_string(),
            game,
            specs,
        })
    }
}

fn expected(key: &str) -> &'static str {
    match key {
        "empty_capture" | "end_on_no_move" | "pie" | "first_extra_turn" => "expected true or false",
        "sweep" => "expected owner or none",
        _ => "expected a whole number or a range a..b",
    }
}

fn parse_alternative(key: &str, alt: &str) -> Option<Alternative> {
    match key {
        "empty_capture" | "end_on_no_move" | "pie" | "first_extra_turn" => match alt {
            "true" => Some(Alternative::Bool(true)),
            "false" => Some(Alternative::Bool(false)),
            _ => None,
        },
        "sweep" => match alt {
            "owner" => Some(Alternative::Sweep(Sweep::Owner)),
            "none" => Some(Alternative::Sweep(Sweep::None)),
            _ => None,
        },
        _ => {
            let number = |s: &str| {
                s.bytes()
                    .all(|b| b.is_ascii_digit())
                    .then(|| s.parse().ok())?
            };
            let (lo, hi) = match alt.split_once("..") {
                Some((lo, hi)) => (number(lo)?, number(hi)?),
                None => (number(alt)?, number(alt)?),
            };
            (lo <= hi).then_some(Alternative::Range(lo, hi))
        }
    }
}

impl RulesetPattern {
    /// Whether `ruleset` is one of the rulesets this pattern names.
    pub fn matches(&self, ruleset: &Ruleset) -> bool {
        ruleset.kind() == self.game
            && self.specs.iter().all(|(key, alternatives)| {
                let value = value_of(ruleset, key);
                alternatives.iter().any(|a| a.accepts(&value))
            })
    }

    /// A ruleset the pattern names: the game's default, with each listed key set to its first
    /// alternative (a range's low end). `None` when no such ruleset exists (a value the rules do
    /// not allow).
    pub fn example(&self) -> Option<Ruleset> {
        let mut parts = Vec::new();
        for (key, alternatives) in &self.specs {
            let value = match alternatives.first()? {
                Alternative::Range(lo, _) => lo.to_string(),
                Alternative::Bool(b) => b.to_string(),
                Alternative::Sweep(Sweep::Owner) => "owner".to_string(),
                Alternative::Sweep(Sweep::None) => "none".to_string(),
            };
            parts.push(format!("{key}={value}"));
        }
        let text = if parts.is_empty() {
            self.game.as_str().to_string()
        } else {
            format!("{}:{}", self.game, parts.join(","))
        };
        let ruleset: Ruleset = text.parse().ok()?;
        self.matches(&ruleset).then_some(ruleset)
    }
}

impl fmt::Display for RulesetPattern {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.text)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pattern(text: &str) -> RulesetPattern {
        text.parse().unwrap_or_else(|e| panic!("{e}"))
    }

    fn ruleset(text: &str) -> Ruleset {
        text.parse().unwrap()
    }

    #[test]
    fn patterns_name_rulesets_by_their_effective_values() {
        let any_kalah = pattern("kalah");
        assert!(any_kalah.matches(&ruleset("kalah:pits=4,seeds=3,pie=true")));
        assert!(!any_kalah.matches(&ruleset("oware")));
        let standard = pattern("kalah:pits=6,seeds=4,pie=false");
        assert!(standard.matches(&ruleset("kalah")));
        assert!(!standard.matches(&ruleset("kalah:pie=true")));
        assert!(!standard.matches(&ruleset("kalah:seeds=5")));
        let some = pattern("kalah:pits=4|6..8,sweep=owner|none");
        for (text, yes) in [
            ("kalah:pits=4", true),
            ("kalah:pits=5", false),
            ("kalah:pits=7,sweep=none", true),
        ] {
            assert_eq!(some.matches(&ruleset(text)), yes, "{text}");
        }
        // Congkak's seeds default to its holes.
        assert!(pattern("congkak:seeds=5").matches(&ruleset("congkak:holes=5")));
        assert_eq!(
            pattern("kalah:pits=7,seeds=7,pie=true").example(),
            Some(ruleset("kalah:pits=7,seeds=7,pie=true"))
        );
        assert_eq!(pattern("oware").example(), Some(ruleset("oware")));
        assert_eq!(pattern("kalah:pits=9..12").example(), None);
    }

    #[test]
    fn malformed_patterns_say_what_is_wrong() {
        for (text, needle) in [
            ("chess", "unknown ruleset"),
            ("kalah:holes=5", "no key `holes`"),
            ("kalah:pits", "not key=spec"),
            ("kalah:pits=6,pits=4", "given twice"),
            ("kalah:pie=yes", "true or false"),
            ("kalah:pits=8..4", "range"),
            ("kalah:sweep=all", "owner or none"),
        ] {
            let err = text.parse::<RulesetPattern>().unwrap_err().to_string();
            assert!(err.contains(needle) && err.contains(text), "{text}: {err}");
        }
    }
}
