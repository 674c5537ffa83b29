//! `think_time.svg/png`: how long each player thought per sow, as a box plot per player (box:
//! quartiles, line: median, diamond: mean, whiskers: the furthest times within 1.5 box lengths,
//! dots: the slowest times beyond them), from the `think_ms` lists of `games.jsonl`.
//!
//! `think_ms` holds one entry per sow after the opening, whoever made it; [`sow_players`] replays
//! the game with the rules engine to tell whose sow each was (extra turns and the pie rule's
//! `swap` make that more than alternation).

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{colour, font, padded, short, Drawn, HouseStyle, Plot, PlotError};
use crate::rules::{Move, Position, Ruleset, Side};
use crate::tournament::config::Opening;
use crate::tournament::results::{read_records, GameRecord};

/// For each entry of `record.think_ms`, the player who made that sow: 0 the first player, 1 the
/// second.
pub fn sow_players(record: &GameRecord) -> Result<Vec<usize>, String> {
    let row = &record.row;
    let ruleset: Ruleset = row
        .rules
        .parse()
        .map_err(|e| format!("game {}: rules `{}`: {e}", row.game_id, row.rules))?;
    let opening = Opening::parse(ruleset, &row.opening)
        .map_err(|e| format!("game {}: opening `{}`: {e}", row.game_id, row.opening))?;
    let mut pos = match &opening.state {
        Some(state) => Position::from_state(ruleset, state)
            .map_err(|e| format!("game {}: {e}", row.game_id))?,
        None => Position::new(ruleset),
    };
    let skip = opening.moves.len();
    let mut players = Vec::with_capacity(record.think_ms.len());
    for (i, text) in record.moves.iter().enumerate() {
        let mv: Move = text
            .parse()
            .map_err(|e| format!("game {}: {e}", row.game_id))?;
        if i >= skip {
            let side = pos
                .to_move()
                .ok_or_else(|| format!("game {}: a move after the end", row.game_id))?;
            // South is the first player's seat unless the pie rule swapped the seats.
            let first_player_side = if pos.swapped() {
                Side::North
            } else {
                Side::South
            };
            players.push(usize::from(side != first_player_side));
        }
        pos.play(mv)
            .map_err(|e| format!("game {}: move {} `{text}`: {e}", row.game_id, i + 1))?;
    }
    if players.len() != record.think_ms.len() {
        return Err(format!(
            "game {}: {} think times for {} sows after the opening",
            row.game_id,
            record.think_ms.len(),
            players.len()
        ));
    }
    Ok(players)
}

/// Think times per player, in `names` order, from every record. Games that cannot be replayed
/// are left out and described in the returned messages.
pub fn think_times(names: &[String], records: &[GameRecord]) -> (Vec<Vec<u64>>, Vec<String>) {
    let mut times = vec![Vec::new(); names.len()];
    let mut problems = Vec::new();
    for record in records {
        let who = |n: &str| names.iter().position(|x| x == n);
        let (Some(first), Some(second)) = (who(&record.row.first), who(&record.row.second)) else {
            continue;
        };
        match sow_players(record) {
            Ok(players) => {
                for (&p, &ms) in players.iter().zip(&record.think_ms) {
                    times[if p == 0 { first } else { second }].push(ms);
                }
            }
            Err(e) => problems.push(e),
        }
    }
    (times, problems)
}

/// A box plot's numbers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BoxStats {
    pub n: usize,
    pub min: f64,
    pub q1: f64,
    pub median: f64,
    pub q3: f64,
    pub max: f64,
    pub mean: f64,
    /// The smallest time ≥ q1 − 1.5·IQR.
    pub whisker_low: f64,
    /// The largest time ≤ q3 + 1.5·IQR.
    pub whisker_high: f64,
}

/// Linear-interpolation quantile of sorted values (type 7, as R's default).
fn quantile(sorted: &[f64], q: f64) -> f64 {
    let h = (sorted.len() - 1) as f64 * q;
    let (i, frac) = (h.floor() as usize, h - h.floor());
    match sorted.get(i + 1) {
        Some(next) => sorted[i] + frac * (next - sorted[i]),
        None => sorted[i],
    }
}

impl BoxStats {
    /// `None` for no samples.
    pub fn of(samples: &[u64]) -> Option<BoxStats> {
        if samples.is_empty() {
            return None;
        }
        let mut v: Vec<f64> = samples.iter().map(|&x| x as f64).collect();
        v.sort_by(f64::total_cmp);
        let (q1, q3) = (quantile(&v, 0.25), quantile(&v, 0.75));
        let iqr = q3 - q1;
        let whisker_low = v
            .iter()
            .copied()
            .find(|&x| x >= q1 - 1.5 * iqr)
            .unwrap_or(q1);
        let whisker_high = v
            .iter()
            .rev()
            .copied()
            .find(|&x| x <= q3 + 1.5 * iqr)
            .unwrap_or(q3);
        Some(BoxStats {
            n: v.len(),
            min: v[0],
            q1,
            median: quantile(&v, 0.5),
            q3,
            max: v[v.len() - 1],
            mean: v.iter().sum::<f64>() / v.len() as f64,
            whisker_low,
            whisker_high,
        })
    }
}

