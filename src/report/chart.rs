//! Charts of parallel-schedule simulations, as SVG and PNG files: speedup against the processor
//! count (with its bounds), processors busy over time, Gantt charts of one schedule, a
//! predicted schedule beside the actual one with a scatter of their job durations, and measured
//! against predicted speedup with the error at each thread count. This
//! module owns the drawing only: callers hand in plain numbers and labels. Text uses DejaVu Sans
//! embedded in the binary, so no font library is needed at build or run time, and the same input
//! always gives the same bytes.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::chart::{ChartContext, SeriesLabelPosition};
use plotters::coord::Shift;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{AsRangedCoord, KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The one font family every text uses; registered from the embedded DejaVu Sans.
const FONT: &str = "sans-serif";
/// The time unit of charts whose bars are whole microseconds (`dab compare`): Gantt axes show
/// them as seconds.
pub const MICROS: &str = "µs";
/// Speedup and busy charts: the plot, and the legend beside it.
const WIDE: (u32, u32) = (1280, 640);
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
const KEY_HEIGHT: u32 = 44;
/// Comparison charts: two Gantt panels side by side over a duration scatter of fixed height, plus
/// room for the title; the panels' height grows with the lanes as a Gantt chart's does.
const COMPARE_WIDTH: u32 = 1600;
const COMPARE_TITLE: u32 = 40;
const SCATTER_HEIGHT: u32 = 560;
/// The scatter's tolerance band: actual within 1.2x of predicted, either way.
const BAND: f64 = 1.2;
/// The scatter's axes reach this factor past the extreme durations, so no point sits on a frame.
const PAD: f64 = 1.15;
/// Up to this many points, scatter dots are larger and nearly opaque; past it, small and
/// translucent, so that dense clouds show their density.
const FEW_POINTS: usize = 300;

/// Distinct colours for series and bars (Tableau 10 without its grey, which marks the ideal line).
const PALETTE: [RGBColor; 9] = [
    RGBColor(31, 119, 180),
    RGBColor(255, 127, 14),
    RGBColor(44, 160, 44),
    RGBColor(214, 39, 40),
    RGBColor(148, 103, 189),
    RGBColor(140, 86, 75),
    RGBColor(227, 119, 194),
    RGBColor(188, 189, 34),
    RGBColor(23, 190, 207),
];
const IDEAL: RGBColor = RGBColor(150, 150, 150);
/// Scaling charts: the speedup panel over the error panel, which has this many pixels.
const SCALE_SIZE: (u32, u32) = (1024, 920);
const ERROR_PANEL: u32 = 300;

/// Errors naming the file or folder that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    /// The input cannot be drawn: nothing to draw, a bar off its lanes, or the embedded font
    /// rejected.
    #[error("cannot draw chart '{path}': {message}")]
    Input {
        /// The chart's stem, without extension.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The folder of the chart could not be created.
    #[error("cannot create folder '{path}' for charts: {source}")]
    Folder {
        /// The folder.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// A backend failed to draw the file, or the finished file could not be renamed into place.
    #[error("cannot draw chart '{path}': {message}")]
    Draw {
        /// The SVG or PNG file.
        path: PathBuf,
        /// The backend's or the system's error.
        message: String,
    },
}

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

/// One job's predicted and actual duration, for the scatter panel.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ComparePoint {
    /// Predicted duration, in the chart's time unit.
    pub predicted: f64,
    /// Actual duration, in the chart's time unit.
    pub actual: f64,
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
    render(stem, WIDE, &Figure::Speedup { title, x_label, series, marker })
}

/// Writes `<stem>.svg` and `<stem>.png`: processors busy over time, one step line per series.
pub fn busy(stem: &Path, title: &str, time_unit: &str, series: &[BusySeries]) -> Result<(), ChartError> {
    if series.iter().all(|s| s.steps.is_empty()) {
        return Err(input(stem, "no busy-processor steps to draw"));
    }
    render(stem, WIDE, &Figure::Busy { title, time_unit, series })
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
    render(stem, size, &Figure::Gantt { title, scale: *scale, procs, bars })
}

/// Writes `<stem>.svg` and `<stem>.png`: the predicted and the actual schedule of one run as two
/// Gantt charts side by side, on the same time axis (0 to the larger of the two makespans), the
/// same `procs` lanes and one colour key of levels (bars merged as [`gantt`] merges them), and
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
    render(stem, size, &Figure::Compare { title, scale: *scale, procs, predicted, actual, points })
}

