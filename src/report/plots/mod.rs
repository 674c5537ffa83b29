//! The figures of a results folder, one file per figure.
//!
//! Each figure is two steps, so that the numbers can be tested without drawing and the drawing
//! without a tournament:
//!
//! 1. a pure function builds the figure's data from the rated folder (`RatingsPlot::new`,
//!    `MatrixPlot::new`, ...): no I/O, except that the think-time and SPRT figures read their own
//!    input file through a `from_dir` constructor;
//! 2. the [`Plot`] trait draws that data on any plotters backend. [`render_svg`] returns the SVG
//!    text (written to `NAME.svg` and inlined in `report.html`), [`render_png`] writes `NAME.png`.
//!
//! Drawing failures come back as [`PlotError`], never as a panic. A figure that has nothing to
//! show (no SPRT trace, no think times) is a [`PlotError::NoData`] with a sentence saying why, which
//! the report prints instead of the picture.
//!
//! Text: SVG files name the `sans-serif` family and are rendered with the viewer's fonts; PNG
//! text is drawn with DejaVu Sans, embedded in the binary (`assets/fonts/`), so PNGs come out the
//! same on a machine without any system font. Colours are the Okabe–Ito palette (safe for the
//! common colour-vision deficiencies) and Paul Tol's blue–red diverging scale for the matrix.

use std::path::Path;
use std::sync::OnceLock;

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{register_font, FontStyle, RGBColor};

pub mod calibration;
pub mod convergence;
pub mod elo_curve;
pub mod ladder;
pub mod loss_profile;
pub mod matchmaking;
pub mod matrix;
pub mod mistakes_by_rating;
pub mod ratings;
pub mod sprt;
pub mod think_time;
pub mod tune;

pub use calibration::CalibrationPlot;
pub use convergence::ConvergencePlot;
pub use elo_curve::EloCurvePlot;
pub use ladder::LadderPlot;
pub use loss_profile::LossProfilePlot;
pub use matchmaking::MatchmakingPlot;
pub use matrix::MatrixPlot;
pub use mistakes_by_rating::MistakesByRatingPlot;
pub use ratings::RatingsPlot;
pub use sprt::SprtPlot;
pub use think_time::ThinkTimePlot;
pub use tune::TunePlot;

/// Why a figure was not drawn.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PlotError {
    /// The input has nothing this figure can show; the message says what is missing.
    #[error("{0}")]
    NoData(String),
    /// The drawing backend failed (the message is the backend's).
    #[error("drawing failed: {0}")]
    Draw(String),
    /// The embedded font could not be loaded.
    #[error("the embedded font could not be loaded")]
    Font,
    /// Reading the figure's input or writing the picture.
    #[error("{context}: {source}")]
    Io {
        context: String,
        #[source]
        source: std::io::Error,
    },
}

/// Turns a plotters drawing error into a [`PlotError`].
pub(crate) trait Drawn<T> {
    fn drawn(self) -> Result<T, PlotError>;
}

impl<T, E: std::error::Error + Send + Sync> Drawn<T> for Result<T, DrawingAreaErrorKind<E>> {
    fn drawn(self) -> Result<T, PlotError> {
        self.map_err(|e| PlotError::Draw(e.to_string()))
    }
}

/// One figure: its data, already computed, and how to draw it.
pub trait Plot {
    /// The file stem: `ratings` gives `ratings.svg` and `ratings.png`.
    fn stem(&self) -> &'static str;
    /// A caption for the report.
    fn caption(&self) -> String;
    /// Picture size in pixels.
    fn size(&self) -> (u32, u32) {
        (900, 540)
    }
    /// Draws the figure on `area` (already filled white).
    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static;
}

/// The embedded font for PNG text (and for text measurement in both formats).
static DEJAVU_SANS: &[u8] = include_bytes!("../../../assets/fonts/DejaVuSans.ttf");

/// Registers the embedded font as `sans-serif` once per process.
fn ensure_font() -> Result<(), PlotError> {
    static REGISTERED: OnceLock<bool> = OnceLock::new();
    let ok = *REGISTERED.get_or_init(|| {
        register_font("sans-serif", FontStyle::Normal, DEJAVU_SANS).is_ok()
            && register_font("sans-serif", FontStyle::Bold, DEJAVU_SANS).is_ok()
    });
    if ok {
        Ok(())
    } else {
        Err(PlotError::Font)
    }
}

