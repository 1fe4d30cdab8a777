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
    SpeedupSeries { label: label.to_string(), points, ceiling: w / cp, bounds: true, chosen: false, measured: None }
}

fn sweeps() -> Vec<SpeedupSeries> {
    vec![sweep("4x4 quadrants", 1.2e11, 1e10), sweep("4x4 quadrants, split", 1.2e11, 4.8e9)]
}

/// A plan for 2 threads and its run on 2, measured above the model's ceiling there.
fn measured() -> Vec<SpeedupSeries> {
    let points =
        vec![SpeedupPoint { procs: 1, speedup: 1.0, bound: 1.0 }, SpeedupPoint { procs: 2, speedup: 0.85, bound: 0.9 }];
    let measured =
        MeasuredSpeedup { label: "measured: one-thread prediction / the run's time".into(), points: vec![(2, 1.01)] };
    let s = SpeedupSeries {
        label: "plan".into(),
        points,
        ceiling: 1.5,
        bounds: true,
        chosen: true,
        measured: Some(measured),
    };
    vec![s]
}

/// The x tick labels of an SVG chart: the texts centred below the plot, on one line.
fn x_ticks(stem: &Path) -> Vec<String> {
    let svg = String::from_utf8(files(stem).0).unwrap();
    let below: Vec<(i64, String)> = svg
        .split("<text")
        .skip(1)
        .filter(|t| t.contains("text-anchor=\"middle\"") && t.contains("dy=\"0.76em\"") && !t.contains("rotate"))
        .map(|t| {
            let y = t.split("y=\"").nth(1).unwrap().split('"').next().unwrap().parse().unwrap();
            (y, t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim().to_string())
        })
        .collect();
    let lowest = below.iter().map(|b| b.0).max().unwrap();
    below.into_iter().filter(|b| b.0 == lowest).map(|b| b.1).collect()
}

/// A 2-thread plan's chart is ticked 1 and 2, never 0.5 or 1.5; its run's measured speedup is
/// drawn with its value and its definition, and may pass the model's ceiling, which is then
/// not called a bound.
#[test]
fn a_speedup_chart_ticks_whole_threads_and_shows_the_measured_run() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "measured");
    speedup(&s, "t", "threads", &measured(), Some(2)).unwrap();
    assert_eq!(x_ticks(&s), ["1", "2"]);
    check(&s, &["1.01", "model&apos;s ceiling"]);
    let legend = texts(&s).join(" ");
    assert!(legend.contains("measured: one-thread prediction / the run&apos;s time"), "{legend}");
    // A sweep to 48 processors: whole counts at round steps.
    let s = stem(&dir, "sweep");
    speedup(&s, "t", "processors", &sweeps(), None).unwrap();
    let ticks: Vec<u32> = x_ticks(&s).iter().map(|t| t.parse().expect("a whole count")).collect();
    assert!(ticks.len() >= 4 && ticks.iter().all(|t| (1..=48).contains(t)), "{ticks:?}");
    let step = ticks[0];
    assert!([1, 2, 5, 10, 20].contains(&step), "{ticks:?}");
    assert!(ticks.iter().enumerate().all(|(i, &t)| t == step * (i as u32 + 1)), "{ticks:?}");
}

