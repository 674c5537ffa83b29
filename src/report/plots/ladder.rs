//! `ladder.svg/png`: the site's ladder. Each bot's incremental (K-factor) Elo after each of its
//! games, in game-id order, starting from 1200: what the site would show, and how much it
//! wanders compared with the fitted ratings.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{colour, finite_range, font, padded, short, Drawn, HouseStyle, Plot, PlotError, GREY};
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
        let mut chart = ChartBuilder::on(area)
            .caption(format!("Site ladder (K = {})", self.k), font(24.0))
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
        for (i, (name, track)) in self.names.iter().zip(&self.tracks).enumerate() {
            if track.is_empty() {
                continue;
            }
            let c = colour(i);
            chart
                .draw_series(LineSeries::new(
                    track
                        .iter()
                        .enumerate()
                        .filter(|(_, r)| r.is_finite())
                        .map(|(g, &r)| (g, r)),
                    c.stroke_width(2),
                ))
                .drawn()?
                .label(short(name, 20))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(3))
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(font(14.0))
            .draw()
            .drawn()?;
        Ok(())
    }
}
