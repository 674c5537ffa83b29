//! `curve.svg/png` of `arena calibrate`: the fitted Elo-vs-knob curve with its interval band,
//! every evaluated knob value rated on its own (dot and interval bar, sized by nothing: the
//! games are in `calibration.csv`), a grey line at each target and a marker where the
//! calibration put the target's knob. The band is the curve's pointwise interval (delta method),
//! the one the stopping rule reads.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{colour, finite_range, font, padded, Drawn, HouseStyle, Plot, PlotError, GREY};
use crate::calibrate::Calibration;

/// The figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct CalibrationPlot {
    pub knob: String,
    /// (x, Elo, low, high) along the curve.
    pub curve: Vec<(f64, f64, f64, f64)>,
    /// (x, Elo, low, high, games) of the evaluated knob values.
    pub points: Vec<(f64, f64, f64, f64, usize)>,
    /// (target, found x, reachable).
    pub targets: Vec<(f64, f64, bool)>,
    pub level: f64,
    pub games: usize,
}

impl CalibrationPlot {
    pub fn new(cal: &Calibration) -> Self {
        const N: usize = 200;
        let (lo, hi) = (cal.knob.lo, cal.knob.hi);
        let curve = (0..=N)
            .map(|i| {
                let x = lo + (hi - lo) * i as f64 / N as f64;
                let (e, h) = (cal.curve.elo(x), cal.z * cal.curve.se(x));
                (x, e, e - h, e + h)
            })
            .collect();
        CalibrationPlot {
            knob: cal.knob.name.clone(),
            curve,
            points: cal
                .points
                .iter()
                .map(|p| (p.x, p.elo, p.ci_low, p.ci_high, p.games))
                .collect(),
            targets: cal
                .targets
                .iter()
                .map(|t| (t.target, t.x, t.reachable))
                .collect(),
            level: cal.settings.level,
            games: cal.games,
        }
    }
}

impl Plot for CalibrationPlot {
    fn stem(&self) -> &'static str {
        "curve"
    }

    fn caption(&self) -> String {
        format!(
            "Elo against {} with the fitted curve's {:.0}% band; dots are the evaluated values rated on their own; grey lines are the targets, triangles the calibrated settings.",
            self.knob,
            self.level * 100.0
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        if self.curve.is_empty() {
            return Err(PlotError::NoData("no curve".into()));
        }
        let (x0, x1) = (self.curve[0].0, self.curve[self.curve.len() - 1].0);
        // The y range follows the curve, the targets and the points' estimates; the points'
        // bars may be clipped (a point that never lost has an interval in the thousands).
        let (ylo, yhi) = finite_range(
            self.curve
                .iter()
                .flat_map(|c| [c.2, c.3])
                .chain(self.targets.iter().map(|t| t.0))
                .chain(self.points.iter().map(|p| p.1)),
        )
        .ok_or_else(|| PlotError::NoData("no finite Elo".into()))?;
        let (ylo, yhi) = padded(ylo.max(-1000.0), yhi.min(4000.0));
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "Calibration of {} ({} games, {:.0}% intervals)",
                    self.knob,
                    self.games,
                    self.level * 100.0
                ),
                font(24.0),
            )
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(x0..x1, ylo..yhi)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc(self.knob.as_str())
            .y_desc("Elo")
            .y_label_formatter(&|y| format!("{y:.0}"))
            .house_style()
            .draw()
            .drawn()?;
        let band = colour(0);
        let mut polygon: Vec<(f64, f64)> = self
            .curve
            .iter()
            .map(|c| (c.0, c.3.clamp(ylo, yhi)))
            .collect();
        polygon.extend(self.curve.iter().rev().map(|c| (c.0, c.2.clamp(ylo, yhi))));
        chart
            .draw_series(std::iter::once(Polygon::new(
                polygon,
                band.mix(0.18).filled(),
            )))
            .drawn()?;
        chart
            .draw_series(LineSeries::new(
                self.curve.iter().map(|c| (c.0, c.1)),
                band.stroke_width(3),
            ))
            .drawn()?;
        for &(target, x, reachable) in &self.targets {
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x0, target), (x1, target)],
                    GREY.stroke_width(1),
                )))
                .drawn()?;
            let c = if reachable { colour(3) } else { GREY };
            chart
                .draw_series(std::iter::once(TriangleMarker::new(
                    (x, target),
                    9,
                    c.filled(),
                )))
                .drawn()?;
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((x, target))
                        + Text::new(
                            format!("{target:.0}"),
                            (8, -6),
                            font(14.0).pos(Pos::new(HPos::Left, VPos::Bottom)),
                        ),
                ))
                .drawn()?;
        }
        let dot = colour(6);
        for &(x, elo, low, high, _) in &self.points {
            if !(elo.is_finite() && low.is_finite() && high.is_finite()) {
                continue;
            }
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(x, low.clamp(ylo, yhi)), (x, high.clamp(ylo, yhi))],
                    dot.mix(0.5).stroke_width(1),
                )))
                .drawn()?;
            if (ylo..=yhi).contains(&elo) {
                chart
                    .draw_series(std::iter::once(Circle::new((x, elo), 3, dot.filled())))
                    .drawn()?;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::calibrate::sim::SimulatedPlayer;
    use crate::calibrate::{calibrate, Knob, Settings};

    #[test]
    fn draws_a_calibration() {
        let pool = [1000.0, 1400.0];
        let knob = Knob::parse("option.Noise=0..2.0").unwrap();
        let mut player = SimulatedPlayer::new(|x: f64| 1700.0 - 400.0 * x, pool.to_vec(), 1);
        let settings = Settings {
            targets: vec![1200.0, 1500.0],
            tolerance: 60.0,
            ..Settings::default()
        };
        let cal = calibrate(&knob, &pool, &settings, &mut player, |_| {}).unwrap();
        let plot = CalibrationPlot::new(&cal);
        assert_eq!(plot.targets.len(), 2);
        assert_eq!(plot.points.len(), cal.points.len());
        let svg = super::super::render_svg(&plot).unwrap();
        assert!(svg.contains("<svg") && svg.contains("Calibration of Noise"));
        assert!(svg.contains("<polygon") || svg.contains("<path"));
    }
}