/// One thread count of a scaling chart: speedups over one thread, and the prediction's error.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct ScalePoint {
    /// Threads (the x axis).
    pub(crate) threads: u32,
    /// Predicted speedup.
    pub(crate) predicted: f64,
    /// Measured speedup.
    pub(crate) actual: f64,
    /// The simulator's bound as a speedup: no schedule reaches past it.
    pub(crate) bound: f64,
    /// Actual over predicted seconds: above 1, slower than predicted.
    pub(crate) ratio: f64,
}

/// Writes `<stem>.svg` and `<stem>.png`: measured and predicted speedup against threads with the
/// simulator's bound and the ideal speedup = threads (the panel titled `speedup_title`), and
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
    render(stem, SCALE_SIZE, &Figure::Scale { title, speedup_title, repeats, points })
}

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
    render(stem, WIDE, &Figure::Cluster { title, points })
}

/// What to draw: one value per public function, so that one generic `draw` serves both backends.
enum Figure<'s> {
    Speedup {
        title: &'s str,
        x_label: &'s str,
        series: &'s [SpeedupSeries],
        marker: Option<u32>,
    },
    Busy {
        title: &'s str,
        time_unit: &'s str,
        series: &'s [BusySeries],
    },
    Gantt {
        title: &'s str,
        scale: BarScale<'s>,
        procs: u32,
        bars: &'s [GanttBar],
    },
    Compare {
        title: &'s str,
        scale: BarScale<'s>,
        procs: u32,
        predicted: &'s [GanttBar],
        actual: &'s [GanttBar],
        points: &'s [ComparePoint],
    },
    Scale {
        title: &'s str,
        speedup_title: &'s str,
        repeats: usize,
        points: &'s [ScalePoint],
    },
    Cluster {
        title: &'s str,
        points: &'s [ClusterPoint],
    },
}

type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;
/// A chart drawn on the coordinates of the axis specs X and Y.
type Chart<'a, DB, X, Y> =
    ChartContext<'a, DB, Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>>;

fn input(stem: &Path, message: &str) -> ChartError {
    ChartError::Input { path: stem.to_path_buf(), message: message.to_string() }
}

/// Every bar on one of the `procs` lanes and not ending before it starts.
fn fit(stem: &Path, procs: u32, bars: &[GanttBar]) -> Result<(), ChartError> {
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
fn gantt_height(procs: u32) -> u32 {
    procs.saturating_mul(12).saturating_add(GANTT_FRAME).clamp(GANTT_MIN_HEIGHT, GANTT_MAX_HEIGHT)
}

/// `stem` plus an extension, appended rather than replaced: stems may contain dots ("p2.5").
fn file(stem: &Path, ext: &str) -> PathBuf {
    let mut name = stem.as_os_str().to_owned();
    name.push(".");
    name.push(ext);
    PathBuf::from(name)
}

/// Registers the embedded font once per process; plotters needs it to lay out text even for SVG.
fn font_ready() -> bool {
    static READY: OnceLock<bool> = OnceLock::new();
    *READY.get_or_init(|| plotters::style::register_font(FONT, FontStyle::Normal, dejavu::sans::regular()).is_ok())
}

/// Draws `figure` once per backend into `<stem>.svg` and `<stem>.png`.
fn render(stem: &Path, size: (u32, u32), figure: &Figure) -> Result<(), ChartError> {
    if !font_ready() {
        return Err(input(stem, "the embedded DejaVu Sans font was rejected"));
    }
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ChartError::Folder { path: dir.to_path_buf(), source })?;
    }
    // Each file is drawn under a temporary name and renamed when complete, so a failure never
    // leaves a half-drawn chart where a good one was. The PNG encoder goes by the extension,
    // hence `<stem>.tmp.png` rather than `<stem>.png.tmp`.
    let tmp = file(stem, "tmp");
    let (svg, svg_tmp) = (file(stem, "svg"), file(&tmp, "svg"));
    let (png, png_tmp) = (file(stem, "png"), file(&tmp, "png"));
    let drawn = write(&svg, SVGBackend::new(&svg_tmp, size).into_drawing_area(), figure)
        .and_then(|()| write(&png, BitMapBackend::new(&png_tmp, size).into_drawing_area(), figure));
    if let Err(e) = drawn {
        // A failed drawing (a full disk, `ulimit -f`) leaves no temporary file behind either.
        for t in [&svg_tmp, &png_tmp] {
            let _ = std::fs::remove_file(t);
        }
        return Err(e);
    }
    for (from, to) in [(svg_tmp, svg), (png_tmp, png)] {
        std::fs::rename(&from, &to).map_err(|e| ChartError::Draw { path: to, message: e.to_string() })?;
    }
    Ok(())
}

