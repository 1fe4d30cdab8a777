//! The loaders of what users hand to dab: cost models, plans and run traces (graph files are in
//! `graph.rs`, Slurm's records in `cluster.rs`). Each refusal the issue lists has a case here,
//! with the field or line its one-line error names; then proptests feed every parser and
//! loader arbitrary and mutated input (graph CSV and thesis text, cost model JSON, plan JSON,
//! trace CSV, Slurm's jobcomp log and sacct output): never a panic, and an error, when there is
//! one, is a single non-empty line.

use crate::common;

use std::path::{Path, PathBuf};

use proptest::prelude::*;
use serde_json::{Value, json};

use dab::cluster::trace as slurm;
use dab::exec::{read_trace, read_trace_for};
use dab::plan::Plan;
use dab::sched::{CostModel, CostSpec, Format, Graph, Probe};

fn data(path: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(path)
}

fn committed_model() -> Value {
    serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/sims/cost-model.json")).unwrap(),
    )
    .unwrap()
}

/// Asserts that an error message is one non-empty line.
fn one_line(message: &str) {
    assert!(!message.trim().is_empty() && !message.contains(['\n', '\r']), "not one line: {message:?}");
}

/// Writes `text` to `name` in `dir` and returns the path.
fn file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

/// The error of loading `model` as a cost model file.
fn model_error(model: &Value) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "model.json", &model.to_string());
    let e = CostModel::load(&path).unwrap_err().to_string();
    one_line(&e);
    assert!(e.contains("model.json"), "{e}");
    e
}

#[test]
fn a_cost_model_whose_coefficients_are_all_zero_is_refused() {
    let mut m = committed_model();
    for t in dab::sched::Term::ALL {
        m[t.name()] = json!(0.0);
    }
    assert!(model_error(&m).contains("every coefficient"));
}

#[test]
fn a_cost_model_with_a_missing_field_is_refused_not_zeroed() {
    for field in ["store_read_per_byte_ns", "contention", "hardware_threads", "probe"] {
        let mut m = committed_model();
        m.as_object_mut().unwrap().remove(field);
        let e = model_error(&m);
        assert!(e.contains(&format!("missing field `{field}`")), "{e}");
    }
    let mut m = committed_model();
    m["probe"].as_object_mut().unwrap().remove("all_threads_seconds");
    assert!(model_error(&m).contains("missing field `all_threads_seconds`"));
}

#[test]
fn a_cost_model_with_bad_numbers_is_refused_by_field() {
    let cases: [(&str, Value, &str); 8] = [
        ("per_state_ns", json!(-1.0), "per_state_ns = -1 must be a finite number >= 0"),
        ("store_per_file_ns", json!(-0.5), "store_per_file_ns = -0.5"),
        ("cores", json!(0), "cores = 0 must be at least 1"),
        ("hardware_threads", json!(0), "hardware_threads = 0 must be at least 1"),
        ("contention", json!([[2, 0.0]]), "(2 threads, factor 0)"),
        ("contention", json!([[0, 1.5]]), "(0 threads, factor 1.5)"),
        ("contention", json!([[2, -1.0]]), "(2 threads, factor -1)"),
        ("per_row_ns", json!("fast"), "invalid type: string \"fast\""),
    ];
    for (field, value, message) in cases {
        let mut m = committed_model();
        m[field] = value;
        let e = model_error(&m);
        assert!(e.contains(message), "{field}: {e}");
    }
    let mut m = committed_model();
    m["probe"]["threads"] = json!(0);
    assert!(model_error(&m).contains("probe.threads = 0"));
    // JSON has no infinity: a number past f64 is the JSON reader's error, at its line.
    let text = committed_model().to_string().replacen("\"per_job_ns\":", "\"per_job_ns\":1e999,\"x\":", 1);
    let dir = tempfile::tempdir().unwrap();
    let e = CostModel::load(&file(dir.path(), "model.json", &text)).unwrap_err().to_string();
    assert!(e.contains("number out of range"), "{e}");
}

