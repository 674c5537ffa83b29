//! `sprt.svg/png`: the SPRT's log-likelihood ratio after each completed game pair (`sprt.csv`,
//! written by `arena sprt`), with the two bounds: crossing the upper one accepts H1, the lower
//! one H0. Only folders with an `sprt.csv` get this figure.

use crate::rating::sprt::SprtResult;
use crate::run_folder::sprt::{SprtFile, TracePoint};
use plotters::coord::Shift;
use plotters::prelude::*;

use super::{colour, finite_range, font, padded, Drawn, HouseStyle, Plot, PlotError, GREY};

/// The SPRT figure's data.
#[derive(Clone, Debug, PartialEq)]
pub struct SprtPlot {
    pub trace: Vec<TracePoint>,
    pub info: Option<SprtFile>,
}

impl SprtPlot {
    pub fn new(trace: Vec<TracePoint>, info: Option<SprtFile>) -> Result<Self, PlotError> {
        if trace.is_empty() {
            return Err(PlotError::NoData(
                "the SPRT completed no game pair (sprt.csv is empty)".to_string(),
            ));
        }
        Ok(SprtPlot { trace, info })
    }
}

impl Plot for SprtPlot {
    fn stem(&self) -> &'static str {
        "sprt"
    }

    fn caption(&self) -> String {
        match &self.info {
            Some(i) => format!(
                "Log-likelihood ratio after each game pair (H0: {} Elo, H1: {} Elo, {} model, α = {}, β = {}). {}.",
                i.elo0, i.elo1, i.model, i.alpha, i.beta, i.status.result.verdict(i.elo0, i.elo1)
            ),
            None => "Log-likelihood ratio after each game pair, with the bounds.".to_string(),
        }
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let (lo, hi) = finite_range(
            self.trace
                .iter()
                .flat_map(|p| [p.llr, p.lower, p.upper])
                .chain([0.0]),
        )
        .ok_or_else(|| PlotError::NoData("no finite LLR".into()))?;
        let (lo, hi) = padded(lo, hi);
        let last = self.trace.last().map_or(1, |p| p.pairs).max(1);
        let title = match &self.info {
            Some(i) => format!(
                "SPRT [{}, {}] Elo: {} after {} pairs",
                i.elo0,
                i.elo1,
                match i.status.result {
                    SprtResult::AcceptH1 => "H1 accepted",
                    SprtResult::AcceptH0 => "H0 accepted",
                    SprtResult::Continue => "inconclusive",
                },
                i.pairs
            ),
            None => "SPRT".to_string(),
        };
        let mut chart = ChartBuilder::on(area)
            .caption(title, font(24.0))
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(0u64..last, lo..hi)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("game pairs")
            .y_desc("LLR")
            .y_label_formatter(&|x| format!("{x:.1}"))
            .house_style()
            .draw()
            .drawn()?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0, 0.0), (last, 0.0)],
                GREY.stroke_width(1),
            )))
            .drawn()?;
        let upper = colour(2);
        let lower = colour(3);
        chart
            .draw_series(LineSeries::new(
                std::iter::once((0, self.trace[0].upper))
                    .chain(self.trace.iter().map(|p| (p.pairs, p.upper))),
                upper.stroke_width(2),
            ))
            .drawn()?
            .label("upper bound (accept H1)")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], upper.stroke_width(2))
            });
        chart
            .draw_series(LineSeries::new(
                std::iter::once((0, self.trace[0].lower))
                    .chain(self.trace.iter().map(|p| (p.pairs, p.lower))),
                lower.stroke_width(2),
            ))
            .drawn()?
            .label("lower bound (accept H0)")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], lower.stroke_width(2))
            });
        let line = colour(0);
        chart
            .draw_series(LineSeries::new(
                std::iter::once((0, 0.0)).chain(self.trace.iter().map(|p| (p.pairs, p.llr))),
                line.stroke_width(3),
            ))
            .drawn()?
            .label("LLR")
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], line.stroke_width(3))
            });
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::LowerRight)
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK.mix(0.3))
            .label_font(font(14.0))
            .draw()
            .drawn()?;
        Ok(())
    }
}
