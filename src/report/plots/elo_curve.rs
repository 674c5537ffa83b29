//! `elo-curve.svg/png` of `arena calibrate --curve`: the smooth monotone Elo curve over the whole
//! knob range with its interval band, the evaluated knob values rated on their own, and the
//! targets; drawn as the calibration's own curve figure is ([`CalibrationPlot`]), under its own
//! name and caption.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{CalibrationPlot, Plot, PlotError};
use crate::calibrate::monotone::MonotoneCurve;
use crate::calibrate::Calibration;

/// The monotone curve's figure: a [`CalibrationPlot`] whose curve is the monotone fit.
#[derive(Clone, Debug, PartialEq)]
pub struct EloCurvePlot(pub CalibrationPlot);

impl EloCurvePlot {
    /// The calibration's points and targets with `fit` as the curve (its band at `cal.z`).
    pub fn new(cal: &Calibration, fit: &MonotoneCurve) -> Self {
        const N: usize = 200;
        let mut plot = CalibrationPlot::new(cal);
        plot.curve = (0..=N)
            .map(|i| {
                let x = fit.lo + (fit.hi - fit.lo) * i as f64 / N as f64;
                let (e, h) = (fit.elo(x), cal.z * fit.se(x));
                (x, e, e - h, e + h)
            })
            .collect();
        plot.targets = cal
            .targets
            .iter()
            .map(|t| {
                let (x, reachable) = fit.knob_for(t.target);
                (t.target, x, reachable)
            })
            .collect();
        EloCurvePlot(plot)
    }
}

impl Plot for EloCurvePlot {
    fn stem(&self) -> &'static str {
        "elo-curve"
    }

    fn caption(&self) -> String {
        format!(
            "The Elo curve: the smooth monotone fit of Elo against {} over its whole range, with its {:.0}% band; dots are the evaluated values rated on their own.",
            self.0.knob,
            self.0.level * 100.0
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        self.0.draw(area)
    }
}
