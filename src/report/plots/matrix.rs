//! `matrix.svg/png`: the score matrix. Row player's score against the column player, in percent,
//! written in each cell and shown by colour (Paul Tol's blue–white–red: blue lost, red won),
//! players in rating order. Empty cells: the two never met. A large pool is drawn for the
//! [`MATRIX_PLAYERS`] players with the most games (the title says how many are left out): a
//! thousand players made a 326 MB picture; every encounter stays in `pairwise.csv`.

use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters::style::RGBColor;

use super::{font, short, Drawn, Plot, PlotError};
use crate::run_folder::ratings::Summary;

/// One cell: the row player's results against the column player.
#[derive(Clone, Debug, PartialEq)]
pub struct Cell {
    /// Score in percent (None: no games).
    pub score_pct: Option<f64>,
    pub games: u64,
}

/// The most players the matrix draws (those with the most games): 40 × 40 cells still read
/// at the figure's largest size.
pub const MATRIX_PLAYERS: usize = 40;

/// The score matrix: `cells[row][column]`, both in `names` order (best first).
#[derive(Clone, Debug, PartialEq)]
pub struct MatrixPlot {
    pub names: Vec<String>,
    pub cells: Vec<Vec<Cell>>,
    /// Players of the pool left out (fewer games than those drawn).
    pub left_out: usize,
}

impl MatrixPlot {
    /// The matrix of a rated folder, players in rating order: all of them, or the
    /// [`MATRIX_PLAYERS`] with the most games (ties: the better rated).
    pub fn new(summary: &Summary) -> Result<Self, PlotError> {
        Self::with_limit(summary, MATRIX_PLAYERS)
    }

    /// As [`MatrixPlot::new`], with at most `limit` players.
    pub fn with_limit(summary: &Summary, limit: usize) -> Result<Self, PlotError> {
        let total = summary.ratings.len();
        if total < 2 {
            return Err(PlotError::NoData(
                "a score matrix needs at least two players".into(),
            ));
        }
        // `ratings` is best first: a stable sort by games keeps the better rated first in a tie.
        let mut shown: Vec<usize> = (0..total).collect();
        shown.sort_by_key(|&r| std::cmp::Reverse(summary.ratings[r].games));
        shown.truncate(limit.max(2));
        shown.sort_unstable();
        let names: Vec<String> = shown
            .iter()
            .map(|&r| summary.ratings[r].name.clone())
            .collect();
        let position: std::collections::HashMap<&str, usize> = names
            .iter()
            .enumerate()
            .map(|(i, n)| (n.as_str(), i))
            .collect();
        let index = |name: &str| position.get(name).copied();
        let empty = Cell {
            score_pct: None,
            games: 0,
        };
        let mut cells = vec![vec![empty; names.len()]; names.len()];
        // pairwise.csv holds each encounter once, from one side: fill both cells.
        for p in &summary.pairwise {
            if let (Some(i), Some(j)) = (index(&p.player), index(&p.opponent)) {
                let score = (p.games > 0)
                    .then(|| 100.0 * (p.wins as f64 + 0.5 * p.draws as f64) / p.games as f64);
                cells[i][j] = Cell {
                    score_pct: score,
                    games: p.games,
                };
                cells[j][i] = Cell {
                    score_pct: score.map(|s| 100.0 - s),
                    games: p.games,
                };
            }
        }
        Ok(MatrixPlot {
            left_out: total - names.len(),
            names,
            cells,
        })
    }

    /// What the figure leaves out, in words (empty when it shows every player).
    pub fn left_out_words(&self) -> String {
        if self.left_out == 0 {
            return String::new();
        }
        format!(
            "the {} players with the most games; {} more players are left out (every encounter is in pairwise.csv)",
            self.names.len(),
            self.left_out
        )
    }
}

/// Paul Tol's BuRd scale ends and middle, from 0% (blue) through 50% (white) to 100% (red).
const LOW: RGBColor = RGBColor(0x21, 0x66, 0xAC);
const MID: RGBColor = RGBColor(0xF7, 0xF7, 0xF7);
const HIGH: RGBColor = RGBColor(0xB2, 0x18, 0x2B);