#[test]
fn a_job_cost_past_u64_under_a_model_is_refused_naming_the_job() {
    let mut m = committed_model();
    m["per_state_ns"] = json!(1e300);
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "model.json", &m.to_string());
    let cost = CostSpec::parse(path.to_str().unwrap()).unwrap();
    let space = dab::solver::Space::new(dab::game::Position::empty("2x2".parse().unwrap()), None).unwrap();
    let e = dab::sched::orbits(&space, &cost, None).unwrap_err().to_string();
    assert!(e.starts_with("job '") && e.contains("exceeds the limit of 18446744073709551615 ns"), "{e}");
}

#[test]
fn a_probe_that_measured_nothing_leaves_the_model_as_it_is() {
    let model = CostModel::built_in();
    for (one, all) in [(0.0, 1.0), (f64::NAN, 1.0), (1.0, f64::INFINITY), (-1.0, 1.0)] {
        let now = Probe { one_thread_seconds: one, all_threads_seconds: all, ..model.probe.clone() };
        let p = model.probed(&now, true);
        assert_eq!((p.scale, &p.model.coefficients), (1.0, &model.coefficients), "{one} {all}");
        assert!(p.contention.is_finite());
    }
}

/// The hand-written plan of the compare test, as JSON.
fn compare_plan() -> Value {
    serde_json::from_str(&std::fs::read_to_string(data("compare/plan.json")).unwrap()).unwrap()
}

/// Loads `plan` from a file; the error, checked to be one line naming the file.
fn load_plan(plan: &Value) -> Result<Plan, String> {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "plan.json", &plan.to_string());
    Plan::load(&path).map_err(|e| {
        let e = e.to_string();
        one_line(&e);
        assert!(e.contains("plan.json"), "{e}");
        e
    })
}

#[test]
fn a_plan_with_a_missing_field_is_refused_not_defaulted() {
    // `null` says "none"; a missing key is damage, not a plan without a memory limit.
    for field in ["mem_limit_bytes", "split", "machine", "threads", "contention", "predictions"] {
        let mut p = compare_plan();
        p.as_object_mut().unwrap().remove(field);
        let e = load_plan(&p).unwrap_err();
        assert!(e.contains(&format!("missing field `{field}`")), "{field}: {e}");
    }
    let mut p = compare_plan();
    p["jobs"][1].as_object_mut().unwrap().remove("cost");
    assert!(load_plan(&p).unwrap_err().contains("missing field `cost`"));
    // A plan made before `mem_limit` was named `mem_limit_bytes` is read with its limit.
    let mut p = compare_plan();
    let limit = p.as_object_mut().unwrap().remove("mem_limit_bytes").unwrap();
    assert!(limit.is_null());
    p["mem_limit"] = json!(123_456_789);
    assert_eq!(load_plan(&p).unwrap().mem_limit, Some(123_456_789));
    // The two defaults are for format-2 plans made before those fields: this plan is one.
    let plan = load_plan(&compare_plan()).unwrap();
    assert_eq!((plan.store_writes, plan.reload_ps_per_byte), (false, 0));
}

