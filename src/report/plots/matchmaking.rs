//! `matchmaking.svg/png` of a calibration on the humans' scale: a histogram of the site's
//! humans by rating bracket, with each level's reachable Elo range (the Elos its curve takes
//! over the knob range) drawn over it as a shaded span labelled with the share of humans inside
//! it, and the calibrated targets as dashed lines: which players each level can stand in for.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{colour, font, Drawn, HouseStyle, Plot, PlotError, GREY};
use crate::run_folder::calibration::MatchmakingFile;

/// The figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchmakingPlot {
    /// (low, high, humans) per bracket.
    pub brackets: Vec<(f64, f64, usize)>,
    /// (name, lowest Elo, highest Elo, share of humans) per level.
    pub levels: Vec<(String, f64, f64, f64)>,
    /// The calibrated targets.
    pub targets: Vec<f64>,
    pub humans: usize,
}

impl MatchmakingPlot {
    pub fn new(file: &MatchmakingFile) -> Self {
        MatchmakingPlot {
            brackets: file
                .table
                .rows
                .iter()
                .map(|r| (r.lo, r.hi, r.humans))
                .collect(),
            levels: file
                .table
                .levels
                .iter()
                .map(|l| (l.name.clone(), l.elo_min, l.elo_max, l.share))
                .collect(),
            targets: file.targets.iter().map(|t| t.0).collect(),
            humans: file.table.humans,
        }
    }
}

impl Plot for MatchmakingPlot {
    fn stem(&self) -> &'static str {
        "matchmaking"
    }

    fn caption(&self) -> String {
        format!(
            "The site's {} humans by rating (bars); shaded: the Elos each level reaches over its knob's range, with the share of humans inside; dashed: the calibrated targets.",
            self.humans
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let (Some(first), Some(last)) = (self.brackets.first(), self.brackets.last()) else {
            return Err(PlotError::NoData("no rating brackets".into()));
        };
        let finite = |v: f64| v.is_finite().then_some(v);
        let x0 = self
            .levels
            .iter()
            .filter_map(|l| finite(l.1))
            .chain(self.targets.iter().copied())
            .fold(first.0, f64::min);
        let x1 = self
            .levels
            .iter()
            .filter_map(|l| finite(l.2))
            .chain(self.targets.iter().copied())
            .fold(last.1, f64::max);
        let pad = 0.03 * (x1 - x0).max(1.0);
        let (x0, x1) = (x0 - pad, x1 + pad);
        let most = self.brackets.iter().map(|b| b.2).max().unwrap_or(0).max(1) as f64;
        // Room above the bars for one labelled strip per level.
        let strip = 0.12 * most;
        let top = most * 1.08 + strip * self.levels.len() as f64;
        let mut chart = ChartBuilder::on(area)
            .caption("Levels over the site's humans", font(24.0))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, 0.0..top)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("Elo (the humans' scale)")
            .y_desc("humans")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .house_style()
            .draw()
            .drawn()?;
        for (i, (name, lo, hi, share)) in self.levels.iter().enumerate() {
            if !(lo.is_finite() && hi.is_finite()) {
                continue;
            }
            let c = colour(i);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(*lo, 0.0), (*hi, top)],
                    c.mix(0.12).filled(),
                )))
                .drawn()?;
            let y = most * 1.08 + strip * (i as f64 + 0.5);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(*lo, y), (*hi, y)],
                    c.stroke_width(4),
                )))
                .drawn()?;
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((*lo, y))
                        + Text::new(
                            format!("{name}: {:.0}% of humans", 100.0 * share),
                            (4, -6),
                            font(14.0).pos(Pos::new(HPos::Left, VPos::Bottom)),
                        ),
                ))
                .drawn()?;
        }
        let bar = colour(6);
        chart
            .draw_series(
                self.brackets
                    .iter()
                    .filter(|b| b.2 > 0)
                    .map(|&(lo, hi, n)| {
                        let w = 0.04 * (hi - lo);
                        Rectangle::new([(lo + w, 0.0), (hi - w, n as f64)], bar.filled())
                    }),
            )
            .drawn()?;
        for &t in &self.targets {
            chart
                .draw_series(DashedLineSeries::new(
                    vec![(t, 0.0), (t, most * 1.05)],
                    6,
                    4,
                    GREY.stroke_width(1),
                ))
                .drawn()?;
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((t, most * 1.05))
                        + Text::new(
                            format!("{t:.0}"),
                            (3, 0),
                            font(13.0).pos(Pos::new(HPos::Left, VPos::Bottom)),
                        ),
                ))
                .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::curve::Curve;
    use crate::calibrate::matchmaking::{matchmaking, Level};
    use crate::calibrate::Knob;

    #[test]
    fn draws_the_humans_and_the_levels_reach() {
        let curve = Curve {
            lo: 0.0,
            hi: 2.0,
            beta: vec![1200.0, -400.0, 0.0],
            cov: vec![vec![400.0, 0.0, 0.0], vec![0.0; 3], vec![0.0; 3]],
            degree: 1,
            log_lik: 0.0,
            games: 0,
        };
        let ratings = vec![700.0, 1000.0, 1010.0, 1200.0, 1590.0, 1650.0];
        let level = Level {
            name: "alphabeta",
            curve: &curve,
            z: 1.96,
            integer: false,
        };
        let file = MatchmakingFile {
            reference_source: "test".into(),
            humans_source: "test".into(),
            knob: Knob::parse("option.Noise=0.0..2.0").unwrap(),
            level: 0.95,
            targets: vec![(1000.0, 1.5), (1400.0, 0.5)],
            table: matchmaking(&[level], &ratings, 50.0).unwrap(),
            ratings,
        };
        let plot = MatchmakingPlot::new(&file);
        assert_eq!(plot.brackets.len(), 20);
        assert_eq!(plot.brackets.iter().map(|b| b.2).sum::<usize>(), 6);
        assert_eq!(plot.levels[0].0, "alphabeta");
        let svg = super::super::render_svg(&plot).unwrap();
        assert!(svg.contains("Levels over the site") && svg.contains("alphabeta: 67% of humans"));
        assert!(svg.contains("<rect"));
    }
}