/// Draws `plot` as an SVG document.
pub fn render_svg<P: Plot>(plot: &P) -> Result<String, PlotError> {
    ensure_font()?;
    let mut svg = String::new();
    {
        let root = SVGBackend::with_string(&mut svg, plot.size()).into_drawing_area();
        root.fill(&WHITE).drawn()?;
        plot.draw(&root)?;
        root.present().drawn()?;
    }
    Ok(svg)
}

/// Draws `plot` into the PNG file `path`.
pub fn render_png<P: Plot>(plot: &P, path: &Path) -> Result<(), PlotError> {
    ensure_font()?;
    // The backend opens the path itself, following links: refuse a link or a FIFO first.
    if let Some(not) = crate::sys::not_a_file(path) {
        return Err(PlotError::Io {
            context: format!("cannot write {}", path.display()),
            source: std::io::Error::new(std::io::ErrorKind::InvalidInput, not),
        });
    }
    let root = BitMapBackend::new(path, plot.size()).into_drawing_area();
    root.fill(&WHITE).drawn()?;
    plot.draw(&root)?;
    root.present().drawn()?;
    Ok(())
}

/// Writes `plot` as `STEM.svg` and `STEM.png` into `dir`; returns the figures not drawn, with
/// why.
pub fn write_figure<P: Plot>(dir: &Path, plot: &P) -> std::io::Result<Vec<String>> {
    let mut missing = Vec::new();
    match render_svg(plot) {
        Ok(svg) => crate::run_folder::files::write(&dir.join(format!("{}.svg", plot.stem())), svg)
            .map_err(std::io::Error::other)?,
        Err(err) => missing.push(format!("no {}.svg: {err}", plot.stem())),
    }
    if let Err(err) = render_png(plot, &dir.join(format!("{}.png", plot.stem()))) {
        missing.push(format!("no {}.png: {err}", plot.stem()));
    }
    Ok(missing)
}

/// The Okabe–Ito palette without its yellow (too pale on white) and with black last.
pub const PALETTE: [RGBColor; 7] = [
    RGBColor(0x00, 0x72, 0xB2), // blue
    RGBColor(0xE6, 0x9F, 0x00), // orange
    RGBColor(0x00, 0x9E, 0x73), // bluish green
    RGBColor(0xD5, 0x5E, 0x00), // vermillion
    RGBColor(0x56, 0xB4, 0xE9), // sky blue
    RGBColor(0xCC, 0x79, 0xA7), // reddish purple
    RGBColor(0x00, 0x00, 0x00), // black
];

/// The colour of the `i`-th series (cycles after seven).
pub fn colour(i: usize) -> RGBColor {
    PALETTE[i % PALETTE.len()]
}

/// One colour per player for every figure of a run (#47): the player's place in the run's
/// player list sorted by name. The forest plot lists players best first, the ladder and the
/// convergence in the run's order, the think times only those with times: colouring by place
/// in each figure's own list gave one player several colours.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Palette {
    sorted: Vec<String>,
}

impl Palette {
    /// The palette of a run whose players are `players` (in any order).
    pub fn new<S: AsRef<str>>(players: impl IntoIterator<Item = S>) -> Palette {
        let mut sorted: Vec<String> = players
            .into_iter()
            .map(|p| p.as_ref().to_string())
            .collect();
        sorted.sort();
        sorted.dedup();
        Palette { sorted }
    }

    /// Every player with its colour, by name.
    pub fn entries(&self) -> impl Iterator<Item = (&str, RGBColor)> {
        self.sorted
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), colour(i)))
    }

    /// `name`'s colour; grey for a name that is not one of the run's players.
    pub fn of(&self, name: &str) -> RGBColor {
        match self.sorted.binary_search_by(|n| n.as_str().cmp(name)) {
            Ok(i) => colour(i),
            Err(_) => GREY,
        }
    }
}