/// One player's row of the figure.
#[derive(Clone, Debug, PartialEq)]
pub struct PlayerTimes {
    pub name: String,
    pub stats: BoxStats,
    /// Times beyond the whiskers (at most 200 of them, the largest, to keep files small).
    pub outliers: Vec<f64>,
}

/// The think-time figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkTimePlot {
    pub players: Vec<PlayerTimes>,
    /// Games that could not be attributed (see [`think_times`]).
    pub problems: Vec<String>,
}

impl ThinkTimePlot {
    /// Reads `games.jsonl` of `dir`.
    pub fn from_dir(dir: &Path, names: &[String]) -> Result<Self, PlotError> {
        let records =
            read_records(dir).map_err(|e| PlotError::NoData(format!("no think times: {e:#}")))?;
        let (times, problems) = think_times(names, &records);
        Self::new(names, &times, problems)
    }

    pub fn new(
        names: &[String],
        times: &[Vec<u64>],
        problems: Vec<String>,
    ) -> Result<Self, PlotError> {
        let players: Vec<PlayerTimes> = names
            .iter()
            .zip(times)
            .filter_map(|(name, t)| {
                let stats = BoxStats::of(t)?;
                let mut outliers: Vec<f64> = t
                    .iter()
                    .map(|&x| x as f64)
                    .filter(|&x| x < stats.whisker_low || x > stats.whisker_high)
                    .collect();
                outliers.sort_by(|a, b| b.total_cmp(a));
                outliers.truncate(200);
                Some(PlayerTimes {
                    name: name.clone(),
                    stats,
                    outliers,
                })
            })
            .collect();
        if players.is_empty() {
            return Err(PlotError::NoData(
                "no think times: games.jsonl has no sow after an opening".into(),
            ));
        }
        Ok(ThinkTimePlot { players, problems })
    }
}

impl Plot for ThinkTimePlot {
    fn stem(&self) -> &'static str {
        "think_time"
    }

    fn caption(&self) -> String {
        let mut s = "Time per sow (ms) of each player: box from the first to the third quartile, \
                     line at the median, diamond at the mean, whiskers to the furthest times \
                     within 1.5 box lengths, dots beyond."
            .to_string();
        if !self.problems.is_empty() {
            s.push_str(&format!(
                " {} game(s) could not be replayed and are left out.",
                self.problems.len()
            ));
        }
        s
    }

    fn size(&self) -> (u32, u32) {
        (900, (150 + 60 * self.players.len() as u32).clamp(280, 1400))
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let n = self.players.len();
        if n == 0 {
            return Err(PlotError::NoData("no think times".into()));
        }
        let hi = self.players.iter().map(|p| p.stats.max).fold(1.0, f64::max);
        let (_, hi) = padded(0.0, hi);
        let names: Vec<String> = self.players.iter().map(|p| short(&p.name, 24)).collect();
        let label_width =
            names.iter().map(|l| l.chars().count()).max().unwrap_or(4) as u32 * 9 + 20;
        let mut chart = ChartBuilder::on(area)
            .caption("Think time per sow", font(24.0))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(label_width)
            .build_cartesian_2d(0.0..hi, (0..n - 1).into_segmented())
            .drawn()?;
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(y) if *y < n => names[n - 1 - *y].clone(),
                _ => String::new(),
            })
            .x_desc("ms per sow")
            .x_label_formatter(&|x| {
                if hi >= 10.0 {
                    format!("{x:.0}")
                } else {
                    format!("{x:.1}")
                }
            })
            .house_style()
            .draw()
            .drawn()?;
        let plot_area = chart.plotting_area();
        for (i, p) in self.players.iter().enumerate() {
            let row = n - 1 - i;
            let s = &p.stats;
            let c = colour(i);
            let centre = SegmentValue::CenterOf(row);
            // Box: the middle 50% of the row's height band, drawn in pixels around the centre.
            let (x_q1, y) = plot_area.map_coordinate(&(s.q1, centre.clone()));
            let (x_q3, _) = plot_area.map_coordinate(&(s.q3, centre.clone()));
            let (x_med, _) = plot_area.map_coordinate(&(s.median, centre.clone()));
            let (x_mean, _) = plot_area.map_coordinate(&(s.mean, centre.clone()));
            let (x_wl, _) = plot_area.map_coordinate(&(s.whisker_low, centre.clone()));
            let (x_wh, _) = plot_area.map_coordinate(&(s.whisker_high, centre.clone()));
            let half = 12;
            // Draw in pixels, relative to the plotting area.
            let root = plot_area.strip_coord_spec();
            let base = root.get_base_pixel();
            let shift = |(x, y): (i32, i32)| (x - base.0, y - base.1);
            let elems: Vec<(Vec<(i32, i32)>, ShapeStyle)> = vec![
                (vec![(x_wl, y), (x_q1, y)], BLACK.stroke_width(2)),
                (vec![(x_q3, y), (x_wh, y)], BLACK.stroke_width(2)),
                (
                    vec![(x_wl, y - half / 2), (x_wl, y + half / 2)],
                    BLACK.stroke_width(2),
                ),
                (
                    vec![(x_wh, y - half / 2), (x_wh, y + half / 2)],
                    BLACK.stroke_width(2),
                ),
            ];
            for (pts, style) in elems {
                root.draw(&PathElement::new(
                    pts.into_iter().map(shift).collect::<Vec<_>>(),
                    style,
                ))
                .drawn()?;
            }
            root.draw(&Rectangle::new(
                [
                    shift((x_q1, y - half)),
                    shift((x_q3.max(x_q1 + 2), y + half)),
                ],
                c.mix(0.35).filled(),
            ))
            .drawn()?;
            root.draw(&Rectangle::new(
                [
                    shift((x_q1, y - half)),
                    shift((x_q3.max(x_q1 + 2), y + half)),
                ],
                c.stroke_width(2),
            ))
            .drawn()?;
            root.draw(&PathElement::new(
                vec![shift((x_med, y - half)), shift((x_med, y + half))],
                BLACK.stroke_width(3),
            ))
            .drawn()?;
            let (mx, my) = shift((x_mean, y));
            root.draw(&Polygon::new(
                vec![(mx, my - 6), (mx + 6, my), (mx, my + 6), (mx - 6, my)],
                BLACK.filled(),
            ))
            .drawn()?;
            for &o in &p.outliers {
                let (ox, _) = plot_area.map_coordinate(&(o, centre.clone()));
                root.draw(&Circle::new(shift((ox, y)), 3, c.stroke_width(1)))
                    .drawn()?;
            }
            let label = format!(
                "median {:.0} ms, mean {:.1} ms, max {:.0} ms, {} sows",
                s.median, s.mean, s.max, s.n
            );
            root.draw(&Text::new(
                label,
                shift((x_q1.min(x_wl), y - half - 4)),
                font(13.0).pos(Pos::new(HPos::Left, VPos::Bottom)),
            ))
            .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn box_stats_of_known_samples() {
        let s = BoxStats::of(&[1, 2, 3, 4, 100]).unwrap();
        assert_eq!(
            (s.min, s.q1, s.median, s.q3, s.max),
            (1.0, 2.0, 3.0, 4.0, 100.0)
        );
        assert_eq!(s.whisker_high, 4.0);
        assert_eq!(s.whisker_low, 1.0);
        assert_eq!(s.mean, 22.0);
        assert!(BoxStats::of(&[]).is_none());
        let one = BoxStats::of(&[7]).unwrap();
        assert_eq!((one.q1, one.median, one.q3), (7.0, 7.0, 7.0));
    }
}