#[test]
fn a_plan_with_impossible_values_is_refused_by_field() {
    let cases: [(&str, Value, &str); 9] = [
        ("/threads", json!(0), "the plan's threads = 0: must be at least 1"),
        ("/unit", json!("hours"), "the plan's unit = 'hours': must be 'ns' or 'states'"),
        ("/contention", json!([[2, 0.0]]), "the plan's contention = (2 threads, factor 0)"),
        ("/mem_limit_bytes", json!(0), "the plan's mem_limit_bytes = 0"),
        ("/split", json!({"threshold": 0, "max_pieces": 4, "deps": "fine"}), "the plan's split = threshold 0"),
        ("/predicted_seconds", json!(-1.0), "the plan's predicted_seconds = -1"),
        ("/predictions/0/makespan_seconds", json!(-3.0), "predictions[0].makespan_seconds = -3"),
        ("/predictions/0/procs", json!(0), "predictions[0].procs = 0"),
        ("/jobs/1/deps/0", json!("a b"), "the plan's jobs[1].deps[0] = 'a b': is not a job name"),
    ];
    for (pointer, value, message) in cases {
        let mut p = compare_plan();
        *p.pointer_mut(pointer).unwrap() = value;
        let e = load_plan(&p).unwrap_err();
        assert!(e.contains(message), "{pointer}: {e}");
    }
    // A number that is no u64: the JSON reader's error, naming where.
    let mut p = compare_plan();
    p["jobs"][0]["cost"] = json!(-5);
    assert!(load_plan(&p).unwrap_err().contains("invalid value: integer `-5`, expected u64"));
    // Another format is refused before its fields are read.
    let mut p = compare_plan();
    p["format"] = json!(1);
    p.as_object_mut().unwrap().remove("jobs");
    assert!(load_plan(&p).unwrap_err().contains("plan format 1 is not supported"));
}

#[test]
fn a_plan_with_a_candidate_that_does_not_fit_loads() {
    // JSON writes the infinite time of a candidate that does not fit as null; it used to make
    // every such plan unreadable.
    let candidate =
        json!({"groups": 1, "split": null, "jobs": 3, "predicted_seconds": null, "peak_memory": 0, "fits": false});
    let mut p = compare_plan();
    p["candidates"] = json!([candidate]);
    let plan = load_plan(&p).unwrap();
    assert_eq!(plan.candidates[0].predicted_seconds, f64::INFINITY);
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("again.json");
    plan.save(&path).unwrap();
    assert_eq!(Plan::load(&path).unwrap(), plan);
    // ... but a candidate that fits has a time.
    p["candidates"][0]["fits"] = json!(true);
    assert!(load_plan(&p).unwrap_err().contains("candidates[0].predicted_seconds = null: is infinite"));
}

/// The error of reading `text` as a trace (checked against the compare plan's graph), one line
/// naming the file.
fn trace_error(text: &str) -> String {
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "trace.csv", text);
    let graph = load_plan(&compare_plan()).unwrap().graph().unwrap();
    let e = read_trace_for(&path, &graph).unwrap_err().to_string();
    one_line(&e);
    assert!(e.contains("trace.csv"), "{e}");
    e
}

const HEADER: &str = "# board=1x1 threads=2 value=1\njob,thread,start,end,positions\n";

#[test]
fn the_trace_of_a_run_loads() {
    let (rows, info) = read_trace(&data("compare/trace.csv")).unwrap();
    assert_eq!((rows.len(), info.threads), (3, Some(2)));
    let graph = load_plan(&compare_plan()).unwrap().graph().unwrap();
    assert_eq!(read_trace_for(&data("compare/trace.csv"), &graph).unwrap().0, rows);
}

#[test]
fn a_trace_with_a_missing_field_is_refused() {
    let e = trace_error("job,thread,start,end\na,0,0,1\n");
    assert!(e.contains("missing field `positions`"), "{e}");
    let e = trace_error(&format!("{HEADER}a,0,0,1.25,\n"));
    assert!(e.contains("line 3"), "{e}");
    let e = trace_error(&format!("{HEADER}a,0,0,1.25\n"));
    assert!(e.contains("line 3: 4 fields where the header has 5"), "{e}");
}