fn write<DB: DrawingBackend>(path: &Path, root: DrawingArea<DB, Shift>, figure: &Figure) -> Result<(), ChartError> {
    draw(root, figure).map_err(|e| ChartError::Draw { path: path.to_path_buf(), message: e.to_string() })
}

fn draw<DB: DrawingBackend>(root: DrawingArea<DB, Shift>, figure: &Figure) -> DrawResult<(), DB> {
    root.fill(&WHITE)?;
    match *figure {
        Figure::Speedup { title, x_label, series, marker } => draw_speedup(&root, title, x_label, series, marker)?,
        Figure::Busy { title, time_unit, series } => draw_busy(&root, title, time_unit, series)?,
        Figure::Gantt { title, scale, procs, bars } => {
            let lanes = GanttScale::new(procs, &[bars]);
            let (key, plot) = root.split_vertically(KEY_HEIGHT);
            draw_level_key(&key, scale.level, &lanes, bars.len() > MAX_LABELLED_BARS)?;
            draw_gantt(&plot, title, scale.time_unit, &lanes, bars)?;
        }
        Figure::Compare { title, scale, procs, predicted, actual, points } => {
            draw_compare(&root, title, &scale, procs, [predicted, actual], points)?;
        }
        Figure::Scale { title, speedup_title, repeats, points } => {
            draw_scale(&root, title, speedup_title, repeats, points)?;
        }
        Figure::Cluster { title, points } => draw_cluster(&root, title, points)?,
    }
    root.present()
}

/// The frame all charts share: caption, the given f64 x axis and y axis, descriptions, and a mesh
/// whose tick labels are compact.
struct Frame<'s> {
    title: &'s str,
    x_desc: &'s str,
    y_desc: &'s str,
    /// Horizontal grid lines; off for Gantt charts, whose y ticks sit in the middle of the lanes.
    y_grid: bool,
    /// x tick labels show the value times this (1e-6: microseconds shown as seconds).
    x_scale: f64,
}

fn frame<'a, DB, X, Y>(
    root: &'a DrawingArea<DB, Shift>,
    f: &Frame,
    x: X,
    y: Y,
    y_format: &dyn Fn(&Y::Value) -> String,
) -> DrawResult<Chart<'a, DB, X, Y>, DB>
where
    DB: DrawingBackend,
    X: AsRangedCoord<Value = f64>,
    X::CoordDescType: ValueFormatter<f64>,
    Y: AsRangedCoord,
    Y::CoordDescType: ValueFormatter<Y::Value>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(f.title, (FONT, 24))
        .margin(FRAME_MARGIN)
        .x_label_area_size(48)
        .y_label_area_size(Y_LABEL_AREA)
        .build_cartesian_2d(x, y)?;
    let x_scale = f.x_scale;
    let x_format = move |v: &f64| compact(*v * x_scale);
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_desc)
        .y_desc(f.y_desc)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 13))
        .x_label_formatter(&x_format)
        .y_label_formatter(y_format)
        .light_line_style(BLACK.mix(0.04));
    if !f.y_grid {
        mesh.disable_y_mesh();
    }
    mesh.draw()?;
    Ok(chart)
}

/// The legend box, drawn once all labelled series are in.
fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
    chart: &mut ChartContext<'a, DB, Cartesian2d<X, Y>>,
    position: SeriesLabelPosition,
) -> DrawResult<(), DB> {
    chart
        .configure_series_labels()
        .position(position)
        .label_font((FONT, 14))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.5))
        .margin(12)
        .draw()
}

