//! The charts: both files written for each kind, deterministic, errors rather than panics on
//! empty input, and large Gantt and comparison charts.

use std::path::{Path, PathBuf};

use dab::report::chart::*;

const PNG_SIGNATURE: &[u8] = b"\x89PNG\r\n\x1a\n";

/// A sweep over P = 1..=48 of a graph with work `w` and critical path `cp`: makespans a tenth
/// above the bound.
fn sweep(label: &str, w: f64, cp: f64) -> SpeedupSeries {
    let points = (1..=48)
        .map(|procs| {
            let bound = w / cp.max(w / f64::from(procs));
            SpeedupPoint { procs, speedup: bound / 1.1, bound }
        })
        .collect();
    SpeedupSeries { label: label.to_string(), points, ceiling: w / cp, bounds: true, chosen: false }
}

fn sweeps() -> Vec<SpeedupSeries> {
    vec![sweep("4x4 quadrants", 1.2e11, 1e10), sweep("4x4 quadrants, split", 1.2e11, 4.8e9)]
}

/// Ramps up to `peak` busy processors, holds, then drains: times in ticks, large.
fn busy_series(label: &str, peak: u32, hold: u64) -> BusySeries {
    let mut steps: Vec<(u64, u32)> = (0..peak).map(|b| (u64::from(b) * 1_000_000, b + 1)).collect();
    let top = u64::from(peak) * 1_000_000 + hold;
    steps.extend((0..peak).map(|b| (top + u64::from(b) * 3_000_000, peak - 1 - b)));
    BusySeries { label: label.to_string(), steps }
}

fn busies() -> Vec<BusySeries> {
    vec![busy_series("P = 25", 25, 400_000_000), busy_series("P = 25, split", 25, 250_000_000)]
}

fn bars(procs: u32, count: u32) -> Vec<GanttBar> {
    (0..count)
        .map(|i| {
            let proc = i % procs;
            let start = u64::from(i / procs) * 1_000 + u64::from(proc) * 37;
            let kind = ["solve", "merge", "load"][(i % 3) as usize];
            GanttBar { proc, start, end: start + 900, label: format!("{kind} {i}") }
        })
        .collect()
}

/// A predicted schedule and the actual one: every job in the same place, predicted to take 900,
/// 450, 225 or 112 ticks and taking from 25 % less to 10 % more.
fn schedules(procs: u32, count: u32) -> (Vec<GanttBar>, Vec<GanttBar>) {
    let mut predicted = bars(procs, count);
    let mut actual = predicted.clone();
    for (i, (p, a)) in predicted.iter_mut().zip(&mut actual).enumerate() {
        let span = 900 >> (i % 4);
        let factor = 0.75 + 0.35 * ((i * 7919) % 100) as f64 / 100.0;
        p.end = p.start + span;
        a.end = a.start + (span as f64 * factor) as u64;
    }
    (predicted, actual)
}

fn durations(predicted: &[GanttBar], actual: &[GanttBar]) -> Vec<ComparePoint> {
    let span = |b: &GanttBar| (b.end - b.start) as f64;
    predicted.iter().zip(actual).map(|(p, a)| ComparePoint { predicted: span(p), actual: span(a) }).collect()
}

fn files(stem: &Path) -> (Vec<u8>, Vec<u8>) {
    let read = |ext: &str| std::fs::read(format!("{}.{ext}", stem.display())).unwrap();
    (read("svg"), read("png"))
}

/// Both files are there and look like what they claim; the SVG names every label.
fn check(stem: &Path, labels: &[&str]) {
    let (svg, png) = files(stem);
    assert!(svg.starts_with(b"<svg") || svg.starts_with(b"<?xml"), "{}", stem.display());
    assert!(png.starts_with(PNG_SIGNATURE), "{}", stem.display());
    let svg = String::from_utf8(svg).unwrap();
    for label in labels {
        assert!(svg.contains(label), "{} lacks {label}", stem.display());
    }
}

fn stem(dir: &tempfile::TempDir, name: &str) -> PathBuf {
    // A missing folder in the path: the charts create it.
    dir.path().join("charts").join(name)
}

#[test]
fn speedup_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "speedup");
    speedup(&s, "Speedup, 4x4", "processors", &sweeps(), Some(16)).unwrap();
    check(&s, &["4x4 quadrants", "4x4 quadrants, split", "W/CP = 12", "W/CP = 25", "planned: 16 threads"]);
    // A ceiling far above every curve is named, not drawn: the curves keep the height.
    let mut far = sweeps();
    far[1].ceiling = 1e4;
    far[0].chosen = true;
    speedup(&s, "Speedup, 4x4", "processors", &far, None).unwrap();
    check(&s, &["W/CP = 10k (above the chart)", "4x4 quadrants (chosen)"]);
}

