//! `ladder.svg/png`: the site's ladder. Each bot's incremental (K-factor) Elo after each of its
//! games, in game-id order, starting from 1200: what the site would show, and how much it
//! wanders compared with the fitted ratings.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    finite_range, font, padded, short, with_side_legend, Drawn, HouseStyle, Palette, Plot,
    PlotError, GREY,
};
use crate::rating::ladder::LadderTrack;

/// The ladder figure's data: each player's trajectory (rating before its first game, then after
/// each game).
#[derive(Clone, Debug, PartialEq)]
pub struct LadderPlot {
    pub names: Vec<String>,
    pub tracks: Vec<Vec<f64>>,
    pub k: f64,
}

impl LadderPlot {
    /// `names` and `tracks` in the same (player index) order, as in `Rated`.
    pub fn new(names: &[String], tracks: &[LadderTrack], k: f64) -> Result<Self, PlotError> {
        if tracks.iter().all(|t| t.trajectory.len() < 2) {
            return Err(PlotError::NoData("no player has a rated game".into()));
        }
        Ok(LadderPlot {
            names: names.to_vec(),
            tracks: tracks.iter().map(|t| t.trajectory.clone()).collect(),
            k,
        })
    }
}

impl Plot for LadderPlot {
    fn stem(&self) -> &'static str {
        "ladder"
    }

    fn caption(&self) -> String {
        format!(
            "The site's incremental Elo (K = {}) of each bot after each of its games, from 1200.",
            self.k
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let (lo, hi) = finite_range(self.tracks.iter().flatten().copied().chain([1200.0]))
            .ok_or_else(|| PlotError::NoData("no finite ladder rating".into()))?;
        let (lo, hi) = padded(lo, hi);
        let longest = self.tracks.iter().map(Vec::len).max().unwrap_or(0);
        let x_max = longest.saturating_sub(1).max(1);
        let titled = area
            .titled(&format!("Site ladder (K = {})", self.k), font(24.0))
            .drawn()?;
        let palette = Palette::new(&self.names);
        let entries: Vec<(String, RGBColor)> = (self.names.iter().zip(&self.tracks))
            .filter(|(_, track)| !track.is_empty())
            .map(|(name, _)| (short(name, 20), palette.of(name)))
            .collect();
        let plot = with_side_legend(&titled, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0usize..x_max, lo..hi)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("the bot's games")
            .y_desc("ladder Elo")
            .y_label_formatter(&|x| format!("{x:.0}"))
            .house_style()
            .draw()
            .drawn()?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0, 1200.0), (x_max, 1200.0)],
                GREY.stroke_width(1),
            )))
            .drawn()?;
        for (name, track) in self.names.iter().zip(&self.tracks) {
            if track.is_empty() {
                continue;
            }
            let c = palette.of(name);
            chart
                .draw_series(LineSeries::new(
                    track
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.is_finite())
                        .map(|(g, &r)| (g, r)),
                    c.stroke_width(2),
                ))
                .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// #28: the legend sat in the upper left corner, over the lines' starts at 1200; it now
    /// stands beside the plot.
    #[test]
    fn the_legend_covers_no_line() {
        let names: Vec<String> = ["alphabeta-hard", "random"].map(String::from).to_vec();
        let plot = LadderPlot {
            names: names.clone(),
            tracks: vec![
                (0..40).map(|g| 1200.0 + 8.0 * g as f64).collect(),
                (0..40).map(|g| 1200.0 - 8.0 * g as f64).collect(),
            ],
            k: 16.0,
        };
        let svg = super::super::render_svg(&plot).expect("svg");
        super::super::tests::assert_legend_beside_the_lines(&svg, &names);
    }
}
