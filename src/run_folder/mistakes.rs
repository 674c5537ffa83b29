//! The mistake meter's arithmetic: from every judged sow (its exact loss against perfect play) to
//! the tables `arena analyse` writes: per player ([`player_rows`]), per game and player
//! ([`game_rows`]), the worst sows ([`worst_sows`]) and mistakes against rating in brackets
//! ([`bracket_rows`]). Pure: no solver and no files here (docs/solved.md has the definitions).

use std::collections::{BTreeMap, BTreeSet};

use super::analysis::{BracketRow, GameSideRow, MistakeRow, WorstSow};

/// One sow a player chose, with its verdict.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedSow {
    /// Its index in the game's moves (opening included): the position before it is the
    /// viewer's position number `ply`, the one after it `ply + 1`.
    pub ply: usize,
    /// 0 the game's first player, 1 the second.
    pub mover: u8,
    /// The pit sown (1-based, the mover's numbering).
    pub pit: u8,
    /// Seeds in the pits before the sow.
    pub seeds: u32,
    /// The position before the sow (docs/position.md).
    pub position: String,
    /// `None`: not proven (the node budget ran out, or a position the solver does not value).
    pub verdict: Option<Verdict>,
}

/// The exact values of a proven sow, from the mover's view (future gain: seeds from here on).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Verdict {
    /// The position's value: what the best sow keeps.
    pub value: i32,
    /// `value − value of the sow played`, ≥ 0.
    pub loss: i32,
    /// An optimal pit (1-based), when the solver's table still holds one.
    pub best: Option<u8>,
}

/// A game's judged sows.
#[derive(Clone, Debug, PartialEq)]
pub struct JudgedGame {
    pub game_id: u64,
    /// First and second player.
    pub players: [String; 2],
    /// Their ratings in this game (PGN Elo tags, or the folder's fitted ratings), if known.
    pub ratings: [Option<f64>; 2],
    pub sows: Vec<JudgedSow>,
    /// `None`: judged exactly by the solver; `Some(d)`: estimated by the alpha-beta search to
    /// `d` turns (Oware, Congkak: no exact solver), so its losses are estimates.
    pub estimate_depth: Option<u32>,
}

/// Counts over a set of sows, and the rates made of them (docs/solved.md, "Accuracy").
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tally {
    pub sows: u64,
    pub proven: u64,
    pub mistakes: u64,
    pub seeds_lost: i64,
    /// Σ 2·(seeds in the pits) over the proven sows: the most they could have lost.
    pub stake: i64,
    pub worst_loss: i32,
}

impl Tally {
    pub fn add(&mut self, sow: &JudgedSow) {
        self.sows += 1;
        if let Some(v) = sow.verdict {
            self.proven += 1;
            self.stake += 2 * i64::from(sow.seeds);
            if v.loss > 0 {
                self.mistakes += 1;
                self.seeds_lost += i64::from(v.loss);
                self.worst_loss = self.worst_loss.max(v.loss);
            }
        }
    }

    pub fn merge(&mut self, other: &Tally) {
        self.sows += other.sows;
        self.proven += other.proven;
        self.mistakes += other.mistakes;
        self.seeds_lost += other.seeds_lost;
        self.stake += other.stake;
        self.worst_loss = self.worst_loss.max(other.worst_loss);
    }

    /// Mistakes per proven sow (0 when nothing was proven).
    pub fn mistake_rate(&self) -> f64 {
        ratio(self.mistakes as f64, self.proven as f64)
    }

    /// The share of proven sows that keep the position's value: `1 − mistake rate`.
    pub fn accuracy(&self) -> f64 {
        if self.proven == 0 {
            0.0
        } else {
            1.0 - self.mistake_rate()
        }
    }

    /// `1 − seeds lost / stake`: the share of what was at stake that the sows kept.
    pub fn weighted_accuracy(&self) -> f64 {
        if self.stake == 0 {
            0.0
        } else {
            1.0 - self.seeds_lost as f64 / self.stake as f64
        }
    }
}

fn ratio(a: f64, b: f64) -> f64 {
    if b == 0.0 {
        0.0
    } else {
        a / b
    }
}

/// Each player's tally and games, by name.
/// How a game's sows were judged, as `analysis.csv`'s `judged_by` says it.
pub fn judged_by(estimate_depth: Option<u32>) -> String {
    match estimate_depth {
        None => "exact".into(),
        Some(d) => format!("estimate (alpha-beta to {d} turns)"),
    }
}

