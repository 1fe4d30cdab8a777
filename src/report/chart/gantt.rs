//! Gantt charts: one lane per processor, bars coloured by level under a colour key, and past
//! [`MAX_LABELLED_BARS`] bars a lane's bars merged to at most one a pixel. The comparison chart
//! draws its two schedules with the same panels.

use std::collections::{BTreeMap, BTreeSet};
use std::path::Path;

use plotters::coord::Shift;
use plotters::coord::ranged1d::ValueFormatter;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::{Lanes, count, top};
use super::figure::{DrawResult, FRAME_MARGIN, Figure, Frame, Y_LABEL_AREA, frame, render};
use super::{ChartError, FONT, input};

/// The time unit of charts whose bars are whole microseconds (`dab compare`): Gantt axes show
/// them as seconds.
pub(crate) const MICROS: &str = "µs";
/// Gantt charts: wider for long time axes; the height grows with the lanes, within limits.
const GANTT_WIDTH: u32 = 1280;
const GANTT_MIN_HEIGHT: u32 = 400;
const GANTT_MAX_HEIGHT: u32 = 4000;
/// Pixels the Gantt frame takes besides the lanes (caption, x axis, margins).
const GANTT_FRAME: u32 = 120;
/// Above this many bars, bar labels are not even tried (they could not be read), bars have no
/// outline, and a lane's adjacent bars of one level are merged.
pub const MAX_LABELLED_BARS: usize = 200;
/// The colour key of a Gantt or comparison chart, above its lanes.
pub(super) const KEY_HEIGHT: u32 = 44;

/// One bar of a Gantt chart: processor `proc` works on `label` during [start, end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GanttBar {
    /// The processor's lane, from 0.
    pub proc: u32,
    /// Start, in the chart's time unit.
    pub start: u64,
    /// End (excluded), in the chart's time unit.
    pub end: u64,
    /// The job's name: drawn on the bar when it fits.
    pub label: String,
    /// The job's level (lines drawn, or its depth in the graph): what picks its colour, so that
    /// the schedule's progress through the levels shows.
    pub level: u32,
}

/// How the bars of a Gantt or comparison chart are read: the unit of their times, and what
/// their level counts (the colour key's title, e.g. "lines drawn").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BarScale<'s> {
    /// The unit of the bars' start and end (and of a comparison's durations).
    pub time_unit: &'s str,
    /// What a bar's `level` counts.
    pub level: &'s str,
}

/// Writes `<stem>.svg` and `<stem>.png`: a Gantt chart with one lane per processor `0..procs`,
/// bars coloured by level under a colour key. Past [`MAX_LABELLED_BARS`] bars, a lane's
/// adjacent bars of one level less than a pixel apart are drawn as one, and the caption says
/// how many jobs the bars hold.
pub fn gantt(stem: &Path, title: &str, scale: &BarScale, procs: u32, bars: &[GanttBar]) -> Result<(), ChartError> {
    if procs == 0 || bars.is_empty() {
        return Err(input(stem, "no processors or no bars to draw"));
    }
    fit(stem, procs, bars)?;
    let size = (GANTT_WIDTH, KEY_HEIGHT + gantt_height(procs));
    render(stem, size, &GanttChart { title, scale, procs, bars })
}

/// A Gantt chart's input.
struct GanttChart<'s> {
    title: &'s str,
    scale: &'s BarScale<'s>,
    procs: u32,
    bars: &'s [GanttBar],
}

impl Figure for GanttChart<'_> {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB> {
        let lanes = GanttScale::new(self.procs, &[self.bars]);
        let (key, plot) = root.split_vertically(KEY_HEIGHT);
        draw_level_key(&key, self.scale.level, &lanes, self.bars.len() > MAX_LABELLED_BARS)?;
        draw_gantt(&plot, self.title, self.scale.time_unit, &lanes, self.bars)
    }
}

