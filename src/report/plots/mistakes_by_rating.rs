//! `mistakes_by_rating.svg/png`: the mistake meter against rating (`analysis-brackets.csv`).
//! Left, the mistake rate with ±2 standard errors; right, the seeds lost per game. The rating
//! brackets (people, from their Elo tags) are a grey line of points at the brackets' middles;
//! each level is a coloured point of its own at its rating, named.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{font, padded, short, Drawn, HouseStyle, Palette, Plot, PlotError, GREY};
use crate::run_folder::analysis::BracketRow;

/// The rows of `analysis-brackets.csv` that have proven sows.
#[derive(Clone, Debug, PartialEq)]
pub struct MistakesByRatingPlot {
    pub brackets: Vec<BracketRow>,
    pub levels: Vec<BracketRow>,
    /// The levels' colours: the run's, where the levels are a folder's players
    /// ([`MistakesByRatingPlot::with_palette`]), else from the levels' names.
    pub palette: Palette,
}

impl MistakesByRatingPlot {
    pub fn new(rows: &[BracketRow]) -> Result<Self, PlotError> {
        let with_sows = rows.iter().filter(|r| r.proven > 0 && r.rating.is_finite());
        let (levels, brackets): (Vec<BracketRow>, Vec<BracketRow>) =
            with_sows.cloned().partition(|r| r.kind == "player");
        if levels.is_empty() && brackets.is_empty() {
            return Err(PlotError::NoData(
                "no rated player has a proven sow (no Elo tags, or no ratings)".into(),
            ));
        }
        let palette = Palette::new(levels.iter().map(|l| l.group.as_str()));
        Ok(MistakesByRatingPlot {
            brackets,
            levels,
            palette,
        })
    }

    /// Colours the levels as every other figure of the run colours its players.
    pub fn with_palette(mut self, palette: Palette) -> Self {
        self.palette = palette;
        self
    }

    /// One panel: `y` of each row against its rating.
    fn panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        title: &str,
        y: impl Fn(&BracketRow) -> (f64, f64, f64),
        percent: bool,
    ) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let all = || self.brackets.iter().chain(&self.levels);
        let (x0, x1) = all().fold((f64::MAX, f64::MIN), |(lo, hi), r| {
            (lo.min(r.rating), hi.max(r.rating))
        });
        let (x0, x1) = padded(x0 - 50.0, x1 + 50.0);
        let top = all().map(|r| y(r).2).fold(0.0, f64::max);
        let top = if top > 0.0 { top * 1.15 } else { 1.0 };
        let mut chart = ChartBuilder::on(area)
            .caption(title, font(20.0))
            .margin(14)
            .x_label_area_size(44)
            .y_label_area_size(60)
            .build_cartesian_2d(x0..x1, 0.0..top)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("rating (Elo)")
            .x_label_formatter(&|x| format!("{x:.0}"))
            .y_label_formatter(&|v| {
                if percent {
                    format!("{:.0}%", v * 100.0)
                } else {
                    format!("{v:.0}")
                }
            })
            .house_style()
            .draw()
            .drawn()?;
        // The line joins neighbouring brackets only: across an empty one it would show a
        // trend no player supports.
        for pair in self.brackets.windows(2) {
            if adjacent(&pair[0], &pair[1]) {
                chart
                    .draw_series(LineSeries::new(
                        pair.iter().map(|r| (r.rating, y(r).0)),
                        GREY.stroke_width(2),
                    ))
                    .drawn()?;
            }
        }
        let level_colour = |r: &BracketRow| self.palette.of(&r.group);
        for (rows, colour_of) in [
            (
                &self.brackets,
                &(|_: &BracketRow| GREY) as &dyn Fn(&BracketRow) -> RGBColor,
            ),
            (&self.levels, &level_colour),
        ] {
            for r in rows.iter() {
                let (v, lo, hi) = y(r);
                let c = colour_of(r);
                chart
                    .draw_series(std::iter::once(PathElement::new(
                        vec![(r.rating, lo), (r.rating, hi)],
                        c.stroke_width(1),
                    )))
                    .drawn()?;
                chart
                    .draw_series(std::iter::once(Circle::new((r.rating, v), 5, c.filled())))
                    .drawn()?;
                if r.kind == "player" {
                    chart
                        .draw_series(std::iter::once(
                            EmptyElement::at((r.rating, v))
                                + Text::new(
                                    short(&r.group, 16),
                                    (7, -7),
                                    font(13.0).pos(Pos::new(HPos::Left, VPos::Bottom)),
                                ),
                        ))
                        .drawn()?;
                }
            }
        }
        Ok(())
    }
}