pub fn player_rows(games: &[JudgedGame], node_budget: u64) -> Vec<MistakeRow> {
    let mut by: BTreeMap<&str, (u64, Tally, BTreeSet<String>)> = BTreeMap::new();
    for g in games {
        for (p, name) in g.players.iter().enumerate() {
            let entry = by.entry(name).or_default();
            entry.0 += 1;
            entry.2.insert(judged_by(g.estimate_depth));
            for s in g.sows.iter().filter(|s| usize::from(s.mover) == p) {
                entry.1.add(s);
            }
        }
    }
    by.into_iter()
        .map(|(player, (games, t, how))| {
            MistakeRow {
                judged_by: how.into_iter().collect::<Vec<_>>().join(" + "),
                player: player.to_string(),
                games,
                sows: t.sows,
                proven: t.proven,
                mistakes: t.mistakes,
                seeds_lost: t.seeds_lost,
                stake: t.stake,
                worst_loss: t.worst_loss,
                node_budget,
                accuracy: t.accuracy(),
                weighted_accuracy: t.weighted_accuracy(),
                ..Default::default()
            }
            .finish()
        })
        .collect()
}

/// One row per game and player, in game order, the first player first.
pub fn game_rows(games: &[JudgedGame]) -> Vec<GameSideRow> {
    let mut rows = Vec::with_capacity(2 * games.len());
    for g in games {
        for p in 0..2 {
            let mut t = Tally::default();
            for s in g.sows.iter().filter(|s| usize::from(s.mover) == p) {
                t.add(s);
            }
            rows.push(GameSideRow {
                game_id: g.game_id,
                player: g.players[p].clone(),
                opponent: g.players[1 - p].clone(),
                seat: if p == 0 { "first" } else { "second" }.to_string(),
                rating: g.ratings[p],
                sows: t.sows,
                proven: t.proven,
                mistakes: t.mistakes,
                seeds_lost: t.seeds_lost,
                accuracy: t.accuracy(),
                weighted_accuracy: t.weighted_accuracy(),
                worst_loss: t.worst_loss,
            });
        }
    }
    rows
}

/// Each player's `per_player` costliest sows (loss > 0), the costliest first; ties go to the
/// earlier game and sow.
pub fn worst_sows(games: &[JudgedGame], per_player: usize) -> Vec<WorstSow> {
    let mut all: Vec<WorstSow> = Vec::new();
    for g in games {
        for s in &g.sows {
            let Some(v) = s.verdict.filter(|v| v.loss > 0) else {
                continue;
            };
            all.push(WorstSow {
                player: g.players[usize::from(s.mover)].clone(),
                game_id: g.game_id,
                ply: s.ply,
                played: s.pit,
                best: v.best,
                value: v.value,
                loss: v.loss,
                position: s.position.clone(),
            });
        }
    }
    all.sort_by_key(|w| (-w.loss, w.game_id, w.ply));
    let mut kept: BTreeMap<String, usize> = BTreeMap::new();
    all.retain(|w| {
        let n = kept.entry(w.player.clone()).or_default();
        *n += 1;
        *n <= per_player
    });
    all
}

/// Mistakes against rating. Each game side with a rating goes to its `width`-Elo bracket
/// (`floor(rating / width) · width`), except the sows of the players in `points` (the bot
/// levels), which each make a row of their own at their mean rating over their rated games.
/// Sides without a rating are left out. Brackets in rating order, then the points by rating.
pub fn bracket_rows(
    games: &[JudgedGame],
    points: &BTreeSet<String>,
    width: f64,
) -> Vec<BracketRow> {
    #[derive(Default)]
    struct Group {
        players: BTreeSet<String>,
        sides: u64,
        ratings: f64,
        tally: Tally,
    }
    let mut brackets: BTreeMap<i64, Group> = BTreeMap::new();
    let mut players: BTreeMap<String, Group> = BTreeMap::new();
    for g in games {
        for p in 0..2 {
            let Some(r) = g.ratings[p].filter(|r| r.is_finite()) else {
                continue;
            };
            let name = &g.players[p];
            let group = if points.contains(name) {
                players.entry(name.clone()).or_default()
            } else {
                brackets.entry((r / width).floor() as i64).or_default()
            };
            group.players.insert(name.clone());
            group.sides += 1;
            group.ratings += r;
            for s in g.sows.iter().filter(|s| usize::from(s.mover) == p) {
                group.tally.add(s);
            }
        }
    }
    let row = |group: String, kind: &str, rating: f64, g: &Group| {
        let t = &g.tally;
        let rate = t.mistake_rate();
        BracketRow {
            group,
            kind: kind.to_string(),
            rating,
            players: g.players.len() as u64,
            games: g.sides,
            proven: t.proven,
            mistakes: t.mistakes,
            mistake_rate: rate,
            mistake_rate_se: if t.proven == 0 {
                0.0
            } else {
                (rate * (1.0 - rate) / t.proven as f64).sqrt()
            },
            seeds_lost: t.seeds_lost,
            seeds_lost_per_game: ratio(t.seeds_lost as f64, g.sides as f64),
        }
    };
    let mut rows: Vec<BracketRow> = brackets
        .iter()
        .map(|(&b, g)| {
            let lo = b as f64 * width;
            row(
                format!("{lo:.0}–{:.0}", lo + width),
                "bracket",
                lo + width / 2.0,
                g,
            )
        })
        .collect();
    let mut levels: Vec<BracketRow> = players
        .iter()
        .map(|(name, g)| row(name.clone(), "player", g.ratings / g.sides as f64, g))
        .collect();
    levels.sort_by(|a, b| a.rating.total_cmp(&b.rating));
    rows.extend(levels);
    rows
}