/// Ramps up to `peak` busy processors, holds, then drains: times in ticks, large.
fn busy_series(label: &str, peak: u32, hold: u64) -> BusySeries {
    let mut steps: Vec<(u64, u32)> = (0..peak).map(|b| (u64::from(b) * 1_000_000, b + 1)).collect();
    let top = u64::from(peak) * 1_000_000 + hold;
    steps.extend((0..peak).map(|b| (top + u64::from(b) * 3_000_000, peak - 1 - b)));
    BusySeries { label: label.to_string(), steps, dash: 0 }
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
            GanttBar { proc, start, end: start + 900, label: format!("{kind} {i}"), level: i / procs % 12 }
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

/// The texts of an SVG chart, each trimmed: titles, tick labels, legend entries.
fn texts(stem: &Path) -> Vec<String> {
    let svg = String::from_utf8(files(stem).0).unwrap();
    svg.split("<text")
        .skip(1)
        .map(|t| t[t.find('>').unwrap() + 1..t.find("</text>").unwrap()].trim().to_string())
        .collect()
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
    // W and CP are said in words: total work and critical path, of the model's costs; what
    // they give is the model's ceiling, which a run can pass, never "a bound no schedule beats".
    check(&s, &["W: total work", "CP: critical path", "model&apos;s ceiling"]);
    let legend = texts(&s).join(" ");
    for words in ["no simulated speedup passes W/CP", "a ceiling of the model, not a bound on runs"] {
        assert!(legend.contains(words), "{legend}");
    }
    assert!(!legend.contains("beats"), "the ceiling is not called a bound: {legend}");
    // A ceiling far above every curve is named, not drawn: the curves keep the height.
    let mut far = sweeps();
    far[1].ceiling = 1e4;
    far[0].chosen = true;
    speedup(&s, "Speedup, 4x4", "processors", &far, None).unwrap();
    check(&s, &["W/CP = 10k (above the chart)", "4x4 quadrants (chosen)"]);
}

/// Writers of one chart at once (two runs sharing a report folder) each finish, and leave the
/// chart whole and no temporary file.
#[test]
fn charts_drawn_into_one_place_at_once_all_finish() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "speedup");
    std::thread::scope(|scope| {
        let writers: Vec<_> =
            (0..6).map(|_| scope.spawn(|| speedup(&s, "Speedup, 4x4", "processors", &sweeps(), Some(16)))).collect();
        for w in writers {
            w.join().unwrap().unwrap();
        }
    });
    check(&s, &["4x4 quadrants", "planned: 16 threads"]);
    let mut left: Vec<String> = std::fs::read_dir(s.parent().unwrap())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .collect();
    left.sort();
    assert_eq!(left, ["speedup.png", "speedup.svg"]);
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
    check(&s, &[&format!("{} = P = 60 (the same steps: one line)", twins[0].label)]);
}

/// Nearly the same steps under two policies: the second is dashed, so both show.
#[test]
fn busy_series_of_another_policy_are_dashed() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "busy-dashed");
    let cp = busy_series("P = 2, cp", 2, 400_000_000);
    let mut fifo = busy_series("P = 2, fifo", 2, 400_000_001);
    fifo.dash = 1;
    busy(&s, "t", "ticks", std::slice::from_ref(&cp)).unwrap();
    let solid = String::from_utf8(files(&s).0).unwrap();
    assert!(!solid.contains("stroke-dasharray") && solid.matches("<polyline").count() >= 1);
    busy(&s, "t", "ticks", &[cp, fifo]).unwrap();
    check(&s, &["P = 2, cp", "P = 2, fifo"]);
    // plotters draws a dashed line as many short segments: far more paths than the solid one.
    let dashed = String::from_utf8(files(&s).0).unwrap();
    let lines = |svg: &str| svg.matches("<polyline").count() + svg.matches("<path").count();
    assert!(lines(&dashed) > lines(&solid) + 10, "{} against {}", lines(&dashed), lines(&solid));
}

#[test]
fn gantt_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "gantt");
    gantt(&s, "Schedule, P = 4", &SECONDS, 4, &bars(4, 16)).unwrap();
    // Levels 0..3: the key names what they count and every level.
    check(&s, &["P0", "P3", "solve 0", "merge 1", "colour: lines drawn"]);
    let t = texts(&s);
    assert!(["0", "1", "2", "3"].iter().all(|l| t.iter().any(|x| x == l)), "{t:?}");
    let svg = String::from_utf8(files(&s).0).unwrap();
    assert!(!svg.contains("jobs as"), "16 jobs are drawn one bar each");
}

const SECONDS: BarScale = BarScale { time_unit: "s", level: "lines drawn" };
const MICROSECONDS: BarScale = BarScale { time_unit: "µs", level: "lines drawn" };

/// Rectangles in an SVG chart.
fn rects(stem: &Path) -> usize {
    String::from_utf8(files(stem).0).unwrap().matches("<rect").count()
}