/// How many labels an axis of whole numbers (counts) from 0 to `top` asks plotters for: no
/// more than the whole numbers on it, so that its steps (1, 2 or 5 × 10^k) are whole and no
/// two labels round to one number (#47: the humans axis read `0,0,1,1,2,2,2,3,4,4,4`).
pub(crate) fn whole_labels(top: f64) -> usize {
    let whole = if top.is_finite() && top > 0.0 {
        top.floor() as usize
    } else {
        0
    };
    (whole + 1).clamp(2, 10)
}

/// Grey for reference lines.
pub const GREY: RGBColor = RGBColor(0x88, 0x88, 0x88);

/// The text style of the figures.
pub fn font(size: f64) -> TextStyle<'static> {
    ("sans-serif", size).into_font().color(&BLACK)
}

/// Splits `area` (below the figure's title) into the plot on the left and a legend panel on
/// the right, outside the plotting area, so that the legend never covers a line: lines of a
/// figure over games all end at the right edge, where a legend inside the plot sat (#28). The
/// panel is as wide as the longest entry needs. Returns the plot's area.
pub(crate) fn with_side_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[(String, RGBColor)],
) -> Result<DrawingArea<DB, Shift>, PlotError>
where
    DB::ErrorType: 'static,
{
    const SWATCH: i32 = 20;
    const GAP: i32 = 8;
    const ROW: i32 = 22;
    const PAD: i32 = 12;
    if entries.is_empty() {
        return Ok(area.clone());
    }
    let label = font(14.0);
    let mut text_width = 0;
    for (name, _) in entries {
        let (w, _) = area.estimate_text_size(name, &label).drawn()?;
        text_width = text_width.max(w as i32);
    }
    let (width, _) = area.dim_in_pixel();
    let panel = (SWATCH + GAP + text_width + 2 * PAD) as u32;
    let (plot, legend) = area.split_horizontally(width.saturating_sub(panel));
    // Level with the top of the plotting area (the chart's margin).
    let mut y = 16 + PAD;
    for (name, c) in entries {
        legend
            .draw(&PathElement::new(
                vec![(0, y), (SWATCH, y)],
                c.stroke_width(3),
            ))
            .drawn()?;
        legend
            .draw(&Text::new(
                name.clone(),
                (SWATCH + GAP, y),
                label.pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Center,
                )),
            ))
            .drawn()?;
        y += ROW;
    }
    Ok(plot)
}

/// `(low, high)` padded by 8% on both sides (and widened if empty), for an axis range.
/// The axes every figure shares: 16 px labels, faint major grid lines, no minor ones.
pub(crate) trait HouseStyle {
    fn house_style(&mut self) -> &mut Self;
}

impl<X: Ranged, Y: Ranged, DB: DrawingBackend> HouseStyle
    for plotters::chart::MeshStyle<'_, '_, X, Y, DB>
{
    fn house_style(&mut self) -> &mut Self {
        self.label_style(font(16.0))
            .axis_desc_style(font(16.0))
            .light_line_style(WHITE.mix(0.0))
            .bold_line_style(BLACK.mix(0.08))
    }
}

pub(crate) fn padded(low: f64, high: f64) -> (f64, f64) {
    let (low, high) = if low.is_finite() && high.is_finite() && low <= high {
        (low, high)
    } else {
        (0.0, 1.0)
    };
    let span = (high - low).max(1.0);
    (low - 0.08 * span, high + 0.08 * span)
}

/// The finite minimum and maximum of `values` (`None` when there is none).
pub(crate) fn finite_range(values: impl IntoIterator<Item = f64>) -> Option<(f64, f64)> {
    values
        .into_iter()
        .filter(|v| v.is_finite())
        .fold(None, |acc, v| match acc {
            None => Some((v, v)),
            Some((lo, hi)) => Some((f64::min(lo, v), f64::max(hi, v))),
        })
}

