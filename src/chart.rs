//! Charts of parallel-schedule simulations, as SVG and PNG files: speedup against the processor
//! count (with its bounds), processors busy over time, and Gantt charts of one schedule. This
//! module owns the drawing only: callers hand in plain numbers and labels. Text uses DejaVu Sans
//! embedded in the binary, so no font library is needed at build or run time, and the same input
//! always gives the same bytes.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use plotters::chart::{ChartContext, SeriesLabelPosition};
use plotters::coord::Shift;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{AsRangedCoord, KeyPointHint, NoDefaultFormatting, ValueFormatter};
use plotters::coord::types::RangedCoordf64;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

/// The one font family every text uses; registered from the embedded DejaVu Sans.
const FONT: &str = "sans-serif";
/// Speedup and busy charts.
const WIDE: (u32, u32) = (1024, 640);
/// Gantt charts: wider for long time axes; the height grows with the lanes, within limits.
const GANTT_WIDTH: u32 = 1280;
const GANTT_MIN_HEIGHT: u32 = 400;
const GANTT_MAX_HEIGHT: u32 = 4000;
/// Pixels the Gantt frame takes besides the lanes (caption, x axis, margins).
const GANTT_FRAME: u32 = 120;
/// Above this many bars, bar labels are not even tried: they could not be read.
const MAX_LABELLED_BARS: usize = 200;

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

/// Errors naming the file or folder that could not be written.
#[derive(Debug, thiserror::Error)]
pub enum ChartError {
    #[error("cannot draw chart '{path}': {message}")]
    Input { path: PathBuf, message: String },
    #[error("cannot create folder '{path}' for charts: {source}")]
    Folder { path: PathBuf, source: std::io::Error },
    #[error("cannot draw chart '{path}': {message}")]
    Draw { path: PathBuf, message: String },
}

/// One graph's sweep, for the speedup chart.
#[derive(Clone, Debug, PartialEq)]
pub struct SpeedupSeries {
    pub label: String,
    /// Points in increasing `procs`.
    pub points: Vec<SpeedupPoint>,
    /// W / CP: no processor count can beat it.
    pub ceiling: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
pub struct SpeedupPoint {
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
}

/// One bar of a Gantt chart: processor `proc` works on `label` during [start, end).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct GanttBar {
    pub proc: u32,
    pub start: u64,
    pub end: u64,
    pub label: String,
}

/// Writes `<stem>.svg` and `<stem>.png`: speedup against processors for each series, with its
/// bound, its W/CP ceiling and the ideal speedup = P.
pub fn speedup(stem: &Path, title: &str, x_label: &str, series: &[SpeedupSeries]) -> Result<(), ChartError> {
    if series.iter().all(|s| s.points.is_empty()) {
        return Err(input(stem, "no speedup points to draw"));
    }
    render(stem, WIDE, &Figure::Speedup { title, x_label, series })
}

/// Writes `<stem>.svg` and `<stem>.png`: processors busy over time, one step line per series.
pub fn busy(stem: &Path, title: &str, time_unit: &str, series: &[BusySeries]) -> Result<(), ChartError> {
    if series.iter().all(|s| s.steps.is_empty()) {
        return Err(input(stem, "no busy-processor steps to draw"));
    }
    render(stem, WIDE, &Figure::Busy { title, time_unit, series })
}

/// Writes `<stem>.svg` and `<stem>.png`: a Gantt chart with one lane per processor `0..procs`.
pub fn gantt(stem: &Path, title: &str, time_unit: &str, procs: u32, bars: &[GanttBar]) -> Result<(), ChartError> {
    if procs == 0 || bars.is_empty() {
        return Err(input(stem, "no processors or no bars to draw"));
    }
    if let Some(b) = bars.iter().find(|b| b.proc >= procs || b.end < b.start) {
        let message = format!(
            "bar '{}' on processor {} over [{}, {}) does not fit {procs} processors",
            b.label, b.proc, b.start, b.end
        );
        return Err(input(stem, &message));
    }
    let height = procs.saturating_mul(12).saturating_add(GANTT_FRAME).clamp(GANTT_MIN_HEIGHT, GANTT_MAX_HEIGHT);
    render(stem, (GANTT_WIDTH, height), &Figure::Gantt { title, time_unit, procs, bars })
}

