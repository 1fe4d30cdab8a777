//! What every kind of chart shares once its numbers are laid out: writing a figure into
//! `<stem>.svg` and `<stem>.png` (drawn under temporary names, renamed when complete), the
//! frame of a plot (caption, axes, mesh), and legends, inside a plot or beside it.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};

use plotters::chart::{ChartContext, SeriesLabelPosition};
use plotters::coord::Shift;
use plotters::coord::cartesian::Cartesian2d;
use plotters::coord::ranged1d::{AsRangedCoord, ValueFormatter};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};

use super::axes::compact;
use super::{ChartError, FONT, input};

/// A chart's input, one type per kind: what [`render`] draws, once per backend (hence a
/// method generic over the backend).
pub(super) trait Figure {
    /// Draws the figure on `root`, already filled white.
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<(), DB>;
}

/// The result of drawing on backend `DB`: its error, if any.
pub(super) type DrawResult<T, DB> = Result<T, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;
/// A chart drawn on the coordinates of the axis specs X and Y.
type Chart<'a, DB, X, Y> =
    ChartContext<'a, DB, Cartesian2d<<X as AsRangedCoord>::CoordDescType, <Y as AsRangedCoord>::CoordDescType>>;

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
pub(super) fn render<F: Figure>(stem: &Path, size: (u32, u32), figure: &F) -> Result<(), ChartError> {
    if !font_ready() {
        return Err(input(stem, "the embedded DejaVu Sans font was rejected"));
    }
    if let Some(dir) = stem.parent().filter(|d| !d.as_os_str().is_empty()) {
        std::fs::create_dir_all(dir).map_err(|source| ChartError::Folder { path: dir.to_path_buf(), source })?;
    }
    // Each file is drawn under a temporary name and renamed when complete, so a failure never
    // leaves a half-drawn chart where a good one was. The PNG encoder goes by the extension,
    // hence `<stem>.tmp<id>.png` rather than `<stem>.png.tmp`. The name is this drawing's own
    // (process and count): two runs writing one report folder at once each rename their own
    // file, where with one shared name the second rename found the file gone.
    static DRAWINGS: AtomicU64 = AtomicU64::new(0);
    let tmp = file(stem, &format!("tmp{}-{}", std::process::id(), DRAWINGS.fetch_add(1, Relaxed)));
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

fn write<DB: DrawingBackend, F: Figure>(
    path: &Path,
    root: DrawingArea<DB, Shift>,
    figure: &F,
) -> Result<(), ChartError> {
    draw(root, figure).map_err(|e| ChartError::Draw { path: path.to_path_buf(), message: e.to_string() })
}

fn draw<DB: DrawingBackend, F: Figure>(root: DrawingArea<DB, Shift>, figure: &F) -> DrawResult<(), DB> {
    root.fill(&WHITE)?;
    figure.draw(&root)?;
    root.present()
}

/// The frame all charts share: caption, the given f64 x axis and y axis, descriptions, and a mesh
/// whose tick labels are compact.
pub(super) struct Frame<'s> {
    /// The caption.
    pub(super) title: &'s str,
    /// What the x axis measures, with its unit.
    pub(super) x_desc: &'s str,
    /// What the y axis measures.
    pub(super) y_desc: &'s str,
    /// Horizontal grid lines; off for Gantt charts, whose y ticks sit in the middle of the lanes.
    pub(super) y_grid: bool,
    /// x tick labels show the value times this (1e-6: microseconds shown as seconds).
    pub(super) x_scale: f64,
}

pub(super) fn frame<'a, DB, X, Y>(
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

/// Pixels of a frame's margin on each side.
pub(super) const FRAME_MARGIN: u32 = 16;
/// Pixels of a frame's y labels (a Gantt panel's lane names).
pub(super) const Y_LABEL_AREA: u32 = 72;

/// The legend box, drawn once all labelled series are in.
pub(super) fn legend<'a, DB: DrawingBackend + 'a, X: Ranged, Y: Ranged>(
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
pub(super) struct Key {
    /// The text, wrapped when long.
    pub(super) label: String,
    /// The line's and the dot's colour.
    pub(super) colour: RGBColor,
    /// The line's width in pixels; 0 for a note.
    pub(super) width: u32,
    /// Dash and gap in pixels; none for a solid line.
    pub(super) dash: Option<(u32, u32)>,
    /// A dot in the middle (series drawn with points).
    pub(super) dot: bool,
}

/// Share of a speedup chart's width given to the legend at its right, outside the plot.
const LEGEND_SHARE: f64 = 0.27;

/// `root` cut into the plot area and, at its right, the legend's.
pub(super) fn with_legend_beside<DB: DrawingBackend>(
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
pub(super) fn side_legend<DB: DrawingBackend>(area: &DrawingArea<DB, Shift>, keys: &[Key]) -> DrawResult<(), DB> {
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
