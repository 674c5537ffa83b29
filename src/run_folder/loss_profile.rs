//! The shape of a player's mistakes (`arena analyse`'s `analysis-losses.csv` and `--profile`):
//! for each rating bracket of the people in the games and for each level at its rating, how the
//! seeds lost per sow are distributed (none, a little, a lot), and where in the game they are
//! lost (opening, middle game, ending). Two players of one strength can lose the same seeds a
//! game in very different ways: a few large blunders in otherwise perfect play, or many small
//! inaccuracies spread over the game; people do the second, and a computer opponent meant to
//! stand in for them should too (docs/bots.md, "Mistakes like a human's").
//!
//! Pure: from the judged sows (`mistakes::JudgedGame`) to rows and comparisons.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use anyhow::{Context, Result};
use serde::{Deserialize, Serialize};

use super::mistakes::JudgedGame;

/// The file of the groups' loss distributions.
pub const ANALYSIS_LOSSES_CSV: &str = "analysis-losses.csv";

/// Writes `analysis-losses.csv`: one [`LossRow`] per group.
pub fn write_losses(dir: &Path, groups: &[Group]) -> Result<()> {
    let path = dir.join(ANALYSIS_LOSSES_CSV);
    let mut w = csv::Writer::from_writer(super::files::create(&path)?);
    for g in groups {
        w.serialize(g.row())
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    w.flush()
        .with_context(|| format!("cannot write {}", path.display()))?;
    Ok(())
}

/// The loss bins, in seeds: `[lo, hi]` inclusive (`hi = None`: and above).
pub const BINS: [(i32, Option<i32>); 6] = [
    (0, Some(0)),
    (1, Some(2)),
    (3, Some(4)),
    (5, Some(8)),
    (9, Some(16)),
    (17, None),
];

/// The bins' labels, as the CSV columns and the figure name them.
pub const BIN_LABELS: [&str; 6] = ["0", "1-2", "3-4", "5-8", "9-16", "17+"];

/// The game's phases by seeds in the pits before the sow: the opening has at least
/// [`OPENING_SEEDS`], the ending at most [`ENDING_SEEDS`], the middle game the rest.
pub const OPENING_SEEDS: u32 = 36;
/// See [`OPENING_SEEDS`].
pub const ENDING_SEEDS: u32 = 18;

/// The bin of a loss.
pub fn bin_of(loss: i32) -> usize {
    BINS.iter()
        .position(|&(lo, hi)| loss >= lo && hi.map_or(true, |h| loss <= h))
        .unwrap_or(BINS.len() - 1)
}

/// Counts over a group's proven sows.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Profile {
    /// Proven sows per loss bin.
    pub bins: [u64; 6],
    /// Seeds lost, and proven sows, per phase (opening, middle, ending).
    pub phase_lost: [i64; 3],
    pub phase_sows: [u64; 3],
}

impl Profile {
    pub fn sows(&self) -> u64 {
        self.bins.iter().sum()
    }

    /// The share of the sows in each bin (zeros when there are none).
    pub fn shares(&self) -> [f64; 6] {
        let n = self.sows() as f64;
        self.bins.map(|b| if n == 0.0 { 0.0 } else { b as f64 / n })
    }

    /// Seeds lost per proven sow.
    pub fn mean_loss(&self) -> f64 {
        let n = self.sows();
        if n == 0 {
            0.0
        } else {
            self.phase_lost.iter().sum::<i64>() as f64 / n as f64
        }
    }

    /// Seeds lost per proven sow in each phase.
    pub fn phase_means(&self) -> [f64; 3] {
        std::array::from_fn(|p| {
            if self.phase_sows[p] == 0 {
                0.0
            } else {
                self.phase_lost[p] as f64 / self.phase_sows[p] as f64
            }
        })
    }

    fn add(&mut self, seeds: u32, loss: i32) {
        self.bins[bin_of(loss)] += 1;
        let phase = if seeds >= OPENING_SEEDS {
            0
        } else if seeds > ENDING_SEEDS {
            1
        } else {
            2
        };
        self.phase_lost[phase] += i64::from(loss);
        self.phase_sows[phase] += 1;
    }
}

/// The total variation distance between two profiles' loss distributions: half the sum of the
/// bins' share differences, 0 (the same) to 1 (nothing in common).
pub fn distance(a: &Profile, b: &Profile) -> f64 {
    let (x, y) = (a.shares(), b.shares());
    0.5 * x.iter().zip(&y).map(|(p, q)| (p - q).abs()).sum::<f64>()
}