/// What to draw: one value per public function, so that one generic `draw` serves both backends.
enum Figure<'s> {
    Speedup { title: &'s str, x_label: &'s str, series: &'s [SpeedupSeries] },
    Busy { title: &'s str, time_unit: &'s str, series: &'s [BusySeries] },
    Gantt { title: &'s str, time_unit: &'s str, procs: u32, bars: &'s [GanttBar] },
}

type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

fn input(stem: &Path, message: &str) -> ChartError {
    ChartError::Input { path: stem.to_path_buf(), message: message.to_string() }
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
    write(&svg, SVGBackend::new(&svg_tmp, size).into_drawing_area(), figure)?;
    let (png, png_tmp) = (file(stem, "png"), file(&tmp, "png"));
    write(&png, BitMapBackend::new(&png_tmp, size).into_drawing_area(), figure)?;
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
        Figure::Speedup { title, x_label, series } => draw_speedup(&root, title, x_label, series)?,
        Figure::Busy { title, time_unit, series } => draw_busy(&root, title, time_unit, series)?,
        Figure::Gantt { title, time_unit, procs, bars } => draw_gantt(&root, title, time_unit, procs, bars)?,
    }
    root.present()
}

/// The frame all charts share: caption, an f64 x axis from 0, the given y axis, descriptions,
/// and a mesh whose tick labels are compact.
struct Frame<'s> {
    title: &'s str,
    x_desc: &'s str,
    x_max: f64,
    y_desc: &'s str,
    /// Horizontal grid lines; off for Gantt charts, whose y ticks sit in the middle of the lanes.
    y_grid: bool,
}

fn frame<'a, DB, Y>(
    root: &'a DrawingArea<DB, Shift>,
    f: &Frame,
    y: Y,
    y_format: &dyn Fn(&Y::Value) -> String,
) -> DrawResult<ChartContext<'a, DB, Cartesian2d<RangedCoordf64, Y::CoordDescType>>, DB>
where
    DB: DrawingBackend,
    Y: AsRangedCoord,
    Y::CoordDescType: ValueFormatter<Y::Value>,
{
    let mut chart = ChartBuilder::on(root)
        .caption(f.title, (FONT, 24))
        .margin(16)
        .x_label_area_size(48)
        .y_label_area_size(72)
        .build_cartesian_2d(0.0..f.x_max, y)?;
    let mut mesh = chart.configure_mesh();
    mesh.x_desc(f.x_desc)
        .y_desc(f.y_desc)
        .axis_desc_style((FONT, 16))
        .label_style((FONT, 13))
        .x_label_formatter(&compact_tick)
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

fn draw_speedup<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    x_label: &str,
    series: &[SpeedupSeries],
) -> DrawResult<(), DB> {
    let max_procs = series.iter().flat_map(|s| &s.points).map(|p| p.procs).max().unwrap_or(1);
    // The ideal line is left out on purpose: it would stretch the y axis far past every curve.
    let values = series.iter().flat_map(|s| s.points.iter().flat_map(|p| [p.speedup, p.bound]).chain([s.ceiling]));
    let x_max = (f64::from(max_procs) * 1.03).max(1.0);
    let y_max = top(values.filter(|v| v.is_finite()).fold(0.0, f64::max) * 1.05);
    let f = Frame { title, x_desc: x_label, x_max, y_desc: "speedup", y_grid: true };
    let mut chart = frame(root, &f, 0.0..y_max, &compact_tick)?;

    let corner = x_max.min(y_max);
    chart
        .draw_series(LineSeries::new([(0.0, 0.0), (corner, corner)], IDEAL.stroke_width(1)))?
        .label("ideal: speedup = P")
        .legend(|(x, y)| PathElement::new([(x, y), (x + 20, y)], IDEAL.stroke_width(1)));

    for (s, colour) in series.iter().zip(PALETTE.iter().copied().cycle()) {
        let line = colour.stroke_width(2);
        let curve = s.points.iter().map(|p| (f64::from(p.procs), p.speedup));
        chart.draw_series(LineSeries::new(curve.clone(), line))?.label(s.label.as_str()).legend(move |(x, y)| {
            EmptyElement::at((x, y))
                + PathElement::new([(0, 0), (20, 0)], line)
                + Circle::new((10, 0), 3, colour.filled())
        });
        chart.draw_series(curve.map(|xy| Circle::new(xy, 3, colour.filled())))?;

        let thin = colour.stroke_width(1);
        let bound = s.points.iter().map(|p| (f64::from(p.procs), p.bound));
        chart
            .draw_series(DashedLineSeries::new(bound, 6, 4, thin))?
            .label(format!("{}: bound W/max(CP, W/P)", s.label))
            .legend(move |(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 6, 4, thin));

        if s.ceiling.is_finite() {
            let ceiling = [(0.0, s.ceiling), (x_max, s.ceiling)];
            chart
                .draw_series(DashedLineSeries::new(ceiling, 2, 4, line))?
                .label(format!("{}: W/CP = {}", s.label, compact(s.ceiling)))
                .legend(move |(x, y)| DashedPathElement::new([(x, y), (x + 20, y)], 2, 4, line));
        }
    }
    // Below the curves, which climb then flatten at their ceilings.
    legend(&mut chart, SeriesLabelPosition::LowerRight)
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
    let f = Frame { title, x_desc: &x_desc, x_max: top(end as f64 * 1.02), y_desc: "busy processors", y_grid: true };
    // Integer y: processors come whole, so ticks should too.
    let mut chart = frame(root, &f, 0..most.saturating_add((most / 20).max(1)), &|v| compact(f64::from(*v)))?;

    for (s, colour) in series.iter().zip(PALETTE.iter().copied().cycle()) {
        let line = colour.stroke_width(2);
        // Each step holds its value until the next one starts.
        let path = s.steps.iter().enumerate().flat_map(|(i, &(t, b))| {
            let held = if i == 0 { b } else { s.steps[i - 1].1 };
            [(t as f64, held), (t as f64, b)]
        });
        chart
            .draw_series(LineSeries::new(path, line))?
            .label(s.label.as_str())
            .legend(move |(x, y)| PathElement::new([(x, y), (x + 20, y)], line));
    }
    legend(&mut chart, SeriesLabelPosition::UpperRight)
}

