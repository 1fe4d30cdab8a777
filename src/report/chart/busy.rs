//! The busy-processors chart (`dab sim`): processors busy over time in each simulation, one
//! step line per series, series with the same steps drawn once.

use std::path::Path;

use plotters::coord::Shift;
use plotters::prelude::*;

use super::axes::{compact, top};
use super::figure::{DrawResult, Figure, Frame, Key, frame, render, side_legend, with_legend_beside};
use super::{ChartError, PALETTE, WIDE, input};

/// Processors busy over time in one simulation: a step function.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BusySeries {
    /// For example "P = 25, split".
    pub label: String,
    /// (time, busy processors from this time on), increasing time, first at 0; the last step
    /// ends the run (busy 0).
    pub steps: Vec<(u64, u32)>,
    /// The line's dash pattern: 0 solid, 1 dashed, 2 dotted (then round again). Series that
    /// may coincide (one graph under two policies) get different ones, so the one drawn last
    /// does not hide the other.
    pub dash: usize,
}

/// Writes `<stem>.svg` and `<stem>.png`: processors busy over time, one step line per series.
pub fn busy(stem: &Path, title: &str, time_unit: &str, series: &[BusySeries]) -> Result<(), ChartError> {
    if series.iter().all(|s| s.steps.is_empty()) {
        return Err(input(stem, "no busy-processor steps to draw"));
    }
    render(stem, WIDE, &BusyChart { title, time_unit, series })
}

/// A busy chart's input.
struct BusyChart<'s> {
    title: &'s str,
    time_unit: &'s str,
    series: &'s [BusySeries],
}

impl Figure for BusyChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw_busy(root, self.title, self.time_unit, self.series)
    }
}

fn draw_busy<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    time_unit: &str,
    series: &[BusySeries],
) -> DrawResult<(), DB> {
    let end = series.iter().filter_map(|s| s.steps.last()).map(|&(t, _)| t).max().unwrap_or(0);
    let most = series.iter().flat_map(|s| &s.steps).map(|&(_, b)| b).max().unwrap_or(0);
    let x_desc = format!("time ({time_unit})");
    let (plot, side) = with_legend_beside(root);
    let f = Frame { title, x_desc: &x_desc, y_desc: "busy processors", y_grid: true, x_scale: 1.0 };
    let x = 0.0..top(end as f64 * 1.02);
    // Integer y: processors come whole, so ticks should too.
    let mut chart = frame(&plot, &f, x, 0..most.saturating_add((most / 20).max(1)), &|v| compact(f64::from(*v)))?;

    // Series with the same steps (P = 25 and P = 60 of a graph that never keeps 25 busy) are
    // drawn once, their labels joined; series that differ but may coincide in stretches (one
    // graph under two policies) differ in dash as well as colour, so the one drawn over the
    // other leaves gaps it shows through.
    let mut keys: Vec<Key> = Vec::new();
    let mut drawn: Vec<&[(u64, u32)]> = Vec::new();
    let mut twins: Vec<bool> = Vec::new();
    for (s, colour) in series.iter().zip(PALETTE.iter().copied().cycle()) {
        if let Some(k) = drawn.iter().position(|d| *d == s.steps.as_slice()) {
            keys[k].label += &format!(" = {}", s.label);
            twins[k] = true;
            continue;
        }
        twins.push(false);
        drawn.push(&s.steps);
        let (width, dash) = BUSY_DASHES[s.dash % BUSY_DASHES.len()];
        let line = colour.stroke_width(width);
        // Each step holds its value until the next one starts.
        let path: Vec<(f64, u32)> = s
            .steps
            .iter()
            .enumerate()
            .flat_map(|(i, &(t, b))| {
                let held = if i == 0 { b } else { s.steps[i - 1].1 };
                [(t as f64, held), (t as f64, b)]
            })
            .collect();
        match dash {
            Some((on, off)) => chart.draw_series(DashedLineSeries::new(path, on, off, line))?,
            None => chart.draw_series(LineSeries::new(path, line))?,
        };
        keys.push(Key { label: s.label.clone(), colour, width, dash, dot: false });
    }
    for (k, _) in keys.iter_mut().zip(&twins).filter(|(_, t)| **t) {
        k.label += " (the same steps: one line)";
    }
    side_legend(&side, &keys)
}

/// A busy series' line by its `dash`: width, and dash and gap in pixels (none: solid). The
/// solid line is the widest, so a dashed one over it leaves it showing on both sides.
const BUSY_DASHES: [(u32, Option<(u32, u32)>); 3] = [(3, None), (2, Some((10, 6))), (2, Some((2, 4)))];