/// One row of `analysis-losses.csv`: a rating bracket's people, or one level at its rating.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LossRow {
    /// `1400–1500`, or the level's name.
    pub group: String,
    /// `bracket` or `player`.
    pub kind: String,
    /// The bracket's middle, or the level's mean rating over its games.
    pub rating: f64,
    pub players: u64,
    /// Proven sows.
    pub sows: u64,
    /// The share of the sows losing 0, 1–2, 3–4, 5–8, 9–16 and 17 or more seeds.
    pub loss_0: f64,
    pub loss_1_2: f64,
    pub loss_3_4: f64,
    pub loss_5_8: f64,
    pub loss_9_16: f64,
    pub loss_17_up: f64,
    /// Seeds lost per sow, over all and by phase.
    pub mean_loss: f64,
    pub opening_loss: f64,
    pub middle_loss: f64,
    pub ending_loss: f64,
}

/// A group of sows: who is in it and their profile.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Group {
    pub name: String,
    /// `bracket` or `player`.
    pub kind: &'static str,
    pub rating: f64,
    pub players: BTreeSet<String>,
    pub profile: Profile,
}

impl Group {
    pub fn row(&self) -> LossRow {
        let s = self.profile.shares();
        let [opening_loss, middle_loss, ending_loss] = self.profile.phase_means();
        LossRow {
            group: self.name.clone(),
            kind: self.kind.to_string(),
            rating: self.rating,
            players: self.players.len() as u64,
            sows: self.profile.sows(),
            loss_0: s[0],
            loss_1_2: s[1],
            loss_3_4: s[2],
            loss_5_8: s[3],
            loss_9_16: s[4],
            loss_17_up: s[5],
            mean_loss: self.profile.mean_loss(),
            opening_loss,
            middle_loss,
            ending_loss,
        }
    }
}

/// The groups, as `mistakes::bracket_rows` makes them: every rated game side in its `width`-Elo
/// bracket, except the players in `levels`, each a group of its own at its mean rating; only
/// proven sows count. Brackets in rating order, then the levels by rating.
pub fn groups(games: &[JudgedGame], levels: &BTreeSet<String>, width: f64) -> Vec<Group> {
    let mut brackets: BTreeMap<i64, Group> = BTreeMap::new();
    let mut players: BTreeMap<String, (Group, f64, u64)> = BTreeMap::new();
    for g in games {
        // Estimated losses (no solver for the game) are not mixed with exact ones.
        if g.estimate_depth.is_some() {
            continue;
        }
        for p in 0..2 {
            let Some(r) = g.ratings[p].filter(|r| r.is_finite()) else {
                continue;
            };
            let name = &g.players[p];
            let group = if levels.contains(name) {
                let entry = players.entry(name.clone()).or_default();
                entry.1 += r;
                entry.2 += 1;
                &mut entry.0
            } else {
                let b = (r / width).floor() as i64;
                let group = brackets.entry(b).or_default();
                let lo = b as f64 * width;
                group.name = format!("{lo:.0}–{:.0}", lo + width);
                group.kind = "bracket";
                group.rating = lo + width / 2.0;
                group
            };
            group.players.insert(name.clone());
            for s in g.sows.iter().filter(|s| usize::from(s.mover) == p) {
                if let Some(v) = s.verdict {
                    group.profile.add(s.seeds, v.loss);
                }
            }
        }
    }
    let mut out: Vec<Group> = brackets.into_values().collect();
    let mut levels: Vec<Group> = players
        .into_iter()
        .map(|(name, (mut g, sum, n))| {
            g.name = name;
            g.kind = "player";
            g.rating = sum / n as f64;
            g
        })
        .collect();
    levels.sort_by(|a, b| a.rating.total_cmp(&b.rating));
    out.extend(levels);
    out
}

/// A level beside the bracket of people at its rating.
#[derive(Clone, Debug, PartialEq)]
pub struct Comparison {
    pub level: Group,
    pub people: Group,
    /// [`distance`] between the two.
    pub distance: f64,
}