/// A legend entry drawn beside the plot: its label and how its line looks (width 0: a note,
/// no line).
struct Key {
    label: String,
    colour: RGBColor,
    width: u32,
    /// Dash and gap in pixels; none for a solid line.
    dash: Option<(u32, u32)>,
    /// A dot in the middle (series drawn with points).
    dot: bool,
}

/// Share of a speedup chart's width given to the legend at its right, outside the plot.
const LEGEND_SHARE: f64 = 0.27;

/// `root` cut into the plot area and, at its right, the legend's.
fn with_legend_beside<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
) -> (DrawingArea<DB, Shift>, DrawingArea<DB, Shift>) {
    root.split_horizontally(((1.0 - LEGEND_SHARE) * f64::from(root.dim_in_pixel().0)) as u32)
}

/// Characters of a legend line before it wraps.
const LEGEND_LINE: usize = 44;

/// `text` cut at spaces into lines of at most [`LEGEND_LINE`] characters (a longer word alone).
fn wrap(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for word in text.split(' ') {
        match lines.last_mut() {
            Some(line) if line.chars().count() + 1 + word.chars().count() <= LEGEND_LINE => {
                line.push(' ');
                line.push_str(word);
            }
            _ => lines.push(word.to_string()),
        }
    }
    lines
}

