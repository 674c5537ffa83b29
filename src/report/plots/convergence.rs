//! `convergence.svg/png`: how the ratings settle as games accumulate. The games, in game-id
//! order, are rated again at about twenty checkpoints (prefixes), with normal (Hessian)
//! intervals for speed; each player is a line with its interval as a shaded band.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    finite_range, font, padded, short, with_side_legend, Drawn, HouseStyle, Palette, Plot,
    PlotError, GREY,
};
use crate::rating::RatedGame;
use crate::report::rate::{rate_games, RateOptions};

/// A player's rating after the first `games` games of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Point {
    pub games: usize,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
}

/// The convergence figure's data: one series per player (in `names` order).
#[derive(Clone, Debug, PartialEq)]
pub struct ConvergencePlot {
    pub names: Vec<String>,
    pub series: Vec<Vec<Point>>,
    pub total_games: usize,
    pub level: f64,
}

/// About `want` prefix lengths from small to `total`, rounded up to whole game pairs (even
/// numbers) where possible, strictly increasing, always ending with `total`.
pub fn checkpoints(total: usize, want: usize) -> Vec<usize> {
    let want = want.max(1);
    let mut out: Vec<usize> = Vec::with_capacity(want);
    for k in 1..=want {
        let mut c = (total * k).div_ceil(want);
        if c % 2 == 1 && c < total {
            c += 1;
        }
        let c = c.clamp(1, total.max(1));
        if out.last().map_or(true, |&last| c > last) && c <= total {
            out.push(c);
        }
    }
    out
}

impl ConvergencePlot {
    /// Rates the prefixes of `games` (in game-id order) among `names`.
    pub fn new(
        names: &[String],
        games: &[RatedGame],
        opts: &RateOptions,
    ) -> Result<Self, PlotError> {
        if games.is_empty() {
            return Err(PlotError::NoData("no games to rate".into()));
        }
        let quick = RateOptions {
            bootstrap: 0,
            ..opts.clone()
        };
        let mut series = vec![Vec::new(); names.len()];
        for c in checkpoints(games.len(), 20) {
            // A prefix where the fit fails (too few games) simply has no point.
            let Ok(rated) = rate_games(names, &games[..c], &quick, 0) else {
                continue;
            };
            for row in &rated.rows {
                let Some(i) = names.iter().position(|n| *n == row.name) else {
                    continue;
                };
                if row.games > 0 && row.elo.is_finite() {
                    series[i].push(Point {
                        games: c,
                        elo: row.elo,
                        low: row.ci_low,
                        high: row.ci_high,
                    });
                }
            }
        }
        if series.iter().all(Vec::is_empty) {
            return Err(PlotError::NoData(
                "no prefix of the games could be rated".into(),
            ));
        }
        Ok(ConvergencePlot {
            names: names.to_vec(),
            series,
            total_games: games.len(),
            level: opts.level,
        })
    }
}

impl Plot for ConvergencePlot {
    fn stem(&self) -> &'static str {
        "convergence"
    }

    fn caption(&self) -> String {
        format!(
            "Each player's Elo (line) and {:.0}% normal interval (band) after the first N games, \
             in game-id order.",
            self.level * 100.0
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let points = self.series.iter().flatten();
        let (lo, hi) = finite_range(points.flat_map(|p| [p.low, p.high, p.elo]))
            .ok_or_else(|| PlotError::NoData("no finite rating".into()))?;
        // A first checkpoint with wild intervals would flatten the rest: clip the y range to
        // what the later half of the run shows, widened a little.
        let late = self
            .series
            .iter()
            .flatten()
            .filter(|p| p.games * 2 >= self.total_games);
        let (lo, hi) = match finite_range(late.flat_map(|p| [p.low, p.high])) {
            Some((l, h)) => {
                let span = (h - l).max(50.0);
                (lo.max(l - span), hi.min(h + span))
            }
            None => (lo, hi),
        };
        let (lo, hi) = padded(lo, hi);
        let titled = area.titled("Rating convergence", font(24.0)).drawn()?;
        let palette = Palette::new(&self.names);
        let entries: Vec<(String, RGBColor)> = (self.names.iter().zip(&self.series))
            .filter(|(_, series)| !series.is_empty())
            .map(|(name, _)| (short(name, 20), palette.of(name)))
            .collect();
        let plot = with_side_legend(&titled, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0usize..self.total_games.max(2), lo..hi)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("games played")
            .y_desc("Elo")
            .y_label_formatter(&|x| format!("{x:.0}"))
            .house_style()
            .draw()
            .drawn()?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0, 1200.0), (self.total_games.max(2), 1200.0)],
                GREY.stroke_width(1),
            )))
            .drawn()?;
        let clip = |v: f64| v.clamp(lo, hi);
        for (name, series) in self.names.iter().zip(&self.series) {
            if series.is_empty() {
                continue;
            }
            let c = palette.of(name);
            let mut band: Vec<(usize, f64)> =
                series.iter().map(|p| (p.games, clip(p.high))).collect();
            band.extend(series.iter().rev().map(|p| (p.games, clip(p.low))));
            chart
                .draw_series(std::iter::once(Polygon::new(band, c.mix(0.15).filled())))
                .drawn()?;
            chart
                .draw_series(LineSeries::new(
                    series.iter().map(|p| (p.games, clip(p.elo))),
                    c.stroke_width(3),
                ))
                .drawn()?;
            chart
                .draw_series(
                    series
                        .iter()
                        .map(|p| Circle::new((p.games, clip(p.elo)), 3, c.filled())),
                )
                .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn checkpoints_increase_and_end_at_the_total() {
        assert_eq!(checkpoints(1, 20), vec![1]);
        assert_eq!(checkpoints(3, 20), vec![2, 3]);
        let c = checkpoints(400, 20);
        assert_eq!(c.len(), 20);
        assert_eq!(c[0], 20);
        assert_eq!(*c.last().unwrap(), 400);
        assert!(c.windows(2).all(|w| w[0] < w[1]));
        assert!(c.iter().all(|x| x % 2 == 0));
        assert!(checkpoints(0, 20).is_empty());
    }

    /// #28: the legend sat in the upper right corner, over the end of the top line. It now
    /// stands beside the plot: every legend entry lies right of every point of every line.
    #[test]
    fn the_legend_covers_no_line_end() {
        let names: Vec<String> = ["alphabeta-hard", "greedy", "random"]
            .map(String::from)
            .to_vec();
        let line = |end: f64| {
            (1..=10)
                .map(|k| Point {
                    games: k * 12,
                    elo: 1200.0 + (end - 1200.0) * k as f64 / 10.0,
                    low: 1200.0 + (end - 1200.0) * k as f64 / 10.0 - 40.0,
                    high: 1200.0 + (end - 1200.0) * k as f64 / 10.0 + 40.0,
                })
                .collect::<Vec<_>>()
        };
        let plot = ConvergencePlot {
            names: names.clone(),
            series: vec![line(1500.0), line(1200.0), line(900.0)],
            total_games: 120,
            level: 0.95,
        };
        let svg = super::super::render_svg(&plot).expect("svg");
        super::super::tests::assert_legend_beside_the_lines(&svg, &names);
    }
}