/// For each level named in `names` (in that order), the bracket of people whose range holds its
/// rating. A level with no people at its rating is left out, with a sentence saying so in the
/// second list (the others are still compared); a name that is no level of the games is an error.
pub fn compare(
    groups: &[Group],
    names: &[String],
    width: f64,
) -> Result<(Vec<Comparison>, Vec<String>), String> {
    let (mut compared, mut left_out) = (Vec::new(), Vec::new());
    for name in names {
        let level = groups
            .iter()
            .find(|g| g.kind == "player" && &g.name == name)
            .ok_or_else(|| {
                format!("--profile `{name}`: no level of that name with a rating in the games")
            })?;
        let lo = (level.rating / width).floor() * width;
        let people = groups
            .iter()
            .find(|g| g.kind == "bracket" && (g.rating - (lo + width / 2.0)).abs() < 1e-6);
        match people {
            Some(people) => compared.push(Comparison {
                level: level.clone(),
                people: people.clone(),
                distance: distance(&level.profile, &people.profile),
            }),
            None => left_out.push(format!(
                "--profile `{name}`: no people rated {lo:.0}–{:.0} (its rating {:.0}) in the games",
                lo + width,
                level.rating
            )),
        }
    }
    Ok((compared, left_out))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::run_folder::mistakes::{JudgedSow, Verdict};

    fn sow(mover: u8, seeds: u32, loss: Option<i32>) -> JudgedSow {
        JudgedSow {
            ply: 0,
            mover,
            pit: 1,
            seeds,
            position: String::new(),
            verdict: loss.map(|loss| Verdict {
                value: 0,
                loss,
                best: None,
            }),
        }
    }

    #[test]
    fn bins_by_hand() {
        let got: Vec<usize> = [0, 1, 2, 3, 4, 5, 8, 9, 16, 17, 40]
            .iter()
            .map(|&l| bin_of(l))
            .collect();
        assert_eq!(got, [0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5]);
    }

    /// Worked by hand: ann (1450, a person) loses 0, 2 and 10 seeds in the opening, middle and
    /// ending; the level `bot` (rated 1420 and 1480: 1450 on average) loses 0, 0 and 6; an
    /// unproven sow and an unrated side count nowhere.
    #[test]
    fn groups_and_comparison_by_hand() {
        let games = vec![
            JudgedGame {
                game_id: 0,
                players: ["ann".into(), "bot".into()],
                ratings: [Some(1450.0), Some(1420.0)],
                sows: vec![
                    sow(0, 40, Some(0)),
                    sow(1, 38, Some(0)),
                    sow(0, 30, Some(2)),
                    sow(1, 20, Some(6)),
                    sow(0, 10, Some(10)),
                    sow(0, 8, None),
                ],
                estimate_depth: None,
            },
            JudgedGame {
                game_id: 1,
                players: ["bot".into(), "cid".into()],
                ratings: [Some(1480.0), None],
                sows: vec![sow(0, 48, Some(0)), sow(1, 44, Some(4))],
                estimate_depth: None,
            },
        ];
        let levels: BTreeSet<String> = ["bot".to_string()].into();
        let g = groups(&games, &levels, 100.0);
        assert_eq!(g.len(), 2);
        let (people, bot) = (&g[0], &g[1]);
        assert_eq!(
            (people.name.as_str(), people.kind),
            ("1400–1500", "bracket")
        );
        assert_eq!(people.profile.bins, [1, 1, 0, 0, 1, 0]);
        assert_eq!(people.profile.phase_means(), [0.0, 2.0, 10.0]);
        assert!((people.profile.mean_loss() - 4.0).abs() < 1e-12);
        assert_eq!(
            (bot.name.as_str(), bot.kind, bot.rating),
            ("bot", "player", 1450.0)
        );
        assert_eq!(bot.profile.bins, [2, 0, 0, 1, 0, 0]);
        assert!((bot.profile.mean_loss() - 2.0).abs() < 1e-12);
        // Shares 1/3,1/3,0,0,1/3,0 against 2/3,0,0,1/3,0,0: ½(1/3 + 1/3 + 1/3 + 1/3) = 2/3.
        let (c, left_out) = compare(&g, &["bot".to_string()], 100.0).unwrap();
        assert!(left_out.is_empty());
        assert!((c[0].distance - 2.0 / 3.0).abs() < 1e-12);
        assert_eq!(c[0].people.name, "1400–1500");
        let row = people.row();
        assert!((row.loss_0 - 1.0 / 3.0).abs() < 1e-12 && row.sows == 3);
        assert!(compare(&g, &["nobody".to_string()], 100.0)
            .unwrap_err()
            .contains("no level"));
        let (c, left_out) = compare(&g, &["bot".to_string()], 50.0).unwrap();
        assert!(c.is_empty());
        assert!(left_out[0].contains("no people rated 1450–1500"));
    }
}