#[test]
fn a_trace_with_times_that_are_no_times_is_refused_with_the_line() {
    for (row, message) in [
        ("a,0,NaN,1,1", "line 3: job 'a' has start NaN and end 1"),
        ("a,0,0,inf,1", "line 3: job 'a' has start 0 and end inf"),
        ("a,0,-1,1,1", "line 3: job 'a' has start -1 and end 1"),
        ("a,0,2,1,1", "line 3: job 'a' ends at 1 s, before it starts at 2 s"),
        ("a,0,soon,1,1", "line 3"),
    ] {
        let e = trace_error(&format!("{HEADER}{row}\n"));
        assert!(e.contains(message), "{row}: {e}");
    }
}

#[test]
fn a_trace_with_a_job_twice_is_refused_with_both_lines() {
    let e = trace_error(&format!("{HEADER}a,0,0,1,1\nb,1,1,2,1\na,1,3,4,1\n"));
    assert!(e.contains("line 5: job 'a' appears twice (first on line 3)"), "{e}");
}

#[test]
fn overlapping_jobs_on_one_thread_are_refused_with_both_lines() {
    let e = trace_error(&format!("{HEADER}a,0,0,1.25,1\nc,1,1.25,2,1\nb,1,1.5,3,1\n"));
    assert!(e.contains("line 5: job 'b' starts at 1.5 s on thread 1, before job 'c' (line 4)"), "{e}");
}

#[test]
fn a_job_starting_before_its_inputs_end_is_refused_with_both_lines() {
    let e = trace_error(&format!("{HEADER}a,0,0,1.25,1\nb,1,1,3,1\nc,0,1.25,2,1\n"));
    assert!(e.contains("line 4: job 'b' starts at 1 s, before its input 'a' (line 3) ends at 1.25 s"), "{e}");
    // Without the plan, only what the trace alone can tell is checked.
    let dir = tempfile::tempdir().unwrap();
    let path = file(dir.path(), "trace.csv", &format!("{HEADER}a,0,0,1.25,1\nb,1,1,3,1\nc,0,1.25,2,1\n"));
    assert!(read_trace(&path).is_ok());
}

#[test]
fn a_trace_whose_threads_make_no_sense_is_refused() {
    let e = trace_error(&format!("{HEADER}a,2,0,1,1\n"));
    assert!(
        e.contains("line 3: job 'a' is on thread 2, beyond the run's threads (the first line says threads=2)"),
        "{e}"
    );
    let e = trace_error("# threads=0\njob,thread,start,end,positions\na,0,0,1,1\n");
    assert!(e.contains("line 1: threads=0 is not a thread count >= 1"), "{e}");
    let e = trace_error("job,thread,start,end,positions\n\"a\nb\",0,0,1,1\n");
    assert!(e.contains("'a\\nb' is not a job name"), "{e}");
    assert!(trace_error("job,thread,start,end,positions\n").contains("no jobs"));
}

#[test]
fn compare_refuses_an_overlapping_trace_naming_its_line() {
    let dir = tempfile::tempdir().unwrap();
    let trace = file(dir.path(), "trace.csv", &format!("{HEADER}a,0,0,1.25,1\nb,0,1,3.25,1\nc,1,1.25,2,1\n"));
    let plan = data("compare/plan.json");
    let args = ["compare", "--plan", plan.to_str().unwrap(), "--trace", trace.to_str().unwrap()];
    common::refused(&args, None, "line 4: job 'b' starts at 1 s on thread 0, before job 'a' (line 3)");
    common::refused(
        &[&args[..], &["--overhead", "1e12"]].concat(),
        None,
        "--overhead 1000000000000 s exceeds the limit",
    );
    assert!(!dir.path().join("compare.png").exists());
}

#[test]
fn plan_refuses_an_overhead_past_u64_nanoseconds() {
    common::refused(&["plan", "1x1", "--overhead", "1e11", "--no-probe"], None, "exceeds the limit of 18446744074 s");
    common::refused(&["plan", "1x1", "--overhead=-1", "--no-probe"], None, "is not a number of seconds >= 0");
}

// --- Arbitrary and mutated input: never a panic, a one-line error. ---

