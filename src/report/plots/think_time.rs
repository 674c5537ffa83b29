//! `think_time.svg/png`: how long each player thought per sow, as a box plot per player (box:
//! quartiles, line: median, diamond: mean, whiskers: the furthest times within 1.5 box lengths,
//! dots: the slowest times beyond them), from the `think_ms` lists of `games.jsonl`; under each
//! box, a thin grey one of the CPU time its bot used for those sows (`cpu_ms`, where the games
//! carry it): a wall time far above the CPU time is time the machine, not the bot, took.
//!
//! Each `think_ms` entry is attributed with the record's `movers` (who made that sow).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{font, padded, short, Drawn, HouseStyle, Palette, Plot, PlotError};
use crate::run_folder::games::GameRecord;

/// Think times per player, in `names` order, from every record (games between players not in
/// `names` are left out).
pub fn think_times(names: &[String], records: &[GameRecord]) -> Vec<Vec<u64>> {
    let mut times = vec![Vec::new(); names.len()];
    let who = |n: &str| names.iter().position(|x| x == n);
    for record in records {
        let (Some(first), Some(second)) = (who(&record.row.first), who(&record.row.second)) else {
            continue;
        };
        for (&mover, &ms) in record.movers.iter().zip(&record.think_ms) {
            times[if mover == 0 { first } else { second }].push(ms);
        }
    }
    times
}

/// The CPU time of each sow per player, in `names` order, from the records that carry it
/// (`cpu_ms`, one entry per `think_ms` entry).
pub fn cpu_times(names: &[String], records: &[GameRecord]) -> Vec<Vec<u64>> {
    let mut times = vec![Vec::new(); names.len()];
    let who = |n: &str| names.iter().position(|x| x == n);
    for record in records {
        let (Some(first), Some(second)) = (who(&record.row.first), who(&record.row.second)) else {
            continue;
        };
        if record.cpu_ms.len() != record.movers.len() {
            continue;
        }
        for (&mover, &ms) in record.movers.iter().zip(&record.cpu_ms) {
            times[if mover == 0 { first } else { second }].push(ms);
        }
    }
    times
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
    /// The CPU time of the same sows, where the games carry it.
    pub cpu: Option<BoxStats>,
}

/// The think-time figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct ThinkTimePlot {
    pub players: Vec<PlayerTimes>,
    /// The run's colours, from all its players (not only those with times).
    pub palette: Palette,
}

impl ThinkTimePlot {
    /// The think times of `records` (a folder's `games.jsonl`); `played`: the folder was
    /// played by `arena run` (it has a `run.json`), not written from PGN.
    pub fn from_records(
        names: &[String],
        records: &[GameRecord],
        played: bool,
    ) -> Result<Self, PlotError> {
        // Games read from PGN (`arena analyse FILE.pgn`) carry no times: zeros everywhere. Played
        // games can be all zeros too (fast bots finish a game within a millisecond), so only a
        // folder that was not played is taken for PGN.
        let untimed = |r: &GameRecord| r.row.wall_ms == 0 && r.think_ms.iter().all(|&t| t == 0);
        if !played && !records.is_empty() && records.iter().all(untimed) {
            return Err(PlotError::NoData(
                "the games carry no times (read from PGN)".into(),
            ));
        }
        let mut plot = Self::new(names, &think_times(names, records))?;
        plot.add_cpu(names, &cpu_times(names, records));
        Ok(plot)
    }

    /// The CPU times of each player in `names` (as [`cpu_times`] gives them) beside its wall
    /// times.
    pub fn add_cpu(&mut self, names: &[String], cpu: &[Vec<u64>]) {
        for p in &mut self.players {
            if let Some(i) = names.iter().position(|n| *n == p.name) {
                p.cpu = cpu.get(i).and_then(|t| BoxStats::of(t));
            }
        }
    }

    pub fn new(names: &[String], times: &[Vec<u64>]) -> Result<Self, PlotError> {
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
                    cpu: None,
                })
            })
            .collect();
        if players.is_empty() {
            return Err(PlotError::NoData(
                "no think times: games.jsonl has no sow after an opening".into(),
            ));
        }
        Ok(ThinkTimePlot {
            players,
            palette: Palette::new(names),
        })
    }
}

