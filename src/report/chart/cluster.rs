//! The cluster chart (`dab plan --nodes`): the predicted makespan against nodes beside the
//! store traffic against nodes, both on log-log axes.

use std::path::Path;

use plotters::chart::SeriesLabelPosition;
use plotters::coord::Shift;
use plotters::prelude::*;

use super::axes::{Log, PAD, compact_tick};
use super::figure::{DrawResult, Figure, Frame, frame, legend, render};
use super::{ChartError, FONT, IDEAL, PALETTE, WIDE, input};

/// One node count of a cluster sweep (`dab plan --nodes 1,2,..`).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ClusterPoint {
    /// Nodes (the x axis).
    pub nodes: u32,
    /// Predicted seconds of the cluster run.
    pub seconds: f64,
    /// Bytes the tasks read from the store.
    pub read_bytes: f64,
    /// Bytes the tasks write to the store.
    pub write_bytes: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: the predicted makespan against nodes beside the store
/// traffic against nodes, both on log-log axes; the makespan panel has the ideal line (the
/// first count's time shared by the nodes).
pub fn cluster(stem: &Path, title: &str, points: &[ClusterPoint]) -> Result<(), ChartError> {
    let positive = |v: f64| v.is_finite() && v > 0.0;
    if points.is_empty() || points.iter().any(|p| p.nodes == 0 || !positive(p.seconds)) {
        return Err(input(stem, "no node counts, or a count without a positive predicted time"));
    }
    render(stem, WIDE, &ClusterChart { title, points })
}

/// A cluster chart's input.
struct ClusterChart<'s> {
    title: &'s str,
    points: &'s [ClusterPoint],
}

impl Figure for ClusterChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        draw_cluster(root, self.title, self.points)
    }
}

/// The cluster sweep: makespan against nodes at the left, store traffic at the right.
fn draw_cluster<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    points: &[ClusterPoint],
) -> DrawResult<(), DB> {
    let root = root.titled(title, (FONT, 24))?;
    let (left, right) = root.split_horizontally(root.dim_in_pixel().0 / 2);
    let (n_lo, n_hi) =
        (points.iter().map(|p| p.nodes).min().unwrap_or(1), points.iter().map(|p| p.nodes).max().unwrap_or(1));
    let nodes = Log { lo: f64::from(n_lo) / PAD, hi: f64::from(n_hi) * PAD };
    let curve =
        |f: fn(&ClusterPoint) -> f64| points.iter().map(move |p| (f64::from(p.nodes), f(p))).collect::<Vec<_>>();

    let first = points.iter().min_by_key(|p| p.nodes).expect("not empty");
    let ideal: Vec<(f64, f64)> =
        [n_lo, n_hi].iter().map(|&n| (f64::from(n), first.seconds * f64::from(first.nodes) / f64::from(n))).collect();
    let (lo, hi) = points
        .iter()
        .map(|p| p.seconds)
        .chain(ideal.iter().map(|i| i.1))
        .fold((f64::MAX, 0.0_f64), |(lo, hi), v| (lo.min(v), hi.max(v)));
    let f = Frame { title: "predicted makespan", x_desc: "nodes", y_desc: "seconds", y_grid: true, x_scale: 1.0 };
    let mut chart = frame(&left, &f, nodes, Log { lo: lo / PAD, hi: hi * PAD }, &compact_tick)?;
    let line = IDEAL.stroke_width(1);
    chart
        .draw_series(LineSeries::new(ideal, line))?
        .label("ideal: the first count's time shared")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], line));
    let colour = PALETTE[0];
    chart
        .draw_series(LineSeries::new(curve(|p| p.seconds), colour.stroke_width(3)))?
        .label("predicted")
        .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(3)));
    chart.draw_series(curve(|p| p.seconds).into_iter().map(|xy| Circle::new(xy, 4, colour.filled())))?;
    legend(&mut chart, SeriesLabelPosition::LowerLeft)?;

    let traffic: Vec<f64> = points.iter().flat_map(|p| [p.read_bytes, p.write_bytes]).filter(|v| *v > 0.0).collect();
    let (lo, hi) = traffic.iter().fold((f64::MAX, 0.0_f64), |(lo, hi), &v| (lo.min(v), hi.max(v)));
    let (lo, hi) = if traffic.is_empty() { (1.0, 10.0) } else { (lo, hi) };
    let f = Frame { title: "store traffic", x_desc: "nodes", y_desc: "bytes", y_grid: true, x_scale: 1.0 };
    let mut chart = frame(&right, &f, nodes, Log { lo: lo / PAD, hi: hi * PAD }, &compact_tick)?;
    let read = curve(|p| p.read_bytes);
    let written = curve(|p| p.write_bytes);
    let series = [
        ("read (other tasks' files; 0 not drawn)", read, PALETTE[1]),
        ("written (every job's file)", written, PALETTE[2]),
    ];
    for (label, values, colour) in series {
        let shown: Vec<(f64, f64)> = values.into_iter().filter(|&(_, v)| v > 0.0).collect();
        chart
            .draw_series(LineSeries::new(shown.clone(), colour.stroke_width(3)))?
            .label(label)
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], colour.stroke_width(3)));
        chart.draw_series(shown.into_iter().map(|xy| Circle::new(xy, 4, colour.filled())))?;
    }
    legend(&mut chart, SeriesLabelPosition::UpperLeft)
}