#[cfg(test)]
mod tests {
    use super::*;

    fn sow(ply: usize, mover: u8, seeds: u32, loss: Option<i32>) -> JudgedSow {
        JudgedSow {
            ply,
            mover,
            pit: 1,
            seeds,
            position: format!("p{ply}"),
            verdict: loss.map(|loss| Verdict {
                value: 2,
                loss,
                best: Some(2),
            }),
        }
    }

    fn game(
        id: u64,
        players: [&str; 2],
        ratings: [Option<f64>; 2],
        sows: Vec<JudgedSow>,
    ) -> JudgedGame {
        JudgedGame {
            game_id: id,
            players: players.map(String::from),
            ratings,
            sows,
            estimate_depth: None,
        }
    }

    /// Worked by hand: ann's sows lose 0, 4 and (unproven); bob's 2 and 0.
    fn two_games() -> Vec<JudgedGame> {
        vec![
            game(
                0,
                ["ann", "bob"],
                [Some(1420.0), Some(1650.0)],
                vec![
                    sow(0, 0, 20, Some(0)),
                    sow(1, 1, 19, Some(2)),
                    sow(2, 0, 10, Some(4)),
                ],
            ),
            game(
                1,
                ["bob", "ann"],
                [Some(1610.0), None],
                vec![sow(0, 0, 20, Some(0)), sow(1, 1, 18, None)],
            ),
        ]
    }

    #[test]
    fn players_and_accuracy_by_hand() {
        let rows = player_rows(&two_games(), 99);
        let ann = &rows[0];
        assert_eq!(
            (ann.player.as_str(), ann.games, ann.sows, ann.proven),
            ("ann", 2, 3, 2)
        );
        assert_eq!(
            (ann.mistakes, ann.seeds_lost, ann.stake, ann.worst_loss),
            (1, 4, 60, 4)
        );
        assert!((ann.accuracy - 0.5).abs() < 1e-12);
        // 1 − 4 / (2·20 + 2·10)
        assert!((ann.weighted_accuracy - (1.0 - 4.0 / 60.0)).abs() < 1e-12);
        let bob = &rows[1];
        assert_eq!(
            (bob.proven, bob.mistakes, bob.seeds_lost, bob.stake),
            (2, 1, 2, 78)
        );
        assert!((bob.seeds_lost_per_game - 1.0).abs() < 1e-12);
    }

    #[test]
    fn games_and_worst_sows() {
        let rows = game_rows(&two_games());
        assert_eq!(rows.len(), 4);
        assert_eq!(
            (rows[0].player.as_str(), rows[0].seat.as_str()),
            ("ann", "first")
        );
        assert_eq!((rows[0].mistakes, rows[0].seeds_lost), (1, 4));
        assert_eq!(rows[3].rating, None);
        assert_eq!((rows[3].sows, rows[3].proven), (1, 0));
        let worst = worst_sows(&two_games(), 1);
        let got: Vec<(&str, i32, usize)> = worst
            .iter()
            .map(|w| (w.player.as_str(), w.loss, w.ply))
            .collect();
        assert_eq!(got, [("ann", 4, 2), ("bob", 2, 1)]);
        assert_eq!(worst[0].position, "p2");
    }

    #[test]
    fn brackets_and_points() {
        let games = two_games();
        // bob is a point of his own; ann's one rated side falls in 1400–1500.
        let points: BTreeSet<String> = ["bob".to_string()].into();
        let rows = bracket_rows(&games, &points, 100.0);
        assert_eq!(rows.len(), 2);
        assert_eq!(
            (rows[0].group.as_str(), rows[0].kind.as_str()),
            ("1400–1500", "bracket")
        );
        assert_eq!((rows[0].proven, rows[0].mistakes, rows[0].games), (2, 1, 1));
        assert!((rows[0].rating - 1450.0).abs() < 1e-12);
        assert!((rows[0].mistake_rate_se - (0.25f64 / 2.0).sqrt()).abs() < 1e-12);
        assert_eq!(
            (rows[1].group.as_str(), rows[1].kind.as_str()),
            ("bob", "player")
        );
        assert!((rows[1].rating - 1630.0).abs() < 1e-12);
        assert_eq!((rows[1].games, rows[1].seeds_lost), (2, 2));
        // Without points, bob's two sides fall in 1600–1700.
        let rows = bracket_rows(&games, &BTreeSet::new(), 100.0);
        assert_eq!(
            rows.iter().map(|r| r.group.as_str()).collect::<Vec<_>>(),
            ["1400–1500", "1600–1700"]
        );
    }
}