/// Applies edits to `text` (on characters, so it stays UTF-8): each `(op, at, with)` deletes a
/// few characters, inserts `with`, replaces one with `with`, repeats or drops a line, or cuts
/// the text there.
fn mutate(text: &str, edits: &[(u8, usize, String)]) -> String {
    let mut chars: Vec<char> = text.chars().collect();
    for (op, at, with) in edits {
        let n = chars.len();
        let at = if n == 0 { 0 } else { at % n };
        match op % 6 {
            0 => {
                chars.drain(at..(at + 1 + at % 4).min(n));
            }
            1 => {
                chars.splice(at..at, with.chars());
            }
            2 if n > 0 => {
                chars.splice(at..at + 1, with.chars());
            }
            3 | 4 => {
                let mut lines: Vec<String> = chars.iter().collect::<String>().lines().map(String::from).collect();
                if !lines.is_empty() {
                    let k = at % lines.len();
                    if op % 6 == 3 {
                        let l = lines[k].clone();
                        lines.insert(k, l);
                    } else {
                        lines.remove(k);
                    }
                }
                chars = lines.join("\n").chars().collect();
            }
            _ => chars.truncate(at),
        }
    }
    chars.into_iter().collect()
}

/// Edits for [`mutate`]: inserted text drawn from separators, digits, signs, special numbers and
/// control characters, the stuff loaders trip on.
fn edits() -> impl Strategy<Value = Vec<(u8, usize, String)>> {
    let with = prop_oneof![
        "[,:|#=\\-+.eE0-9a-zT \t\n\r\"{}\\[\\]]{0,6}",
        Just("NaN".to_string()),
        Just("inf".to_string()),
        Just("-1".to_string()),
        Just("null".to_string()),
        Just("18446744073709551616".to_string()),
        Just("1e999".to_string()),
        Just("9999-99-99T99:99:99".to_string()),
    ];
    prop::collection::vec((any::<u8>(), any::<usize>(), with), 1..6)
}

/// Sets a random node of `v` (picked by `pick`) to a hostile value, or removes it.
fn mutate_json(v: &mut Value, pick: usize, action: u8) {
    fn pointers(v: &Value, at: String, out: &mut Vec<String>) {
        match v {
            Value::Object(m) => m.iter().for_each(|(k, x)| pointers(x, format!("{at}/{k}"), out)),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, x)| pointers(x, format!("{at}/{i}"), out)),
            _ => {}
        }
        out.push(at);
    }
    let mut all = Vec::new();
    pointers(v, String::new(), &mut all);
    let at = &all[pick % all.len()];
    let new = match action % 10 {
        0 => Value::Null,
        1 => json!(-1),
        2 => json!(0),
        3 => json!(1e300),
        4 => json!(u64::MAX),
        5 => json!(-0.5),
        6 => json!("x\ny"),
        7 => json!([]),
        8 => json!({}),
        _ => {
            // Remove the key (or the array element).
            if let Some((parent, key)) = at.rsplit_once('/')
                && let Some(p) = v.pointer_mut(parent)
            {
                match p {
                    Value::Object(m) => {
                        m.remove(key);
                    }
                    Value::Array(a) => {
                        if let Ok(i) = key.parse::<usize>() {
                            a.remove(i);
                        }
                    }
                    _ => {}
                }
            }
            return;
        }
    };
    if let Some(node) = v.pointer_mut(at) {
        *node = new;
    }
}