/// Every bar on one of the `procs` lanes and not ending before it starts.
pub(super) fn fit(stem: &Path, procs: u32, bars: &[GanttBar]) -> Result<(), ChartError> {
    match bars.iter().find(|b| b.proc >= procs || b.end < b.start) {
        Some(b) => {
            let message = format!(
                "bar '{}' on processor {} over [{}, {}) does not fit {procs} processors",
                b.label, b.proc, b.start, b.end
            );
            Err(input(stem, &message))
        }
        None => Ok(()),
    }
}

/// Gantt lanes' height in pixels, frame included: the same in a Gantt and a comparison chart.
pub(super) fn gantt_height(procs: u32) -> u32 {
    procs.saturating_mul(12).saturating_add(GANTT_FRAME).clamp(GANTT_MIN_HEIGHT, GANTT_MAX_HEIGHT)
}

/// What the Gantt panels of one chart share: lanes, time axis and the range of levels the
/// colours span.
pub(super) struct GanttScale {
    /// Lanes, one per processor.
    procs: u32,
    /// The time axis's end: the latest end of any bar.
    x_max: f64,
    /// The fewest and the most levels of any bar.
    levels: (u32, u32),
}

impl GanttScale {
    /// Time from 0 to the latest end in any of `schedules`; colours over the levels of all of
    /// them, so that panels side by side agree.
    pub(super) fn new(procs: u32, schedules: &[&[GanttBar]]) -> Self {
        let bars = || schedules.iter().flat_map(|s| s.iter());
        let end = bars().map(|b| b.end).max().unwrap_or(0);
        let lo = bars().map(|b| b.level).min().unwrap_or(0);
        let hi = bars().map(|b| b.level).max().unwrap_or(0);
        GanttScale { procs, x_max: top(end as f64), levels: (lo, hi) }
    }

    fn colour(&self, level: u32) -> RGBColor {
        let (lo, hi) = self.levels;
        let share = if hi > lo { f64::from(level.saturating_sub(lo)) / f64::from(hi - lo) } else { 0.5 };
        sequential(share)
    }
}

/// A perceptually ordered colour for `share` in [0, 1] (viridis, by its anchors every eighth):
/// dark blue for the lowest level to yellow for the highest, so neighbouring levels look alike
/// and distant ones apart.
fn sequential(share: f64) -> RGBColor {
    const ANCHORS: [(f64, f64, f64); 9] = [
        (68.0, 1.0, 84.0),
        (71.0, 44.0, 122.0),
        (59.0, 81.0, 139.0),
        (44.0, 113.0, 142.0),
        (33.0, 144.0, 141.0),
        (39.0, 173.0, 129.0),
        (92.0, 200.0, 99.0),
        (170.0, 220.0, 50.0),
        (253.0, 231.0, 37.0),
    ];
    let x = share.clamp(0.0, 1.0) * (ANCHORS.len() - 1) as f64;
    let i = (x.floor() as usize).min(ANCHORS.len() - 2);
    let t = x - i as f64;
    let (a, b) = (ANCHORS[i], ANCHORS[i + 1]);
    let mix = |u: f64, v: f64| (u + (v - u) * t).round() as u8;
    RGBColor(mix(a.0, b.0), mix(a.1, b.1), mix(a.2, b.2))
}