impl Plot for ThinkTimePlot {
    fn stem(&self) -> &'static str {
        "think_time"
    }

    fn caption(&self) -> String {
        "Time per sow (ms) of each player: box from the first to the third quartile, line at the \
         median, diamond at the mean, whiskers to the furthest times within 1.5 box lengths, \
         dots beyond. The thin grey box under it: the CPU time its bot used for the same sows \
         (quartiles and median); wall time far above it was the machine's, not the bot's."
            .to_string()
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
        let hi = self
            .players
            .iter()
            .map(|p| p.stats.max.max(p.cpu.map_or(0.0, |c| c.q3)))
            .fold(1.0, f64::max);
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
            let c = self.palette.of(&p.name);
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
            if let Some(cpu) = &p.cpu {
                // The CPU box: thin, grey, just under the wall box.
                let (x_c1, _) = plot_area.map_coordinate(&(cpu.q1, centre.clone()));
                let (x_c3, _) = plot_area.map_coordinate(&(cpu.q3, centre.clone()));
                let (x_cm, _) = plot_area.map_coordinate(&(cpu.median, centre.clone()));
                let (top, bottom) = (y + half + 3, y + half + 9);
                root.draw(&Rectangle::new(
                    [shift((x_c1, top)), shift((x_c3.max(x_c1 + 2), bottom))],
                    RGBColor(120, 120, 120).mix(0.5).filled(),
                ))
                .drawn()?;
                root.draw(&PathElement::new(
                    vec![shift((x_cm, top)), shift((x_cm, bottom))],
                    BLACK.stroke_width(2),
                ))
                .drawn()?;
            }
            for &o in &p.outliers {
                let (ox, _) = plot_area.map_coordinate(&(o, centre.clone()));
                root.draw(&Circle::new(shift((ox, y)), 3, c.stroke_width(1)))
                    .drawn()?;
            }
            let cpu = p.cpu.map_or(String::new(), |c| {
                format!(" (CPU: median {:.0} ms, mean {:.1} ms)", c.median, c.mean)
            });
            let label = format!(
                "median {:.0} ms, mean {:.1} ms, max {:.0} ms, {} sows{cpu}",
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

    #[test]
    fn think_times_follow_the_movers() {
        let mut record: GameRecord = serde_json::from_str(
            r#"{"game_id":7,"pair_id":3,"round":0,"first":"a","second":"b","rules":"kalah",
                "opening":"3 1","result":"1-0","score_first":0,"score_second":0,"sows":4,
                "termination":"normal","forfeit":"","detail":"","wall_ms":0,"first_think_ms":0,
                "first_max_ms":0,"second_think_ms":0,"second_max_ms":0,
                "moves":["3","1","1","2"],"think_ms":[30,40],"movers":[1,0]}"#,
        )
        .unwrap();
        let names = vec!["a".to_string(), "b".to_string(), "c".to_string()];
        assert_eq!(
            think_times(&names, &[record.clone()]),
            vec![vec![40], vec![30], vec![]]
        );
        // A game of players not in the list is left out.
        record.row.first = "x".into();
        assert!(think_times(&names, &[record.clone()])
            .iter()
            .all(Vec::is_empty));
        record.row.first = "a".into();
        // No CPU times in this record: no CPU box.
        let plot = ThinkTimePlot::from_records(&names, &[record.clone()], true).unwrap();
        assert!(plot.players.iter().all(|p| p.cpu.is_none()));
        // With them, each player's sows' CPU times beside its wall times.
        let mut with_cpu = record.clone();
        with_cpu.cpu_ms = vec![3, 4];
        assert_eq!(
            cpu_times(&names, &[with_cpu.clone()]),
            vec![vec![4], vec![3], vec![]]
        );
        let plot = ThinkTimePlot::from_records(&names, &[with_cpu], true).unwrap();
        assert_eq!(plot.players[0].cpu.map(|c| c.median), Some(4.0));
        assert_eq!(plot.players[1].cpu.map(|c| c.median), Some(3.0));
        // A game without any time (read from PGN) gives no figure, rather than boxes at 0 ms.
        assert!(ThinkTimePlot::from_records(&names, &[record.clone()], false).is_ok());
        record.think_ms = vec![0, 0];
        let untimed = ThinkTimePlot::from_records(&names, &[record.clone()], false);
        assert!(matches!(untimed, Err(PlotError::NoData(why)) if why.contains("PGN")));
        // The same zeros from a played run (bots faster than a millisecond) are drawn.
        record.row.wall_ms = 0;
        assert!(ThinkTimePlot::from_records(&names, &[record], true).is_ok());
    }
}
