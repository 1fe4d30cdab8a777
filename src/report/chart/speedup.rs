//! The speedup chart (`dab sim`, `dab plan`, `dab run`): speedup against the processor count
//! for each series, with the model's ceilings (W/max(CP, W/P) and W/CP), the ideal speedup, the
//! planned count and, where a run of the plan exists, its measured speedup, and the legend beside
//! the plot. The processor axis is ticked at whole counts only.
//!
//! The ceilings are the model's: W and CP are the modelled costs, so no simulated schedule
//! passes them, but a measured run can, wherever the model's costs or contention are off (a
//! run measured at 1.01 against a ceiling of 0.90). They are named as such, never "a bound no
//! schedule beats": a bound would have to hold for every measured run, and no number made of
//! modelled costs does (not even P, which cache effects can pass).

use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::types::RangedCoordf64;
use plotters::prelude::*;

use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{Counts, compact, compact_tick, top};
use super::figure::{DrawResult, Figure, Frame, Key, frame, render, side_legend, with_legend_beside};
use super::{ChartError, FONT, IDEAL, PALETTE, WIDE, input};

/// One graph's sweep, for the speedup chart.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedupSeries {
    /// The series' name in the legend.
    pub label: String,
    /// Points in increasing `procs`.
    pub points: Vec<SpeedupPoint>,
    /// W / CP of the modelled costs: no simulated schedule on any processor count passes it.
    pub ceiling: f64,
    /// Whether to draw its ceilings (once per graph: series of one graph under several
    /// policies share them).
    pub bounds: bool,
    /// Drawn wider, last and marked "(chosen)" in the legend.
    pub chosen: bool,
    /// The speedups measured by runs of the series' plan, if any ran.
    pub measured: Option<MeasuredSpeedup>,
}

/// The speedups measured by runs of a plan, drawn as black dots with their values.
#[derive(Clone, Debug, PartialEq)]
pub struct MeasuredSpeedup {
    /// The legend's entry: what ran, and how its speedup is defined.
    pub label: String,
    /// (threads, measured speedup), in increasing threads.
    pub points: Vec<(u32, f64)>,
}

