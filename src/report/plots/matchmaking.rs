//! `matchmaking.svg/png` of a calibration on the humans' scale: a histogram of the site's
//! humans by rating bracket, with each level's reachable Elo range (the Elos its curve takes
//! over the knob range) drawn over it as a shaded span labelled with the share of humans inside
//! it, and the calibrated targets as dashed lines: which players each level can stand in for.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::{colour, font, whole_labels, Drawn, HouseStyle, Plot, PlotError, GREY};
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
            .y_labels(whole_labels(top))
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
            // The label starts at the span's left end unless it would run off the plot's right
            // edge (a long level name over the top brackets, #47): then it ends there.
            let label = format!("{name}: {:.0}% of humans", 100.0 * share);
            let style = font(14.0).pos(Pos::new(HPos::Left, VPos::Bottom));
            let (w, _) = area.estimate_text_size(&label, &style).drawn()?;
            let (x, py) = chart.backend_coord(&(*lo, y));
            let right = chart.plotting_area().get_pixel_range().0.end;
            let (bx, by) = area.get_base_pixel();
            let x = (x + 4).min(right - w as i32).max(bx);
            area.draw(&Text::new(label, (x - bx, py - 6 - by), style))
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

    /// A plot like the site's: brackets of at most four humans and one level with a long name
    /// reaching the top brackets.
    fn site_like() -> MatchmakingPlot {
        let counts = [1, 0, 1, 2, 0, 1, 2, 2, 4, 4, 1, 2, 2, 3, 1, 0, 1, 1, 1, 1];
        MatchmakingPlot {
            brackets: counts
                .iter()
                .enumerate()
                .map(|(i, &n)| (700.0 + 50.0 * i as f64, 750.0 + 50.0 * i as f64, n))
                .collect(),
            levels: vec![(
                "mancala-alphabeta Level=normal".to_string(),
                1429.0,
                1595.0,
                0.07,
            )],
            targets: vec![1100.0, 1500.0],
            humans: counts.iter().sum(),
        }
    }

    /// The `<text>` elements of `svg`: (x, text-anchor, font size, text).
    fn texts(svg: &str) -> Vec<(f64, String, f64, String)> {
        let attr = |line: &str, name: &str| -> String {
            let start = line.find(&format!(" {name}=\"")).expect(name) + name.len() + 3;
            let rest = &line[start..];
            rest[..rest.find('"').unwrap()].to_string()
        };
        let lines: Vec<&str> = svg.lines().collect();
        lines
            .windows(2)
            .filter(|w| w[0].trim_start().starts_with("<text "))
            .map(|w| {
                (
                    attr(w[0], "x").parse().unwrap(),
                    attr(w[0], "text-anchor"),
                    attr(w[0], "font-size").parse().unwrap(),
                    w[1].trim().to_string(),
                )
            })
            .collect()
    }

    /// #47: the humans axis read `0,0,1,1,2,2,2,3,4,4,4` (half steps printed without
    /// decimals); a count axis has whole, distinct ticks.
    #[test]
    fn the_humans_axis_has_whole_distinct_ticks() {
        let svg = super::super::render_svg(&site_like()).unwrap();
        // The y axis's labels are the right-aligned numbers.
        let ticks: Vec<String> = texts(&svg)
            .into_iter()
            .filter(|t| t.1 == "end" && t.3.parse::<f64>().is_ok())
            .map(|t| t.3)
            .collect();
        assert!(ticks.len() >= 3, "{ticks:?}");
        let mut distinct = ticks.clone();
        distinct.sort();
        distinct.dedup();
        assert_eq!(distinct.len(), ticks.len(), "repeated ticks: {ticks:?}");
        for t in &ticks {
            let v: f64 = t.parse().unwrap();
            assert!(v.fract() == 0.0 && !t.contains('.'), "not whole: {ticks:?}");
        }
    }

    /// #47: a long level name ran off the figure's right edge; its label is whole and inside.
    #[test]
    fn a_long_level_name_is_drawn_whole_inside_the_figure() {
        let plot = site_like();
        let (width, _) = plot.size();
        let svg = super::super::render_svg(&plot).unwrap();
        let (x, anchor, size, text) = texts(&svg)
            .into_iter()
            .find(|t| t.3.contains("mancala-alphabeta"))
            .expect("the level's label");
        assert!(text.starts_with("mancala-alphabeta Level=normal"), "{text}");
        // DejaVu Sans averages well under 0.62 em a character.
        let w = 0.62 * size * text.chars().count() as f64;
        let (left, right) = match anchor.as_str() {
            "start" => (x, x + w),
            "end" => (x - w, x),
            _ => (x - w / 2.0, x + w / 2.0),
        };
        assert!(
            left >= 0.0 && right <= f64::from(width),
            "`{text}` spans {left:.0}..{right:.0} of 0..{width}"
        );
    }
}