/// A name shortened to `max` characters for an axis label.
pub(crate) fn short(name: &str, max: usize) -> String {
    if name.chars().count() <= max {
        name.to_string()
    } else {
        let mut s: String = name.chars().take(max.saturating_sub(1)).collect();
        s.push('…');
        s
    }
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;

    /// Asserts that `svg` has a legend entry for each of `names` and that each lies right of
    /// every point of every line (plotters' `<circle cx=..>` and `<polyline points=..>` of more
    /// than two points).
    pub(crate) fn assert_legend_beside_the_lines(svg: &str, names: &[String]) {
        let attr = |line: &str, name: &str| -> Option<String> {
            let start = line.find(&format!(" {name}=\""))? + name.len() + 3;
            let rest = &line[start..];
            Some(rest[..rest.find('"')?].to_string())
        };
        let lines: Vec<&str> = svg.lines().collect();
        let mut xs: Vec<f64> = Vec::new();
        for l in &lines {
            let l = l.trim_start();
            if l.starts_with("<circle ") {
                xs.extend(attr(l, "cx").and_then(|v| v.parse::<f64>().ok()));
            } else if l.starts_with("<polyline ") {
                // A data line; two points are a legend swatch or a reference line.
                let points = attr(l, "points").unwrap_or_default();
                if points.split_whitespace().count() > 2 {
                    for point in points.split_whitespace() {
                        xs.extend(point.split(',').next().and_then(|v| v.parse::<f64>().ok()));
                    }
                }
            }
        }
        let rightmost = xs.into_iter().fold(f64::MIN, f64::max);
        assert!(rightmost > 0.0, "no line points in the SVG");
        for name in names {
            // plotters writes `<text x=.. ..>`, the text, `</text>` on three lines.
            let label = lines
                .windows(2)
                .find(|w| w[0].trim_start().starts_with("<text ") && w[1].trim() == name)
                .map(|w| w[0])
                .unwrap_or_else(|| panic!("no legend entry for {name}"));
            let x: f64 = attr(label, "x").and_then(|v| v.parse().ok()).expect("x");
            assert!(
                x > rightmost + 10.0,
                "legend entry {name} at x = {x} is not right of the lines' ends (x = {rightmost})"
            );
        }
    }

    /// The value of attribute `name` on an SVG element's line.
    fn attr(line: &str, name: &str) -> Option<String> {
        let start = line.find(&format!(" {name}=\""))? + name.len() + 3;
        let rest = &line[start..];
        Some(rest[..rest.find('"')?].to_string())
    }

    /// The `<text>` line whose text is `name` (plotters writes the tag, the text and `</text>`
    /// on three lines).
    fn label<'a>(lines: &[&'a str], name: &str) -> (usize, &'a str) {
        lines
            .windows(2)
            .enumerate()
            .find(|(_, w)| w[0].trim_start().starts_with("<text ") && w[1].trim() == name)
            .map(|(i, w)| (i, w[0]))
            .unwrap_or_else(|| panic!("no label {name}"))
    }

    /// `name`'s colour in a figure with a side legend: the stroke of the swatch (a two-point
    /// line) just before its entry.
    pub(crate) fn legend_colour(svg: &str, name: &str) -> String {
        let lines: Vec<&str> = svg.lines().collect();
        let (i, _) = label(&lines, name);
        lines[..i]
            .iter()
            .rev()
            .find(|l| {
                l.trim_start().starts_with("<polyline ")
                    && attr(l, "points").is_some_and(|p| p.split_whitespace().count() == 2)
            })
            .and_then(|l| attr(l, "stroke"))
            .unwrap_or_else(|| panic!("no swatch for {name}"))
    }

    /// `name`'s colour in a figure with a row per player: the fill of the `tag` element (a
    /// ratings dot, a think-time box) nearest to the row's label.
    pub(crate) fn row_colour(svg: &str, name: &str, tag: &str) -> String {
        let lines: Vec<&str> = svg.lines().collect();
        let (_, text) = label(&lines, name);
        let y: f64 = attr(text, "y").and_then(|v| v.parse().ok()).expect("y");
        let centre = |l: &str| -> Option<f64> {
            match tag {
                "circle" => attr(l, "cy")?.parse().ok(),
                _ => Some(
                    attr(l, "y")?.parse::<f64>().ok()?
                        + attr(l, "height")?.parse::<f64>().ok()? / 2.0,
                ),
            }
        };
        lines
            .iter()
            .filter(|l| l.trim_start().starts_with(&format!("<{tag} ")))
            .filter(|l| attr(l, "fill").is_some_and(|f| f != "#000000" && f != "#FFFFFF"))
            .filter_map(|l| Some(((centre(l)? - y).abs(), attr(l, "fill")?)))
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .map(|(_, fill)| fill)
            .unwrap_or_else(|| panic!("no {tag} beside {name}"))
    }

    /// #47: a player had one colour in the forest plot (by rank) and another in the ladder,
    /// the convergence and the think-time figures (by place in the run's list, or among the
    /// players with times). One colour per player for the whole run now.
    #[test]
    fn a_player_has_one_colour_in_every_figure_of_a_run() {
        // The run's order, not sorted by name; ratings best-first; `zeta` has no think time.
        let names: Vec<String> = ["zeta", "alpha", "mid"].map(String::from).to_vec();
        let bar = |name: &str, elo: f64| ratings::RatingBar {
            name: name.into(),
            elo,
            low: elo - 50.0,
            high: elo + 50.0,
            games: 20,
            unbounded: false,
        };
        let ratings = RatingsPlot {
            bars: vec![
                bar("mid", 1300.0),
                bar("zeta", 1200.0),
                bar("alpha", 1100.0),
            ],
            reference: 1200.0,
            reference_label: "pool mean 1200".into(),
            level: 0.95,
            source: "test".into(),
            games: 30,
            palette: Palette::new(&names),
        };
        let ladder = LadderPlot {
            names: names.clone(),
            tracks: vec![
                (0..20).map(|g| 1200.0 + 5.0 * g as f64).collect(),
                (0..20).map(|g| 1200.0 - 5.0 * g as f64).collect(),
                (0..20).map(|g| 1200.0 + g as f64).collect(),
            ],
            k: 16.0,
        };
        let point = |games: usize, elo: f64| convergence::Point {
            games,
            elo,
            low: elo - 40.0,
            high: elo + 40.0,
        };
        let convergence = ConvergencePlot {
            names: names.clone(),
            series: vec![
                vec![point(10, 1210.0), point(20, 1200.0)],
                vec![point(10, 1090.0), point(20, 1100.0)],
                vec![point(10, 1290.0), point(20, 1300.0)],
            ],
            total_games: 20,
            level: 0.95,
        };
        let think = ThinkTimePlot::new(&names, &[vec![], vec![5, 6, 7, 8], vec![9, 10, 11]])
            .expect("think times");
        let ratings = render_svg(&ratings).unwrap();
        let ladder = render_svg(&ladder).unwrap();
        let convergence = render_svg(&convergence).unwrap();
        let think = render_svg(&think).unwrap();
        let mut seen = std::collections::BTreeSet::new();
        for name in ["alpha", "mid", "zeta"] {
            let in_ratings = row_colour(&ratings, name, "circle");
            assert_eq!(
                in_ratings,
                legend_colour(&ladder, name),
                "{name}: ratings vs ladder"
            );
            assert_eq!(
                in_ratings,
                legend_colour(&convergence, name),
                "{name}: ratings vs convergence"
            );
            if name != "zeta" {
                assert_eq!(
                    in_ratings,
                    row_colour(&think, name, "rect"),
                    "{name}: think time"
                );
            }
            seen.insert(in_ratings);
        }
        assert_eq!(seen.len(), 3, "three players, three colours: {seen:?}");
    }

    #[test]
    fn padded_handles_empty_and_degenerate_ranges() {
        assert_eq!(padded(f64::NAN, 1.0), (-0.08, 1.08));
        let (lo, hi) = padded(5.0, 5.0);
        assert!(lo < 5.0 && hi > 5.0);
    }

    #[test]
    fn finite_range_skips_nan_and_infinity() {
        assert_eq!(
            finite_range([f64::NAN, 3.0, f64::INFINITY, -1.0]),
            Some((-1.0, 3.0))
        );
        assert_eq!(finite_range([f64::NAN]), None);
    }

    #[test]
    fn short_names_keep_their_start() {
        assert_eq!(short("alphabeta-hard", 6), "alpha…");
        assert_eq!(short("ab", 6), "ab");
    }
}