/// Thousands of short jobs: each lane's pixels take one colour each, so the chart holds at
/// most about a bar a pixel a lane, and says how many jobs its bars hold.
#[test]
fn many_jobs_are_drawn_as_a_bar_a_pixel_at_most() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "many");
    // 2 lanes of 10,000 jobs of 10 ticks each, levels changing every 1,000 jobs.
    let bars: Vec<GanttBar> = (0..20_000u32)
        .map(|i| {
            let (proc, k) = (i % 2, u64::from(i / 2));
            GanttBar { proc, start: k * 10, end: k * 10 + 10, label: format!("j{i}"), level: (i / 2_000) }
        })
        .collect();
    gantt(&s, "many", &SECONDS, 2, &bars).unwrap();
    check(&s, &["20,000 jobs as", "each pixel of a lane takes the colour"]);
    // A bar a level a lane: 10 levels on 2 lanes, plus the frame, the key's cells and shading.
    assert!(rects(&s) < 200, "{} rectangles", rects(&s));
    // A handful of jobs is drawn job by job.
    gantt(&s, "few", &SECONDS, 2, &bars[..MAX_LABELLED_BARS]).unwrap();
    assert!(rects(&s) > MAX_LABELLED_BARS, "{} rectangles", rects(&s));
}

#[test]
fn same_input_same_bytes() {
    let dir = tempfile::tempdir().unwrap();
    let draw_all = |name: &str| {
        let s = stem(&dir, name);
        speedup(&s.with_file_name(format!("{name}-speedup")), "t", "processors", &sweeps(), None).unwrap();
        speedup(&s.with_file_name(format!("{name}-measured")), "t", "threads", &measured(), Some(2)).unwrap();
        busy(&s.with_file_name(format!("{name}-busy")), "t", "ticks", &busies()).unwrap();
        gantt(&s.with_file_name(format!("{name}-gantt")), "t", &SECONDS, 5, &bars(5, 40)).unwrap();
        let (predicted, actual) = schedules(5, 400);
        let compared = s.with_file_name(format!("{name}-compare"));
        compare(&compared, "t", &MICROSECONDS, 5, &predicted, &actual, &durations(&predicted, &actual)).unwrap();
        s
    };
    let (a, b) = (draw_all("a"), draw_all("b"));
    for kind in ["speedup", "measured", "busy", "gantt", "compare"] {
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
    let no_points =
        SpeedupSeries { label: "x".into(), points: vec![], ceiling: 3.0, bounds: true, chosen: false, measured: None };
    assert!(speedup(&s, "t", "processors", &[no_points], None).is_err());
    assert!(busy(&s, "t", "ticks", &[]).is_err());
    assert!(gantt(&s, "t", &SECONDS, 4, &[]).is_err());
    assert!(gantt(&s, "t", &SECONDS, 0, &bars(1, 1)).is_err());
    let err = gantt(&s, "t", &SECONDS, 2, &bars(3, 3)).unwrap_err().to_string();
    assert!(err.contains("empty") && err.contains("processor 2"), "{err}");
    let (predicted, actual) = schedules(2, 6);
    let points = durations(&predicted, &actual);
    assert!(compare(&s, "t", &MICROSECONDS, 2, &[], &[], &points).is_err());
    assert!(compare(&s, "t", &MICROSECONDS, 0, &predicted, &actual, &points).is_err());
    let err = compare(&s, "t", &MICROSECONDS, 2, &predicted, &bars(3, 3), &points).unwrap_err().to_string();
    assert!(err.contains("processor 2"), "{err}");
    let err = compare(&s, "t", &MICROSECONDS, 2, &bars(3, 3), &actual, &points).unwrap_err().to_string();
    assert!(err.contains("processor 2"), "{err}");
    // Nothing written, not even the folder.
    assert!(!s.parent().unwrap().exists());
}

#[test]
fn large_gantt_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "large");
    gantt(&s, "Schedule, P = 150", &BarScale { time_unit: "ticks", level: "depth" }, 150, &bars(150, 5_000)).unwrap();
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
    compare(&s, "Predicted and actual, P = 2", &MICROSECONDS, 2, &predicted, &actual, &points).unwrap();
    check(&s, &["predicted", "actual", "P0", "P1", "solve 0", "µs", "1 not positive", "colour: lines drawn"]);
    // The band is said as the ratio every report writes.
    check(&s, &["within 1.2x of the prediction", "actual within 1.2x of predicted"]);
    let (svg, png) = files(&s);
    assert!(!svg.is_empty() && !png.is_empty());
}

#[test]
fn compare_chart_without_positive_durations() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "no-durations");
    let (predicted, actual) = schedules(2, 6);
    let zero = ComparePoint { predicted: 0.0, actual: 3.0 };
    compare(&s, "t", &MICROSECONDS, 2, &predicted, &actual, &[zero]).unwrap();
    check(&s, &["predicted", "actual", "no job with a positive"]);
    compare(&s, "t", &MICROSECONDS, 2, &predicted, &[], &[]).unwrap();
    check(&s, &["predicted", "actual"]);
}