/// The legend in its own area: one entry per key, long labels wrapped, as many as fit (the
/// rest counted in a last line).
fn side_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, keys: &[Key]) -> DrawResult<(), DB> {
    const TOP: i32 = 64;
    const STEP: i32 = 18;
    let bottom = area.dim_in_pixel().1 as i32 - STEP;
    let text = (FONT, 13).into_text_style(area).pos(Pos::new(HPos::Left, VPos::Center));
    let mut y = TOP;
    for (i, k) in keys.iter().enumerate() {
        let lines = wrap(&k.label);
        if y + STEP * lines.len() as i32 > bottom {
            area.draw(&Text::new(format!("... and {} more", keys.len() - i), (38, y), text.clone()))?;
            break;
        }
        // A key of width 0 is a note: text without a line.
        let style = k.colour.stroke_width(k.width);
        match k.dash {
            _ if k.width == 0 => {}
            Some((dash, gap)) => area.draw(&DashedPathElement::new([(4, y), (30, y)], dash, gap, style))?,
            None => area.draw(&PathElement::new([(4, y), (30, y)], style))?,
        }
        if k.dot {
            area.draw(&Circle::new((17, y), 3, k.colour.filled()))?;
        }
        for line in lines {
            area.draw(&Text::new(line, (38, y), text.clone()))?;
            y += STEP;
        }
        y += 2;
    }
    Ok(())
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

/// What the Gantt panels of one chart share: lanes, time axis and the range of levels the
/// colours span.
struct GanttScale {
    procs: u32,
    x_max: f64,
    /// The fewest and the most levels of any bar.
    levels: (u32, u32),
}

impl GanttScale {
    /// Time from 0 to the latest end in any of `schedules`; colours over the levels of all of
    /// them, so that panels side by side agree.
    fn new(procs: u32, schedules: &[&[GanttBar]]) -> Self {
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

/// The colour key: "colour: <what the level counts>" and a strip of one cell per level, lowest
/// at the left, with the levels written under it (every k-th where they would crowd); where
/// `merged`, a note on how a pixel of many jobs is coloured.
fn draw_level_key<DB: DrawingBackend>(
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

/// Pixels of a frame's margin on each side.
const FRAME_MARGIN: u32 = 16;
/// Pixels of a frame's y labels (a Gantt panel's lane names).
const Y_LABEL_AREA: u32 = 72;

/// Time units a pixel of a Gantt panel `width` pixels wide spans (its frame's margins and lane
/// names taken off).
fn per_pixel(scale: &GanttScale, width: u32) -> f64 {
    scale.x_max / f64::from(width.saturating_sub(2 * FRAME_MARGIN + Y_LABEL_AREA).max(1))
}

/// One Gantt chart filling `root`, on the lanes and time axis of `scale`; its caption is
/// `title`, with the jobs the bars hold where bars were merged.
fn draw_gantt<DB: DrawingBackend>(
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

/// "1 job", "1,452 jobs".
fn count(n: usize, what: &str) -> String {
    crate::support::count_of(n as u64, what)
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
    let x = Threads::new(points);
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
    // Last, dashed: where the prediction reaches the bound, the dashes still show on it.
    let bound = PALETTE[2].stroke_width(2);
    chart
        .draw_series(DashedLineSeries::new(at(|p| p.bound), 6, 6, bound))?
        .label("simulator's bound: one-thread prediction / lower bound")
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

/// The threads axis of a scaling chart: linear, from a little before the fewest threads measured
/// (never below 0) to a little after the most, with ticks at the thread counts measured (every
/// k-th where they would crowd) rather than at round numbers between them.
#[derive(Clone)]
struct Threads {
    lo: f64,
    hi: f64,
    ticks: Vec<u32>,
}

impl Threads {
    fn new(points: &[ScalePoint]) -> Threads {
        let ticks: Vec<u32> = points.iter().map(|p| p.threads).collect::<BTreeSet<_>>().into_iter().collect();
        let (first, last) =
            (f64::from(ticks.first().copied().unwrap_or(1)), f64::from(ticks.last().copied().unwrap_or(1)));
        let pad = 0.05 * last + 0.15;
        Threads { lo: (first - pad).max(0.0), hi: last + pad, ticks }
    }

    /// The most threads measured.
    fn last(&self) -> f64 {
        f64::from(self.ticks.last().copied().unwrap_or(1))
    }
}

impl Ranged for Threads {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (from, to): (i32, i32)) -> i32 {
        from + ((value - self.lo) / (self.hi - self.lo) * f64::from(to - from)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Grid lines at the measured counts only.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        let stride = self.ticks.len().div_ceil(hint.max_num_points().max(1)).max(1);
        self.ticks.iter().step_by(stride).map(|&t| f64::from(t)).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Threads {
    fn format(value: &f64) -> String {
        compact(*value)
    }
}

/// The Gantt y axis: processor p's lane is [p, p + 1), drawn top down so that P0 is on top,
/// with a tick in the middle of every `stride`-th lane.
struct Lanes {
    procs: u32,
    stride: u32,
}

impl Ranged for Lanes {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (bottom, top): (i32, i32)) -> i32 {
        top + ((value / f64::from(self.procs)) * f64::from(bottom - top)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        // Lane names only: no light grid lines between them.
        if hint.weight().allow_light_points() {
            return Vec::new();
        }
        (0..self.procs).step_by(self.stride as usize).map(|p| f64::from(p) + 0.5).collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        0.0..f64::from(self.procs)
    }
}

impl ValueFormatter<f64> for Lanes {
    fn format(value: &f64) -> String {
        format!("P{}", value.floor())
    }
}

/// A log axis over [lo, hi], 0 < lo < hi, with ticks at 1, 2 and 5 or finer steps of each decade
/// as far as the room allows; plotters' own log axis puts no tick at all on a range inside one
/// decade, as 300 to 800.
#[derive(Clone, Copy)]
struct Log {
    lo: f64,
    hi: f64,
}

impl Log {
    /// The values m · 10^(k - 1) in range, for every mantissa m in `tenths` and every decade k
    /// that is a multiple of `every`.
    fn ticks(&self, tenths: &[u32], every: i32) -> Vec<f64> {
        let (first, last) = (self.lo.log10().floor() as i32, self.hi.log10().ceil() as i32);
        let decades = (first..=last).filter(|k| k.rem_euclid(every) == 0);
        let values = decades.flat_map(|k| tenths.iter().map(move |&m| f64::from(m) * 10f64.powi(k - 1)));
        values.filter(|v| (self.lo..=self.hi).contains(v)).collect()
    }
}

impl Ranged for Log {
    type FormatOption = NoDefaultFormatting;
    type ValueType = f64;

    fn map(&self, value: &f64, (from, to): (i32, i32)) -> i32 {
        let share = (value.ln() - self.lo.ln()) / (self.hi.ln() - self.lo.ln());
        from + (share * f64::from(to - from)).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let most = hint.max_num_points().max(2);
        let decades = (self.hi / self.lo).log10().ceil().max(1.0) as usize;
        let every = decades.div_ceil(most).max(1);
        let mut ticks = self.ticks(&[10], every as i32);
        if every > 1 {
            return ticks;
        }
        // Ever finer steps while they fit, and past that until there are two ticks to read by.
        let tenths: Vec<u32> = (10..100).collect();
        for steps in [&[10, 20, 50][..], &[10, 20, 30, 40, 50, 60, 70, 80, 90], &tenths[..]] {
            let more = self.ticks(steps, 1);
            if more.len() > most && ticks.len() >= 2 {
                break;
            }
            ticks = more;
        }
        ticks
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl ValueFormatter<f64> for Log {
    fn format(value: &f64) -> String {
        compact(*value)
    }
}

/// An axis end that plotters can draw: positive, finite.
fn top(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 { v } else { 1.0 }
}

/// Half way to white: black bar labels stay readable on it.
fn lighten(c: RGBColor) -> RGBColor {
    let up = |v: u8| v + (255 - v) / 2;
    RGBColor(up(c.0), up(c.1), up(c.2))
}

/// A ratio of times the one way every report writes it: actual over predicted, "0.91x".
pub fn times(ratio: f64) -> String {
    format!("{ratio:.2}x")
}

fn compact_tick(v: &f64) -> String {
    compact(*v)
}

/// Tick and legend numbers, short enough not to collide: 0.0015, 0.25, 12.5, 1.5k, 120G.
fn compact(v: f64) -> String {
    const SUFFIX: [&str; 7] = ["", "k", "M", "G", "T", "P", "E"];
    if !v.is_finite() {
        return v.to_string();
    }
    if v.abs() < 1e3 {
        let digits = if v.abs() >= 100.0 {
            1
        } else if v.abs() >= 1.0 || v == 0.0 {
            2
        } else {
            // Three significant digits: log axes tick durations far below 1 (0.0015 s).
            (2 - v.abs().log10().floor() as i32).max(3) as usize
        };
        return trim(format!("{v:.digits$}"));
    }
    let mut scaled = v;
    let mut power = 0;
    while scaled.abs() >= 1000.0 && power + 1 < SUFFIX.len() {
        scaled /= 1000.0;
        power += 1;
    }
    let digits = if scaled.abs() >= 100.0 {
        0
    } else if scaled.abs() >= 10.0 {
        1
    } else {
        2
    };
    trim(format!("{scaled:.digits$}")) + SUFFIX[power]
}

/// "12.50" → "12.5", "3.00" → "3", "-0" → "0".
fn trim(s: String) -> String {
    let s = if s.contains('.') { s.trim_end_matches('0').trim_end_matches('.') } else { &s };
    if s == "-0" { "0".to_string() } else { s.to_string() }
}

#[cfg(test)]
mod tests {
    use plotters::coord::ranged1d::Ranged;

    use super::{Log, compact};

    #[test]
    fn log_ticks() {
        let ticks = |lo, hi| Log { lo, hi }.key_points(10);
        // Inside one decade, where plotters' own log axis has none.
        assert_eq!(ticks(300.0, 800.0), [300.0, 400.0, 500.0, 600.0, 700.0, 800.0]);
        assert_eq!(ticks(1300.0, 1700.0), [1300.0, 1400.0, 1500.0, 1600.0, 1700.0]);
        assert_eq!(ticks(90.0, 1100.0), [100.0, 200.0, 500.0, 1000.0]);
        assert_eq!(ticks(0.5, 5e4), [1.0, 10.0, 100.0, 1000.0, 10_000.0]);
        // Too many decades for one tick each: every other one.
        assert_eq!(ticks(1.0, 1e15).len(), 8);
    }

    #[test]
    fn compact_numbers() {
        let cases = [
            (0.0, "0"),
            (0.25, "0.25"),
            (2.5, "2.5"),
            (12.345, "12.35"),
            (999.0, "999"),
            (1500.0, "1.5k"),
            (12_000.0, "12k"),
            (1.2e11, "120G"),
            (2.5e6, "2.5M"),
            (-3e4, "-30k"),
            (0.0015, "0.0015"),
            (0.0002, "0.0002"),
            (0.060000000000000005, "0.06"),
        ];
        for (v, s) in cases {
            assert_eq!(compact(v), s, "{v}");
        }
    }
}
