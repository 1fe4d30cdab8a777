//! The scaling chart (`dab scale`): measured and predicted speedup against threads with the
//! model's ceiling, over a panel of actual over predicted time at each thread count. The
//! ceiling is the model's (its costs and contention): no simulated schedule passes it, but a
//! measured run can where the model is off, so it is never called a bound.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{Threads, compact, compact_tick, times, top};
use super::figure::{DrawResult, Figure, Frame, frame, legend, render};
use super::{ChartError, FONT, IDEAL, PALETTE, input};

/// Scaling charts: the speedup panel over the error panel, which has this many pixels.
const SCALE_SIZE: (u32, u32) = (1024, 920);
const ERROR_PANEL: u32 = 300;

/// One thread count of a scaling chart: speedups over one thread, and the prediction's error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ScalePoint {
    /// Threads (the x axis).
    pub(crate) threads: u32,
    /// Predicted speedup.
    pub(crate) predicted: f64,
    /// Measured speedup.
    pub(crate) actual: f64,
    /// The model's ceiling as a speedup: no simulated schedule reaches past it (a run can).
    pub(crate) bound: f64,
    /// Actual over predicted seconds: above 1, slower than predicted.
    pub(crate) ratio: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: measured and predicted speedup against threads with the
/// model's ceiling and the ideal speedup = threads (the panel titled `speedup_title`), and
/// below it actual over predicted time at each thread count, each point labelled ("0.91x").
/// `repeats` is how many runs each measured point is the median of.
pub(crate) fn scale(
    stem: &Path,
    title: &str,
    speedup_title: &str,
    repeats: usize,
    points: &[ScalePoint],
) -> Result<(), ChartError> {
    if points.is_empty() {
        return Err(input(stem, "no thread counts to draw"));
    }
    render(stem, SCALE_SIZE, &ScaleChart { title, speedup_title, repeats, points })
}

/// A scaling chart's input.
struct ScaleChart<'s> {
    title: &'s str,
    speedup_title: &'s str,
    repeats: usize,
    points: &'s [ScalePoint],
}

impl Figure for ScaleChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw_scale(root, self.title, self.speedup_title, self.repeats, self.points)
    }
}

/// Speedups over the error of each thread count, on one threads axis.
fn draw_scale<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    speedup_title: &str,
    repeats: usize,
    points: &[ScalePoint],
) -> DrawResult<(), DB> {
    let body = root.titled(title, (FONT, 26))?;
    let height = body.dim_in_pixel().1;
    let (upper, lower) = body.split_vertically(height.saturating_sub(ERROR_PANEL));
    let x = Threads::new(points.iter().map(|p| p.threads));
    let at = |v: fn(&ScalePoint) -> f64| points.iter().map(move |p| (f64::from(p.threads), v(p)));

    // The ideal line is in range: with a handful of threads it is the yardstick.
    let most = points.iter().flat_map(|p| [p.predicted, p.actual, p.bound]).chain([x.last()]);
    let y_max = top(most.filter(|v| v.is_finite()).fold(0.0, f64::max) * 1.08);
    let f = Frame { title: speedup_title, x_desc: "threads", y_desc: "speedup", y_grid: true, x_scale: 1.0 };
    let mut chart = frame(&upper, &f, x.clone(), 0.0..y_max, &compact_tick)?;
    let corner = x.hi.min(y_max);
    let ideal = IDEAL.stroke_width(1);
    chart
        .draw_series(LineSeries::new([(x.lo, x.lo), (corner, corner)], ideal))?
        .label("ideal: speedup = threads")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], ideal));
    // Measured dots inside predicted rings, so that both show where they agree.
    let measured = PALETTE[1];
    let label = if repeats > 1 { format!("measured (median of {repeats} runs)") } else { "measured".to_string() };
    chart.draw_series(LineSeries::new(at(|p| p.actual), measured.stroke_width(2)))?.label(label).legend(
        move |(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new([(0, 0), (20, 0)], measured.stroke_width(2))
                + Circle::new((10, 0), 4, measured.filled())
        },
    );
    chart.draw_series(at(|p| p.actual).map(|xy| Circle::new(xy, 4, measured.filled())))?;
    let predicted = PALETTE[0].stroke_width(2);
    chart.draw_series(LineSeries::new(at(|p| p.predicted), predicted))?.label("predicted").legend(move |(x, y)| {
        EmptyElement::at((x, y)) + PathElement::new([(0, 0), (20, 0)], predicted) + Circle::new((10, 0), 5, predicted)
    });
    chart.draw_series(at(|p| p.predicted).map(|xy| Circle::new(xy, 7, predicted)))?;
    // Last, dashed: where the prediction reaches the ceiling, the dashes still show on it.
    let bound = PALETTE[2].stroke_width(2);
    chart
        .draw_series(DashedLineSeries::new(at(|p| p.bound), 6, 6, bound))?
        .label("model's ceiling: one-thread prediction / max(CP, W/P); runs can pass it")
        .legend(move |(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 6, 6, bound));
    // Above the ideal line nothing is drawn unless a run beat it.
    legend(&mut chart, SeriesLabelPosition::UpperLeft)?;

    let ratios: Vec<(f64, f64)> = at(|p| p.ratio).filter(|(_, r)| r.is_finite()).collect();
    // Symmetric about 1, with room for the labels, and never narrower than 0.95x to 1.05x.
    let reach = ratios.iter().map(|(_, r)| (r - 1.0).abs()).fold(0.05, f64::max) * 1.4;
    let f = Frame {
        title: "actual / predicted time (above 1x: slower than predicted)",
        x_desc: "threads",
        y_desc: "actual / predicted",
        y_grid: true,
        x_scale: 1.0,
    };
    let mut chart = frame(&lower, &f, x.clone(), 1.0 - reach..1.0 + reach, &|v| format!("{}x", compact(*v)))?;
    chart.draw_series(LineSeries::new([(x.lo, 1.0), (x.hi, 1.0)], IDEAL.stroke_width(1)))?;
    let colour = PALETTE[1];
    chart.draw_series(LineSeries::new(ratios.iter().copied(), colour.stroke_width(1)))?;
    chart.draw_series(ratios.iter().map(|&xy| Circle::new(xy, 4, colour.filled())))?;
    let style = TextStyle::from((FONT, 13));
    chart.draw_series(ratios.iter().map(|&(t, r)| {
        // Away from the 1x line: above a run slower than predicted, below a faster one.
        let (v, dy) = if r >= 1.0 { (VPos::Bottom, -8) } else { (VPos::Top, 8) };
        EmptyElement::at((t, r)) + Text::new(times(r), (0, dy), style.pos(Pos::new(HPos::Center, v)))
    }))?;
    Ok(())
}