/// The colour key: `colour: <what the level counts>` and a strip of one cell per level, lowest
/// at the left, with the levels written under it (every k-th where they would crowd); where
/// `merged`, a note on how a pixel of many jobs is coloured.
pub(super) fn draw_level_key<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    name: &str,
    scale: &GanttScale,
    merged: bool,
) -> DrawResult<(), DB> {
    const MARGIN: i32 = 16;
    const STRIP: i32 = 400;
    const TOP: i32 = 6;
    const TALL: i32 = 14;
    let (lo, hi) = scale.levels;
    let label = (FONT, 14).into_text_style(area).pos(Pos::new(HPos::Left, VPos::Center));
    let name = format!("colour: {name}");
    area.draw(&Text::new(name.clone(), (MARGIN, TOP + TALL / 2), label.clone()))?;
    let left = MARGIN + area.estimate_text_size(&name, &label)?.0 as i32 + 12;
    let cells = i32::try_from(hi - lo + 1).unwrap_or(i32::MAX).min(STRIP);
    let width = (STRIP / cells).max(1);
    // Past a pixel a level, cells stand for evenly spaced levels.
    let level_at = |c: i32| lo + (i64::from(c) * i64::from(hi - lo) / i64::from((cells - 1).max(1))) as u32;
    for c in 0..cells {
        let x = left + c * width;
        area.draw(&Rectangle::new([(x, TOP), (x + width, TOP + TALL)], scale.colour(level_at(c)).filled()))?;
    }
    let right = left + width * cells;
    area.draw(&Rectangle::new([(left, TOP), (right, TOP + TALL)], BLACK.mix(0.5).stroke_width(1)))?;
    let every = (hi - lo) / 10 + 1;
    let text = (FONT, 12).into_text_style(area).pos(Pos::new(HPos::Center, VPos::Top));
    let at = |level: u32| {
        let cell = i64::from(level - lo) * i64::from((cells - 1).max(1)) / i64::from((hi - lo).max(1));
        left + cell as i32 * width + width / 2
    };
    for level in (lo..=hi).step_by(every as usize).chain([hi]).collect::<BTreeSet<_>>() {
        area.draw(&Text::new(level.to_string(), (at(level), TOP + TALL + 3), text.clone()))?;
    }
    if merged {
        let note = format!(
            "past {MAX_LABELLED_BARS} jobs, each pixel of a lane takes the colour of the level that ran longest in it"
        );
        area.draw(&Text::new(note, (right + 16, TOP + TALL / 2), label))?;
    }
    Ok(())
}

/// The bars to draw for `bars` on a time axis of `per_pixel` time units a pixel: as they are up
/// to [`MAX_LABELLED_BARS`]; past that, each lane cut into pixels, a pixel where any job ran
/// taking the level that ran longest in it, and each run of pixels of one level one bar. So a
/// chart draws at most a bar a pixel a lane however many jobs it holds, and no job vanishes.
fn merged(bars: &[GanttBar], per_pixel: f64) -> Vec<GanttBar> {
    if bars.len() <= MAX_LABELLED_BARS {
        return bars.to_vec();
    }
    let per_pixel = per_pixel.max(1.0);
    let pixel = |t: u64| (t as f64 / per_pixel) as usize;
    let mut lanes: BTreeMap<u32, Vec<&GanttBar>> = BTreeMap::new();
    for b in bars {
        lanes.entry(b.proc).or_default().push(b);
    }
    let mut out = Vec::new();
    for (proc, lane) in lanes {
        let width = lane.iter().map(|b| pixel(b.end)).max().unwrap_or(0) + 1;
        // Per pixel, the time of each level that ran in it.
        let mut time: Vec<Vec<(u32, f64)>> = vec![Vec::new(); width];
        for b in lane {
            let (start, end) = (b.start as f64, b.end as f64);
            for (p, levels) in time.iter_mut().enumerate().take(pixel(b.end) + 1).skip(pixel(b.start)) {
                let from = start.max(p as f64 * per_pixel);
                let to = end.min((p + 1) as f64 * per_pixel);
                // A job of no time still marks its pixel.
                let t = (to - from).max(f64::MIN_POSITIVE);
                match levels.iter_mut().find(|(l, _)| *l == b.level) {
                    Some(entry) => entry.1 += t,
                    None => levels.push((b.level, t)),
                }
            }
        }
        let busiest = |levels: &[(u32, f64)]| {
            levels.iter().max_by(|a, b| a.1.total_cmp(&b.1).then(b.0.cmp(&a.0))).map(|&(l, _)| l)
        };
        let mut run: Option<(usize, u32)> = None;
        for p in 0..=width {
            let level = time.get(p).and_then(|l| busiest(l));
            if let Some((first, l)) = run
                && level != Some(l)
            {
                let at = |p: usize| (p as f64 * per_pixel).round() as u64;
                out.push(GanttBar { proc, start: at(first), end: at(p), label: String::new(), level: l });
                run = None;
            }
            if run.is_none() {
                run = level.map(|l| (p, l));
            }
        }
    }
    out
}

