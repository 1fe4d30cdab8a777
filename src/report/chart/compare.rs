//! The comparison chart (`dab compare`): a run's predicted and actual schedules as two Gantt
//! panels on one time axis and one colour key, over a log-log scatter of every job's predicted
//! against actual duration.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{Log, PAD, compact_tick, count};
use super::figure::{DrawResult, Figure, Frame, frame, legend, render};
use super::gantt::{
    BarScale, GanttBar, GanttScale, KEY_HEIGHT, MAX_LABELLED_BARS, draw_gantt, draw_level_key, fit, gantt_height,
};
use super::{ChartError, FONT, IDEAL, PALETTE, input};

/// Comparison charts: two Gantt panels side by side over a duration scatter of fixed height, plus
/// room for the title; the panels' height grows with the lanes as a Gantt chart's does.
const COMPARE_WIDTH: u32 = 1600;
const COMPARE_TITLE: u32 = 40;
const SCATTER_HEIGHT: u32 = 560;
/// The scatter's tolerance band: actual within 1.2x of predicted, either way.
const BAND: f64 = 1.2;
/// Up to this many points, scatter dots are larger and nearly opaque; past it, small and
/// translucent, so that dense clouds show their density.
const FEW_POINTS: usize = 300;

/// One job's predicted and actual duration, for the scatter panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComparePoint {
    /// Predicted duration, in the chart's time unit.
    pub predicted: f64,
    /// Actual duration, in the chart's time unit.
    pub actual: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: the predicted and the actual schedule of one run as two
/// Gantt charts side by side, on the same time axis (0 to the larger of the two makespans), the
/// same `procs` lanes and one colour key of levels (bars merged as [`gantt`](fn@super::gantt) merges them), and
/// below them a scatter of every job's predicted against actual duration (log-log axes, with
/// the line y = x and, lightly, y = 1.2x and y = x/1.2: actual within 1.2x of predicted).
/// `scale.time_unit` is the unit of the bars' start and end and of the points. Points with a
/// duration that is not positive cannot sit on log axes: they are left out, and counted in the
/// caption.
pub fn compare(
    stem: &Path,
    title: &str,
    scale: &BarScale,
    procs: u32,
    predicted: &[GanttBar],
    actual: &[GanttBar],
    points: &[ComparePoint],
) -> Result<(), ChartError> {
    if procs == 0 || (predicted.is_empty() && actual.is_empty()) {
        return Err(input(stem, "no processors or no bars to draw"));
    }
    fit(stem, procs, predicted)?;
    fit(stem, procs, actual)?;
    let size = (COMPARE_WIDTH, COMPARE_TITLE + KEY_HEIGHT + gantt_height(procs) + SCATTER_HEIGHT);
    render(stem, size, &CompareChart { title, scale, procs, predicted, actual, points })
}

/// A comparison chart's input.
struct CompareChart<'s> {
    title: &'s str,
    scale: &'s BarScale<'s>,
    procs: u32,
    predicted: &'s [GanttBar],
    actual: &'s [GanttBar],
    points: &'s [ComparePoint],
}

impl Figure for CompareChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw_compare(root, self.title, self.scale, self.procs, [self.predicted, self.actual], self.points)
    }
}

/// The two schedules side by side under the title and their colour key, both on one
/// `GanttScale`, and the duration scatter below them.
fn draw_compare<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    scale: &BarScale,
    procs: u32,
    [predicted, actual]: [&[GanttBar]; 2],
    points: &[ComparePoint],
) -> DrawResult<(), DB> {
    let body = root.titled(title, (FONT, 24))?;
    let (key, body) = body.split_vertically(KEY_HEIGHT);
    let (width, height) = body.dim_in_pixel();
    let (schedules, scatter) = body.split_vertically(height.saturating_sub(SCATTER_HEIGHT));
    let (left, right) = schedules.split_horizontally(width / 2);
    let lanes = GanttScale::new(procs, &[predicted, actual]);
    let merged = predicted.len().max(actual.len()) > MAX_LABELLED_BARS;
    draw_level_key(&key, scale.level, &lanes, merged)?;
    draw_gantt(&left, "predicted", scale.time_unit, &lanes, predicted)?;
    draw_gantt(&right, "actual", scale.time_unit, &lanes, actual)?;
    draw_scatter(&scatter, scale.time_unit, points)
}

/// Actual against predicted duration, one dot per job (plain circles, so that thousands stay quick
/// to draw), on log-log axes with y = x and the band of actual within 1.2x of predicted.
fn draw_scatter<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    time_unit: &str,
    points: &[ComparePoint],
) -> DrawResult<(), DB> {
    let positive = |v: f64| v > 0.0 && v.is_finite();
    let shown: Vec<(f64, f64)> = points
        .iter()
        .filter(|p| positive(p.predicted) && positive(p.actual))
        .map(|p| (p.predicted, p.actual))
        .collect();
    let left_out = match points.len() - shown.len() {
        0 => String::new(),
        n => format!("; {n} not positive, not shown"),
    };
    if shown.is_empty() {
        let (w, h) = root.dim_in_pixel();
        let message = format!("durations: no job with a positive predicted and actual duration{left_out}");
        let style = TextStyle::from((FONT, 20)).pos(Pos::new(HPos::Center, VPos::Center));
        return root.draw_text(&message, &style, (w as i32 / 2, h as i32 / 2));
    }
    let within = shown.iter().filter(|&&(p, a)| a <= p * BAND && a >= p / BAND).count();
    let (within, jobs) = (crate::support::thousands(within as u64), count(shown.len(), "job"));
    let title = format!("durations: {within} of {jobs} within {BAND}x of the prediction{left_out}");
    let (x_desc, y_desc) = (format!("predicted ({time_unit})"), format!("actual ({time_unit})"));
    let f = Frame { title: &title, x_desc: &x_desc, y_desc: &y_desc, y_grid: true, x_scale: 1.0 };
    // One range for both axes, so that y = x runs corner to corner.
    let (lo, hi) =
        shown.iter().flat_map(|&(p, a)| [p, a]).fold((f64::MAX, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let axis = Log { lo: lo / PAD, hi: hi * PAD };
    let mut chart = frame(root, &f, axis, axis, &compact_tick)?;
    let (lo, hi) = (axis.lo, axis.hi);

    let (radius, dot) = match shown.len() {
        n if n <= FEW_POINTS => (3, PALETTE[0].mix(0.8).filled()),
        _ => (2, PALETTE[0].mix(0.35).filled()),
    };
    chart
        .draw_series(shown.iter().map(|&xy| Circle::new(xy, radius, dot)))?
        .label("job")
        .legend(move |xy| Circle::new(xy, 3, dot));
    // On top of the dots, which could hide them.
    let line = IDEAL.stroke_width(2);
    chart
        .draw_series(LineSeries::new([(lo, lo), (hi, hi)], line))?
        .label("actual = predicted")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], line));
    let band = IDEAL.mix(0.6).stroke_width(1);
    chart
        .draw_series(DashedLineSeries::new([(lo, lo * BAND), (hi / BAND, hi)], 6, 4, band))?
        .label(format!("actual within {BAND}x of predicted"))
        .legend(move |(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 6, 4, band));
    chart.draw_series(DashedLineSeries::new([(lo * BAND, lo), (hi, hi / BAND)], 6, 4, band))?;
    // Upper left: jobs far slower than predicted, rarely many.
    legend(&mut chart, SeriesLabelPosition::UpperLeft)
}