/// Whether bracket `b` starts where `a` ends (`1400–1500`, `1500–1600`).
fn adjacent(a: &BracketRow, b: &BracketRow) -> bool {
    let bounds = |r: &BracketRow| -> Option<(String, String)> {
        let (lo, hi) = r.group.split_once('–')?;
        Some((lo.to_string(), hi.to_string()))
    };
    matches!((bounds(a), bounds(b)), (Some((_, a_hi)), Some((b_lo, _))) if a_hi == b_lo)
}

impl Plot for MistakesByRatingPlot {
    fn stem(&self) -> &'static str {
        "mistakes_by_rating"
    }

    fn caption(&self) -> String {
        "The mistake meter against rating: grey, the players of each rating bracket pooled \
         (their Elo tags), with ±2 standard errors; coloured, each level at its own rating. \
         Brackets differ in their opponents and positions as well as in skill (docs/solved.md)."
            .to_string()
    }

    fn size(&self) -> (u32, u32) {
        (1000, 420)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let (left, right) = area.split_horizontally(area.dim_in_pixel().0 / 2);
        self.panel(
            &left,
            "mistakes per proven sow",
            |r| {
                let e = 2.0 * r.mistake_rate_se;
                (
                    r.mistake_rate,
                    (r.mistake_rate - e).max(0.0),
                    r.mistake_rate + e,
                )
            },
            true,
        )?;
        self.panel(
            &right,
            "seeds lost per game",
            |r| {
                (
                    r.seeds_lost_per_game,
                    r.seeds_lost_per_game,
                    r.seeds_lost_per_game,
                )
            },
            false,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(group: &str, kind: &str, rating: f64, rate: f64) -> BracketRow {
        BracketRow {
            group: group.into(),
            kind: kind.into(),
            rating,
            proven: 100,
            mistake_rate: rate,
            mistake_rate_se: 0.03,
            seeds_lost_per_game: rate * 40.0,
            ..Default::default()
        }
    }

    #[test]
    fn draws_brackets_and_named_levels() {
        let rows = [
            row("1000–1100", "bracket", 1050.0, 0.4),
            row("1400–1500", "bracket", 1450.0, 0.2),
            row("normal", "player", 1253.0, 0.23),
        ];
        let plot = MistakesByRatingPlot::new(&rows).unwrap();
        assert_eq!((plot.brackets.len(), plot.levels.len()), (2, 1));
        let svg = super::super::render_svg(&plot).unwrap();
        assert!(svg.contains("normal") && svg.contains("seeds lost per game"));
        assert!(
            svg.matches("<circle").count() >= 6,
            "three points in each panel"
        );
        // The grey line joins neighbouring brackets only.
        let rows = [
            row("1000–1100", "bracket", 1050.0, 0.4),
            row("1100–1200", "bracket", 1150.0, 0.3),
            row("1400–1500", "bracket", 1450.0, 0.2),
        ];
        assert!(adjacent(&rows[0], &rows[1]) && !adjacent(&rows[1], &rows[2]));
        let none = MistakesByRatingPlot::new(&[BracketRow::default()]);
        assert!(matches!(none, Err(PlotError::NoData(_))));
    }
}