/// Time units a pixel of a Gantt panel `width` pixels wide spans (its frame's margins and lane
/// names taken off).
fn per_pixel(scale: &GanttScale, width: u32) -> f64 {
    scale.x_max / f64::from(width.saturating_sub(2 * FRAME_MARGIN + Y_LABEL_AREA).max(1))
}

/// One Gantt chart filling `root`, on the lanes and time axis of `scale`; its caption is
/// `title`, with the jobs the bars hold where bars were merged.
pub(super) fn draw_gantt<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    time_unit: &str,
    scale: &GanttScale,
    bars: &[GanttBar],
) -> DrawResult<(), DB> {
    let procs = scale.procs;
    let drawn = merged(bars, per_pixel(scale, root.dim_in_pixel().0));
    let title = if drawn.len() < bars.len() {
        format!("{title} ({} as {})", count(bars.len(), "job"), count(drawn.len(), "bar"))
    } else {
        title.to_string()
    };
    // Label every lane unless lanes are too thin to hold text.
    let lane_px = f64::from(root.dim_in_pixel().1.saturating_sub(GANTT_FRAME).max(1)) / f64::from(procs);
    let stride = (12.0 / lane_px).ceil().max(1.0) as u32;
    // Whole microseconds are shown as seconds, the unit the commands speak.
    let (x_desc, x_scale) = match time_unit {
        MICROS => ("time (s)".to_string(), 1e-6),
        unit => (format!("time ({unit})"), 1.0),
    };
    let f = Frame { title: &title, x_desc: &x_desc, y_desc: "processor", y_grid: false, x_scale };
    let x_max = scale.x_max;
    let mut chart = frame(root, &f, 0.0..x_max, Lanes { procs, stride }, &Lanes::format)?;
    // Processor p's lane spans [p, p + 1) on the `Lanes` axis.
    let row = f64::from;

    let shaded = (0..procs).filter(|p| p % 2 == 1);
    chart.draw_series(
        shaded.map(|p| Rectangle::new([(0.0, row(p)), (x_max, row(p) + 1.0)], BLACK.mix(0.04).filled())),
    )?;

    // Few bars: light fills with outlines, which hold a readable label; many: full colours and
    // no outline, which would turn thin bars into a barcode of edges.
    let few = bars.len() <= MAX_LABELLED_BARS;
    chart.draw_series(drawn.iter().flat_map(|b| {
        let corners = [(b.start as f64, row(b.proc) + 0.1), (b.end as f64, row(b.proc) + 0.9)];
        let colour = scale.colour(b.level);
        let fill = if few { lighten(colour) } else { colour };
        let outline = few.then(|| Rectangle::new(corners, colour.stroke_width(1)));
        std::iter::once(Rectangle::new(corners, fill.filled())).chain(outline)
    }))?;

    if few {
        let size = (lane_px * 0.6).clamp(8.0, 12.0);
        let style = TextStyle::from((FONT, size)).pos(Pos::new(HPos::Center, VPos::Center));
        let mut labels = Vec::new();
        for b in bars {
            let (x0, _) = chart.backend_coord(&(b.start as f64, row(b.proc)));
            let (x1, _) = chart.backend_coord(&(b.end as f64, row(b.proc)));
            let (w, _) = root.estimate_text_size(&b.label, &style)?;
            if i64::from(w) + 4 <= i64::from(x1 - x0) {
                let centre = ((b.start + b.end) as f64 / 2.0, row(b.proc) + 0.5);
                labels.push(Text::new(b.label.clone(), centre, style.clone()));
            }
        }
        chart.draw_series(labels)?;
    }
    Ok(())
}

/// Half way to white: black bar labels stay readable on it.
fn lighten(c: RGBColor) -> RGBColor {
    let up = |v: u8| v + (255 - v) / 2;
    RGBColor(up(c.0), up(c.1), up(c.2))
}