fn draw_gantt<DB: DrawingBackend>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    time_unit: &str,
    procs: u32,
    bars: &[GanttBar],
) -> DrawResult<(), DB> {
    let end = bars.iter().map(|b| b.end).max().unwrap_or(0);
    // Label every lane unless lanes are too thin to hold text.
    let lane_px = f64::from(root.dim_in_pixel().1.saturating_sub(GANTT_FRAME).max(1)) / f64::from(procs);
    let stride = (12.0 / lane_px).ceil().max(1.0) as u32;
    let x_desc = format!("time ({time_unit})");
    let f = Frame { title, x_desc: &x_desc, x_max: top(end as f64), y_desc: "processor", y_grid: false };
    let mut chart = frame(root, &f, Lanes { procs, stride }, &Lanes::format)?;
    // Processor p's lane spans [p, p + 1) on the `Lanes` axis.
    let row = f64::from;

    let x_max = f.x_max;
    let shaded = (0..procs).filter(|p| p % 2 == 1);
    chart.draw_series(
        shaded.map(|p| Rectangle::new([(0.0, row(p)), (x_max, row(p) + 1.0)], BLACK.mix(0.04).filled())),
    )?;

    // One colour per kind, by the kinds' sorted order rather than a hash: a hash would give two of
    // a handful of kinds the same colour too often. Charts with the same kinds agree.
    let kinds: Vec<&str> = bars.iter().map(|b| kind(&b.label)).collect::<BTreeSet<_>>().into_iter().collect();
    chart.draw_series(bars.iter().flat_map(|b| {
        let corners = [(b.start as f64, row(b.proc) + 0.1), (b.end as f64, row(b.proc) + 0.9)];
        let colour = PALETTE[kinds.binary_search(&kind(&b.label)).unwrap_or(0) % PALETTE.len()];
        [Rectangle::new(corners, lighten(colour).filled()), Rectangle::new(corners, colour.stroke_width(1))]
    }))?;

    if bars.len() <= MAX_LABELLED_BARS {
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

/// An axis end that plotters can draw: positive, finite.
fn top(v: f64) -> f64 {
    if v.is_finite() && v > 0.0 { v } else { 1.0 }
}

/// A bar's kind: its label's first word ("solve" in "solve 4-3-4-2").
fn kind(label: &str) -> &str {
    label.split_whitespace().next().unwrap_or("")
}

/// Half way to white: black bar labels stay readable on it.
fn lighten(c: RGBColor) -> RGBColor {
    let up = |v: u8| v + (255 - v) / 2;
    RGBColor(up(c.0), up(c.1), up(c.2))
}

fn compact_tick(v: &f64) -> String {
    compact(*v)
}

/// Tick and legend numbers, short enough not to collide: 0.25, 12.5, 1.5k, 120G.
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
            3
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
    use super::compact;

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
        ];
        for (v, s) in cases {
            assert_eq!(compact(v), s, "{v}");
        }
    }
}
