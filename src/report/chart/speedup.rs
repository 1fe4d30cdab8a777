//! The speedup chart (`dab sim`, `dab plan`): speedup against the processor count for each
//! series, with its bound and W/CP ceiling, the ideal speedup and the planned count, and the
//! legend beside the plot.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::axes::{compact, compact_tick, top};
use super::figure::{DrawResult, Figure, Frame, Key, frame, render, side_legend, with_legend_beside};
use super::{ChartError, IDEAL, PALETTE, WIDE, input};

/// One graph's sweep, for the speedup chart.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedupSeries {
    /// The series' name in the legend.
    pub label: String,
    /// Points in increasing `procs`.
    pub points: Vec<SpeedupPoint>,
    /// W / CP: no processor count can beat it.
    pub ceiling: f64,
    /// Whether to draw its bound and ceiling (once per graph: series of one graph under
    /// several policies share them).
    pub bounds: bool,
    /// Drawn wider, last and marked "(chosen)" in the legend.
    pub chosen: bool,
}

/// One processor count of a speedup series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedupPoint {
    /// Processors, P (the x axis).
    pub procs: u32,
    /// W / makespan.
    pub speedup: f64,
    /// W / max(CP, W/P): the best speedup any schedule could reach at this P.
    pub bound: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: speedup against processors for each series (with its
/// bound and W/CP ceiling where it asks for them), the ideal speedup = P, and a mark at
/// `marker` processors (the planned count); the legend stands beside the plot.
pub fn speedup(
    stem: &Path,
    title: &str,
    x_label: &str,
    series: &[SpeedupSeries],
    marker: Option<u32>,
) -> Result<(), ChartError> {
    if series.iter().all(|s| s.points.is_empty()) {
        return Err(input(stem, "no speedup points to draw"));
    }
    render(stem, WIDE, &SpeedupChart { title, x_label, series, marker })
}

/// A speedup chart's input.
struct SpeedupChart<'s> {
    title: &'s str,
    x_label: &'s str,
    series: &'s [SpeedupSeries],
    marker: Option<u32>,
}

impl Figure for SpeedupChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw_speedup(root, self.title, self.x_label, self.series, self.marker)
    }
}

fn draw_speedup<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    series: &[SpeedupSeries],
    marker: Option<u32>,
) -> DrawResult<(), DB> {
    let (plot, side) = with_legend_beside(root);
    let max_procs = series.iter().flat_map(|s| &s.points).map(|p| p.procs).max().unwrap_or(1);
    // The y axis fits the curves and the bounds drawn; a W/CP ceiling far above them (or the
    // ideal line) would squash every curve to the floor, so such a ceiling is named in the
    // legend instead of drawn.
    let drawn =
        series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.speedup, if s.bounds { p.bound } else { 0.0 }]));
    let mut y_max = top(drawn.filter(|v| v.is_finite()).fold(0.0, f64::max) * 1.05);
    let ceilings = series.iter().filter(|s| s.bounds && s.ceiling.is_finite()).map(|s| s.ceiling);
    y_max = ceilings.filter(|&c| c <= y_max * 1.5).fold(y_max, |m, c| m.max(c * 1.05));
    let x_max = (f64::from(max_procs) * 1.03).max(1.0);
    let f = Frame { title, x_desc: x_label, y_desc: "speedup", y_grid: true, x_scale: 1.0 };
    let mut chart = frame(&plot, &f, 0.0..x_max, 0.0..y_max, &compact_tick)?;
    let mut keys = Vec::new();

    let corner = x_max.min(y_max);
    chart.draw_series(LineSeries::new([(0.0, 0.0), (corner, corner)], IDEAL.stroke_width(1)))?;
    keys.push(Key { label: "ideal: speedup = P".into(), colour: IDEAL, width: 1, dash: None, dot: false });
    if let Some(p) = marker {
        let x = f64::from(p);
        chart.draw_series(DashedLineSeries::new([(x, 0.0), (x, y_max)], 4, 4, BLACK.stroke_width(1)))?;
        keys.push(Key {
            label: format!("planned: {p} threads"),
            colour: BLACK,
            width: 1,
            dash: Some((4, 4)),
            dot: false,
        });
    }
    // The chosen series last, so that no other is drawn over it.
    let mut order: Vec<(usize, &SpeedupSeries)> = series.iter().enumerate().collect();
    order.sort_by_key(|(_, s)| s.chosen);
    for (i, s) in order {
        let colour = PALETTE[i % PALETTE.len()];
        let width = if s.chosen { 4 } else { 2 };
        let curve = s.points.iter().map(|p| (f64::from(p.procs), p.speedup));
        chart.draw_series(LineSeries::new(curve.clone(), colour.stroke_width(width)))?;
        chart.draw_series(curve.map(|xy| Circle::new(xy, if s.chosen { 4 } else { 3 }, colour.filled())))?;
        let label = if s.chosen { format!("{} (chosen)", s.label) } else { s.label.clone() };
        keys.push(Key { label, colour, width, dash: None, dot: true });
        if !s.bounds {
            continue;
        }
        let bound = s.points.iter().map(|p| (f64::from(p.procs), p.bound));
        chart.draw_series(DashedLineSeries::new(bound, 6, 4, colour.stroke_width(1)))?;
        let label = "  bound W/max(CP, W/P): no schedule on P beats it".into();
        keys.push(Key { label, colour, width: 1, dash: Some((6, 4)), dot: false });
        if s.ceiling.is_finite() && s.ceiling <= y_max {
            let ceiling = [(0.0, s.ceiling), (x_max, s.ceiling)];
            chart.draw_series(DashedLineSeries::new(ceiling, 2, 4, colour.stroke_width(2)))?;
            keys.push(Key {
                label: format!("  W/CP = {}", compact(s.ceiling)),
                colour,
                width: 2,
                dash: Some((2, 4)),
                dot: false,
            });
        } else if s.ceiling.is_finite() {
            let label = format!("  W/CP = {} (above the chart)", compact(s.ceiling));
            keys.push(Key { label, colour, width: 2, dash: Some((2, 4)), dot: false });
        }
    }
    if series.iter().any(|s| s.bounds) {
        keys.push(Key { label: String::new(), colour: BLACK, width: 0, dash: None, dot: false });
        keys.push(Key { label: W_CP_NOTE.into(), colour: BLACK, width: 0, dash: None, dot: false });
    }
    side_legend(&side, &keys)
}

/// What the bounds of a speedup chart are, for its legend.
pub const W_CP_NOTE: &str = "W: total work (the time on one processor); CP: critical path (the longest \
                             chain of jobs, which no processor count shortens). So no speedup passes W/CP.";