/// One processor count of a speedup series.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedupPoint {
    /// Processors, P (the x axis).
    pub procs: u32,
    /// W / makespan.
    pub speedup: f64,
    /// W / max(CP, W/P) of the modelled costs (W/P slowed by the modelled contention, where
    /// the caller has one): the model's ceiling, which no simulated schedule on P passes.
    pub bound: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: speedup against processors for each series (with the
/// model's ceilings where it asks for them, and its measured speedups where it has some), the
/// ideal speedup = P, and a mark at `marker` processors (the planned count); the legend stands
/// beside the plot.
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
    let measured = || series.iter().filter_map(|s| s.measured.as_ref()).flat_map(|m| &m.points);
    let max_procs =
        series.iter().flat_map(|s| &s.points).map(|p| p.procs).chain(measured().map(|m| m.0)).max().unwrap_or(1);
    // The y axis fits the curves, the measured points and the ceilings drawn; a W/CP ceiling far
    // above them (or the ideal line) would squash every curve to the floor, so such a ceiling is
    // named in the legend instead of drawn.
    let drawn =
        series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.speedup, if s.bounds { p.bound } else { 0.0 }]));
    let highest = drawn.chain(measured().map(|m| m.1)).filter(|v| v.is_finite()).fold(0.0, f64::max);
    let mut y_max = top(highest * 1.05);
    let ceilings = series.iter().filter(|s| s.bounds && s.ceiling.is_finite()).map(|s| s.ceiling);
    y_max = ceilings.filter(|&c| c <= y_max * 1.5).fold(y_max, |m, c| m.max(c * 1.05));
    let x_max = (f64::from(max_procs) * 1.03).max(1.0);
    let f = Frame { title, x_desc: x_label, y_desc: "speedup", y_grid: true, x_scale: 1.0 };
    let mut chart = frame(&plot, &f, Counts { hi: x_max }, 0.0..y_max, &compact_tick)?;
    let mut keys = Vec::new();

    let corner = x_max.min(y_max);
    chart.draw_series(LineSeries::new([(0.0, 0.0), (corner, corner)], IDEAL.stroke_width(1)))?;
    keys.push(Key { label: "ideal: speedup = P".into(), colour: IDEAL, width: 1, dash: None, dot: false });
    if let Some(p) = marker {
        let x = f64::from(p);
        chart.draw_series(DashedLineSeries::new([(x, 0.0), (x, y_max)], 4, 4, BLACK.stroke_width(1)))?;
        keys.push(Key {
            label: format!("planned: {}", crate::support::count_of(u64::from(p), "thread")),
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
        if s.bounds {
            keys.extend(draw_ceilings(&mut chart, s, colour, x_max, y_max)?);
        }
    }
    // Measured points last, over every curve, each with its value.
    for m in series.iter().filter_map(|s| s.measured.as_ref()) {
        let points = m.points.iter().map(|&(p, v)| (f64::from(p), v));
        let style = TextStyle::from((FONT, 13)).pos(Pos::new(HPos::Left, VPos::Bottom));
        chart.draw_series(points.map(|xy| {
            EmptyElement::at(xy)
                + Circle::new((0, 0), 6, BLACK.filled())
                + Circle::new((0, 0), 3, WHITE.filled())
                + Text::new(compact(xy.1), (6, -6), style.clone())
        }))?;
        keys.push(Key { label: m.label.clone(), colour: BLACK, width: 0, dash: None, dot: true });
    }
    if series.iter().any(|s| s.bounds) {
        keys.push(Key { label: String::new(), colour: BLACK, width: 0, dash: None, dot: false });
        keys.push(Key { label: W_CP_NOTE.into(), colour: BLACK, width: 0, dash: None, dot: false });
    }
    side_legend(&side, &keys)
}

/// Draws a series' ceilings, W/max(CP, W/P) at each P and W/CP (named only, where it is above
/// the chart); gives their legend entries.
fn draw_ceilings<DB: DrawingBackend>(
    chart: &mut ChartContext<'_, DB, Cartesian2d<Counts, RangedCoordf64>>,
    s: &SpeedupSeries,
    colour: RGBColor,
    x_max: f64,
    y_max: f64,
) -> DrawResult<Vec<Key>, DB> {
    let mut keys = Vec::new();
    let bound = s.points.iter().map(|p| (f64::from(p.procs), p.bound));
    chart.draw_series(DashedLineSeries::new(bound, 6, 4, colour.stroke_width(1)))?;
    let label = "  model's ceiling W/max(CP, W/P): no simulated schedule on P passes it".into();
    keys.push(Key { label, colour, width: 1, dash: Some((6, 4)), dot: false });
    if s.ceiling.is_finite() && s.ceiling <= y_max {
        let ceiling = [(0.0, s.ceiling), (x_max, s.ceiling)];
        chart.draw_series(DashedLineSeries::new(ceiling, 2, 4, colour.stroke_width(2)))?;
        keys.push(Key {
            label: format!("  model's W/CP = {}", compact(s.ceiling)),
            colour,
            width: 2,
            dash: Some((2, 4)),
            dot: false,
        });
    } else if s.ceiling.is_finite() {
        let label = format!("  model's W/CP = {} (above the chart)", compact(s.ceiling));
        keys.push(Key { label, colour, width: 2, dash: Some((2, 4)), dot: false });
    }
    Ok(keys)
}

/// What the ceilings of a speedup chart are, for its legend.
pub const W_CP_NOTE: &str = "W: total work (the time on one processor); CP: critical path (the longest \
                             chain of jobs, which no processor count shortens); both the model's costs \
                             (W/P slowed by its contention where it has one). So no simulated speedup \
                             passes W/CP, but a run can where the model is off: a ceiling of the model, \
                             not a bound on runs.";