#[cfg(test)]
mod attribution_tests {
    use super::*;
    use crate::tournament::results::GameRow;

    fn record(opening: &str, moves: &[&str], think: &[u64]) -> GameRecord {
        GameRecord {
            row: GameRow {
                game_id: 7,
                pair_id: 3,
                round: 0,
                first: "a".into(),
                second: "b".into(),
                rules: "kalah".into(),
                opening: opening.into(),
                result: "1-0".into(),
                score_first: 0,
                score_second: 0,
                sows: moves.len() as u32,
                termination: "normal".into(),
                forfeit: String::new(),
                detail: String::new(),
                wall_ms: 0,
                first_think_ms: 0,
                first_max_ms: 0,
                second_think_ms: 0,
                second_max_ms: 0,
            },
            moves: moves.iter().map(|m| m.to_string()).collect(),
            think_ms: think.to_vec(),
        }
    }

    #[test]
    fn extra_turns_keep_the_mover() {
        // Kalah(6,4): pit 3's four seeds end in the store (extra turn); pit 1's do not.
        let r = record("", &["3", "1", "1"], &[10, 20, 30]);
        assert_eq!(sow_players(&r).unwrap(), vec![0, 0, 1]);
    }

    #[test]
    fn opening_moves_have_no_think_time() {
        // After the opening `3 1` north is to move: the first timed sow is the second player's,
        // the next the first player's.
        let r = record("3 1", &["3", "1", "1", "2"], &[30, 40]);
        assert_eq!(sow_players(&r).unwrap(), vec![1, 0]);
        let names = vec!["a".to_string(), "b".to_string()];
        let (times, problems) = think_times(&names, &[r]);
        assert!(problems.is_empty());
        assert_eq!(times, vec![vec![40], vec![30]]);
    }

    #[test]
    fn mismatched_records_are_reported_not_attributed() {
        let r = record("", &["3", "1"], &[10]);
        assert!(sow_players(&r).unwrap_err().contains("game 7"));
        let bad = record("", &["9"], &[10]);
        assert!(sow_players(&bad).is_err());
    }
}
