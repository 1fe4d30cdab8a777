//! Every JSON output and file of dab parses and uses only the names docs/json.md gives under
//! its heading, so that one name keeps one meaning across commands.

use std::collections::BTreeSet;
use std::path::{Path, PathBuf};

use assert_cmd::Command;

fn dab() -> Command {
    Command::cargo_bin("dab").unwrap()
}

fn path(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn data(rel: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data").join(rel)
}

/// The names docs/json.md gives under the heading that names `what` (in backticks): the
/// backticked identifiers at the head of each list item, before its first ": " (the fields it
/// describes), not those its description or a paragraph mentions.
fn documented(what: &str) -> BTreeSet<String> {
    let doc = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/docs/json.md")).unwrap();
    let (mut names, mut inside, mut found) = (BTreeSet::new(), false, false);
    for line in doc.lines() {
        if let Some(heading) = line.strip_prefix("## ") {
            inside = heading.contains(&format!("`{what}`"));
            found |= inside;
            continue;
        }
        let item = line.trim_start();
        if inside && let Some(item) = item.strip_prefix("- ") {
            let head = item.split(": ").next().unwrap_or(item);
            let words = head.split('`').skip(1).step_by(2);
            names.extend(
                words
                    .filter(|w| w.chars().all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '_'))
                    .map(str::to_string),
            );
        }
    }
    assert!(found, "docs/json.md has no heading naming `{what}`");
    names
}

/// Every object key in `v`, at any depth.
fn keys(v: &serde_json::Value, out: &mut BTreeSet<String>) {
    match v {
        serde_json::Value::Object(m) => {
            for (k, x) in m {
                out.insert(k.clone());
                keys(x, out);
            }
        }
        serde_json::Value::Array(a) => a.iter().for_each(|x| keys(x, out)),
        _ => {}
    }
}

fn check(what: &str, text: &str) {
    let v: serde_json::Value =
        serde_json::from_str(text.trim()).unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {text}"));
    let mut found = BTreeSet::new();
    keys(&v, &mut found);
    assert!(!found.is_empty(), "{what}: no fields");
    let doc = documented(what);
    let undocumented: Vec<&String> = found.difference(&doc).collect();
    assert!(undocumented.is_empty(), "{what}: fields not in docs/json.md: {undocumented:?}");
}

fn stdout(args: &[&str]) -> String {
    let out = dab().args(args).assert().success();
    String::from_utf8(out.get_output().stdout.clone()).unwrap()
}

#[test]
fn every_json_output_uses_only_documented_names() {
    let dir = tempfile::tempdir().unwrap();
    let d = |name: &str| dir.path().join(name);
    let (store, report) = (d("store"), d("report"));
    for (what, args) in [
        ("dab solve --json", vec!["solve", "2x2", "--json"]),
        ("dab solve --json", vec!["solve", "2x2", "--engine", "dense", "--json"]),
        ("dab partitions --json", vec!["partitions", "2x3", "--json"]),
        ("dab hint --json", vec!["hint", "2x2", "--json"]),
        ("dab nimstring --json", vec!["nimstring", "2x3", "--json"]),
        ("dab solve --json", vec!["solve", "2x2", "--penalty", "1", "--json"]),
        ("dab hint --json", vec!["hint", "2x2", "--penalty", "1", "--json"]),
        ("dab endgame --json", vec!["endgame", "C3 C3 L4", "--json"]),
        ("dab review --json", vec!["review", "2x2", "--moves", "h(0,0) h(1,0) v(0,0) v(0,1) h(2,0)", "--json"]),
        // Beyond the budget: each move's estimate.
        ("dab review --json", vec!["review", "5x5", "--moves", "h(0,0) v(1,1)", "--seconds", "0.2", "--json"]),
    ] {
        check(what, &stdout(&args));
    }
    let position = data("endgame/chain5-two-loop6.txt");
    check("dab endgame --json", &stdout(&["endgame", "--position", path(&position), "--json"]));
    let run = ["run", "2x3", "--threads", "2", "--store", path(&store), "--out", path(&report), "--json", "-q"];
    check("dab run --json", &stdout(&run));
    let penalised_out = d("rp");
    let penalised = ["run", "2x2", "--penalty", "1", "--no-probe", "--out", path(&penalised_out), "--json", "-q"];
    check("dab run --json", &stdout(&penalised));
    let plan = report.join("plan.json");
    check("plan.json", &std::fs::read_to_string(&plan).unwrap());
    let trace = report.join("trace.csv");
    check("dab compare --json", &stdout(&["compare", "--plan", path(&plan), "--trace", path(&trace), "--json"]));
    check("dab query --json", &stdout(&["query", "2x3", "--store", path(&store), "--json"]));
    check("dab verify --json", &stdout(&["verify", "--store", path(&store), "--recompute", "2", "--json"]));
    let value = d("value.json");
    dab().args(["job", "--plan", path(&plan), "--store", path(&store), "--value", path(&value)]).assert().success();
    check("value.json", &std::fs::read_to_string(&value).unwrap());
    let scale_dir = d("scale");
    let scale = ["scale", "2x2", "--sweep", "1,2", "--repeats", "1", "--out", path(&scale_dir), "--json"];
    check("dab scale --json", &stdout(&scale));
    let graph = d("g.csv");
    dab().args(["graph", "2x3", "-o", path(&graph)]).assert().success();
    check("dab sim --json", &stdout(&["sim", path(&graph), "--sweep", "1..3", "--out", path(&d("sim")), "--json"]));
    // A split plan: its candidates and split objects.
    let (split, plan_dir) = (d("split.json"), d("p"));
    let plan_args =
        ["plan", "2x5", "--no-probe", "--threads", "2", "--split", "1e3", "-o", path(&split), "--out", path(&plan_dir)];
    dab().args(plan_args).assert().success();
    check("plan.json", &std::fs::read_to_string(&split).unwrap());
    let plan_json = ["plan", "2x5", "--no-probe", "--threads", "2", "--split", "1e3", "--with-store", "--json"];
    check("dab plan --json", &stdout(&[&plan_json[..], &["-o", path(&d("p2/plan.json"))]].concat()));
    let nodes = ["plan", "2x4", "--no-probe", "--nodes", "2", "--threads-per-node", "2", "--json"];
    check("dab plan --json", &stdout(&[&nodes[..], &["-o", path(&d("p3/plan.json"))]].concat()));
    let (plan23, log, out) = (data("cluster/plan-2x3.json"), data("cluster/jobcomp.log"), d("t.csv"));
    let ct = ["cluster-trace", "--plan", path(&plan23), "--jobcomp", path(&log), "-o", path(&out), "--json"];
    check("dab cluster-trace --json", &stdout(&ct));
}

#[test]
fn the_documented_names_are_read_from_the_headings_they_sit_under() {
    let solve = documented("dab solve --json");
    assert!(solve.contains("peak_value_bytes") && solve.contains("line") && !solve.contains("job_count"));
    // Named in a paragraph only, as what old plans said: not a field written today.
    assert!(!documented("plan.json").contains("procs"));
    let run = documented("dab run --json");
    assert!(run.contains("job_count") && run.contains("predicted_peak_value_bytes"));
}