/// The cell colour of a score in percent.
pub fn score_colour(pct: f64) -> RGBColor {
    let t = (pct / 100.0).clamp(0.0, 1.0);
    let (a, b, u) = if t < 0.5 {
        (LOW, MID, t * 2.0)
    } else {
        (MID, HIGH, (t - 0.5) * 2.0)
    };
    let mix = |x: u8, y: u8| (x as f64 + (y as f64 - x as f64) * u).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// Black or white, whichever reads better on `c`.
fn ink(c: RGBColor) -> RGBColor {
    let luma = 0.299 * c.0 as f64 + 0.587 * c.1 as f64 + 0.114 * c.2 as f64;
    if luma > 140.0 {
        RGBColor(0, 0, 0)
    } else {
        RGBColor(255, 255, 255)
    }
}

impl Plot for MatrixPlot {
    fn stem(&self) -> &'static str {
        "matrix"
    }

    fn caption(&self) -> String {
        let mut caption = "Score of the row player against the column player (percent of the \
                           points; games in brackets). Red: the row player scored more, blue: less."
            .to_string();
        if self.left_out > 0 {
            caption += &format!(" Drawn for {}.", self.left_out_words());
        }
        caption
    }

    fn size(&self) -> (u32, u32) {
        let n = self.names.len() as u32;
        let side = (200 + 90 * n).clamp(420, 1600);
        (side + 40, side)
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let n = self.names.len();
        if n == 0 {
            return Err(PlotError::NoData("no players".into()));
        }
        let heading = if self.left_out > 0 {
            format!(
                "Score matrix (row vs column): {} of {} players, {} left out (pairwise.csv)",
                n,
                n + self.left_out,
                self.left_out
            )
        } else {
            "Score matrix (row vs column)".to_string()
        };
        let title = area.titled(&heading, font(24.0)).drawn()?;
        let (w, h) = title.dim_in_pixel();
        let labels: Vec<String> = self.names.iter().map(|s| short(s, 14)).collect();
        let label_px = labels.iter().map(|l| l.chars().count()).max().unwrap_or(4) as i32 * 9 + 16;
        let top = 10;
        let left = label_px;
        let avail_w = w as i32 - left - 20;
        let avail_h = h as i32 - top - 40;
        let cell = (avail_w.min(avail_h) / n as i32).max(8);
        let number = font((cell as f64 / 4.5).clamp(9.0, 20.0));
        let small = font((cell as f64 / 7.0).clamp(8.0, 13.0));
        for (i, row) in self.cells.iter().enumerate() {
            let y0 = top + i as i32 * cell;
            title
                .draw(&Text::new(
                    labels[i].clone(),
                    (left - 8, y0 + cell / 2),
                    font(16.0).pos(Pos::new(HPos::Right, VPos::Center)),
                ))
                .drawn()?;
            for (j, c) in row.iter().enumerate() {
                let x0 = left + j as i32 * cell;
                let fill = match (i == j, c.score_pct) {
                    (true, _) => RGBColor(0xDD, 0xDD, 0xDD),
                    (false, Some(p)) => score_colour(p),
                    (false, None) => RGBColor(0xFF, 0xFF, 0xFF),
                };
                title
                    .draw(&Rectangle::new(
                        [(x0, y0), (x0 + cell, y0 + cell)],
                        fill.filled(),
                    ))
                    .drawn()?;
                title
                    .draw(&Rectangle::new(
                        [(x0, y0), (x0 + cell, y0 + cell)],
                        RGBColor(0xFF, 0xFF, 0xFF).stroke_width(2),
                    ))
                    .drawn()?;
                let centre = (x0 + cell / 2, y0 + cell / 2);
                let text = match (i == j, c.score_pct) {
                    (true, _) => "–".to_string(),
                    (false, Some(p)) => format!("{p:.0}%"),
                    (false, None) => "·".to_string(),
                };
                title
                    .draw(&Text::new(
                        text,
                        centre,
                        number
                            .clone()
                            .color(&ink(fill))
                            .pos(Pos::new(HPos::Center, VPos::Center)),
                    ))
                    .drawn()?;
                if i != j && c.games > 0 && cell >= 56 {
                    title
                        .draw(&Text::new(
                            format!("({})", c.games),
                            (centre.0, centre.1 + cell / 4),
                            small
                                .clone()
                                .color(&ink(fill))
                                .pos(Pos::new(HPos::Center, VPos::Center)),
                        ))
                        .drawn()?;
                }
            }
        }
        // Column labels under the grid.
        for (j, l) in labels.iter().enumerate() {
            title
                .draw(&Text::new(
                    l.clone(),
                    (left + j as i32 * cell + cell / 2, top + n as i32 * cell + 8),
                    font(16.0).pos(Pos::new(HPos::Center, VPos::Top)),
                ))
                .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn colour_scale_ends_and_middle() {
        assert_eq!(score_colour(0.0), LOW);
        assert_eq!(score_colour(50.0), MID);
        assert_eq!(score_colour(100.0), HIGH);
        assert_eq!(score_colour(-5.0), LOW);
        assert_eq!(ink(LOW), RGBColor(255, 255, 255));
        assert_eq!(ink(MID), RGBColor(0, 0, 0));
    }
}
