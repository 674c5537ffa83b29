//! `mistake-profile.svg/png` of `arena analyse --profile`: side by side, for each level named,
//! the distribution of seeds lost per sow of the people rated where the level is rated (grey)
//! and of the level (blue), as shares of their proven sows per loss bin, one panel a level.
//! The panel's title gives both groups, their sows and the distance between the two
//! distributions (`loss_profile::distance`).

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{colour, font, Drawn, HouseStyle, Plot, PlotError, GREY};
use crate::run_folder::loss_profile::{Comparison, BIN_LABELS};

/// The comparisons to draw, one panel each.
#[derive(Clone, Debug, PartialEq)]
pub struct LossProfilePlot {
    pub comparisons: Vec<Comparison>,
}

impl LossProfilePlot {
    pub fn new(comparisons: &[Comparison]) -> Result<Self, PlotError> {
        if comparisons.is_empty() {
            return Err(PlotError::NoData("no level to compare (--profile)".into()));
        }
        Ok(LossProfilePlot {
            comparisons: comparisons.to_vec(),
        })
    }

    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        c: &Comparison,
        top: f64,
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let title = format!(
            "{} ({:.0}) vs people {}",
            c.level.name, c.level.rating, c.people.name
        );
        let mut chart = ChartBuilder::on(area)
            .caption(title, font(17.0))
            .margin(12)
            .x_label_area_size(56)
            .y_label_area_size(52)
            .build_cartesian_2d(0.0..BIN_LABELS.len() as f64, 0.0..top)
            .drawn()?;
        chart
            .configure_mesh()
            .disable_x_mesh()
            .x_labels(BIN_LABELS.len() * 2 + 1)
            .x_label_formatter(&|x| {
                let i = (x - 0.5).round();
                if (x - 0.5 - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < BIN_LABELS.len() {
                    BIN_LABELS[i as usize].to_string()
                } else {
                    String::new()
                }
            })
            .x_desc(format!("seeds lost per sow (distance {:.3})", c.distance))
            .y_label_formatter(&|v| format!("{:.0}%", v * 100.0))
            .house_style()
            .draw()
            .drawn()?;
        let series = [
            (c.people.profile.shares(), GREY, 0.08),
            (c.level.profile.shares(), colour(0), 0.5),
        ];
        for (shares, col, offset) in series {
            chart
                .draw_series(shares.iter().enumerate().map(|(i, &s)| {
                    let x = i as f64 + offset;
                    Rectangle::new([(x, 0.0), (x + 0.42, s)], col.filled())
                }))
                .drawn()?;
        }
        let legend = [
            (
                format!(
                    "people {} ({} sows)",
                    c.people.name,
                    c.people.profile.sows()
                ),
                GREY,
            ),
            (
                format!("{} ({} sows)", c.level.name, c.level.profile.sows()),
                colour(0),
            ),
        ];
        for (i, (text, col)) in legend.iter().enumerate() {
            let y = top * (0.93 - 0.09 * i as f64);
            chart
                .draw_series(std::iter::once(Rectangle::new(
                    [(3.0, y - top * 0.03), (3.25, y + top * 0.03)],
                    col.filled(),
                )))
                .drawn()?;
            chart
                .draw_series(std::iter::once(Text::new(
                    text.clone(),
                    (3.35, y + top * 0.03),
                    font(13.0),
                )))
                .drawn()?;
        }
        Ok(())
    }
}

impl Plot for LossProfilePlot {
    fn stem(&self) -> &'static str {
        "mistake-profile"
    }

    fn caption(&self) -> String {
        "The shape of the mistakes: for each level, the share of its proven sows by seeds lost \
         (blue) beside the same for the people rated where it is rated (grey); the distance is \
         the total variation between the two (0 the same, 1 nothing in common)."
            .to_string()
    }

    fn size(&self) -> (u32, u32) {
        (440 * self.comparisons.len().max(1) as u32, 420)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let top = self
            .comparisons
            .iter()
            .flat_map(|c| {
                c.people
                    .profile
                    .shares()
                    .into_iter()
                    .chain(c.level.profile.shares())
            })
            .fold(0.0, f64::max);
        let top = (top * 1.3).clamp(0.05, 1.0);
        let panels = area.split_evenly((1, self.comparisons.len()));
        for (panel, c) in panels.iter().zip(&self.comparisons) {
            self.panel(panel, c, top)?;
        }
        Ok(())
    }
}