fn small_graph_texts() -> [String; 2] {
    let space = dab::solver::Space::new(dab::game::Position::empty("2x2".parse().unwrap()), Some(2)).unwrap();
    let g = dab::sched::orbits(&space, &CostSpec::States, None).unwrap();
    [g.to_text(Format::Csv), g.to_text(Format::Thesis)]
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]

    #[test]
    fn graph_text_never_panics(text in "[a-c0-9,:# \n\\-]{0,80}", edits in edits(), thesis in any::<bool>()) {
        for t in [text.clone(), mutate(&small_graph_texts()[thesis as usize], &edits)] {
            if let Err(e) = Graph::parse(&t) {
                one_line(&e.to_string());
            }
        }
    }

    #[test]
    fn cost_model_json_never_panics(edits in edits(), pick in any::<usize>(), action in any::<u8>()) {
        let dir = tempfile::tempdir().unwrap();
        let mut model = committed_model();
        mutate_json(&mut model, pick, action);
        for (name, text) in [("a.json", model.to_string()), ("b.json", mutate(&committed_model().to_string(), &edits))] {
            let path = file(dir.path(), name, &text);
            match CostModel::load(&path) {
                Ok(m) => {
                    // A model that loads prices any job without a panic.
                    let f = dab::sched::JobFeatures { states: u64::MAX, rows: 1, outer_moves: 1 << 40, inner_moves: 3, run_inner_moves: 4, lane_inner_moves: 5, input_bytes: 9, outer_passes: 1 << 50, inner_passes: 7, turned_moves: 1 << 45, cold_input_bytes: 1 << 44 };
                    let _ = (m.nanoseconds(f), m.checked_nanoseconds(f), m.store_nanoseconds(u64::MAX), m.contention(64));
                }
                Err(e) => one_line(&e.to_string()),
            }
        }
    }

    #[test]
    fn plan_json_never_panics(edits in edits(), pick in any::<usize>(), action in any::<u8>(), big in any::<bool>()) {
        let dir = tempfile::tempdir().unwrap();
        let base = std::fs::read_to_string(data(if big { "cluster/plan-2x3.json" } else { "compare/plan.json" })).unwrap();
        let mut plan: Value = serde_json::from_str(&base).unwrap();
        mutate_json(&mut plan, pick, action);
        for (name, text) in [("a.json", plan.to_string()), ("b.json", mutate(&base, &edits))] {
            match Plan::load(&file(dir.path(), name, &text)) {
                Ok(p) => {
                    // A plan that loads is simulated, or refused, without a panic.
                    match p.graph() {
                        Ok(g) => {
                            if let Err(e) = dab::plan::simulate(&p, &g, p.threads.min(4), 0) {
                                one_line(&e.to_string());
                            }
                        }
                        Err(e) => one_line(&e.to_string()),
                    }
                }
                Err(e) => one_line(&e.to_string()),
            }
        }
    }

    #[test]
    fn trace_csv_never_panics(text in "[a-c0-9,.#= \n\\-]{0,60}", edits in edits()) {
        let dir = tempfile::tempdir().unwrap();
        let graph = load_plan(&compare_plan()).unwrap().graph().unwrap();
        let base = std::fs::read_to_string(data("compare/trace.csv")).unwrap();
        for t in [format!("{HEADER}{text}"), mutate(&base, &edits)] {
            let path = file(dir.path(), "trace.csv", &t);
            for result in [read_trace(&path), read_trace_for(&path, &graph)] {
                if let Err(e) = result {
                    one_line(&e.to_string());
                }
            }
        }
    }

    #[test]
    fn slurm_records_never_panic(edits in edits(), sacct in any::<bool>(), slots in prop::option::of(1usize..4)) {
        let name = if sacct { "cluster/sacct.txt" } else { "cluster/jobcomp.log" };
        let path = data(name);
        let text = mutate(&std::fs::read_to_string(&path).unwrap(), &edits);
        let parsed = if sacct { slurm::parse_sacct(&path, &text) } else { slurm::parse_jobcomp(&path, &text) };
        match parsed {
            Ok(records) => {
                let plan = Plan::load(&data("cluster/plan-2x3.json")).unwrap();
                if let Err(e) = slurm::convert(&plan, &records, slots, &path) {
                    one_line(&e.to_string());
                }
            }
            Err(e) => one_line(&e.to_string()),
        }
    }
}
