//! Charts of parallel-schedule simulations, as SVG and PNG files: speedup against the processor
//! count (with its bounds), processors busy over time, Gantt charts of one schedule, a
//! predicted schedule beside the actual one with a scatter of their job durations, and measured
//! against predicted speedup with the error at each thread count. This
//! module owns the drawing only: callers hand in plain numbers and labels. Text uses DejaVu Sans
//! embedded in the binary, so no font library is needed at build or run time, and the same input
//! always gives the same bytes.
//!
//! One file per kind of chart holds its input types, its public function and its drawing:
//! `speedup`, `busy`, `gantt`, `compare` (with the duration scatter), `scale` and `cluster`.
//! What they share is here (the error, the font, the palette), in `figure` (writing a figure
//! to both files, the frame of every plot, legends) and in `axes` (axis types and the
//! formatting of numbers).

mod axes;
mod busy;
mod cluster;
mod compare;
mod figure;
mod gantt;
mod scale;
mod speedup;

pub use axes::times;
pub use busy::{BusySeries, busy};
pub use cluster::{ClusterPoint, cluster};
pub use compare::{ComparePoint, compare};
pub(crate) use gantt::MICROS;
pub use gantt::{BarScale, GanttBar, MAX_LABELLED_BARS, gantt};
pub(crate) use scale::{ScalePoint, scale};
pub use speedup::{MeasuredSpeedup, SpeedupPoint, SpeedupSeries, W_CP_NOTE, speedup};

use std::path::{Path, PathBuf};

use plotters::style::RGBColor;

/// The one font family every text uses; registered from the embedded DejaVu Sans.
const FONT: &str = "sans-serif";
/// Speedup and busy charts: the plot, and the legend beside it.
const WIDE: (u32, u32) = (1280, 640);

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
/// The ideal line's grey.
const IDEAL: RGBColor = RGBColor(150, 150, 150);

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

/// The error for input that cannot be drawn as a chart at `stem`.
fn input(stem: &Path, message: &str) -> ChartError {
    ChartError::Input { path: stem.to_path_buf(), message: message.to_string() }
}
