//! `ratings.svg/png`: the forest plot. Every player's Elo as a dot with its interval as a bar,
//! best at the top, and a vertical line at the anchor (1200, the pool's mean, by default).

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{finite_range, font, padded, short, Drawn, HouseStyle, Palette, Plot, PlotError, GREY};
use crate::run_folder::ratings::Summary;

/// One player's row of the forest plot.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingBar {
    pub name: String,
    pub elo: f64,
    pub low: f64,
    pub high: f64,
    pub games: u64,
    /// The rating rests on the prior (the player never lost or never scored).
    pub unbounded: bool,
}

/// The forest plot's data: players best-first.
#[derive(Clone, Debug, PartialEq)]
pub struct RatingsPlot {
    pub bars: Vec<RatingBar>,
    /// Where the reference line goes (the anchor's value).
    pub reference: f64,
    pub reference_label: String,
    /// The intervals' confidence level, e.g. 0.95.
    pub level: f64,
    /// Where the intervals come from, in words ([`Summary::interval_source`]).
    pub source: String,
    pub games: usize,
    /// The run's colours (every figure of the run colours a player alike).
    pub palette: Palette,
}

impl RatingsPlot {
    /// The forest plot of a rated folder. `anchor` is the rating options' anchor (None: the pool
    /// mean is 1200).
    pub fn new(summary: &Summary, anchor: Option<&(String, f64)>) -> Result<Self, PlotError> {
        if summary.ratings.is_empty() {
            return Err(PlotError::NoData("no rated players".into()));
        }
        let (reference, reference_label) = match anchor {
            None => (1200.0, "pool mean 1200".to_string()),
            Some((name, value)) => (*value, format!("{name} = {value}")),
        };
        Ok(RatingsPlot {
            bars: summary
                .ratings
                .iter()
                .map(|r| RatingBar {
                    name: r.name.clone(),
                    elo: r.elo,
                    low: r.ci_low,
                    high: r.ci_high,
                    games: r.games,
                    unbounded: r.unbounded,
                })
                .collect(),
            reference,
            reference_label,
            level: summary.level,
            source: summary.interval_source(),
            games: summary.games,
            palette: Palette::new(&summary.players),
        })
    }
}

impl Plot for RatingsPlot {
    fn stem(&self) -> &'static str {
        "ratings"
    }

    fn caption(&self) -> String {
        format!(
            "Elo of every player with its {:.0}% interval ({}); the line is the {}.",
            self.level * 100.0,
            self.source,
            self.reference_label
        )
    }

    fn size(&self) -> (u32, u32) {
        (900, (140 + 46 * self.bars.len() as u32).clamp(260, 1400))
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let n = self.bars.len();
        if n == 0 {
            return Err(PlotError::NoData("no rated players".into()));
        }
        let (lo, hi) = finite_range(
            self.bars
                .iter()
                .flat_map(|b| [b.elo, b.low, b.high])
                .chain([self.reference]),
        )
        .ok_or_else(|| PlotError::NoData("no finite rating".into()))?;
        let (lo, hi) = padded(lo, hi);
        let label_width = self
            .bars
            .iter()
            .map(|b| short(&b.name, 24).chars().count())
            .max()
            .unwrap_or(4) as u32
            * 9
            + 20;
        let names: Vec<String> = self.bars.iter().map(|b| short(&b.name, 24)).collect();
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "Ratings ({} games, {:.0}% intervals)",
                    self.games,
                    self.level * 100.0
                ),
                font(24.0),
            )
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(label_width)
            .build_cartesian_2d(lo..hi, (0..n - 1).into_segmented())
            .drawn()?;
        // Row i (rank i + 1) sits at y = n - 1 - i, so the best player is at the top.
        chart
            .configure_mesh()
            .disable_y_mesh()
            .y_labels(n)
            .y_label_formatter(&|v| match v {
                SegmentValue::CenterOf(y) if *y < n => names[n - 1 - *y].clone(),
                _ => String::new(),
            })
            .x_desc("Elo")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .house_style()
            .draw()
            .drawn()?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![
                    (self.reference, SegmentValue::Exact(0)),
                    (self.reference, SegmentValue::Last),
                ],
                GREY.stroke_width(2),
            )))
            .drawn()?;
        for (i, bar) in self.bars.iter().enumerate() {
            if !(bar.elo.is_finite() && bar.low.is_finite() && bar.high.is_finite()) {
                continue;
            }
            let y = SegmentValue::CenterOf(n - 1 - i);
            let c = self.palette.of(&bar.name);
            chart
                .draw_series(std::iter::once(PathElement::new(
                    vec![(bar.low, y.clone()), (bar.high, y.clone())],
                    c.stroke_width(4),
                )))
                .drawn()?;
            chart
                .draw_series(std::iter::once(Circle::new(
                    (bar.elo, y.clone()),
                    7,
                    c.filled(),
                )))
                .drawn()?;
            let label = format!(
                "{:.0} [{:.0}, {:.0}]{}",
                bar.elo,
                bar.low,
                bar.high,
                if bar.unbounded { " *" } else { "" }
            );
            chart
                .draw_series(std::iter::once(
                    EmptyElement::at((bar.elo, y))
                        + Text::new(
                            label,
                            (0, -10),
                            font(14.0).pos(Pos::new(HPos::Center, VPos::Bottom)),
                        ),
                ))
                .drawn()?;
        }
        if self.bars.iter().any(|b| b.unbounded) {
            let (w, h) = area.dim_in_pixel();
            area.draw(&Text::new(
                "* never lost or never scored: the rating rests on the prior",
                (w as i32 - 16, h as i32 - 10),
                font(13.0).pos(Pos::new(HPos::Right, VPos::Bottom)),
            ))
            .drawn()?;
        }
        Ok(())
    }
}
