//! `trajectory.svg/png`: a tune's parameters over its game pairs (`tune.json`, written by
//! `arena tune`), each as `(θ − start) / c_end` ([`crate::rating::spsa::Param::moved`]), the
//! normalisation of fishtest's SPSA chart: every parameter on one axis, in units of the final
//! perturbation, whatever its scale. The raw values are in `tune.csv` and in the dashboard's
//! table.

use plotters::coord::Shift;
use plotters::prelude::*;

use super::{
    colour, finite_range, font, padded, short, with_side_legend, Drawn, HouseStyle, Plot,
    PlotError, GREY,
};
use crate::run_folder::tune::TuneFile;

/// The trajectory figure's data: one series per parameter, `(pairs so far, moved)`, starting at
/// `(0, 0)`.
#[derive(Clone, Debug, PartialEq)]
pub struct TunePlot {
    pub names: Vec<String>,
    pub series: Vec<Vec<(u64, f64)>>,
    /// The planned pairs (the x axis runs to them, so a running tune shows how far it is).
    pub planned: u64,
    /// Iterations done and planned.
    pub iterations: (usize, u64),
}

impl TunePlot {
    pub fn new(file: &TuneFile) -> Result<TunePlot, PlotError> {
        if file.steps.is_empty() {
            return Err(PlotError::NoData(
                "no iteration has finished yet (tune.json has no step)".to_string(),
            ));
        }
        let params = &file.setup.params;
        let series = params
            .iter()
            .enumerate()
            .map(|(i, p)| {
                std::iter::once((0, 0.0))
                    .chain(
                        file.steps
                            .iter()
                            .filter_map(|s| Some((s.pairs, p.moved(*s.theta.get(i)?)))),
                    )
                    .collect()
            })
            .collect();
        Ok(TunePlot {
            names: params.iter().map(|p| p.name.clone()).collect(),
            series,
            planned: file.setup.schedule.pairs,
            iterations: (file.steps.len(), file.setup.iterations),
        })
    }
}

impl Plot for TunePlot {
    fn stem(&self) -> &'static str {
        "trajectory"
    }

    fn caption(&self) -> String {
        format!(
            "Each parameter's θ after every iteration, as (θ − start) / c_end: how many final \
             perturbations it has moved from its start (fishtest's normalisation). {} of {} \
             iterations.",
            self.iterations.0, self.iterations.1
        )
    }

    fn draw<DB: DrawingBackend>(&self, area: &DrawingArea<DB, Shift>) -> Result<(), PlotError>
    where
        DB::ErrorType: 'static,
    {
        let (lo, hi) = finite_range(self.series.iter().flatten().map(|p| p.1))
            .ok_or_else(|| PlotError::NoData("no finite θ".into()))?;
        let (lo, hi) = padded(lo.min(-1.0), hi.max(1.0));
        let last = self
            .series
            .iter()
            .flatten()
            .map(|p| p.0)
            .max()
            .unwrap_or(0)
            .max(self.planned)
            .max(1);
        let titled = area.titled("SPSA trajectory", font(24.0)).drawn()?;
        let entries: Vec<(String, RGBColor)> = (self.names.iter().enumerate())
            .map(|(i, name)| (short(name, 20), colour(i)))
            .collect();
        let plot = with_side_legend(&titled, &entries)?;
        let mut chart = ChartBuilder::on(&plot)
            .margin(16)
            .x_label_area_size(44)
            .y_label_area_size(64)
            .build_cartesian_2d(0u64..last, lo..hi)
            .drawn()?;
        chart
            .configure_mesh()
            .x_desc("game pairs")
            .y_desc("(θ − start) / c_end")
            .y_label_formatter(&|y| format!("{y:.1}"))
            .house_style()
            .draw()
            .drawn()?;
        chart
            .draw_series(std::iter::once(PathElement::new(
                vec![(0, 0.0), (last, 0.0)],
                GREY.stroke_width(1),
            )))
            .drawn()?;
        for (i, series) in self.series.iter().enumerate() {
            chart
                .draw_series(LineSeries::new(
                    series.iter().copied(),
                    colour(i).stroke_width(3),
                ))
                .drawn()?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rating::spsa::{Param, Schedule};
    use crate::run_folder::tune::{TuneSetup, TuneStep};

    fn file(steps: usize) -> TuneFile {
        let params: Vec<Param> = [
            "EvalStore, 4, 0, 16, 2, 0.03",
            "EvalMobility, 0, -8, 8, 1, 0.03",
        ]
        .iter()
        .map(|l| Param::parse_line(l).unwrap())
        .collect();
        TuneFile {
            setup: TuneSetup {
                player: None,
                bot: "bot".into(),
                bot_options: Vec::new(),
                params,
                iterations: 10,
                pairs_per_iteration: 2,
                schedule: Schedule {
                    alpha: 0.602,
                    gamma: 0.101,
                    a_ratio: 0.1,
                    pairs: 20,
                },
                tail: 0.25,
                seed: 1,
                game: Default::default(),
                verify: None,
                model: "wdl".into(),
            },
            steps: (0..steps)
                .map(|k| TuneStep {
                    iteration: k as u64,
                    pairs: 2 * (k as u64 + 1),
                    iteration_pairs: 2,
                    result: 1.0,
                    theta: vec![4.0 + k as f64, -0.5 * k as f64],
                    c: vec![2.0, 1.0],
                    r: vec![0.03, 0.03],
                    delta: vec![1, -1],
                    plus: vec![0.0, 0.0],
                    minus: vec![0.0, 0.0],
                })
                .collect(),
            finished: false,
            tuned: None,
            verify: None,
        }
    }

    #[test]
    fn each_parameter_is_moved_in_units_of_its_c_end() {
        let plot = TunePlot::new(&file(3)).unwrap();
        // EvalStore 4, 5, 6 with c_end 2; EvalMobility 0, -0.5, -1 with c_end 1.
        assert_eq!(plot.series[0], vec![(0, 0.0), (2, 0.0), (4, 0.5), (6, 1.0)]);
        assert_eq!(
            plot.series[1],
            vec![(0, 0.0), (2, 0.0), (4, -0.5), (6, -1.0)]
        );
        assert_eq!(plot.planned, 20);
        let svg = super::super::render_svg(&plot).unwrap();
        super::super::tests::assert_legend_beside_the_lines(&svg, &plot.names);
        assert!(TunePlot::new(&file(0)).is_err());
    }
}