#[test]
fn large_compare_chart() {
    let dir = tempfile::tempdir().unwrap();
    let s = stem(&dir, "large-compare");
    let (predicted, actual) = schedules(2, 3_000);
    let points = durations(&predicted, &actual);
    compare(&s, "Predicted and actual, P = 2", &MICROSECONDS, 2, &predicted, &actual, &points).unwrap();
    check(&s, &["predicted", "actual", "P0", "P1", "3,000 jobs as"]);
}

/// The rows of a scaling run of 1 and 2 threads, the second 0.91x its prediction.
fn scale_rows() -> Vec<dab::report::ScaleRow> {
    use dab::report::{OneThread, ScaleRow};
    let one = OneThread { predicted_seconds: 2.0, actual_seconds: 2.0 };
    vec![ScaleRow::new(1, 2.0, 2.0, 2.0, 0.1, one), ScaleRow::new(2, 1.1, 1.001, 1.0, 0.1, one)]
}

/// The error is written as actual over predicted, "0.91x", never as a percentage; "median of"
/// only where each point is the median of several runs.
#[test]
fn scale_chart_writes_the_error_as_a_ratio_and_the_median_only_of_repeats() {
    let dir = tempfile::tempdir().unwrap();
    let rows = scale_rows();
    assert_eq!(rows[1].actual_over_predicted(), 1.001 / 1.1);
    dab::report::write_scale(&rows, "3x4", 2, 1, dir.path()).unwrap();
    let s = dir.path().join("scale");
    check(&s, &["0.91x", "1.00x", "actual / predicted"]);
    let svg = String::from_utf8(files(&s).0).unwrap();
    assert!(!svg.contains("median"), "one run a count is no median");
    assert!(!svg.contains(" %"), "no error in percent");
    dab::report::write_scale(&rows, "3x4", 2, 3, dir.path()).unwrap();
    check(&s, &["median of 3 runs", "0.91x"]);
}

/// A plan's speedup charts stop at the threads it was made for, although the planner
/// simulates its candidates to 64.
#[test]
fn plan_charts_stop_at_the_planned_threads() {
    let dir = tempfile::tempdir().unwrap();
    assert_cmd::Command::cargo_bin("dab")
        .unwrap()
        .current_dir(dir.path())
        .args(["plan", "2x3", "--threads", "3", "--no-probe", "-o", "p.json", "--out", "r"])
        .assert()
        .success();
    for name in ["speedup", "candidates"] {
        let s = dir.path().join("r").join(name);
        check(&s, &["planned: 3 threads", "W: total work"]);
        // The x axis is ticked at whole threads up to 3; no tick past it (nor any speedup
        // above 3 on 3 threads).
        assert_eq!(x_ticks(&s), ["1", "2", "3"], "{name}");
        let t = texts(&s);
        let ticks: Vec<f64> = t.iter().filter_map(|x| x.parse().ok()).collect();
        assert!(ticks.iter().all(|&v| v <= 3.0), "{name} reaches past 3: {ticks:?}");
    }
}

/// `dab compare` says the makespan and the per-job times as actual over predicted.
#[test]
fn compare_prints_errors_as_ratios() {
    let dir = tempfile::tempdir().unwrap();
    let data = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/compare");
    let out = assert_cmd::Command::cargo_bin("dab")
        .unwrap()
        .args(["compare", "--plan", &format!("{data}/plan.json"), "--trace", &format!("{data}/trace.csv")])
        .arg("--out")
        .arg(dir.path())
        .assert()
        .success()
        .get_output()
        .stdout
        .clone();
    let text = String::from_utf8(out).unwrap();
    // 3.25 s against 3 s; jobs 1.25x, 1x and 0.75x their predictions.
    assert!(text.contains("actual 1.08x the prediction"), "{text}");
    assert!(text.contains("actual / predicted median 1.00x, 10th to 90th percentile 0.75x to 1.25x"), "{text}");
    assert!(!text.contains('%'), "{text}");
    check(&dir.path().join("compare"), &["(1.08x)", "median 1.00x", "colour: lines drawn"]);
}