#[test]
fn busy_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "busy");
    busy(&s, "Processors busy, 4x4", "ticks", &busies()).unwrap();
    check(&s, &["P = 25", "P = 25, split", "ticks"]);
    // A series with the same steps as another is drawn once, under both names.
    let mut twins = busies();
    let mut copy = twins[0].clone();
    copy.label = "P = 60".into();
    twins.push(copy);
    busy(&s, "Processors busy, 4x4", "ticks", &twins).unwrap();
    check(&s, &[&format!("{} = P = 60", twins[0].label)]);
}

#[test]
fn gantt_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "gantt");
    gantt(&s, "Schedule, P = 4", "s", 4, &bars(4, 16)).unwrap();
    check(&s, &["P0", "P3", "solve 0", "merge 1"]);
}

#[test]
fn same_input_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let draw_all = |name: &str| {
        let s = stem(&dir, name);
        speedup(&s.with_file_name(format!("{name}-speedup")), "t", "processors", &sweeps(), None).unwrap();
        busy(&s.with_file_name(format!("{name}-busy")), "t", "ticks", &busies()).unwrap();
        gantt(&s.with_file_name(format!("{name}-gantt")), "t", "s", 5, &bars(5, 40)).unwrap();
        let (predicted, actual) = schedules(5, 40);
        let compared = s.with_file_name(format!("{name}-compare"));
        compare(&compared, "t", "µs", 5, &predicted, &actual, &durations(&predicted, &actual)).unwrap();
        s
    };
    let (a, b) = (draw_all("a"), draw_all("b"));
    for kind in ["speedup", "busy", "gantt", "compare"] {
        let first = files(&a.with_file_name(format!("a-{kind}")));
        let second = files(&b.with_file_name(format!("b-{kind}")));
        assert!(first == second, "{kind} charts differ");
    }
}

#[test]
fn empty_input_is_an_error() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "empty");
    assert!(speedup(&s, "t", "processors", &[], None).is_err());
    let no_points = SpeedupSeries { label: "x".into(), points: vec![], ceiling: 3.0, bounds: true, chosen: false };
    assert!(speedup(&s, "t", "processors", &[no_points], None).is_err());
    assert!(busy(&s, "t", "ticks", &[]).is_err());
    assert!(gantt(&s, "t", "s", 4, &[]).is_err());
    assert!(gantt(&s, "t", "s", 0, &bars(1, 1)).is_err());
    let err = gantt(&s, "t", "s", 2, &bars(3, 3)).unwrap_err().to_string();
    assert!(err.contains("empty") && err.contains("processor 2"), "{err}");
    let (predicted, actual) = schedules(2, 6);
    let points = durations(&predicted, &actual);
    assert!(compare(&s, "t", "µs", 2, &[], &[], &points).is_err());
    assert!(compare(&s, "t", "µs", 0, &predicted, &actual, &points).is_err());
    let err = compare(&s, "t", "µs", 2, &predicted, &bars(3, 3), &points).unwrap_err().to_string();
    assert!(err.contains("processor 2"), "{err}");
    let err = compare(&s, "t", "µs", 2, &bars(3, 3), &actual, &points).unwrap_err().to_string();
    assert!(err.contains("processor 2"), "{err}");
    // Nothing written, not even the folder.
    assert!(!s.parent().unwrap().exists());
}

#[test]
fn large_gantt_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "large");
    gantt(&s, "Schedule, P = 150", "ticks", 150, &bars(150, 5_000)).unwrap();
    check(&s, &["P0", "P149"]);
}

#[test]
fn compare_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "compare");
    let (predicted, actual) = schedules(2, 6);
    let mut points = durations(&predicted, &actual);
    // Not on log axes: left out, not an error.
    points.push(ComparePoint { predicted: 0.0, actual: 5.0 });
    compare(&s, "Predicted and actual, P = 2", "µs", 2, &predicted, &actual, &points).unwrap();
    check(&s, &["predicted", "actual", "P0", "P1", "solve 0", "µs", "1 not positive"]);
    let (svg, png) = files(&s);
    assert!(!svg.is_empty() && !png.is_empty());
}

#[test]
fn compare_chart_without_positive_durations() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "no-durations");
    let (predicted, actual) = schedules(2, 6);
    let zero = ComparePoint { predicted: 0.0, actual: 3.0 };
    compare(&s, "t", "µs", 2, &predicted, &actual, &[zero]).unwrap();
    check(&s, &["predicted", "actual", "no job with a positive"]);
    compare(&s, "t", "µs", 2, &predicted, &[], &[]).unwrap();
    check(&s, &["predicted", "actual"]);
}

#[test]
fn large_compare_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "large-compare");
    let (predicted, actual) = schedules(2, 3_000);
    let points = durations(&predicted, &actual);
    compare(&s, "Predicted and actual, P = 2", "µs", 2, &predicted, &actual, &points).unwrap();
    check(&s, &["predicted", "actual", "P0", "P1"]);
}
